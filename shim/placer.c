/* placer.c — plan -> site -> pool (placer.h). */
#include "placer.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"
#include "backend.h"
#include "hash.h"
#include "job.h"
#include "log.h"
#include "pool.h"
#include "stale.h"
#include "sys.h"

bool hmpt_placing_g;
hmpt_plan_t hmpt_plan_g;
hmpt_pools_t hmpt_pools_g = HMPT_POOLS_INIT;
static hmpt_topo_t topo_g;
static bool sites_ready_g;
static pthread_once_t sites_once_g = PTHREAD_ONCE_INIT;
static pthread_once_t place_once_g = PTHREAD_ONCE_INIT;
static int builds_checked_g;
/* per site index, with the sites lock held; mapped at the first decision
 * (HMPT_SITES_MAX of them), touched only as far as sites are used */
static hmpt_placer_site_t *sites_g;

static void check_loaded_builds(void);

static void sites_init_once(void)
{
	unsigned depth = (unsigned)hmpt_opt_g[HMPT_OPT_STACK_DEPTH].num;

	/* a plan's "stack" matches compare stacks as deep as its profile's */
	if (hmpt_placing_g && hmpt_plan_g.stack_depth && !hmpt_opt_g[HMPT_OPT_STACK_DEPTH].set)
		depth = hmpt_plan_g.stack_depth;
	int rc = hmpt_sites_init(depth);
	if (rc) {
		hmpt_log_msg(HMPT_LOG_WARN, "cannot allocate the site tables; nothing is tracked");
		return;
	}
	__atomic_store_n(&sites_ready_g, true, __ATOMIC_RELEASE);
	check_loaded_builds();
}

/* ------------------------------------------------------------- the plan */

/* the arena's shaper: the shim's pools */
static int shape_tag(void *addr, size_t len, uint16_t tag)
{
	return hmpt_pools_shape(&hmpt_pools_g, addr, len, tag);
}

static bool tag_hugetlb(uint16_t tag)
{
	return hmpt_pools_tag_hugetlb(&hmpt_pools_g, tag);
}

static const hmpt_arena_shaper_t shaper_g = {shape_tag, tag_hugetlb};

void hmpt_placer_pools_lock(void)
{
	hmpt_pools_lock(&hmpt_pools_g);
}

void hmpt_placer_pools_unlock(void)
{
	hmpt_pools_unlock(&hmpt_pools_g);
}

void hmpt_placer_pools_reset_lock(void)
{
	hmpt_pools_reset_lock(&hmpt_pools_g);
}

static void report_pool_warning(const char *msg, void *ctx)
{
	(void)ctx;
	hmpt_log_msg(HMPT_LOG_WARN, msg);
}

/* The plan could not be used: one line, then default placement (or, with
 * HMPT_STRICT=1, the end of the program before it starts). */
static void plan_failed(const char *err)
{
	char buf[1400];
	hmpt_fmt_t f;
	bool strict = hmpt_opt_g[HMPT_OPT_STRICT].num != 0;

	/* err may be 1 KiB itself: more than hmpt_log_printf's buffer */
	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_fmt_printf(&f, "%s; %s", err,
	                strict ? "HMPT_STRICT=1: stopping with exit status 125"
	                       : HMPT_PLAN_SAID_UNUSED);
	hmpt_log_end(&f, HMPT_LOG_ERROR);
	if (strict)
		for (;;)
			syscall(SYS_exit_group, 125);
}

static bool plan_uses_hbm(const hmpt_plan_t *pl)
{
	for (int i = 0; i < pl->npools; i++)
		if (pl->pools[i].nodes == HMPT_NODES_HBM || hmpt_pools_hbw_budget(&pl->pools[i]))
			return true;
	return false;
}

static void log_plan(void)
{
	char buf[1024];
	hmpt_fmt_t f;

	if (hmpt_log_level_g < HMPT_LOG_INFO)
		return;
	hmpt_log_printf(HMPT_LOG_INFO,
	                "plan %s: %llu pool%s, %llu group%s, %llu site%s; default pool %s",
	                hmpt_plan_g.path, (unsigned long long)hmpt_plan_g.npools,
	                hmpt_plan_g.npools == 1 ? "" : "s", (unsigned long long)hmpt_plan_g.ngroups,
	                hmpt_plan_g.ngroups == 1 ? "" : "s", (unsigned long long)hmpt_plan_g.nsites,
	                hmpt_plan_g.nsites == 1 ? "" : "s",
	                hmpt_plan_pool_name(&hmpt_plan_g, hmpt_plan_g.default_pool));
	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_topo_describe(&f, &topo_g);
	hmpt_log_end(&f, HMPT_LOG_INFO);
	for (int i = 0; i < hmpt_plan_g.npools; i++) {
		hmpt_log_begin(&f, buf, sizeof(buf));
		hmpt_fmt_printf(&f, "pool ");
		hmpt_pools_describe(&hmpt_pools_g, &f, i);
		hmpt_log_end(&f, HMPT_LOG_INFO);
	}
}

