/* view.c — see view.h. */
#include "view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "profiles.h"
#include "report.h"

#define COLD        0.05 /* a group with less of the accesses than this is cold */
#define KEY_GROUPS  3    /* groups the headline names */
#define SITES_SHOWN 10   /* sites in view before the fold */
#define SITES_MAX   1000 /* sites in the report at all (the rest: sites.tsv) */
#define SATURATED   0.8  /* of a pool's triad bandwidth */

typedef struct {
	const char *where, *colour, *meaning;
} where_t;

/* what the colours say: one place, for the groups and the legend */
static const where_t wheres_g[] = {
    {"bandwidth", "#f4a259", "walked in order (sequential, strided): its pool's bandwidth"},
    {"latency", "#a58fd0", "walked at random or by pointers: its pool's latency"},
    {"cold", "#dcdcdc", "few of the accesses: either pool will do"},
    {"unknown", "#f5f5f0", "too few samples to tell how it is walked"},
};

enum { W_BANDWIDTH, W_LATENCY, W_COLD, W_UNKNOWN };

typedef struct {
	int g;
	const hmpt_tsite_t *lead; /* the site with most of its accesses (or bytes) */
	hmpt_pattern_class_t pat;
	double latency; /* mean cycles of sampled loads, < 0: none */
	double weight;  /* its share of the accesses, or of the bytes when unsampled */
	int where;
	bool in_best;
	double of_best; /* (alone - 1) / (best - 1), < 0: none */
} gfact_t;

void hmpt_view_html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

const char *hmpt_view_pattern_text(const hmpt_pattern_class_t *c, char *buf, size_t cap)
{
	char sz[32];

	if (c->kind == HMPT_PATTERN_STRIDED)
		snprintf(buf, cap, "strided %s", hmpt_fmt_size_text(sz, sizeof(sz), c->stride));
	else
		snprintf(buf, cap, "%s", hmpt_pattern_name(c->kind));
	return buf;
}

json_t *hmpt_view_bench_open(const char *dir, char *err, size_t cap)
{
	char path[4096];
	json_error_t je;

	snprintf(path, sizeof(path), "%s/results.json", dir);
	json_t *doc = json_load_file(path, 0, &je);
	if (!doc)
		snprintf(err, cap,
		         "--bench %s: %s/results.json: %s (expected hmpt-bench's output directory)",
		         dir, dir, je.text);
	return doc;
}

