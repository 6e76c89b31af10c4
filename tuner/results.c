/* results.c — what the tuner found, for people and for scripts:
 * results.json, results.csv, the two plots (gnuplot), report.html, and the
 * summary table. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "runner.h"
#include "results.h"
#include "confirm.h"
#include "tuning.h"
#include "view.h"
#include "outfile.h"

/* Where the model search stopped short of what it could tell, in words
 * (summary and report.html alike): its model misfit, or the best may be
 * short by more than half a percent, and what to run.  false: nothing to
 * say (a search that settled where its model fits, or exhaustive search). */
static bool search_short_text(const hmpt_tune_t *t, char *buf, size_t cap)
{
	const hmpt_search_outcome_t *so = &t->search_outcome;
	size_t len = 0;

	if (t->opt->exhaustive || !t->search_stop || (!so->misfit && !(so->short_by > 1.005)))
		return false;
	if (so->misfit)
		len += (size_t)snprintf(
		    buf, cap,
		    "The search model does not fit this program's runs (mean squared standardised "
		    "error %.1f, about 1 where it fits): gains depend on which groups are fast "
		    "together in ways its model misses; %s %d configurations. ",
		    so->misfit_stat,
		    so->configs > 2 * t->ngroups + 4 ? "it searched on around the best, to"
		                                     : "it measured",
		    so->configs);
	if (so->short_by > 1.005 && len < cap)
		len += (size_t)snprintf(buf + len, cap - len,
		                        "The best found may be short of the true best by up to "
		                        "%.0f %% (the model's bound). ",
		                        100 * (so->short_by - 1));
	if (so->advice && len < cap)
		snprintf(buf + len, cap - len, "To close the gap: %s.", so->advice);
	return true;
}

#define GROUP_SITES_NAMED 5 /* sites named in a row of the groups table */

extern char **environ;

/* Shown configurations in the order of every table: measured ones by
 * speedup, best first, then failed ones, then those the search model only
 * predicted, by predicted speedup. */
static const hmpt_tune_t *sort_ctx;
static int sort_rank(const hmpt_tconfig_t *c, double *key)
{
	*key = hmpt_tune_config_predicted(c) ? c->predicted : c->sp.speedup;
	return hmpt_tune_config_predicted(c) ? 2 : c->nfailed ? 1 : 0;
}

static int cmp_speedup(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	double sx, sy;
	int rx = sort_rank(&sort_ctx->configs[i], &sx), ry = sort_rank(&sort_ctx->configs[j], &sy);
	if (rx != ry)
		return rx - ry;
	/* ties by index: qsort is not stable, and reports should not change
	 * from one run to the next */
	return sx != sy ? (sx < sy) - (sx > sy) : i - j;
}

static int sorted_configs(const hmpt_tune_t *t, int *order)
{
	int n = 0;
	for (int i = 0; i < t->nconfigs; i++)
		if (hmpt_tune_config_shown(t, i))
			order[n++] = i;
	sort_ctx = t;
	qsort(order, (size_t)n, sizeof(int), cmp_speedup);
	return n;
}

/* The verdicts, with how the summary plot draws each (point type and
 * colour: green gains, grey is noise, red loses). */
enum { V_REFERENCE, V_FASTER, V_SAME, V_SLOWER, V_FAILED, V_PREDICTED, V_COUNT };
static const struct {
	const char *name, *colour, *title;
	int pt;
} kinds[V_COUNT] = {
    [V_REFERENCE] = {"reference", "#000000", "all-slow (reference)", 5},
    [V_FASTER] = {"faster", "#1a9850", "faster", 7},
    [V_SAME] = {"same", "#8c8c8c", "same (within the noise)", 7},
    [V_SLOWER] = {"slower", "#d73027", "slower", 7},
    [V_FAILED] = {"failed", "#7b3294", "failed runs", 2},
    [V_PREDICTED] = {"predicted", "#4575b4", "predicted by the model, not measured", 6},
};

static int verdict_kind(const hmpt_tune_t *t, int i)
{
	const hmpt_tconfig_t *c = &t->configs[i];
	if (i == c->ref)
		return V_REFERENCE;
	if (hmpt_tune_config_predicted(c))
		return V_PREDICTED;
	if (c->nfailed)
		return V_FAILED;
	if (c->sp.faster)
		return V_FASTER;
	if (c->sp.slower)
		return V_SLOWER;
	return V_SAME;
}

static const char *verdict(const hmpt_tune_t *t, int i)
{
	return kinds[verdict_kind(t, i)].name;
}

/* by footprint, then speedup, best first */
static int cmp_footprint(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	const hmpt_tconfig_t *x = &sort_ctx->configs[i], *y = &sort_ctx->configs[j];
	if (x->fast_bytes != y->fast_bytes)
		return x->fast_bytes < y->fast_bytes ? -1 : 1;
	if (x->sp.speedup != y->sp.speedup)
		return x->sp.speedup > y->sp.speedup ? -1 : 1;
	return i - j;
}

/* The front: the configurations measured with no failed run that no other
 * beats with less or equal fast footprint, by footprint (so by speedup too).
 * Returns how many, in out[]. */
static int front(const hmpt_tune_t *t, int *out)
{
	int n = 0, m = 0;
	for (int i = 0; i < t->nconfigs; i++)
		if (hmpt_tune_config_shown(t, i) && t->configs[i].sum.n > 0 &&
		    !t->configs[i].nfailed)
			out[n++] = i;
	sort_ctx = t;
	qsort(out, (size_t)n, sizeof(int), cmp_footprint);
	for (int k = 0; k < n; k++)
		if (m == 0 || t->configs[out[k]].sp.speedup > t->configs[out[m - 1]].sp.speedup)
			out[m++] = out[k];
	return m;
}

/* The predictions worth naming: above the front (the best measured with as
 * little in the fast pool, so the next to measure), the first 3 in sorted
 * order; counted in *named. */
static bool prediction_named(const hmpt_tune_t *t, const hmpt_tconfig_t *c, const int *fr, int nf,
                             int *named)
{
	double front_there = 0;
	for (int k = 0; k < nf && t->configs[fr[k]].fast_bytes <= c->fast_bytes; k++)
		front_there = t->configs[fr[k]].sp.speedup;
	if (!hmpt_tune_config_predicted(c) || *named == 3 || c->predicted <= front_there)
		return false;
	++*named;
	return true;
}

static json_t *num_or_null(double v, bool ok)
{
	return ok && isfinite(v) ? json_real(v) : json_null();
}

static const char *phase_name(const hmpt_tconfig_t *c)
{
	return c->in_combos ? "combinations" : c->in_confirm ? "confirmation" : "ranking";
}

/* What the machine did during run r (null where not known: --slurm), and
 * whether it was superseded or kept though disturbed. */
static void run_load_json(json_t *o, const hmpt_trun_t *r)
{
	json_object_set_new(o, "cpu_s", num_or_null(r->cpu, r->has_cpu));
	json_object_set_new(o, "nivcsw", r->has_cpu ? json_integer(r->nivcsw) : json_null());
	json_object_set_new(o, "others_s", num_or_null(r->others, r->has_load));
	json_object_set_new(o, "steal_s", num_or_null(r->steal, r->has_load));
	json_object_set_new(o, "ncpus", r->has_load ? json_integer(r->ncpus) : json_null());
	json_object_set_new(o, "mem_load", num_or_null(r->mem_load, r->has_mem_load));
	if (*r->retaken)
		json_object_set_new(o, "retaken", json_string(r->retaken));
	if (*r->disturbed)
		json_object_set_new(o, "disturbed", json_string(r->disturbed));
	if (r->outlier)
		json_object_set_new(o, "outlier", json_true());
}

/* The rule that judges a run disturbed, in words (summary, results.json). */
static void noise_rule(char *buf, size_t cap)
{
	snprintf(buf, cap,
	         "a run is disturbed when the share of its CPUs' capacity that other load took "
	         "(others / (wall x CPUs)) exceeds the median of the last %d runs by more than "
	         "%.2f (steal likewise), once %d runs are there; it is taken again at most "
	         "--retakes times, at most a quarter of a phase's runs",
	         HMPT_NOISE_WINDOW, HMPT_NOISE_MARGIN, HMPT_NOISE_MIN_RUNS);
}

static json_t *noise_json(const hmpt_tune_t *t)
{
	const hmpt_tnoise_t *z = &t->noise;
	char rule[400];
	noise_rule(rule, sizeof(rule));
	json_t *trend = json_null();
	if (z->have_trend)
		trend = json_pack("{s:i,s:f,s:f,s:f,s:f}", "runs", z->trend.n, "drift",
		                  z->trend.drift, "slope_log_per_run", z->trend.slope, "z",
		                  z->trend.z, "p", z->trend.p);
	return json_pack("{s:s,s:i,s:{s:i,s:i},s:i,s:i,s:o,s:o,s:f,s:o,s:o}", "rule", rule,
	                 "runs_with_load", z->judged, "retaken", "load", z->retaken_load, "steal",
	                 z->retaken_steal, "disturbed_kept", z->kept, "outliers", z->outliers,
	                 "reference_drift", trend, "reference_spread",
	                 num_or_null(z->spread, z->have_trend), "power", 0.8, "detectable_speedup",
	                 num_or_null(1 + z->detectable, isfinite(z->detectable)), "reps_needed",
	                 z->reps_needed ? json_integer(z->reps_needed) : json_null());
}

