/* slurmjob.h — what a Slurm run is (slurm.h runs it): the options of
 * --slurm and one batch job, from what it runs to how it ended.
 *
 * Why a header of its own: the tuning's state (tuning.h) holds the options
 * and the run records (runrec.h) fill a job's outcome, while slurm.c reads
 * those records back; with the types here nothing includes in a circle.
 */
#ifndef HMPT_TUNER_SLURMJOB_H
#define HMPT_TUNER_SLURMJOB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
	bool on;
	const char *partition, *time_limit, *extra; /* --partition, --time, --sbatch-args */
	int nodes, parallel;                        /* per run; runs at a time */
	char self[PATH_MAX];                        /* this hmpt-tune, run on the nodes */
	char exclude[1024];                         /* nodes that failed a run: "a,b" */
} hmpt_slurm_t;

typedef struct hmpt_sjob {
	/* what to run */
	char *const *cmd;
	char *const *set; /* "NAME=value" for the command's environment */
	const char *lib;  /* preloaded into the command */
	char log[PATH_MAX], result[PATH_MAX + 16], script[PATH_MAX + 16];
	double timeout;
	const char *avoid; /* a node not to run on (a retry), or NULL */
	/* runs the same job runs first, in order, on the same node (a
	 * confirmation round: its warm-up, then its runs); this one last.
	 * Each has its own command, plan, log and result; only their
	 * outcome fields are filled (by hmpt_slurm_steps_read) */
	struct hmpt_sjob **before;
	int nbefore;
	/* while it runs */
	long job;
	double polled, gone;
	char nodes[256]; /* as squeue last showed them */
	/* the outcome */
	int status;
	double wall;
	char why[200], host[256];
} hmpt_sjob_t;

#endif
