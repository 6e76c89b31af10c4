/* pool.c — see pool.h.  Node pools: mbind(2), called directly (numaif.h
 * gives only the constants: linking libnuma would run its constructor, which
 * reads sysfs and probes the kernel, in every process at start-up),
 * madvise(2) for the page kind; budgets per pool and per node. */
#include "pool.h"

#include <errno.h>
#include <numaif.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend.h"
#include "lockrank.h"
#include "log.h"
#include "sys.h"

#ifndef MPOL_PREFERRED_MANY
#define MPOL_PREFERRED_MANY 5
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define HUGE_2M ((uint64_t)2 << 20)

hmpt_pools_t *hmpt_pools_create(void)
{
	hmpt_pools_t *ps = hmpt_sys_map(sizeof(*ps));

	if (ps) {
		pthread_mutex_init(&ps->lock, NULL);
		ps->page = 4096; /* until resolve reads the page size */
	}
	return ps;
}

void hmpt_pools_destroy(hmpt_pools_t *ps)
{
	if (!ps)
		return;
	hmpt_pools_close(ps);
	pthread_mutex_destroy(&ps->lock);
	hmpt_sys_unmap(ps, sizeof(*ps));
}

void hmpt_pools_lock(hmpt_pools_t *ps)
{
	hmpt_lock_take(&ps->lock, HMPT_LOCK_POOLS);
}

void hmpt_pools_unlock(hmpt_pools_t *ps)
{
	hmpt_lock_drop(&ps->lock);
}

/* The job's lock could not be had (job.c gave up waiting for it): the
 * accounts become this object's own for good, from the shared ones as they
 * are (read without the lock: what the other ranks hold stays counted, a
 * budget too small rather than counters that lose updates or wrap). */
static void accounts_own(hmpt_pools_t *ps)
{
	if (ps->acc != &ps->own_acc)
		ps->own_acc = *ps->acc;
	__atomic_store_n(&ps->acc, &ps->own_acc, __ATOMIC_RELEASE);
	ps->acc_lock = NULL;
	ps->acc_unlock = NULL;
}

/* the pools' lock, and the job's around the accounts when they are shared */
static void lock_accounts(hmpt_pools_t *ps)
{
	hmpt_lock_take(&ps->lock, HMPT_LOCK_POOLS);
	if (ps->acc_lock && ps->acc_lock() != 0)
		accounts_own(ps);
}

static void unlock_accounts(hmpt_pools_t *ps)
{
	if (ps->acc_unlock)
		ps->acc_unlock();
	hmpt_lock_drop(&ps->lock);
}

void hmpt_pools_share(hmpt_pools_t *ps, hmpt_pool_accounts_t *shared, bool *set, int (*lock)(void),
                      void (*unlock)(void))
{
	hmpt_lock_take(&ps->lock, HMPT_LOCK_POOLS);
	if (lock() != 0) { /* the accounts stay this object's own */
		hmpt_lock_drop(&ps->lock);
		return;
	}
	bool adopt = *set;
	*set = true;
	if (adopt) {
		for (int i = 0; i < ps->plan->npools; i++)
			ps->pools[i].st.budget = shared->budget[i];
	} else {
		for (int i = 0; i < ps->plan->npools; i++)
			ps->own_acc.budget[i] = ps->pools[i].st.budget;
		*shared = ps->own_acc;
	}
	ps->acc = shared;
	ps->acc_lock = lock;
	ps->acc_unlock = unlock;
	unlock();
	hmpt_lock_drop(&ps->lock);
}

void hmpt_pools_reset_lock(hmpt_pools_t *ps)
{
	hmpt_lock_reset(&ps->lock);
}

bool hmpt_pools_active(hmpt_pools_t *ps)
{
	return __atomic_load_n(&ps->active, __ATOMIC_ACQUIRE);
}

const hmpt_plan_t *hmpt_pools_plan(hmpt_pools_t *ps)
{
	return ps->plan;
}

const hmpt_topo_t *hmpt_pools_topo(hmpt_pools_t *ps)
{
	return ps->topo;
}

/* ------------------------------------------------------------ resolve */

/* The kernel keeps this much of each node for itself, in hmpt's
 * accounting: 1/64 of the node, at least 16 MiB. */
