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
#include "tuning.h"

extern char **environ;

/* configurations with runs, best speedup first; failed ones last */
static const hmpt_tune_t *sort_ctx;
static int cmp_speedup(const void *a, const void *b)
{
	const hmpt_tconfig_t *x = &sort_ctx->configs[*(const int *)a];
	const hmpt_tconfig_t *y = &sort_ctx->configs[*(const int *)b];
	double sx = x->nfailed ? -1 : x->sp.speedup, sy = y->nfailed ? -1 : y->sp.speedup;
	return (sx < sy) - (sx > sy);
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

static const char *verdict(const hmpt_tune_t *t, int i)
{
	const hmpt_tconfig_t *c = &t->configs[i];
	if (i == c->ref)
		return "reference";
	if (c->nfailed)
		return "failed";
	if (c->sp.faster)
		return "faster";
	if (c->sp.slower)
		return "slower";
	return "same";
}

static json_t *num_or_null(double v, bool ok)
{
	return ok && isfinite(v) ? json_real(v) : json_null();
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
	    "{s:s,s:s,s:s,s:s,s:o,s:o,s:I,s:f,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:i,s:o}", "key",
	    c->key, "label", c->label, "phase", c->in_combos ? "combinations" : "ranking",
	    "reference", t->configs[c->ref].key, "groups", groups, "fast_sites", sites,
	    "fast_bytes", (json_int_t)c->fast_bytes, "fast_fraction", c->fast_fraction,
	    "access_fraction", num_or_null(c->access_fraction, c->access_fraction >= 0), "mean",
	    num_or_null(c->sum.mean, have), "sd", num_or_null(c->sum.sd, have), "speedup",
	    num_or_null(c->sp.speedup, have), "lo", num_or_null(c->sp.lo, c->sum.n > 1), "hi",
	    num_or_null(c->sp.hi, c->sum.n > 1), "estimate",
	    num_or_null(c->estimate, c->estimate > 0), "verdict", verdict(t, i), "failed_runs",
	    c->nfailed, "runs", runs);
}

static json_t *choice_json(const hmpt_tune_t *t, int i, const char *file)
{
	if (i < 0)
		return json_null();
	return json_pack("{s:s,s:s,s:f,s:f}", "key", t->configs[i].key, "plan", file, "speedup",
	                 t->configs[i].sp.speedup, "fast_fraction", t->configs[i].fast_fraction);
}

static int write_json(const hmpt_tune_t *t, const char *path)
{
	json_t *cmd = json_array(), *sites = json_array(), *groups = json_array(),
	       *configs = json_array();
	for (char *const *a = t->cmd; *a; a++)
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
	    "s:s,s:o,s:{s:o,s:o,s:o}}",
	    "format", "hmpt-results", "format_version", 1, "command", cmd, "pools", "fast_name",
	    t->fast_name, "fast", t->fast_pool, "slow_name", t->slow_name, "slow", t->slow_pool,
	    "measurement", "metric", t->metric, "higher_is_better", t->maximize, "reps", t->reps,
	    "confidence", 1 - t->alpha, "confidence_corrected", 1 - t->alpha_used, "min_gain",
	    t->min_gain, "timeout_s", t->timeout, "access_kind", t->access_kind, "total_bytes",
	    (json_int_t)t->total_bytes, "sites", sites, "groups", groups, "reference",
	    t->configs[t->ref].key, "configs", configs, "chosen", "best",
	    choice_json(t, t->best, "plan-best.json"), "ninety",
	    choice_json(t, t->best90, "plan-90.json"), "capacity",
	    choice_json(t, t->fit, "plan-capacity.json"));
	int rc = json_dump_file(doc, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
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

static int write_csv(const hmpt_tune_t *t, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "config,label,rep,status,why,wall_s,value,fast_bytes,fast_fraction,"
	           "access_fraction,config_speedup,config_verdict,phase\n");
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
			fprintf(f, ",%llu,%.6f,", (unsigned long long)c->fast_bytes,
			        c->fast_fraction);
			if (c->access_fraction >= 0)
				fprintf(f, "%.6f", c->access_fraction);
			fprintf(f, ",%.6f,%s,%s\n", c->sp.speedup, verdict(t, i),
			        c->in_combos ? "combinations" : "ranking");
		}
	}
	return fclose(f);
}

/* ---------------------------------------------------------------- plots */

