/* static_place.c — static data (statics.h) as sites, placed before main
 * when the plan names them (static_place.h). */
#include "static_place.h"

#include <errno.h>
#include <stdarg.h>
#include <sys/mman.h>

#include "log.h"
#include "placer.h"
#include "pool.h"
#include "sites.h"
#include "statics.h"

static int warned_static_pool_g[HMPT_PLAN_MAX_POOLS], warned_static_file_g;

/* A log line about the object: "static a (16.0 MiB in .bss of stream)",
 * then the rest, printf-style. */
static void log_static(int level, const hmpt_static_t *o, const hmpt_site_t *s, const char *fmt,
                       ...) __attribute__((format(printf, 4, 5)));
static void log_static(int level, const hmpt_static_t *o, const hmpt_site_t *s, const char *fmt,
                       ...)
{
	char buf[512];
	hmpt_fmt_t f;
	va_list ap;

	if (level > hmpt_log_level_g)
		return;
	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_fmt_printf(&f, "static %s (%s in %s of %s)", o->name, HMPT_SIZE(o->size), o->section,
	                s->mods[0] == HMPT_MODULE_UNKNOWN ? "??"
	                                                  : hmpt_modules_get(s->mods[0])->name);
	va_start(ap, fmt);
	hmpt_fmt_vprintf(&f, fmt, ap);
	va_end(ap);
	hmpt_log_end(&f, level);
}

/* Pools that make their own memory (memkind kinds, hugetlbfs pages) cannot
 * place memory that is already mapped: a static object planned into one goes
 * along its fallback chain at once, said once per pool. */
static int static_pool(int pool, const hmpt_static_t *o, const hmpt_site_t *s)
{
	for (int hops = 0; pool >= 0 && hops <= hmpt_plan_g.npools; hops++) {
		const hmpt_plan_pool_t *pp = &hmpt_plan_g.pools[pool];
		bool own = !pp->backend->caps.statics; /* makes its own memory */
		if (!own && pp->pages != HMPT_PAGES_HUGETLB)
			break;
		if (hmpt_log_first(&warned_static_pool_g[pool]))
			log_static(
			    HMPT_LOG_WARN, o, s,
			    ": %s%spool %s %s (static data is mapped before main): it and any like "
			    "it go to pool %s%s",
			    own ? pp->backend->name : "", own ? " " : "", pp->name,
			    own ? "allocates its own memory"
			        : "gives hugetlbfs pages, which static data cannot have",
			    hmpt_plan_pool_name(&hmpt_plan_g, pp->fallback),
			    own ? "" : " (a thp pool gives static data huge pages)");
		pool = pp->fallback;
	}
	return pool;
}

/* Place one static object the plan names, before main: its pages (statics.h
 * rounding) get the pool's node policy, present pages move, and its page
 * advice.  Charged to the pool's budget like a block of the same size. */
static void place_static(const hmpt_static_t *o)
{
	int pool = hmpt_placer_site_pool(o->site);
	const hmpt_site_t *s = hmpt_sites_get(o->site); /* id, mods: fixed */
	uintptr_t lo, hi;
	hmpt_choice_t c = {.pool = HMPT_POOL_SYSTEM};

	hmpt_statics_pages(o, hmpt_page_g, &lo, &hi);
	if (pool != HMPT_POOL_SYSTEM && lo != hi)
		hmpt_pools_choose(&hmpt_pools_g, static_pool(pool, o, s), hi - lo, s->id, &c);
	while (c.pool != HMPT_POOL_SYSTEM) {
		/* a fallback after a refusal may be such a pool too */
		int rc = !c.bp->be->caps.statics || c.hugetlb
		             ? -EOPNOTSUPP
		             : hmpt_pools_shape_existing(&hmpt_pools_g, (void *)lo, hi - lo, c.tag);
		if (rc == 0 || !hmpt_pools_refuse(&hmpt_pools_g, &c, hi - lo, s->id, -rc))
			break;
	}
	/* initialised data the program only reads would stay in the page
	 * cache, wherever that is: private copies now, on the pool's nodes
	 * (kernels before 5.14 copy each page at its first write instead) */
	if (c.pool != HMPT_POOL_SYSTEM && o->file_backed &&
	    hmpt_plan_g.pools[c.pool].nodes != HMPT_NODES_NONE)
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
	hmpt_sites_lock();
	hmpt_placer_count(o->site, c.pool, o->size);
	hmpt_sites_unlock();
	if (c.pool == HMPT_POOL_SYSTEM)
		return;
	const hmpt_plan_pool_t *pp = &hmpt_plan_g.pools[c.pool];
	if (o->file_backed && pp->pages == HMPT_PAGES_THP && hmpt_log_first(&warned_static_file_g))
		log_static(HMPT_LOG_WARN, o, s,
		           " is initialised data, mapped from the file: the kernel gives it no "
		           "transparent huge pages (anonymous memory only); it and any like it get "
		           "only the node policy of pool %s",
		           pp->name);
	log_static(HMPT_LOG_INFO, o, s, ": pool %s, pages 0x%llx-0x%llx", pp->name,
	           (unsigned long long)lo, (unsigned long long)hi);
}

/* The static objects as sites (before sampling starts), placed when the
 * plan names them. */
void hmpt_static_place_register(void)
{
	uint64_t bytes = 0;
	uint32_t n = hmpt_statics_count();

	for (uint32_t i = 0; i < n; i++) {
		hmpt_static_t *o = hmpt_statics_get(i);
		o->site = hmpt_sites_add_static(o->addr, o->size, o->name, o->section);
		bytes += o->size;
	}
	if (hmpt_log_level_g >= HMPT_LOG_INFO) {
		char buf[256];
		hmpt_fmt_t f;
		hmpt_log_begin(&f, buf, sizeof(buf));
		hmpt_fmt_printf(&f, "static data: %llu object%s of %s", (unsigned long long)n,
		                n == 1 ? "" : "s", HMPT_SIZE(bytes));
		if (hmpt_statics_unreadable())
			hmpt_fmt_printf(&f, "; %llu module files could not be read",
			                (unsigned long long)hmpt_statics_unreadable());
		hmpt_log_end(&f, HMPT_LOG_INFO);
	}
	if (!hmpt_placing_g)
		return;
	for (uint32_t i = 0; i < n; i++)
		if (hmpt_statics_get(i)->site != HMPT_SITE_OVERFLOW)
			place_static(hmpt_statics_get(i));
}
