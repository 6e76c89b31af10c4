/* stage_split.c — the split stage (--split): plan-capacity's room filled
 * with a share of a group, and plan-90 with a share of the group that
 * crosses 90 % of the fastest (splitplan.h). */
#include "stages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "method.h"
#include "plan.h"
#include "profiles.h"
#include "backend.h"
#include "report.h"
#include "splitplan.h"

/* ---------------------------------------------------------------- split */

enum { SPLIT_STEPS = 3 };

/* A pool (as --pools gave it) whose blocks the shim can split: of a
 * backend that splits (backend.h's caps), with normal or transparent huge
 * pages, not hugetlb. */
static bool pool_splits(const json_t *pool)
{
	const char *pages = json_string_value(json_object_get(pool, "pages"));
	const char *name = json_string_value(json_object_get(pool, "backend"));
	const hmpt_backend_t *be = name ? hmpt_backend_find(name) : hmpt_backend_nodes();
	return be && be->caps.split && !(pages && !strcmp(pages, "hugetlb"));
}

/* Group g's blocks are large enough to split: no static data, and each of
 * its sites' blocks of 8 granules (16 MiB) on average, so that a share
 * rounds to whole granules within 1/16. */
static bool group_splits(const hmpt_tune_t *t, int g)
{
	int n = 0;
	for (int i = 0; i < t->nsites; i++) {
		const hmpt_tsite_t *s = &t->sites[i];
		if (s->group != g)
			continue;
		uint64_t allocs = hmpt_prof_u64(s->json, "allocations");
		uint64_t bytes = hmpt_prof_u64(s->json, "bytes");
		if (hmpt_report_is_static(s->json) || !allocs || bytes / allocs < (16u << 20))
			return false;
		n++;
	}
	return n > 0;
}

/* Measure configuration `ci` of the combination phase (--reps runs) with a
 * run of its all-slow at least, as the search's batches are: 0, 1 when
 * --budget leaves no room for it (nothing run), -1 on failure. */
static int measure_one(hmpt_tune_t *t, hmpt_measure_t *x, int ci, unsigned mask)
{
	int configs;
	if (t->opt->budget &&
	    hmpt_stage_search_runs(t, &configs) + t->opt->reps + 1 > t->opt->budget) {
		if (!x->quiet)
			fprintf(stderr, "hmpt-tune: split: --budget %d runs reached\n",
			        t->opt->budget);
		return 1;
	}
	hmpt_tconfig_t *c = &t->configs[ci], *ref = &t->configs[t->ref];
	c->mask = mask;
	c->ref = t->ref;
	c->want = t->opt->reps;
	int have = hmpt_tune_config_taken(ref);
	ref->want = ref->want > have ? ref->want : have + 1;
	int batch[2] = {t->ref, ci};
	int rc = hmpt_measure_configs(t, x, batch, 2);
	if (rc == 0)
		hmpt_method_analyze(t);
	return rc;
}

/* --capacity with --split: plan-capacity's room filled with a share of the
 * most valuable group that does not fit whole (one configuration). */
