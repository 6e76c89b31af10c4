/* backend.h — where a placed block's memory comes from: one ops table per
 * backend, so that callers never name a backend's own API.
 *
 * Why: a plan's pool is either node memory shaped by hmpt (the arena's
 * granules, given their placement by pool.c: mbind, madvise, hugetlb) or a
 * memkind kind (pool_memkind.c, libmemkind dlopen'ed when a plan names
 * one).  Allocation, free, lookup and fork go through the table of the
 * block's backend; pool.c's choice names the backend (hmpt_choice_t's
 * `backend`, the plan's hmpt_backend_t) and each program maps that to its
 * tables: the shim to hmpt_backends_g (the arena, memkind), hmpt-bench to
 * its own mappings and memkind.
 *
 * The shim's own tables (the arena's, and which backend holds a pointer)
 * are in shim/backend_arena.h.
 *
 * Contract: ops return NULL with errno, or 0 / -errno; they never call
 * malloc themselves, but memkind's may reach memkind and dlopen, which do:
 * the shim holds its re-entrancy guard around them.  A member that is NULL
 * is something the backend does not do (open, check, resize, probe_hbw).
 * The backend keeps its blocks' records; callers get
 * copies.
 */
#ifndef HMPT_BACKEND_H
#define HMPT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "topo.h"

/* A live block as its backend records it. */
typedef struct {
	uint64_t size;   /* bytes requested */
	uint64_t usable; /* bytes the program may use */
	uint32_t site;
	uint16_t tag; /* placement (pool.h), 0 = system */
	/* split (arena only): the first head_bytes placed as head_tag says, the
	 * rest as tag; head_bytes 0: not split */
	uint16_t head_tag;
	uint64_t head_bytes;
	uint64_t born;   /* arena: when the block took its range (arena.h); 0 elsewhere */
	bool unobserved; /* arena: page-fault sampling does not observe it (arena.h) */
} hmpt_backend_block_t;

typedef struct hmpt_backend_ops {
	const char *name;
	/* its blocks lie in the arena, where sampling attributes addresses */
	bool sampled;
	/* Load the backend: 0, or -errno and `err` says why (kept for later
	 * calls). */
	int (*open)(char *err, size_t errlen);
	/* 0 when it can allocate `kind` (index into hmpt_plan_kinds_g) here */
	int (*check)(int kind);
	/* A block of `size` bytes aligned to `align` (at least a page), zeroed
	 * when `zero`, recorded with `site` and `tag`; `kind` for memkind. */
	void *(*alloc)(size_t size, size_t align, bool zero, uint32_t site, uint16_t tag, int kind);
	/* The same, split: the first head_bytes (whole 2 MiB granules, fewer
	 * than the block's) placed as head_tag says; NULL member: not done. */
	void *(*alloc_split)(size_t size, size_t align, bool zero, uint32_t site, uint16_t tag,
	                     uint16_t head_tag, uint64_t head_bytes);
	/* Free the live block at p; its record goes to *out.  -ENOENT/-EINVAL:
	 * not a live block of this backend. */
	int (*free)(void *p, hmpt_backend_block_t *out);
	/* The record of the live block starting at p, or -ENOENT/-EINVAL. */
	int (*lookup)(const void *p, hmpt_backend_block_t *out);
	/* Resize in place or by moving pages, keeping the tag; the new record
	 * gets `site`, *old the record as it was.  NULL (errno): unchanged. */
	void *(*resize)(void *p, size_t size, uint32_t site, hmpt_backend_block_t *old);
	/* Topology probe (topo.h layer 3): the nodes of high-bandwidth memory. */
	int (*probe_hbw)(hmpt_nodemask_t *hbm, void *ctx);
	/* fork (forktab.h) */
	void (*lock)(void);
	void (*unlock)(void);
	void (*reset_lock)(void);
} hmpt_backend_ops_t;

/* memkind (pool_memkind.c, shared with the tuner and hmpt-bench) */
extern const hmpt_backend_ops_t hmpt_backend_memkind;

/* Live blocks outside the arena (memkind's), read without a lock, so that
 * processes without memkind pay one load in free(). */
extern uint64_t hmpt_backend_outside_g;
static inline bool hmpt_backend_outside_any(void)
{
	return __atomic_load_n(&hmpt_backend_outside_g, __ATOMIC_RELAXED) != 0;
}
/* A live block outside the arena starts at p (page-aligned). */
bool hmpt_backend_outside_owns(const void *p);

#endif
