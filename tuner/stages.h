/* stages.h — the stages of a tuning, in order (tune.c runs them from a
 * table): profile the program, rank its sites into groups (or take
 * --group's), search the combinations of the groups, split a group, confirm
 * the choices, write the plans, report.
 *
 * Contract: each stage fills the hmpt_tune_t for the next, runs through
 * measure.h (so that its runs are journaled), and returns 0, or -1 after a
 * message (or when interrupted: hmpt_measure_interrupted()).
 */
#ifndef HMPT_TUNER_STAGES_H
#define HMPT_TUNER_STAGES_H

#include "measure.h"
#include "tuning.h"

/* A stage: 0, or -1 after a message (or when interrupted). */
typedef int hmpt_stage_fn(hmpt_tune_t *t, hmpt_measure_t *x);

/* stage_profile.c: the profile run (unless the journal has it) with
 * HMPT_SAMPLE=t->opt->sample, then t->profile, its sites (the largest first)
 * and, unless given, t->timeout_s. */
hmpt_stage_fn hmpt_stage_profile;
/* stage_rank.c: t->groups: t->opt->user[0..nuser-1] (--group: comma-separated
 * site ids or their 4+ digit prefixes), or the top K-1 sites by speedup
 * alone (the ranking phase); the sites of no group form the group
 * "rest". */
hmpt_stage_fn hmpt_stage_rank;
/* stage_rank.c: the sites the ranking times alone, cand[0..return-1] (at
 * most --candidates, the most accessed first where sampled, else the
 * largest), and *skipped: those passed over because their samples show
 * they cannot gain --min-gain alone (stage_rank.c says why: only where the
 * samples weigh CPU time). */
int hmpt_rank_candidates(const hmpt_tune_t *t, int *cand, int *skipped);
/* The share of the run under which a site cannot gain min_gain:
 * min_gain / (1 + min_gain). */
double hmpt_rank_skip_below(double min_gain);
/* stage_rank.c: hmpt_method_analyze(), then make sure the reference ran:
 * without it nothing can be compared. */
int hmpt_stage_analyze(hmpt_tune_t *t);
/* stage_rank.c: 0 when the reference (t->ref) has runs enough, else -1
 * after saying why. */
int hmpt_stage_check_reference(const hmpt_tune_t *t);
/* stage_search.c: the combination phase, against its own all-slow
 * reference (t->ref): the combinations of the groups in the fast pool that
 * the model search asks for (the others get a predicted speedup), or all of
 * them with t->opt->exhaustive; then the analysis (hmpt_stage_analyze). */
hmpt_stage_fn hmpt_stage_search;
/* stage_search.c: runs of the combination phase so far (--split's
 * included), and *configs the configurations with runs (all-slow aside). */
int hmpt_stage_search_runs(const hmpt_tune_t *t, int *configs);
/* stage_split.c: after the search, unless --no-split: with --capacity
 * plan-capacity's room filled; plan-90 with a share, smaller than the
 * whole-group one (splitplan.h: the groups by time saved alone per byte,
 * whole, and a share of the one that crosses 90 % of the fastest), its
 * share measured (SPLIT_STEPS configurations at most); then the analysis
 * again (split or not). */
hmpt_stage_fn hmpt_stage_split;
/* stage_confirm.c (confirm.h says how): after the search's analysis,
 * measure its choices again (nothing when t->opt->confirm_rounds is 0 or the
 * search chose nothing). */
hmpt_stage_fn hmpt_stage_confirm;
/* stage_plans.c: DIR/plan-best.json, plan-90.json, plan-capacity.json
 * (with --capacity) and plan-slow.json; a choice that found nothing places
 * nothing. */
hmpt_stage_fn hmpt_stage_plans;
/* stage_report.c: results.json, .csv, the figures, report.html, then the
 * summary on standard output (unless --quiet). */
hmpt_stage_fn hmpt_stage_report;

#endif
