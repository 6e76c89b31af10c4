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
 * A job may run several runs one after another on its node (j->before, then
 * j): a confirmation round, whose runs are paired and so must share a node.
 *
 * Contract: submit, then poll until it returns 1; cancel on an interruption.
 * Nothing here writes to the journal: the caller does, with the node.
 */
#ifndef HMPT_TUNER_SLURM_H
#define HMPT_TUNER_SLURM_H

#include "slurmjob.h"

/* Write the script and sbatch it: 0, or -1 with why in j->why. */
int hmpt_slurm_submit(const hmpt_slurm_t *s, hmpt_sjob_t *j);
/* 1 when it ended (status, wall, why, host filled), 0 while it runs. */
int hmpt_slurm_poll(hmpt_sjob_t *j);
void hmpt_slurm_cancel(const hmpt_sjob_t *j);
/* Once j ended: the outcome of each of j->before, from its result file, or
 * (none: the job ended before it ran) j's status and why. */
void hmpt_slurm_steps_read(hmpt_sjob_t *j);

/* `hmpt-tune run-on-node`: the command run in the batch job. */
int hmpt_cmd_run_on_node(int argc, char **argv);

#endif
