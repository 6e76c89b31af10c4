/* method.c — the analysis of a tuning's runs: summaries, speedups with
 * intervals, the linear estimate, the choices, and the ranking by impact. */
#include "method.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void summarize(const hmpt_tune_t *t, hmpt_tconfig_t *c)
{
	double v[c->nruns > 0 ? c->nruns : 1];
	int n = 0;

	c->nfailed = 0;
	for (int i = 0; i < c->nruns; i++) {
		if (c->runs[i].rep >= hmpt_tune_config_want(t, c) ||
		    !hmpt_tune_run_counts(&c->runs[i]))
			continue; /* from a tuning with more runs, or not asked for yet;
			             or disturbed and taken again */
		if (c->runs[i].outlier)
			continue; /* counted in c->noutliers */
		if (c->runs[i].status == 0)
			v[n++] = c->runs[i].value;
		else
			c->nfailed++;
	}
	hmpt_stats_summary(v, n, &c->sum);
}

/* A run that succeeded and counts towards c (before outliers are judged). */
static bool run_judged(const hmpt_tune_t *t, const hmpt_tconfig_t *c, const hmpt_trun_t *r)
{
	return r->rep < hmpt_tune_config_want(t, c) && hmpt_tune_run_counts(r) && !r->status &&
	       r->value > 0;
}

/* Slow outliers among the search's runs (ranking and combinations): marks
 * them, counts them per configuration and in t->noise.  Judged over all the
 * search's configurations together: their runs are interleaved, so the noise
 * is alike for all, and more runs give a steadier scale.  The confirmation
 * keeps every run: its paired rank statistics need no such help. */
static void outliers(hmpt_tune_t *t)
{
	int total = 0, at = 0;
	for (int i = 0; i < t->nconfigs; i++) {
		t->configs[i].noutliers = 0;
		for (int k = 0; k < t->configs[i].nruns; k++)
			t->configs[i].runs[k].outlier = false;
		total += t->configs[i].nruns;
	}
	double *lx = malloc(((size_t)total + 1) * sizeof(double));
	int *n = calloc((size_t)t->nconfigs + 1, sizeof(int));
	bool *out = malloc(((size_t)total + 1) * sizeof(bool));
	if (!lx || !n || !out)
		goto done; /* nothing set aside: the plain statistics */
	for (int i = 0; i < t->nconfigs; i++) {
		const hmpt_tconfig_t *c = &t->configs[i];
		for (int k = 0; k < c->nruns && !c->in_confirm; k++)
			if (run_judged(t, c, &c->runs[k]))
				lx[at + n[i]++] = log(c->runs[k].value);
		at += n[i];
	}
	int got =
	    hmpt_noise_outliers(lx, n, t->nconfigs, t->opt->maximize, out, &t->noise.outlier_scale);
	if (got < 0)
		goto done;
	t->noise.outliers = got;
	t->noise.outliers_of = at;
	at = 0;
	for (int i = 0; i < t->nconfigs; i++) {
		hmpt_tconfig_t *c = &t->configs[i];
		for (int k = 0, j = 0; k < c->nruns && !c->in_confirm; k++)
			if (run_judged(t, c, &c->runs[k]) && out[at + j++]) {
				c->runs[k].outlier = true;
				c->noutliers++;
			}
		at += n[i];
	}
done:
	free(lx);
	free(n);
	free(out);
}

/* Every configuration's speedup over its reference. */
static void speedups(hmpt_tune_t *t)
{
	int compared = 0;
	hmpt_pooled_t pool = {0};
	outliers(t);
	for (int i = 0; i < t->nconfigs; i++) {
		summarize(t, &t->configs[i]);
		if (t->configs[i].in_confirm)
			continue; /* paired, and analysed apart (stage_confirm.c) */
		compared += hmpt_tune_config_shown(t, i) && i != t->configs[i].ref &&
		            t->configs[i].sum.n > 0;
		/* runs are interleaved, so drift and load hit every configuration
		 * alike: one variance serves all, with the df of all runs */
		hmpt_stats_pool(&pool, &t->configs[i].sum);
	}
	t->pool = pool;
	/* Bonferroni: with 2^K comparisons, some would pass by chance alone */
	t->alpha_used = t->opt->alpha / (compared > 0 ? compared : 1);
	for (int i = 0; i < t->nconfigs; i++) {
		hmpt_tconfig_t *c = &t->configs[i];
		if (c->in_confirm && i != c->ref)
			continue;
		if (i == c->ref)
			c->sp = (hmpt_speedup_t){.speedup = 1, .lo = 1, .hi = 1};
		else
			hmpt_stats_speedup(&t->configs[c->ref].sum, &c->sum, &pool, t->alpha_used,
			                   t->opt->min_gain, t->opt->maximize, &c->sp);
	}
}

