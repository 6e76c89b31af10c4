/* interpose.c — the malloc family, as seen by the application.
 *
 * Small requests (below HMPT_MIN_SIZE) cost one compare and one indirect
 * call: they go straight to the next allocator (glibc, or whatever follows
 * libhmpt in the search order).  Large requests are tracked: their call
 * site is captured and the block comes from the arena (arena.h), so that
 * every pointer hmpt owns is recognised by one range check, and every
 * other pointer goes back to the allocator that made it.
 *
 * Bootstrap: the next allocator is found with dlsym(RTLD_NEXT), which may
 * itself allocate; while the initialising thread resolves it, requests are
 * served from a static buffer whose blocks are never freed.  Until then the
 * function pointers hold glibc's own __libc_* entry points, so a free()
 * that arrives before any malloc() is still correct.
 *
 * When hmpt cannot do what was asked (no arena, mapping refused, re-entrant
 * call) the request goes to the normal allocator and hmpt says so once.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hmpt.h"
#include "arena.h"
#include "hash.h"
#include "job.h"
#include "log.h"
#include "options.h"
#include "plan.h"
#include "pool.h"
#include "profile.h"
#include "sample.h"
#include "sites.h"
#include "stale.h"
#include "statics.h"
#include "sys.h"

#define EXPORT      __attribute__((visibility("default")))
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

extern char **environ;
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

/* ------------------------------------------------------------------ state */

enum { ST_UNINIT, ST_RESOLVING, ST_READY };

static int state_g = ST_UNINIT;
static pid_t init_tid_g;
/* Requests at or above this take the slow path.  0 until set-up is done,
 * so that the first request of any size (even one made before hmpt's
 * constructor, by another library's) sets hmpt up; SIZE_MAX when hmpt does
 * not track. */
static size_t min_size_g = 0;
static bool tracking_g; /* arena and sites are usable */
static bool sites_ready_g;
static pthread_once_t sites_once_g = PTHREAD_ONCE_INIT;
static pthread_once_t place_once_g = PTHREAD_ONCE_INIT;
static bool placing_g; /* a plan is in force */
static hmpt_plan_t plan_g;
static hmpt_topo_t topo_g;
static hmpt_opt_value_t opt_g[HMPT_OPT_COUNT];
static pid_t owner_pid_g; /* the process the profile is for */
static bool forked_g;
static double start_unix_g;
static int profile_written_g;
static size_t page_g = 4096;

static __thread int guard_tl __attribute__((tls_model("initial-exec")));

static void *(*real_malloc_g)(size_t) = __libc_malloc;
static void (*real_free_g)(void *) = __libc_free;
static void *(*real_calloc_g)(size_t, size_t) = __libc_calloc;
static void *(*real_realloc_g)(void *, size_t) = __libc_realloc;
static void *(*real_memalign_g)(size_t, size_t) = __libc_memalign;
static int (*real_posix_memalign_g)(void **, size_t, size_t);
static void *(*real_aligned_alloc_g)(size_t, size_t);
static void *(*real_valloc_g)(size_t);
static void *(*real_pvalloc_g)(size_t);
static size_t (*real_usable_g)(void *);
static hmpt_pthread_create_fn real_pthread_create_g;

static int warned_invalid_free_g, warned_arena_g, warned_track_g;
static int builds_checked_g;

/* -------------------------------------------------------------- bootstrap */

#define BOOT_SIZE (256u * 1024u)
static char boot_buf_g[BOOT_SIZE] __attribute__((aligned(4096)));
static size_t boot_used_g;

static bool boot_owns(const void *p)
{
	return (uintptr_t)p - (uintptr_t)boot_buf_g < BOOT_SIZE;
}

/* Bump allocation with the size stored in the 16 bytes before the block. */
static void *boot_alloc(size_t size, size_t align)
{
	size_t off, start, end;

	if (align < 16)
		align = 16;
	do {
		off = __atomic_load_n(&boot_used_g, __ATOMIC_RELAXED);
		start = (off + 16 + align - 1) & ~(align - 1);
		end = start + size;
		if (end > BOOT_SIZE || end < start) {
			errno = ENOMEM;
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&boot_used_g, &off, end, false, __ATOMIC_RELAXED,
	                                      __ATOMIC_RELAXED));
	*(size_t *)(boot_buf_g + start - sizeof(size_t)) = size;
	return boot_buf_g + start; /* static storage: already zero */
}

static size_t boot_size(const void *p)
{
	return *(const size_t *)((const char *)p - sizeof(size_t));
}

/* ---------------------------------------------------------------- set-up */

static void report_option(const char *msg, void *ctx)
{
	(void)ctx;
	hmpt_log_msg(HMPT_LOG_WARN, msg);
}

static void *next_symbol(const char *name, void *fallback)
{
	void *p = dlsym(RTLD_NEXT, name);
	return p ? p : fallback;
}

static void resolve_next(void)
{
	/* until all are known, this thread's requests use the boot buffer */
	void *m = next_symbol("malloc", (void *)__libc_malloc);
	void *f = next_symbol("free", (void *)__libc_free);
	void *c = next_symbol("calloc", (void *)__libc_calloc);
	void *r = next_symbol("realloc", (void *)__libc_realloc);
	void *ma = next_symbol("memalign", (void *)__libc_memalign);
	real_posix_memalign_g = next_symbol("posix_memalign", NULL);
	real_aligned_alloc_g = next_symbol("aligned_alloc", NULL);
	real_valloc_g = next_symbol("valloc", NULL);
	real_pvalloc_g = next_symbol("pvalloc", NULL);
	real_usable_g = next_symbol("malloc_usable_size", NULL);
	real_pthread_create_g = next_symbol("pthread_create", NULL);
	if (!real_pthread_create_g)
		real_pthread_create_g = dlvsym(RTLD_NEXT, "pthread_create", "GLIBC_2.34");
	real_malloc_g = m;
	real_free_g = f;
	real_calloc_g = c;
	real_realloc_g = r;
	real_memalign_g = ma;
}

