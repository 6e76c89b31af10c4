/* slurm.h — hmpt-tune's runs as Slurm batch jobs, each on nodes of its own.
 *
 * Why batch jobs: a job with --exclusive owns its nodes, so no two
 * measurements share a node, and its batch script runs the command as a job
 * script would (mpirun finds the allocation, srun starts a step in it).  The
 * script runs `hmpt-tune run-on-node`, which times the command on the node and
 * writes the result file; hmpt-tune waits for that file (the output directory
 * must be on a file system the nodes share, as it is on clusters) and asks
 * squeue only to notice a job that ended without one.
 *
 * Contract: submit, then poll until it returns 1; cancel on an interruption.
 * Nothing here writes to the journal: the caller does, with the node.
 */
#ifndef HMPT_TUNER_SLURM_H
#define HMPT_TUNER_SLURM_H

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

typedef struct {
	/* what to run */
	char *const *cmd;
	char *const *set; /* "NAME=value" for the command's environment */
	const char *lib;  /* preloaded into the command */
	char log[PATH_MAX], result[PATH_MAX + 16], script[PATH_MAX + 16];
	double timeout;
	const char *avoid; /* a node not to run on (a retry), or NULL */
	/* while it runs */
	long job;
	double polled, gone;
	char nodes[256]; /* as squeue last showed them */
	/* the outcome */
	int status;
	double wall;
	char why[200], host[256];
} hmpt_sjob_t;

/* Write the script and sbatch it: 0, or -1 with why in j->why. */
int hmpt_slurm_submit(const hmpt_slurm_t *s, hmpt_sjob_t *j);
/* 1 when it ended (status, wall, why, host filled), 0 while it runs. */
int hmpt_slurm_poll(hmpt_sjob_t *j);
void hmpt_slurm_cancel(const hmpt_sjob_t *j);

/* `hmpt-tune run-on-node`: the command run in the batch job. */
int hmpt_cmd_run_on_node(int argc, char **argv);

#endif
