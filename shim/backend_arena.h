/* backend_arena.h — the shim's backends: the arena as the node backend
 * (backend.c), and which backend holds a pointer.
 *
 * For the pointers that the page test of their fast paths (boot.h) does
 * not pass on, free, realloc and malloc_usable_size ask "is this pointer
 * any backend's?" with hmpt_backend_owns(), inline: the arena's range
 * check, then, only for page-aligned pointers while blocks outside the
 * arena are live (one load), the table of such blocks.  No indirect call
 * there.
 */
#ifndef HMPT_BACKEND_ARENA_H
#define HMPT_BACKEND_ARENA_H

#include <errno.h>

#include "arena.h"
#include "backend.h"

/* The instance the arena's blocks are looked up and freed with. */
extern hmpt_backend_pool_t hmpt_backend_arena_g;

/* Perhaps made by one of the shim's backends: in the arena's range, or
 * page-aligned while blocks outside it live (no call). */
static inline bool hmpt_backend_may_own(const void *p)
{
	return hmpt_arena_owns(p) || (!((uintptr_t)p & 4095) && hmpt_outside_any());
}

/* Made by one of the shim's backends: the arena's range, or (only
 * page-aligned pointers, only while such blocks live) the outside table. */
static inline bool hmpt_backend_owns(const void *p)
{
	return hmpt_arena_owns(p) || (hmpt_backend_may_own(p) && hmpt_outside_owns(p));
}

/* The record and the instance of the live block at p: 0, or -ENOENT. */
static inline int hmpt_backend_lookup(const void *p, hmpt_backend_block_t *out,
                                      hmpt_backend_pool_t **bp)
{
	if (hmpt_arena_owns(p)) {
		*bp = &hmpt_backend_arena_g;
		return hmpt_backend_nodes_ops.lookup(*bp, p, out);
	}
	return hmpt_outside_lookup(p, out, bp);
}

#endif
