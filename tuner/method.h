/* method.h — the tuner's analysis: what the runs of a tuning say.
 *
 * Contract: pure functions over the measurements in a hmpt_tune_t (no
 * processes, no files, no output).  Only runs that succeeded and whose rep is
 * within --reps (times the reference's share) count; a configuration with a
 * failed run is never chosen.
 */
#ifndef HMPT_TUNER_METHOD_H
#define HMPT_TUNER_METHOD_H

#include "tuning.h"

/* Fills every configuration's summary, speedup over its reference (with a
 * Bonferroni-corrected interval: alpha_used = alpha over the configurations
 * compared) and linear estimate, each group's speedup alone, and the choices
 * best, best90 and fit (-1: none). */
void hmpt_method_analyze(hmpt_tune_t *t);
/* The ranking phase's configuration of group g alone (its sites exactly,
 * measured), or -1. */
int hmpt_method_single(const hmpt_tune_t *t, int g);
/* Sorts configs[0..n-1] (indices of analyzed configurations) by impact:
 * speedup, then fast bytes, the largest first. */
void hmpt_method_rank(const hmpt_tune_t *t, int *configs, int n);

/* One measured configuration as the choice rules see it. */
typedef struct {
	hmpt_summary_t sum; /* its runs */
	hmpt_speedup_t sp;  /* over its reference, as analysed */
	double bytes;       /* fast footprint */
	bool eligible;      /* measured cleanly in the phase chosen from */
	bool not_best;      /* known slower than the fastest: not plan-best */
} hmpt_choice_in_t;

typedef struct {
	int fastest; /* highest point estimate among the measurably faster */
	int best;    /* the smallest footprint not measurably slower than fastest */
	int best90;  /* the smallest footprint reaching 90 % of best */
	int fit;     /* the best by the same rule within capacity */
} hmpt_choice_t;

/* The choices among c[0..n-1] (-1: none), for the model search and the
 * exhaustive one alike.  The best is the smallest footprint not measurably
 * slower than the fastest (a user pays for every GiB of the fast pool):
 * its speedup over the fastest, from `pool` alone at `alpha` (the
 * tuner's uncorrected one), is not "slower";
 * the 90 % plan the smallest reaching 90 % of the fastest's speedup; the
 * capacity plan the best by the same rule among those within capacity. */
void hmpt_method_choose(const hmpt_choice_in_t *c, int n, const hmpt_pooled_t *pool, double alpha,
                        double min_gain, bool higher_is_better, double capacity,
                        hmpt_choice_t *out);

#endif
