/* stage_search.c — the search stage: the combinations of the groups in
 * the fast pool, those the model search asks for or all of them. */
#include "stages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "method.h"
#include "search.h"
#include "strategy.h"

/* -------------------------------------------------------- combinations */

/* Every combination of the groups, list[mask] its configuration. */
static void combos_create(hmpt_tune_t *t, hmpt_measure_t *x, int *list)
{
	int ncomb = 1 << t->ngroups;
	unsigned char *fast = calloc((size_t)t->nsites + 1, 1);

	for (int m = 0; m < ncomb; m++) {
		char label[128] = "";
		size_t len = 0;
		for (int i = 0; i < t->nsites; i++)
			fast[i] = (unsigned char)(m >> t->sites[i].group & 1);
		for (int g = 0; g < t->ngroups; g++)
			if (m >> g & 1)
				len += (size_t)snprintf(label + len, sizeof(label) - len, "%s%s",
				                        len ? "+" : "", t->groups[g].name);
		if (m == 0)
			snprintf(label, sizeof(label), "slow");
		else if (m == ncomb - 1)
			snprintf(label, sizeof(label), "fast");
		/* all-slow and a group alone: the same placements as the
		 * ranking's, measured once (the ranking's phase becomes this one) */
		int ranked = !t->ranking_shared || (m & (m - 1)) ? -1
		             : m ? hmpt_method_single(t, __builtin_ctz(m))
		                 : t->ref;
		list[m] = ranked >= 0
		              ? ranked
		              : hmpt_config_get(t, x->journal, fast, label, HMPT_PHASE_COMBOS);
		hmpt_tconfig_t *c = &t->configs[list[m]];
		c->in_combos = true;
		c->ranked = ranked >= 0;
		c->mask = (unsigned)m;
		snprintf(c->label, sizeof(c->label), "%s", label);
	}
	t->ref = list[0];
	t->ncombos = ncomb;
	for (int m = 0; m < ncomb; m++)
		t->configs[list[m]].ref = t->ref;
	free(fast);
}

/* What the search knows: the ranking's singles (phase 0) and the
 * combinations measured (phase 1), as log speedups over their phase's
 * all-slow runs with the pooled variance. */
static int search_observe(const hmpt_tune_t *t, const int *list, hmpt_search_obs_t *obs)
{
	double var = t->pool.df > 0 ? t->pool.var : 0;
	int n = 0;

	for (int g = 0; g < t->ngroups; g++) {
		int i = hmpt_method_single(t, g);
		const hmpt_tconfig_t *c = i >= 0 ? &t->configs[i] : NULL;
		if (!c || c->nfailed || t->configs[c->ref].sum.n == 0 || !(c->sp.speedup > 0))
			continue;
		obs[n++] = (hmpt_search_obs_t){
		    .mask = 1u << g,
		    .phase = 0,
		    .y = log(c->sp.speedup),
		    .var = var * (1.0 / c->sum.n + 1.0 / t->configs[c->ref].sum.n)};
	}
	const hmpt_tconfig_t *ref = &t->configs[list[0]];
	if (ref->sum.n) /* all-slow itself: log speedup 0, known to its mean's precision */
		obs[n++] = (hmpt_search_obs_t){.phase = 1, .var = var / ref->sum.n};
	for (int m = 1; m < t->ncombos && ref->sum.n; m++) {
		const hmpt_tconfig_t *c = &t->configs[list[m]];
		if (c->sum.n == 0 && !c->nfailed)
			continue;
		/* a failed run, or a figure of 0 (a rate that printed 0): never
		 * chosen, never asked for again, and no log of it */
		bool failed = c->nfailed > 0 || !(c->sp.speedup > 0);
		obs[n++] = (hmpt_search_obs_t){
		    .mask = (unsigned)m,
		    .phase = 1,
		    .y = failed ? 0 : log(c->sp.speedup),
		    .var = failed ? 0 : var * (1.0 / c->sum.n + 1.0 / ref->sum.n),
		    .rounds = (hmpt_tune_config_taken(c) + t->opt->reps - 1) / t->opt->reps,
		    .failed = failed};
	}
	return n;
}

/* Runs of the combination phase so far (--split's included), and
 * configurations with runs (all-slow aside). */
int hmpt_stage_search_runs(const hmpt_tune_t *t, int *configs)
{
	int runs = 0;
	*configs = 0;
	for (int i = 0; i < t->nconfigs; i++) {
		const hmpt_tconfig_t *c = &t->configs[i];
		int n = c->in_combos ? hmpt_tune_config_taken(c) : 0;
		runs += n;
		*configs += i != t->ref && n > 0;
	}
	return runs;
}