static uint64_t node_reserve(const hmpt_node_t *n)
{
	uint64_t r = n->mem_total / 64;
	return r < ((uint64_t)16 << 20) ? (uint64_t)16 << 20 : r;
}

static uint16_t add_place(hmpt_pools_t *ps, int pool, const hmpt_nodemask_t *nodes, bool hugetlb)
{
	for (int i = 0; i < ps->nplaces; i++)
		if (ps->places[i].pool == pool && hmpt_nodemask_equal(&ps->places[i].nodes, nodes))
			return (uint16_t)(i + 1);
	if (ps->nplaces == HMPT_MAX_PLACES)
		return 0;
	hmpt_pools_place_t *p = &ps->places[ps->nplaces++];
	p->pool = pool;
	p->nodes = *nodes;
	p->nnodes = hmpt_nodemask_weight(nodes);
	p->hugetlb = hugetlb;
	p->bp = &ps->inst[pool];
	return (uint16_t)ps->nplaces;
}

typedef struct {
	char *err;
	size_t errlen;
	hmpt_pools_warn_fn warn;
	void *ctx;
} rctx_t;

/* "FILE:LINE: pools.NAME.FIELD: " */
static void begin_msg(hmpt_pools_t *ps, hmpt_fmt_t *f, char *buf, size_t cap,
                      const hmpt_plan_pool_t *p, const char *field)
{
	hmpt_fmt_init(f, buf, cap, -1);
	hmpt_fmt_printf(f, "%s:%u: pools.%s%s%s: ", ps->plan->path, (unsigned)p->line, p->name,
	                field ? "." : "", field ? field : "");
}

static int pool_error(hmpt_pools_t *ps, rctx_t *r, const hmpt_plan_pool_t *p, const char *field,
                      const char *what, const hmpt_nodemask_t *show)
{
	hmpt_fmt_t f;

	begin_msg(ps, &f, r->err, r->errlen, p, field);
	hmpt_fmt_str(&f, what);
	if (show) {
		hmpt_fmt_str(&f, " (online nodes with memory: ");
		hmpt_nodemask_format(&f, show);
		hmpt_fmt_char(&f, ')');
	}
	hmpt_fmt_cstr(&f);
	return -EINVAL;
}

static void pool_warn(hmpt_pools_t *ps, rctx_t *r, const hmpt_plan_pool_t *p, const char *field,
                      const char *what)
{
	char buf[512];
	hmpt_fmt_t f;

	if (!r->warn)
		return;
	begin_msg(ps, &f, buf, sizeof(buf), p, field);
	hmpt_fmt_str(&f, what);
	r->warn(hmpt_fmt_cstr(&f), r->ctx);
}

/* every node the pool may use; -EINVAL when the machine cannot have it */
static int pool_nodes(hmpt_pools_t *ps, rctx_t *r, const hmpt_plan_pool_t *p, hmpt_nodemask_t *out)
{
	const hmpt_topo_t *t = ps->topo;

	memset(out, 0, sizeof(*out));
	switch (p->nodes) {
	case HMPT_NODES_NONE: break;
	case HMPT_NODES_ALL: *out = t->memory; break;
	case HMPT_NODES_HBM:
		if (hmpt_nodemask_empty(&t->hbm))
			return pool_error(
			    ps, r, p, "nodes",
			    "\"hbm\", but no HBM nodes were found on this machine (neither "
			    "HMAT bandwidth above DDR's nor memkind names any; name them with "
			    "HMPT_HBM_NODES or the plan's hbm_nodes)",
			    NULL);
		*out = t->hbm;
		break;
	case HMPT_NODES_DDR:
		if (hmpt_nodemask_empty(&t->ddr))
			return pool_error(ps, r, p, "nodes",
			                  "\"ddr\", but no DDR nodes were found (name them with "
			                  "HMPT_DDR_NODES or the plan's ddr_nodes)",
			                  NULL);
		*out = t->ddr;
		break;
	case HMPT_NODES_TIER: {
		int k = hmpt_topo_tier_index(t, p->tier);
		if (k < 0) {
			char what[160];
			hmpt_fmt_text(what, sizeof(what),
			              "tier %d, but this machine has %d memory tier%s (0 to %d; or "
			              "say \"fastest\" or \"slowest\")",
			              p->tier, t->ntiers, t->ntiers == 1 ? "" : "s", t->ntiers - 1);
			return pool_error(ps, r, p, "tier", what, NULL);
		}
		*out = t->tier[k];
		break;
	}
	case HMPT_NODES_LIST:
		for (int n = hmpt_nodemask_first(&p->list); n >= 0;
		     n = hmpt_nodemask_next(&p->list, n))
			if (!hmpt_nodemask_has(&t->memory, (unsigned)n)) {
				char what[96];
				hmpt_fmt_text(
				    what, sizeof(what),
				    "node %d is not an online node with memory on this machine", n);
				return pool_error(ps, r, p, "nodes", what, &t->memory);
			}
		*out = p->list;
		break;
	}
	return 0;
}

