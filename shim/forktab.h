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
 * The ranks are the locks' own (common/lockrank.h, the only order in
 * which they may nest at run time): each module registers under the rank
 * of the first lock its prepare takes; backends under their row's
 * fork_rank (common/backend.c).  Not taken by fork: job.c's lock
 * (process-shared and robust in a shared mapping) and a file pool's range
 * lock (a child never allocates from its parent's file).  The file
 * backend's handlers take no lock: at HMPT_LOCK_FILE_FORK they copy its
 * live blocks under the outside table's lock.
 * Rank 0 is the process's own state (lifecycle.c): its child handler runs
 * last, when every lock is usable again.
 */
#ifndef HMPT_FORKTAB_H
#define HMPT_FORKTAB_H

#include "lockrank.h"

enum {
	HMPT_FORK_PROCESS = 0,
	HMPT_FORK_SITES = HMPT_LOCK_SITES,
	HMPT_FORK_POOLS = HMPT_LOCK_POOLS,
	HMPT_FORK_OUTSIDE = HMPT_LOCK_OUTSIDE,
	HMPT_FORK_SAMPLE = HMPT_LOCK_SAMPLE,
	HMPT_FORK_ARENA = HMPT_LOCK_ARENA_GROW, /* then HMPT_LOCK_ARENA */
	HMPT_FORK_SAMPLE_GONE = HMPT_LOCK_SAMPLE_GONE,
	HMPT_FORK_PERM = HMPT_LOCK_PERM,
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
