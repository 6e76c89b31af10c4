/* phases.c — the steps of a tuning: profile, group, combinations, analysis,
 * plans. */
#include "phases.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "confirm.h"
#include "method.h"
#include "plan.h"
#include "planout.h"
#include "profiles.h"
#include "profrun.h"
#include "report.h"
#include "search.h"
#include "runner.h"

/* ------------------------------------------------------------- profile */

/* The profile run: DIR/profile/profile.json and sites.tsv, journaled. */
static int profile_run(hmpt_tune_t *t, hmpt_measure_t *x, const char *sample, const char *pdir,
                       const char *absdir)
{
	char pattern[PATH_MAX + 32], log[PATH_MAX], sv[64], mv[64];
	char *set[5] = {pattern, NULL, NULL, NULL, NULL}, **sp = set + 1;

	snprintf(pattern, sizeof(pattern), "HMPT_PROFILE=%s/profile.%%p.json", absdir);
	snprintf(sv, sizeof(sv), "HMPT_SAMPLE=%s", sample);
	*sp++ = sv;
	if (x->min_size && snprintf(mv, sizeof(mv), "HMPT_MIN_SIZE=%s", x->min_size))
		*sp++ = mv;
	size_t added;
	char **env = hmpt_child_env(x->lib, set, &added);
	hmpt_profiles_clear(absdir);
	snprintf(log, sizeof(log), "%s/runs/profile.log", t->dir);
	if (!x->quiet)
		fprintf(stderr, "hmpt-tune: profiling %s (output in %s)\n", t->program, log);
	hmpt_run_spec_t spec = {.argv = t->cmd, .env = env, .log = log, .quiet = true};
	hmpt_run_result_t res = {0};
	if (x->slurm) { /* on a node, as the measured runs will be */
		hmpt_sjob_t job;
		if (hmpt_measure_slurm_job(x, t->cmd, set, log, 0, &job) == 0 && job.status) {
			fprintf(stderr, "hmpt-tune: the profile run on %s %s\n",
			        *job.host ? job.host : "Slurm", job.why);
			return -1;
		}
		res.wall = job.wall;
	} else {
		hmpt_run(&spec, &res);
	}
	hmpt_child_env_free(env, added);
	if (hmpt_measure_interrupted())
		return -1;
	if (res.status) {
		char why[160];
		hmpt_run_describe(&res, 0, why, sizeof(why));
		fprintf(stderr,
		        "hmpt-tune: %s %s in the profile run, before any placement "
		        "change: fix that first (its output is in %s)\n",
		        t->program, why, log);
		return -1;
	}
	double figure;
	if (t->metric && hmpt_measure_metric_read(x, log, &figure) != 0) {
		fprintf(stderr,
		        "hmpt-tune: --metric '%s': no figure in the output of %s (see %s): "
		        "give a regular expression that matches the line with the figure\n",
		        t->metric, t->program, log);
		return -1;
	}
	if (t->timeout == 0)
		t->timeout = 30 + 5 * res.wall;
	int none;
	json_t *merged = hmpt_profiles_collect(absdir, (long)res.pid, &none);
	if (!merged) {
		if (none)
			fprintf(stderr,
			        "hmpt-tune: %s made no allocation of at least %s bytes: "
			        "nothing to place (--min-size lowers the threshold)\n",
			        t->program, x->min_size ? x->min_size : "1M");
		return -1;
	}
	if (hmpt_profiles_write(pdir, merged, t->sym) != 0) {
		json_decref(merged);
		return -1;
	}
	json_decref(merged);
	hmpt_journal_add_profile(x->journal, res.wall);
	return 0;
}

