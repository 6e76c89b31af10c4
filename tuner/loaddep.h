/* loaddep.h — whether a paired speedup depends on the other load on memory,
 * and what it is without that load.
 *
 * Why: a co-tenant that uses memory bandwidth slows a program more when its
 * data sit in the slow pool than in the fast one (and 2 MiB pages help more
 * under load).  Rounds under such load then show a speedup that quiet
 * rounds do not, and a paired interval over all rounds calls "faster" what
 * is faster only while the co-tenant runs.
 *
 * Model: round i's log speedup d_i (the configuration's over all-slow, as
 * stage_confirm.c pairs them) against the memory load of its two runs,
 * la (the configuration's) and lb (all-slow's):
 *     d_i = b0 + b1 m_i + b2 g_i + e_i,
 *     m_i = (la + lb) / 2 - min_j m_j   (the round's load over the quietest),
 *     g_i = lb - la                    (the load within the pair).
 * b1 is the dependence on load (the interaction of load and placement); b2
 * the load's own effect on a pair whose two runs saw different load (left
 * out when g does not vary); b0 the speedup at the quietest round's load,
 * no other load difference within the pair: the estimate a plan is based on
 * when b1 is significant, since the quiet machine is the one a plan is
 * written for and the quietest round's load was observed (no extrapolation
 * below it).  Ordinary least squares, t intervals.
 *
 * Contract: pure functions, no I/O.
 */
#ifndef HMPT_TUNER_LOADDEP_H
#define HMPT_TUNER_LOADDEP_H

#include <stdbool.h>

#include "stats.h"

typedef struct {
	int n;             /* pairs */
	bool fitted;       /* the fit stands: enough pairs, and their load varied */
	bool with_diff;    /* g entered the fit */
	double slope, se;  /* b1 (log speedup per unit of load) and its standard error */
	double t;          /* b1 / se */
	bool depends;      /* |t| beyond Student's t at 1 - alpha_slope / 2 */
	double quiet_load; /* the quietest and the most loaded round's mean load */
	double busy_load;
	double quiet, busy;      /* the fitted speedup there (g = 0) */
	hmpt_speedup_t at_quiet; /* b0 with its interval at 1 - alpha */
} hmpt_loaddep_t;

/* Pairs the fit needs: two residual degrees of freedom at least. */
#define HMPT_LOADDEP_MIN_PAIRS 5
/* The slope test's level (two-sided) */
#define HMPT_LOADDEP_ALPHA 0.05
/* The least spread of the rounds' load, relative to the quiet level, that
 * the fit is made on: the 90th percentile of the rounds' mean load (the
 * second highest at least) exceeds the 10th by this share of it.  The probe's own noise on a quiet
 * machine stays below (its quartiles +-4 %); a memory-bandwidth co-tenant on the other core moved
 * it by 13 to 33 %.  Below, any slope would be the figure's noise, and a fit on it would make the
 * outcome of seeded tunings depend on this machine. */
#define HMPT_LOADDEP_MIN_SPREAD 0.1

/* Fits the model on d[0..n-1], la[0..n-1], lb[0..n-1]: 0, or -1 when it
 * does not stand (fewer than HMPT_LOADDEP_MIN_PAIRS pairs, the rounds' load
 * does not vary by HMPT_LOADDEP_MIN_SPREAD, or a value is not finite;
 * then out->fitted is false).  The
 * slope's test is two-sided at alpha_slope; at_quiet's interval at
 * 1 - alpha, with faster and slower as hmpt_stats_paired() sets them. */
int hmpt_loaddep_fit(const double *d, const double *la, const double *lb, int n, double alpha_slope,
                     double alpha, double min_gain, hmpt_loaddep_t *out);

/* The rule the confirmation applies to a paired speedup *sp over all
 * rounds, given the fit f: where the speedup depends on the load, *sp
 * becomes f's at the quietest load; where it does not but f's speedup at
 * the quietest load is below 1 + min_gain, *sp is not faster (a slope too
 * weak to test still biases the all-rounds figure up).  true when it
 * changed *sp.  Nothing when f did not stand. */
bool hmpt_loaddep_apply(const hmpt_loaddep_t *f, double min_gain, hmpt_speedup_t *sp);

#endif