static json_t *config_json(const hmpt_tune_t *t, int i)
{
	const hmpt_tconfig_t *c = &t->configs[i];
	json_t *runs = json_array(), *sites = json_array(), *groups = json_array();

	for (int k = 0; k < c->nruns; k++) {
		const hmpt_trun_t *r = &c->runs[k];
		json_t *o =
		    json_pack("{s:i,s:i,s:f,s:o}", "rep", r->rep + 1, "status", r->status, "wall_s",
		              r->wall, "value", num_or_null(r->value, !r->status));
		if (r->status)
			json_object_set_new(o, "why", json_string(r->why));
		run_load_json(o, r);
		json_array_append_new(runs, o);
	}
	for (int s = 0; s < t->nsites; s++)
		if (c->fast[s])
			json_array_append_new(sites, json_string(t->sites[s].id));
	for (int g = 0; g < t->ngroups && c->in_combos; g++)
		if (c->mask >> g & 1)
			json_array_append_new(groups, json_string(t->groups[g].name));
	bool have = c->sum.n > 0;
	return json_pack(
	    "{s:s,s:s,s:s,s:s,s:o,s:o,s:I,s:f,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:i,s:o,s:b,s:o}",
	    "key", c->key, "label", c->label, "phase", phase_name(c), "reference",
	    t->configs[c->ref].key, "groups", groups, "fast_sites", sites, "fast_bytes",
	    (json_int_t)c->fast_bytes, "fast_fraction", c->fast_fraction, "access_fraction",
	    num_or_null(c->access_fraction, c->access_fraction >= 0), "mean",
	    num_or_null(c->sum.mean, have), "sd", num_or_null(c->sum.sd, have), "speedup",
	    num_or_null(c->sp.speedup, have), "lo", num_or_null(c->sp.lo, c->sum.n > 1), "hi",
	    num_or_null(c->sp.hi, c->sum.n > 1), "estimate",
	    num_or_null(c->estimate, c->estimate > 0), "verdict", verdict(t, i), "failed_runs",
	    c->nfailed, "runs", runs, "measured", c->sum.n + c->nfailed > 0, "predicted",
	    num_or_null(c->predicted, c->predicted > 0));
}

static json_t *choice_json(const hmpt_tune_t *t, int i, const char *file)
{
	if (i < 0)
		return json_null();
	const hmpt_tconfirm_t *cf = hmpt_confirm_of(t, i);
	/* the confirmed figure where there is one */
	return json_pack("{s:s,s:s,s:f,s:f}", "key", t->configs[i].key, "plan", file, "speedup",
	                 cf ? cf->sp.speedup : t->configs[i].sp.speedup, "fast_fraction",
	                 t->configs[i].fast_fraction);
}

/* The confirmation's fit of an entry's speedup on the memory load
 * (loaddep.h); null where it does not stand (load unknown, too few rounds,
 * or the same load in all). */
static json_t *load_dep_json(const hmpt_tconfirm_t *cf)
{
	const hmpt_loaddep_t *l = &cf->load;
	if (!l->fitted)
		return json_null();
	return json_pack("{s:i,s:b,s:f,s:f,s:f,s:b,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:b,s:s}", "pairs",
	                 l->n, "with_pair_difference", l->with_diff, "slope", l->slope, "se", l->se,
	                 "t", l->t, "depends", l->depends, "quiet_load", l->quiet_load, "busy_load",
	                 l->busy_load, "speedup_quiet", l->quiet, "speedup_busy", l->busy,
	                 "speedup_all_rounds", cf->sp_all.speedup, "lo_all_rounds", cf->sp_all.lo,
	                 "hi_all_rounds", cf->sp_all.hi, "quiet_below_min_gain", cf->quiet_below,
	                 "based_on", l->depends ? "quietest load (fit)" : "all rounds");
}

static json_t *tried_json(const hmpt_tune_t *t, const hmpt_tconfirm_t *cf)
{
	const hmpt_tconfig_t *c = &t->configs[cf->of];
	json_t *sites = json_array();
	for (int s = 0; s < t->nsites; s++)
		if (c->fast[s])
			json_array_append_new(sites, json_string(t->sites[s].id));
	json_t *behind = json_null();
	if (cf->behind >= 0)
		behind = json_pack("{s:s,s:f,s:f,s:f,s:i}", "key", t->configs[cf->behind].key,
		                   "speedup", cf->vs_fastest.speedup, "lo", cf->vs_fastest.lo, "hi",
		                   cf->vs_fastest.hi, "pairs", cf->vs_pairs);
	json_t *o = json_pack(
	    "{s:s,s:s,s:s,s:s,s:f,s:o,s:o,s:i,s:b,s:b,s:s,s:f,s:f,s:o,s:o}", "key", c->key,
	    "confirmation_key", t->configs[cf->config].key, "label", c->label, "for", cf->for_plan,
	    "speedup", cf->sp.speedup, "lo", num_or_null(cf->sp.lo, cf->pairs > 1), "hi",
	    num_or_null(cf->sp.hi, cf->pairs > 1), "pairs", cf->pairs, "exact", cf->exact,
	    "confirmed", cf->confirmed, "why", cf->why, "search_speedup", c->sp.speedup,
	    "fast_fraction", c->fast_fraction, "fast_sites", sites, "slower_than", behind);
	json_object_set_new(o, "memory_load", load_dep_json(cf));
	return o;
}

#define NODES_MAX 32

/* How much the nodes differed (--slurm): all-slow's clean runs in the
 * confirmation, by the node each ran on.  A round ran on one node, so its
 * pairs do not see this; it says what unpaired runs would have. */
typedef struct {
	int n; /* nodes */
	char name[NODES_MAX][64];
	double median[NODES_MAX]; /* all-slow's median figure on it */
	int runs[NODES_MAX];
	double spread; /* the largest median over the smallest */
	double p;      /* rank F test (stats.h); 1 when it cannot be told */
} node_effect_t;

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* false when fewer than two nodes ran the confirmation */
static bool node_effect(const hmpt_tune_t *t, node_effect_t *ne)
{
	memset(ne, 0, sizeof(*ne));
	ne->p = 1;
	if (t->confirm_ref < 0)
		return false;
	const hmpt_tconfig_t *c = &t->configs[t->confirm_ref];
	double x[c->nruns + 1], v[c->nruns + 1];
	int g[c->nruns + 1], n = 0;
	/* the nodes, sorted by name; then each run's */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < c->nruns; i++) {
			const hmpt_trun_t *r = &c->runs[i];
			if (!hmpt_tune_run_counts(r) || r->status || r->value <= 0 || !*r->host)
				continue;
			int k = 0;
			while (k < ne->n && strcmp(ne->name[k], r->host))
				k++;
			if (pass == 0 && k == ne->n && k < NODES_MAX)
				snprintf(ne->name[ne->n++], sizeof(ne->name[0]), "%s", r->host);
			if (pass == 0 || k == ne->n)
				continue;
			x[n] = log(r->value);
			g[n++] = k;
			ne->runs[k]++;
		}
		if (pass == 0)
			qsort(ne->name, (size_t)ne->n, sizeof(ne->name[0]), cmp_name);
	}
	if (ne->n < 2)
		return false;
	double lo = INFINITY, hi = 0;
	for (int k = 0; k < ne->n; k++) {
		int m = 0;
		for (int i = 0; i < n; i++)
			if (g[i] == k)
				v[m++] = exp(x[i]);
		ne->median[k] = hmpt_stats_median_sorting(v, (size_t)m);
		lo = fmin(lo, ne->median[k]);
		hi = fmax(hi, ne->median[k]);
	}
	ne->spread = hi / lo;
	if (hmpt_stats_groups_differ(x, g, n, ne->n, &ne->p) != 0)
		ne->p = 1;
	return true;
}

static json_t *nodes_json(const hmpt_tune_t *t)
{
	node_effect_t ne;
	if (!node_effect(t, &ne))
		return json_null();
	json_t *per = json_object();
	for (int k = 0; k < ne.n; k++)
		json_object_set_new(
		    per, ne.name[k],
		    json_pack("{s:f,s:i}", "all_slow_median", ne.median[k], "runs", ne.runs[k]));
	return json_pack("{s:o,s:f,s:f,s:b}", "per_node", per, "spread", ne.spread, "p", ne.p,
	                 "differ", ne.p < t->opt->alpha);
}

/* The carry-over as a change of a run's time when the run before it was
 * all-slow (+: slower), with its 95 % interval, into *eff, *lo, *hi. */
static void carry_effect(const hmpt_tune_t *t, double *eff, double *lo, double *hi)
{
	const hmpt_shift_t *c = &t->carry;
	double q = c->known ? hmpt_stats_t_quantile(0.975, c->df) * c->se : 0,
	       s = t->opt->maximize ? -1 : 1;
	*eff = exp(s * c->shift) - 1;
	*lo = exp(fmin(s * (c->shift - q), s * (c->shift + q))) - 1;
	*hi = exp(fmax(s * (c->shift - q), s * (c->shift + q))) - 1;
}

static json_t *carry_json(const hmpt_tune_t *t)
{
	double eff, lo, hi;
	if (!t->carry.known)
		return json_null();
	carry_effect(t, &eff, &lo, &hi);
	return json_pack("{s:i,s:f,s:f,s:f,s:b}", "pairs", t->carry.n, "effect", eff, "lo", lo,
	                 "hi", hi, "removed", t->carry_removed);
}

/* The confirmation phase: what it tried, and what each plan got; null when
 * it did not run. */
static json_t *confirmation_json(const hmpt_tune_t *t)
{
	if (t->confirm_ref < 0)
		return json_null();
	json_t *tried = json_array(), *plans = json_object();
	for (int k = 0; k < t->ntried; k++)
		json_array_append_new(tried, tried_json(t, &t->tried[k]));
	const char *names[] = {"best", "ninety", "capacity"};
	int chosen[] = {t->best, t->best90, t->fit};
	for (int p = 0; p < 3; p++) {
		const hmpt_tconfirm_t *cf = hmpt_confirm_of(t, chosen[p]);
		if (p < 2 || t->opt->capacity)
			json_object_set_new(plans, names[p], cf ? tried_json(t, cf) : json_null());
	}
	return json_pack("{s:i,s:i,s:f,s:f,s:f,s:f,s:o,s:o,s:o,s:o}", "rounds",
	                 t->confirm_rounds_run, "max_rounds", t->confirm_rounds_max, "precision",
	                 t->opt->precision, "confidence", 1 - t->confirm_alpha,
	                 "alpha_per_configuration", t->confirm_alpha, "claimed_false_faster",
	                 t->opt->alpha, "plans", plans, "tried", tried, "nodes", nodes_json(t),
	                 "carryover", carry_json(t));
}