int hmpt_method_single(const hmpt_tune_t *t, int g)
{
	for (int i = 0; i < t->nconfigs; i++) {
		const hmpt_tconfig_t *c = &t->configs[i];
		bool same =
		    !c->in_combos && !c->in_confirm && i != c->ref && c->sum.n > 0 && c->fast;
		for (int s = 0; s < t->nsites && same; s++)
			same = (c->fast[s] != 0) == (t->sites[s].group == g);
		if (same)
			return i;
	}
	return -1;
}

/* The linear estimate: time savings of single groups add up (a group the
 * combinations did not measure alone: the ranking's run of it). */
static void estimates(hmpt_tune_t *t)
{
	double single[16] = {0};
	for (int g = 0; g < t->ngroups; g++)
		t->groups[g].alone_failed = false;
	for (int i = 0; i < t->nconfigs; i++) {
		const hmpt_tconfig_t *c = &t->configs[i];
		if (!c->in_combos || !c->mask || (c->mask & (c->mask - 1)) || c->split_ppm)
			continue;
		if (c->sp.speedup > 0)
			single[__builtin_ctz(c->mask)] = c->sp.speedup;
		if (c->nfailed)
			t->groups[__builtin_ctz(c->mask)].alone_failed = true;
	}
	for (int g = 0; g < t->ngroups; g++) {
		int r = single[g] > 0 ? -1 : hmpt_method_single(t, g);
		if (r >= 0 && !t->configs[r].nfailed)
			single[g] = t->configs[r].sp.speedup;
		t->groups[g].alone = single[g];
	}
	for (int i = 0; i < t->nconfigs; i++) {
		hmpt_tconfig_t *c = &t->configs[i];
		double saved = 0;
		bool ok = c->in_combos && !c->split_ppm;
		for (int g = 0; g < t->ngroups && ok; g++)
			if (c->mask >> g & 1) {
				ok = single[g] > 0;
				saved += ok ? 1 - 1 / single[g] : 0;
			}
		c->estimate = ok && saved < 1 ? 1 / (1 - saved) : 0;
	}
}

/* Choices among configurations shown that ran cleanly */
static void choose(hmpt_tune_t *t)
{
	if (t->confirm_done)
		return; /* the confirmation chose, by its own figures (stage_confirm.c) */
	hmpt_choice_in_t *in = calloc((size_t)t->nconfigs + 1, sizeof(*in));
	hmpt_choice_t ch = {-1, -1, -1, -1};

	if (in) {
		for (int i = 0; i < t->nconfigs; i++) {
			const hmpt_tconfig_t *c = &t->configs[i];
			hmpt_speedup_t sp = c->sp;
			/* while confirming, the search's point estimate proposes and
			 * the confirmation decides (its own family-wise control): a
			 * gain the search's few runs could not tell is still tried */
			if (t->confirming)
				sp.faster = sp.speedup >= 1 + t->opt->min_gain;
			in[i] = (hmpt_choice_in_t){.sum = c->sum,
			                           .sp = sp,
			                           .bytes = (double)c->fast_bytes,
			                           .eligible = hmpt_tune_config_shown(t, i) &&
			                                       !c->nfailed && c->sum.n > 0 &&
			                                       i != c->ref && c->confirmed >= 0,
			                           .not_best = c->not_best};
		}
		/* each configuration judged on its own against the fastest: at
		 * the uncorrected alpha (corrected for 2^K comparisons, almost
		 * nothing would be shown slower, and the two searches, comparing
		 * different numbers, would differ by construction) */
		hmpt_method_choose(in, t->nconfigs, &t->pool, t->opt->alpha, t->opt->min_gain,
		                   t->opt->maximize, (double)t->opt->capacity, &ch);
		free(in);
	}
	t->fastest = ch.fastest;
	t->best = ch.best;
	t->best90 = ch.best90;
	t->fit = ch.fit;
}

/* Retakes counted, the reference's drift and spread over its runs in run
 * order, and the smallest speedup the tuning's noise lets it show. */