static int fill_capacity(hmpt_tune_t *t, hmpt_measure_t *x)
{
	if (!t->opt->capacity || t->fit < 0)
		return 0;
	const hmpt_tconfig_t *fit = &t->configs[t->fit];
	if (!fit->in_combos || fit->split_ppm || fit->fast_bytes >= t->opt->capacity)
		return 0;
	uint64_t room = t->opt->capacity - fit->fast_bytes;
	int g = -1;
	for (int k = 0; k < t->ngroups; k++)
		if (!(fit->mask >> k & 1) && t->groups[k].bytes > room && group_splits(t, k) &&
		    t->groups[k].alone > 1 && (g < 0 || t->groups[k].alone > t->groups[g].alone))
			g = k;
	if (g < 0)
		return 0;
	/* the share that fits: each block rounds its share to whole granules
	 * (to the nearest), so half a granule per block is kept in hand */
	uint64_t blocks = 0;
	for (int i = 0; i < t->nsites; i++)
		if (t->sites[i].group == g)
			blocks += hmpt_prof_u64(t->sites[i].json, "allocations");
	uint64_t hand = blocks << 20;
	if (room < hand + (2u << 20))
		return 0;
	uint32_t ppm = (uint32_t)((double)(room - hand) / (double)t->groups[g].bytes * 1e6);
	unsigned char *fast = malloc((size_t)t->nsites + 1);
	if (!fast)
		return -1;
	memcpy(fast, fit->fast, (size_t)t->nsites);
	for (int i = 0; i < t->nsites; i++)
		fast[i] |= t->sites[i].group == g;
	unsigned mask = fit->mask | 1u << g;
	char label[128];
	snprintf(label, sizeof(label), "%.100s, %s at %.3g %%", fit->label, t->groups[g].name,
	         ppm / 1e4);
	if (!x->quiet)
		fprintf(stderr, "hmpt-tune: split: plan-capacity's room (%.1f MiB) with %s\n",
		        (double)room / (1 << 20), label);
	int ci = hmpt_config_get_split(t, x->journal, fast, label, HMPT_PHASE_COMBOS, g, ppm);
	free(fast);
	return measure_one(t, x, ci, mask) < 0 ? -1 : 0;
}

/* The pools' page sizes: the same (the default --split's condition). */
static bool same_pages(const json_t *a, const json_t *b)
{
	const char *pa = json_string_value(json_object_get(a, "pages"));
	const char *pb = json_string_value(json_object_get(b, "pages"));
	/* "default" and "4k" differ where THP is "always"; taken as alike
	 * only when written alike */
	return !strcmp(pa ? pa : "default", pb ? pb : "default");
}

/* A plan with a share, measured as the search's configurations are (the
 * callback of hmpt_splitplan_run). */
typedef struct {
	hmpt_tune_t *t;
	hmpt_measure_t *x;
	unsigned char *fast;
	double line; /* the search's 90 % of the fastest, fixed: the analysis
	                redone may show none faster */
	int rc;
} split_run_t;

static int split_measure(void *ctx, const hmpt_splitplan_t *p, double *speedup)
{
	split_run_t *r = ctx;
	hmpt_tune_t *t = r->t;
	char label[128];
	size_t len = 0;
	unsigned mask = p->base | 1u << p->group;
	uint32_t ppm = (uint32_t)(p->share * HMPT_PLAN_SHARE_ONE + 0.5);
	for (int i = 0; i < t->nsites; i++)
		r->fast[i] = (unsigned char)(mask >> t->sites[i].group & 1);
	/* "G1+G2, G3 at 45.8 %": the whole groups, then the share */
	for (int g = 0; g < t->ngroups; g++)
		if (p->base >> g & 1)
			len += (size_t)snprintf(label + len, sizeof(label) - len, "%s%s",
			                        len ? "+" : "", t->groups[g].name);
	snprintf(label + len, sizeof(label) - len, "%s%s at %.3g %%", len ? ", " : "",
	         t->groups[p->group].name, ppm / 1e4);
	int ci = hmpt_config_get_split(t, r->x->journal, r->fast, label, HMPT_PHASE_COMBOS,
	                               p->group, ppm);
	int rc = measure_one(t, r->x, ci, mask);
	*speedup = 0;
	if (rc) {
		r->rc = rc < 0 ? -1 : 0;
		return -1;
	}
	const hmpt_tconfig_t *c = &t->configs[ci];
	/* as plan-90 is chosen: shown faster, and 90 % of the fastest */
	bool reaches = !c->nfailed && c->sum.n > 0 && c->sp.faster && c->sp.speedup >= r->line;
	if (!c->nfailed && c->sum.n > 0)
		*speedup = c->sp.speedup;
	if (!r->x->quiet)
		fprintf(stderr, "hmpt-tune: split: %s: %.3fx, %s 90 %% of the fastest (%.3fx)\n",
		        c->label, c->sp.speedup, reaches ? "reaches" : "below", r->line);
	return reaches;
}

/* What the search knows of the whole-group plans, for splitplan.h: each
 * mask's speedup (measured, else predicted), the groups' bytes and how
 * finely each splits. */