static int write_json(const hmpt_tune_t *t, const char *path)
{
	json_t *cmd = json_array(), *sites = json_array(), *groups = json_array(),
	       *configs = json_array();
	for (char *const *a = t->opt->cmd; *a; a++)
		json_array_append_new(cmd, json_string(*a));
	for (int i = 0; i < t->nsites; i++)
		json_array_append_new(
		    sites,
		    json_pack("{s:s,s:s,s:I,s:o,s:s}", "id", t->sites[i].id, "location",
		              t->sites[i].label, "bytes", (json_int_t)t->sites[i].bytes, "access",
		              num_or_null(t->sites[i].access, t->sites[i].access >= 0), "group",
		              t->groups[t->sites[i].group].name));
	for (int g = 0; g < t->ngroups; g++)
		json_array_append_new(
		    groups,
		    json_pack("{s:s,s:i,s:I,s:o,s:o}", "name", t->groups[g].name, "sites",
		              t->groups[g].nsites, "bytes", (json_int_t)t->groups[g].bytes,
		              "access", num_or_null(t->groups[g].access, t->access_kind != NULL),
		              "alone", num_or_null(t->groups[g].alone, t->groups[g].alone > 0)));
	for (int i = 0; i < t->nconfigs; i++)
		json_array_append_new(configs, config_json(t, i));
	json_t *doc = json_pack(
	    "{s:s,s:i,s:o,s:{s:s,s:O,s:s,s:O},s:{s:s?,s:b,s:i,s:f,s:f,s:f,s:f},s:s?,s:I,s:o,s:o,"
	    "s:s,s:o,s:{s:o,s:o,s:o},s:o}",
	    "format", "hmpt-results", "format_version", 1, "command", cmd, "pools", "fast_name",
	    t->opt->fast_name, "fast", t->opt->fast_pool, "slow_name", t->opt->slow_name, "slow",
	    t->opt->slow_pool, "measurement", "metric", t->opt->metric, "higher_is_better",
	    t->opt->maximize, "reps", t->opt->reps, "confidence", 1 - t->opt->alpha,
	    "confidence_corrected", 1 - t->alpha_used, "min_gain", t->opt->min_gain, "timeout_s",
	    t->timeout_s, "access_kind", t->access_kind, "total_bytes", (json_int_t)t->total_bytes,
	    "sites", sites, "groups", groups, "reference", t->configs[t->ref].key, "configs",
	    configs, "chosen", "best", choice_json(t, t->best, "plan-best.json"), "ninety",
	    choice_json(t, t->best90, "plan-90.json"), "capacity",
	    choice_json(t, t->fit, "plan-capacity.json"), "confirmation", confirmation_json(t));
	json_object_set_new(doc, "access_source", /* where "access" shares come from */
	                    t->access_kind ? json_string(t->access_source) : json_null());
	json_object_set_new(doc, "noise", noise_json(t));
	char seed[17];
	snprintf(seed, sizeof(seed), "%016llx", (unsigned long long)t->seed);
	json_object_set_new(doc, "seed", json_string(seed)); /* the orders' (order.h) */
	json_t *search =
	    json_pack("{s:s,s:s?}", "method", t->opt->exhaustive ? "exhaustive" : "model",
	              "stopped", t->search_stop);
	const hmpt_search_outcome_t *so = &t->search_outcome;
	if (!t->opt->exhaustive && t->search_stop) { /* the model search ran: how it ended */
		json_t *more =
		    json_pack("{s:s,s:b,s:o,s:i,s:i,s:i,s:o,s:s?}", "stop",
		              hmpt_search_stop_name(so->stop), "misfit", so->misfit, "misfit_stat",
		              num_or_null(so->misfit_stat, so->misfit_stat > 0), "configs",
		              so->configs, "cap", so->cap, "budget", so->budget, "short_by",
		              num_or_null(so->short_by, so->short_by > 0), "advice", so->advice);
		json_object_update(search, more);
		json_decref(more);
	}
	json_object_set_new(doc, "search", search);
	hmpt_outfile_t out;
	int rc = -1;
	if (hmpt_outfile_open(&out, path)) {
		json_dumpf(doc, out.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		rc = hmpt_outfile_close(&out);
	}
	json_decref(doc);
	return rc;
}

static void csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* the columns after the run's: the configuration's own, then what the
 * machine did during run r (empty where not known, or no run) */
static void csv_config_end(FILE *f, const hmpt_tune_t *t, int i, const hmpt_trun_t *r)
{
	const hmpt_tconfig_t *c = &t->configs[i];
	fprintf(f, ",%llu,%.6f,", (unsigned long long)c->fast_bytes, c->fast_fraction);
	if (c->access_fraction >= 0)
		fprintf(f, "%.6f", c->access_fraction);
	fputc(',', f);
	if (c->sum.n > 0 || i == c->ref)
		fprintf(f, "%.6f", c->sp.speedup);
	fprintf(f, ",%s,%s,%s,", verdict(t, i), phase_name(c), c->nruns > 0 ? "true" : "false");
	if (c->predicted > 0)
		fprintf(f, "%.6f", c->predicted);
	if (r && r->has_cpu)
		fprintf(f, ",%.6f,%ld", r->cpu, r->nivcsw);
	else
		fprintf(f, ",,");
	if (r && r->has_load)
		fprintf(f, ",%.6f,%.6f", r->others, r->steal);
	else
		fprintf(f, ",,");
	fprintf(f, ",%s,%s\n", r ? r->retaken : "", r && r->outlier ? "1" : "");
}

/* A row per run, and one per predicted configuration (no run: empty run
 * fields, measured false), so that a spreadsheet shows both. */
static int write_csv(const hmpt_tune_t *t, const char *path)
{
	hmpt_outfile_t out;
	FILE *f = hmpt_outfile_open(&out, path);
	if (!f)
		return -1;
	fprintf(f, "config,label,rep,status,why,wall_s,value,fast_bytes,fast_fraction,"
	           "access_fraction,config_speedup,config_verdict,phase,measured,predicted,"
	           "cpu_s,nivcsw,others_s,steal_s,retaken,outlier\n");
	for (int i = 0; i < t->nconfigs; i++) {
		const hmpt_tconfig_t *c = &t->configs[i];
		for (int k = 0; k < c->nruns; k++) {
			const hmpt_trun_t *r = &c->runs[k];
			fprintf(f, "%s,", c->key);
			csv_field(f, c->label);
			fprintf(f, ",%d,%d,", r->rep + 1, r->status);
			csv_field(f, r->why);
			fprintf(f, ",%.6f,", r->wall);
			if (!r->status)
				fprintf(f, "%.9g", r->value);
			csv_config_end(f, t, i, r);
		}
		if (hmpt_tune_config_predicted(c)) {
			fprintf(f, "%s,", c->key);
			csv_field(f, c->label);
			fprintf(f, ",,,,,");
			csv_config_end(f, t, i, NULL);
		}
	}
	return hmpt_outfile_close(&out);
}

/* ---------------------------------------------------------------- plots */

/* A quoted text field for gnuplot's data files: it ends at a double quote,
 * and the svg terminal puts hover text in a JavaScript string, split into
 * lines at "\n" (written for the newlines in s). */
static void gp_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s == '"' || *s == '\'' ? '`'
			      : *s == '\\'            ? '/'
			      : *s == '\t'            ? ' '
			                              : *s,
			      f);
	fputc('"', f);
}

static int write_plot_data(const hmpt_tune_t *t, const char *dir, const int *order, int n)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/plot-data.tsv", dir);
	hmpt_outfile_t out;
	FILE *f = hmpt_outfile_open(&out, path);
	if (!f)
		return -1;
	fprintf(f, "# index\tlabel\tspeedup\tlo\thi\testimate\tfast_pct\taccess_pct\tchosen\n");
	for (int k = 0, idx = 0; k < n; k++) {
		const hmpt_tconfig_t *c = &t->configs[order[k]];
		if (c->nfailed || c->sum.n == 0)
			continue;
		int chosen = order[k] == t->best ? 1 : order[k] == t->best90 ? 2 : 0;
		fprintf(f, "%d\t", idx++);
		gp_quoted(f, c->label);
		fprintf(f, "\t%.6f\t%.6f\t%.6f\t", c->sp.speedup,
		        c->sum.n > 1 ? c->sp.lo : c->sp.speedup,
		        c->sum.n > 1 ? c->sp.hi : c->sp.speedup);
		if (c->estimate > 0)
			fprintf(f, "%.6f", c->estimate);
		else
			fprintf(f, "NaN");
		fprintf(f, "\t%.3f\t", 100 * c->fast_fraction);
		if (c->access_fraction >= 0)
			fprintf(f, "%.3f", 100 * c->access_fraction);
		else
			fprintf(f, "NaN");
		fprintf(f, "\t%d\n", chosen);
	}
	return hmpt_outfile_close(&out);
}

/* The plans, as the summary plot marks them (bits of its "plans" column). */
static const struct {
	const char *tag, *title, *file;
	int pt;
	double ps;
} plan_marks[] = {
    {"best", "best plan", "plan-best.json", 6, 3.2},
    {"90 %", "smallest plan with 90 % of best", "plan-90.json", 4, 3.2},
    {"capacity", "best plan within the capacity", "plan-capacity.json", 12, 3.8},
};

