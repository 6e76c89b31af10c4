/* backend.h — where a placed block's memory comes from: a registry of
 * backends, one row each, so that callers never name a backend's own API
 * nor test which backend a pool has.
 *
 * Why: a plan's pool is node memory shaped by hmpt (the arena's granules,
 * given their placement by pool.c: mbind, madvise, hugetlb), a memkind
 * kind (pool_memkind.c, libmemkind dlopen'ed when a plan names one), or a
 * file mapped as memory (pool_file.c: device-DAX, a DAX filesystem, tmpfs,
 * hugetlbfs).  Each row says what its backend can do (hmpt_backend_caps_t)
 * and which plan fields it takes; callers ask the record.  A new backend
 * is one file with its ops and one row in backend.c (docs/hacking.md).
 *
 * Instances: hmpt_pools_resolve() makes one hmpt_backend_pool_t per plan
 * pool (and one for "system"); every op receives it, so that a backend
 * keeps its per-pool state there (memkind's kind, the file's mapping).
 *
 * Blocks outside the arena (memkind's, a file's) are recorded in one
 * generic table (hmpt_outside_*, backend.c), by address, with the instance
 * that made them: free, realloc and malloc_usable_size find their backend
 * there, for page-aligned pointers only, while any such block lives.
 *
 * The node backend's ops are each program's own: the shim's arena
 * (shim/backend.c), hmpt-bench's mappings (bench/hb_mem.c).  A program
 * that only resolves plans (hmpt-tune) defines none: the row's ops are
 * then NULL (a weak reference).
 *
 * Contract: ops return NULL with errno, or 0 / -errno; they never call
 * malloc themselves, but memkind's may reach memkind and dlopen, which do:
 * the shim holds its re-entrancy guard around them.  A member that is NULL
 * is something the backend does not do.  The backend keeps its blocks'
 * records; callers get copies.  No stdio.
 */
#ifndef HMPT_BACKEND_H
#define HMPT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt.h"
#include "topo.h"

struct hmpt_plan_pool;

/* A live block as its backend records it. */
typedef struct {
	uint64_t size;   /* bytes requested */
	uint64_t usable; /* bytes the program may use */
	uint32_t site;
	uint16_t tag; /* placement (pool.h), 0 = system */
	/* split (caps.split only): the first head_bytes placed as head_tag
	 * says, the rest as tag; head_bytes 0: not split */
	uint16_t head_tag;
	uint64_t head_bytes;
	uint64_t born;   /* arena: when the block took its range (arena.h); 0 elsewhere */
	bool unobserved; /* arena: page-fault sampling does not observe it (arena.h) */
} hmpt_backend_block_t;

/* What a backend can do; callers ask this, never which backend it is. */
typedef struct {
	bool split;       /* a block's head and rest in two placements (alloc_split) */
	bool statics;     /* can place memory already mapped (static data) */
	bool outside;     /* its blocks lie outside the arena: in the outside table */
	bool sampled;     /* sampling attributes its addresses (the arena) */
	bool hbw_budget;  /* a high-bandwidth kind's pool is budgeted on the HBM nodes */
	bool node_fields; /* takes the plan's nodes, local, policy and pages */
} hmpt_backend_caps_t;

/* A memkind kind: plan name ("hbw" -> MEMKIND_HBW), and whether memkind
 * puts it in high-bandwidth memory (budgeted on the HBM nodes). */
typedef struct {
	const char *name;
	bool hbw;
} hmpt_backend_kind_t;

struct hmpt_backend;

/* One plan pool's instance of its backend (pool.c makes them). */
typedef struct hmpt_backend_pool {
	const struct hmpt_backend *be;
	const struct hmpt_plan_pool *plan; /* NULL: the "system" placement */
	int index;                         /* plan pool index, or HMPT_POOL_SYSTEM */
	void *state;                       /* the backend's own (open() sets it) */
	uint64_t capacity;                 /* bytes it can hold (file: the mapping); 0: no limit */
	uint64_t unit;                     /* a block's bytes are a multiple of it; 0: the page */
	const char *capacity_from;         /* where capacity comes from, for messages */
} hmpt_backend_pool_t;