int hmpt_view_bench_pool(const json_t *doc, const char *dir, const char *name,
                         hmpt_view_pool_t *out, char *err, size_t cap)
{
	const json_t *rows = json_object_get(doc, "results"), *r;
	size_t i;

	*out = (hmpt_view_pool_t){0};
	if (!json_is_array(rows)) {
		snprintf(err, cap,
		         "--bench %s: %s/results.json: no \"results\" array (not hmpt-bench's?)",
		         dir, dir);
		return -1;
	}
	char all[96];
	snprintf(all, sizeof(all), "%s+%s->%s", name, name, name);
	json_array_foreach(rows, i, r)
	{
		const char *mode = hmpt_prof_str(r, "mode"), *pl = hmpt_prof_str(r, "placement");
		double v = json_number_value(json_object_get(r, "value"));
		uint64_t bytes = hmpt_prof_u64(r, "bytes");
		if (!mode || !pl || !json_is_true(json_object_get(r, "verified")))
			continue;
		if (!strcmp(mode, "stream") && !strcmp(pl, all) &&
		    !strcmp(hmpt_prof_str(r, "what") ?: "", "triad") && v > out->triad_gbs) {
			out->triad_gbs = v;
			out->threads = (int)hmpt_prof_u64(r, "threads");
		} else if (!strcmp(mode, "latency") && !strcmp(pl, name) && bytes >= out->window) {
			out->chase_ns = v;
			out->window = bytes;
		}
	}
	if (!out->triad_gbs && !out->chase_ns) {
		snprintf(err, cap,
		         "--bench %s: %s/results.json measured no pool named '%s' (run hmpt-bench "
		         "--pools "
		         "with the pools given to --pools)",
		         dir, dir, name);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ the facts */

static double site_weight(const hmpt_tune_t *t, const hmpt_tsite_t *s)
{
	if (t->access_kind)
		return s->access > 0 ? s->access : 0;
	return t->total_bytes ? (double)s->bytes / (double)t->total_bytes : 0;
}

static bool site_fast_in(const hmpt_tune_t *t, int config, int site)
{
	return config >= 0 && t->configs[config].fast && t->configs[config].fast[site];
}

static double best_speedup(const hmpt_tune_t *t)
{
	return t->best >= 0 ? t->configs[t->best].sp.speedup : 0;
}

/* a walk the prefetchers follow: its pool's bandwidth is what it waits for */
static bool walked_in_order(const hmpt_pattern_class_t *c)
{
	return c->kind == HMPT_PATTERN_SEQUENTIAL || c->kind == HMPT_PATTERN_STRIDED;
}

static void group_facts(const hmpt_tune_t *t, int g, gfact_t *f)
{
	double lat = 0, lat_n = 0;

	*f = (gfact_t){.g = g, .latency = -1, .of_best = -1};
	for (int i = 0; i < t->nsites; i++) {
		const hmpt_tsite_t *s = &t->sites[i];
		if (s->group != g)
			continue;
		double w = site_weight(t, s);
		f->weight += w;
		if (!f->lead || w > site_weight(t, f->lead) ||
		    (w == site_weight(t, f->lead) && s->bytes > f->lead->bytes))
			f->lead = s;
		f->in_best |= site_fast_in(t, t->best, i);
		const json_t *smp = json_object_get(s->json, "samples");
		double n = (double)hmpt_prof_u64(smp, "latency_n");
		if (n > 0) {
			lat += n * json_number_value(json_object_get(smp, "latency_mean"));
			lat_n += n;
		}
	}
	if (lat_n > 0)
		f->latency = lat / lat_n;
	if (f->lead)
		hmpt_prof_site_pattern(f->lead->json, &f->pat);
	double best = best_speedup(t), alone = t->groups[g].alone;
	if (f->in_best && best > 1.005 && alone > 0)
		f->of_best = fmax(0, alone - 1) / (best - 1);
	if (t->access_kind && f->weight < COLD)
		f->where = W_COLD;
	else if (walked_in_order(&f->pat))
		f->where = W_BANDWIDTH;
	else if (f->pat.kind == HMPT_PATTERN_RANDOM || f->pat.kind == HMPT_PATTERN_POINTER)
		f->where = W_LATENCY;
	else
		f->where = W_UNKNOWN;
}

/* patterns from page faults: the order of first touches, where no access
 * was sampled */
static bool first_touch(const hmpt_tune_t *t)
{
	return t->access_kind && !t->access_density;
}

const char *hmpt_view_share_of(const hmpt_tune_t *t, char *buf, size_t cap)
{
	if (t->access_kind)
		snprintf(buf, cap, "the %s (%s)", t->access_kind,
		         *t->access_source ? t->access_source : "sampled");
	else
		snprintf(buf, cap, "the bytes (no access sampling)");
	return buf;
}

/* a group the headline names: a share of the best plan's gain, or a
 * tenth of the accesses */
static bool matters(const gfact_t *g)
{
	return g->of_best >= 0.05 || g->weight >= 0.1;
}

/* the groups that matter first: in the best plan by their gain alone,
 * then by their share of the accesses */
static int by_importance(const void *a, const void *b)
{
	const gfact_t *x = a, *y = b;
	double gx = x->of_best, gy = y->of_best;

	if (gx != gy)
		return gx < gy ? 1 : -1;
	return (x->weight < y->weight) - (x->weight > y->weight);
}

/* ------------------------------------------------------------ the HTML */

static void style(FILE *f)
{
	fprintf(f, "<style>#bottleneck .hmpt-group{border:1px solid #999;border-radius:4px;"
	           "margin:4px 0;padding:4px 8px;max-width:60em}"
	           "#bottleneck .key{border:2px solid #222}"
	           "#bottleneck .gbar{background:rgba(255,255,255,.6);height:10px;margin:3px 0}"
	           "#bottleneck .gbar span{display:block;height:10px;background:#333}"
	           "#bottleneck .gfacts{font-size:smaller}"
	           "#bottleneck .legend span{display:inline-block;padding:1px 6px;margin-right:6px;"
	           "border:1px solid #999;border-radius:3px}"
	           "#bottleneck .hmpt-pool{border-left:6px solid #666;padding:2px 8px;margin:4px 0}"
	           "#bottleneck .hmpt-pool[data-saturated=yes]{border-left-color:#c0392b;"
	           "background:#fbe3e1}"
	           "#bottleneck .headline{font-size:larger;max-width:60em}"
	           "</style>\n");
}

static void group_box(FILE *f, const hmpt_tune_t *t, const gfact_t *x, bool key)
{
	const hmpt_tgroup_t *gr = &t->groups[x->g];
	char b[32], pat[48], ip[256];

	fprintf(f,
	        "<div class=\"hmpt-group%s\" data-group=\"%s\" data-pattern=\"%s\" "
	        "data-where=\"%s\" style=\"background:%s\"><div class=gname><b>%s</b> ",
	        key ? " key" : "", gr->name, hmpt_pattern_name(x->pat.kind),
	        wheres_g[x->where].where, wheres_g[x->where].colour, gr->name);
	if (x->lead)
		hmpt_view_html_text(f, x->lead->label);
	if (gr->nsites > 1)
		fprintf(f, " and %d more site%s", gr->nsites - 1, gr->nsites > 2 ? "s" : "");
	fprintf(f,
	        "</div><div class=gbar title=\"share of the %s\"><span style=\"width:%.1f%%\">"
	        "</span></div><div class=gfacts>%s",
	        t->access_kind ? t->access_kind : "bytes", 100 * fmin(1, x->weight),
	        hmpt_fmt_size_text(b, sizeof(b), gr->bytes));
	if (t->access_kind)
		fprintf(f, " &middot; %.1f %% of the %s", 100 * x->weight, t->access_kind);
	fprintf(f, " &middot; %s", hmpt_view_pattern_text(&x->pat, pat, sizeof(pat)));
	if (x->pat.kind != HMPT_PATTERN_UNKNOWN)
		fprintf(f, " (%.0f %%)", 100 * x->pat.confidence);
	if (x->latency >= 0)
		fprintf(f, " &middot; loads %.0f cycles", x->latency);
	if (gr->alone > 0)
		fprintf(f, " &middot; %.2fx alone", gr->alone);
	if (x->of_best >= 0)
		fprintf(f, " &middot; %.0f %% of the best plan's gain", 100 * x->of_best);
	else if (t->best >= 0)
		fprintf(f, " &middot; %s in the best plan", x->in_best ? "fast" : "slow");
	if (x->lead &&
	    hmpt_report_top_instruction(t->sym, t->profile, x->lead->json, ip, sizeof(ip))) {
		fprintf(f, " &middot; issued by ");
		hmpt_view_html_text(f, ip);
	}
	fprintf(f, "</div></div>\n");
}

/* the sentence a reader reads first: the groups that matter, and why */
static void headline(FILE *f, const hmpt_tune_t *t, const gfact_t *x, int n)
{
	char pat[48];
	int said = 0;

	fprintf(f, "<p class=headline>");
	for (int k = 0; k < n && said < KEY_GROUPS; k++) {
		const gfact_t *g = &x[k];
		if (!matters(g))
			continue;
		fprintf(f, "%s<b>%s</b> (", said ? " " : "", t->groups[g->g].name);
		if (g->lead)
			hmpt_view_html_text(f, g->lead->label);
		fprintf(f, ") ");
		if (t->access_kind)
			fprintf(f, "carries %.0f %% of the %s", 100 * g->weight, t->access_kind);
		else
			fprintf(f, "holds %.0f %% of the bytes", 100 * g->weight);
		/* first touches show how an array was written first, not how it
		 * is used: no claim of what bounds it then */
		if (g->pat.kind != HMPT_PATTERN_UNKNOWN && first_touch(t))
			fprintf(f, ", first touches: %s",
			        hmpt_view_pattern_text(&g->pat, pat, sizeof(pat)));
		else if (g->pat.kind != HMPT_PATTERN_UNKNOWN)
			fprintf(f, ", %s: %s-bound",
			        hmpt_view_pattern_text(&g->pat, pat, sizeof(pat)),
			        walked_in_order(&g->pat) ? "bandwidth" : "latency");
		if (t->groups[g->g].alone > 0) {
			fprintf(f, "; alone in ");
			hmpt_view_html_text(f, t->opt->fast_name);
			fprintf(f, " it gave %.2fx", t->groups[g->g].alone);
		}
		if (g->of_best >= 0)
			fprintf(f, ", %.0f %% of the best plan's gain", 100 * g->of_best);
		fprintf(f, ".");
		said++;
	}
	if (!said)
		fprintf(f,
		        "No group carries a tenth of the %s or a share of a gain: the placement "
		        "matters little here.",
		        t->access_kind ? t->access_kind : "bytes");
	else if (t->best < 0)
		fprintf(f, " No placement was measurably faster than all-slow in this tuning: the "
		           "plans place nothing.");
	fprintf(f, "</p>\n");
}

/* the median wall time of the best plan's runs (the metric may be a rate,
 * or time only a part of the program); 0: none */
static double best_wall(const hmpt_tune_t *t)
{
	const hmpt_tconfig_t *c = t->best >= 0 ? &t->configs[t->best] : NULL;
	double w[c ? c->nruns + 1 : 1];
	int n = 0;

	for (int r = 0; c && r < c->nruns; r++)
		if (!c->runs[r].status && hmpt_tune_run_counts(&c->runs[r]) && c->runs[r].wall > 0)
			w[n++] = c->runs[r].wall;
	return n ? hmpt_stats_median_sorting(w, (size_t)n) : 0;
}

/* the estimated traffic the best plan puts in the fast pool, GB/s; < 0
 * when the samples cannot say: each must stand for `period` accesses, as
 * sampled loads do (page faults count footprints, a timer's samples time) */
static double fast_traffic(const hmpt_tune_t *t)
{
	const json_t *sm = json_object_get(t->profile, "sampling");
	double period = (double)hmpt_prof_u64(sm, "period"), samples = 0;

	double wall = best_wall(t);

	if (!t->access_density || t->access_time || period <= 0 || wall <= 0)
		return -1;
	for (int i = 0; i < t->nsites; i++)
		if (site_fast_in(t, t->best, i))
			samples += (double)hmpt_prof_u64(
			    json_object_get(t->sites[i].json, "samples"), "n");
	/* a sampled access stands for `period` accesses of a cache line each */
	return samples * period * 64 / wall / 1e9;
}

/* A pool's box; `doc` is hmpt-bench's results (NULL: unreadable, `err`
 * says why) */
static void pool_box(FILE *f, const hmpt_tune_t *t, const json_t *doc, char *err, size_t cap,
                     bool fast, double share)
{
	const char *name = fast ? t->opt->fast_name : t->opt->slow_name,
	           *role = fast ? "fast" : "slow";
	hmpt_view_pool_t p;
	char b[32];
	bool have = doc && hmpt_view_bench_pool(doc, t->opt->bench_dir, name, &p, err, cap) == 0;
	double traffic = fast ? fast_traffic(t) : -1;
	const char *sat = !have || !p.triad_gbs || traffic < 0 ? "unknown"
	                  : traffic >= SATURATED * p.triad_gbs ? "yes"
	                                                       : "no";

	fprintf(f, "<div class=hmpt-pool data-pool=\"");
	hmpt_view_html_text(f, name);
	fprintf(f, "\" data-saturated=\"%s\"><b>", sat);
	hmpt_view_html_text(f, name);
	fprintf(f, "</b> (%s pool): ", role);
	if (!have) {
		hmpt_view_html_text(f, err);
	} else {
		if (p.triad_gbs)
			fprintf(f, "%.1f GB/s STREAM triad (%d thread%s)", p.triad_gbs, p.threads,
			        p.threads == 1 ? "" : "s");
		if (p.chase_ns)
			fprintf(f, "%s%.0f ns a dependent load (%s window)",
			        p.triad_gbs ? ", " : "", p.chase_ns,
			        hmpt_fmt_size_text(b, sizeof(b), p.window));
	}
	if (share >= 0)
		fprintf(f, ". The best plan puts %.0f %% of the %s here", 100 * share,
		        t->access_kind ? t->access_kind : "bytes");
	if (!strcmp(sat, "yes"))
		fprintf(f, ": about %.1f GB/s, near what it delivers: <b>it would saturate</b>",
		        traffic);
	else if (!strcmp(sat, "no"))
		fprintf(f, ": about %.1f GB/s, within what it delivers", traffic);
	else if (fast && have)
		fprintf(f, " (its traffic needs sampled loads, PEBS or IBS, to estimate)");
	fprintf(f, ".</div>\n");
}

static void pools(FILE *f, const hmpt_tune_t *t, const gfact_t *x, int n)
{
	double fast = 0, slow = 0;

	if (!t->opt->bench_dir) {
		fprintf(f,
		        "<p>Give <code>--bench DIR</code> (the output of <code>hmpt-bench</code> "
		        "on this machine) to see each pool's bandwidth and latency here.</p>\n");
		return;
	}
	for (int k = 0; k < n; k++)
		*(x[k].in_best ? &fast : &slow) += x[k].weight;
	char err[512];
	json_t *doc = hmpt_view_bench_open(t->opt->bench_dir, err, sizeof(err));
	pool_box(f, t, doc, err, sizeof(err), true, t->best >= 0 ? fast : -1);
	pool_box(f, t, doc, err, sizeof(err), false, t->best >= 0 ? slow : -1);
	json_decref(doc);
}

static int by_weight(const void *a, const void *b, void *ctx)
{
	const hmpt_tune_t *t = ctx;
	double x = site_weight(t, &t->sites[*(const int *)a]);
	double y = site_weight(t, &t->sites[*(const int *)b]);
	return (x < y) - (x > y);
}

static void site_row(FILE *f, const hmpt_tune_t *t, int i)
{
	const hmpt_tsite_t *s = &t->sites[i];
	hmpt_pattern_class_t c;
	char b[32], pat[48], ip[256];

	hmpt_prof_site_pattern(s->json, &c);
	fprintf(f, "<tr><td class=l>");
	hmpt_view_html_text(f, s->label);
	fprintf(f, "</td><td class=l>%s</td><td>%s</td><td>", t->groups[s->group].name,
	        hmpt_fmt_size_text(b, sizeof(b), s->bytes));
	if (t->access_kind && s->access >= 0)
		fprintf(f, "%.1f %%", 100 * s->access);
	fprintf(f, "</td><td class=l>%s", hmpt_view_pattern_text(&c, pat, sizeof(pat)));
	if (c.kind != HMPT_PATTERN_UNKNOWN)
		fprintf(f, " (%.0f %%)", 100 * c.confidence);
	fprintf(f, "</td><td class=l>");
	if (hmpt_report_top_instruction(t->sym, t->profile, s->json, ip, sizeof(ip)))
		hmpt_view_html_text(f, ip);
	fprintf(f, "</td></tr>\n");
}

static void site_head(FILE *f, const hmpt_tune_t *t, const char *attr)
{
	fprintf(f,
	        "<table%s><tr><th class=l>site</th><th class=l>group</th><th>bytes</th>"
	        "<th>%s</th><th class=l>pattern</th><th class=l>most from</th></tr>\n",
	        attr, t->access_kind ? t->access_kind : "accesses");
}

static void sites(FILE *f, const hmpt_tune_t *t)
{
	int *order = malloc(sizeof(int) * (size_t)(t->nsites + 1));
	int shown = t->nsites < SITES_SHOWN ? t->nsites : SITES_SHOWN;
	int listed = t->nsites < SITES_MAX ? t->nsites : SITES_MAX;

	if (!order)
		return;
	for (int i = 0; i < t->nsites; i++)
		order[i] = i;
	qsort_r(order, (size_t)t->nsites, sizeof(int), by_weight, (void *)t);
	fprintf(f, "<h2>Sites</h2>\n");
	site_head(f, t, " id=sites");
	for (int k = 0; k < shown; k++)
		site_row(f, t, order[k]);
	char of[128];
	fprintf(f, "</table>\n");
	if (t->access_kind)
		fprintf(f, "<p class=legend>Each site's share of %s.</p>\n",
		        hmpt_view_share_of(t, of, sizeof(of)));
	if (listed > shown) {
		fprintf(f, "<details id=sites-more><summary>%d more site%s</summary>\n",
		        t->nsites - shown, t->nsites - shown == 1 ? "" : "s");
		site_head(f, t, "");
		for (int k = shown; k < listed; k++)
			site_row(f, t, order[k]);
		fprintf(f, "</table>");
		if (t->nsites > listed)
			fprintf(f,
			        "<p>%d more in <a "
			        "href=\"profile/sites.tsv\">profile/sites.tsv</a>.</p>",
			        t->nsites - listed);
		fprintf(f, "</details>\n");
	}
	free(order);
}

void hmpt_view_write(FILE *f, const hmpt_tune_t *t)
{
	gfact_t x[16];
	int n = t->ngroups < 16 ? t->ngroups : 16;

	for (int g = 0; g < n; g++)
		group_facts(t, g, &x[g]);
	qsort(x, (size_t)n, sizeof(x[0]), by_importance);
	style(f);
	fprintf(f, "<section id=bottleneck><h2>Where the memory time goes</h2>\n");
	headline(f, t, x, n);
	fprintf(f, "<p class=legend>");
	for (int w = 0; w <= W_UNKNOWN; w++)
		fprintf(f, "<span style=\"background:%s\" title=\"%s\">%s</span>",
		        wheres_g[w].colour, wheres_g[w].meaning, wheres_g[w].where);
	char of[128];
	fprintf(f,
	        " Bars: each group's share of %s; a dark border marks the groups named "
	        "above.",
	        hmpt_view_share_of(t, of, sizeof(of)));
	if (first_touch(t))
		fprintf(f, " <b>Without sampled accesses, patterns and colours here come from the "
		           "order of first touches</b> (page faults): how each array was first "
		           "written, often an initialisation loop, not how the program uses it "
		           "later; strides under a page and reuse need sampled accesses (PEBS, "
		           "IBS, or the timer without a PMU: --sample timer).");
	fprintf(f, "</p>\n");
	int keys = 0;
	for (int k = 0; k < n; k++) {
		bool key = keys < KEY_GROUPS && matters(&x[k]);
		keys += key;
		group_box(f, t, &x[k], key);
	}
	pools(f, t, x, n);
	fprintf(f, "</section>\n");
	sites(f, t);
}