/* the configuration of plan_marks[m], or -1 */
static int plan_config(const hmpt_tune_t *t, int m)
{
	return m == 0 ? t->best : m == 1 ? t->best90 : t->opt->capacity ? t->fit : -1;
}

static int plan_bits(const hmpt_tune_t *t, int i)
{
	int bits = 0;
	for (int m = 0; m < 3; m++)
		bits |= (plan_config(t, m) == i) << m;
	return bits;
}

/* Where the summary plot draws configuration i: its speedup and interval,
 * or the prediction alone; false: no figure (every run failed, or none). */
static bool summary_point(const hmpt_tconfig_t *c, double *y, double *lo, double *hi)
{
	if (hmpt_tune_config_predicted(c)) {
		*y = *lo = *hi = c->predicted;
		return true;
	}
	if (c->sum.n == 0)
		return false;
	*y = c->sp.speedup;
	*lo = c->sum.n > 1 ? c->sp.lo : *y;
	*hi = c->sum.n > 1 ? c->sp.hi : *y;
	return true;
}

/* What hovering over a point in summary.svg says of configuration i. */
static void hover_text(const hmpt_tune_t *t, int i, char *buf, size_t cap)
{
	const hmpt_tconfig_t *c = &t->configs[i];
	char b[32];
	size_t n = (size_t)snprintf(buf, cap, "%s\n", c->label);
#define ADD(...) (n += n < cap ? (size_t)snprintf(buf + n, cap - n, __VA_ARGS__) : 0)
	if (i == c->ref)
		ADD("all-slow: the reference, %d runs", c->sum.n);
	else if (hmpt_tune_config_predicted(c))
		ADD("~%.3fx predicted by the search model, not measured", c->predicted);
	else if (c->nfailed)
		ADD("failed: %d of %d runs", c->nfailed, c->nruns);
	else if (c->sum.n > 1)
		ADD("%.3fx (interval %.3f-%.3f): %s", c->sp.speedup, c->sp.lo, c->sp.hi,
		    verdict(t, i));
	else
		ADD("%.3fx (one run): %s", c->sp.speedup, verdict(t, i));
	ADD("\n%.1f %% of the footprint (%s) in the fast pool", 100 * c->fast_fraction,
	    hmpt_fmt_size_text(b, sizeof(b), c->fast_bytes));
	char of[128];
	if (c->access_fraction >= 0 && t->access_kind)
		ADD("\n%.1f %% of %s", 100 * c->access_fraction,
		    hmpt_view_share_of(t, of, sizeof(of)));
	for (int m = 0; m < 3; m++)
		if (plan_bits(t, i) >> m & 1)
			ADD("\n%s: %s", plan_marks[m].file, plan_marks[m].title);
#undef ADD
}

/* The summary plot's frame, in pixels: the plot area is fixed, so that
 * labels can be placed here where they cover no other label and no point;
 * below it the key, two entries a row, as many rows as it needs. */
typedef struct {
	double w, h;       /* the picture */
	double l, r, b, t; /* the plot area's edges, from the bottom left */
	double ylo, yhi;   /* its y range; x is [SUM_X0, SUM_X1] */
} frame_t;
#define SUM_X0 -3.0
#define SUM_X1 103.0

static frame_t summary_frame(int key_entries)
{
	frame_t f = {.w = 1100, .l = 77, .r = 1078, .b = 62 + 14 * ((key_entries + 1) / 2)};
	f.t = f.b + 432;
	f.h = f.t + 42;
	return f;
}

typedef struct {
	double x0, y0, x1, y1; /* pixels, from the bottom left */
	int cost;              /* of a label over it */
} box_t;

/* a configuration drawn, and its label if it gets one */
typedef struct {
	int i;
	double x, y, lo, hi; /* data */
	char tag[160];
	int align; /* -1: no label; 0: left-aligned at (tx, ty), 1: right-aligned */
	double tx, ty;
} srow_t;

static double px_x(const frame_t *f, double x)
{
	return f->l + (f->r - f->l) * (x - SUM_X0) / (SUM_X1 - SUM_X0);
}

static double px_y(const frame_t *f, double y)
{
	return f->b + (f->t - f->b) * (y - f->ylo) / (f->yhi - f->ylo);
}

static box_t box_around(double px, double py, double rx, double ry, int cost)
{
	return (box_t){px - rx, py - ry, px + rx, py + ry, cost};
}

/* A label w pixels wide for a point at (px, py) with a marker of radius r:
 * above, beside or below it, left or right, wherever it covers least inside
 * the plot (the left first: nothing measured lies up and to the left of a
 * point on the front).  Returns the cost (INT_MAX: no room), the box in *at. */
static int place_label(const frame_t *f, const box_t *obst, int nobst, double px, double py,
                       double r, double w, box_t *at)
{
	static const int side[][2] = {{-1, 1}, {-1, 0}, {1, 1}, {1, 0}, {-1, -1}, {1, -1}};
	const double h = 14;
	int best = INT_MAX;
	for (int c = 0; c < 6; c++) {
		int sx = side[c][0], sy = side[c][1];
		double gap = sy ? 3 : r + 4, yc = py + sy * (r + 2 + h / 2);
		box_t b = {sx < 0 ? px - gap - w : px + gap, yc - h / 2, 0, yc + h / 2, 0};
		b.x1 = b.x0 + w;
		if (b.x0 < f->l || b.x1 > f->r || b.y0 < f->b || b.y1 > f->t)
			continue;
		int cost = 0;
		for (int k = 0; k < nobst; k++)
			if (b.x0 < obst[k].x1 && obst[k].x0 < b.x1 && b.y0 < obst[k].y1 &&
			    obst[k].y0 < b.y1)
				cost += obst[k].cost;
		if (cost < best) {
			best = cost;
			*at = b;
		}
	}
	return best;
}

/* Labels for the rows with a tag: the plans first, always; then the others,
 * highest first, where they cover no label and no point (a label 1000, a
 * point 20, an interval or a step of the front 1); the rest only hover. */
static void place_labels(const hmpt_tune_t *t, const frame_t *f, srow_t *rows, int nrows,
                         const int *fr, int nf)
{
	/* per row a point, a ring, an interval and a label; the front's steps;
	 * the capacity's label */
	box_t *obst = malloc(sizeof(box_t) * (size_t)(4 * nrows + nf + 1));
	int nobst = 0;
	if (!obst)
		return;
	for (int k = 0; k < nrows; k++) {
		double px = px_x(f, rows[k].x), py = px_y(f, rows[k].y);
		obst[nobst++] = box_around(px, py, 5, 5, 20);
		if (plan_bits(t, rows[k].i))
			obst[nobst++] = box_around(px, py, 17, 17, 20);
		if (rows[k].hi > rows[k].lo)
			obst[nobst++] =
			    (box_t){px - 2, px_y(f, rows[k].lo), px + 2, px_y(f, rows[k].hi), 1};
	}
	for (int k = 0; k + 1 < nf; k++) {
		double py = px_y(f, t->configs[fr[k]].sp.speedup);
		obst[nobst++] =
		    (box_t){px_x(f, 100 * t->configs[fr[k]].fast_fraction), py - 1,
		            px_x(f, 100 * t->configs[fr[k + 1]].fast_fraction), py + 1, 1};
	}
	if (t->opt->capacity && t->total_bytes) { /* its rotated label, bottom up */
		double px = px_x(f, 100.0 * (double)t->opt->capacity / (double)t->total_bytes);
		obst[nobst++] =
		    (box_t){px - 16, f->b, px, f->b + 0.02 * (f->t - f->b) + 7 * 20, 20};
	}
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < nrows; k++) {
			srow_t *r = &rows[k];
			bool plan = plan_bits(t, r->i) != 0;
			if (!r->tag[0] || plan != (pass == 0))
				continue;
			box_t at;
			int cost =
			    place_label(f, obst, nobst, px_x(f, r->x), px_y(f, r->y), plan ? 17 : 5,
			                7.0 * (double)strlen(r->tag) + 4, &at);
			if (cost == INT_MAX || (!plan && cost >= 20))
				continue;
			/* where gnuplot anchors it: the near end, centred in height */
			r->align = at.x1 <= px_x(f, r->x); /* left of it: right-aligned */
			double ax = r->align ? at.x1 : at.x0, ay = (at.y0 + at.y1) / 2;
			r->tx = SUM_X0 + (ax - f->l) / (f->r - f->l) * (SUM_X1 - SUM_X0);
			r->ty = f->ylo + (ay - f->b) / (f->t - f->b) * (f->yhi - f->ylo);
			at.cost = 1000;
			obst[nobst++] = at;
		}
	free(obst);
}

/* summary-data.tsv: block 0 a row per configuration drawn, block 1 the
 * front as steps.  Sets the frame's y range: every point and interval, with
 * room for the labels above; configurations whose runs all failed lie on its
 * floor. */
