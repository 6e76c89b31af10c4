/* config.c — the configurations of a tuning (which sites are in the fast
 * pool), their keys and their plans. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plan.h"
#include "planout.h"
#include "profiles.h"
#include "report.h"

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The configuration with these sites in the fast pool in a phase: found, or
 * added.  Each phase measures its placements afresh, with its own all-slow
 * runs, so that a drift between the phases cannot pass for a speedup (the
 * search takes over the ranking's where the ranking chose nothing:
 * stage_search.c). */
int hmpt_config_get(hmpt_tune_t *t, const hmpt_journal_t *j, const unsigned char *fast,
                    const char *label, hmpt_phase_t phase)
{
	return hmpt_config_get_split(t, j, fast, label, phase, -1, 0);
}

int hmpt_config_get_split(hmpt_tune_t *t, const hmpt_journal_t *j, const unsigned char *fast,
                          const char *label, hmpt_phase_t phase, int group, uint32_t ppm)
{
	const char *ids[t->nsites > 0 ? t->nsites : 1];
	int n = 0;
	uint64_t h = 0xcbf29ce484222325ull;
	char key[17];

	for (int i = 0; i < t->nsites; i++)
		if (fast[i])
			ids[n++] = t->sites[i].id;
	qsort(ids, (size_t)n, sizeof(ids[0]), cmp_str);
	if (phase == HMPT_PHASE_COMBOS)
		h = fnv(h, "combinations|");
	else if (phase == HMPT_PHASE_CONFIRM)
		h = fnv(h, "confirmation|");
	for (int i = 0; i < n; i++)
		h = fnv(fnv(h, ids[i]), ",");
	if (ppm) { /* the split's group named by its sites, so keys stay stable */
		char share[32];
		snprintf(share, sizeof(share), "|split %u of", (unsigned)ppm);
		h = fnv(h, share);
		for (int i = 0; i < t->nsites; i++)
			if (fast[i] && t->sites[i].group == group)
				h = fnv(fnv(h, t->sites[i].id), ",");
	}
	snprintf(key, sizeof(key), "%016llx", (unsigned long long)h);
	for (int c = 0; c < t->nconfigs; c++)
		if (!strcmp(t->configs[c].key, key))
			return c;
	t->configs = realloc(t->configs, (size_t)(t->nconfigs + 1) * sizeof(*t->configs));
	hmpt_tconfig_t *c = &t->configs[t->nconfigs];
	memset(c, 0, sizeof(*c));
	memcpy(c->key, key, sizeof(key));
	c->in_combos = phase == HMPT_PHASE_COMBOS;
	c->in_confirm = phase == HMPT_PHASE_CONFIRM;
	snprintf(c->label, sizeof(c->label), "%s", label);
	c->fast = malloc((size_t)t->nsites + 1);
	memcpy(c->fast, fast, (size_t)t->nsites);
	c->nfast = n;
	c->split_group = ppm ? group : -1;
	c->split_ppm = ppm;
	double access = 0;
	for (int i = 0; i < t->nsites; i++)
		if (fast[i]) {
			/* a split site counts its share (the gathers spread evenly) */
			double f = ppm && t->sites[i].group == group ? ppm / 1e6 : 1;
			c->fast_bytes += (uint64_t)(f * (double)t->sites[i].bytes + 0.5);
			access += t->sites[i].access > 0 ? f * t->sites[i].access : 0;
		}
	c->fast_fraction = t->total_bytes ? (double)c->fast_bytes / (double)t->total_bytes : 0;
	c->access_fraction = t->access_kind ? access : -1;
	/* runs of it that an earlier tuner finished */
	hmpt_journal_runs(j, key, &c->runs, &c->nruns);
	return t->nconfigs++;
}

/* One group of configuration c's plan, unless empty: its fast sites of
 * tuner group g (fast), or its static sites that are not fast (slow). */
static void add_group(hmpt_tune_t *t, const hmpt_tconfig_t *c, json_t *groups, int g, bool fast,
                      const char *name)
{
	json_t *list = json_array();

	for (int i = 0; i < t->nsites; i++)
		if (fast ? c->fast[i] && t->sites[i].group == g
		         : !c->fast[i] && hmpt_report_is_static(t->sites[i].json))
			json_array_append_new(
			    list, hmpt_plan_site_entry(t->profile, t->sites[i].json, 0, t->sym));
	if (json_array_size(list) == 0) {
		json_decref(list);
		return;
	}
	json_t *group =
	    json_pack("{s:s,s:s,s:o}", "name", name, "pool", fast ? "fast" : "slow", "sites", list);
	if (fast && c->split_ppm && g == c->split_group) {
		/* the share as written: six decimals at most, as the loader reads */
		char text[16];
		snprintf(text, sizeof(text), "%.6f", c->split_ppm / 1e6);
		json_object_set_new(group, "share", json_real(strtod(text, NULL)));
		json_object_set_new(group, "rest", json_string("slow"));
	}
	json_array_append_new(groups, group);
}

/* The plan of configuration c: the fast sites in the fast pool, one group
 * per tuner group (or one group before grouping); the rest in the slow pool
 * by default, and static data in it by name (the default pool does not
 * reach static data). */
json_t *hmpt_config_plan(hmpt_tune_t *t, const hmpt_tconfig_t *c, const char *measurement)
{
	json_t *pools = json_object(), *groups = json_array();
	json_t *fast = json_deep_copy(t->opt->fast_pool);

	json_object_set_new(pools, "fast", fast);
	json_object_set(pools, "slow", t->opt->slow_pool);
	for (int g = -1; g < t->ngroups; g++)
		add_group(t, c, groups, g, true, g < 0 ? "fast" : t->groups[g].name);
	/* static data goes to a pool only when named: the slow ones too */
	add_group(t, c, groups, 0, false, "slow-static");
	char when[32];
	hmpt_plan_created_now(when);
	json_t *plan = json_pack(
	    "{s:s,s:i,s:o,s:s,s:o,s:{s:s,s:s,s:s,s:s}}", "format", HMPT_PLAN_FORMAT,
	    "format_version", c->split_ppm ? HMPT_PLAN_VERSION_SPLIT : HMPT_PLAN_VERSION, "pools",
	    pools, "default_pool", "slow", "groups", groups, "provenance", "program",
	    hmpt_prof_str(json_object_get(t->profile, "process"), "exe") ?: t->opt->program,
	    "created", when, "tool", "hmpt-tune " HMPT_VERSION, "measurement", measurement);
	uint64_t depth = hmpt_prof_u64(json_object_get(t->profile, "settings"), "stack_depth");
	if (depth)
		json_object_set_new(plan, "stack_depth", json_integer((json_int_t)depth));
	hmpt_plan_add_modules(plan, t->profile);
	return plan;
}

/* The plan file of configuration c, written when missing. */
int hmpt_config_plan_path(hmpt_tune_t *t, const hmpt_tconfig_t *c, char *path, size_t len)
{
	struct stat st;

	snprintf(path, len, "%s/plans/%s.json", t->opt->dir, c->key);
	if (stat(path, &st) == 0)
		return 0;
	json_t *plan = hmpt_config_plan(t, c, "a configuration measured by hmpt-tune");
	int rc = hmpt_plan_emit(plan, path);
	json_decref(plan);
	return rc;
}