static void log_setup(void)
{
	char buf[512];
	hmpt_fmt_t f;

	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_fmt_str(&f, HMPT_VERSION ": tracking allocations >= ");
	hmpt_fmt_size(&f, opt_g[HMPT_OPT_MIN_SIZE].num);
	hmpt_fmt_str(&f, " (stack depth ");
	hmpt_fmt_u64(&f, opt_g[HMPT_OPT_STACK_DEPTH].num);
	hmpt_fmt_str(&f, "), arena ");
	hmpt_fmt_size(&f, hmpt_arena_size_g);
	hmpt_fmt_str(&f, " at 0x");
	hmpt_fmt_hex(&f, hmpt_arena_base_g, 1);
	hmpt_fmt_str(&f, ", profile ");
	hmpt_fmt_str(&f, opt_g[HMPT_OPT_PROFILE].str ? opt_g[HMPT_OPT_PROFILE].str : "(none)");
	hmpt_log_end(&f, HMPT_LOG_INFO);
}

/* The arena is sized by HMPT_ARENA_SIZE, but never more than half of an
 * address-space limit (ulimit -v), which the reservation counts against. */
static uint64_t arena_size(void)
{
	uint64_t want = opt_g[HMPT_OPT_ARENA_SIZE].num;
	struct rlimit rl;

	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    want > rl.rlim_cur / 2)
		want = rl.rlim_cur / 2;
	return want;
}

static void setup(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	if (ps > 0)
		page_g = (size_t)ps;
	owner_pid_g = getpid();
	start_unix_g = hmpt_sys_unix_time();
	/* nothing is tracked unless the set-up below succeeds */
	__atomic_store_n(&min_size_g, SIZE_MAX, __ATOMIC_RELEASE);
	/* setuid/setgid programs: hmpt does nothing at all */
	if (getauxval(AT_SECURE))
		return;
	hmpt_options_load(environ, opt_g, report_option, NULL);
	hmpt_log_level_g = (int)opt_g[HMPT_OPT_VERBOSE].num;
	/* preloaded into mpirun or srun for the sake of the ranks it starts */
	char exe[4096];
	if (hmpt_sys_readlink("/proc/self/exe", exe, sizeof(exe)) > 0) {
		const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
		if (hmpt_job_is_launcher(base)) {
			char buf[256];
			hmpt_fmt_t f;
			hmpt_log_begin(&f, buf, sizeof(buf));
			hmpt_fmt_str(&f, base);
			hmpt_fmt_str(&f, " starts ranks: hmpt tracks nothing in it");
			hmpt_log_end(&f, HMPT_LOG_INFO);
			return;
		}
	}
	hmpt_job_init(environ, opt_g[HMPT_OPT_RANKS].str);
	int rc = hmpt_arena_init(arena_size());
	if (rc) {
		char buf[256];
		hmpt_fmt_t f;
		hmpt_log_begin(&f, buf, sizeof(buf));
		hmpt_fmt_str(&f, "cannot reserve the arena (");
		hmpt_fmt_size(&f, arena_size());
		hmpt_fmt_str(&f, "): ");
		hmpt_fmt_str(&f, strerrordesc_np(-rc));
		hmpt_fmt_str(&f, "; nothing is tracked, the program runs unchanged");
		hmpt_log_end(&f, HMPT_LOG_WARN);
		return;
	}
	tracking_g = true;
	log_setup();
	__atomic_store_n(&min_size_g, (size_t)opt_g[HMPT_OPT_MIN_SIZE].num, __ATOMIC_RELEASE);
}

/* Returns true when the caller is the initialising thread, inside dlsym:
 * it must serve the request from the boot buffer. */
static bool init(void)
{
	int st = __atomic_load_n(&state_g, __ATOMIC_ACQUIRE);
	int expected = ST_UNINIT;

	if (likely(st == ST_READY))
		return false;
	if (__atomic_compare_exchange_n(&state_g, &expected, ST_RESOLVING, false, __ATOMIC_ACQ_REL,
	                                __ATOMIC_ACQUIRE)) {
		init_tid_g = (pid_t)syscall(SYS_gettid);
		resolve_next();
		setup();
		__atomic_store_n(&state_g, ST_READY, __ATOMIC_RELEASE);
		return false;
	}
	if (init_tid_g == (pid_t)syscall(SYS_gettid))
		return true;
	while (__atomic_load_n(&state_g, __ATOMIC_ACQUIRE) != ST_READY)
		sched_yield();
	return false;
}

static void check_loaded_builds(void);

static void sites_init_once(void)
{
	unsigned depth = (unsigned)opt_g[HMPT_OPT_STACK_DEPTH].num;

	/* a plan's "stack" matches compare stacks as deep as its profile's */
	if (placing_g && plan_g.stack_depth && !opt_g[HMPT_OPT_STACK_DEPTH].set)
		depth = plan_g.stack_depth;
	int rc = hmpt_sites_init(depth);
	if (rc) {
		hmpt_log_msg(HMPT_LOG_WARN, "cannot allocate the site tables; nothing is tracked");
		return;
	}
	__atomic_store_n(&sites_ready_g, true, __ATOMIC_RELEASE);
	check_loaded_builds();
}

/* ------------------------------------------------------------- placement */

static const hmpt_arena_shaper_t shaper_g = {hmpt_pools_shape, hmpt_pools_tag_hugetlb};

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
	bool strict = opt_g[HMPT_OPT_STRICT].num != 0;

	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_fmt_str(&f, err);
	hmpt_fmt_str(&f, strict ? "; HMPT_STRICT=1: stopping with exit status 125"
	                        : "; " HMPT_PLAN_SAID_UNUSED);
	hmpt_log_end(&f, HMPT_LOG_ERROR);
	if (strict)
		for (;;)
			syscall(SYS_exit_group, 125);
}

static bool plan_uses_hbm(const hmpt_plan_t *pl)
{
	for (int i = 0; i < pl->npools; i++)
		if (pl->pools[i].nodes == HMPT_NODES_HBM ||
		    (pl->pools[i].backend == HMPT_BACKEND_MEMKIND && pl->pools[i].kind >= 0 &&
		     strncmp(hmpt_plan_kinds_g[pl->pools[i].kind], "hbw", 3) == 0))
			return true;
	return false;
}

