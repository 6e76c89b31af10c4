/* track.h — tracked blocks: the large requests hmpt serves.
 *
 * A tracked request captures its call site and takes a block from the
 * backend of its placement (backend.h: the arena, memkind, a file), placed as
 * the plan says (placer.h).  Every pointer hmpt made is recognised by
 * hmpt_track_owns(); every other pointer goes back to the allocator that
 * made it.
 */
#ifndef HMPT_TRACK_H
#define HMPT_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend_arena.h"
#include "pool.h"

/* A tracked block, wherever it lives. */
typedef struct {
	uint64_t size, usable;
	uint32_t site;
	uint16_t tag;
	uint16_t head_tag;       /* split: the first head_bytes are placed so */
	uint64_t head_bytes;     /* 0: not split */
	hmpt_backend_pool_t *bp; /* its backend's instance */
	bool unobserved;         /* page-fault sampling does not observe it (arena.h) */
	uint64_t born;           /* arena: when it took its range */
} hmpt_track_block_t;

/* Made by hmpt: in the arena, or a live block outside it (only
 * page-aligned pointers are looked up, and only while such blocks exist). */
static inline bool hmpt_track_owns(const void *p)
{
	return hmpt_backend_owns(p);
}

bool hmpt_track_lookup(void *p, hmpt_track_block_t *b);
/* Capture the site and allocate as planned; NULL means "not tracked, use
 * the normal allocator" (errno preserved). */
void *hmpt_track_alloc(size_t size, size_t align, bool zero);
/* Release a pointer in the arena, or a live block outside it; `by_free`: the
 * program's own free(), which moves glibc's thresholds (thresh.h), not a
 * realloc's */
void hmpt_track_free(void *p, bool by_free);
/* realloc of a tracked block: tracked still when large, else moved to the
 * normal allocator */
void *hmpt_track_realloc(void *p, size_t size);

#endif