static int cmp_bytes_desc(const void *a, const void *b)
{
	const hmpt_tsite_t *x = a, *y = b;
	return (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

/* t->profile from DIR/profile/profile.json, and its sites. */
static int load_sites(hmpt_tune_t *t, hmpt_measure_t *x, const char *pdir)
{
	char path[PATH_MAX + 16], err[1024];
	snprintf(path, sizeof(path), "%s/profile.json", pdir);
	t->profile = hmpt_prof_load(path, err, sizeof(err));
	if (!t->profile) {
		fprintf(stderr, "hmpt-tune: %s (--restart profiles again)\n", err);
		return -1;
	}
	if (t->timeout == 0) /* resumed: the journal has the profile run's time */
		t->timeout = 30 + 5 * x->journal->profile_wall;
	hmpt_prof_sort_sites(t->profile);
	const json_t *sites = json_object_get(t->profile, "sites"), *s;
	const json_t *sampling = json_object_get(t->profile, "sampling");
	const char *mode = sampling ? hmpt_prof_str(sampling, "mode") : NULL;
	if (mode && (!strcmp(mode, "pebs") || !strcmp(mode, "ibs")))
		t->access_kind = "accesses";
	else if (mode && !strcmp(mode, "faults"))
		t->access_kind = "first touches";
	size_t i;
	t->nsites = (int)json_array_size(sites);
	t->sites = calloc((size_t)t->nsites + 1, sizeof(*t->sites));
	json_array_foreach(sites, i, s)
	{
		hmpt_tsite_t *ts = &t->sites[i];
		const json_t *smp = json_object_get(s, "samples");
		ts->json = s;
		ts->id = hmpt_prof_str(s, "id");
		ts->bytes = hmpt_prof_u64(s, "peak_live_bytes");
		ts->access = smp && json_is_number(json_object_get(smp, "share"))
		                 ? json_number_value(json_object_get(smp, "share"))
		                 : -1;
		ts->group = -1;
		hmpt_site_loc_t loc;
		hmpt_report_locate(t->sym, t->profile, s, &loc);
		snprintf(ts->label, sizeof(ts->label), "%.70s (%.45s%s%.36s)", loc.function,
		         loc.location, *loc.detail ? ", " : "", loc.detail);
		t->total_bytes += ts->bytes;
	}
	qsort(t->sites, (size_t)t->nsites, sizeof(*t->sites), cmp_bytes_desc);
	if (!t->nsites) {
		fprintf(stderr, "hmpt-tune: the profile has no sites: nothing to place\n");
		return -1;
	}
	return 0;
}

int hmpt_phases_profile(hmpt_tune_t *t, hmpt_measure_t *x, const char *sample)
{
	char pdir[PATH_MAX], absdir[PATH_MAX];

	snprintf(pdir, sizeof(pdir), "%s/profile", t->dir);
	if (hmpt_mkdir_p(pdir) != 0 || !realpath(pdir, absdir)) {
		fprintf(stderr, "hmpt-tune: cannot create %s: %s\n", pdir, strerror(errno));
		return -1;
	}
	if (!x->journal->profiled && profile_run(t, x, sample, pdir, absdir) != 0)
		return -1;
	return load_sites(t, x, pdir);
}

/* -------------------------------------------------------------- groups */

/* The reference must have run: without it nothing can be compared. */
static int check_reference(const hmpt_tune_t *t)
{
	const hmpt_tconfig_t *r = &t->configs[t->ref];
	if (r->sum.n >= 2 || (r->sum.n >= 1 && t->reps < 2))
		return 0;
	for (int i = 0; i < r->nruns; i++)
		if (r->runs[i].status) {
			fprintf(stderr,
			        "hmpt-tune: the all-slow reference %s (run %d; its output is in "
			        "%s/runs/%s.%d.log): nothing can be compared with it\n",
			        r->runs[i].why, r->runs[i].rep + 1, t->dir, r->key,
			        r->runs[i].rep + 1);
			return -1;
		}
	fprintf(stderr, "hmpt-tune: the all-slow reference has too few runs\n");
	return -1;
}

int hmpt_phases_analyze(hmpt_tune_t *t)
{
	hmpt_method_analyze(t);
	return check_reference(t);
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
				        t->dir);
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
	if (t->access_kind && !strcmp(t->access_kind, "accesses"))
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
	int ncand = t->nsites < t->candidates ? t->nsites : t->candidates;
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
		        t->nsites, t->nsites == 1 ? "" : "s", t->program,
		        (n - 1 + hmpt_measure_ref_share(n - 1)) * t->reps);
	if (hmpt_measure_configs(t, x, list, n) != 0 || hmpt_phases_analyze(t) != 0)
		return -1;
	int *ranked = list + 1, nranked = n - 1;
	hmpt_method_rank(t, ranked, nranked);
	int k = t->ngroups_max;
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
	return 0;
}

