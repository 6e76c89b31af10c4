/* lifecycle.c — the shim's life in a process (lifecycle.h): the
 * constructor (sites, statics, sampling, the fork table), fork children,
 * and the profile at exit. */
#include "lifecycle.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "backend_arena.h"
#include "boot.h"
#include "forktab.h"
#include "job.h"
#include "log.h"
#include "placer.h"
#include "pool.h"
#include "sample.h"
#include "sites.h"
#include "stale.h"
#include "static_place.h"
#include "statics.h"
#include "sys.h"
#include "thresh.h"

static bool forked_g;
static int profile_written_g;

int hmpt_lifecycle_write_profile(const char *pattern, hmpt_end_t end)
{
	char path[4096];
	int rc;

	if (!pattern)
		return -EINVAL;
	if (!hmpt_tracking_g || !hmpt_placer_sites_ready())
		return -ENOTSUP;
	hmpt_guard_enter();
	if (end == HMPT_END_REQUEST)
		hmpt_sample_flush();
	hmpt_sites_lock();
	if (hmpt_sites_totals()->allocations == 0 && hmpt_sites_totals()->live == 0 &&
	    hmpt_statics_count() == 0 && end != HMPT_END_REQUEST) {
		hmpt_sites_unlock();
		hmpt_guard_leave();
		return 0; /* nothing tracked: no file */
	}
	hmpt_profile_info_t info = {.pattern = pattern,
	                            .min_size = hmpt_opt_g[HMPT_OPT_MIN_SIZE].num,
	                            .arena_bytes = hmpt_arena_capacity(),
	                            .start_unix = hmpt_start_unix_g,
	                            .forked = forked_g,
	                            .end = end};
	const char *why;
	rc = hmpt_profile_write_file(&info, path, sizeof(path), &why);
	hmpt_sites_unlock();
	hmpt_guard_leave();

	/* a path may be longer than hmpt_log_printf's 1 KiB */
	char buf[4400];
	hmpt_fmt_t f;
	hmpt_log_begin(&f, buf, sizeof(buf));
	if (rc) {
		hmpt_fmt_printf(&f, "cannot write the profile %s: %s", path[0] ? path : pattern,
		                why ? why : strerrordesc_np(-rc));
		hmpt_log_end(&f, HMPT_LOG_WARN);
	} else {
		hmpt_fmt_printf(&f, "profile written to %s", path);
		hmpt_log_end(&f, HMPT_LOG_INFO);
	}
	return rc;
}

/* At exit, once, and only in the process the state belongs to (not in a
 * vfork child sharing our memory). */
static void profile_at_exit(hmpt_end_t end)
{
	if (!hmpt_boot_ready() || !hmpt_opt_g[HMPT_OPT_PROFILE].str || getpid() != hmpt_owner_pid_g)
		return;
	if (!hmpt_log_first(&profile_written_g))
		return;
	hmpt_guard_enter();
	hmpt_sample_stop(); /* the rest of the samples, before the profile */
	hmpt_guard_leave();
	hmpt_lifecycle_write_profile(hmpt_opt_g[HMPT_OPT_PROFILE].str, end);
}

/* HMPT_VERBOSE=1: what each pool took, at exit */
static void log_pools_at_exit(void)
{
	if (!hmpt_placing_g || hmpt_log_level_g < HMPT_LOG_INFO || getpid() != hmpt_owner_pid_g)
		return;
	for (int i = 0; i < hmpt_plan_g.npools; i++) {
		hmpt_pool_stats_t st;
		hmpt_pools_stats(&hmpt_pools_g, i, &st);
		hmpt_log_printf(
		    HMPT_LOG_INFO,
		    "pool %s: %llu allocations, %s placed, peak %s; %llu refused (%s) went "
		    "to %s",
		    hmpt_plan_g.pools[i].name, (unsigned long long)st.allocations,
		    HMPT_SIZE(st.bytes), HMPT_SIZE(st.peak), (unsigned long long)st.refused,
		    HMPT_SIZE(st.refused_bytes),
		    hmpt_plan_pool_name(&hmpt_plan_g, hmpt_plan_g.pools[i].fallback));
	}
}

/* The end of the process: by exit (the destructor) or _exit. */
void hmpt_lifecycle_end(hmpt_end_t end)
{
	profile_at_exit(end);
	hmpt_stale_at_exit();
	hmpt_job_leave();
}

__attribute__((destructor)) static void hmpt_fini(void)
{
	log_pools_at_exit();
	hmpt_lifecycle_end(HMPT_END_EXIT);
}

/* The process's own state in a fork child, once every lock is usable
 * again (forktab.h: rank 0 runs last): its own profile, counting from the
 * fork; live blocks stay live. */
static void fork_child(void)
{
	hmpt_owner_pid_g = getpid();
	forked_g = true;
	profile_written_g = 0;
	if (hmpt_placer_sites_ready()) {
		hmpt_sites_reset_stats(hmpt_sys_now_ns());
		hmpt_placer_reset_counts();
	}
	hmpt_guard_enter();
	hmpt_sample_fork_child();
	hmpt_guard_leave();
}