typedef struct hmpt_backend_ops {
	/* Make the instance usable (load a library, map a file): 0, or -errno,
	 * `err` says why and *field names the plan field it is about. */
	int (*open)(hmpt_backend_pool_t *bp, const char **field, char *err, size_t errlen);
	/* Release what open() took (the program is done with the plan). */
	void (*close)(hmpt_backend_pool_t *bp);
	/* A block of `size` bytes aligned to `align` (at least a page), zeroed
	 * when `zero`, recorded with `site` and `tag`. */
	void *(*alloc)(hmpt_backend_pool_t *bp, size_t size, size_t align, bool zero, uint32_t site,
	               uint16_t tag);
	/* caps.split: the same, the first head_bytes (whole 2 MiB granules,
	 * fewer than the block's) placed as head_tag says. */
	void *(*alloc_split)(hmpt_backend_pool_t *bp, size_t size, size_t align, bool zero,
	                     uint32_t site, uint16_t tag, uint16_t head_tag, uint64_t head_bytes);
	/* Free the live block at p; its record goes to *out.  -ENOENT/-EINVAL:
	 * not a live block of this backend. */
	int (*free)(hmpt_backend_pool_t *bp, void *p, hmpt_backend_block_t *out);
	/* The record of the live block starting at p, or -ENOENT/-EINVAL. */
	int (*lookup)(hmpt_backend_pool_t *bp, const void *p, hmpt_backend_block_t *out);
	/* Resize in place or by moving pages, keeping the tag; the new record
	 * gets `site`, *old the record as it was.  NULL (errno): unchanged. */
	void *(*resize)(hmpt_backend_pool_t *bp, void *p, size_t size, uint32_t site,
	                hmpt_backend_block_t *old);
	/* fork (the shim's forktab.h), at the row's fork_rank: prepare takes
	 * the backend's locks (and may prepare the child's copy), parent
	 * releases them, child makes them usable again. */
	void (*fork_prepare)(void);
	void (*fork_parent)(void);
	void (*fork_child)(void);
} hmpt_backend_ops_t;

/* One registry row. */
typedef struct hmpt_backend {
	const char *name; /* the plan's "backend" */
	hmpt_backend_caps_t caps;
	/* plan fields of its own, besides capacity and fallback (NULL-ended);
	 * `required` must be given, with `hint` in the message when missing */
	const char *const *fields;
	const char *required, *hint;
	const hmpt_backend_kind_t *kinds; /* "kind"'s values (NULL-ended names), or NULL */
	/* "memkind kind hbw", "file /dev/dax0.0": for plan check and logs;
	 * NULL: the caller describes nodes and pages */
	void (*describe)(hmpt_fmt_t *f, const struct hmpt_plan_pool *p);
	int fork_rank; /* its locks' first rank (lockrank.h); 0: no fork handlers */
	const hmpt_backend_ops_t *ops;
} hmpt_backend_t;

/* The rows, NULL-ended, in the order of the plan format's "backend" enum;
 * the first is the default (node memory). */
extern const hmpt_backend_t *const hmpt_backends_g[];
/* memkind's kinds, NULL-ended */
extern const hmpt_backend_kind_t hmpt_backend_kinds_g[];

/* The row named `name`, or NULL. */
const hmpt_backend_t *hmpt_backend_find(const char *name);
/* The node backend: the default row. */
const hmpt_backend_t *hmpt_backend_nodes(void);

/* The rows by name: for static initialisers (an instance's row), never
 * to test which backend a pool has. */
extern const hmpt_backend_t hmpt_backend_numa, hmpt_backend_memkind, hmpt_backend_file;
/* The program's node memory (see above); NULL where undefined (backend.c
 * refers to it weakly). */
extern const hmpt_backend_ops_t hmpt_backend_nodes_ops;

/* memkind's HBW detection (topo.h layer 3): the HBM nodes, or -errno. */
int hmpt_backend_memkind_probe_hbw(hmpt_nodemask_t *hbm, void *ctx);

/* ------------------------------------------------ blocks outside the arena */

/* Live blocks outside the arena, read without a lock, so that processes
 * without any pay one load in free(). */
extern uint64_t hmpt_outside_live_g;
static inline bool hmpt_outside_any(void)
{
	return __atomic_load_n(&hmpt_outside_live_g, __ATOMIC_RELAXED) != 0;
}
/* Record the block at p (page-aligned) with its instance: 0, -ENOSPC (the
 * table is full) or -ENOMEM (it could not be mapped). */
int hmpt_outside_add(void *p, const hmpt_backend_block_t *b, hmpt_backend_pool_t *bp);
/* The record and instance of the live block at p: 0 or -ENOENT. */
int hmpt_outside_lookup(const void *p, hmpt_backend_block_t *out, hmpt_backend_pool_t **bp);
/* The same, and the record is dropped. */
int hmpt_outside_take(const void *p, hmpt_backend_block_t *out, hmpt_backend_pool_t **bp);
/* Call fn on every live block (fork: the file backend's copies); with the
 * table's lock held by the caller (hmpt_outside_lock). */
void hmpt_outside_each(void (*fn)(void *p, hmpt_backend_block_t *b, hmpt_backend_pool_t *bp,
                                  void *ctx),
                       void *ctx);
/* The lookup op of a backend whose blocks are all in the table. */
int hmpt_outside_lookup_op(hmpt_backend_pool_t *bp, const void *p, hmpt_backend_block_t *out);
/* A live block outside the arena starts at p (page-aligned). */
bool hmpt_outside_owns(const void *p);
/* fork: the table's lock (rank HMPT_LOCK_OUTSIDE, lockrank.h) */
void hmpt_outside_lock(void);
void hmpt_outside_unlock(void);
void hmpt_outside_reset_lock(void);

#endif
