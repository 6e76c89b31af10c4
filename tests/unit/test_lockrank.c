/* test_lockrank.c — the lock-order check of the sanitizer builds
 * (common/lockrank.h), on the shim's own locks: nesting in rank order
 * passes; a lock taken under one of the same or a higher rank aborts with
 * one line naming both; try takes are not checked but count as held; a
 * lock dropped out of order or reset (fork's child) is no longer held. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#include "arena.h"
#include "lockrank.h"
#include "pool.h"
#include "sample.h"
#include "sites.h"
#include "sys.h"

#ifndef HMPT_LOCK_RANKS
#error "the unit tests are built with the lock ranks checked (Makefile: RANKS)"
#endif

/* Run fn in a child whose stderr is kept: true when it aborted (SIGABRT)
 * and said exactly `line`; a child that returns exits 0. */
static bool aborts_saying(void (*fn)(void), const char *line)
{
	char got[1024];
	size_t n = 0;
	int fds[2], st;
	ssize_t r;

	if (pipe(fds) != 0)
		return false;
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		fn();
		_exit(0);
	}
	close(fds[1]);
	while (n + 1 < sizeof(got) && (r = read(fds[0], got + n, sizeof(got) - 1 - n)) > 0)
		n += (size_t)r;
	got[n] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return false;
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK_STREQ(got, line);
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT && strcmp(got, line) == 0;
}

/* every lock of the shim in rank order, as fork's prepare takes them */
static void all_in_order(void)
{
	hmpt_pools_t *ps = hmpt_pools_create();
	pthread_mutex_t file = PTHREAD_MUTEX_INITIALIZER, job = PTHREAD_MUTEX_INITIALIZER,
	                memkind = PTHREAD_MUTEX_INITIALIZER;

	hmpt_sites_lock();
	hmpt_pools_lock(ps);
	CHECK_OP(hmpt_lock_try(&job, HMPT_LOCK_JOB), ==, 0);
	hmpt_lock_take(&memkind, HMPT_LOCK_MEMKIND);
	hmpt_lock_take(&file, HMPT_LOCK_BACKEND_POOL);
	hmpt_outside_lock();
	hmpt_sample_lock();
	hmpt_arena_lock(); /* its grow lock, then its own */
	hmpt_sample_gone_lock();
	hmpt_sys_perm_lock();
	hmpt_sys_perm_unlock();
	hmpt_sample_gone_unlock();
	hmpt_arena_unlock();
	hmpt_sample_unlock();
	hmpt_outside_unlock();
	hmpt_lock_drop(&file);
	hmpt_lock_drop(&memkind);
	hmpt_lock_drop(&job);
	hmpt_pools_unlock(ps);
	hmpt_sites_unlock();
	hmpt_pools_destroy(ps);
}

static void sites_under_gone(void)
{
	hmpt_sample_gone_lock();
	hmpt_sites_lock();
}

static void pools_under_pools(void)
{
	hmpt_pools_t *a = hmpt_pools_create(), *b = hmpt_pools_create();

	hmpt_pools_lock(a);
	hmpt_pools_lock(b);
}

/* the profile writer's nesting, then the sample lock under the arena's */
static void sample_under_arena(void)
{
	hmpt_sites_lock();
	hmpt_sample_lock();
	hmpt_arena_lock();
	hmpt_sample_unlock(); /* out of order: the arena's two stay held */
	hmpt_sample_lock();
}

/* a try is not checked, but what is taken under it is */
static void under_a_try(void)
{
	hmpt_sample_gone_lock();
	CHECK(hmpt_sites_trylock()); /* no abort: a try cannot deadlock */
	hmpt_sample_gone_unlock();
	hmpt_sites_lock(); /* the sites lock is held: same rank */
}

/* job.c's timed take, and the pools lock under it (as job_leave once did) */
static void pools_under_job(void)
{
	static pthread_mutex_t job = PTHREAD_MUTEX_INITIALIZER;
	hmpt_pools_t *ps = hmpt_pools_create();
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += 1;
	if (hmpt_lock_timed(&job, HMPT_LOCK_JOB, &until) == 0)
		hmpt_pools_lock(ps);
}

/* fork's child resets the locks it holds: none is held after */
static void after_reset(void)
{
	hmpt_arena_lock();
	hmpt_arena_unlock();
	hmpt_arena_lock();
	hmpt_arena_reset_lock(); /* the child's reset: neither is held */
	hmpt_sites_lock();
	hmpt_sites_unlock();
	hmpt_outside_lock();
	hmpt_arena_lock();
	hmpt_outside_unlock();
	hmpt_outside_lock(); /* 38 under 45 and 50: aborts naming the arena's */
}

#define LINE(took, held)                                                                           \
	"hmpt: lock order: took " took " while holding " held "; see common/lockrank.h\n"

static void test_order(void)
{
	/* in rank order, every lock: no abort */
	all_in_order();

	CHECK(aborts_saying(sites_under_gone,
	                    LINE("the sites lock (shim/sites.c, rank 10)",
	                         "sample's gone-blocks lock (shim/sample.c, rank 60)")));
	CHECK(aborts_saying(pools_under_pools, LINE("the pools lock (common/pool.c, rank 20)",
	                                            "the pools lock (common/pool.c, rank 20)")));
	CHECK(aborts_saying(sample_under_arena, LINE("the sample lock (shim/sample.c, rank 40)",
	                                             "the arena lock (shim/arena.c, rank 50)")));
	CHECK(aborts_saying(under_a_try, LINE("the sites lock (shim/sites.c, rank 10)",
	                                      "the sites lock (shim/sites.c, rank 10)")));
	CHECK(aborts_saying(pools_under_job, LINE("the pools lock (common/pool.c, rank 20)",
	                                          "the job segment's lock (shim/job.c, rank 25)")));
	CHECK(aborts_saying(after_reset,
	                    LINE("the outside-blocks table lock (common/backend.c, rank 38)",
	                         "the arena lock (shim/arena.c, rank 50)")));
}

/* the list: ranks strictly rising, each named */
static void test_list(void)
{
	int last = 0;
#define CHECK_ROW_(name, rank, what, file)                                                         \
	CHECK_OP(rank, >, last);                                                                   \
	CHECK_STREQ(hmpt_lock_name(rank), what);                                                   \
	CHECK_STREQ(hmpt_lock_file(rank), file);                                                   \
	CHECK(strchr(file, '<') || access(file, F_OK) == 0); /* from the top directory */          \
	last = rank;
	HMPT_LOCK_LIST(CHECK_ROW_)
#undef CHECK_ROW_
	CHECK_STREQ(hmpt_lock_name(11), "an unranked lock");
	CHECK_OP(HMPT_LOCK_FILE_FORK, >, HMPT_LOCK_OUTSIDE);
	CHECK_OP(HMPT_LOCK_FILE_FORK, <, HMPT_LOCK_SAMPLE);
}

int main(void)
{
	test_list();
	test_order();
	if (failures)
		fprintf(stderr, "test_lockrank: %d failure(s)\n", failures);
	return failures != 0;
}