static void set_budget(hmpt_pools_t *ps, rctx_t *r, int i, const hmpt_plan_pool_t *p,
                       const hmpt_nodemask_t *nodes)
{
	const hmpt_topo_t *t = ps->topo;
	hmpt_pool_stats_t *st = &ps->pools[i].st;
	uint64_t implicit = UINT64_MAX, total = 0, cap = UINT64_MAX;
	const char *from = "none";
	const hmpt_nodemask_t *of = hmpt_nodemask_empty(nodes) ? &t->memory : nodes;

	for (int n = hmpt_nodemask_first(of); n >= 0; n = hmpt_nodemask_next(of, n))
		total += t->node[n].mem_total;
	if (ps->inst[i].capacity) {
		implicit = ps->inst[i].capacity;
		from = ps->inst[i].capacity_from ? ps->inst[i].capacity_from : "its backend";
	} else if (p->pages == HMPT_PAGES_HUGETLB) {
		implicit = 0;
		from = "free huge pages";
		if (hmpt_nodemask_empty(nodes))
			implicit = ps->acc->huge_room_all;
		else
			for (int n = hmpt_nodemask_first(nodes); n >= 0;
			     n = hmpt_nodemask_next(nodes, n))
				implicit += ps->acc->huge_room[n];
	} else if (!hmpt_nodemask_empty(nodes)) {
		implicit = 0;
		from = "free memory";
		for (int n = hmpt_nodemask_first(nodes); n >= 0; n = hmpt_nodemask_next(nodes, n))
			implicit += ps->acc->room[n];
	}
	if (p->capacity)
		cap = p->capacity;
	else if (p->capacity_pct)
		cap = total / 100 * p->capacity_pct;
	st->nodes = *nodes;
	st->budget = implicit;
	st->budget_from = from;
	if (cap <= implicit) {
		st->budget = cap;
		if (cap != UINT64_MAX)
			st->budget_from = "capacity";
	} else if (cap != UINT64_MAX) {
		char what[256];
		pool_warn(
		    ps, r, p, "capacity",
		    hmpt_fmt_text(what, sizeof(what),
		                  "the capacity %s is more than this machine can give the pool (%s "
		                  "of %s); its budget is that",
		                  HMPT_SIZE(cap), HMPT_SIZE(implicit), from));
	}
	if (p->pages == HMPT_PAGES_HUGETLB && implicit == 0)
		pool_warn(
		    ps, r, p, "pages",
		    "no free 2 MiB huge pages on its nodes (reserve some: "
		    "echo N > /proc/sys/vm/nr_hugepages); its allocations go to its fallback");
	if (p->pages == HMPT_PAGES_THP && strcmp(t->thp, "never") == 0)
		pool_warn(ps, r, p, "pages",
		          "transparent huge pages are disabled here "
		          "(/sys/kernel/mm/transparent_hugepage/enabled is \"never\"): the pool "
		          "gets 4 KiB pages");
}

bool hmpt_pools_hbw_budget(const hmpt_plan_pool_t *p)
{
	return p->backend->caps.hbw_budget && p->kind >= 0 && p->backend->kinds[p->kind].hbw;
}

void hmpt_pools_close(hmpt_pools_t *ps)
{
	for (int i = 0; ps->plan && i < ps->plan->npools; i++) {
		hmpt_backend_pool_t *bp = &ps->inst[i];
		if (bp->state && bp->be->ops && bp->be->ops->close)
			bp->be->ops->close(bp);
	}
}