/* The tuner's side of the search loop (strategy.h): the data are the
 * journal's and this run's runs; a measurement is --reps runs of each mask
 * asked for and all-slow runs interleaved with them. */
typedef struct {
	hmpt_tune_t *t;
	hmpt_measure_t *x;
	const int *list;
	const hmpt_search_setup_t *s;
	bool at_exhaustive; /* stopped at exhaustive search's number of runs */
	int batches;        /* measured so far */
} search_ctx_t;

/* Runs exhaustive search takes at --reps: the model search never takes more */
static int exhaustive_runs(const hmpt_tune_t *t)
{
	return t->opt->reps * (t->ncombos - 1 + hmpt_measure_ref_share(t->ncombos - 1));
}

static int ctx_observe(void *p, hmpt_search_obs_t *obs, int max)
{
	search_ctx_t *c = p;
	(void)max; /* search_observe writes K + 2^K at most */
	return search_observe(c->t, c->list, obs);
}

static int ctx_measure(void *p, const unsigned *next, int got)
{
	search_ctx_t *c = p;
	hmpt_tune_t *t = c->t;
	hmpt_tconfig_t *ref = &t->configs[c->list[0]];
	int batch[3], nb = 1, measured, wants[3];

	if (ref->nfailed && !ref->sum.n) /* nothing can be compared */
		return hmpt_stage_check_reference(t) ? -1 : 0;
	batch[0] = c->list[0];
	for (int i = 0; i < got && i < 2; i++) {
		hmpt_tconfig_t *cf = &t->configs[c->list[next[i]]];
		/* new: --reps runs; measured: another round */
		wants[1 + i] = cf->want;
		cf->want = cf->want < 0 ? t->opt->reps : cf->want + t->opt->reps;
		batch[nb++] = c->list[next[i]];
	}
	int runs = hmpt_stage_search_runs(t, &measured);
	int before = ref->want;
	/* all-slow: sqrt(configurations) times --reps, and one run per
	 * batch at least while its runs drift, so that every batch meets it */
	int want = t->opt->reps * hmpt_measure_ref_share(measured + nb - 1);
	int have = hmpt_tune_config_taken(ref);
	/* (the first batch after the ranking's shared runs takes one too, so
	 * that the trend spans both phases from the start) */
	bool more = hmpt_noise_drifting(&t->noise.trend) || (t->ranking_shared && !c->batches);
	ref->want = want > have ? want : have + more;
	int cost = ref->want - have;
	for (int i = 1; i < nb; i++) {
		const hmpt_tconfig_t *cf = &t->configs[batch[i]];
		cost += hmpt_tune_config_want(t, cf) - cf->sum.n - cf->noutliers;
	}
	/* never more runs than exhaustive search would take */
	int exhaustive = exhaustive_runs(t);
	bool user = t->opt->budget && t->opt->budget < exhaustive;
	if (runs + cost > (user ? t->opt->budget : exhaustive)) {
		/* as if the batch had not been asked for: runs of it that the
		 * journal holds must not count */
		ref->want = before;
		for (int i = 1; i < nb; i++)
			t->configs[batch[i]].want = wants[i];
		static hmpt_search_obs_t obs[(1 << HMPT_SEARCH_MAX_K) + 2 * HMPT_SEARCH_MAX_K];
		int nobs = search_observe(t, c->list, obs);
		if (user && hmpt_search_design(c->s, obs, nobs, NULL, 0) > 0) {
			fprintf(stderr,
			        "hmpt-tune: --budget %d: too small for the model search's first "
			        "configurations (all-fast, all-slow and the groups the ranking did "
			        "not measure alone; %d runs so far, the next %d)\n",
			        t->opt->budget, runs, cost);
			return -1;
		}
		if (!c->x->quiet)
			fprintf(stderr,
			        "hmpt-tune: %s %d runs reached (%d so far; the next "
			        "configurations would take %d more)\n",
			        user ? "--budget" : "exhaustive search's",
			        user ? t->opt->budget : exhaustive, runs, cost);
		c->at_exhaustive = !user;
		return HMPT_SEARCH_IO_BUDGET;
	}
	c->batches++;
	if (hmpt_measure_configs(t, c->x, batch, nb))
		return -1;
	hmpt_method_analyze(t);
	return hmpt_stage_search_runs(t, &measured) - runs;
}

/* --search model: batches of configurations the model asks for (search.h),
 * each measured --reps times against all-slow runs interleaved with it,
 * run by the one search loop (strategy.c). */
