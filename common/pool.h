/* pool.h — a plan's pools made real on this machine.
 *
 * Why: a plan says "hbm, bind, 60G, fall back to ddr"; this module turns
 * that into node sets (per CPU node when the pool is local), budgets, and the
 * calls that put a range of memory there (mbind(2), madvise(2), MAP_HUGETLB
 * over arena ranges).  Where a choice's block comes from is its backend
 * (backend.h): the arena shaped here, or memkind (pool_memkind.c,
 * dlopen'ed only when a plan names it).
 *
 * Vocabulary: a *placement* is one (pool, node set) pair; a local pool has
 * one placement per CPU node.  Its *tag* (index + 1, so 0 means "system":
 * no policy) is what the arena stores per granule and per block, so that a
 * freed block's pages are reused only by the same placement and `free`
 * knows which budget to credit.
 *
 * The pools are an object (hmpt_pools_t) passed to every call: the shim
 * keeps one (placer.c, static), hmpt-bench one per plan and the tuner its
 * own, so that nothing of one plan outlives it.
 *
 * Contract: an object is zero-initialised with an initialised lock (a
 * static one with HMPT_POOLS_INIT, or hmpt_pools_create(), which maps it:
 * no malloc; hmpt_pools_destroy() unmaps it).  hmpt_pools_resolve() once,
 * before any other call on it, with the plan and a classified topology
 * that stay alive and unchanged while the object is used.  Everything else
 * is thread-safe (the object's lock, never held across a system call),
 * never calls malloc, and returns 0 / -errno or a documented value.  Accounting
 * is in bytes as the arena maps them (whole pages, whole 2 MiB pages for
 * hugetlb).
 */
#ifndef HMPT_POOL_H
#define HMPT_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include "backend.h"
#include "fmt.h"
#include "plan.h"
#include "topo.h"

#define HMPT_MAX_PLACES 1024

/* where one block goes */
typedef struct {
	int pool;                /* plan pool index, or HMPT_POOL_SYSTEM */
	uint16_t tag;            /* 0: system */
	hmpt_backend_pool_t *bp; /* where the block comes from (backend.h) */
	bool hugetlb;            /* map 2 MiB hugetlb pages */
	uint64_t bytes;          /* charged (what release() must be given back) */
} hmpt_choice_t;

/* per pool, for reports */
typedef struct {
	hmpt_nodemask_t nodes;           /* every node the pool may use */
	uint64_t budget;                 /* bytes; UINT64_MAX: no limit */
	const char *budget_from;         /* "capacity", "free memory", "free huge pages", "none" */
	uint64_t used, peak;             /* bytes placed and live, highest */
	uint64_t allocations, bytes;     /* placed here */
	uint64_t refused, refused_bytes; /* did not fit here: went on to the fallback */
} hmpt_pool_stats_t;

/* What the pools charge against: each pool's budget and use, each node's
 * room and use.  One process's own, or (job.c) one shared by the ranks of
 * a job on a node, so that their budget is the node's. */
typedef struct {
	uint64_t budget[HMPT_PLAN_MAX_POOLS], pool_used[HMPT_PLAN_MAX_POOLS];
	uint64_t pool_peak[HMPT_PLAN_MAX_POOLS];
	uint64_t room[HMPT_MAX_NODES], used[HMPT_MAX_NODES];
	uint64_t huge_room[HMPT_MAX_NODES], huge_used[HMPT_MAX_NODES];
	uint64_t huge_room_all, huge_used_all;
} hmpt_pool_accounts_t;

/* One placement (private to pool.c). */
typedef struct {
	int pool;
	hmpt_nodemask_t nodes; /* empty: no node policy */
	unsigned nnodes;
	bool hugetlb;
	hmpt_backend_pool_t *bp; /* the pool's instance of its backend */
} hmpt_pools_place_t;

/* One pool at run time (private to pool.c). */
typedef struct {
	hmpt_pool_stats_t st;
	uint16_t by_node[HMPT_MAX_NODES]; /* CPU node -> tag, for local pools */
	uint16_t any;                     /* tag when the thread's node is not known */
	int warned_full, warned_refused;
} hmpt_pools_rt_t;

/* A plan's pools on this machine; its members are pool.c's. */
typedef struct {
	pthread_mutex_t lock;
	const hmpt_plan_t *plan;
	const hmpt_topo_t *topo;
	bool active;
	hmpt_pools_place_t places[HMPT_MAX_PLACES];
	int nplaces;
	hmpt_pools_rt_t pools[HMPT_PLAN_MAX_POOLS];
	/* each pool's instance of its backend, and the "system" placement's */
	hmpt_backend_pool_t inst[HMPT_PLAN_MAX_POOLS], system;
	/* budgets, and per node what may still be placed there (normal and huge
	 * pages): this object's, or the job's on this node (hmpt_pools_share) */
	hmpt_pool_accounts_t own_acc;
	hmpt_pool_accounts_t *acc;
	int (*acc_lock)(void); /* 0, or the accounts go back to own_acc for good */
	void (*acc_unlock)(void);
	size_t page;
	int preferred_many; /* the kernel knows MPOL_PREFERRED_MANY */
} hmpt_pools_t;

#define HMPT_POOLS_INIT                                                                            \
	{                                                                                          \
		.lock = PTHREAD_MUTEX_INITIALIZER, .page = 4096                                    \
	}