int hmpt_pools_resolve(hmpt_pools_t *ps, const hmpt_plan_t *plan, const hmpt_topo_t *topo,
                       hmpt_pools_warn_fn warn, void *ctx, char *err, size_t errlen)
{
	rctx_t r = {.err = err, .errlen = errlen, .warn = warn, .ctx = ctx};
	long pgsz = sysconf(_SC_PAGESIZE);
	int rc;

	if (pgsz > 0)
		ps->page = (size_t)pgsz;
	ps->preferred_many = 1;
	ps->plan = plan;
	ps->topo = topo;
	ps->nplaces = 0;
	memset(ps->pools, 0, sizeof(ps->pools));
	memset(ps->inst, 0, sizeof(ps->inst));
	ps->system = (hmpt_backend_pool_t){.be = hmpt_backend_nodes(), .index = HMPT_POOL_SYSTEM};
	ps->acc = &ps->own_acc;
	ps->acc_lock = NULL;
	ps->acc_unlock = NULL;
	memset(ps->acc, 0, sizeof(*ps->acc));
	ps->acc->huge_room_all = topo->huge_free_total * HUGE_2M;
	ps->acc->huge_used_all = 0;
	for (int n = 0; n < HMPT_MAX_NODES; n++) {
		const hmpt_node_t *nd = &topo->node[n];
		uint64_t res = node_reserve(nd);
		ps->acc->used[n] = ps->acc->huge_used[n] = 0;
		ps->acc->room[n] = nd->mem_free > res ? nd->mem_free - res : 0;
		ps->acc->huge_room[n] = nd->huge_free * HUGE_2M;
	}
	for (int i = 0; i < plan->npools; i++) {
		const hmpt_plan_pool_t *p = &plan->pools[i];
		hmpt_pools_rt_t *rt = &ps->pools[i];
		hmpt_backend_pool_t *bp = &ps->inst[i];
		hmpt_nodemask_t nodes;
		bool hugetlb = p->pages == HMPT_PAGES_HUGETLB;
		bool local = p->local;

		if ((rc = pool_nodes(ps, &r, p, &nodes)))
			goto fail;
		*bp = (hmpt_backend_pool_t){.be = p->backend, .plan = p, .index = i};
		if (p->backend->ops && p->backend->ops->open) {
			char why[512];
			const char *field = NULL;
			if (p->backend->ops->open(bp, &field, why, sizeof(why)) != 0) {
				rc = pool_error(ps, &r, p, field, why, NULL);
				goto fail;
			}
		}
		/* memkind's HBW kinds use the HBM local to the thread: hmpt
		 * accounts them on those nodes when it knows them */
		if (hmpt_pools_hbw_budget(p) && !hmpt_nodemask_empty(&topo->hbm)) {
			nodes = topo->hbm;
			local = true;
		}
		rt->any = add_place(ps, i, &nodes, hugetlb);
		for (int c = 0; c < HMPT_MAX_NODES; c++) {
			const hmpt_nodemask_t *l = NULL;
			hmpt_nodemask_t in_tier;
			if (local && hmpt_nodemask_has(&topo->cpu, (unsigned)c)) {
				if (p->nodes == HMPT_NODES_TIER) {
					hmpt_topo_local_of(topo, c, &nodes, &in_tier);
					l = &in_tier;
				} else {
					l = p->nodes == HMPT_NODES_DDR ? &topo->local_ddr[c]
					                               : &topo->local_hbm[c];
				}
			}
			rt->by_node[c] =
			    l && !hmpt_nodemask_empty(l) ? add_place(ps, i, l, hugetlb) : rt->any;
		}
		set_budget(ps, &r, i, p, &nodes);
	}
	__atomic_store_n(&ps->active, true, __ATOMIC_RELEASE);
	return 0;
fail: /* the pools opened so far (a mapped file, its lock) are let go */
	hmpt_pools_close(ps);
	return rc;
}

/* ------------------------------------------------------------- choose */

static const hmpt_pools_place_t *place_of(hmpt_pools_t *ps, uint16_t tag)
{
	return tag && tag <= ps->nplaces ? &ps->places[tag - 1] : NULL;
}

