/* hb_out.c — hmpt-bench's results: terminal tables, results.json,
 * results.csv, and gnuplot plots of each sweep; see hb.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmt.h"
#include "hb.h"
#include "outfile.h"

void hb_results_add(hb_results_t *r, const hb_row_t *row)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->rows = realloc(r->rows, r->cap * sizeof(*r->rows));
	}
	r->rows[r->n++] = *row;
}

/* distinct values of one key among a mode's rows, in order of appearance */
typedef struct {
	char item[64][160];
	uint64_t num[64];
	int n;
} distinct_t;

static int distinct_add(distinct_t *d, const char *s, uint64_t v)
{
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->item[i], s) && d->num[i] == v)
			return i;
	if (d->n == 64)
		return -1;
	snprintf(d->item[d->n], sizeof(d->item[0]), "%s", s);
	d->num[d->n] = v;
	return d->n++;
}

static bool is_mode(const hb_row_t *row, const char *mode)
{
	return !strcmp(row->mode, mode);
}

/* One table per mode: a line per kernel and placement (stream, gather) or
 * per window (latency), a column per thread count or per placement. */
void hb_results_table(const hb_results_t *r, const char *mode)
{
	bool lat = !strcmp(mode, "latency");
	distinct_t lines = {0}, cols = {0};
	char buf[64], head[64];

	for (size_t i = 0; i < r->n; i++) {
		const hb_row_t *row = &r->rows[i];
		if (!is_mode(row, mode))
			continue;
		char key[200];
		snprintf(key, sizeof(key), "%s\t%s", row->what, row->placement);
		if (lat) {
			distinct_add(&lines, "", row->bytes);
			distinct_add(&cols, row->placement, 0);
		} else {
			distinct_add(&lines, key, 0);
			snprintf(head, sizeof(head), "%d", row->threads);
			distinct_add(&cols, head, (uint64_t)row->threads);
		}
	}
	if (!lines.n)
		return;
	const char *unit = NULL;
	for (size_t i = 0; i < r->n && !unit; i++)
		if (is_mode(&r->rows[i], mode))
			unit = r->rows[i].unit;
	if (lat) {
		printf("%-10s", "window");
		for (int c = 0; c < cols.n; c++)
			printf(" %14.14s", cols.item[c]);
		printf("   (%s)\n", unit);
	} else {
		printf("%-8s %-24s", "kernel", "placement");
		for (int c = 0; c < cols.n; c++) {
			snprintf(head, sizeof(head), "%s thr", cols.item[c]);
			printf(" %9s", head);
		}
		printf("   (%s)\n", unit);
	}
	for (int l = 0; l < lines.n; l++) {
		if (lat) {
			printf("%-10s", hmpt_fmt_size_text(buf, sizeof(buf), lines.num[l]));
		} else {
			char what[160], *tab;
			snprintf(what, sizeof(what), "%s", lines.item[l]);
			tab = strchr(what, '\t');
			*tab = 0;
			printf("%-8s %-24s", what, tab + 1);
		}
		for (int c = 0; c < cols.n; c++) {
			const hb_row_t *hit = NULL;
			for (size_t i = 0; i < r->n && !hit; i++) {
				const hb_row_t *row = &r->rows[i];
				char key[200];
				snprintf(key, sizeof(key), "%s\t%s", row->what, row->placement);
				if (!is_mode(row, mode))
					continue;
				if (lat ? row->bytes == lines.num[l] &&
				              !strcmp(row->placement, cols.item[c])
				        : !strcmp(key, lines.item[l]) &&
				              row->threads == (int)cols.num[c])
					hit = row;
			}
			if (!hit)
				printf(lat ? " %14s" : " %9s", "-");
			else if (!hit->verified)
				printf(lat ? " %14s" : " %9s", "WRONG");
			else
				printf(lat ? " %14.1f" : " %9.2f", hit->value);
		}
		putchar('\n');
	}
}

