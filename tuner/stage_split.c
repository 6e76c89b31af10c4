/* stage_split.c — the split stage (--split): plan-capacity's room filled
 * with a share of a group, and the smallest share of plan-90's largest
 * group that still reaches 90 % of the fastest. */
#include "stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "method.h"
#include "plan.h"
#include "profiles.h"
#include "report.h"

/* ---------------------------------------------------------------- split */

enum { REFINE_STEPS = 3 };

/* A pool (as --pools gave it) whose blocks the shim can split: normal or
 * transparent huge pages, not hugetlb nor memkind. */
static bool pool_splits(const json_t *pool)
{
	const char *pages = json_string_value(json_object_get(pool, "pages"));
	const char *backend = json_string_value(json_object_get(pool, "backend"));
	return !(pages && !strcmp(pages, "hugetlb")) && !(backend && !strcmp(backend, "memkind")) &&
	       !json_object_get(pool, "kind");
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
	hmpt_tconfig_t *base = &t->configs[t->best90];
	if (!base->in_combos || base->split_ppm || !base->mask)
		return 0;
	/* the marginal group: plan-90's largest that can be split */
	int g = -1;
	for (int k = 0; k < t->ngroups; k++)
		if ((base->mask >> k & 1) && group_splits(t, k) &&
		    (g < 0 || t->groups[k].bytes > t->groups[g].bytes))
			g = k;
	if (g < 0)
		return 0;
	unsigned char *fast = malloc((size_t)t->nsites + 1);
	if (!fast)
		return -1;
	memcpy(fast, base->fast, (size_t)t->nsites);
	unsigned mask = base->mask;
	int base_i = t->best90;
	if (!x->quiet)
		fprintf(stderr,
		        "hmpt-tune: split: the smallest share of %s (in plan-90, %s) that still "
		        "reaches 90 %% of the fastest, in %d halving steps\n",
		        t->groups[g].name, base->label, REFINE_STEPS);
	/* shares in parts per million: hi reaches (the whole group does), lo
	 * does not (the plan less the group: unknown, taken as not) */
	uint32_t lo = 0, hi = HMPT_PLAN_SHARE_ONE;
	double target = 0.9 * t->configs[t->fastest].sp.speedup;
	int rc = 0;
	for (int step = 0; step < REFINE_STEPS && rc == 0; step++) {
		uint32_t mid = lo + (hi - lo) / 2;
		char label[128];
		snprintf(label, sizeof(label), "%.100s, %s at %g %%", t->configs[base_i].label,
		         t->groups[g].name, mid / 1e4);
		int ci =
		    hmpt_config_get_split(t, x->journal, fast, label, HMPT_PHASE_COMBOS, g, mid);
		rc = measure_one(t, x, ci, mask);
		if (rc) {
			rc = rc < 0 ? -1 : 0;
			break;
		}
		const hmpt_tconfig_t *c = &t->configs[ci];
		/* as plan-90 is chosen: shown faster, and 90 % of the fastest (the
		 * search's, fixed: the analysis redone may show none faster) */
		bool reaches =
		    !c->nfailed && c->sum.n > 0 && c->sp.faster && c->sp.speedup >= target;
		if (!x->quiet)
			fprintf(stderr,
			        "hmpt-tune: split: %s: %.3fx, %s 90 %% of the fastest (%.3fx)\n",
			        c->label, c->sp.speedup, reaches ? "reaches" : "below", target);
		*(reaches ? &hi : &lo) = mid;
	}
	free(fast);
	return rc;
}

int hmpt_stage_split(hmpt_tune_t *t, hmpt_measure_t *x)
{
	/* the analysis redone, split or not: the choices may change */
	return split_refine(t, x) == 0 ? hmpt_stage_analyze(t) : -1;
}
