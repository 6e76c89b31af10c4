/* backend_arena.h — the shim's backends: the arena's ops table, the table
 * of each hmpt_backend_t, and which backend holds a pointer.
 *
 * For the pointers that the page test of their fast paths (boot.h) does
 * not pass on, free, realloc and malloc_usable_size ask "is this pointer
 * any backend's?" with hmpt_backend_owns(), inline: the arena's range
 * check, then, only for page-aligned pointers while blocks outside the
 * arena are live (one load), memkind's table.  No indirect call there.
 */
#ifndef HMPT_BACKEND_ARENA_H
#define HMPT_BACKEND_ARENA_H

#include "arena.h"
#include "backend.h"

/* the arena (backend.c, the shim's) */
extern const hmpt_backend_ops_t hmpt_backend_arena;
/* The shim's backend of each hmpt_backend_t. */
extern const hmpt_backend_ops_t *const hmpt_backends_g[2];

/* Perhaps made by one of the shim's backends: in the arena's range, or
 * page-aligned while blocks outside it live (no call). */
static inline bool hmpt_backend_may_own(const void *p)
{
	return hmpt_arena_owns(p) || (!((uintptr_t)p & 4095) && hmpt_backend_outside_any());
}

/* Made by one of the shim's backends: the arena's range, or (only
 * page-aligned pointers, only while such blocks live) memkind's table. */
static inline bool hmpt_backend_owns(const void *p)
{
	return hmpt_arena_owns(p) || (hmpt_backend_may_own(p) && hmpt_backend_outside_owns(p));
}

/* The shim's backend that would hold p. */
static inline const hmpt_backend_ops_t *hmpt_backend_of(const void *p)
{
	return hmpt_arena_owns(p) ? &hmpt_backend_arena : &hmpt_backend_memkind;
}

#endif
