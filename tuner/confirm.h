/* confirm.h — the confirmation phase (stage_confirm.c, its entry point in
 * stages.h): the plans the search chose, measured
 * again before anything is written.
 *
 * Why: the search reports the largest of many noisy estimates, measured on
 * the very runs that chose it, so its figure is biased upward; on a busy
 * node a burst of other load can pass for a speedup; and its few runs per
 * configuration miss real gains of 10 % under 5 % noise.  Here the
 * search's choices, made from its point estimates (significant or not),
 * run again in fresh rounds: plan-best's, the fastest beside it,
 * plan-90's and plan-capacity's configurations, and the search's runner-up
 * when it cannot tell it from the fastest; each round one run of
 * all-slow and one of each configuration still measured, in a shuffled
 * order.  A round's ratio of a configuration to the all-slow run beside it
 * cancels drift and slow changes of load, and the Hodges-Lehmann estimate
 * with Wilcoxon's interval (stats.h) is not moved by a burst in a few
 * rounds.  Where the runs' memory load (measure.c's probe) varied, the
 * paired ratios are regressed on it (loaddep.h): a speedup that depends
 * on it is taken at the quietest rounds' load (the plan is for the machine
 * without the co-tenant), and one that the quiet rounds put below
 * --min-gain is not faster.  Intervals are at alpha / HMPT_CONFIRM_MAX.  A configuration is
 * measured until its interval's half-width is within --precision, or its
 * estimate or interval lies below 1 + --min-gain, or --confirm rounds ran
 * (the phase at most twice that); one not confirmed faster is never chosen,
 * and the search's next choice for that plan is measured in its place while
 * fewer than HMPT_CONFIRM_MAX were tried.  plan-best's choice that is slower
 * than the configuration confirmed fastest, in the rounds both ran
 * (measurably, or by more than --min-gain), is not plan-best.  In the end
 * the choices (t->best, best90, fit, fastest) are made among the confirmed
 * only, by the confirmation's figures: the fastest confirmed; plan-best the
 * smallest footprint not slower than it in their common rounds; plan-90 the
 * smallest reaching 90 % of its speedup; plan-capacity the best by the same
 * rule within --capacity.  A plan with none places nothing.
 *
 * Contract: runs through measure.h (journaled, so a resumed tuning takes
 * the same steps on the same runs); 0, or -1 when interrupted or a plan
 * could not be written.
 */
#ifndef HMPT_TUNER_CONFIRM_H
#define HMPT_TUNER_CONFIRM_H

#include "measure.h"
#include "tuning.h"

/* The confirmation of combination i, or NULL when it was not tried. */
const hmpt_tconfirm_t *hmpt_confirm_of(const hmpt_tune_t *t, int i);
/* Half-width of an interval as a share of its centre: sqrt(hi / lo) - 1. */
double hmpt_confirm_half_width(const hmpt_speedup_t *sp);

#endif