static void log_plan(void)
{
	char buf[1024];
	hmpt_fmt_t f;

	if (hmpt_log_level_g < HMPT_LOG_INFO)
		return;
	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_fmt_str(&f, "plan ");
	hmpt_fmt_str(&f, plan_g.path);
	hmpt_fmt_str(&f, ": ");
	hmpt_fmt_u64(&f, (uint64_t)plan_g.npools);
	hmpt_fmt_str(&f, plan_g.npools == 1 ? " pool, " : " pools, ");
	hmpt_fmt_u64(&f, plan_g.ngroups);
	hmpt_fmt_str(&f, plan_g.ngroups == 1 ? " group, " : " groups, ");
	hmpt_fmt_u64(&f, plan_g.nsites);
	hmpt_fmt_str(&f, plan_g.nsites == 1 ? " site; default pool " : " sites; default pool ");
	hmpt_fmt_str(&f, hmpt_plan_pool_name(&plan_g, plan_g.default_pool));
	hmpt_log_end(&f, HMPT_LOG_INFO);
	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_topo_describe(&f, &topo_g);
	hmpt_log_end(&f, HMPT_LOG_INFO);
	for (int i = 0; i < plan_g.npools; i++) {
		hmpt_log_begin(&f, buf, sizeof(buf));
		hmpt_fmt_str(&f, "pool ");
		hmpt_pools_describe(&f, i);
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
	const char *path = opt_g[HMPT_OPT_PLAN].str;
	char err[1024];
	int rc;

	if (!path)
		return;
	rc = hmpt_plan_load(path, &plan_g, err, sizeof(err));
	if (rc) {
		plan_failed(err);
		return;
	}
	rc = hmpt_topo_read(&topo_g, "");
	if (rc) {
		hmpt_fmt_t f;
		hmpt_fmt_init(&f, err, sizeof(err), -1);
		hmpt_fmt_str(&f, "cannot read the NUMA topology from /sys: ");
		hmpt_fmt_str(&f, strerrordesc_np(-rc));
		hmpt_fmt_cstr(&f);
	} else {
		hmpt_topo_hints_t h = {
		    .hbm_env = opt_g[HMPT_OPT_HBM_NODES].str,
		    .ddr_env = opt_g[HMPT_OPT_DDR_NODES].str,
		    .hbm_plan = plan_g.has_hbm_nodes ? &plan_g.hbm_nodes : NULL,
		    .ddr_plan = plan_g.has_ddr_nodes ? &plan_g.ddr_nodes : NULL,
		    /* memkind is loaded to find HBM only when the plan needs HBM */
		    .probe = plan_uses_hbm(&plan_g) ? hmpt_memkind_probe_hbw : NULL,
		};
		rc = hmpt_topo_classify(&topo_g, &h, err, sizeof(err));
	}
	if (rc == 0)
		rc = hmpt_pools_resolve(&plan_g, &topo_g, report_pool_warning, NULL, err,
		                        sizeof(err));
	if (rc) {
		plan_failed(err);
		hmpt_plan_free(&plan_g);
		return;
	}
	hmpt_arena_set_shaper(&shaper_g);
	placing_g = true;
	/* "stack" sites compare stacks as deep as the plan's profile's: the
	 * sites set up in the constructor took the default depth, and no stack
	 * was captured yet (every capture waits for this) */
	if (plan_g.stack_depth && !opt_g[HMPT_OPT_STACK_DEPTH].set &&
	    __atomic_load_n(&sites_ready_g, __ATOMIC_ACQUIRE)) {
		hmpt_sites_lock();
		hmpt_sites_set_depth(plan_g.stack_depth);
		hmpt_sites_unlock();
	}
	hmpt_job_share_pools(&plan_g, plan_hash(&plan_g));
	hmpt_stale_init(&plan_g);
	log_plan();
	check_loaded_builds();
}

/* The modules loaded when the plan is read: built as the plan says?  Once
 * the plan is in force and the module table is read, whichever comes
 * last; modules loaded later are checked when a site of theirs is first
 * decided (site_pool). */
static void check_loaded_builds(void)
{
	if (!placing_g || !__atomic_load_n(&sites_ready_g, __ATOMIC_ACQUIRE) ||
	    !hmpt_log_first(&builds_checked_g))
		return;
	hmpt_sites_lock();
	for (uint32_t i = 0; i < hmpt_modules_count(); i++)
		if (hmpt_modules_get(i)->alive)
			hmpt_stale_check_module(hmpt_modules_get(i));
	hmpt_sites_unlock();
}

/* The pool planned for a site, decided the first time the site allocates. */
static int site_pool(uint32_t site)
{
	hmpt_site_t *s;
	int pool;

	hmpt_sites_lock();
	s = hmpt_sites_get(site);
	if (!s->decided) {
		uint64_t hashes[HMPT_MAX_DEPTH], offs[HMPT_MAX_DEPTH];
		for (uint32_t i = 0; i < s->nid; i++) {
			uint32_t m = s->mods[s->idx[i]];
			hashes[i] = m == HMPT_MODULE_UNKNOWN ? 0 : hmpt_modules_get(m)->name_hash;
			offs[i] = s->offs[s->idx[i]];
		}
		s->plan_site = hmpt_plan_match(&plan_g, hashes, offs, s->nid);
		/* the default pool is for heap allocations: static data no plan
		 * site names is left alone */
		s->pool = (int16_t)(s->plan_site >= 0
		                        ? plan_g.groups[plan_g.sites[s->plan_site].group].pool
		                    : s->kind == HMPT_SITE_STATIC ? HMPT_POOL_SYSTEM
		                                                  : plan_g.default_pool);
		s->placed = hmpt_sys_perm_alloc((size_t)(plan_g.npools + 1) * sizeof(*s->placed));
		s->nplaced = s->placed ? (uint32_t)plan_g.npools + 1 : 0;
		s->decided = true;
		/* a module loaded since the plan was read (dlopen) may be
		 * another build than the plan's */
		for (uint32_t i = 0; i < s->nid; i++)
			if (s->mods[s->idx[i]] != HMPT_MODULE_UNKNOWN)
				hmpt_stale_check_module(hmpt_modules_get(s->mods[s->idx[i]]));
		hmpt_stale_note_site(s->plan_site);
	}
	pool = s->pool;
	hmpt_sites_unlock();
	return pool;
}

/* ----------------------------------------------------------- static data */

static int warned_static_pool_g[HMPT_PLAN_MAX_POOLS], warned_static_file_g;

/* Begins a log line with the object: "static a (16.0 MiB in .bss of stream)" */
static void begin_static(hmpt_fmt_t *f, char *buf, size_t len, const hmpt_static_t *o,
                         const hmpt_site_t *s)
{
	hmpt_log_begin(f, buf, len);
	hmpt_fmt_str(f, "static ");
	hmpt_fmt_str(f, o->name);
	hmpt_fmt_str(f, " (");
	hmpt_fmt_size(f, o->size);
	hmpt_fmt_str(f, " in ");
	hmpt_fmt_str(f, o->section);
	hmpt_fmt_str(f, " of ");
	hmpt_fmt_str(f,
	             s->mods[0] == HMPT_MODULE_UNKNOWN ? "??" : hmpt_modules_get(s->mods[0])->name);
	hmpt_fmt_char(f, ')');
}

/* Pools that make their own memory (memkind kinds, hugetlbfs pages) cannot
 * place memory that is already mapped: a static object planned into one goes
 * along its fallback chain at once, said once per pool. */
static int static_pool(int pool, const hmpt_static_t *o, const hmpt_site_t *s)
{
	for (int hops = 0; pool >= 0 && hops <= plan_g.npools; hops++) {
		const hmpt_plan_pool_t *pp = &plan_g.pools[pool];
		bool memkind = pp->backend == HMPT_BACKEND_MEMKIND;
		if (!memkind && pp->pages != HMPT_PAGES_HUGETLB)
			break;
		if (hmpt_log_first(&warned_static_pool_g[pool])) {
			char buf[512];
			hmpt_fmt_t f;
			begin_static(&f, buf, sizeof(buf), o, s);
			hmpt_fmt_str(&f, memkind ? ": memkind pool " : ": pool ");
			hmpt_fmt_str(&f, pp->name);
			hmpt_fmt_str(
			    &f, memkind ? " allocates its own memory"
			                : " gives hugetlbfs pages, which static data cannot have");
			hmpt_fmt_str(&f,
			             " (static data is mapped before main): it and any like it go "
			             "to pool ");
			hmpt_fmt_str(&f, hmpt_plan_pool_name(&plan_g, pp->fallback));
			hmpt_fmt_str(&f,
			             memkind ? "" : " (a thp pool gives static data huge pages)");
			hmpt_log_end(&f, HMPT_LOG_WARN);
		}
		pool = pp->fallback;
	}
	return pool;
}

/* Place one static object the plan names, before main: its pages (statics.h
 * rounding) get the pool's node policy, present pages move, and its page
 * advice.  Charged to the pool's budget like a block of the same size. */
static void place_static(const hmpt_static_t *o)
{
	int pool = site_pool(o->site);
	const hmpt_site_t *s = hmpt_sites_get(o->site); /* id, mods: fixed */
	uintptr_t lo, hi;
	hmpt_choice_t c = {.pool = HMPT_POOL_SYSTEM};

	hmpt_statics_pages(o, page_g, &lo, &hi);
	if (pool != HMPT_POOL_SYSTEM && lo != hi)
		hmpt_pools_choose(static_pool(pool, o, s), hi - lo, s->id, &c);
	while (c.pool != HMPT_POOL_SYSTEM) {
		/* a fallback after a refusal may be such a pool too */
		int rc = c.memkind || c.hugetlb
		             ? -EOPNOTSUPP
		             : hmpt_pools_shape_existing((void *)lo, hi - lo, c.tag);
		if (rc == 0 || !hmpt_pools_refuse(&c, hi - lo, s->id, -rc))
			break;
	}
	/* initialised data the program only reads would stay in the page
	 * cache, wherever that is: private copies now, on the pool's nodes
	 * (kernels before 5.14 copy each page at its first write instead) */
	if (c.pool != HMPT_POOL_SYSTEM && o->file_backed &&
	    plan_g.pools[c.pool].nodes != HMPT_NODES_NONE)
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
	hmpt_sites_lock();
	hmpt_site_t *w = hmpt_sites_get(o->site);
	if (w->placed) {
		w->placed[c.pool + 1].allocations++;
		w->placed[c.pool + 1].bytes += o->size;
	}
	hmpt_sites_unlock();
	if (c.pool == HMPT_POOL_SYSTEM)
		return;
	const hmpt_plan_pool_t *pp = &plan_g.pools[c.pool];
	char buf[512];
	hmpt_fmt_t f;
	if (o->file_backed && pp->pages == HMPT_PAGES_THP &&
	    hmpt_log_first(&warned_static_file_g)) {
		begin_static(&f, buf, sizeof(buf), o, s);
		hmpt_fmt_str(&f,
		             " is initialised data, mapped from the file: the kernel gives it "
		             "no transparent huge pages (anonymous memory only); it and any like "
		             "it get only the node policy of pool ");
		hmpt_fmt_str(&f, pp->name);
		hmpt_log_end(&f, HMPT_LOG_WARN);
	}
	if (hmpt_log_level_g >= HMPT_LOG_INFO) {
		begin_static(&f, buf, sizeof(buf), o, s);
		hmpt_fmt_str(&f, ": pool ");
		hmpt_fmt_str(&f, pp->name);
		hmpt_fmt_str(&f, ", pages 0x");
		hmpt_fmt_hex(&f, lo, 1);
		hmpt_fmt_str(&f, "-0x");
		hmpt_fmt_hex(&f, hi, 1);
		hmpt_log_end(&f, HMPT_LOG_INFO);
	}
}

/* The static objects as sites (before sampling starts), placed when the
 * plan names them. */
static void statics_register(void)
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
		hmpt_fmt_str(&f, "static data: ");
		hmpt_fmt_u64(&f, n);
		hmpt_fmt_str(&f, n == 1 ? " object of " : " objects of ");
		hmpt_fmt_size(&f, bytes);
		if (hmpt_statics_unreadable()) {
			hmpt_fmt_str(&f, "; ");
			hmpt_fmt_u64(&f, hmpt_statics_unreadable());
			hmpt_fmt_str(&f, " module files could not be read");
		}
		hmpt_log_end(&f, HMPT_LOG_INFO);
	}
	if (!placing_g)
		return;
	for (uint32_t i = 0; i < n; i++)
		if (hmpt_statics_get(i)->site != HMPT_SITE_OVERFLOW)
			place_static(hmpt_statics_get(i));
}

