/* stage_confirm.c — the confirm stage: the search's choices measured again
 * against all-slow in fresh paired rounds. */
#include "confirm.h"
#include "stages.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "method.h"

double hmpt_confirm_half_width(const hmpt_speedup_t *sp)
{
	return sp->lo > 0 && isfinite(sp->hi) ? sqrt(sp->hi / sp->lo) - 1 : INFINITY;
}

const hmpt_tconfirm_t *hmpt_confirm_of(const hmpt_tune_t *t, int i)
{
	for (int k = 0; k < t->ntried && i >= 0; k++)
		if (t->tried[k].of == i)
			return &t->tried[k];
	return NULL;
}

/* Try combination i for `plan` from round r on, unless it is tried already
 * or no more may be. */
static void try_config(hmpt_tune_t *t, hmpt_measure_t *x, int i, const char *plan, int r)
{
	/* the phase's budget: twice --confirm rounds, and a newcomer needs
	 * the rounds of an exact interval */
	int min_pairs = hmpt_stats_paired_min(t->confirm_alpha);
	if (i < 0 || hmpt_confirm_of(t, i) || t->ntried == HMPT_CONFIRM_MAX ||
	    r + min_pairs > 2 * t->confirm_rounds_max)
		return;
	char label[128];
	snprintf(label, sizeof(label), "%.100s (confirmation)", t->configs[i].label);
	/* configs may move: copy what is needed first */
	int ci = hmpt_config_get_split(t, x->journal, t->configs[i].fast, label, HMPT_PHASE_CONFIRM,
	                               t->configs[i].split_group, t->configs[i].split_ppm);
	t->configs[ci].ref = t->confirm_ref;
	t->configs[ci].want = -1; /* set round by round */
	t->tried[t->ntried++] = (hmpt_tconfirm_t){
	    .config = ci, .of = i, .for_plan = plan, .first_round = r, .behind = -1};
}

/* A run that counts (not superseded by its retake) and gave a figure a
 * ratio can use. */
static bool clean_run(const hmpt_trun_t *r)
{
	return hmpt_tune_run_counts(r) && !r->status && r->value > 0;
}

/* The log ratios of rounds in which both a and b (configurations) ran
 * cleanly, a's speedup over b: their number.  With la and lb, also the
 * memory load of a's and b's run of each, and *loaded whether every one
 * of them had it. */
static int paired_loads(const hmpt_tune_t *t, const hmpt_tconfig_t *a, const hmpt_tconfig_t *b,
                        int rounds, double *d, double *la, double *lb, bool *loaded, double *z)
{
	int n = 0;
	if (loaded)
		*loaded = true;
	for (int i = 0; i < a->nruns; i++) {
		const hmpt_trun_t *ar = &a->runs[i];
		if (ar->rep >= rounds || !clean_run(ar))
			continue;
		for (int j = 0; j < b->nruns; j++) {
			const hmpt_trun_t *br = &b->runs[j];
			if (br->rep != ar->rep || !clean_run(br))
				continue;
			if (la) {
				la[n] = ar->mem_load;
				lb[n] = br->mem_load;
				*loaded = *loaded && ar->has_mem_load && br->has_mem_load;
			}
			/* z: how much more b ran right after all-slow than a (the
			 * carry-over's regressor, signed as d); NAN unknown */
			double zi =
			    ar->has_prev && br->has_prev
			        ? (t->opt->maximize ? 1 : -1) * (ar->prev_slow - br->prev_slow)
			        : NAN;
			d[n] = t->opt->maximize ? log(ar->value / br->value)
			                        : log(br->value / ar->value);
			if (z)
				z[n] = zi;
			else if (t->carry_removed && !isnan(zi))
				d[n] -= t->carry.shift * zi;
			n++;
			break;
		}
	}
	return n;
}

static int paired(const hmpt_tune_t *t, const hmpt_tconfig_t *a, const hmpt_tconfig_t *b,
                  int rounds, double *d)
{
	return paired_loads(t, a, b, rounds, d, NULL, NULL, NULL, NULL);
}

/* The carry-over of the rounds so far: the pairs of every tried entry,
 * regressed on whether each run's run before was all-slow (a warm-up too),
 * a level per entry (stats.h's shift).  Significant at 1 % (two-sided), it
 * is taken out of every pair from then on (paired()): at 5 % the
 * adjustments made by chance cost the position structure 0.3 points
 * (test_confirm).  Why a pooled fit: the effect is the machine's (page
 * cache, free huge pages, the clock), the same whatever ran after
 * all-slow; a random, balanced order (order.h) makes the regressor vary
 * and keeps it apart from the entries' levels. */
