/* track.h — tracked blocks: the large requests hmpt serves.
 *
 * A tracked request captures its call site and takes a block from the
 * arena (arena.h) or, for a memkind pool, from memkind (pool.h), placed as
 * the plan says (placer.h).  Every pointer hmpt made is recognised by
 * hmpt_track_owns(); every other pointer goes back to the allocator that
 * made it.
 */
#ifndef HMPT_TRACK_H
#define HMPT_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "pool.h"

/* A tracked block, wherever it lives. */
typedef struct {
	uint64_t size, usable;
	uint32_t site;
	uint16_t tag;
	bool memkind;
} hmpt_track_block_t;

/* Made by hmpt: in the arena, or a live memkind block (only page-aligned
 * pointers are looked up, and only while memkind blocks exist). */
static inline bool hmpt_track_owns(const void *p)
{
	hmpt_memkind_block_t m;

	return hmpt_arena_owns(p) ||
	       (!((uintptr_t)p & 4095) && hmpt_memkind_any() && hmpt_memkind_lookup(p, &m) == 0);
}

bool hmpt_track_lookup(void *p, hmpt_track_block_t *b);
/* Capture the site and allocate as planned; NULL means "not tracked, use
 * the normal allocator" (errno preserved). */
void *hmpt_track_alloc(size_t size, size_t align, bool zero);
/* free() of a pointer in the arena, or of a live memkind block */
void hmpt_track_free(void *p);
/* realloc of a tracked block: tracked still when large, else moved to the
 * normal allocator */
void *hmpt_track_realloc(void *p, size_t size);

#endif