/* What the ranks of a job must agree on to share budgets: the pools. */
static uint64_t plan_hash(const hmpt_plan_t *pl)
{
	uint64_t h = HMPT_HASH_SEED;

	for (int i = 0; i < pl->npools; i++) {
		const hmpt_plan_pool_t *p = &pl->pools[i];
		h = hmpt_hash_bytes(h, p->name, strlen(p->name) + 1);
		h = hmpt_hash_bytes(h, &p->capacity, sizeof(p->capacity));
		h = hmpt_hash_bytes(h, &p->capacity_pct, sizeof(p->capacity_pct));
	}
	return h;
}

/* Read the plan, find the nodes, resolve the pools: once, at the first
 * tracked request (in the constructor with HMPT_STRICT=1), with the guard
 * held (memkind and dlopen allocate). */
static void place_init_once(void)
{
	const char *path = hmpt_opt_g[HMPT_OPT_PLAN].str;
	char err[1024];
	int rc;

	if (!path)
		return;
	rc = hmpt_plan_load(path, &hmpt_plan_g, err, sizeof(err));
	if (rc) {
		plan_failed(err);
		return;
	}
	rc = hmpt_topo_read(&topo_g, "");
	if (rc) {
		hmpt_fmt_text(err, sizeof(err), "cannot read the NUMA topology from /sys: %s",
		              strerrordesc_np(-rc));
	} else {
		hmpt_topo_hints_t h = {
		    .hbm_env = hmpt_opt_g[HMPT_OPT_HBM_NODES].str,
		    .ddr_env = hmpt_opt_g[HMPT_OPT_DDR_NODES].str,
		    .hbm_plan = hmpt_plan_g.has_hbm_nodes ? &hmpt_plan_g.hbm_nodes : NULL,
		    .ddr_plan = hmpt_plan_g.has_ddr_nodes ? &hmpt_plan_g.ddr_nodes : NULL,
		    /* memkind is loaded to find HBM only when the plan needs HBM */
		    .probe = plan_uses_hbm(&hmpt_plan_g) ? hmpt_backend_memkind_probe_hbw : NULL,
		};
		rc = hmpt_topo_classify(&topo_g, &h, err, sizeof(err));
	}
	if (rc == 0)
		rc = hmpt_pools_resolve(&hmpt_pools_g, &hmpt_plan_g, &topo_g, report_pool_warning,
		                        NULL, err, sizeof(err));
	if (rc) {
		plan_failed(err);
		hmpt_plan_free(&hmpt_plan_g);
		return;
	}
	hmpt_arena_set_shaper(&shaper_g);
	hmpt_placing_g = true;
	/* "stack" sites compare stacks as deep as the plan's profile's: the
	 * sites set up in the constructor took the default depth, and no stack
	 * was captured yet (every capture waits for this) */
	if (hmpt_plan_g.stack_depth && !hmpt_opt_g[HMPT_OPT_STACK_DEPTH].set &&
	    __atomic_load_n(&sites_ready_g, __ATOMIC_ACQUIRE)) {
		hmpt_sites_lock();
		hmpt_sites_set_depth(hmpt_plan_g.stack_depth);
		hmpt_sites_unlock();
	}
	hmpt_job_share_pools(&hmpt_pools_g, &hmpt_plan_g, plan_hash(&hmpt_plan_g));
	hmpt_stale_init(&hmpt_plan_g);
	log_plan();
	check_loaded_builds();
}

/* The modules loaded when the plan is read: built as the plan says?  Once
 * the plan is in force and the module table is read, whichever comes
 * last; modules loaded later are checked when a site of theirs is first
 * decided (site_pool). */
static void check_loaded_builds(void)
{
	if (!hmpt_placing_g || !__atomic_load_n(&sites_ready_g, __ATOMIC_ACQUIRE) ||
	    !hmpt_log_first(&builds_checked_g))
		return;
	hmpt_sites_lock();
	for (uint32_t i = 0; i < hmpt_modules_count(); i++)
		if (hmpt_modules_get(i)->alive)
			hmpt_stale_check_module(hmpt_modules_get(i));
	hmpt_sites_unlock();
}

int hmpt_placer_decide(const hmpt_plan_t *plan, const uint64_t *name_hashes,
                       const uint64_t *offsets, uint32_t n, bool is_static, int32_t *plan_site)
{
	*plan_site = hmpt_plan_match(plan, name_hashes, offsets, n);
	/* the default pool is for heap allocations: static data no plan site
	 * names is left alone */
	return *plan_site >= 0 ? plan->groups[plan->sites[*plan_site].group].pool
	       : is_static     ? HMPT_POOL_SYSTEM
	                       : plan->default_pool;
}

/* Every pool a block of `pool` may end in (its fallback chain) has a
 * backend that splits blocks, and normal or transparent huge pages: a
 * split can be made. */
static bool splittable(const hmpt_plan_t *plan, int pool)
{
	for (int hops = 0; pool != HMPT_POOL_SYSTEM && hops <= plan->npools; hops++) {
		const hmpt_plan_pool_t *p = &plan->pools[pool];
		if (!p->backend->caps.split || p->pages == HMPT_PAGES_HUGETLB)
			return false;
		pool = p->fallback;
	}
	return true;
}