static void estimate_carry(hmpt_tune_t *t, int rounds)
{
	int cap = (t->ntried > 0 ? t->ntried : 1) * (rounds > 0 ? rounds : 1), n = 0, m;
	double *d = malloc(3 * (size_t)cap * sizeof(double));
	int *group = malloc((size_t)cap * sizeof(int));
	t->carry_removed = false;
	t->carry = (hmpt_shift_t){0};
	if (!d || !group)
		goto out;
	double *z = d + cap, *dk = z + cap;
	for (int k = 0; k < t->ntried; k++) {
		double zk[rounds > 0 ? rounds : 1];
		m = paired_loads(t, &t->configs[t->tried[k].config], &t->configs[t->confirm_ref],
		                 rounds, dk, NULL, NULL, NULL, zk);
		for (int i = 0; i < m; i++)
			if (!isnan(zk[i])) {
				d[n] = dk[i];
				z[n] = zk[i];
				group[n++] = k;
			}
	}
	hmpt_stats_shift(d, z, group, n, &t->carry);
	t->carry_removed =
	    t->carry.known &&
	    fabs(t->carry.shift) > hmpt_stats_t_quantile(0.995, t->carry.df) * t->carry.se;
out:
	free(d);
	free(group);
}

/* Whether entry k's speedup depends on the other load on memory, and what
 * it is without it (loaddep.h's rule): a plan is for the machine without
 * the co-tenant, and the rounds under it would otherwise pass their gain
 * for one. */
static void judge_load(hmpt_tune_t *t, hmpt_tconfirm_t *k, int rounds)
{
	const hmpt_tconfig_t *ref = &t->configs[t->confirm_ref], *c = &t->configs[k->config];
	double d[rounds > 0 ? rounds : 1], la[rounds > 0 ? rounds : 1], lb[rounds > 0 ? rounds : 1];
	bool loaded;
	int n = paired_loads(t, c, ref, rounds, d, la, lb, &loaded, NULL);

	k->sp_all = k->sp;
	k->quiet_below = false;
	if (!loaded || hmpt_loaddep_fit(d, la, lb, n, HMPT_LOADDEP_ALPHA, t->confirm_alpha,
	                                t->opt->min_gain, &k->load) != 0)
		return;
	k->quiet_below = hmpt_loaddep_apply(&k->load, t->opt->min_gain, &k->sp) && !k->load.depends;
}

/* The pairs of tried entry k so far, and what they say. */
static void analyze_tried(hmpt_tune_t *t, hmpt_tconfirm_t *k, int rounds, int min_pairs)
{
	const hmpt_tconfig_t *ref = &t->configs[t->confirm_ref], *c = &t->configs[k->config];
	double d[rounds > 0 ? rounds : 1];
	int failed = 0;

	for (int a = 0; a < c->nruns; a++)
		failed += c->runs[a].rep < rounds && hmpt_tune_run_counts(&c->runs[a]) &&
		          c->runs[a].status;
	int n = paired(t, c, ref, rounds, d);
	k->pairs = n;
	hmpt_stats_paired(d, n, t->confirm_alpha, t->opt->min_gain, &k->sp, &k->exact);
	judge_load(t, k, rounds);
	t->configs[k->config].sp = k->sp; /* its figure in results.json and .csv */
	if (failed) {
		k->settled = true;
		snprintf(k->why, sizeof(k->why), "a run of it failed");
	} else {
		/* its rounds, or the phase's, are used up */
		bool spent = rounds - k->first_round >= t->confirm_rounds_max ||
		             rounds >= 2 * t->confirm_rounds_max;
		bool precise = hmpt_confirm_half_width(&k->sp) <= t->opt->precision;
		/* it cannot be confirmed (its interval lies below the gain
		 * sought), or will hardly be: its estimate is below it */
		bool hopeless =
		    k->sp.hi < 1 + t->opt->min_gain || k->sp.speedup < 1 + t->opt->min_gain;
		k->settled = spent || (n >= min_pairs && (precise || hopeless));
	}
	k->confirmed = k->settled && !failed && k->exact && k->sp.faster;
	if (k->settled && !k->confirmed && !failed)
		snprintf(k->why, sizeof(k->why), "%s",
		         !k->exact                              ? "too few rounds for an interval"
		         : k->sp.speedup < 1 + t->opt->min_gain ? "not faster"
		                                                : "not measurably faster");
	t->configs[k->of].confirmed = k->settled ? (k->confirmed ? 1 : -1) : 0;
}

