/* phases.h — the steps of a tuning, in order: profile the program, group its
 * sites (by ranking each alone in the fast pool, or as --group says),
 * measure combinations of the groups, analyze, write the plans.
 *
 * Contract: each step fills the hmpt_tune_t for the next, runs through
 * measure.h (so that its runs are journaled), and returns 0, or -1 after a
 * message (or when interrupted: hmpt_measure_interrupted()).
 */
#ifndef HMPT_TUNER_PHASES_H
#define HMPT_TUNER_PHASES_H

#include "measure.h"
#include "tuning.h"

/* The profile run (unless the journal has it) with HMPT_SAMPLE=sample, then
 * t->profile, its sites (the largest first) and, unless given, t->timeout. */
int hmpt_phases_profile(hmpt_tune_t *t, hmpt_measure_t *x, const char *sample);
/* t->groups: user[0..nuser-1] (--group: comma-separated site ids or their 4+
 * digit prefixes), or the top K-1 sites by speedup alone (the ranking
 * phase); the sites of no group form the group "rest". */
int hmpt_phases_group(hmpt_tune_t *t, hmpt_measure_t *x, char *const *user, int nuser);
/* The combination phase, against its own all-slow reference (t->ref): the
 * combinations of the groups in the fast pool that the model search asks
 * for (the others get a predicted speedup), or all of them with
 * t->exhaustive. */
int hmpt_phases_combos(hmpt_tune_t *t, hmpt_measure_t *x);
/* hmpt_method_analyze(), then make sure the reference ran: without it
 * nothing can be compared. */
int hmpt_phases_analyze(hmpt_tune_t *t);
/* After the search, unless --no-split: the smallest share of plan-90's
 * largest group that still reaches 90 % of the fastest, by halving
 * (REFINE_STEPS measured configurations at most).  0, or -1 (interrupted
 * or failed). */
int hmpt_phases_refine(hmpt_tune_t *t, hmpt_measure_t *x);
/* DIR/plan-best.json, plan-90.json, plan-capacity.json (with --capacity) and
 * plan-slow.json; a choice that found nothing places nothing. */
int hmpt_phases_write_plans(hmpt_tune_t *t);

#endif
