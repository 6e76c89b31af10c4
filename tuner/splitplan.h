/* splitplan.h — the smallest plan that reaches a line (90 % of the fastest)
 * with one group split: whole groups taken by saving per byte, and a share
 * of the group that crosses the line.
 *
 * Contract: pure functions over speedups (no processes, no files, no I/O).
 * A plan is a mask of K groups in the fast pool (bit g: group g) and at
 * most one more group with a share of its bytes.  What the search measured
 * or predicted of each mask gives the candidates and their first share;
 * the share is then found by measured runs (hmpt_splitplan_run asks for
 * them through a callback), never from the estimates alone.
 */
#ifndef HMPT_TUNER_SPLITPLAN_H
#define HMPT_TUNER_SPLITPLAN_H

#include "search.h"

typedef struct {
	int k;                           /* groups, 1..HMPT_SEARCH_MAX_K */
	double bytes[HMPT_SEARCH_MAX_K]; /* each group's footprint */
	int grains[HMPT_SEARCH_MAX_K];   /* the steps its share is placed in
	                                    (granules of its average block): a
	                                    share is a whole number of them */
	unsigned splits;                 /* groups that may be split */
	const double *speedup;           /* [1 << k]: each mask's speedup over
	                                    all-slow, measured or predicted;
	                                    <= 0: unknown */
	double line;                     /* the speedup a plan must reach */
	unsigned plan90;                 /* the whole-group plan reaching it
	                                    (0: none): its groups less one are
	                                    bases too */
} hmpt_splitplan_in_t;

/* A plan with a share: base's groups whole, `group` (-1: none) at `share`. */
typedef struct {
	unsigned base;
	int group;
	double share;
	double bytes; /* its fast footprint */
} hmpt_splitplan_t;

/* The groups by the time each saves alone per byte (by in->speedup), the
 * most first, until their plan reaches in->line.  Returns how many are in
 * order[] (the last one crosses the line; all with a known speedup alone
 * when none does). */
int hmpt_splitplan_order(const hmpt_splitplan_in_t *in, int *order);

/* The plan with a share: the prefix of that order short of the line
 * whole, and the group that crosses it at the share where the time, linear
 * in the share between the base and the whole, meets the line.  Where that
 * group cannot be split, the smallest such plan with another group beside
 * the same base, else with in->plan90 less one of its groups.  Smaller
 * than in->plan90 (when given).  0, or -1 when there is none. */
int hmpt_splitplan_choose(const hmpt_splitplan_in_t *in, hmpt_splitplan_t *out);

/* The share that a plan's time, linear in the share from t0 (share 0) to
 * t1 (share 1), has at time `at`; times as 1/speedup. */
double hmpt_splitplan_share_at(double t0, double t1, double at);

/* Measure plan p (its share in p->share): 1 it reaches the line, 0 it
 * does not (or failed), -1 stop (no room left, interrupted, an error);
 * *speedup its measured speedup (0 when failed). */
typedef int (*hmpt_splitplan_measure_fn)(void *ctx, const hmpt_splitplan_t *p, double *speedup);

/* The smallest measured share of hmpt_splitplan_choose()'s plan that
 * reaches the line, in `steps` measurements at most: the first share aims
 * at the line less `margin` (relative time, for the noise of a
 * measurement; halved at each step), then the share is bracketed between
 * measured plans and interpolated, bisected when an interpolation leaves
 * the bracket; shares are whole grains, rounded up.  *best: the smallest share measured to reach
 * (share 1 and group -1 when none did).  Returns the measurements taken, or -1 when the callback
 * said stop before any. */
int hmpt_splitplan_run(const hmpt_splitplan_in_t *in, int steps, double margin,
                       hmpt_splitplan_measure_fn measure, void *ctx, hmpt_splitplan_t *best);

#endif