/* The next round's runs: all-slow's and those of the tried entries not
 * settled, in the tuning's balanced order (order.h), the same on every
 * resumption.  Their number. */
static int round_items(hmpt_tune_t *t, int *items)
{
	int n = 0;
	items[n++] = t->confirm_ref;
	for (int k = 0; k < t->ntried; k++)
		if (!t->tried[k].settled)
			items[n++] = t->tried[k].config;
	if (hmpt_order_round(&t->order, items, n) != 0)
		hmpt_measure_shuffle(items, n, sizeof(items[0]), t->seed + (uint64_t)n);
	return n;
}

/* The confirmed entry fresh runs found fastest (among those within
 * --capacity when `fits`), or NULL. */
static hmpt_tconfirm_t *confirmed_fastest(hmpt_tune_t *t, bool fits)
{
	hmpt_tconfirm_t *top = NULL;
	for (int k = 0; k < t->ntried; k++) {
		hmpt_tconfirm_t *e = &t->tried[k];
		if (e->confirmed && (!fits || t->configs[e->of].fast_bytes <= t->opt->capacity) &&
		    (!top || e->sp.speedup > top->sp.speedup))
			top = e;
	}
	return top;
}

/* e's speedup over f in the rounds both ran, at the uncorrected confidence,
 * into *vs and *pairs: false when they are too few for an exact interval. */
static bool paired_vs(const hmpt_tune_t *t, const hmpt_tconfirm_t *e, const hmpt_tconfirm_t *f,
                      int rounds, hmpt_speedup_t *vs, int *pairs)
{
	double d[rounds > 0 ? rounds : 1];
	bool exact;
	*pairs = paired(t, &t->configs[e->config], &t->configs[f->config], rounds, d);
	if (*pairs < hmpt_stats_paired_min(t->opt->alpha))
		return false;
	hmpt_stats_paired(d, *pairs, t->opt->alpha, t->opt->min_gain, vs, &exact);
	return true;
}

/* The search's rule for "slower than the fastest", on fresh runs:
 * measurably, or by its estimate by more than --min-gain. */
static bool is_slower(const hmpt_tune_t *t, const hmpt_speedup_t *vs)
{
	return vs->slower || vs->speedup < 1 - t->opt->min_gain;
}

/* plan-best's choice against the fastest, once both are confirmed: in the
 * rounds where both ran, is it measurably slower, or slower by its point
 * estimate by more than --min-gain (the search's rule, on fresh runs)?
 * Then it is not plan-best (true).  The search's own comparison was made on
 * the runs that chose the fastest, and its noise lets a configuration 6 %
 * slower pass as "within the noise" of it. */
static bool judge_best(hmpt_tune_t *t, int rounds)
{
	hmpt_tconfirm_t *b = (hmpt_tconfirm_t *)hmpt_confirm_of(t, t->best);
	/* the fastest is the one fresh runs found fastest: the search's
	 * estimates may rank them otherwise */
	const hmpt_tconfirm_t *f = confirmed_fastest(t, false);
	hmpt_speedup_t vs;
	int n;
	if (!b || !f || b == f || !b->confirmed || !paired_vs(t, b, f, rounds, &vs, &n))
		return false;
	b->vs_fastest = vs;
	b->vs_pairs = n;
	if (!is_slower(t, &vs))
		return false;
	b->behind = f->of;
	t->configs[b->of].not_best = true;
	return true;
}

/* The runner-up of the search: the highest estimate among the
 * configurations not tried yet that the search cannot tell from its
 * fastest (at its uncorrected confidence), or -1.  A few runs per
 * configuration rank close ones by chance. */
static int runner_up(const hmpt_tune_t *t)
{
	int top = t->fastest, pick = -1;
	for (int i = 0; top >= 0 && i < t->nconfigs; i++) {
		const hmpt_tconfig_t *c = &t->configs[i];
		if (!c->in_combos || c->nfailed || c->sum.n < 1 || c->confirmed < 0 ||
		    i == c->ref || hmpt_confirm_of(t, i) || c->sp.speedup < 1 + t->opt->min_gain)
			continue;
		hmpt_speedup_t vs;
		hmpt_stats_speedup(&t->configs[top].sum, &c->sum, &t->pool, t->opt->alpha,
		                   t->opt->min_gain, t->opt->maximize, &vs);
		if (!vs.slower && (pick < 0 || c->sp.speedup > t->configs[pick].sp.speedup))
			pick = i;
	}
	return pick;
}

/* The search's choices now (those found not faster excluded): each one not
 * tried yet is tried from round r on.  true while any is still measured. */