static json_t *row_json(const hb_row_t *row)
{
	json_t *j = json_pack("{s:s,s:s,s:s,s:i,s:I,s:f,s:s,s:b}", "mode", row->mode, "what",
	                      row->what, "placement", row->placement, "threads", row->threads,
	                      "bytes", (json_int_t)row->bytes, "value", row->value, "unit",
	                      row->unit, "verified", row->verified);
	if (row->best_s > 0) {
		json_object_set_new(j, "min_s", json_real(row->best_s));
		json_object_set_new(j, "avg_s", json_real(row->avg_s));
		json_object_set_new(j, "max_s", json_real(row->max_s));
	}
	if (row->note[0])
		json_object_set_new(j, "note", json_string(row->note));
	return j;
}

static int write_csv(const hb_results_t *r, const char *path)
{
	hmpt_outfile_t out;
	FILE *f = hmpt_outfile_open(&out, path);
	if (!f)
		return -1;
	fprintf(f,
	        "mode,what,placement,threads,bytes,value,unit,min_s,avg_s,max_s,verified,note\n");
	for (size_t i = 0; i < r->n; i++) {
		const hb_row_t *w = &r->rows[i];
		fprintf(f, "%s,%s,\"%s\",%d,%llu,%.6g,%s,", w->mode, w->what, w->placement,
		        w->threads, (unsigned long long)w->bytes, w->value, w->unit);
		if (w->best_s > 0)
			fprintf(f, "%.6g,%.6g,%.6g,", w->best_s, w->avg_s, w->max_s);
		else
			fprintf(f, ",,,");
		fprintf(f, "%s,\"%s\"\n", w->verified ? "yes" : "no", w->note);
	}
	return hmpt_outfile_close(&out);
}

/* The data of one plot: a block per series (its title on the first line),
 * x and y per point; gnuplot reads the blocks with `index`. */
static int write_series(const hb_results_t *r, const char *mode, const char *what, FILE *f)
{
	distinct_t series = {0};
	bool lat = !strcmp(mode, "latency");

	for (size_t i = 0; i < r->n; i++)
		if (is_mode(&r->rows[i], mode) && (!what || !strcmp(r->rows[i].what, what)))
			distinct_add(&series, r->rows[i].placement, 0);
	for (int s = 0; s < series.n; s++) {
		fprintf(f, "\"%s\"\n", series.item[s]);
		for (size_t i = 0; i < r->n; i++) {
			const hb_row_t *w = &r->rows[i];
			if (!is_mode(w, mode) || (what && strcmp(w->what, what)) ||
			    strcmp(w->placement, series.item[s]) || !w->verified)
				continue;
			if (lat)
				fprintf(f, "%.6g %.6g\n", (double)w->bytes / 1024, w->value);
			else
				fprintf(f, "%d %.6g\n", w->threads, w->value);
		}
		fprintf(f, "\n\n");
	}
	return series.n;
}

static void gp_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* The plot of a mode with one panel (latency, gather): its data file and
 * the lines of plots.gp that draw it; 0, or -1 when the data cannot be
 * written. */
static int single_plot(const hb_results_t *r, const char *dir, FILE *gp, const char *mode,
                       const char *xlabel, const char *ylabel, const char *term, const char *ext)
{
	char path[4096], key[32];
	const char *pools = json_string_value(json_object_get(r->doc, "pools_text"));

	snprintf(path, sizeof(path), "%s/plot-%s.dat", dir, mode);
	hmpt_outfile_t out;
	if (!hmpt_outfile_open(&out, path))
		return -1;
	int n = write_series(r, mode, NULL, out.f);
	if (hmpt_outfile_close(&out) != 0)
		return -1;
	if (!n)
		return 0;
	snprintf(key, sizeof(key), "%s_text", mode);
	fprintf(gp, "set terminal %s\nset output '%s.%s'\nset title \"", term, mode, ext);
	gp_escape(gp, json_string_value(json_object_get(r->doc, key)));
	fprintf(gp, "\\n");
	gp_escape(gp, pools ? pools : "");
	fprintf(gp,
	        "\"\nset xlabel '%s'\nset ylabel '%s'\nset logscale x 2\nunset logscale y\n"
	        "plot for [i=0:%d] 'plot-%s.dat' index i using 1:2 with linespoints "
	        "title columnheader(1)\n",
	        xlabel, ylabel, n - 1, mode);
	return 0;
}