/* Memory of this pool is budgeted on the HBM nodes: a high-bandwidth
 * kind of a backend whose caps say so. */
bool hmpt_pools_hbw_budget(const hmpt_plan_pool_t *p);
/* Close the pools' backend instances (their files); destroy does it. */
void hmpt_pools_close(hmpt_pools_t *ps);

/* A new object (mapped), or NULL. */
hmpt_pools_t *hmpt_pools_create(void);
void hmpt_pools_destroy(hmpt_pools_t *ps);

typedef void (*hmpt_pools_warn_fn)(const char *msg, void *ctx);

/* Resolve the plan's pools against `topo` (already classified).  A pool the
 * machine cannot have (no such node, no HBM found, memkind missing) is an
 * error: -EINVAL and `err` says which pool, field and why, prefixed with
 * "FILE:LINE: ".  Conditions that only shrink a pool (no huge pages
 * reserved, THP disabled, a capacity above the free memory) are reported
 * through `warn` and are not errors. */
int hmpt_pools_resolve(hmpt_pools_t *ps, const hmpt_plan_t *plan, const hmpt_topo_t *topo,
                       hmpt_pools_warn_fn warn, void *ctx, char *err, size_t errlen);
bool hmpt_pools_active(hmpt_pools_t *ps);

/* Choose where `size` bytes for a site planned into `pool` go: the pool's
 * placement for the calling thread if its budget and nodes have room, else
 * along its fallback chain down to "system", which always fits.  Charges
 * the budget (released with hmpt_pools_release) and counts refusals; the
 * first refusal of each pool is announced once through the log. */
void hmpt_pools_choose(hmpt_pools_t *ps, int pool, size_t size, uint64_t site_id,
                       hmpt_choice_t *out);
/* The chosen placement could not be made (mapping or policy refused):
 * give the charge back, count the refusal, and choose again from the next
 * pool of the chain.  Returns false when `c` was already "system". */
bool hmpt_pools_refuse(hmpt_pools_t *ps, hmpt_choice_t *c, size_t size, uint64_t site_id, int err);
void hmpt_pools_release(hmpt_pools_t *ps, uint16_t tag, uint64_t bytes);
/* Count a block resized in place as an allocation of `bytes` in its pool
 * (as the profile counts realloc results). */
void hmpt_pools_count(hmpt_pools_t *ps, uint16_t tag, uint64_t bytes);
/* A block of placement `tag` changes from `before` to `after` bytes in
 * place: true and the charge follows when the budget and nodes take it;
 * false and nothing changes when not.  Shrinking always succeeds. */
bool hmpt_pools_regrow(hmpt_pools_t *ps, uint16_t tag, uint64_t before, uint64_t after);

/* Placement of a tag: its pool (HMPT_POOL_SYSTEM for 0) and page kind. */
int hmpt_pools_tag_pool(hmpt_pools_t *ps, uint16_t tag);
bool hmpt_pools_tag_hugetlb(hmpt_pools_t *ps, uint16_t tag);
/* Bytes a block of `size` is charged and mapped as under `tag`. */
uint64_t hmpt_pools_round(hmpt_pools_t *ps, uint16_t tag, size_t size);

/* Give a freshly mapped arena range its placement: node policy (mbind) and
 * page advice (madvise); for hugetlb with a node policy, populate it now so
 * that a node without free huge pages is an error here and not a SIGBUS
 * later.  0 or -errno. */
int hmpt_pools_shape(hmpt_pools_t *ps, void *addr, size_t len, uint16_t tag);
/* The same for memory that is already mapped and may hold pages (static
 * data): present pages are migrated (MPOL_MF_MOVE), untouched ones fault
 * in under the policy.  Not for hugetlb tags (mapped memory cannot become
 * hugetlbfs pages).  0 or -errno. */
int hmpt_pools_shape_existing(hmpt_pools_t *ps, void *addr, size_t len, uint16_t tag);

/* For reports: the plan, the topology, a pool's figures. */
const hmpt_plan_t *hmpt_pools_plan(hmpt_pools_t *ps);
const hmpt_topo_t *hmpt_pools_topo(hmpt_pools_t *ps);
void hmpt_pools_stats(hmpt_pools_t *ps, int pool, hmpt_pool_stats_t *out);
/* Charge `shared` from now on (after resolve, before any allocation),
 * taking `lock` inside the pools' own lock.  When *set, its budgets and
 * rooms are another process's view of the node and become ours; else ours
 * are stored in it and *set becomes true (both under `lock`).  When `lock`
 * fails (-errno) the accounts become this object's own again, starting from
 * a copy of the shared ones, and `shared` is never touched again. */
void hmpt_pools_share(hmpt_pools_t *ps, hmpt_pool_accounts_t *shared, bool *set, int (*lock)(void),
                      void (*unlock)(void));
/* "hbm: nodes 2-3 local, bind, 4k pages, budget 60.0 GiB (capacity), falls back to ddr" */
void hmpt_pools_describe(hmpt_pools_t *ps, hmpt_fmt_t *f, int pool);
/* Its placement alone: "nodes 2-3 (local), bind, 4k pages" */
void hmpt_pools_describe_place(hmpt_pools_t *ps, hmpt_fmt_t *f, int pool);

/* fork */
void hmpt_pools_lock(hmpt_pools_t *ps);
void hmpt_pools_unlock(hmpt_pools_t *ps);
void hmpt_pools_reset_lock(hmpt_pools_t *ps);

#endif