static bool assign(hmpt_tune_t *t, hmpt_measure_t *x, int r)
{
	do {
		hmpt_method_analyze(t);
		try_config(t, x, t->best, "best", r);
		/* the fastest beside it, to tell whether the best is really as fast */
		try_config(t, x, t->fastest, "fastest", r);
		try_config(t, x, t->best90, "ninety", r);
		if (t->opt->capacity)
			try_config(t, x, t->fit, "capacity", r);
		/* at the start, the runner-up too, while a slot stays free for a
		 * replacement */
		if (r == 0 && t->ntried < HMPT_CONFIRM_MAX - 1)
			try_config(t, x, runner_up(t), "runner-up", r);
	} while (judge_best(t, r));
	for (int k = 0; k < t->ntried; k++)
		if (!t->tried[k].settled)
			return true;
	return false;
}

/* Whether confirmed entry e is slower than confirmed entry top: in the
 * rounds both ran (measurably, at the uncorrected confidence, or by more
 * than --min-gain), else by their confirmed estimates.  Fills e's
 * comparison with top. */
static bool slower_than(const hmpt_tune_t *t, const hmpt_tconfirm_t *e, const hmpt_tconfirm_t *top,
                        int rounds, hmpt_speedup_t *vs, int *pairs)
{
	if (paired_vs(t, e, top, rounds, vs, pairs))
		return is_slower(t, vs);
	*vs = (hmpt_speedup_t){.speedup = e->sp.speedup / top->sp.speedup};
	return vs->speedup < 1 - t->opt->min_gain;
}

/* e rather than configuration `pick` (-1: none yet): the smaller footprint,
 * and of equal ones the faster. */
static bool better_pick(const hmpt_tune_t *t, const hmpt_tconfirm_t *e, int pick)
{
	if (pick < 0)
		return true;
	uint64_t eb = t->configs[e->of].fast_bytes, pb = t->configs[pick].fast_bytes;
	return eb < pb || (eb == pb && e->sp.speedup > hmpt_confirm_of(t, pick)->sp.speedup);
}

/* The choices among the confirmed, by the confirmation's figures: the
 * fastest confirmed; plan-best the smallest footprint not slower than it;
 * plan-90 the smallest reaching 90 % of its speedup; plan-capacity the
 * smallest within --capacity not slower than the fastest there.  Nothing
 * confirmed: nothing chosen. */
static void choose_confirmed(hmpt_tune_t *t, int rounds)
{
	hmpt_tconfirm_t *top = confirmed_fastest(t, false);
	hmpt_tconfirm_t *top_fit = t->opt->capacity ? confirmed_fastest(t, true) : NULL;
	t->fastest = t->best = t->best90 = t->fit = -1;
	for (int k = 0; k < t->ntried; k++)
		t->tried[k].behind = -1; /* judged again below, against the final fastest */
	for (int pass = 0; pass < 2; pass++) {
		hmpt_tconfirm_t *lead = pass ? top_fit : top;
		int *pick = pass ? &t->fit : &t->best;
		for (int k = 0; lead && k < t->ntried; k++) {
			hmpt_tconfirm_t *e = &t->tried[k];
			const hmpt_tconfig_t *c = &t->configs[e->of];
			if (!e->confirmed || (pass && c->fast_bytes > t->opt->capacity))
				continue;
			hmpt_speedup_t vs;
			int pairs;
			if (e != lead && slower_than(t, e, lead, rounds, &vs, &pairs)) {
				if (!pass) { /* reported: plan-best's comparison */
					e->behind = lead->of;
					e->vs_fastest = vs;
					e->vs_pairs = pairs;
				}
				continue;
			}
			if (better_pick(t, e, *pick))
				*pick = e->of;
		}
	}
	for (int k = 0; top && k < t->ntried; k++) {
		const hmpt_tconfirm_t *e = &t->tried[k];
		if (e->confirmed && e->sp.speedup >= 0.9 * top->sp.speedup &&
		    better_pick(t, e, t->best90))
			t->best90 = e->of;
	}
	t->fastest = top ? top->of : -1;
	t->confirm_done = true;
}

/* How many rounds from r on run at once: under --slurm up to --parallel
 * (each round a job of its own, on a node of its own), as long as none
 * takes an entry past its rounds or the phase past its budget; else 1. */
static int rounds_at_once(const hmpt_tune_t *t, const hmpt_measure_t *x, int r)
{
	int k = x->slurm && x->slurm->parallel > 1 ? x->slurm->parallel : 1;
	if (2 * t->confirm_rounds_max - r < k)
		k = 2 * t->confirm_rounds_max - r;
	for (int e = 0; e < t->ntried; e++)
		if (!t->tried[e].settled && t->tried[e].first_round + t->confirm_rounds_max - r < k)
			k = t->tried[e].first_round + t->confirm_rounds_max - r;
	return k > 1 ? k : 1;
}