int hmpt_phases_group(hmpt_tune_t *t, hmpt_measure_t *x, char *const *user, int nuser)
{
	if ((nuser ? user_groups(t, user, nuser) : ranked_groups(t, x)) != 0)
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
		list[m] = hmpt_config_get(t, x->journal, fast, label, HMPT_PHASE_COMBOS);
		hmpt_tconfig_t *c = &t->configs[list[m]];
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
		    .rounds = (hmpt_tune_config_taken(c) + t->reps - 1) / t->reps,
		    .failed = failed};
	}
	return n;
}

/* Runs of the combination phase so far (--split's included), and
 * configurations with runs (all-slow aside). */
static int phase_runs(const hmpt_tune_t *t, int *configs)
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

/* --search model: batches of configurations the model asks for (search.h),
 * each measured --reps times against all-slow runs interleaved with it. */
static int search_model(hmpt_tune_t *t, hmpt_measure_t *x, const int *list)
{
	hmpt_search_setup_t s = {.k = t->ngroups, .confidence = 1 - t->alpha};
	hmpt_search_obs_t *obs = calloc((size_t)t->ncombos + 16, sizeof(*obs));
	int *batch = calloc((size_t)t->ncombos + 1, sizeof(int)), rc = 0, nobs = 0;
	hmpt_tconfig_t *ref = &t->configs[list[0]];

	if (!obs || !batch) {
		free(obs);
		free(batch);
		return -1;
	}
	for (int g = 0; g < t->ngroups; g++)
		s.bytes[g] = (double)t->groups[g].bytes;
	/* A configuration's journaled runs count only once the search asks for
	 * it, so that a resumed search takes the same steps on the same data,
	 * running only what is missing. */
	for (int m = 0; m < t->ncombos; m++)
		t->configs[list[m]].want = -1;
	hmpt_method_analyze(t);
	for (;;) {
		int nb = 1, measured, wants[3];
		if (ref->nfailed && !ref->sum.n) { /* nothing can be compared */
			rc = check_reference(t);
			break;
		}
		batch[0] = list[0];
		nobs = search_observe(t, list, obs);
		unsigned next[2];
		hmpt_search_stop_t why;
		int got = hmpt_search_next(&s, obs, nobs, next, 2, &why);
		t->search_stop = hmpt_search_why(why);
		for (int i = 0; i < got; i++) {
			hmpt_tconfig_t *c = &t->configs[list[next[i]]];
			/* new: --reps runs; measured: another round */
			wants[1 + i] = c->want;
			c->want = c->want < 0 ? t->reps : c->want + t->reps;
			batch[nb++] = list[next[i]];
		}
		if (nb == 1)
			break;
		int runs = phase_runs(t, &measured);
		int before = ref->want;
		/* all-slow: sqrt(configurations) times --reps, and one run per
		 * batch at least, so that every batch meets it */
		int want = t->reps * hmpt_measure_ref_share(measured + nb - 1);
		int have = hmpt_tune_config_taken(ref);
		ref->want = want > have ? want : have + 1;
		int cost = ref->want - have;
		for (int i = 1; i < nb; i++) {
			const hmpt_tconfig_t *c = &t->configs[batch[i]];
			cost += hmpt_tune_config_want(t, c) - c->sum.n - c->noutliers;
		}
		if (t->budget && runs + cost > t->budget &&
		    hmpt_search_design(&s, obs, nobs, NULL, 0) > 0) {
			fprintf(
			    stderr,
			    "hmpt-tune: --budget %d: too small for the model search's first "
			    "configurations (all-fast, all-slow and the groups the ranking did not "
			    "measure alone; %d runs so far, the next %d)\n",
			    t->budget, runs, cost);
			rc = -1;
			break;
		}
		if (t->budget && runs + cost > t->budget) {
			/* as if the batch had not been asked for: runs of it that the
			 * journal holds must not count */
			ref->want = before;
			for (int i = 1; i < nb; i++)
				t->configs[batch[i]].want = wants[i];
			if (!x->quiet)
				fprintf(stderr,
				        "hmpt-tune: --budget %d runs reached (%d so far; the next "
				        "configurations would take %d more)\n",
				        t->budget, runs, cost);
			t->search_stop = "the --budget of runs";
			break;
		}
		rc = hmpt_measure_configs(t, x, batch, nb);
		if (rc)
			break;
		hmpt_method_analyze(t);
		if (phase_runs(t, &measured) == runs) { /* nothing new: no way on */
			t->search_stop = "no new runs could be taken";
			break;
		}
	}
	if (rc == 0) {
		double *mean = calloc((size_t)t->ncombos, sizeof(double));
		double *sd = calloc((size_t)t->ncombos, sizeof(double));
		if (mean && sd) {
			hmpt_search_predict(&s, obs, nobs, mean, sd);
			for (int m = 1; m < t->ncombos; m++) {
				hmpt_tconfig_t *c = &t->configs[list[m]];
				c->predicted = c->sum.n + c->nfailed ? 0 : exp(mean[m]);
			}
		}
		free(mean);
		free(sd);
		int configs, runs = phase_runs(t, &configs);
		if (!x->quiet)
			fprintf(stderr,
			        "hmpt-tune: model search: %d configurations, %d runs (exhaustive "
			        "search: %d configurations, %d runs); stopped: %s\n",
			        configs, runs, t->ncombos,
			        t->reps * (t->ncombos - 1 + hmpt_measure_ref_share(t->ncombos - 1)),
			        t->search_stop ? t->search_stop : "-");
	}
	free(obs);
	free(batch);
	return rc;
}