int hmpt_pools_tag_pool(hmpt_pools_t *ps, uint16_t tag)
{
	const hmpt_pools_place_t *p = place_of(ps, tag);
	return p ? p->pool : HMPT_POOL_SYSTEM;
}

bool hmpt_pools_tag_hugetlb(hmpt_pools_t *ps, uint16_t tag)
{
	const hmpt_pools_place_t *p = place_of(ps, tag);
	return p && p->hugetlb;
}

uint64_t hmpt_pools_round(hmpt_pools_t *ps, uint16_t tag, size_t size)
{
	const hmpt_pools_place_t *p = place_of(ps, tag);
	/* a backend's own unit (a file on hugetlbfs, a device-DAX's alignment) */
	uint64_t unit = p && p->bp && p->bp->unit         ? p->bp->unit
	                : hmpt_pools_tag_hugetlb(ps, tag) ? HUGE_2M
	                                                  : ps->page;
	return ((uint64_t)size + unit - 1) / unit * unit;
}

static uint64_t share(const hmpt_pools_place_t *p, uint64_t bytes)
{
	return (bytes + p->nnodes - 1) / p->nnodes;
}

/* With the lock: can `bytes` go to place `tag` of pool `i`?  On no, *why
 * names what is short (for the message). */
static bool fits(hmpt_pools_t *ps, int i, const hmpt_pools_place_t *p, uint64_t bytes,
                 int *short_node)
{
	const hmpt_pool_stats_t *st = &ps->pools[i].st;

	/* the message should name what really is short: the plan's capacity,
	 * else a node (a budget from free memory spans all the pool's nodes, a
	 * thread's allocation may go to only some of them), else the budget */
	uint64_t used = ps->acc->pool_used[i];
	bool over = used + bytes > st->budget || used + bytes < used;
	*short_node = -1;
	if (over && strcmp(st->budget_from, "capacity") == 0)
		return false;
	uint64_t s = p->nnodes ? share(p, bytes) : 0;
	for (int n = hmpt_nodemask_first(&p->nodes); n >= 0; n = hmpt_nodemask_next(&p->nodes, n)) {
		bool ok = p->hugetlb ? ps->acc->huge_used[n] + s <= ps->acc->huge_room[n]
		                     : ps->acc->used[n] + s <= ps->acc->room[n];
		if (!ok) {
			*short_node = n;
			return false;
		}
	}
	if (p->hugetlb && ps->acc->huge_used_all + bytes > ps->acc->huge_room_all)
		return false;
	return !over;
}

/* what is left on node n for place p, in hmpt's account */
static uint64_t node_left(hmpt_pools_t *ps, const hmpt_pools_place_t *p, int n)
{
	uint64_t room = p->hugetlb ? ps->acc->huge_room[n] : ps->acc->room[n];
	uint64_t used = p->hugetlb ? ps->acc->huge_used[n] : ps->acc->used[n];
	return room > used ? room - used : 0;
}

/* with the lock; sign +1 charges, -1 gives back */
static void charge(hmpt_pools_t *ps, int i, const hmpt_pools_place_t *p, uint64_t bytes, int sign)
{
	hmpt_pool_stats_t *st = &ps->pools[i].st;

	uint64_t *job = &ps->acc->pool_used[i];
	if (sign > 0) {
		st->used += bytes;
		if (st->used > st->peak)
			st->peak = st->used;
		*job += bytes;
		if (*job > ps->acc->pool_peak[i])
			ps->acc->pool_peak[i] = *job;
	} else {
		st->used -= bytes < st->used ? bytes : st->used;
		*job -= bytes < *job ? bytes : *job;
	}
	if (p->hugetlb)
		ps->acc->huge_used_all +=
		    sign > 0 ? bytes
		             : -(bytes < ps->acc->huge_used_all ? bytes : ps->acc->huge_used_all);
	if (!p->nnodes)
		return;
	uint64_t s = share(p, bytes);
	for (int n = hmpt_nodemask_first(&p->nodes); n >= 0; n = hmpt_nodemask_next(&p->nodes, n)) {
		uint64_t *u = p->hugetlb ? &ps->acc->huge_used[n] : &ps->acc->used[n];
		*u += sign > 0 ? s : -(s < *u ? s : *u);
	}
}

