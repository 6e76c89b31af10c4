/* lockrank.h — the rank of every lock that the shim takes, and the calls
 * that take and drop them.
 *
 * Why: a lock taken in two orders by two threads can deadlock, and one
 * taken out of order while another thread forks leaves the child a lock
 * that nobody will release.  Every lock has a rank, and a thread may take
 * a lock only while every lock it holds has a lower rank.  fork's prepare
 * handlers (shim/forktab.h) take all of them in this order.
 *
 * In the sanitizer builds (-DHMPT_LOCK_RANKS: build/asan, build/ubsan) each
 * thread keeps the ranks it holds, and a take out of order aborts with one
 * line naming both locks (write(2) only: it runs inside malloc).  In the
 * release build the calls are the plain pthread calls, inlined: no cost.
 * A try or timed take cannot deadlock: it is not checked, but pushed, so
 * that what is taken under it is.
 *
 * A new lock takes a rank here (docs/hacking.md): above every lock that is
 * held where it is taken, below every lock taken under it; a leaf (nothing
 * taken under it) may go above all that can be held around it.
 */
#ifndef HMPT_LOCKRANK_H
#define HMPT_LOCKRANK_H

#include <pthread.h>
#include <time.h>

/* X(NAME, rank, what it is, its file) in rank order: the only order in
 * which these locks may nest.  What is taken under what:
 *   SITES    site table, module map, statistics; held around
 *            dl_iterate_phdr and while the profile is written (which takes
 *            the sample lock and the arena's)
 *   POOLS    budgets and counts, one per pool set; the job's lock under it
 *   JOB      the node's shared segment (process-shared, robust; timed, so
 *            never checked): a leaf; not in the fork table
 *   30-37    the backends' own locks.  MEMKIND: memkind's loading lock,
 *            held across dlopen, nothing of hmpt's under it.  BACKEND_POOL:
 *            a lock of one backend pool's instance, a leaf (pool_file.c's
 *            free ranges, not taken by fork: a child never allocates from
 *            its parent's file); any backend's leaf lock takes this rank,
 *            as leaves never nest.  A backend lock that others nest under
 *            takes a free rank of its own here.
 *   OUTSIDE  the table of blocks outside the arena: a leaf; the file
 *            backend's fork copies run under it (HMPT_LOCK_FILE_FORK)
 *   SAMPLE   rings and per-site samples; takes the arena's to find a block
 *   ARENA_GROW  held while the reservation grows or shrinks; ARENA under it
 *   ARENA    extents and the block table
 *   SAMPLE_GONE  blocks freed while sampling: a leaf
 *   PERM     permanent allocations: a leaf */
#define HMPT_LOCK_LIST(X)                                                                          \
	X(SITES, 10, "the sites lock", "shim/sites.c")                                             \
	X(POOLS, 20, "the pools lock", "common/pool.c")                                            \
	X(JOB, 25, "the job segment's lock", "shim/job.c")                                         \
	X(MEMKIND, 30, "memkind's loading lock", "common/pool_memkind.c")                          \
	X(BACKEND_POOL, 32, "a backend pool's own lock", "common/pool_<backend>.c")                \
	X(OUTSIDE, 38, "the outside-blocks table lock", "common/backend.c")                        \
	X(SAMPLE, 40, "the sample lock", "shim/sample.c")                                          \
	X(ARENA_GROW, 45, "the arena's grow lock", "shim/arena.c")                                 \
	X(ARENA, 50, "the arena lock", "shim/arena.c")                                             \
	X(SAMPLE_GONE, 60, "sample's gone-blocks lock", "shim/sample.c")                           \
	X(PERM, 70, "the permanent-allocation lock", "common/sys.c")

#define HMPT_LOCK_ENUM_(name, rank, what, file) HMPT_LOCK_##name = rank,
enum { HMPT_LOCK_LIST(HMPT_LOCK_ENUM_) };
#undef HMPT_LOCK_ENUM_

/* Not a lock: the file backend's fork handlers run at this rank, after the
 * outside table's lock is taken (they copy its blocks). */
#define HMPT_LOCK_FILE_FORK 39

#ifdef HMPT_LOCK_RANKS

void hmpt_lock_take(pthread_mutex_t *m, int rank);
/* pthread_mutex_trylock's result; on 0 the lock is held at `rank` */
int hmpt_lock_try(pthread_mutex_t *m, int rank);
/* pthread_mutex_clocklock(CLOCK_MONOTONIC)'s result; held on 0 and
 * EOWNERDEAD */
int hmpt_lock_timed(pthread_mutex_t *m, int rank, const struct timespec *until);
void hmpt_lock_drop(pthread_mutex_t *m);
/* fork's child: the lock usable again (and no longer held) */
void hmpt_lock_reset(pthread_mutex_t *m);
/* what the lock of `rank` is and its file (the message); "an unranked
 * lock", "?" for none */
const char *hmpt_lock_name(int rank);
const char *hmpt_lock_file(int rank);

#else

static inline void hmpt_lock_take(pthread_mutex_t *m, int rank)
{
	(void)rank;
	pthread_mutex_lock(m);
}

static inline int hmpt_lock_try(pthread_mutex_t *m, int rank)
{
	(void)rank;
	return pthread_mutex_trylock(m);
}

static inline int hmpt_lock_timed(pthread_mutex_t *m, int rank, const struct timespec *until)
{
	(void)rank;
	return pthread_mutex_clocklock(m, CLOCK_MONOTONIC, until);
}

static inline void hmpt_lock_drop(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
}

static inline void hmpt_lock_reset(pthread_mutex_t *m)
{
	pthread_mutex_init(m, NULL);
}

#endif

#endif
