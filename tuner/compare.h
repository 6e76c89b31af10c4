/* compare.h — hmpt-tune compare BASE.json PLAN.json -- COMMAND: the command
 * run under each plan in t->opt->reps rounds (10 by default), a run of each
 * per round, which goes first alternating; PLAN's speedup over BASE from
 * the rounds' paired ratios as the tuner's confirmation takes it
 * (hmpt_stats_paired: the Hodges-Lehmann estimate and Wilcoxon's
 * signed-rank interval, or the paired t interval with too few rounds for
 * its level).
 *
 * Contract: COMMAND's output goes to a temporary directory, removed
 * afterwards; the result goes to standard output.  Returns the exit status:
 * 0 when every run succeeded, 1 when one failed (its output is shown), 3
 * when a plan failed to load (here, or in COMMAND, as the shim's line in a
 * run's output says) or placed nothing (the shim's exit line: no site of it
 * matched an allocation), without timing the rest; 128+N on signal N.
 */
#ifndef HMPT_TUNER_COMPARE_H
#define HMPT_TUNER_COMPARE_H

#include "measure.h"
#include "tuning.h"

extern const char hmpt_compare_usage[];
/* plans[0] is BASE, plans[1] PLAN; t has the command and the options. */
int hmpt_compare_plans(const hmpt_tune_t *t, hmpt_measure_t *x, char **plans);

#endif