static uint16_t tag_for_thread(hmpt_pools_t *ps, int i, int cpu_node)
{
	const hmpt_pools_rt_t *rt = &ps->pools[i];
	return cpu_node >= 0 && cpu_node < HMPT_MAX_NODES ? rt->by_node[cpu_node] : rt->any;
}

/* "pool hbm cannot take 512.0 MiB (site 0123...: budget 16.0 GiB, 15.8 GiB
 *  in use): it and any like it go to ddr; the profile counts them" */
/* short_node >= 0: that node had only `left` bytes (of 2 MiB pages when
 * hugetlb) in hmpt's account */
typedef struct {
	int node;
	bool hugetlb;
	uint64_t left;
} shortage_t;

static void say_refused(hmpt_pools_t *ps, int i, uint64_t bytes, uint64_t site_id,
                        const shortage_t *sh, int err)
{
	const hmpt_pool_stats_t *st = &ps->pools[i].st;
	char why[256];

	if (err)
		hmpt_fmt_text(why, sizeof(why), "placing it failed: %s", strerrordesc_np(err));
	else if (sh && sh->node >= 0)
		hmpt_fmt_text(why, sizeof(why), "only %s%s%d%s", HMPT_SIZE(sh->left),
		              sh->hugetlb ? " of free 2 MiB pages left on node " : " left on node ",
		              sh->node,
		              sh->hugetlb ? "" : ": its free memory at start less a reserve");
	else
		hmpt_fmt_text(why, sizeof(why), "budget %s from %s, %s in use",
		              HMPT_SIZE(st->budget), st->budget_from,
		              HMPT_SIZE(__atomic_load_n(&ps->acc->pool_used[i], __ATOMIC_RELAXED)));
	hmpt_log_printf(
	    HMPT_LOG_WARN,
	    "pool %s cannot take %s for site %016llx (%s): it and any like it go to %s; "
	    "the profile counts them",
	    ps->plan->pools[i].name, HMPT_SIZE(bytes), (unsigned long long)site_id, why,
	    hmpt_plan_pool_name(ps->plan, ps->plan->pools[i].fallback));
}

void hmpt_pools_choose(hmpt_pools_t *ps, int pool, size_t size, uint64_t site_id,
                       hmpt_choice_t *out)
{
	int cpu_node = hmpt_topo_current_node(ps->topo);
	int say = -1;
	uint64_t say_bytes = 0;
	shortage_t say_short = {.node = -1};

	memset(out, 0, sizeof(*out));
	out->pool = HMPT_POOL_SYSTEM;
	out->bp = &ps->system;
	out->bytes = hmpt_pools_round(ps, 0, size);
	lock_accounts(ps);
	for (int hops = 0; pool != HMPT_POOL_SYSTEM && hops <= ps->plan->npools; hops++) {
		uint16_t tag = tag_for_thread(ps, pool, cpu_node);
		const hmpt_pools_place_t *p = place_of(ps, tag);
		uint64_t bytes = hmpt_pools_round(ps, tag, size);
		int short_node = -1;
		if (p && fits(ps, pool, p, bytes, &short_node)) {
			charge(ps, pool, p, bytes, +1);
			ps->pools[pool].st.allocations++;
			ps->pools[pool].st.bytes += bytes;
			*out = (hmpt_choice_t){.pool = pool,
			                       .tag = tag,
			                       .bp = p->bp,
			                       .hugetlb = p->hugetlb,
			                       .bytes = bytes};
			break;
		}
		ps->pools[pool].st.refused++;
		ps->pools[pool].st.refused_bytes += bytes;
		if (say < 0 && hmpt_log_first(&ps->pools[pool].warned_full)) {
			say = pool;
			say_bytes = bytes;
			if (p && short_node >= 0)
				say_short = (shortage_t){short_node, p->hugetlb,
				                         node_left(ps, p, short_node)};
		}
		pool = ps->plan->pools[pool].fallback;
	}
	unlock_accounts(ps);
	if (say >= 0)
		say_refused(ps, say, say_bytes, site_id, &say_short, 0);
}