/* plots.gp draws stream.*, latency.* and gather.* from plot-*.dat */
static int write_plots(const hb_results_t *r, const char *dir)
{
	char path[4096];
	const json_t *doc = r->doc;
	snprintf(path, sizeof(path), "%s/plots.gp", dir);
	hmpt_outfile_t gpout;
	FILE *gp = hmpt_outfile_open(&gpout, path);
	if (!gp)
		return -1;
	fprintf(gp, "# hmpt-bench plots: gnuplot plots.gp (in %s)\n", dir);
	fprintf(gp, "set grid\nset key outside right top box\n");
	const char *pools = json_string_value(json_object_get(doc, "pools_text"));
	for (int fmt = 0; fmt < 2; fmt++) {
		const char *term =
		    fmt ? "pngcairo size 1400,900 font \",10\"" : "svg size 1400,900";
		const char *ext = fmt ? "png" : "svg";
		int k = 0;
		/* stream: a panel per kernel, GB/s against threads */
		for (int kern = 0; kern < HB_NKERNELS; kern++) {
			snprintf(path, sizeof(path), "%s/plot-stream-%s.dat", dir,
			         hb_kernel_names[kern]);
			hmpt_outfile_t out;
			if (!hmpt_outfile_open(&out, path)) {
				hmpt_outfile_discard(&gpout);
				return -1;
			}
			int n = write_series(r, "stream", hb_kernel_names[kern], out.f);
			if (hmpt_outfile_close(&out) != 0) {
				hmpt_outfile_discard(&gpout);
				return -1;
			}
			if (!n)
				continue;
			if (!k++) {
				fprintf(gp, "set terminal %s\nset output 'stream.%s'\n", term, ext);
				fprintf(gp, "set multiplot layout 2,2 title \"STREAM, ");
				gp_escape(gp,
				          json_string_value(json_object_get(doc, "stream_text")));
				fprintf(gp, "\\n");
				gp_escape(gp, pools ? pools : "");
				fprintf(gp, "\"\nset xlabel 'threads'\nset ylabel 'GB/s'\n"
				            "set logscale x 2\nunset logscale y\n");
			}
			fprintf(gp,
			        "set title '%s (best of the repetitions)'\n"
			        "plot for [i=0:%d] 'plot-stream-%s.dat' index i using 1:2 with "
			        "linespoints title columnheader(1)\n",
			        hb_kernel_names[kern], n - 1, hb_kernel_names[kern]);
		}
		if (k)
			fprintf(gp, "unset multiplot\n");
		if (single_plot(r, dir, gp, "latency", "window (KiB)", "ns per load", term, ext) ||
		    single_plot(r, dir, gp, "gather", "threads", "million reads/s", term, ext)) {
			hmpt_outfile_discard(&gpout);
			return -1;
		}
	}
	return hmpt_outfile_close(&gpout);
}

/* gnuplot plots.gp in dir, its messages in plots.log; false when absent */
static bool run_gnuplot(const char *dir)
{
	int status;
	pid_t pid;

	fflush(NULL); /* the child must not write the parent's buffers again */
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		FILE *log = chdir(dir) == 0 ? hmpt_outfile_now("plots.log", 0) : NULL;
		if (!log || dup2(fileno(log), 2) < 0 || !freopen("/dev/null", "w", stdout))
			_exit(127);
		execlp("gnuplot", "gnuplot", "plots.gp", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int hb_results_write(hb_results_t *r, const char *dir, bool plots, bool quiet)
{
	char path[4096];
	json_t *rows = json_array();

	for (size_t i = 0; i < r->n; i++)
		json_array_append_new(rows, row_json(&r->rows[i]));
	json_object_set_new(r->doc, "results", rows);
	snprintf(path, sizeof(path), "%s/results.json", dir);
	hmpt_outfile_t out;
	if (!hmpt_outfile_open(&out, path))
		return -1; /* each writer says why (tools/outfile.h) */
	json_dumpf(r->doc, out.f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	if (hmpt_outfile_close(&out) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	if (write_csv(r, path) != 0 || (plots && write_plots(r, dir) != 0))
		return -1;
	if (!plots)
		return 0;
	if (!run_gnuplot(dir)) {
		if (!quiet)
			fprintf(stderr,
			        "hmpt-bench: no plots drawn (gnuplot missing or failed, see "
			        "%s/plots.log); "
			        "draw them later with: cd %s && gnuplot plots.gp\n",
			        dir, dir);
	}
	return 0;
}