static int search_model(hmpt_tune_t *t, hmpt_measure_t *x, const int *list)
{
	hmpt_search_setup_t s = {.k = t->ngroups, .confidence = 1 - t->opt->alpha};
	search_ctx_t c = {.t = t, .x = x, .list = list, .s = &s};
	hmpt_search_io_t io = {
	    .observe = ctx_observe, .measure = ctx_measure, .ctx = &c, .budget = t->opt->budget};
	hmpt_search_outcome_t *o = &t->search_outcome;

	for (int g = 0; g < t->ngroups; g++)
		s.bytes[g] = (double)t->groups[g].bytes;
	/* A configuration's journaled runs count only once the search asks for
	 * it, so that a resumed search takes the same steps on the same data,
	 * running only what is missing; those of the ranking's it asked for. */
	for (int m = 0; m < t->ncombos; m++) {
		hmpt_tconfig_t *c = &t->configs[list[m]];
		c->want = c->ranked ? hmpt_tune_config_want(t, c) : -1;
	}
	hmpt_method_analyze(t);
	int rc = hmpt_search_drive(hmpt_strategy_find("model"), &s, &io, o);
	t->search_stop = hmpt_search_why(o->stop);
	if (c.at_exhaustive) {
		t->search_stop = "exhaustive search's number of runs";
		o->advice = "--search exhaustive";
	}
	if (rc == 0) {
		static hmpt_search_obs_t obs[(1 << HMPT_SEARCH_MAX_K) + 2 * HMPT_SEARCH_MAX_K];
		int nobs = search_observe(t, list, obs);
		double *mean = calloc((size_t)t->ncombos, sizeof(double));
		double *sd = calloc((size_t)t->ncombos, sizeof(double));
		if (mean && sd) {
			hmpt_search_predict(&s, obs, nobs, mean, sd);
			for (int m = 1; m < t->ncombos; m++) {
				hmpt_tconfig_t *cf = &t->configs[list[m]];
				cf->predicted = cf->sum.n + cf->nfailed ? 0 : exp(mean[m]);
			}
		}
		free(mean);
		free(sd);
		int configs, runs = hmpt_stage_search_runs(t, &configs);
		if (!x->quiet) {
			fprintf(stderr,
			        "hmpt-tune: model search: %d configurations, %d runs (exhaustive "
			        "search: %d configurations, %d runs); stopped: %s\n",
			        configs, runs, t->ncombos, exhaustive_runs(t),
			        t->search_stop ? t->search_stop : "-");
			if (o->misfit && o->configs > hmpt_search_cap(&s))
				fprintf(stderr,
				        "hmpt-tune: the model does not fit the measurements (mean "
				        "squared standardised error %.1f, about 1 where it fits): "
				        "searched on around the best, up to %d configurations\n",
				        o->misfit_stat, o->cap);
			else if (o->misfit)
				fprintf(stderr,
				        "hmpt-tune: the model does not fit the measurements (mean "
				        "squared standardised error %.1f, about 1 where it fits); "
				        "with %d groups it does "
				        "not search on: --search exhaustive measures all %d\n",
				        o->misfit_stat, t->ngroups, t->ncombos);
			if (o->short_by > 1.005 && o->advice)
				fprintf(stderr,
				        "hmpt-tune: the best may be short by up to %.0f %% (the "
				        "model's bound); to close it: %s\n",
				        100 * (o->short_by - 1), o->advice);
		}
	}
	return rc;
}

static int search_combos(hmpt_tune_t *t, hmpt_measure_t *x)
{
	int ncomb = 1 << t->ngroups, list[1 << 10] = {0};

	combos_create(t, x, list);
	x->warm = false; /* a phase begins with a warm-up run */
	if (!t->opt->exhaustive) {
		hmpt_search_setup_t s = {.k = t->ngroups};
		int cap = hmpt_search_cap(&s);
		char more[64] = "";
		if (hmpt_search_extends(&s))
			snprintf(more, sizeof(more), "; %d where its model does not fit",
			         hmpt_search_ext_cap(&s));
		if (!x->quiet)
			fprintf(stderr,
			        "hmpt-tune: %d group%s: model search among %d configurations (at "
			        "most %d%s; %d runs each)\n",
			        t->ngroups, t->ngroups == 1 ? "" : "s", ncomb,
			        cap < ncomb ? cap : ncomb, more, t->opt->reps);
		return search_model(t, x, list);
	}
	if (!x->quiet)
		fprintf(stderr,
		        "hmpt-tune: %d group%s: measuring %d configurations, %d run%s each, "
		        "%d of all-slow\n",
		        t->ngroups, t->ngroups == 1 ? "" : "s", ncomb, t->opt->reps,
		        t->opt->reps == 1 ? "" : "s",
		        t->opt->reps * hmpt_measure_ref_share(ncomb - 1));
	return hmpt_measure_configs(t, x, list, ncomb);
}

int hmpt_stage_search(hmpt_tune_t *t, hmpt_measure_t *x)
{
	return search_combos(t, x) == 0 ? hmpt_stage_analyze(t) : -1;
}