void hmpt_pools_release(hmpt_pools_t *ps, uint16_t tag, uint64_t bytes)
{
	const hmpt_pools_place_t *p = place_of(ps, tag);

	if (!p)
		return;
	lock_accounts(ps);
	charge(ps, p->pool, p, bytes, -1);
	unlock_accounts(ps);
}

void hmpt_pools_count(hmpt_pools_t *ps, uint16_t tag, uint64_t bytes)
{
	const hmpt_pools_place_t *p = place_of(ps, tag);

	if (!p)
		return;
	hmpt_lock_take(&ps->lock, HMPT_LOCK_POOLS);
	ps->pools[p->pool].st.allocations++;
	ps->pools[p->pool].st.bytes += bytes;
	hmpt_lock_drop(&ps->lock);
}

bool hmpt_pools_regrow(hmpt_pools_t *ps, uint16_t tag, uint64_t before, uint64_t after)
{
	const hmpt_pools_place_t *p = place_of(ps, tag);
	int short_node;
	bool ok;

	if (!p)
		return true;
	lock_accounts(ps);
	charge(ps, p->pool, p, before, -1);
	ok = after <= before || fits(ps, p->pool, p, after, &short_node);
	charge(ps, p->pool, p, ok ? after : before, +1);
	unlock_accounts(ps);
	return ok;
}

bool hmpt_pools_refuse(hmpt_pools_t *ps, hmpt_choice_t *c, size_t size, uint64_t site_id, int err)
{
	const hmpt_pools_place_t *p = place_of(ps, c->tag);
	int pool = c->pool;
	bool say;

	if (!p)
		return false;
	lock_accounts(ps);
	charge(ps, pool, p, c->bytes, -1);
	ps->pools[pool].st.allocations--;
	ps->pools[pool].st.bytes -= c->bytes;
	ps->pools[pool].st.refused++;
	ps->pools[pool].st.refused_bytes += c->bytes;
	say = hmpt_log_first(&ps->pools[pool].warned_refused);
	unlock_accounts(ps);
	if (say)
		say_refused(ps, pool, c->bytes, site_id, NULL, err);
	hmpt_pools_choose(ps, ps->plan->pools[pool].fallback, size, site_id, c);
	return true;
}

/* -------------------------------------------------------------- shape */

static int do_mbind(hmpt_pools_t *ps, void *addr, size_t len, const hmpt_pools_place_t *p,
                    unsigned flags)
{
	const hmpt_plan_pool_t *pp = &ps->plan->pools[p->pool];
	unsigned long mask[HMPT_MAX_NODES / 64];
	int mode;

	memcpy(mask, p->nodes.w, sizeof(mask));
	switch (pp->policy) {
	case HMPT_POLICY_INTERLEAVE: mode = MPOL_INTERLEAVE; break;
	case HMPT_POLICY_PREFERRED:
		mode = p->nnodes > 1 && __atomic_load_n(&ps->preferred_many, __ATOMIC_RELAXED)
		           ? MPOL_PREFERRED_MANY
		           : MPOL_PREFERRED;
		break;
	default: mode = MPOL_BIND; break;
	}
	if (mode == MPOL_PREFERRED && p->nnodes > 1) { /* kernels before 5.15: the first node */
		int first = hmpt_nodemask_first(&p->nodes);
		memset(mask, 0, sizeof(mask));
		mask[first / 64] = 1ul << (first % 64);
	}
	/* the kernel counts maxnode one past the last bit it reads */
	/* every argument as the kernel's unsigned long (a variadic call) */
	if (syscall(SYS_mbind, addr, (unsigned long)len, (unsigned long)mode, mask,
	            (unsigned long)(HMPT_MAX_NODES + 1), (unsigned long)flags) == 0)
		return 0;
	if (errno == EINVAL && mode == MPOL_PREFERRED_MANY) {
		__atomic_store_n(&ps->preferred_many, 0, __ATOMIC_RELAXED);
		return do_mbind(ps, addr, len, p, flags);
	}
	return -errno;
}

/* `existing`: memory already mapped (static data), whose present pages
 * move. */
