/* search.h — which combinations of groups to measure, and which to choose.
 *
 * Contract: pure functions over measurements; no processes, no files, no
 * I/O.  A configuration is a mask of K groups (bit g: group g in the fast
 * pool); mask 0 is the all-slow reference of its phase.
 *
 * The model search (hmpt_search_next) fits the log speedup of every mask
 * from what was measured: a mean function in which the time each group
 * saves alone adds up and then saturates (one fitted parameter: the memory
 * bandwidth a program can use is bounded), plus a Gaussian process over the
 * residuals, so that interactions the mean function misses are learnt from
 * the masks measured near them.  It asks for the masks where a measurement
 * can still change a decision: one that may beat the best measured, or one
 * with a smaller fast footprint that may reach 90 % of it; and, before
 * those, the next step of a backward elimination from all-fast for the
 * 90 % plan (one group at a time, the least worth alone per byte first),
 * which sees the interactions the model misses.  It stops when no
 * such mask is left at the confidence asked for, or at max_configs; and
 * right after the first design (all-fast and every group alone) when none
 * of it is faster than all-slow and no two of it differ, measured again to
 * be sure (where the cap is below 2^K: with K <= 3 it measures them all).
 *
 * Where it would stop, it checks that its model fits (hmpt_search_misfit:
 * each configuration of several groups predicted from the others); where
 * it does not, it goes on by local search around the best so far
 * (hmpt_search_local), up to ext_configs.  The strategies (strategy.h)
 * and the loop that serves them measurements are in strategy.c.
 */
#ifndef HMPT_TUNER_SEARCH_H
#define HMPT_TUNER_SEARCH_H

#include <stdbool.h>

#include "stats.h"

#define HMPT_SEARCH_MAX_K 10

typedef struct {
	int k;                           /* groups, 1..HMPT_SEARCH_MAX_K */
	double bytes[HMPT_SEARCH_MAX_K]; /* each group's footprint */
	double confidence;               /* a mask stays a candidate while the chance
	                                    that it changes a decision is above
	                                    1 - confidence (e.g. 0.95) */
	int max_configs;                 /* masks with data, all-slow included; 0: 2K+4 */
	int max_rounds;                  /* a mask is measured again (another round of
	                                    runs) at most this many times, twice that
	                                    in the contest for the best; 0: 4 */
	int ext_configs;                 /* where the model misfits, the search goes on
	                                    up to this many masks; 0: 6K+4; below
	                                    max_configs: no extension */
	unsigned seed;                   /* the plain local search's order */
} hmpt_search_setup_t;

/* What is known of one mask: its log speedup over its phase's all-slow
 * reference (log(ref/time) for times), the variance of that estimate, and
 * the phase: 0 = the ranking phase (single sites alone, before grouping),
 * 1 = this search's own runs.  Only phase-1 masks can be chosen. */
typedef struct {
	unsigned mask;
	int phase;
	double y, var;
	int rounds;  /* rounds of runs it had (phase 1) */
	bool failed; /* a run failed: never chosen, never asked for again */
} hmpt_search_obs_t;

/* Why the search stopped (or that it has not). */
typedef enum {
	HMPT_SEARCH_GOING,   /* it asked for more */
	HMPT_SEARCH_NOTHING, /* the first design showed no gain: none is expected */
	HMPT_SEARCH_SETTLED, /* no unmeasured mask has a real chance of changing
	                        the best or the 90 % plan */
	HMPT_SEARCH_CAPPED,  /* max_configs reached with such masks left */
	HMPT_SEARCH_BUDGET,  /* the caller's budget of runs reached (strategy.c) */
	HMPT_SEARCH_ALL,     /* every configuration measured */
	HMPT_SEARCH_STALLED, /* no new runs could be taken (strategy.c) */
	HMPT_SEARCH_NSTOP
} hmpt_search_stop_t;

/* The masks to measure next (at most `max`, never 0) in out[]; returns how
 * many: 0 when the search is done.  With no phase-1 data it returns the
 * first design: all-fast and every single group not known from phase 0.
 * A mask measured in phase 1 before is asked for again (one more round of
 * runs) when the noise still hides which way a decision goes. */
int hmpt_search_next(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                     unsigned *out, int max, hmpt_search_stop_t *why);

/* The first design's masks that have no data yet (all-fast in phase 1, and
 * every group alone in either phase): how many, the first `max` in out[]. */
int hmpt_search_design(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                       unsigned *out, int max);

/* The model's log speedup of every mask (mean[m], sd[m], m < 2^K). */
void hmpt_search_predict(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                         double *mean, double *sd);

/* Whether the model misfits the data: every phase-1 mask of two groups or
 * more predicted by the mean function (saturating sums of the singles),
 * with the model's prior uncertainty of interactions (not the one it
 * learnt from these residuals), its own noise and its singles'; the
 * squares of the standardised errors summed, against a chi-square at 1 %.
 * *stat is their mean (about 1 where the model fits).  False with fewer
 * than two such masks. */
bool hmpt_search_misfit(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                        double *stat);

/* One step of a local search around the incumbent (the best measured in
 * phase 1, all-slow included): its unmeasured neighbours one group away,
 * and when all are measured, two groups away, then three (the perturbation
 * grows until one is left).  An incumbent of one round is measured again
 * first.  With mean[] (the model's) the incumbent is the best by it and the
 * neighbours go by mean + sd; without, by measured value and in an order
 * drawn from s->seed.  Returns 1 (the mask in out[0]) or 0: none left. */
int hmpt_search_local(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                      const double *mean, const double *sd, unsigned *out);

/* How far short the best measured may be: the largest of the model's
 * upper bounds (mean + 2 sd) of an unmeasured mask over the best measured,
 * as a speedup ratio (1: none can be faster). */
double hmpt_search_short_by(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs);

/* The model's cap of masks (max_configs or 2K+4), and the extension's
 * (ext_configs or 6K+4). */
int hmpt_search_cap(const hmpt_search_setup_t *s);
int hmpt_search_ext_cap(const hmpt_search_setup_t *s);
/* Whether a misfit extends the search: the extension's cap lies above the
 * model's and below all 2^K (where it does not, exhaustive search measures
 * them in fewer runs). */
bool hmpt_search_extends(const hmpt_search_setup_t *s);

/* Why, in words (NULL for HMPT_SEARCH_GOING). */
const char *hmpt_search_why(hmpt_search_stop_t why);

/* Masks with data (any phase), all-slow included. */
int hmpt_search_count(const hmpt_search_obs_t *obs, int nobs);

#endif
