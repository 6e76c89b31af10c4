/* boot.c — the shim's start (boot.h): the next allocator found with
 * dlsym(RTLD_NEXT), the boot buffer that serves the resolving thread
 * meanwhile, and set-up from the environment.
 */
#include "boot.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"
#include "job.h"
#include "log.h"
#include "sys.h"

#define likely(x) __builtin_expect(!!(x), 1)

extern char **environ;
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

enum { ST_UNINIT, ST_RESOLVING, ST_READY };

static int state_g = ST_UNINIT;
static pid_t init_tid_g;
size_t hmpt_min_size_g = 0;
bool hmpt_tracking_g;
hmpt_opt_value_t hmpt_opt_g[HMPT_OPT_COUNT];
/* the string options' values: a program may overwrite the environment's
 * own strings (setproctitle) long before the profile is written */
static char opt_text_g[HMPT_OPT_COUNT][HMPT_OPT_TEXT_MAX];
pid_t hmpt_owner_pid_g;
double hmpt_start_unix_g;
size_t hmpt_page_g = 4096;

__thread int hmpt_guard_tl __attribute__((tls_model("initial-exec")));

void *(*hmpt_real_malloc_g)(size_t) = __libc_malloc;
void (*hmpt_real_free_g)(void *) = __libc_free;
void *(*hmpt_real_calloc_g)(size_t, size_t) = __libc_calloc;
void *(*hmpt_real_realloc_g)(void *, size_t) = __libc_realloc;
void *(*hmpt_real_memalign_g)(size_t, size_t) = __libc_memalign;
int (*hmpt_real_posix_memalign_g)(void **, size_t, size_t);
void *(*hmpt_real_aligned_alloc_g)(size_t, size_t);
void *(*hmpt_real_valloc_g)(size_t);
void *(*hmpt_real_pvalloc_g)(size_t);
size_t (*hmpt_real_usable_g)(void *);
int (*hmpt_real_mallopt_g)(int, int);
hmpt_pthread_create_fn hmpt_real_pthread_create_g;
int (*hmpt_real_setrlimit_g)(int, const struct rlimit *);
int (*hmpt_real_setrlimit64_g)(int, const struct rlimit64 *);
int (*hmpt_real_prlimit_g)(pid_t, int, const struct rlimit *, struct rlimit *);
int (*hmpt_real_prlimit64_g)(pid_t, int, const struct rlimit64 *, struct rlimit64 *);
int (*hmpt_real_mlockall_g)(int);

/* -------------------------------------------------------------- bootstrap */

char hmpt_boot_buf_g[HMPT_BOOT_SIZE] __attribute__((aligned(4096)));
static size_t boot_used_g;

/* Bump allocation with the size stored in the 16 bytes before the block.
 * Every block starts on a page, as the arena's do, so that free() tells
 * all of hmpt's blocks from the next allocator's by one test (boot.h); the
 * buffer serves only the few requests made inside dlsym. */