static int write_summary_data(const hmpt_tune_t *t, const char *dir, const int *order, int n,
                              frame_t *fm)
{
	char path[PATH_MAX], hover[1024];
	int fr[n + 1], nf = front(t, fr), named = 0, nrows = 0;
	bool on_front[t->nconfigs + 1];
	double min = 1, max = 1;
	srow_t *rows = calloc((size_t)n + 1, sizeof(*rows));

	if (!rows)
		return -1;
	memset(on_front, 0, sizeof(on_front));
	for (int k = 0; k < nf; k++)
		on_front[fr[k]] = true;
	for (int k = 0; k < n; k++) {
		srow_t *r = &rows[nrows];
		const hmpt_tconfig_t *c = &t->configs[order[k]];
		if (!c->nruns && !hmpt_tune_config_predicted(c))
			continue;
		r->i = order[k];
		r->align = -1;
		if (summary_point(c, &r->y, &r->lo, &r->hi)) {
			min = fmin(min, r->lo);
			max = fmax(max, r->hi);
		} else {
			r->y = r->lo = r->hi = NAN;
		}
		r->x = 100 * c->fast_fraction;
		nrows++;
	}
	double span = fmax(max - min, 0.05);
	fm->ylo = min - 0.08 * span;
	fm->yhi = max + 0.12 * span;
	for (int k = 0; k < nrows; k++) {
		srow_t *r = &rows[k];
		const hmpt_tconfig_t *c = &t->configs[r->i];
		int plans = plan_bits(t, r->i);
		if (isnan(r->y))
			r->y = r->lo = r->hi = min - 0.04 * span;
		/* names for the front, the plans and the predictions the summary
		 * table shows */
		if (prediction_named(t, c, fr, nf, &named))
			snprintf(r->tag, sizeof(r->tag), "%s ~%.3fx", c->label, r->y);
		if ((on_front[r->i] && r->i != c->ref) || plans) {
			size_t m =
			    (size_t)snprintf(r->tag, sizeof(r->tag), "%s %.3fx", c->label, r->y);
			for (int p = 0; p < 3; p++)
				if (plans >> p & 1 && m < sizeof(r->tag))
					m +=
					    (size_t)snprintf(r->tag + m, sizeof(r->tag) - m, "%s%s",
					                     plans & ((1 << p) - 1) ? ", " : " (",
					                     plan_marks[p].tag);
			if (plans && m < sizeof(r->tag))
				snprintf(r->tag + m, sizeof(r->tag) - m, ")");
		}
	}
	place_labels(t, fm, rows, nrows, fr, nf);

	snprintf(path, sizeof(path), "%s/summary-data.tsv", dir);
	hmpt_outfile_t out;
	FILE *f = hmpt_outfile_open(&out, path);
	if (!f) {
		free(rows);
		return -1;
	}
	fprintf(f, "# fast_pct\tspeedup\tlo\thi\tverdict\tplans\tfront\ttag\thover\ttag_x\ttag_y\t"
	           "tag_align\n# verdict: 0 reference, 1 faster, 2 same, 3 slower, 4 failed, "
	           "5 predicted; plans: bits 1 best, 2 90 %%, 4 capacity; tag_align: 0 left, 1 "
	           "right, -1 no label\n");
	for (int k = 0; k < nrows; k++) {
		const srow_t *r = &rows[k];
		hover_text(t, r->i, hover, sizeof(hover));
		fprintf(f, "%.3f\t%.6f\t%.6f\t%.6f\t%d\t%d\t%d\t", r->x, r->y, r->lo, r->hi,
		        verdict_kind(t, r->i), plan_bits(t, r->i), on_front[r->i]);
		gp_quoted(f, r->align >= 0 ? r->tag : "");
		fputc('\t', f);
		gp_quoted(f, hover);
		if (r->align >= 0)
			fprintf(f, "\t%.3f\t%.6f\t%d\n", r->tx, r->ty, r->align);
		else
			fprintf(f, "\tNaN\tNaN\t-1\n");
	}
	free(rows);
	/* the front: what the best measured gives with at most this footprint,
	 * to the whole footprint */
	fprintf(f, "\n\n# front: fast_pct\tspeedup\n");
	for (int k = 0; k < nf; k++)
		fprintf(f, "%.3f\t%.6f\n", 100 * t->configs[fr[k]].fast_fraction,
		        t->configs[fr[k]].sp.speedup);
	if (nf)
		fprintf(f, "100\t%.6f\n", t->configs[fr[nf - 1]].sp.speedup);
	return hmpt_outfile_close(&out);
}

static void detail_script(FILE *f, const hmpt_tune_t *t, const char *term, const char *ext)
{
	char key[160] = "accesses (not sampled)";
	if (t->access_kind) /* the key names where the share comes from */
		snprintf(key, sizeof(key), "%s in fast %% (%s)", t->access_kind, t->access_source);
	fprintf(
	    f,
	    "set terminal %s size 1100,520 font 'sans,10' noenhanced\n"
	    "set output 'detail.%s'\n"
	    "set title 'Each configuration: measured speedup over all-slow (with interval), "
	    "linear estimate, share in the fast pool'\n"
	    "set ylabel 'speedup over all-slow'\nset y2label 'percent in the fast pool'\n"
	    "set y2range [0:100]\nset y2tics 0,20,100\nset ytics nomirror\n"
	    "set xtics rotate by 60 right font ',8'\nset grid ytics\nset key outside bottom "
	    "center horizontal\nset style fill solid 0.3\nset datafile separator '\\t'\n"
	    "set yrange [*:*]\nset arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2\n"
	    "plot 'plot-data.tsv' using 1:8:xtic(2) axes x1y2 with linespoints lc rgb "
	    "'#999999' pt 6 title '%s', \\\n"
	    "     '' using 1:7 axes x1y2 with linespoints lc rgb '#1b9e77' pt 4 title 'footprint "
	    "in fast %%', \\\n"
	    "     '' using 1:6 with points lc rgb '#d95f02' pt 2 ps 1.2 title 'linear estimate', "
	    "\\\n"
	    "     '' using 1:3:4:5 with yerrorbars lc rgb '#7570b3' pt 7 title 'measured'\n"
	    "reset\n",
	    term, ext, key);
}

/* Speedup against footprint at a glance: colour is the verdict, filled
 * points were measured (with their intervals, faint), hollow ones predicted;
 * the front steps through the best measured for each footprint; the plans
 * are ringed; labels name the plans, the front and the predictions worth
 * measuring where they fit, and in the svg every point says what it is when
 * hovered. */
static void summary_script(FILE *f, const hmpt_tune_t *t, const char *term, const char *ext,
                           const frame_t *fm, const bool *have)
{
	bool svg = !strcmp(ext, "svg");
	char b[32];
	fprintf(f,
	        "set terminal %s%s size %.0f,%.0f font 'sans,10' noenhanced\n"
	        "set output 'summary.%s'\n"
	        "set title 'Speedup against fast-pool footprint'\n"
	        "set xlabel 'footprint in the fast pool (%%)'\nset ylabel 'speedup over "
	        "all-slow'\nset xrange [%g:%g]\nset yrange [%.4f:%.4f]\n"
	        "set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
	        "set bmargin at screen %.4f\nset tmargin at screen %.4f\n"
	        "set grid xtics ytics lc rgb '#e0e0e0'\nset datafile separator '\\t'\n"
	        "set key outside below center horizontal maxcols 2 Left reverse samplen 2 width 2 "
	        "font ',9'\n"
	        "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 3\n",
	        term, svg ? " mouse standalone" : "", fm->w, fm->h, ext, SUM_X0, SUM_X1, fm->ylo,
	        fm->yhi, fm->l / fm->w, fm->r / fm->w, fm->b / fm->h, fm->t / fm->h);
	if (t->opt->capacity && t->total_bytes) {
		double x = 100.0 * (double)t->opt->capacity / (double)t->total_bytes;
		fprintf(f,
		        "set arrow from first %.3f, graph 0 to first %.3f, graph 1 nohead dt 4 "
		        "lc rgb '#5e3c99'\nset label 'capacity %s' at first %.3f, graph 0.02 "
		        "left rotate by 90 offset -0.6,0 tc rgb '#5e3c99' font ',9'\n",
		        x, x, hmpt_fmt_size_text(b, sizeof(b), t->opt->capacity), x);
	}
	fprintf(f, "plot 'summary-data.tsv' index 1 using 1:2 with steps lw 2 lc rgb '#fdae61' "
	           "title 'front: the best measured up to this footprint'");
	for (int v = 0; v < V_COUNT; v++) {
		if (!have[v])
			continue;
		/* the intervals faint (60 % transparent): many overlap */
		if (v != V_PREDICTED)
			fprintf(f,
			        ", \\\n     '' index 0 using ($5==%d?$1:NaN):2:3:4 with yerrorbars "
			        "pt 7 ps 0 lc rgb '#99%s' notitle",
			        v, kinds[v].colour + 1);
		fprintf(f,
		        ", \\\n     '' index 0 using ($5==%d?$1:NaN):2 with points pt %d ps %s lc "
		        "rgb '%s' title '%s'",
		        v, kinds[v].pt, v == V_PREDICTED ? "1.5 lw 2" : "1", kinds[v].colour,
		        kinds[v].title);
		/* the same points again, hoverable */
		if (svg)
			fprintf(
			    f,
			    ", \\\n     '' index 0 using ($5==%d?$1:NaN):2:9 with labels hypertext "
			    "point pt %d ps %s lc rgb '%s' notitle",
			    v, kinds[v].pt, v == V_PREDICTED ? "1.5 lw 2" : "1", kinds[v].colour);
	}
	for (int m = 0; m < 3; m++)
		if (plan_config(t, m) >= 0)
			/* the rings are too big for the key: it gets its own */
			fprintf(
			    f,
			    ", \\\n     '' index 0 using ((int($6) & %d) ? $1 : NaN):2 with points "
			    "pt %d ps %.1f lw 2 lc rgb '#5e3c99' notitle, \\\n     keyentry with "
			    "points pt %d ps 1.5 lw 2 lc rgb '#5e3c99' title '%s'",
			    1 << m, plan_marks[m].pt, plan_marks[m].ps, plan_marks[m].pt,
			    plan_marks[m].title);
	if (t->best >= 0)
		fprintf(f,
		        ", \\\n     %.6f with lines dt 2 lc rgb '#5e3c99' title '90 %% of best "
		        "(%.3fx)'",
		        0.9 * t->configs[t->best].sp.speedup, 0.9 * t->configs[t->best].sp.speedup);
	fprintf(f, ", \\\n     '' index 0 using ($12==0?$10:NaN):11:8 with labels left font ',9' "
	           "notitle, \\\n     '' index 0 using ($12==1?$10:NaN):11:8 with labels right "
	           "font ',9' notitle\nreset\n");
}