int hmpt_phases_combos(hmpt_tune_t *t, hmpt_measure_t *x)
{
	int ncomb = 1 << t->ngroups, list[1 << 10] = {0};

	combos_create(t, x, list);
	x->warm = false; /* a phase begins with a warm-up run */
	if (!t->exhaustive) {
		if (!x->quiet)
			fprintf(stderr,
			        "hmpt-tune: %d group%s: model search among %d configurations (at "
			        "most %d, %d runs each)\n",
			        t->ngroups, t->ngroups == 1 ? "" : "s", ncomb,
			        2 * t->ngroups + 4 < ncomb ? 2 * t->ngroups + 4 : ncomb, t->reps);
		return search_model(t, x, list);
	}
	if (!x->quiet)
		fprintf(stderr,
		        "hmpt-tune: %d group%s: measuring %d configurations, %d run%s each, "
		        "%d of all-slow\n",
		        t->ngroups, t->ngroups == 1 ? "" : "s", ncomb, t->reps,
		        t->reps == 1 ? "" : "s", t->reps * hmpt_measure_ref_share(ncomb - 1));
	return hmpt_measure_configs(t, x, list, ncomb);
}

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
	if (t->budget && phase_runs(t, &configs) + t->reps + 1 > t->budget) {
		if (!x->quiet)
			fprintf(stderr, "hmpt-tune: split: --budget %d runs reached\n", t->budget);
		return 1;
	}
	hmpt_tconfig_t *c = &t->configs[ci], *ref = &t->configs[t->ref];
	c->mask = mask;
	c->ref = t->ref;
	c->want = t->reps;
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
	if (!t->capacity || t->fit < 0)
		return 0;
	const hmpt_tconfig_t *fit = &t->configs[t->fit];
	if (!fit->in_combos || fit->split_ppm || fit->fast_bytes >= t->capacity)
		return 0;
	uint64_t room = t->capacity - fit->fast_bytes;
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

