/* measure.h — running a tuning's configurations and recording their runs.
 *
 * A run is the command under a configuration's plan, its figure the
 * --metric in its output or its wall time; here one after another, or as
 * Slurm batch jobs (--slurm, up to --parallel at a time, a run that failed
 * retried once on another node).  Configurations are measured interleaved in
 * shuffled rounds, so that drift hits all alike, and the order is the same
 * on every resumption.
 *
 * Contract: every run that ends goes to its configuration's runs and to the
 * journal before the next starts.  A signal caught by hmpt_measure_trap()
 * kills the run in progress: the functions that run return -1, and
 * hmpt_measure_interrupted() says which signal.  Progress goes to standard
 * error when x->progress.
 */
#ifndef HMPT_TUNER_MEASURE_H
#define HMPT_TUNER_MEASURE_H

#include <limits.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "journal.h"
#include "slurm.h"
#include "tuning.h"

typedef struct {
	char lib[PATH_MAX];      /* the libhmpt.so preloaded */
	const char *min_size;    /* --min-size, or NULL */
	hmpt_slurm_t *slurm;     /* --slurm: where runs go; NULL: here */
	hmpt_journal_t *journal; /* where runs are recorded */
	regex_t metric;          /* --metric, once compiled */
	bool metric_set;
	int done, total; /* runs this session, for the progress line */
	double spent;
	bool progress, quiet;
	bool warm;    /* this phase's warm-up ran: batches that follow one another
	                 need no other (a phase sets it false) */
	int retaken;  /* runs taken again in this phase (hmpt_measure_configs
	                 sets it 0): at most a quarter of x->total, rounded up */
	double *hist; /* the load and steal shares of the runs so far, in run
	                 order (pairs), for the disturbance rule (noise.h) */
	int nhist;
	bool hist_read;    /* the journal's runs are in hist */
	bool ran;          /* a run ran here (last_slow says what it was) */
	bool no_mem_probe; /* --no-memory-probe: mem_load is not measured */
	bool last_slow;    /* the last run here, warm-up or not, placed nothing fast */
} hmpt_measure_t;

/* Compile --metric's POSIX extended regular expression: 0, or -1 with why. */
int hmpt_measure_metric(hmpt_measure_t *x, const char *regex, char *why, size_t cap);
/* The figure in a run's output: the last match's first group, or the first
 * number after the last match.  0, or -1 when there is none. */
int hmpt_measure_metric_read(const hmpt_measure_t *x, const char *log, double *value);
/* What x owns: the compiled --metric, the load history. */
void hmpt_measure_free(hmpt_measure_t *x);

/* Catch signal sig: kill the run in progress and stop. */
void hmpt_measure_trap(int sig);
/* The signal caught, or 0. */
int hmpt_measure_interrupted(void);

/* "run 3/40 (LABEL, run REP+1), about 1m20s left" on standard error. */
void hmpt_measure_progress(hmpt_measure_t *x, const char *label, int rep);
/* Run cmd once under plan_path, its output to log: the figure (with metric:
 * the --metric, else the wall time), or how it failed. */
hmpt_trun_t hmpt_measure_run(hmpt_measure_t *x, char *const *cmd, const char *plan_path,
                             const char *log, double timeout, bool metric);
/* Run cmd once as a Slurm batch job with `set` ("NAME=value", at most 4,
 * NULL-terminated) in its environment: its outcome in *job; 0, or -1 when
 * interrupted. */
int hmpt_measure_slurm_job(hmpt_measure_t *x, char *const *cmd, char *const *set, const char *log,
                           double timeout, hmpt_sjob_t *job);
/* Shuffles items[0..n-1] (each `size` bytes) by a xorshift generator
 * started at `seed`: the same seed, the same order, on every resumption. */
void hmpt_measure_shuffle(void *items, int n, size_t size, uint64_t seed);
/* c has a run recorded as repetition rep. */
bool hmpt_measure_has_rep(const hmpt_tconfig_t *c, int rep);
/* Run configuration ci once as repetition rep, and record it (its runs and
 * the journal): 0, or -1 when interrupted or its plan cannot be written.
 * Under --slurm the run is one batch job, waited for.  A run that other load
 * disturbed (noise.h's rule) is recorded as superseded ("retaken") and taken
 * again, at most t->opt->retakes times, while this phase's retakes stay within a
 * quarter of x->total (a phase that schedules its own runs sets x->total and
 * x->retaken = 0); past that it is kept and marked "disturbed". */
int hmpt_measure_config_run(hmpt_tune_t *t, hmpt_measure_t *x, int ci, int rep);
/* Unless this phase's warm-up ran (x->warm), run configuration ci once
 * here, not counted (its output in DIR/runs/warm-up.log): the first run
 * after a pause meets cold caches and files.  0, or -1 when its plan cannot
 * be written. */
int hmpt_measure_warm_up(hmpt_tune_t *t, hmpt_measure_t *x, int ci);
/* One paired round of the confirmation: repetition r of configurations
 * items[0..n-1] in that order (those not recorded yet), after the phase's
 * warm-up (t->confirm_ref).  Under --slurm the round is one batch job: a
 * warm-up run of t->confirm_ref, not counted, then its runs in order, all
 * on one node, so that the node cancels in each pair.  0, or -1. */
int hmpt_measure_round(hmpt_tune_t *t, hmpt_measure_t *x, const int *items, int n, int r);
/* Rounds r0..r0+nrounds-1, round j's runs items[j][0..n[j]-1]: here one
 * after another (hmpt_measure_round); under --slurm each round its job, up
 * to --parallel at once on different nodes, each recorded as its job ends.
 * 0, or -1. */
#define HMPT_MEASURE_AT_ONCE 64 /* rounds hmpt_measure_rounds takes at most */
int hmpt_measure_rounds(hmpt_tune_t *t, hmpt_measure_t *x, const int (*items)[HMPT_CONFIRM_MAX + 1],
                        const int *n, int r0, int nrounds);
/* Runs of the reference per round when k configurations are compared. */
int hmpt_measure_ref_share(int k);
/* Measure configurations list[0..n-1] (list[0] the reference of the others)
 * t->opt->reps times each, the reference its share of times per round; runs
 * already recorded are skipped.  It may be called again in a phase with
 * other configurations against the same reference: the reference's share
 * never shrinks, so that its runs so far still count.  0, or -1. */
int hmpt_measure_configs(hmpt_tune_t *t, hmpt_measure_t *x, const int *list, int n);

#endif