/* The verdicts among the configurations the summary plot draws, in have[];
 * returns how many entries its key has. */
static int summary_key(const hmpt_tune_t *t, const int *order, int n, bool *have)
{
	/* the front; the plans' rings, and the 90 % line with the best */
	int entries = 1 + (t->best >= 0);
	for (int m = 0; m < 3; m++)
		entries += plan_config(t, m) >= 0;
	for (int k = 0; k < n; k++) {
		int v = verdict_kind(t, order[k]);
		if ((t->configs[order[k]].nruns || v == V_PREDICTED) && !have[v]) {
			have[v] = true;
			entries++;
		}
	}
	return entries;
}

static int make_plots(const hmpt_tune_t *t, const char *dir, const int *order, int n)
{
	char path[PATH_MAX], log[PATH_MAX];
	bool have[V_COUNT] = {0};
	frame_t fm = summary_frame(summary_key(t, order, n, have));
	if (write_plot_data(t, dir, order, n) != 0 ||
	    write_summary_data(t, dir, order, n, &fm) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/plots.gp", dir);
	hmpt_outfile_t out;
	FILE *f = hmpt_outfile_open(&out, path);
	if (!f)
		return -1;
	fprintf(f, "# gnuplot script written by hmpt-tune: cd to this directory and run\n"
	           "# 'gnuplot plots.gp' to draw the plots again\n");
	detail_script(f, t, "svg dynamic", "svg");
	summary_script(f, t, "svg dynamic", "svg", &fm, have);
	detail_script(f, t, "pngcairo", "png");
	summary_script(f, t, "pngcairo", "png", &fm, have);
	if (hmpt_outfile_close(&out) != 0)
		return -1;
	char *argv[] = {"sh", "-c", "cd \"$0\" && exec gnuplot plots.gp", (char *)dir, NULL};
	snprintf(log, sizeof(log), "%s/plots.log", dir);
	hmpt_run_spec_t spec = {
	    .argv = argv, .env = environ, .log = log, .timeout = 120, .quiet = true};
	hmpt_run_result_t res;
	if (hmpt_run(&spec, &res) != 0) {
		fprintf(
		    stderr,
		    "hmpt-tune: no plots: gnuplot %s (see %s; apt-get install gnuplot-nox, then "
		    "'cd %s && gnuplot plots.gp')\n",
		    res.exit_code == 127 ? "is not installed" : "failed", log, dir);
		return 1;
	}
	return 0;
}

/* ----------------------------------------------------------------- html */

static void choice_line(FILE *f, const hmpt_tune_t *t, int i, const char *what, const char *file,
                        bool html);
static void confirm_lines(FILE *f, const hmpt_tune_t *t, bool html);

/* Retakes, the reference's drift and spread, and (when it matters) what
 * the noise still lets the tuning tell: lines of the summary, or sentences
 * of report.html. */
static void noise_lines(FILE *f, const hmpt_tune_t *t, bool html)
{
	const hmpt_tnoise_t *z = &t->noise;
	const char *nl = html ? " " : "\n";

	if (z->judged)
		fprintf(
		    f,
		    "Other load: %d run%s retaken (%d load, %d steal), %d kept though disturbed "
		    "(%s); disturbed: others' share of the run's CPUs %s median of the "
		    "last %d runs + %.2f, or steal likewise, from run %d on.%s",
		    z->retaken_load + z->retaken_steal,
		    z->retaken_load + z->retaken_steal == 1 ? "" : "s", z->retaken_load,
		    z->retaken_steal, z->kept, t->opt->retakes ? "the retake bound" : "--retakes 0",
		    html ? "&gt;" : ">", HMPT_NOISE_WINDOW, HMPT_NOISE_MARGIN,
		    HMPT_NOISE_MIN_RUNS + 1, nl);
	if (z->have_trend) {
		char drift[64];
		if (z->trend.p < 0.05)
			snprintf(drift, sizeof(drift), "drift %+.1f %% (Mann-Kendall p = %.3f)",
			         100 * z->trend.drift, z->trend.p);
		else
			snprintf(drift, sizeof(drift), "no trend (%+.1f %%, p = %.2f)",
			         100 * z->trend.drift, z->trend.p);
		fprintf(f, "All-slow over the tuning (%d runs): %s, spread %.1f %% (robust sd).%s",
		        z->trend.n, drift, 100 * z->spread, nl);
	}
	if (z->outliers > 0)
		fprintf(f,
		        "%d run%s set aside as slow outliers (slower than their configuration's "
		        "median by more than %.0f robust sd, %.1f %%).%s",
		        z->outliers, z->outliers == 1 ? "" : "s", HMPT_NOISE_OUTLIER_K,
		        100.0 * z->outliers / (z->outliers_of > 0 ? z->outliers_of : 1), nl);
	if (!isfinite(z->detectable) || (z->detectable <= 0.03 && t->best >= 0))
		return;
	if (t->confirm_ref >= 0 && t->best >= 0) {
		/* the confirmation's rounds told what the search's could not */
		fprintf(
		    f,
		    "The search's runs alone could show speedups of %.1f %% or more (80 %% power; "
		    "pooled sd %.1f %%, %d runs per configuration); the confirmation's paired "
		    "rounds tell finer ones (its intervals below).%s",
		    100 * z->detectable, 100 * sqrt(t->pool.var), t->opt->reps, nl);
		return;
	}
	fprintf(f,
	        "The smallest speedup this tuning could show is %.1f %% (80 %% power; pooled sd "
	        "%.1f %%, %d runs per configuration)",
	        100 * z->detectable, 100 * sqrt(t->pool.var), t->opt->reps);
	if (z->detectable <= t->opt->min_gain)
		fprintf(f, ": a gain the fast pool missed is smaller than that.%s", nl);
	else if (z->reps_needed)
		fprintf(
		    f,
		    ": too noisy here to tell --min-gain %.0f %%; --reps %d would, or tune on a "
		    "quiet node.%s",
		    100 * t->opt->min_gain, z->reps_needed, nl);
	else
		fprintf(f,
		        ": too noisy here to tell --min-gain %.0f %%, out of reach within --reps "
		        "100; tune on a quiet node.%s",
		        100 * t->opt->min_gain, nl);
}

static int write_html(const hmpt_tune_t *t, const char *path, const int *order, int n, int plots)
{
	hmpt_outfile_t out;
	FILE *f = hmpt_outfile_open(&out, path);
	char b[32];
	if (!f)
		return -1;
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hmpt-tune: ");
	hmpt_view_html_text(f, t->opt->program);
	fprintf(f, "</title><style>body{font-family:sans-serif;margin:2em}"
	           "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid "
	           "#ddd;text-align:right}td.l,th.l{text-align:left}img{max-width:100%%}"
	           ".row{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}"
	           ".plot{flex:3 1 640px}.plot object{width:100%%}"
	           "td.s{font-size:smaller}tr.p{font-style:italic}"
	           "p.warn{border-left:4px solid #d80;padding-left:8px;max-width:60em}"
	           "</style></head><body>\n<h1>hmpt-tune: ");
	for (char *const *a = t->opt->cmd; *a; a++) {
		hmpt_view_html_text(f, *a);
		fputc(' ', f);
	}
	fprintf(f, "</h1>\n<p>Pools: fast = <code>");
	hmpt_view_html_text(f, t->opt->fast_name);
	fprintf(f, "</code>, slow = <code>");
	hmpt_view_html_text(f, t->opt->slow_name);
	fprintf(f,
	        "</code>. Measured by %s, %d runs per configuration and %d of all-slow; "
	        "intervals at %.2f %% (%.0f %% corrected for %d comparisons).</p>\n<ul>\n",
	        t->opt->metric ? "a figure the program prints" : "wall-clock time", t->opt->reps,
	        t->configs[t->ref].sum.n, 100 * (1 - t->alpha_used), 100 * (1 - t->opt->alpha),
	        /* as the analysis counted them: not the ranking phase's, not
	         * the predictions */
	        (int)lround(t->opt->alpha / t->alpha_used));
	choice_line(f, t, t->best, "Best", "plan-best.json", true);
	choice_line(f, t, t->best90, "90 % of best", "plan-90.json", true);
	if (t->opt->capacity)
		choice_line(f, t, t->fit, "Within capacity", "plan-capacity.json", true);
	fprintf(f, "</ul>\n");
	char note[768];
	if (search_short_text(t, note, sizeof(note))) {
		fprintf(f, "<p class=warn>");
		hmpt_view_html_text(f, note);
		fprintf(f, "</p>\n");
	}
	confirm_lines(f, t, true);
	fprintf(f, "<p>");
	noise_lines(f, t, true);
	fprintf(f, "</p>\n");
	hmpt_view_write(f, t);
	/* the plot, hoverable (an <img> would run none of its script), with the
	 * groups beside it */
	fprintf(f, "<h2>Speedup against fast-pool footprint</h2>\n<div class=row>");
	bool have[V_COUNT] = {0};
	frame_t fm = summary_frame(summary_key(t, order, n, have));
	if (plots == 0)
		fprintf(f,
		        "<div class=plot><object data=\"summary.svg\" type=\"image/svg+xml\" "
		        "style=\"aspect-ratio:%.0f/%.0f\"><img src=\"summary.png\" alt=\"speedup "
		        "against fast-pool footprint\"></object><p>Hover over a point: its "
		        "configuration, speedup, interval and footprint.</p></div>\n",
		        fm.w, fm.h);
	fprintf(f,
	        "<div><table><tr><th class=l>group</th><th>sites</th><th>bytes</th>"
	        "<th>%s</th><th>alone</th><th class=l>sites</th></tr>\n",
	        t->access_kind ? t->access_kind : "accesses");
	double most = 1;
	for (int g = 0; g < t->ngroups; g++)
		most = fmax(most, t->groups[g].alone);
	for (int g = 0; g < t->ngroups; g++) {
		/* white for no gain, to the green of "faster" for the most */
		double x = most > 1 ? fmax(0, t->groups[g].alone - 1) / (most - 1) : 0;
		fprintf(f,
		        "<tr style=\"background:#%02x%02x%02x\"><td "
		        "class=l>%s</td><td>%d</td><td>%s</td><td>",
		        (int)lround(255 - x * (255 - 0x66)), (int)lround(255 - x * (255 - 0xbd)),
		        (int)lround(255 - x * (255 - 0x63)), t->groups[g].name, t->groups[g].nsites,
		        hmpt_fmt_size_text(b, sizeof(b), t->groups[g].bytes));
		if (t->access_kind)
			fprintf(f, "%.1f %%", 100 * t->groups[g].access);
		fprintf(f, "</td><td>");
		if (t->groups[g].alone > 0)
			fprintf(f, "%.3fx", t->groups[g].alone);
		fprintf(f, "</td><td class=\"l s\">");
		/* a few by name: the rest group of a large program has thousands */
		for (int i = 0, k = 0; i < t->nsites; i++)
			if (t->sites[i].group == g && k++ < GROUP_SITES_NAMED) {
				hmpt_view_html_text(f, t->sites[i].label);
				fprintf(f, "<br>");
			}
		if (t->groups[g].nsites > GROUP_SITES_NAMED)
			fprintf(f, "and %d more (Sites, below)",
			        t->groups[g].nsites - GROUP_SITES_NAMED);
		fprintf(f, "</td></tr>\n");
	}
	char of[128];
	fprintf(f,
	        "</table><p>Groups coloured by the speedup of each alone in the fast pool: "
	        "white none, green the most (%.3fx).",
	        most);
	if (t->access_kind)
		fprintf(f, " %s: each group's share of %s.", t->access_kind,
		        hmpt_view_share_of(t, of, sizeof(of)));
	fprintf(f, "</p></div></div>\n");
	if (plots == 0)
		fprintf(f, "<h2>Each configuration</h2><img src=\"detail.svg\">\n");
	fprintf(f,
	        "<h2>Configurations</h2><table><tr><th class=l>configuration</th>"
	        "<th>fast footprint</th><th>%s in fast</th><th>speedup</th><th>interval</th>"
	        "<th>estimate</th><th>runs</th><th class=l>verdict</th></tr>\n",
	        t->access_kind ? t->access_kind : "accesses");
	for (int k = 0; k < n; k++) {
		int i = order[k];
		const hmpt_tconfig_t *c = &t->configs[i];
		bool predicted = hmpt_tune_config_predicted(c);
		fprintf(f, "<tr%s><td class=l>", predicted ? " class=p" : "");
		hmpt_view_html_text(f, c->label);
		fprintf(f, "</td><td>%.1f %%</td><td>", 100 * c->fast_fraction);
		if (c->access_fraction >= 0)
			fprintf(f, "%.1f %%", 100 * c->access_fraction);
		if (predicted)
			fprintf(f, "</td><td>~%.3f</td><td>", c->predicted);
		else
			fprintf(f, "</td><td>%.3f</td><td>", c->sp.speedup);
		if (c->sum.n > 1 && i != c->ref)
			fprintf(f, "%.3f&ndash;%.3f", c->sp.lo, c->sp.hi);
		fprintf(f, "</td><td>");
		if (c->estimate > 0)
			fprintf(f, "%.3f", c->estimate);
		fprintf(f, "</td><td>");
		if (!predicted)
			fprintf(f, "%d/%d", c->sum.n, c->nruns);
		/* the verdict in the plot's colour for it */
		fprintf(f, "</td><td class=l style=\"color:%s\">%s</td></tr>\n",
		        kinds[verdict_kind(t, i)].colour, verdict(t, i));
	}
	fprintf(f, "</table>\n<p>");
	if (t->access_kind)
		fprintf(f, "Each configuration's share of %s in the fast pool. ",
		        hmpt_view_share_of(t, of, sizeof(of)));
	fprintf(f, "Every run: <a href=\"results.csv\">results.csv</a>, "
	           "<a href=\"results.json\">results.json</a>.</p></body></html>\n");
	return hmpt_outfile_close(&out);
}

int hmpt_tune_write_results(hmpt_tune_t *t)
{
	char path[PATH_MAX];
	int order[t->nconfigs + 1];
	int n = sorted_configs(t, order);

	snprintf(path, sizeof(path), "%s/results.json", t->opt->dir);
	if (write_json(t, path) != 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/results.csv", t->opt->dir);
	if (write_csv(t, path) != 0)
		goto fail;
	int plots = make_plots(t, t->opt->dir, order, n);
	if (plots < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/report.html", t->opt->dir);
	if (write_html(t, path, order, n, plots) != 0)
		goto fail;
	return 0;
fail: /* the file's writer said why */
	return -1;
}

/* -------------------------------------------------------------- summary */

static void choice_line(FILE *f, const hmpt_tune_t *t, int i, const char *what, const char *file,
                        bool html)
{
	char b[32];
	if (i < 0) {
		fprintf(f,
		        html ? "<li>%s: none (%s places nothing in the fast pool)</li>\n"
		             : "%-13s none (%s places nothing in the fast pool)\n",
		        what, file);
		return;
	}
	const hmpt_tconfig_t *c = &t->configs[i];
	const hmpt_tconfirm_t *cf = hmpt_confirm_of(t, i);
	/* the confirmed figure where there is one: the search's is biased up */
	const hmpt_speedup_t *sp = cf ? &cf->sp : &c->sp;
	char also[64] = "";
	if (cf)
		snprintf(also, sizeof(also), ", confirmed in %d rounds; the search: %.3fx",
		         cf->pairs, c->sp.speedup);
	fprintf(
	    f,
	    html ? "<li>%s: <b>%s</b>, <b>%.3fx</b> (interval %.3f&ndash;%.3f%s) with %.1f %% of "
	           "the footprint (%s) in the fast pool: <a href=\"%s\">%s</a></li>\n"
	         : "%-13s %s: %.3fx (interval %.3f-%.3f%s) with %.1f %% of the footprint "
	           "(%s) in the fast pool -> %s/%s\n",
	    what, c->label, sp->speedup, sp->lo, sp->hi, also, 100 * c->fast_fraction,
	    hmpt_fmt_size_text(b, sizeof(b), c->fast_bytes), html ? file : t->opt->dir, file);
}

/* What the memory load did to an entry's speedup, when it mattered: it
 * depended on it (then the figure above is the quiet one), or the quiet
 * rounds put it below --min-gain. */
static void load_dep_line(FILE *f, const hmpt_tconfirm_t *cf, bool html)
{
	const hmpt_loaddep_t *l = &cf->load;
	if (l->depends)
		fprintf(f,
		        html
		            ? "<li>%s the speedup depends on other load: %.3fx in quiet "
		              "rounds, %.3fx under load (memory probe %.0f against %.0f ns/KiB; "
		              "all rounds %.3fx): the figure above is the quiet one</li>\n"
		            : "  %-22s the speedup depends on other load: %.3fx in quiet rounds, "
		              "%.3fx under load (memory probe %.0f against %.0f ns/KiB; all rounds "
		              "%.3fx): the figure above is the quiet one\n",
		        html ? "&nbsp;&nbsp;" : "", l->quiet, l->busy, l->quiet_load, l->busy_load,
		        cf->sp_all.speedup);
	else if (cf->quiet_below)
		fprintf(
		    f,
		    html ? "<li>%s %.3fx at the quietest rounds' memory load, below "
		           "--min-gain: not counted faster</li>\n"
		         : "  %-22s %.3fx at the quietest rounds' memory load, below --min-gain: "
		           "not counted faster\n",
		    html ? "&nbsp;&nbsp;" : "", l->quiet);
}

/* How much the nodes differed, when the rounds ran on several. */
static void node_lines(FILE *f, const hmpt_tune_t *t, bool html)
{
	node_effect_t ne;
	if (!node_effect(t, &ne))
		return;
	fprintf(f, html ? "<p>Nodes: all-slow's median" : "nodes: all-slow's median");
	for (int k = 0; k < ne.n; k++)
		fprintf(f, "%s %s %.4g (%d run%s)", k ? "," : "", ne.name[k], ne.median[k],
		        ne.runs[k], ne.runs[k] == 1 ? "" : "s");
	fprintf(f,
	        ": %.1f %% apart (rank F test p = %.2g: %s); each round ran on one node, so "
	        "this does not enter the speedups%s\n",
	        100 * (ne.spread - 1), ne.p,
	        ne.p < t->opt->alpha ? "the nodes differ" : "no difference shown",
	        html ? "</p>" : "\n");
}

/* What the confirmation phase measured: one line per configuration tried. */
static void confirm_lines(FILE *f, const hmpt_tune_t *t, bool html)
{
	if (t->confirm_ref < 0)
		return;
	fprintf(f,
	        html ? "<p>Confirmation: the chosen configurations measured again, each run "
	               "beside an all-slow run in %d fresh rounds (%.2f %% intervals, until within "
	               "%.3g %%):</p>\n<ul>\n"
	             : "confirmation: the choices measured again, each run beside an all-slow run "
	               "in %d fresh rounds (%.2f %% intervals, until within %.3g %%):\n",
	        t->confirm_rounds_run, 100 * (1 - t->confirm_alpha), 100 * t->opt->precision);
	for (int k = 0; k < t->ntried; k++) {
		const hmpt_tconfirm_t *cf = &t->tried[k];
		const hmpt_tconfig_t *c = &t->configs[cf->of];
		char fig[96] = "no interval";
		if (cf->pairs > 1)
			snprintf(fig, sizeof(fig), "%.3fx (%.3f-%.3f)", cf->sp.speedup, cf->sp.lo,
			         cf->sp.hi);
		char behind[192] = "";
		if (cf->behind >= 0)
			snprintf(behind, sizeof(behind),
			         "; %.3fx of %.80s beside it (%d rounds): slower, not plan-best",
			         cf->vs_fastest.speedup, t->configs[cf->behind].label,
			         cf->vs_pairs);
		fprintf(f,
		        html ? "<li>%s: search %.3fx; %s %s, %d rounds%s%s%s</li>\n"
		             : "  %-22.22s search %.3fx  %s %s, %d rounds%s%s%s\n",
		        c->label, c->sp.speedup,
		        cf->confirmed ? "confirmed" : "NOT confirmed:", fig, cf->pairs,
		        cf->confirmed ? "" : ": ", cf->why, behind);
		load_dep_line(f, cf, html);
	}
	if (t->carry.known) {
		double eff, lo, hi;
		carry_effect(t, &eff, &lo, &hi);
		fprintf(f,
		        html
		            ? "<li>the run before: a run right after an all-slow run took %+.1f %% "
		              "(%+.1f to %+.1f %%, %d pairs): %s</li>\n"
		            : "  the run before: a run right after an all-slow run took %+.1f %% "
		              "(%+.1f to %+.1f %%, %d pairs): %s\n",
		        100 * eff, 100 * lo, 100 * hi, t->carry.n,
		        t->carry_removed ? "taken out of the figures above"
		                         : "not significant at 1 %, left in");
	}
	fprintf(f, html ? "</ul>\n" : "\n");
	node_lines(f, t, html);
}

void hmpt_tune_print_summary(const hmpt_tune_t *t, FILE *out)
{
	int order[t->nconfigs + 1], n = sorted_configs(t, order);
	const hmpt_tconfig_t *ref = &t->configs[t->ref];
	char b[32];

	fprintf(out, "\nhmpt-tune: fast pool %s, slow pool %s; %s; %d runs per configuration\n",
	        t->opt->fast_name, t->opt->slow_name,
	        t->opt->metric ? (t->opt->maximize ? "metric from the output, higher is better"
	                                           : "metric from the output, lower is better")
	                       : "wall-clock time",
	        t->opt->reps);
	fprintf(out, "all-slow reference: %.4g (sd %.2g) over %d runs\n", ref->sum.mean,
	        ref->sum.sd, ref->sum.n);
	/* what the profile behind the groups could and could not see */
	hmpt_report_sampling(out, json_object_get(t->profile, "sampling"));
	fputc('\n', out);
	fprintf(out, "%-6s %5s %10s %8s %8s  %s\n", "group", "sites", "bytes",
	        t->access_kind && !t->access_density ? "touches" : "access", "alone", "first site");
	for (int g = 0; g < t->ngroups; g++) {
		const char *first = "";
		for (int i = 0; i < t->nsites && !*first; i++)
			if (t->sites[i].group == g)
				first = t->sites[i].label;
		char acc[16] = "-";
		if (t->access_kind)
			snprintf(acc, sizeof(acc), "%.1f%%", 100 * t->groups[g].access);
		/* never measured alone (a model search that did not ask): "-" */
		char alone[16];
		snprintf(alone, sizeof(alone), "%s", t->groups[g].alone_failed ? "failed" : "-");
		if (t->groups[g].alone > 0)
			snprintf(alone, sizeof(alone), "%.3fx", t->groups[g].alone);
		fprintf(out, "%-6s %5d %10s %8s %8s  %s\n", t->groups[g].name, t->groups[g].nsites,
		        hmpt_fmt_size_text(b, sizeof(b), t->groups[g].bytes), acc, alone, first);
	}
	char of[128];
	if (t->access_kind) /* where the shares come from: a line under each table */
		fprintf(out, "(%s: each group's share of %s)\n",
		        t->access_density ? "access" : "touches",
		        hmpt_view_share_of(t, of, sizeof(of)));
	/* measured rows come first in order[]; predicted ones after them */
	int nm = 0;
	while (nm < n && !hmpt_tune_config_predicted(&t->configs[order[nm]]))
		nm++;
	int rows = nm < 12 ? nm : 12, fr[n + 1], nf = front(t, fr), npred = 0;
	fprintf(out, "\n%-24s %7s %7s %9s %15s %9s %5s  %s\n", "configuration", "fast", "access",
	        "speedup", "interval", "estimate", "runs", "verdict");
	for (int k = 0; k < n; k++) {
		int i = order[k];
		const hmpt_tconfig_t *c = &t->configs[i];
		bool predicted = k >= nm;
		if (!predicted && k >= rows && i != t->best && i != t->best90 && i != t->fit &&
		    i != c->ref && !c->nfailed)
			continue;
		if (predicted && !prediction_named(t, c, fr, nf, &npred))
			continue;
		char acc[16] = "-", sp[16], est[16] = "-", iv[32] = "-", runs[24] = "-";
		if (c->access_fraction >= 0)
			snprintf(acc, sizeof(acc), "%.1f%%", 100 * c->access_fraction);
		snprintf(sp, sizeof(sp), predicted ? "~%.3fx" : "%.3fx",
		         predicted ? c->predicted : c->sp.speedup);
		if (c->estimate > 0)
			snprintf(est, sizeof(est), "%.3fx", c->estimate);
		if (c->sum.n > 1 && i != c->ref)
			snprintf(iv, sizeof(iv), "%.3f-%.3f", c->sp.lo, c->sp.hi);
		/* the reference has more runs than the others: "12/12" */
		int superseded = 0; /* retaken runs: neither counted nor failed */
		for (int r = 0; r < c->nruns; r++)
			superseded += !hmpt_tune_run_counts(&c->runs[r]);
		if (!predicted)
			snprintf(runs, sizeof(runs), "%d/%d", c->sum.n, c->nruns - superseded);
		fprintf(out, "%-24.24s %6.1f%% %7s %9s %15s %9s %5s  %s", c->label,
		        100 * c->fast_fraction, acc, sp, iv, est, runs, verdict(t, i));
		for (int r = 0; r < c->nruns && c->nfailed; r++)
			if (c->runs[r].status) {
				fprintf(out, ": %s (run %d: %s/runs/%s.%d.log)", c->runs[r].why,
				        c->runs[r].rep + 1, t->opt->dir, c->key,
				        c->runs[r].rep + 1);
				break;
			}
		fputc('\n', out);
	}
	if (t->access_kind)
		fprintf(out, "(access: the share of %s in the fast pool)\n",
		        hmpt_view_share_of(t, of, sizeof(of)));
	if (nm > rows)
		fprintf(out, "(%d configurations in all: %s/results.csv)\n", nm, t->opt->dir);
	if (n > nm)
		fprintf(
		    out,
		    "(~: predicted by the search model, not measured; %d of %d predicted shown: "
		    "those above the best measured with as little in the fast pool)\n",
		    npred, n - nm);
	noise_lines(out, t, false);
	fputc('\n', out);
	if (t->best < 0 && t->search_best < 0) {
		double top = 0, lo = 0, hi = 0;
		for (int k = 0; k < n; k++)
			if (order[k] != t->ref && !t->configs[order[k]].nfailed &&
			    !hmpt_tune_config_predicted(&t->configs[order[k]])) {
				top = t->configs[order[k]].sp.speedup;
				lo = t->configs[order[k]].sp.lo;
				hi = t->configs[order[k]].sp.hi;
				break;
			}
		fprintf(out,
		        "No configuration was measurably faster than all-slow: the largest speedup "
		        "measured, %.3fx (interval %.3f-%.3f), is within the noise or below "
		        "--min-gain %.0f %%%s.\nThe fast pool does not help this program here; the "
		        "plans place nothing in it.\n",
		        top, lo, hi, 100 * t->opt->min_gain,
		        t->confirm_ref >= 0
		            ? ", and fresh runs of the most promising did not confirm "
		              "a gain either"
		            : "");
	}
	char note[768];
	if (search_short_text(t, note, sizeof(note)))
		fprintf(out, "%s\n", note);
	confirm_lines(out, t, false);
	if (t->best < 0 && t->search_best >= 0 && t->confirm_ref >= 0)
		fprintf(
		    out,
		    "The search found %s %.3fx faster, but fresh runs beside all-slow did not "
		    "confirm it%s: within this machine's noise, the fast pool does not help this "
		    "program; the plans place nothing in it.\n",
		    t->configs[t->search_best].label, t->configs[t->search_best].sp.speedup,
		    t->ntried > 1 ? " (nor any other configuration tried)" : "");
	choice_line(out, t, t->best, "best:", "plan-best.json", false);
	if (t->best >= 0 && t->search_best < 0)
		fprintf(out,
		        "%-13s (the search's few runs could not tell this gain from the noise; "
		        "the confirmation's could)\n",
		        "");
	if (t->best >= 0 && t->fastest >= 0 && t->fastest != t->best) {
		const hmpt_tconfirm_t *cf = hmpt_confirm_of(t, t->fastest);
		fprintf(
		    out,
		    "%-13s (the fastest, %s at %.3fx, is not measurably faster: the best is the "
		    "smallest footprint within its noise)\n",
		    "", t->configs[t->fastest].label,
		    cf ? cf->sp.speedup : t->configs[t->fastest].sp.speedup);
	}
	choice_line(out, t, t->best90, "90 % of best:", "plan-90.json", false);
	if (t->opt->capacity)
		choice_line(out, t, t->fit, "in capacity:", "plan-capacity.json", false);
	fprintf(out, "report: %s/report.html\n", t->opt->dir);
}