/* A tracked block, wherever it lives. */
typedef struct {
	uint64_t size, usable;
	uint32_t site;
	uint16_t tag;
	bool memkind;
} block_t;

static bool block_lookup(void *p, block_t *b)
{
	hmpt_block_t a;
	hmpt_memkind_block_t m;

	if (hmpt_arena_owns(p)) {
		if (hmpt_arena_lookup(p, &a) != 0)
			return false;
		*b = (block_t){a.size, a.mapped, a.site, a.tag, false};
		return true;
	}
	if (hmpt_memkind_lookup(p, &m) != 0)
		return false;
	*b = (block_t){m.size, m.usable, m.site, m.tag, true};
	return true;
}

/* Made by hmpt: in the arena, or a live memkind block (only page-aligned
 * pointers are looked up, and only while memkind blocks exist). */
static inline bool is_tracked(const void *p)
{
	hmpt_memkind_block_t m;

	return hmpt_arena_owns(p) ||
	       (!((uintptr_t)p & 4095) && hmpt_memkind_any() && hmpt_memkind_lookup(p, &m) == 0);
}

/* Allocate for `site` as the plan says, along the fallback chain; NULL:
 * not even the "system" placement could be made (the arena is full). */
static void *place_alloc(uint32_t site, size_t size, size_t align, bool zero)
{
	hmpt_choice_t c = {.pool = HMPT_POOL_SYSTEM};
	uint64_t id = hmpt_sites_get(site)->id;
	void *p;

	if (placing_g)
		hmpt_pools_choose(site_pool(site), size, id, &c);
	for (;;) {
		int kind = c.pool >= 0 ? plan_g.pools[c.pool].kind : -1;
		p = c.memkind ? hmpt_memkind_alloc(kind, size, align, zero, site, c.tag)
		              : hmpt_arena_alloc(size, align, zero, site, c.tag);
		if (p || !placing_g || !hmpt_pools_refuse(&c, size, id, errno))
			break;
	}
	if (p && placing_g) {
		hmpt_sites_lock();
		hmpt_site_t *s = hmpt_sites_get(site);
		if (s->placed) {
			s->placed[c.pool + 1].allocations++;
			s->placed[c.pool + 1].bytes += size;
		}
		hmpt_sites_unlock();
	}
	return p;
}

