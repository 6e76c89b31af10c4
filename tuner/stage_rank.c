/* stage_rank.c — the rank stage: the groups, from --group or by ranking
 * each candidate site alone in the fast pool; and the analysis every
 * measuring stage ends with. */
#include "stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "method.h"

/* The reference must have run: without it nothing can be compared. */
int hmpt_stage_check_reference(const hmpt_tune_t *t)
{
	const hmpt_tconfig_t *r = &t->configs[t->ref];
	if (r->sum.n >= 2 || (r->sum.n >= 1 && t->opt->reps < 2))
		return 0;
	for (int i = 0; i < r->nruns; i++)
		if (r->runs[i].status) {
			fprintf(stderr,
			        "hmpt-tune: the all-slow reference %s (run %d; its output is in "
			        "%s/runs/%s.%d.log): nothing can be compared with it\n",
			        r->runs[i].why, r->runs[i].rep + 1, t->opt->dir, r->key,
			        r->runs[i].rep + 1);
			return -1;
		}
	fprintf(stderr, "hmpt-tune: the all-slow reference has too few runs\n");
	return -1;
}

int hmpt_stage_analyze(hmpt_tune_t *t)
{
	hmpt_method_analyze(t);
	return hmpt_stage_check_reference(t);
}

/* --group: each a group, sites named by their ids or 4+ digit prefixes. */
static int user_groups(hmpt_tune_t *t, char *const *user, int nuser)
{
	for (int g = 0; g < nuser; g++) {
		char buf[4096];
		snprintf(buf, sizeof(buf), "%s", user[g]);
		for (char *sv, *id = strtok_r(buf, ",", &sv); id; id = strtok_r(NULL, ",", &sv)) {
			int hit = -1, hits = 0;
			for (int i = 0; i < t->nsites; i++)
				if (strlen(id) >= 4 && !strncmp(t->sites[i].id, id, strlen(id)))
					hit = i, hits++;
			if (hits != 1 || t->sites[hit].group >= 0) {
				fprintf(stderr,
				        "hmpt-tune: --group %s: '%s' %s (give 4 or more hex "
				        "digits of an id from %s/profile/sites.tsv)\n",
				        user[g], id,
				        hits > 1   ? "names several sites"
				        : hits < 1 ? "names no site of the profile"
				                   : "is already in a group",
				        t->opt->dir);
				return -1;
			}
			t->sites[hit].group = g;
		}
	}
	t->ngroups = nuser;
	return 0;
}

/* The candidates for the ranking, cand[0..nsites-1]: the largest first, or
 * the most accessed when sampled. */
static void order_candidates(const hmpt_tune_t *t, int *cand)
{
	for (int i = 0; i < t->nsites; i++)
		cand[i] = i;
	if (t->access_density)
		for (int i = 1; i < t->nsites; i++) /* insertion sort by access */
			for (int j = i;
			     j > 0 && t->sites[cand[j]].access > t->sites[cand[j - 1]].access;
			     j--) {
				int tmp = cand[j];
				cand[j] = cand[j - 1];
				cand[j - 1] = tmp;
			}
}

/* The ranking phase: all-slow, and each candidate alone in the fast pool;
 * the K-1 with most impact a group each (all K when no more sites). */
static int ranked_groups(hmpt_tune_t *t, hmpt_measure_t *x)
{
	unsigned char *fast = calloc((size_t)t->nsites + 1, 1);
	int ncand = t->nsites < t->opt->candidates ? t->nsites : t->opt->candidates;
	int cand[t->nsites + 1], list[t->nsites + 2], n = 0;

	order_candidates(t, cand);
	t->ref = hmpt_config_get(t, x->journal, fast, "slow (ranking)", HMPT_PHASE_RANKING);
	list[n++] = t->ref;
	for (int k = 0; k < ncand; k++) {
		char label[128];
		memset(fast, 0, (size_t)t->nsites);
		fast[cand[k]] = 1;
		snprintf(label, sizeof(label), "alone: %.110s", t->sites[cand[k]].label);
		list[n++] = hmpt_config_get(t, x->journal, fast, label, HMPT_PHASE_RANKING);
	}
	free(fast);
	for (int k = 0; k < n; k++)
		t->configs[list[k]].ref = t->ref;
	if (!x->quiet)
		fprintf(stderr,
		        "hmpt-tune: %d site%s of %s; measuring each alone in the fast pool "
		        "(%d runs)\n",
		        t->nsites, t->nsites == 1 ? "" : "s", t->opt->program,
		        (n - 1 + hmpt_measure_ref_share(n - 1)) * t->opt->reps);
	if (hmpt_measure_configs(t, x, list, n) != 0 || hmpt_stage_analyze(t) != 0)
		return -1;
	int *ranked = list + 1, nranked = n - 1;
	hmpt_method_rank(t, ranked, nranked);
	int k = t->opt->ngroups_max;
	if (t->nsites <= k) {
		k = t->nsites;
	} else {
		k--; /* the last group is the rest */
	}
	for (int g = 0; g < k && g < nranked; g++) {
		const hmpt_tconfig_t *c = &t->configs[ranked[g]];
		for (int i = 0; i < t->nsites; i++)
			if (c->fast[i])
				t->sites[i].group = g;
	}
	t->ngroups = k < nranked ? k : nranked;
	/* nothing was chosen: no single was picked for being fast by chance,
	 * so the ranking's runs can serve the search as its own */
	t->ranking_shared = t->ngroups == nranked;
	return 0;
}

int hmpt_stage_rank(hmpt_tune_t *t, hmpt_measure_t *x)
{
	if ((t->opt->nuser ? user_groups(t, t->opt->user, t->opt->nuser) : ranked_groups(t, x)) !=
	    0)
		return -1;
	/* the rest */
	bool rest = false;
	for (int i = 0; i < t->nsites; i++)
		if (t->sites[i].group < 0) {
			t->sites[i].group = t->ngroups;
			rest = true;
		}
	if (rest)
		t->ngroups++;
	for (int g = 0; g < t->ngroups; g++) {
		hmpt_tgroup_t *gr = &t->groups[g];
		snprintf(gr->name, sizeof(gr->name), rest && g == t->ngroups - 1 ? "rest" : "G%d",
		         g + 1);
		for (int i = 0; i < t->nsites; i++)
			if (t->sites[i].group == g) {
				gr->nsites++;
				gr->bytes += t->sites[i].bytes;
				gr->access += t->sites[i].access > 0 ? t->sites[i].access : 0;
			}
	}
	return 0;
}
