/* stage_rank.c — the rank stage: the groups, from --group or by ranking
 * each candidate site alone in the fast pool; and the analysis every
 * measuring stage ends with. */
#include "stages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "method.h"
#include "profiles.h"
#include "view.h"

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

/* The sites in ranking order: the largest first, or the most accessed
 * when sampled. */
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

double hmpt_rank_skip_below(double min_gain)
{
	return min_gain > 0 ? min_gain / (1 + min_gain) : 0;
}

/* The upper one-sided 95 % bound of a share of n in N (Wilson's score
 * interval): a share seen in few samples is taken high. */
static double share_upper(double n, double N)
{
	const double z = 1.645;
	double p = n / N, z2 = z * z / N;
	return (p + z2 / 2 + z * sqrt(p * (1 - p) / N + z2 / (4 * N))) / (1 + z2);
}

/* Whether a site cannot gain --min-gain alone, so that timing it alone is
 * wasted: only where the samples are slices of CPU time (a timer's).
 * Placing a site saves at most the time spent on its accesses: a share s
 * of the run gives at most 1/(1-s), under the gain asked when s <
 * min_gain/(1+min_gain) (0.99 % at the default 1 %).  s is taken high: of
 * the samples with an address only (time in no memory access counts for
 * no site), at its upper 95 % bound (few samples skip nothing), plus what
 * user-mode samples miss and the site's bytes bound: the kernel's page
 * faults cost per page (at most its share of the bytes first touched),
 * and a streamed array's write-backs stall others' loads (they grow with
 * its footprint).  A skipped site stays in "rest", which the search still
 * places. */
static bool below_gain(const hmpt_tune_t *t, const hmpt_tsite_t *s)
{
	const json_t *sm = json_object_get(t->profile, "sampling");
	const json_t *ss = json_object_get(s->json, "samples");
	double N = (double)hmpt_prof_u64(sm, "share_of"), n = (double)hmpt_prof_u64(ss, "n");
	double touched = (double)hmpt_prof_u64(sm, "touched_of");
	double bytes = t->total_bytes ? (double)s->bytes / (double)t->total_bytes : 1;

	if (!t->access_time || N <= 0 || !json_is_integer(json_object_get(ss, "n")))
		return false;
	if (touched > 0)
		bytes = fmax(bytes, (double)hmpt_prof_u64(ss, "first_touch_bytes") / touched);
	return share_upper(n, N) + bytes < hmpt_rank_skip_below(t->opt->min_gain);
}

int hmpt_rank_candidates(const hmpt_tune_t *t, int *cand, int *skipped)
{
	int order[t->nsites + 1], n = 0;

	order_candidates(t, order);
	*skipped = 0;
	for (int k = 0; k < t->nsites && n < t->opt->candidates; k++)
		if (below_gain(t, &t->sites[order[k]]))
			(*skipped)++;
		else
			cand[n++] = order[k];
	return n;
}

/* The ranking phase: all-slow, and each candidate alone in the fast pool;
 * the K-1 with most impact a group each (all K when no more sites). */
static int ranked_groups(hmpt_tune_t *t, hmpt_measure_t *x)
{
	unsigned char *fast = calloc((size_t)t->nsites + 1, 1);
	int cand[t->nsites + 1], list[t->nsites + 2], n = 0, skipped;
	int ncand = hmpt_rank_candidates(t, cand, &skipped);

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
		        "hmpt-tune: %d site%s of %s; measuring %s alone in the fast pool "
		        "(%d runs)\n",
		        t->nsites, t->nsites == 1 ? "" : "s", t->opt->program,
		        skipped ? "the others" : "each",
		        (n - 1 + hmpt_measure_ref_share(n - 1)) * t->opt->reps);
	char of[128];
	if (!x->quiet && skipped)
		fprintf(
		    stderr,
		    "hmpt-tune: %d site%s not measured alone: %s share of %s and of the bytes "
		    "is under %.2f %%, too little to gain %.0f %% (--min-gain); %s in \"rest\"\n",
		    skipped, skipped == 1 ? "" : "s", skipped == 1 ? "its" : "each one's",
		    hmpt_view_share_of(t, of, sizeof(of)),
		    100 * hmpt_rank_skip_below(t->opt->min_gain), 100 * t->opt->min_gain,
		    skipped == 1 ? "it stays" : "they stay");
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
