/* forktab.h — the fork handlers of every module that owns a lock, in one
 * ordered table.
 *
 * fork() must find every lock free in the child: prepare takes them all,
 * in the one order in which they may nest, parent releases them, child
 * re-initialises them.  Each module registers its handlers under its rank;
 * prepare handlers run in ascending rank, parent and child handlers in
 * descending rank.  lifecycle.c installs the table's runners with one
 * pthread_atfork() call.
 *
 * The order (the only order in which these locks may nest at run time):
 *   10 sites lock (sites.c: site table, module map, statistics; taken
 *      around dl_iterate_phdr)
 *   20 pools lock (pool.c: budgets, counts)
 *   30-39 the backends (common/backend.c's rows give their ranks):
 *      30 memkind's loading lock (pool_memkind.c; held across dlopen,
 *         nothing of hmpt's under it)
 *      38 the table of blocks outside the arena (common/backend.c: a
 *         leaf, taken alone)
 *      39 the file backend (pool_file.c): no lock, its prepare copies
 *         the live blocks that the child must not share (under 38)
 *   40 sample lock (sample.c: rings and per-site samples; taken under the
 *      sites lock by the profile writer, and it takes the arena lock to
 *      find a block)
 *   50 arena lock (arena.c: extents, block table)
 *   60 sample's gone-blocks lock (sample.c: a leaf, nothing is taken
 *      under it; taken alone or under the sample lock)
 *   70 the permanent-allocation lock (common/sys.c: a leaf, taken alone or
 *      under the sites lock)
 * Rank 0 is the process's own state (lifecycle.c): its child handler runs
 * last, when every lock is usable again.  Not in the table: job.c's lock,
 * process-shared and robust in a shared mapping.
 */
#ifndef HMPT_FORKTAB_H
#define HMPT_FORKTAB_H

enum {
	HMPT_FORK_PROCESS = 0,
	HMPT_FORK_SITES = 10,
	HMPT_FORK_POOLS = 20,
	HMPT_FORK_SAMPLE = 40,
	HMPT_FORK_ARENA = 50,
	HMPT_FORK_SAMPLE_GONE = 60,
	HMPT_FORK_PERM = 70,
};

typedef void (*hmpt_fork_fn)(void);

/* Register a module's handlers (any may be NULL) under its rank; one entry
 * per rank, before the first fork.  A fixed table: no malloc. */
void hmpt_fork_register(int rank, hmpt_fork_fn prepare, hmpt_fork_fn parent, hmpt_fork_fn child);

/* the runners, for pthread_atfork */
void hmpt_fork_prepare(void);
void hmpt_fork_parent(void);
void hmpt_fork_child(void);

#endif