/* Release a tracked block: its memory, its charge, its site's live bytes. */
static void block_free(void *p, const block_t *b)
{
	hmpt_block_t a;
	hmpt_memkind_block_t m;

	if (b->memkind)
		hmpt_memkind_free(p, &m);
	else if (hmpt_arena_free(p, &a) == 0)
		hmpt_sample_note_gone((uintptr_t)p, a.mapped, a.site, a.born);
	hmpt_pools_release(b->tag, hmpt_pools_round(b->tag, b->size));
	hmpt_sites_lock();
	hmpt_sites_note_free(b->site, b->size);
	hmpt_sites_unlock();
}

/* ------------------------------------------------------------- tracking */

static void note_untracked(const char *why, size_t size)
{
	if (__atomic_load_n(&sites_ready_g, __ATOMIC_ACQUIRE)) {
		hmpt_sites_lock();
		hmpt_sites_note_untracked();
		hmpt_sites_unlock();
	}
	if (why && hmpt_log_first(&warned_track_g)) {
		char buf[256];
		hmpt_fmt_t f;
		hmpt_log_begin(&f, buf, sizeof(buf));
		hmpt_fmt_str(&f, "could not track an allocation of ");
		hmpt_fmt_size(&f, size);
		hmpt_fmt_str(&f, " (");
		hmpt_fmt_str(&f, why);
		hmpt_fmt_str(&f, "); it and any like it go to the normal allocator");
		hmpt_log_end(&f, HMPT_LOG_WARN);
	}
}

static void log_tracked(const char *what, void *p, size_t size, uint32_t site)
{
	char buf[256];
	hmpt_fmt_t f;
	block_t b;

	if (hmpt_log_level_g < HMPT_LOG_DEBUG)
		return;
	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_fmt_str(&f, what);
	hmpt_fmt_char(&f, ' ');
	hmpt_fmt_size(&f, size);
	hmpt_fmt_str(&f, " at 0x");
	hmpt_fmt_hex(&f, (uintptr_t)p, 1);
	hmpt_fmt_str(&f, " site ");
	hmpt_fmt_hex(&f, hmpt_sites_get(site)->id, 16);
	if (placing_g && block_lookup(p, &b)) {
		hmpt_fmt_str(&f, " pool ");
		hmpt_fmt_str(&f, hmpt_plan_pool_name(&plan_g, hmpt_pools_tag_pool(b.tag)));
	}
	hmpt_log_end(&f, HMPT_LOG_DEBUG);
}

/* Set up plan and sites (once); false when sites cannot be used. */
static bool ready_to_track(void)
{
	pthread_once(&place_once_g, place_init_once);
	pthread_once(&sites_once_g, sites_init_once);
	return __atomic_load_n(&sites_ready_g, __ATOMIC_ACQUIRE);
}

/* Capture the site and allocate as planned; NULL means "not tracked, use
 * the normal allocator" (errno preserved). */
static void *track_alloc(size_t size, size_t align, bool zero)
{
	int saved = errno;
	void *p = NULL;

	/* more than the arena holds: the normal allocator answers (ENOMEM) */
	if (!tracking_g || align > HMPT_ARENA_MAX_ALIGN || size > hmpt_arena_size_g)
		return NULL;
	if (guard_tl) { /* a large request from hmpt's own callees */
		note_untracked(NULL, size);
		return NULL;
	}
	guard_tl = 1;
	if (!ready_to_track())
		goto out;
	uint32_t site = hmpt_sites_capture();
	p = place_alloc(site, size, align, zero);
	if (!p) {
		note_untracked(errno == ENOMEM ? "arena full or memory refused" : "mapping failed",
		               size);
		goto out;
	}
	hmpt_sites_lock();
	hmpt_sites_note_alloc(site, size, hmpt_sys_now_ns());
	hmpt_sites_unlock();
	log_tracked("track", p, size, site);
out:
	guard_tl = 0;
	errno = saved;
	return p;
}