void *hmpt_boot_alloc(size_t size, size_t align)
{
	size_t off, start, end;

	if (align < HMPT_BOOT_ALIGN)
		align = HMPT_BOOT_ALIGN;
	do {
		off = __atomic_load_n(&boot_used_g, __ATOMIC_RELAXED);
		start = (off + 16 + align - 1) & ~(align - 1);
		end = start + size;
		if (end > HMPT_BOOT_SIZE || end < start) {
			errno = ENOMEM;
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&boot_used_g, &off, end, false, __ATOMIC_RELAXED,
	                                      __ATOMIC_RELAXED));
	*(size_t *)(hmpt_boot_buf_g + start - sizeof(size_t)) = size;
	return hmpt_boot_buf_g + start; /* static storage: already zero */
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

/* mapcalls.c's next definitions: weak, as the unit tests link this file
 * without the interposers */
extern void hmpt_mapcalls_resolve(void) __attribute__((weak));

static void resolve_next(void)
{
	/* until all are known, this thread's requests use the boot buffer */
	void *m = next_symbol("malloc", (void *)__libc_malloc);
	void *f = next_symbol("free", (void *)__libc_free);
	void *c = next_symbol("calloc", (void *)__libc_calloc);
	void *r = next_symbol("realloc", (void *)__libc_realloc);
	void *ma = next_symbol("memalign", (void *)__libc_memalign);
	hmpt_real_posix_memalign_g = next_symbol("posix_memalign", NULL);
	hmpt_real_aligned_alloc_g = next_symbol("aligned_alloc", NULL);
	hmpt_real_valloc_g = next_symbol("valloc", NULL);
	hmpt_real_pvalloc_g = next_symbol("pvalloc", NULL);
	hmpt_real_usable_g = next_symbol("malloc_usable_size", NULL);
	hmpt_real_mallopt_g = next_symbol("mallopt", NULL);
	hmpt_real_pthread_create_g = next_symbol("pthread_create", NULL);
	if (!hmpt_real_pthread_create_g)
		hmpt_real_pthread_create_g = dlvsym(RTLD_NEXT, "pthread_create", "GLIBC_2.34");
	hmpt_real_setrlimit_g = next_symbol("setrlimit", NULL);
	hmpt_real_setrlimit64_g = next_symbol("setrlimit64", NULL);
	hmpt_real_prlimit_g = next_symbol("prlimit", NULL);
	hmpt_real_prlimit64_g = next_symbol("prlimit64", NULL);
	hmpt_real_mlockall_g = next_symbol("mlockall", NULL);
	if (hmpt_mapcalls_resolve)
		hmpt_mapcalls_resolve();
	hmpt_real_malloc_g = m;
	hmpt_real_free_g = f;
	hmpt_real_calloc_g = c;
	hmpt_real_realloc_g = r;
	hmpt_real_memalign_g = ma;
}

static void log_setup(void)
{
	const char *profile = hmpt_opt_g[HMPT_OPT_PROFILE].str;
	const char *reserved = hmpt_arena_step() ? " (RLIMIT_AS: reserved as blocks need it)" : "";

	hmpt_log_printf(HMPT_LOG_INFO,
	                HMPT_VERSION
	                ": tracking allocations >= %s (stack depth %llu), arena %s%s at "
	                "0x%llx, profile %s",
	                HMPT_SIZE(hmpt_opt_g[HMPT_OPT_MIN_SIZE].num),
	                (unsigned long long)hmpt_opt_g[HMPT_OPT_STACK_DEPTH].num,
	                HMPT_SIZE(hmpt_arena_capacity()), reserved,
	                (unsigned long long)hmpt_arena_base_g, profile ? profile : "(none)");
}

/* The arena's capacity is HMPT_ARENA_SIZE, reserved at start.  Under an
 * address-space limit (ulimit -v, Slurm's VSizeFactor), which counts the
 * reservation, it is at most the limit and reserved as tracked blocks need
 * it (an eighth of the limit at a time at most), none at start: a program
 * that reserves most of its limit at start (a JVM's heap) still can. */
static void arena_size(uint64_t *capacity, uint64_t *initial)
{
	uint64_t want = hmpt_opt_g[HMPT_OPT_ARENA_SIZE].num;
	struct rlimit rl;

	*capacity = *initial = want;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		if (*capacity > rl.rlim_cur)
			*capacity = rl.rlim_cur;
		*initial = rl.rlim_cur / 8 < *capacity ? rl.rlim_cur / 8 : *capacity;
	}
}

static void setup(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	if (ps > 0)
		hmpt_page_g = (size_t)ps;
	hmpt_owner_pid_g = getpid();
	hmpt_start_unix_g = hmpt_sys_unix_time();
	/* nothing is tracked unless the set-up below succeeds */
	__atomic_store_n(&hmpt_min_size_g, SIZE_MAX, __ATOMIC_RELEASE);
	/* setuid/setgid programs: hmpt does nothing at all */
	if (getauxval(AT_SECURE))
		return;
	hmpt_options_load(environ, hmpt_opt_g, opt_text_g, report_option, NULL);
	hmpt_log_level_g = (int)hmpt_opt_g[HMPT_OPT_VERBOSE].num;
	/* preloaded into mpirun or srun for the sake of the ranks it starts */
	char exe[4096];
	if (hmpt_sys_readlink("/proc/self/exe", exe, sizeof(exe)) > 0) {
		const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
		if (hmpt_job_is_launcher(base)) {
			hmpt_log_printf(HMPT_LOG_INFO, "%s starts ranks: hmpt tracks nothing in it",
			                base);
			return;
		}
	}
	hmpt_job_init(environ, hmpt_opt_g[HMPT_OPT_RANKS].str);
	uint64_t capacity, initial;
	arena_size(&capacity, &initial);
	int rc = hmpt_arena_init(capacity, initial);
	if (rc) {
		hmpt_log_printf(
		    HMPT_LOG_WARN,
		    "cannot reserve the arena (%s): %s; nothing is tracked, the program "
		    "runs unchanged",
		    HMPT_SIZE(initial), strerrordesc_np(-rc));
		return;
	}
	hmpt_tracking_g = true;
	log_setup();
	/* a data limit counts writable mappings: as after a setrlimit
	 * (limits.c), freed pages are not kept */
	struct rlimit rl;
	if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		hmpt_arena_keep_none();
		hmpt_log_printf(HMPT_LOG_INFO,
		                "RLIMIT_DATA of %s: freed blocks' pages are not kept",
		                HMPT_SIZE(rl.rlim_cur));
	}
	__atomic_store_n(&hmpt_min_size_g, (size_t)hmpt_opt_g[HMPT_OPT_MIN_SIZE].num,
	                 __ATOMIC_RELEASE);
}

/* Returns true when the caller is the initialising thread, inside dlsym:
 * it must serve the request from the boot buffer. */
bool hmpt_boot_init(void)
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

bool hmpt_boot_ready(void)
{
	return __atomic_load_n(&state_g, __ATOMIC_ACQUIRE) == ST_READY;
}