static int shape(hmpt_pools_t *ps, void *addr, size_t len, uint16_t tag, bool existing)
{
	const hmpt_pools_place_t *p = place_of(ps, tag);

	if (!p)
		return 0;
	if (p->nnodes) {
		int rc = do_mbind(ps, addr, len, p, existing ? MPOL_MF_MOVE : 0);
		if (rc)
			return rc;
	}
	switch (ps->plan->pools[p->pool].pages) {
	case HMPT_PAGES_4K:
		if (madvise(addr, len, MADV_NOHUGEPAGE) != 0)
			return -errno;
		break;
	case HMPT_PAGES_THP:
		if (madvise(addr, len, MADV_HUGEPAGE) != 0)
			return -errno;
		break;
	case HMPT_PAGES_HUGETLB:
		/* huge pages are reserved machine-wide, not per node: fault them
		 * in now, where a shortage is an error, not a SIGBUS later */
		if (p->nnodes && madvise(addr, len, MADV_POPULATE_WRITE) != 0)
			return errno == EINVAL ? 0 : -ENOMEM;
		break;
	default: break;
	}
	return 0;
}

int hmpt_pools_shape(hmpt_pools_t *ps, void *addr, size_t len, uint16_t tag)
{
	return shape(ps, addr, len, tag, false);
}

int hmpt_pools_shape_existing(hmpt_pools_t *ps, void *addr, size_t len, uint16_t tag)
{
	return shape(ps, addr, len, tag, true);
}

/* ------------------------------------------------------------ reports */

void hmpt_pools_stats(hmpt_pools_t *ps, int pool, hmpt_pool_stats_t *out)
{
	hmpt_lock_take(&ps->lock, HMPT_LOCK_POOLS);
	*out = ps->pools[pool].st;
	hmpt_lock_drop(&ps->lock);
}

void hmpt_pools_describe_place(hmpt_pools_t *ps, hmpt_fmt_t *f, int i)
{
	const hmpt_plan_pool_t *p = &ps->plan->pools[i];
	const hmpt_pool_stats_t *st = &ps->pools[i].st;

	if (p->backend->describe) {
		p->backend->describe(f, p);
		if (!hmpt_nodemask_empty(&st->nodes)) {
			hmpt_fmt_str(f, " (HBM nodes ");
			hmpt_nodemask_format(f, &st->nodes);
			hmpt_fmt_char(f, ')');
		}
	} else if (hmpt_nodemask_empty(&st->nodes)) {
		hmpt_fmt_printf(f, "no node policy, %s pages", hmpt_plan_pages_name(p->pages));
	} else {
		if (p->nodes == HMPT_NODES_TIER) {
			const hmpt_topo_t *t = ps->topo;
			hmpt_fmt_str(f, "tier ");
			hmpt_plan_tier_format(f, p->tier);
			hmpt_fmt_printf(
			    f, " (%d of %d, from %s%s%s): ", hmpt_topo_tier_index(t, p->tier),
			    t->ntiers, hmpt_topo_tier_src_name(t->tier_src),
			    t->tier_hbm_first ? ", HBM named by " : "",
			    t->tier_hbm_first ? hmpt_topo_src_name(t->tier_hbm_first) : "");
		}
		hmpt_fmt_str(f, "nodes ");
		hmpt_nodemask_format(f, &st->nodes);
		hmpt_fmt_printf(f, "%s, %s, %s pages", p->local ? " (local)" : "",
		                hmpt_plan_policy_name(p->policy), hmpt_plan_pages_name(p->pages));
	}
}

void hmpt_pools_describe(hmpt_pools_t *ps, hmpt_fmt_t *f, int i)
{
	const hmpt_plan_pool_t *p = &ps->plan->pools[i];
	const hmpt_pool_stats_t *st = &ps->pools[i].st;

	hmpt_fmt_printf(f, "%s: ", p->name);
	hmpt_pools_describe_place(ps, f, i);
	if (st->budget == UINT64_MAX)
		hmpt_fmt_str(f, ", budget unlimited");
	else
		hmpt_fmt_printf(f, ", budget %s (%s)", HMPT_SIZE(st->budget), st->budget_from);
	hmpt_fmt_printf(f, ", falls back to %s", hmpt_plan_pool_name(ps->plan, p->fallback));
}