static void split_input(const hmpt_tune_t *t, double *speedup, hmpt_splitplan_in_t *in)
{
	*in = (hmpt_splitplan_in_t){.k = t->ngroups, .speedup = speedup};
	for (int i = 0; i < t->nconfigs; i++) {
		const hmpt_tconfig_t *c = &t->configs[i];
		if (!c->in_combos || c->split_ppm || (int)c->mask >= t->ncombos)
			continue;
		speedup[c->mask] = c->nfailed         ? 0
		                   : c->sum.n > 0     ? c->sp.speedup
		                   : c->predicted > 0 ? c->predicted
		                                      : 0;
	}
	speedup[0] = 1;
	for (int g = 0; g < t->ngroups; g++) {
		uint64_t blocks = 0;
		for (int i = 0; i < t->nsites; i++)
			if (t->sites[i].group == g)
				blocks += hmpt_prof_u64(t->sites[i].json, "allocations");
		in->bytes[g] = (double)t->groups[g].bytes;
		/* a share is whole 2 MiB granules of each block */
		in->grains[g] = blocks ? (int)(t->groups[g].bytes / blocks >> 21) : 0;
		if (group_splits(t, g) && in->grains[g] > 1)
			in->splits |= 1u << g;
	}
}

static int split_refine(hmpt_tune_t *t, hmpt_measure_t *x)
{
	bool on = t->opt->split > 0 ||
	          (t->opt->split < 0 && same_pages(t->opt->fast_pool, t->opt->slow_pool));
	if (!on || t->fastest < 0 || !t->ncombos || !pool_splits(t->opt->fast_pool) ||
	    !pool_splits(t->opt->slow_pool))
		return 0;
	x->warm = false; /* a phase begins with a warm-up run */
	if (fill_capacity(t, x) != 0)
		return -1;
	if (t->best90 < 0 || t->fastest < 0) /* (the analysis is redone after a fill) */
		return 0;
	const hmpt_tconfig_t *base = &t->configs[t->best90];
	if (!base->in_combos || base->split_ppm || !base->mask)
		return 0;
	double *speedup = calloc((size_t)t->ncombos, sizeof(double));
	split_run_t r = {.t = t, .x = x, .fast = malloc((size_t)t->nsites + 1)};
	if (!speedup || !r.fast) {
		free(speedup);
		free(r.fast);
		return -1;
	}
	hmpt_splitplan_in_t in;
	split_input(t, speedup, &in);
	/* 90 % of the fastest, and a gain at all (as the search's 90 % floor):
	 * below a fastest of 1.11x, 0.9 of it would count all-slow as reaching */
	r.line = in.line = fmax(0.9 * t->configs[t->fastest].sp.speedup, 1 + t->opt->min_gain);
	in.plan90 = base->mask;
	hmpt_splitplan_t p;
	if (hmpt_splitplan_choose(&in, &p) == 0) {
		if (!x->quiet)
			fprintf(stderr,
			        "hmpt-tune: split: plan-90 (%s, %.1f MiB) with a share instead: "
			        "groups by time saved per byte, a share of %s (about %.0f %%, %.1f "
			        "MiB by the search's figures), in %d measured configurations at "
			        "most\n",
			        base->label, (double)base->fast_bytes / (1 << 20),
			        t->groups[p.group].name, 100 * p.share, p.bytes / (1 << 20),
			        SPLIT_STEPS);
		/* the first share aims a measurement's sd above the line */
		const hmpt_tconfig_t *ref = &t->configs[t->ref];
		double margin = sqrt(
		    t->pool.var * (1.0 / t->opt->reps + 1.0 / (ref->sum.n > 0 ? ref->sum.n : 1)));
		hmpt_splitplan_run(&in, SPLIT_STEPS, margin, split_measure, &r, &p);
	}
	free(speedup);
	free(r.fast);
	return r.rc;
}

int hmpt_stage_split(hmpt_tune_t *t, hmpt_measure_t *x)
{
	/* the analysis redone, split or not: the choices may change */
	return split_refine(t, x) == 0 ? hmpt_stage_analyze(t) : -1;
}