static void noise(hmpt_tune_t *t)
{
	hmpt_tnoise_t *z = &t->noise;

	z->detectable = INFINITY;
	for (int i = 0; i < t->nconfigs; i++)
		for (int k = 0; k < t->configs[i].nruns; k++) {
			const hmpt_trun_t *r = &t->configs[i].runs[k];
			z->judged += r->has_load;
			z->retaken_steal += !strcmp(r->retaken, "steal");
			z->retaken_load += *r->retaken && strcmp(r->retaken, "steal");
			z->kept += *r->disturbed && !*r->retaken;
		}
	if (t->ref < 0 || t->ref >= t->nconfigs)
		return;
	const hmpt_tconfig_t *ref = &t->configs[t->ref];
	double v[ref->nruns > 0 ? ref->nruns : 1];
	int n = 0;
	for (int k = 0; k < ref->nruns; k++) {
		const hmpt_trun_t *r = &ref->runs[k];
		if (!r->status && hmpt_tune_run_counts(r) && r->rep < hmpt_tune_config_want(t, ref))
			v[n++] = r->value;
	}
	z->have_trend = hmpt_noise_trend(v, n, &z->trend) == 0;
	z->spread = hmpt_noise_spread(v, n);
	/* at the alpha the verdicts use, from the pooled variance */
	double sd = sqrt(t->pool.var);
	int share = ref->share > 1 ? ref->share : 1;
	z->detectable =
	    hmpt_noise_detectable(sd, t->pool.df, t->opt->reps, ref->sum.n, t->alpha_used, 0.8);
	if (t->opt->reps > 1 && t->pool.df > 0)
		z->reps_needed = hmpt_noise_reps_for(sd, t->pool.df / (t->opt->reps - 1), share,
		                                     t->alpha_used, 0.8, t->opt->min_gain, 100);
}

void hmpt_method_analyze(hmpt_tune_t *t)
{
	memset(&t->noise, 0, sizeof(t->noise)); /* outliers() fills part of it */
	speedups(t);
	noise(t);
	estimates(t);
	choose(t);
}

/* by speedup alone, then by bytes */
typedef struct {
	int config;
	double speedup;
	uint64_t bytes;
} impact_t;

static int cmp_impact(const void *a, const void *b)
{
	const impact_t *x = a, *y = b;
	if (x->speedup != y->speedup)
		return (x->speedup < y->speedup) - (x->speedup > y->speedup);
	return (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

void hmpt_method_rank(const hmpt_tune_t *t, int *configs, int n)
{
	impact_t by[n > 0 ? n : 1];

	for (int i = 0; i < n; i++)
		by[i] = (impact_t){configs[i], t->configs[configs[i]].sp.speedup,
		                   t->configs[configs[i]].fast_bytes};
	qsort(by, (size_t)n, sizeof(by[0]), cmp_impact);
	for (int i = 0; i < n; i++)
		configs[i] = by[i].config;
}

void hmpt_method_choose(const hmpt_choice_in_t *c, int n, const hmpt_pooled_t *pool, double alpha,
                        double min_gain, bool higher_is_better, double capacity, hmpt_choice_t *out)
{
	out->fastest = out->best = out->best90 = out->fit = -1;
	int fastest_fit = -1;
	for (int i = 0; i < n; i++) {
		if (!c[i].eligible || !c[i].sp.faster)
			continue;
		if (out->fastest < 0 || c[i].sp.speedup > c[out->fastest].sp.speedup)
			out->fastest = i;
		if (capacity > 0 && c[i].bytes <= capacity &&
		    (fastest_fit < 0 || c[i].sp.speedup > c[fastest_fit].sp.speedup))
			fastest_fit = i;
	}
	/* the smallest footprint not measurably slower than the fastest: a
	 * user pays for every byte of the fast pool */
	for (int pass = 0; pass < 2; pass++) {
		int top = pass ? fastest_fit : out->fastest, *pick = pass ? &out->fit : &out->best;
		for (int i = 0; top >= 0 && i < n; i++) {
			if (!c[i].eligible || !c[i].sp.faster || (pass && c[i].bytes > capacity) ||
			    (!pass && c[i].not_best))
				continue;
			hmpt_speedup_t vs;
			/* from the pooled variance alone: a configuration's own larger
			 * variance (one slow run) must not make it harder to show slower */
			hmpt_summary_t a = c[top].sum, b = c[i].sum;
			a.log_ss = b.log_ss = 0;
			if (i == top)
				vs.slower = false;
			else
				hmpt_stats_speedup(&a, &b, pool, alpha, min_gain, higher_is_better,
				                   &vs);
			/* within --min-gain of the fastest by its point estimate, too:
			 * with few runs "not shown slower" alone lets a configuration
			 * several per cent slower pass */
			if (vs.slower || (i != top && vs.speedup < 1 - min_gain))
				continue;
			if (*pick < 0 || c[i].bytes < c[*pick].bytes ||
			    (c[i].bytes == c[*pick].bytes && c[i].sp.speedup > c[*pick].sp.speedup))
				*pick = i;
		}
	}
	/* 90 % of the best speedup measured, at the smallest footprint */
	for (int i = 0; out->fastest >= 0 && i < n; i++) {
		if (!c[i].eligible || !c[i].sp.faster ||
		    c[i].sp.speedup < 0.9 * c[out->fastest].sp.speedup)
			continue;
		if (out->best90 < 0 || c[i].bytes < c[out->best90].bytes ||
		    (c[i].bytes == c[out->best90].bytes &&
		     c[i].sp.speedup > c[out->best90].sp.speedup))
			out->best90 = i;
	}
}
