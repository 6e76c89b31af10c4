/* method.c — the analysis of a tuning's runs: summaries, speedups with
 * intervals, the linear estimate, the choices, and the ranking by impact. */
#include "method.h"

#include <stdlib.h>

static void summarize(const hmpt_tune_t *t, hmpt_tconfig_t *c)
{
	double v[c->nruns > 0 ? c->nruns : 1];
	int n = 0;

	c->nfailed = 0;
	for (int i = 0; i < c->nruns; i++) {
		if (c->runs[i].status == 0 && c->runs[i].rep < hmpt_tune_config_want(t, c))
			v[n++] = c->runs[i].value;
		else if (c->runs[i].status != 0)
			c->nfailed++;
	}
	hmpt_stats_summary(v, n, &c->sum);
}

/* Every configuration's speedup over its reference. */
static void speedups(hmpt_tune_t *t)
{
	int compared = 0;
	hmpt_pooled_t pool = {0};
	for (int i = 0; i < t->nconfigs; i++) {
		summarize(t, &t->configs[i]);
		compared += hmpt_tune_config_shown(t, i) && i != t->configs[i].ref &&
		            t->configs[i].sum.n > 0;
		/* runs are interleaved, so drift and load hit every configuration
		 * alike: one variance serves all, with the df of all runs */
		hmpt_stats_pool(&pool, &t->configs[i].sum);
	}
	/* Bonferroni: with 2^K comparisons, some would pass by chance alone */
	t->alpha_used = t->alpha / (compared > 0 ? compared : 1);
	for (int i = 0; i < t->nconfigs; i++) {
		hmpt_tconfig_t *c = &t->configs[i];
		if (i == c->ref)
			c->sp = (hmpt_speedup_t){.speedup = 1, .lo = 1, .hi = 1};
		else
			hmpt_stats_speedup(&t->configs[c->ref].sum, &c->sum, &pool, t->alpha_used,
			                   t->min_gain, t->maximize, &c->sp);
	}
}

/* The linear estimate: time savings of single groups add up. */
static void estimates(hmpt_tune_t *t)
{
	double single[16] = {0};
	for (int i = 0; i < t->nconfigs; i++) {
		const hmpt_tconfig_t *c = &t->configs[i];
		if (c->in_combos && c->mask && !(c->mask & (c->mask - 1)) && c->sp.speedup > 0)
			single[__builtin_ctz(c->mask)] = c->sp.speedup;
	}
	for (int g = 0; g < t->ngroups; g++)
		t->groups[g].alone = single[g];
	for (int i = 0; i < t->nconfigs; i++) {
		hmpt_tconfig_t *c = &t->configs[i];
		double saved = 0;
		bool ok = c->in_combos;
		for (int g = 0; g < t->ngroups && ok; g++)
			if (c->mask >> g & 1) {
				ok = single[g] > 0;
				saved += ok ? 1 - 1 / single[g] : 0;
			}
		c->estimate = ok && saved < 1 ? 1 / (1 - saved) : 0;
	}
}

/* Choices among configurations that ran cleanly and are really faster. */
static void choose(hmpt_tune_t *t)
{
	t->best = t->best90 = t->fit = -1;
	for (int i = 0; i < t->nconfigs; i++) {
		const hmpt_tconfig_t *c = &t->configs[i];
		if (!hmpt_tune_config_shown(t, i) || !c->sp.faster || c->nfailed)
			continue;
		if (t->best < 0 || c->sp.speedup > t->configs[t->best].sp.speedup)
			t->best = i;
		if (t->capacity && c->fast_bytes <= t->capacity &&
		    (t->fit < 0 || c->sp.speedup > t->configs[t->fit].sp.speedup))
			t->fit = i;
	}
	for (int i = 0; t->best >= 0 && i < t->nconfigs; i++) {
		const hmpt_tconfig_t *c = &t->configs[i];
		if (!hmpt_tune_config_shown(t, i) || !c->sp.faster || c->nfailed ||
		    c->sp.speedup < 0.9 * t->configs[t->best].sp.speedup)
			continue;
		if (t->best90 < 0 || c->fast_bytes < t->configs[t->best90].fast_bytes ||
		    (c->fast_bytes == t->configs[t->best90].fast_bytes &&
		     c->sp.speedup > t->configs[t->best90].sp.speedup))
			t->best90 = i;
	}
}

void hmpt_method_analyze(hmpt_tune_t *t)
{
	speedups(t);
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