static void warn_invalid_free(void *p)
{
	char buf[256];
	hmpt_fmt_t f;

	if (!hmpt_log_first(&warned_invalid_free_g))
		return;
	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_fmt_str(&f, "free(0x");
	hmpt_fmt_hex(&f, (uintptr_t)p, 1);
	hmpt_fmt_str(&f, "): not the start of a live tracked block (double free?); ignored");
	hmpt_log_end(&f, HMPT_LOG_WARN);
}

/* free() of a pointer in the arena, or of a live memkind block */
static void track_free(void *p)
{
	block_t b;

	if (!block_lookup(p, &b)) {
		warn_invalid_free(p);
		return;
	}
	guard_tl++;
	block_free(p, &b);
	guard_tl--;
}

/* realloc of a tracked block to a new tracked size: in place when the new
 * site's placement is the block's own, else a new block (placed for the new
 * site, along its fallback chain) and a copy.  NULL, errno set: nothing
 * changed. */
static void *track_resize(void *p, const block_t *old, size_t size)
{
	uint32_t site = hmpt_sites_capture();
	hmpt_block_t was;
	void *q = NULL;

	if (!old->memkind && (!placing_g || hmpt_pools_tag_pool(old->tag) == site_pool(site))) {
		/* same pool: grow or shrink in place, or move the pages, if the
		 * placement's budget takes the new size */
		uint64_t before = hmpt_pools_round(old->tag, old->size);
		uint64_t after = hmpt_pools_round(old->tag, size);
		if (hmpt_pools_regrow(old->tag, before, after)) {
			q = hmpt_arena_realloc(p, size, site, &was);
			if (q && q != p) /* moved: samples at the old range before now are its */
				hmpt_sample_note_gone((uintptr_t)p, was.mapped, was.site, was.born);
			if (q)
				goto done;
			hmpt_pools_regrow(old->tag, after, before);
		}
	}
	/* elsewhere: a new block where the plan says, then the copy */
	q = place_alloc(site, size, 0, false);
	if (!q)
		return NULL;
	memcpy(q, p, size < old->usable ? size : old->usable);
	block_free(p, old);
	hmpt_sites_lock();
	hmpt_sites_note_alloc(site, size, hmpt_sys_now_ns());
	hmpt_sites_unlock();
	log_tracked("realloc", q, size, site);
	return q;
done:
	hmpt_pools_count(old->tag, hmpt_pools_round(old->tag, size));
	hmpt_sites_lock();
	if (placing_g) {
		hmpt_site_t *s = hmpt_sites_get(site);
		int pool = hmpt_pools_tag_pool(old->tag);
		if (s->placed) {
			s->placed[pool + 1].allocations++;
			s->placed[pool + 1].bytes += size;
		}
	}
	hmpt_sites_note_free(old->site, old->size);
	hmpt_sites_note_alloc(site, size, hmpt_sys_now_ns());
	hmpt_sites_unlock();
	log_tracked("realloc", q, size, site);
	return q;
}

/* realloc of a tracked block */
static void *track_realloc(void *p, size_t size)
{
	block_t old;
	void *q;

	if (size == 0) { /* glibc: realloc(p, 0) frees p and returns NULL */
		track_free(p);
		return NULL;
	}
	if (!block_lookup(p, &old)) {
		errno = EINVAL;
		return NULL;
	}
	if (size >= min_size_g && !guard_tl) {
		int saved = errno;
		guard_tl = 1;
		q = track_resize(p, &old, size);
		guard_tl = 0;
		if (q) {
			errno = saved;
			return q;
		}
		if (errno == ENOMEM && hmpt_log_first(&warned_arena_g))
			hmpt_log_msg(HMPT_LOG_WARN,
			             "realloc: the arena is full; the block moves to "
			             "the normal allocator");
		errno = saved;
	}
	/* now small (or the arena is full): move to the normal allocator */
	q = real_malloc_g(size);
	if (!q)
		return NULL; /* errno set; p is untouched */
	memcpy(q, p, size < old.usable ? size : old.usable);
	track_free(p);
	return q;
}

/* ------------------------------------------------------ the entry points */

static void *slow_malloc(size_t size)
{
	if (init())
		return boot_alloc(size, 16);
	if (size >= min_size_g) {
		void *p = track_alloc(size, 0, false);
		if (p)
			return p;
	}
	return real_malloc_g(size);
}

EXPORT void *malloc(size_t size)
{
	if (likely(size < __atomic_load_n(&min_size_g, __ATOMIC_ACQUIRE)))
		return real_malloc_g(size);
	return slow_malloc(size);
}

EXPORT void free(void *p)
{
	if (unlikely(is_tracked(p))) {
		track_free(p);
		return;
	}
	if (unlikely(boot_owns(p)))
		return; /* boot blocks are never reused */
	real_free_g(p);
}

EXPORT void *calloc(size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	if (likely(total < __atomic_load_n(&min_size_g, __ATOMIC_ACQUIRE)))
		return real_calloc_g(n, size);
	if (init())
		return boot_alloc(total, 16);
	if (total >= min_size_g) {
		void *p = track_alloc(total, 0, true);
		if (p)
			return p;
	}
	return real_calloc_g(n, size);
}

static void *slow_realloc(void *p, size_t size)
{
	if (init()) {
		if (p && !boot_owns(p)) /* made by glibc before hmpt started */
			return __libc_realloc(p, size);
		void *q = size ? boot_alloc(size, 16) : NULL;
		if (q && p)
			memcpy(q, p, boot_size(p) < size ? boot_size(p) : size);
		return q;
	}
	if (is_tracked(p))
		return track_realloc(p, size);
	if (boot_owns(p)) {
		if (size == 0)
			return NULL;
		void *q = malloc(size);
		if (q)
			memcpy(q, p, boot_size(p) < size ? boot_size(p) : size);
		return q;
	}
	if (size >= min_size_g) {
		/* an untracked block grows past the threshold: track it now */
		void *q = track_alloc(size, 0, false);
		if (q) {
			if (p) {
				size_t old = real_usable_g ? real_usable_g(p) : size;
				memcpy(q, p, old < size ? old : size);
				real_free_g(p);
			}
			return q;
		}
	}
	return real_realloc_g(p, size);
}