static int warned_split_g;

/* With the sites lock held, at the site's decision: its split, where its
 * group has a share its pools can take. */
static void decide_split(const hmpt_plan_t *plan, hmpt_placer_site_t *d)
{
	d->share = HMPT_PLAN_SHARE_ONE;
	d->rest = d->pool;
	if (d->plan_site < 0)
		return;
	const hmpt_plan_group_t *g = &plan->groups[plan->sites[d->plan_site].group];
	if (g->share >= HMPT_PLAN_SHARE_ONE)
		return;
	if (!splittable(plan, d->pool) || !splittable(plan, g->rest)) {
		if (hmpt_log_first(&warned_split_g))
			hmpt_log_printf(HMPT_LOG_WARN,
			                "%s:%u: group \"%s\": a share of a block can only go to "
			                "pools of normal or transparent huge pages (not hugetlb "
			                "or memkind, nor falling back to one); its blocks go "
			                "whole to %s",
			                plan->path, (unsigned)g->line, g->name,
			                hmpt_plan_pool_name(plan, d->pool));
		return;
	}
	d->share = g->share;
	d->rest = (int16_t)g->rest;
}

/* The pool planned for a site and its split, decided the first time the
 * site allocates. */
int hmpt_placer_site_split(uint32_t site, uint32_t *share, int *rest)
{
	const hmpt_site_t *s;
	hmpt_placer_site_t *d;
	int pool;

	hmpt_sites_lock();
	if (!sites_g)
		sites_g = hmpt_sys_map(HMPT_SITES_MAX * sizeof(*sites_g));
	if (!sites_g) { /* no table: the default pool, whole */
		hmpt_sites_unlock();
		*share = HMPT_PLAN_SHARE_ONE;
		*rest = hmpt_plan_g.default_pool;
		return hmpt_plan_g.default_pool;
	}
	d = &sites_g[site];
	s = hmpt_sites_get(site);
	if (!d->decided) {
		uint64_t hashes[HMPT_MAX_DEPTH], offs[HMPT_MAX_DEPTH];
		for (uint32_t i = 0; i < s->nid; i++) {
			uint32_t m = s->mods[s->idx[i]];
			hashes[i] = m == HMPT_MODULE_UNKNOWN ? 0 : hmpt_modules_get(m)->name_hash;
			offs[i] = s->offs[s->idx[i]];
		}
		d->pool = (int16_t)hmpt_placer_decide(&hmpt_plan_g, hashes, offs, s->nid,
		                                      s->kind == HMPT_SITE_STATIC, &d->plan_site);
		d->placed =
		    hmpt_sys_perm_alloc((size_t)(hmpt_plan_g.npools + 1) * sizeof(*d->placed));
		d->nplaced = d->placed ? (uint32_t)hmpt_plan_g.npools + 1 : 0;
		decide_split(&hmpt_plan_g, d);
		d->decided = true;
		/* a module loaded since the plan was read (dlopen) may be
		 * another build than the plan's */
		for (uint32_t i = 0; i < s->nid; i++)
			if (s->mods[s->idx[i]] != HMPT_MODULE_UNKNOWN)
				hmpt_stale_check_module(hmpt_modules_get(s->mods[s->idx[i]]));
		hmpt_stale_note_site(d->plan_site);
	}
	pool = d->pool;
	*share = d->share;
	*rest = d->rest;
	hmpt_sites_unlock();
	return pool;
}

int hmpt_placer_site_pool(uint32_t site)
{
	uint32_t share;
	int rest;
	return hmpt_placer_site_split(site, &share, &rest);
}

void hmpt_placer_count(uint32_t site, int pool, uint64_t bytes)
{
	hmpt_placer_site_t *d = sites_g ? &sites_g[site] : NULL;

	if (d && d->placed) {
		d->placed[pool + 1].allocations++;
		d->placed[pool + 1].bytes += bytes;
	}
}

const hmpt_placer_site_t *hmpt_placer_site(uint32_t site)
{
	return sites_g && site < HMPT_SITES_MAX && sites_g[site].decided ? &sites_g[site] : NULL;
}

void hmpt_placer_reset_counts(void)
{
	for (uint32_t i = 0; sites_g && i < hmpt_sites_count(); i++)
		if (sites_g[i].placed && hmpt_sites_get(i)->kind != HMPT_SITE_STATIC)
			memset(sites_g[i].placed, 0,
			       sites_g[i].nplaced * sizeof(hmpt_site_place_t));
}

void hmpt_placer_init(void)
{
	pthread_once(&place_once_g, place_init_once);
}

bool hmpt_placer_sites_init(void)
{
	pthread_once(&sites_once_g, sites_init_once);
	return hmpt_placer_sites_ready();
}

bool hmpt_placer_sites_ready(void)
{
	return __atomic_load_n(&sites_ready_g, __ATOMIC_ACQUIRE);
}