/* Every lock of the shim in the fork table, in its rank (forktab.h). */
static void fork_register(void)
{
	hmpt_fork_register(HMPT_FORK_PROCESS, NULL, NULL, fork_child);
	hmpt_fork_register(HMPT_FORK_SITES, hmpt_sites_lock, hmpt_sites_unlock,
	                   hmpt_sites_reset_lock);
	hmpt_fork_register(HMPT_FORK_POOLS, hmpt_placer_pools_lock, hmpt_placer_pools_unlock,
	                   hmpt_placer_pools_reset_lock);
	/* each backend's at the rank its row gives, and the table of blocks
	 * outside the arena */
	for (int i = 0; hmpt_backends_g[i]; i++) {
		const hmpt_backend_t *be = hmpt_backends_g[i];
		if (be->fork_rank && be->ops)
			hmpt_fork_register(be->fork_rank, be->ops->fork_prepare,
			                   be->ops->fork_parent, be->ops->fork_child);
	}
	hmpt_fork_register(HMPT_FORK_OUTSIDE, hmpt_outside_lock, hmpt_outside_unlock,
	                   hmpt_outside_reset_lock);
	hmpt_fork_register(HMPT_FORK_SAMPLE, hmpt_sample_lock, hmpt_sample_unlock,
	                   hmpt_sample_reset_lock);
	hmpt_fork_register(HMPT_FORK_SAMPLE_GONE, hmpt_sample_gone_lock, hmpt_sample_gone_unlock,
	                   hmpt_sample_gone_reset_lock);
	hmpt_fork_register(HMPT_FORK_ARENA, hmpt_arena_lock, hmpt_arena_unlock,
	                   hmpt_arena_reset_lock);
	hmpt_fork_register(HMPT_FORK_PERM, hmpt_sys_perm_lock, hmpt_sys_perm_unlock,
	                   hmpt_sys_perm_reset_lock);
	pthread_atfork(hmpt_fork_prepare, hmpt_fork_parent, hmpt_fork_child);
}

/* HMPT_SAMPLE: start sampling in the main thread, before main() */
static void sample_start(void)
{
	const char *v = hmpt_opt_g[HMPT_OPT_SAMPLE].str;
	hmpt_sample_config_t cfg = {.want = HMPT_SAMPLER_OFF,
	                            .period = hmpt_opt_g[HMPT_OPT_SAMPLE_PERIOD].num,
	                            .ldlat = hmpt_opt_g[HMPT_OPT_SAMPLE_LDLAT].num,
	                            .create = hmpt_real_pthread_create_g};

	if (!v || !hmpt_real_pthread_create_g)
		return;
	/* for the ring budget: the ranks on this node, an OpenMP team each */
	if (hmpt_job_g.local_size > 0)
		cfg.processes = (uint64_t)hmpt_job_g.local_size;
	if (hmpt_job_g.threads > 0)
		cfg.threads = (uint64_t)hmpt_job_g.threads;
	if (hmpt_sampler_parse(v, &cfg.want) != 0) {
		hmpt_log_printf(
		    HMPT_LOG_WARN,
		    "HMPT_SAMPLE=%s: expected auto, pebs, ibs, faults, timer or off (or 1 / 0); "
		    "sampling is off",
		    v);
		return;
	}
	hmpt_sample_start(&cfg);
}

__attribute__((constructor)) static void hmpt_ctor(void)
{
	hmpt_boot_init();
	if (!hmpt_tracking_g)
		return;
	hmpt_thresh_init(environ);
	fork_register();
	/* The plan is read at the first tracked request: a wrapper that runs
	 * the program (taskset, numactl, mpirun, a shell) and never allocates a
	 * large block then says nothing about it.  HMPT_STRICT=1 reads it here,
	 * to stop before main, and so does a program with large static data.
	 * When something is asked, the unwinder is warmed up here, outside any
	 * malloc; when nothing is, its first walk is in the first tracked
	 * request (with the guard held, like any walk). */
	hmpt_guard_enter();
	if (hmpt_opt_g[HMPT_OPT_STRICT].num)
		hmpt_placer_init();
	/* nothing asked (no plan, profile or sampling): the sites and the
	 * unwinder wait for the first tracked request, and static data is not
	 * scanned (no plan can name it, no profile will list it), so that the
	 * many short processes of a job script and its helpers pay nothing
	 * for them (libunwind's first walk alone faults in some 64 pages) */
	if (!hmpt_opt_g[HMPT_OPT_PLAN].str && !hmpt_opt_g[HMPT_OPT_PROFILE].str &&
	    !hmpt_opt_g[HMPT_OPT_SAMPLE].str) {
		hmpt_guard_leave();
		return;
	}
	hmpt_profile_keep_cmdline();
	/* static data is placed now, before main: a plan that may name it is
	 * read here (and before the sites, whose depth it may set) */
	bool statics =
	    hmpt_opt_g[HMPT_OPT_STATIC].num &&
	    hmpt_statics_scan(hmpt_opt_g[HMPT_OPT_MIN_SIZE].num, (const void *)&hmpt_ctor) > 0;
	if (statics && hmpt_opt_g[HMPT_OPT_PLAN].str)
		hmpt_placer_init();
	if (hmpt_placer_sites_init()) {
		if (statics)
			hmpt_static_place_register();
		hmpt_sites_warmup();
		sample_start();
	}
	hmpt_guard_leave();
}
