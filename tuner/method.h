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
/* Sorts configs[0..n-1] (indices of analyzed configurations) by impact:
 * speedup, then fast bytes, the largest first. */
void hmpt_method_rank(const hmpt_tune_t *t, int *configs, int n);

#endif