EXPORT void *realloc(void *p, size_t size)
{
	if (likely(size < __atomic_load_n(&min_size_g, __ATOMIC_ACQUIRE) && !hmpt_arena_owns(p) &&
	           !boot_owns(p) && !hmpt_memkind_any()))
		return real_realloc_g(p, size);
	return slow_realloc(p, size);
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, total);
}

static bool power_of_two(size_t x)
{
	return x && !(x & (x - 1));
}

/* Shared by memalign, aligned_alloc, valloc, pvalloc: track when large and
 * the alignment is one hmpt serves; otherwise NULL, and the caller asks the
 * normal allocator, so odd alignments get exactly glibc's answer. */
static void *aligned_track(size_t align, size_t size)
{
	if (init())
		return boot_alloc(size, power_of_two(align) && align <= 4096 ? align : 4096);
	if (size >= min_size_g && power_of_two(align))
		return track_alloc(size, align, false);
	return NULL;
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (align % sizeof(void *) != 0 || !power_of_two(align))
		return EINVAL;
	p = size ? aligned_track(align, size) : NULL;
	if (p) {
		*out = p;
		return 0;
	}
	if (real_posix_memalign_g)
		return real_posix_memalign_g(out, align, size);
	p = real_memalign_g(align, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
	void *p = aligned_track(align, size);

	if (p)
		return p;
	return real_aligned_alloc_g ? real_aligned_alloc_g(align, size)
	                            : real_memalign_g(align, size);
}

EXPORT void *memalign(size_t align, size_t size)
{
	void *p = aligned_track(align, size);

	return p ? p : real_memalign_g(align, size);
}

EXPORT void *valloc(size_t size)
{
	void *p = aligned_track(page_g, size);

	if (p)
		return p;
	return real_valloc_g ? real_valloc_g(size) : real_memalign_g(page_g, size);
}

EXPORT void *pvalloc(size_t size)
{
	size_t rounded = (size + page_g - 1) & ~(page_g - 1);
	void *p = rounded >= size && rounded ? aligned_track(page_g, rounded) : NULL;

	if (p)
		return p;
	return real_pvalloc_g ? real_pvalloc_g(size) : real_memalign_g(page_g, rounded);
}

EXPORT size_t malloc_usable_size(void *p)
{
	block_t b;

	if (!p)
		return 0;
	if (is_tracked(p))
		return block_lookup(p, &b) ? b.usable : 0;
	if (boot_owns(p))
		return boot_size(p);
	init();
	return real_usable_g ? real_usable_g(p) : 0;
}

/* ------------------------------------------------------------- lifecycle */

static int write_profile(const char *pattern, hmpt_end_t end)
{
	char path[4096];
	int rc;

	if (!pattern)
		return -EINVAL;
	if (!tracking_g || !__atomic_load_n(&sites_ready_g, __ATOMIC_ACQUIRE))
		return -ENOTSUP;
	guard_tl++;
	if (end == HMPT_END_REQUEST)
		hmpt_sample_flush();
	hmpt_sites_lock();
	if (hmpt_sites_totals()->allocations == 0 && hmpt_sites_totals()->live == 0 &&
	    hmpt_statics_count() == 0 && end != HMPT_END_REQUEST) {
		hmpt_sites_unlock();
		guard_tl--;
		return 0; /* nothing tracked: no file */
	}
	hmpt_profile_info_t info = {.pattern = pattern,
	                            .min_size = opt_g[HMPT_OPT_MIN_SIZE].num,
	                            .arena_bytes = hmpt_arena_size_g,
	                            .start_unix = start_unix_g,
	                            .forked = forked_g,
	                            .end = end};
	rc = hmpt_profile_write_file(&info, path, sizeof(path));
	hmpt_sites_unlock();
	guard_tl--;

	char buf[4400];
	hmpt_fmt_t f;
	hmpt_log_begin(&f, buf, sizeof(buf));
	if (rc) {
		hmpt_fmt_str(&f, "cannot write the profile ");
		hmpt_fmt_str(&f, path[0] ? path : pattern);
		hmpt_fmt_str(&f, ": ");
		hmpt_fmt_str(&f, strerrordesc_np(-rc));
		hmpt_log_end(&f, HMPT_LOG_WARN);
	} else {
		hmpt_fmt_str(&f, "profile written to ");
		hmpt_fmt_str(&f, path);
		hmpt_log_end(&f, HMPT_LOG_INFO);
	}
	return rc;
}

/* At exit, once, and only in the process the state belongs to (not in a
 * vfork child sharing our memory). */
static void profile_at_exit(hmpt_end_t end)
{
	if (__atomic_load_n(&state_g, __ATOMIC_ACQUIRE) != ST_READY ||
	    !opt_g[HMPT_OPT_PROFILE].str || getpid() != owner_pid_g)
		return;
	if (!hmpt_log_first(&profile_written_g))
		return;
	guard_tl++;
	hmpt_sample_stop(); /* the rest of the samples, before the profile */
	guard_tl--;
	write_profile(opt_g[HMPT_OPT_PROFILE].str, end);
}

/* HMPT_VERBOSE=1: what each pool took, at exit */
static void log_pools_at_exit(void)
{
	char buf[512];
	hmpt_fmt_t f;

	if (!placing_g || hmpt_log_level_g < HMPT_LOG_INFO || getpid() != owner_pid_g)
		return;
	for (int i = 0; i < plan_g.npools; i++) {
		hmpt_pool_stats_t st;
		hmpt_pools_stats(i, &st);
		hmpt_log_begin(&f, buf, sizeof(buf));
		hmpt_fmt_str(&f, "pool ");
		hmpt_fmt_str(&f, plan_g.pools[i].name);
		hmpt_fmt_str(&f, ": ");
		hmpt_fmt_u64(&f, st.allocations);
		hmpt_fmt_str(&f, " allocations, ");
		hmpt_fmt_size(&f, st.bytes);
		hmpt_fmt_str(&f, " placed, peak ");
		hmpt_fmt_size(&f, st.peak);
		hmpt_fmt_str(&f, "; ");
		hmpt_fmt_u64(&f, st.refused);
		hmpt_fmt_str(&f, " refused (");
		hmpt_fmt_size(&f, st.refused_bytes);
		hmpt_fmt_str(&f, ") went to ");
		hmpt_fmt_str(&f, hmpt_plan_pool_name(&plan_g, plan_g.pools[i].fallback));
		hmpt_log_end(&f, HMPT_LOG_INFO);
	}
}

__attribute__((destructor)) static void hmpt_fini(void)
{
	log_pools_at_exit();
	profile_at_exit(HMPT_END_EXIT);
	hmpt_stale_at_exit();
	hmpt_job_leave();
}

EXPORT __attribute__((noreturn)) void _exit(int status)
{
	profile_at_exit(HMPT_END__EXIT);
	hmpt_stale_at_exit();
	hmpt_job_leave();
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT __attribute__((noreturn)) void _Exit(int status)
{
	_exit(status);
}

/* Locks are never nested at run time except in this fixed order. */
static void fork_prepare(void)
{
	hmpt_sites_lock();
	hmpt_pools_lock();
	hmpt_memkind_lock();
	hmpt_arena_lock();
}

static void fork_parent(void)
{
	hmpt_arena_unlock();
	hmpt_memkind_unlock();
	hmpt_pools_unlock();
	hmpt_sites_unlock();
}

static void fork_child(void)
{
	hmpt_arena_reset_lock();
	hmpt_memkind_reset_lock();
	hmpt_pools_reset_lock();
	hmpt_sites_reset_lock();
	owner_pid_g = getpid();
	forked_g = true;
	profile_written_g = 0;
	if (__atomic_load_n(&sites_ready_g, __ATOMIC_ACQUIRE))
		hmpt_sites_reset_stats(hmpt_sys_now_ns());
	guard_tl++;
	hmpt_sample_fork_child();
	guard_tl--;
}

/* HMPT_SAMPLE: start sampling in the main thread, before main() */
static void sample_start(void)
{
	const char *v = opt_g[HMPT_OPT_SAMPLE].str;
	hmpt_sample_config_t cfg = {.want = HMPT_SAMPLER_OFF,
	                            .period = opt_g[HMPT_OPT_SAMPLE_PERIOD].num,
	                            .ldlat = opt_g[HMPT_OPT_SAMPLE_LDLAT].num,
	                            .create = real_pthread_create_g};

	if (!v || !real_pthread_create_g)
		return;
	/* for the ring budget: the ranks on this node, an OpenMP team each */
	if (hmpt_job_g.local_size > 0)
		cfg.processes = (uint64_t)hmpt_job_g.local_size;
	if (hmpt_job_g.threads > 0)
		cfg.threads = (uint64_t)hmpt_job_g.threads;
	if (hmpt_sampler_parse(v, &cfg.want) != 0) {
		char buf[256];
		hmpt_fmt_t f;
		hmpt_log_begin(&f, buf, sizeof(buf));
		hmpt_fmt_str(&f, "HMPT_SAMPLE=");
		hmpt_fmt_str(&f, v);
		hmpt_fmt_str(&f, ": expected auto, pebs, ibs, faults or off (or 1 / 0); sampling "
		                 "is off");
		hmpt_log_end(&f, HMPT_LOG_WARN);
		return;
	}
	hmpt_sample_start(&cfg);
}

__attribute__((constructor)) static void hmpt_ctor(void)
{
	init();
	if (!tracking_g)
		return;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	/* warm the unwinder up now, outside any malloc.  The plan is read at
	 * the first tracked request: a wrapper that runs the program (taskset,
	 * numactl, mpirun, a shell) and never allocates a large block then says
	 * nothing about it.  HMPT_STRICT=1 reads it here, to stop before main,
	 * and so does a program with large static data. */
	guard_tl = 1;
	if (opt_g[HMPT_OPT_STRICT].num)
		pthread_once(&place_once_g, place_init_once);
	/* static data is placed now, before main: a plan that may name it is
	 * read here (and before the sites, whose depth it may set) */
	bool statics =
	    opt_g[HMPT_OPT_STATIC].num &&
	    hmpt_statics_scan(opt_g[HMPT_OPT_MIN_SIZE].num, (const void *)&hmpt_ctor) > 0;
	if (statics && opt_g[HMPT_OPT_PLAN].str)
		pthread_once(&place_once_g, place_init_once);
	pthread_once(&sites_once_g, sites_init_once);
	if (__atomic_load_n(&sites_ready_g, __ATOMIC_ACQUIRE)) {
		if (statics)
			statics_register();
		hmpt_sites_warmup();
		sample_start();
	}
	guard_tl = 0;
}

/* A new thread: its own events first, then the program's start routine. */
static void *thread_start(void *p)
{
	hmpt_sample_tramp_t *t = p;
	void *(*fn)(void *) = t->fn;
	void *arg = t->arg;

	hmpt_sample_tramp_put(t);
	guard_tl++;
	hmpt_sample_thread_begin();
	guard_tl--;
	return fn(arg);
}

EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *),
                          void *arg)
{
	hmpt_sample_tramp_t *t;

	init();
	if (!real_pthread_create_g)
		return EAGAIN;
	if (!hmpt_sample_active() || !(t = hmpt_sample_tramp_get()))
		return real_pthread_create_g(thread, attr, fn, arg);
	t->fn = fn;
	t->arg = arg;
	int rc = real_pthread_create_g(thread, attr, thread_start, t);
	if (rc)
		hmpt_sample_tramp_put(t);
	return rc;
}

EXPORT const char *hmpt_version(void)
{
	return HMPT_VERSION;
}

EXPORT int hmpt_profile_write(const char *path)
{
	init();
	if (!path)
		path = opt_g[HMPT_OPT_PROFILE].str;
	return write_profile(path, HMPT_END_REQUEST);
}