int hmpt_phases_refine(hmpt_tune_t *t, hmpt_measure_t *x)
{
	bool on = t->split > 0 || (t->split < 0 && same_pages(t->fast_pool, t->slow_pool));
	if (!on || t->fastest < 0 || !t->ncombos || !pool_splits(t->fast_pool) ||
	    !pool_splits(t->slow_pool))
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

/* --------------------------------------------------------------- plans */

int hmpt_phases_write_plans(hmpt_tune_t *t)
{
	struct {
		const char *file;
		int config;
		const char *what;
	} out[] = {{"plan-best.json", t->best,
	            "smallest fast footprint not measurably slower than the fastest"},
	           {"plan-90.json", t->best90,
	            "smallest fast footprint with 90 % of the fastest's speedup"},
	           {"plan-capacity.json", t->fit,
	            "smallest fast footprint within --capacity not measurably slower than the "
	            "fastest there"},
	           {"plan-slow.json", t->ref, "the all-slow reference"}};
	int searched[] = {t->search_best, t->search_best90, t->search_fit};
	for (size_t k = 0; k < sizeof(out) / sizeof(out[0]); k++) {
		char path[PATH_MAX], text[512];
		int ci = out[k].config >= 0 ? out[k].config : t->ref;
		const hmpt_tconfig_t *c = &t->configs[ci];
		if (k == 2 && !t->capacity)
			continue;
		const hmpt_tconfirm_t *cf = hmpt_confirm_of(t, out[k].config);
		const hmpt_tconfirm_t *lost = k < 3 ? hmpt_confirm_of(t, searched[k]) : NULL;
		char fig[96] = "";
		if (lost && lost->pairs > 1)
			snprintf(fig, sizeof(fig), " (%.3fx, %.2f %% interval %.3f-%.3f)",
			         lost->sp.speedup, 100 * (1 - t->confirm_alpha), lost->sp.lo,
			         lost->sp.hi);
		if (out[k].config < 0 && lost)
			snprintf(
			    text, sizeof(text),
			    "%s: none; the search's choice, %s at %.3fx, was not confirmed "
			    "faster in %d fresh rounds beside all-slow%s%s, so nothing is placed "
			    "in the fast pool",
			    out[k].what, t->configs[lost->of].label,
			    t->configs[lost->of].sp.speedup, lost->pairs, fig,
			    t->ntried > 1 ? ", nor was any other configuration tried" : "");
		else if (out[k].config < 0)
			snprintf(
			    text, sizeof(text),
			    "%s: none; no configuration was measurably faster than all-slow%s, "
			    "so nothing is placed in the fast pool",
			    out[k].what, k == 2 ? " within --capacity" : "");
		else if (ci == t->ref)
			snprintf(text, sizeof(text), "%s", out[k].what);
		else if (cf)
			snprintf(
			    text, sizeof(text),
			    "%s: %s, confirmed %.3fx over all-slow (%.2f %% interval %.3f-%.3f, %d "
			    "fresh paired rounds; the search measured %.3fx), %.1f %% of the "
			    "footprint in the fast pool",
			    out[k].what, c->label, cf->sp.speedup, 100 * (1 - t->confirm_alpha),
			    cf->sp.lo, cf->sp.hi, cf->pairs, c->sp.speedup, 100 * c->fast_fraction);
		else
			snprintf(text, sizeof(text),
			         "%s: %s, %.3fx over all-slow (%.0f %% interval %.3f-%.3f, %d runs "
			         "each), %.1f %% of the footprint in the fast pool",
			         out[k].what, c->label, c->sp.speedup, 100 * (1 - t->alpha_used),
			         c->sp.lo, c->sp.hi, c->sum.n, 100 * c->fast_fraction);
		json_t *plan = hmpt_config_plan(t, c, text);
		snprintf(path, sizeof(path), "%s/%s", t->dir, out[k].file);
		int rc = hmpt_plan_emit(plan, path);
		json_decref(plan);
		if (rc)
			return -1;
	}
	return 0;
}
