/* job.h — the process's place in an MPI job, and what the ranks of a job on
 * one node share.
 *
 * Contract: the rank comes from the launcher's environment (Open MPI, MPICH's
 * Hydra, PMIx, Slurm's srun, MVAPICH, Cray PALS), read once at set-up.
 * Launchers themselves (mpirun, srun, ...) are recognised by name so that a
 * shim preloaded into the launcher stays out of its way.  The ranks of one job
 * on one node attach to one shared segment (/dev/shm/hmpt.<uid>.<hash of the
 * job's key>): it holds the fast-pool budgets and node accounts that the pools
 * charge (pool.c, so that the budget is the node's, not each rank's), the
 * messages already said (each is said once per node), and the job's totals,
 * which the last rank to leave prints as one summary line.  Its path is
 * predictable, so it trusts no one: the first rank makes it (O_EXCL, 0600);
 * a later rank uses it only if it is this user's regular file, mode 0600,
 * one link, set up and of this version, and waits for it (set-up, lock) a
 * few seconds at most.  Its maker holds its flock while it sets it up: a
 * file left unfinished is removed only once its maker is gone.  No malloc,
 * no stdio; a segment that cannot be had leaves each rank on its own, said
 * once with the path and why; a rank that gave up on the lock later charges
 * accounts of its own from then on (a copy of the node's), never the
 * segment's.
 */
#ifndef HMPT_JOB_H
#define HMPT_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "pool.h"

typedef struct {
	int rank, size;             /* -1: not a rank of an MPI job */
	int local_rank, local_size; /* on this node; -1: not known */
	int threads;                /* OMP_NUM_THREADS (the outer team); -1: not set */
	const char *rank_var;       /* where the rank came from */
	char key[160];              /* the job on this node, as its launcher names it */
	bool all_say;               /* HMPT_RANKS=all: every rank says its own */
} hmpt_job_t;

extern hmpt_job_t hmpt_job_g;

/* Fill `job` from an environment (NULL-terminated "NAME=value" array). */
void hmpt_job_detect(char *const *env, hmpt_job_t *job);
/* True for the programs that start ranks rather than being one. */
bool hmpt_job_is_launcher(const char *exe_base);

/* Detect, and attach to the node's segment when this process is a rank.
 * `ranks` is HMPT_RANKS ("one", "all" or NULL); a bad value is said once. */
void hmpt_job_init(char *const *env, const char *ranks);
/* After the pools are resolved: share their budgets with the job's other
 * ranks on this node (the first rank's view of the node is everyone's). */
void hmpt_job_share_pools(hmpt_pools_t *pools, const hmpt_plan_t *plan, uint64_t plan_hash);
/* Who says the line about a plan's sites that matched nothing (stale.h). */
typedef enum {
	HMPT_JOB_SAY_OWN,  /* not shared with other ranks: this process says its own */
	HMPT_JOB_SAY_NODE, /* the last rank of the node with the plan: the node's */
	HMPT_JOB_SAY_NONE, /* another rank says it */
} hmpt_job_say_t;
/* After the plan is in force: share what its sites match with the job's
 * other ranks on this node that read a plan of the same sites (sites_hash),
 * unless it has more sites than the segment holds or HMPT_RANKS=all. */
void hmpt_job_plan_join(uint64_t sites_hash, uint32_t nsites);
/* At exit, before hmpt_job_leave(): add this rank's flags per plan site
 * (matched, relevant: n bytes each) and whether it decided any site.  With
 * HMPT_JOB_SAY_NODE they come back as the node's (this rank was the last
 * holding the plan to leave). */
hmpt_job_say_t hmpt_job_plan_leave(uint8_t *matched, uint8_t *relevant, uint32_t n, bool *decided);
/* At exit (once): add this rank's pool totals; the last rank out prints the
 * job's summary line (always when a pool refused, else at HMPT_VERBOSE=1). */
void hmpt_job_leave(void);
/* The log filter (log.h): false when another rank on the node said it. */
bool hmpt_job_log_filter(int level, const char *msg, unsigned len);

#endif