/* Rounds r.. of the confirmation (*k of them, their orders fixed before
 * any runs), then what their pairs say.  Analysed after the last of them:
 * fewer looks at the data than one per round, never more. */
static int measure_rounds(hmpt_tune_t *t, hmpt_measure_t *x, int r, int min_pairs, int *k)
{
	int items[HMPT_MEASURE_AT_ONCE][HMPT_CONFIRM_MAX + 1], n[HMPT_MEASURE_AT_ONCE], rc;

	*k = rounds_at_once(t, x, r);
	if (*k > HMPT_MEASURE_AT_ONCE)
		*k = HMPT_MEASURE_AT_ONCE;
	for (int j = 0; j < *k; j++)
		n[j] = round_items(t, items[j]);
	/* the rounds left of the longest-measured entry, for the progress line */
	int left = 0;
	for (int e = 0; e < t->ntried; e++)
		if (!t->tried[e].settled) {
			int l = t->tried[e].first_round + t->confirm_rounds_max - r;
			left = l > left ? l : left;
		}
	x->total = x->done + left * n[0];
	for (int j = 0; j < *k; j++)
		for (int i = 0; i < n[j]; i++)
			t->configs[items[j][i]].want = r + j + 1;
	if (*k == 1)
		rc = hmpt_measure_round(t, x, items[0], n[0], r);
	else
		rc =
		    hmpt_measure_rounds(t, x, (const int(*)[HMPT_CONFIRM_MAX + 1]) items, n, r, *k);
	if (rc == 0)
		estimate_carry(t, r + *k);
	for (int e = 0; e < t->ntried && rc == 0; e++)
		if (!t->tried[e].settled)
			analyze_tried(t, &t->tried[e], r + *k, min_pairs);
	return rc;
}

int hmpt_stage_confirm(hmpt_tune_t *t, hmpt_measure_t *x)
{
	t->search_best = t->best;
	t->search_best90 = t->best90;
	t->search_fit = t->fit;
	t->confirm_ref = -1;
	if (!t->confirm_rounds_max)
		return 0;
	t->confirming = true;
	hmpt_method_analyze(t);
	if (t->best < 0 && t->best90 < 0 && t->fit < 0) {
		/* no estimate reaches --min-gain: nothing worth confirming */
		t->confirming = false;
		hmpt_method_analyze(t);
		return 0;
	}
	unsigned char *none = calloc((size_t)t->nsites + 1, 1);
	if (!none)
		return -1;
	t->confirm_ref =
	    hmpt_config_get(t, x->journal, none, "slow (confirmation)", HMPT_PHASE_CONFIRM);
	free(none);
	t->configs[t->confirm_ref].ref = t->confirm_ref;
	t->configs[t->confirm_ref].want = -1;
	t->confirm_alpha = t->opt->alpha / HMPT_CONFIRM_MAX;
	int min_pairs = hmpt_stats_paired_min(t->confirm_alpha), rc = 0, r = 0;
	if (!x->quiet)
		fprintf(stderr,
		        "hmpt-tune: confirming the choices in fresh rounds against all-slow (%d to "
		        "%d rounds each, until within %.3g %%)\n",
		        min_pairs,
		        t->confirm_rounds_max > min_pairs ? t->confirm_rounds_max : min_pairs,
		        100 * t->opt->precision);
	if (t->confirm_rounds_max < min_pairs)
		t->confirm_rounds_max = min_pairs;
	/* its own orders (order.h) */
	hmpt_order_init(&t->order, t->seed ^ 0xc0f1c0f1c0f1c0f1ull, t->confirm_ref);
	t->order_ref = t->confirm_ref;
	x->warm = false;
	x->done = 0;
	x->spent = 0;
	x->retaken = 0; /* the retake bound is per phase */
	for (int k = 0; rc == 0 && assign(t, x, r); r += k)
		rc = measure_rounds(t, x, r, min_pairs, &k);
	if (x->progress)
		fprintf(stderr, "\r\033[K");
	t->confirm_rounds_run = r;
	t->confirming = false;
	for (int k = 0; k < t->ntried; k++) /* all their runs, in results.json */
		t->configs[t->tried[k].config].want = r;
	t->configs[t->confirm_ref].want = r;
	if (rc)
		return -1;
	choose_confirmed(t, r);
	return 0;
}