static int write_plot_data(const hmpt_tune_t *t, const char *dir, const int *order, int n)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/plot-data.tsv", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# index\tlabel\tspeedup\tlo\thi\testimate\tfast_pct\taccess_pct\tchosen\n");
	for (int k = 0, idx = 0; k < n; k++) {
		const hmpt_tconfig_t *c = &t->configs[order[k]];
		if (c->nfailed || c->sum.n == 0)
			continue;
		int chosen = order[k] == t->best ? 1 : order[k] == t->best90 ? 2 : 0;
		fprintf(f, "%d\t\"%s\"\t%.6f\t%.6f\t%.6f\t", idx++, c->label, c->sp.speedup,
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
	return fclose(f);
}

static void plot_script(FILE *f, const hmpt_tune_t *t, const char *term, const char *ext)
{
	double best = t->best >= 0 ? t->configs[t->best].sp.speedup : 1;
	fprintf(
	    f,
	    "set terminal %s size 1100,520 font 'sans,10'\n"
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
	    "unset arrow\nunset y2label\nunset y2tics\nset ytics mirror\nset xtics norotate "
	    "font ',10'\n"
	    "set output 'summary.%s'\nset title 'Speedup against fast-pool footprint'\n"
	    "set xlabel 'footprint in the fast pool (%%)'\nset xrange [-2:102]\n"
	    "set grid xtics ytics\nset key inside top left vertical\n",
	    term, ext,
	    t->access_kind ? (strcmp(t->access_kind, "accesses") ? "first touches in fast %%"
	                                                         : "accesses in fast %%")
	                   : "accesses (not sampled)",
	    ext);
	fprintf(
	    f,
	    "plot 'plot-data.tsv' using 7:3:4:5 with yerrorbars lc rgb '#7570b3' pt 7 title "
	    "'configurations', \\\n"
	    "     '' using ($9==1?$7:NaN):3 with points pt 6 ps 3 lc rgb '#d95f02' title 'best', "
	    "\\\n"
	    "     '' using ($9==2?$7:NaN):3 with points pt 4 ps 3 lc rgb '#1b9e77' title "
	    "'smallest with 90 %% of best', \\\n"
	    "     %.6f with lines dt 1 lc rgb '#d95f02' title 'best %.3fx', \\\n"
	    "     %.6f with lines dt 2 lc rgb '#1b9e77' title '90 %% of best', \\\n"
	    "     1 with lines dt 3 lc rgb '#000000' title 'all-slow'\n"
	    "unset xrange\nunset xlabel\n",
	    best, best, 0.9 * best);
}

static int make_plots(const hmpt_tune_t *t, const char *dir)
{
	char path[PATH_MAX], log[PATH_MAX];
	snprintf(path, sizeof(path), "%s/plots.gp", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# gnuplot script written by hmpt-tune: cd to this directory and run\n"
	           "# 'gnuplot plots.gp' to draw the plots again\n");
	plot_script(f, t, "svg dynamic", "svg");
	plot_script(f, t, "pngcairo", "png");
	if (fclose(f) != 0)
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

static void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

static void choice_line(FILE *f, const hmpt_tune_t *t, int i, const char *what, const char *file,
                        bool html);

static int write_html(const hmpt_tune_t *t, const char *path, const int *order, int n, int plots)
{
	FILE *f = fopen(path, "w");
	char b[32];
	if (!f)
		return -1;
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hmpt-tune: ");
	html_text(f, t->program);
	fprintf(f, "</title><style>body{font-family:sans-serif;margin:2em}"
	           "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid "
	           "#ddd;text-align:right}td.l,th.l{text-align:left}img{max-width:100%%}"
	           "</style></head><body>\n<h1>hmpt-tune: ");
	for (char *const *a = t->cmd; *a; a++) {
		html_text(f, *a);
		fputc(' ', f);
	}
	fprintf(f, "</h1>\n<p>Pools: fast = <code>");
	html_text(f, t->fast_name);
	fprintf(f, "</code>, slow = <code>");
	html_text(f, t->slow_name);
	fprintf(f,
	        "</code>. Measured by %s, %d runs per configuration and %d of all-slow; "
	        "intervals at %.2f %% (%.0f %% corrected for %d comparisons).</p>\n<ul>\n",
	        t->metric ? "a figure the program prints" : "wall-clock time", t->reps,
	        t->configs[t->ref].sum.n, 100 * (1 - t->alpha_used), 100 * (1 - t->alpha),
	        t->nconfigs - 1);
	choice_line(f, t, t->best, "Best", "plan-best.json", true);
	choice_line(f, t, t->best90, "90 % of best", "plan-90.json", true);
	if (t->capacity)
		choice_line(f, t, t->fit, "Within capacity", "plan-capacity.json", true);
	fprintf(f, "</ul>\n");
	if (plots == 0)
		fprintf(f, "<h2>Speedup against fast-pool footprint</h2><img src=\"summary.svg\">\n"
		           "<h2>Each configuration</h2><img src=\"detail.svg\">\n");
	fprintf(f,
	        "<h2>Groups</h2><table><tr><th class=l>group</th><th>sites</th><th>bytes</th>"
	        "<th>%s</th><th>alone</th><th class=l>sites</th></tr>\n",
	        t->access_kind ? t->access_kind : "accesses");
	for (int g = 0; g < t->ngroups; g++) {
		fprintf(f, "<tr><td class=l>%s</td><td>%d</td><td>%s</td><td>", t->groups[g].name,
		        t->groups[g].nsites, hmpt_fmt_size_text(b, sizeof(b), t->groups[g].bytes));
		if (t->access_kind)
			fprintf(f, "%.1f %%", 100 * t->groups[g].access);
		fprintf(f, "</td><td>%.3f</td><td class=l>", t->groups[g].alone);
		for (int i = 0; i < t->nsites; i++)
			if (t->sites[i].group == g) {
				html_text(f, t->sites[i].label);
				fprintf(f, "<br>");
			}
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f,
	        "</table>\n<h2>Configurations</h2><table><tr><th class=l>configuration</th>"
	        "<th>fast footprint</th><th>%s in fast</th><th>speedup</th><th>interval</th>"
	        "<th>estimate</th><th>runs</th><th class=l>verdict</th></tr>\n",
	        t->access_kind ? t->access_kind : "accesses");
	for (int k = 0; k < n; k++) {
		const hmpt_tconfig_t *c = &t->configs[order[k]];
		fprintf(f, "<tr><td class=l>");
		html_text(f, c->label);
		fprintf(f, "</td><td>%.1f %%</td><td>", 100 * c->fast_fraction);
		if (c->access_fraction >= 0)
			fprintf(f, "%.1f %%", 100 * c->access_fraction);
		fprintf(f, "</td><td>%.3f</td><td>%.3f&ndash;%.3f</td><td>", c->sp.speedup,
		        c->sp.lo, c->sp.hi);
		if (c->estimate > 0)
			fprintf(f, "%.3f", c->estimate);
		fprintf(f, "</td><td>%d/%d</td><td class=l>%s</td></tr>\n", c->sum.n, c->nruns,
		        verdict(t, order[k]));
	}
	fprintf(f, "</table>\n<p>Every run: <a href=\"results.csv\">results.csv</a>, "
	           "<a href=\"results.json\">results.json</a>.</p></body></html>\n");
	return fclose(f);
}

int hmpt_tune_write_results(hmpt_tune_t *t)
{
	char path[PATH_MAX];
	int order[t->nconfigs + 1];
	int n = sorted_configs(t, order);

	snprintf(path, sizeof(path), "%s/results.json", t->dir);
	if (write_json(t, path) != 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/results.csv", t->dir);
	if (write_csv(t, path) != 0)
		goto fail;
	if (write_plot_data(t, t->dir, order, n) != 0)
		goto fail;
	int plots = make_plots(t, t->dir);
	if (plots < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/report.html", t->dir);
	if (write_html(t, path, order, n, plots) != 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "hmpt-tune: %s: %s\n", path, strerror(errno));
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
	fprintf(f,
	        html ? "<li>%s: <b>%s</b>, <b>%.3fx</b> (interval %.3f&ndash;%.3f) with %.1f %% of "
	               "the footprint (%s) in the fast pool: <a href=\"%s\">%s</a></li>\n"
	             : "%-13s %s: %.3fx (interval %.3f-%.3f) with %.1f %% of the footprint "
	               "(%s) in the fast pool -> %s/%s\n",
	        what, c->label, c->sp.speedup, c->sp.lo, c->sp.hi, 100 * c->fast_fraction,
	        hmpt_fmt_size_text(b, sizeof(b), c->fast_bytes), html ? file : t->dir, file);
}

void hmpt_tune_print_summary(const hmpt_tune_t *t, FILE *out)
{
	int order[t->nconfigs + 1], n = sorted_configs(t, order);
	const hmpt_tconfig_t *ref = &t->configs[t->ref];
	char b[32];

	fprintf(out, "\nhmpt-tune: fast pool %s, slow pool %s; %s; %d runs per configuration\n",
	        t->fast_name, t->slow_name,
	        t->metric ? (t->maximize ? "metric from the output, higher is better"
	                                 : "metric from the output, lower is better")
	                  : "wall-clock time",
	        t->reps);
	fprintf(out, "all-slow reference: %.4g (sd %.2g) over %d runs\n\n", ref->sum.mean,
	        ref->sum.sd, ref->sum.n);
	fprintf(out, "%-6s %5s %10s %8s %8s  %s\n", "group", "sites", "bytes",
	        t->access_kind ? (strcmp(t->access_kind, "accesses") ? "touches" : "access")
	                       : "access",
	        "alone", "first site");
	for (int g = 0; g < t->ngroups; g++) {
		const char *first = "";
		for (int i = 0; i < t->nsites && !*first; i++)
			if (t->sites[i].group == g)
				first = t->sites[i].label;
		char acc[16] = "-";
		if (t->access_kind)
			snprintf(acc, sizeof(acc), "%.1f%%", 100 * t->groups[g].access);
		char alone[16] = "failed";
		if (t->groups[g].alone > 0)
			snprintf(alone, sizeof(alone), "%.3fx", t->groups[g].alone);
		fprintf(out, "%-6s %5d %10s %8s %8s  %s\n", t->groups[g].name, t->groups[g].nsites,
		        hmpt_fmt_size_text(b, sizeof(b), t->groups[g].bytes), acc, alone, first);
	}
	int rows = n < 12 ? n : 12;
	fprintf(out, "\n%-24s %7s %7s %9s %15s %9s %5s  %s\n", "configuration", "fast", "access",
	        "speedup", "interval", "estimate", "runs", "verdict");
	for (int k = 0; k < n; k++) {
		int i = order[k];
		const hmpt_tconfig_t *c = &t->configs[i];
		if (k >= rows && i != t->best && i != t->best90 && i != t->fit && i != c->ref &&
		    !c->nfailed)
			continue;
		char acc[16] = "-", est[16] = "-", iv[32] = "-", runs[24];
		if (c->access_fraction >= 0)
			snprintf(acc, sizeof(acc), "%.1f%%", 100 * c->access_fraction);
		if (c->estimate > 0)
			snprintf(est, sizeof(est), "%.3fx", c->estimate);
		if (c->sum.n > 1 && i != c->ref)
			snprintf(iv, sizeof(iv), "%.3f-%.3f", c->sp.lo, c->sp.hi);
		/* the reference has more runs than the others: "12/12" */
		snprintf(runs, sizeof(runs), "%d/%d", c->sum.n, c->nruns);
		fprintf(out, "%-24.24s %6.1f%% %7s %8.3fx %15s %9s %5s  %s", c->label,
		        100 * c->fast_fraction, acc, c->sp.speedup, iv, est, runs, verdict(t, i));
		for (int r = 0; r < c->nruns && c->nfailed; r++)
			if (c->runs[r].status) {
				fprintf(out, ": %s (run %d: %s/runs/%s.%d.log)", c->runs[r].why,
				        c->runs[r].rep + 1, t->dir, c->key, c->runs[r].rep + 1);
				break;
			}
		fputc('\n', out);
	}
	if (n > rows)
		fprintf(out, "(%d configurations in all: %s/results.csv)\n", n, t->dir);
	fputc('\n', out);
	if (t->best < 0) {
		double top = 0, lo = 0, hi = 0;
		for (int k = 0; k < n; k++)
			if (order[k] != t->ref && !t->configs[order[k]].nfailed) {
				top = t->configs[order[k]].sp.speedup;
				lo = t->configs[order[k]].sp.lo;
				hi = t->configs[order[k]].sp.hi;
				break;
			}
		fprintf(out,
		        "No configuration was measurably faster than all-slow: the largest speedup "
		        "measured, %.3fx (interval %.3f-%.3f), is within the noise or below "
		        "--min-gain %.0f %%.\nThe fast pool does not help this program here; the "
		        "plans place nothing in it.\n",
		        top, lo, hi, 100 * t->min_gain);
	}
	choice_line(out, t, t->best, "best:", "plan-best.json", false);
	choice_line(out, t, t->best90, "90 % of best:", "plan-90.json", false);
	if (t->capacity)
		choice_line(out, t, t->fit, "in capacity:", "plan-capacity.json", false);
	fprintf(out, "report: %s/report.html\n", t->dir);
}
