/* hmpt_bench.c — hmpt-bench: what each memory pool delivers, and how pools
 * interact (the reference study's Figures 3-5), for any pools hmpt knows.
 *
 *   stream   copy, scale, add, triad with each array in a pool of its own,
 *            over every combination of the pools and a thread sweep
 *   latency  a dependent pointer chase over windows from L1 to GiB, per pool
 *            and page size
 *   gather   independent random reads (an indirect sum) per pool and thread
 *            count
 *
 * Arrays are mapped and placed by the shim's own pool code (hb_mem.c), and
 * where their pages really are is read back and reported with the figures.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"
#include "hb.h"
#include "options.h"
#include "poolspec.h"

#define EXIT_SOME_POOLS 3
#define X0              2.0 /* STREAM's inputs hold these: every kernel's */
#define Y0              1.0 /* result differs, so a stale array is seen */

static const char usage[] =
    "Usage: hmpt-bench [options] [stream] [latency] [gather]\n"
    "\n"
    "Measure what each memory pool delivers and how pools interact: STREAM\n"
    "bandwidth with each array in a pool of its own over every combination of\n"
    "the pools (stream), pointer-chase latency over a window sweep with 4 KiB\n"
    "and 2 MiB pages (latency), and independent random reads (gather).  With no\n"
    "mode, all three.  Every figure names its pools (node set and page policy),\n"
    "thread count and array size; results.json, results.csv and plots go to DIR.\n"
    "\n"
    "  -p, --pools LIST      pools to measure, comma-separated: " HMPT_POOLSPEC_HELP "\n"
    "                        (default: ddr,hbm where HBM is found, else 4k,thp)\n"
    "  -t, --threads LIST    thread counts for stream and gather (default: 1, 2, 4,\n"
    "                        ... and the most OpenMP would use)\n"
    "  -o, --output DIR      where results go (default: hmpt-bench.out)\n"
    "  -q, --quiet           no tables and no progress on the terminal\n"
    "      --no-plots        do not run gnuplot (plots.gp is still written)\n"
    "\n"
    "stream:\n"
    "  -s, --size SIZE       bytes per array (default: 4 x the last-level caches, at\n"
    "                        least 64M: STREAM's rule); 3 arrays per pool\n"
    "  -n, --reps N          passes of each kernel; the first is not counted, the best\n"
    "                        of the others is reported (default 10)\n"
    "  -k, --kernels LIST    some of copy,scale,add,triad (default: all)\n"
    "latency:\n"
    "      --window-min SIZE smallest window (default 4K)\n"
    "      --window-max SIZE largest window (default 4G); windows double in between\n"
    "      --pages LIST      page sizes each pool is measured with: 4k, thp, hugetlb\n"
    "                        (default 4k,thp)\n"
    "gather:\n"
    "  -g, --gather-size SIZE  the table read at random (default: as --size, at\n"
    "                        least 1G)\n"
    "      --reads N         reads per pass (default 16M); 5 passes, the best counts\n"
    "\n"
    "  -h, --help            this text;  -V, --version  the version\n"
    "\n"
    "Exit status: 0 everything measured and verified; 1 a kernel's results were\n"
    "wrong, or nothing could be measured; 2 bad usage; 3 some pool could not give\n"
    "its memory (said on standard error; the rest was measured).\n";

enum { PAGES_4K = 1, PAGES_THP = 2, PAGES_HUGETLB = 4 };

typedef struct {
	hb_pool_t pools[HB_MAX_POOLS];
	int nuser; /* pools[0..nuser-1] are the user's; after them latency variants */
	int npools;
	int lat_of[HB_MAX_POOLS][3]; /* user pool x page kind -> pool index, -1 */
	int threads[64], nthreads;
	uint64_t size, gsize, wmin, wmax, reads;
	int reps, kernels, pages;
	bool modes[3], quiet, plots, progress;
	const char *dir;
	hb_results_t res;
	json_t *placement; /* where every array really was */
	int wrong, unavailable, measured;
	hb_cache_t llc;
} bench_t;

static __attribute__((noreturn)) void usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "hmpt-bench: %s%s%s\nTry 'hmpt-bench --help'.\n", msg, arg ? ": " : "",
	        arg ? arg : "");
	exit(2);
}

static uint64_t size_option(const char *name, const char *arg, uint64_t min)
{
	uint64_t v;
	char msg[128], b[32];
	if (hmpt_options_parse_size(arg, &v) != 0 || v < min) {
		snprintf(msg, sizeof(msg), "%s: expected a size of at least %s (e.g. 512M, 2G)",
		         name, hmpt_fmt_size_text(b, sizeof(b), min));
		usage_error(msg, arg);
	}
	return v;
}

static uint64_t count_option(const char *name, const char *arg, uint64_t min, uint64_t max)
{
	uint64_t v;
	char msg[128];
	if (hmpt_options_parse_size(arg, &v) != 0 || v < min || v > max) {
		snprintf(msg, sizeof(msg), "%s: expected a number from %llu to %llu", name,
		         (unsigned long long)min, (unsigned long long)max);
		usage_error(msg, arg);
	}
	return v;
}

/* A comma-separated list of names from `names`: a bit mask. */
static int names_option(const char *name, const char *arg, const char *const *names, int n)
{
	char *items[16], msg[160] = "";
	int k = hmpt_poolspec_split(arg, items, 16), mask = 0;

	for (int i = 0; i < k; i++) {
		int j = 0;
		while (j < n && strcmp(items[i], names[j]))
			j++;
		mask |= j < n ? 1 << j : 0;
		if (j == n)
			k = -1 - i; /* remember that one was unknown */
		free(items[i]);
		if (k < 0)
			break;
	}
	if (k <= 0) {
		int len = snprintf(msg, sizeof(msg), "%s: expected a list of ", name);
		for (int j = 0; j < n; j++)
			len += snprintf(msg + len, sizeof(msg) - (size_t)len, "%s%s", j ? "," : "",
			                names[j]);
		usage_error(msg, arg);
	}
	return mask;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void threads_option(bench_t *b, const char *arg)
{
	char *items[64];
	int k = hmpt_poolspec_split(arg, items, 64);
	uint64_t v;

	b->nthreads = 0;
	for (int i = 0; i < k; i++) {
		if (hmpt_options_parse_uint(items[i], &v) != 0 || v < 1 || v > 4096)
			usage_error(
			    "--threads: expected thread counts from 1 to 4096, comma-separated",
			    arg);
		free(items[i]);
		b->threads[b->nthreads++] = (int)v;
	}
	if (k <= 0)
		usage_error("--threads: expected thread counts from 1 to 4096, comma-separated",
		            arg);
	qsort(b->threads, (size_t)b->nthreads, sizeof(int), cmp_int);
}

static void progress(const bench_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(const bench_t *b, const char *fmt, ...)
{
	va_list ap;
	if (!b->progress)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "\r\033[Khmpt-bench: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

static void progress_done(const bench_t *b)
{
	if (b->progress)
		fprintf(stderr, "\r\033[K");
}

static void unavailable(bench_t *b, const char *mode, const hb_pool_t *p, const char *why)
{
	progress_done(b);
	fprintf(stderr, "hmpt-bench: %s: pool %s: %s; its measurements are skipped\n", mode,
	        p->name, why);
	b->unavailable++;
}

/* Where a touched buffer is; said when not all on the pool's nodes. */
static void note_where(bench_t *b, const char *mode, const char *array, const hb_pool_t *p,
                       const hb_buf_t *buf, hb_where_t *w)
{
	hb_mem_where(buf, p, w);
	json_t *j = hb_where_json(w);
	json_object_set_new(j, "mode", json_string(mode));
	json_object_set_new(j, "array", json_string(array));
	json_object_set_new(j, "pool", json_string(p->name));
	json_object_set_new(j, "bytes", json_integer((json_int_t)buf->bytes));
	json_array_append_new(b->placement, j);
	if (w->on_pool >= 0 && w->on_pool < 1) {
		progress_done(b);
		fprintf(
		    stderr,
		    "hmpt-bench: warning: %s: only %.1f %% of %s's pages are on pool %s's nodes\n",
		    mode, 100 * w->on_pool, array, p->name);
	}
}

/* ------------------------------------------------------------- stream */

typedef struct {
	hb_buf_t a, b, c; /* x inputs, y inputs, outputs */
	bool ok;
} stream_arrays_t;

static void stream_label(const bench_t *b, int k, int p1, int p2, int out, char *buf, size_t cap)
{
	if (hb_kernel_inputs[k] == 1)
		snprintf(buf, cap, "%s->%s", b->pools[p1].name, b->pools[out].name);
	else
		snprintf(buf, cap, "%s+%s->%s", b->pools[p1].name, b->pools[p2].name,
		         b->pools[out].name);
}

static void run_stream(bench_t *b)
{
	stream_arrays_t arr[HB_MAX_POOLS] = {0};
	size_t n = b->size / sizeof(double);
	char why[512], label[160], sz[32];
	int np = 0, total = 0, done = 0;

	for (int i = 0; i < b->nuser; i++) {
		hb_pool_t *p = &b->pools[i];
		if (p->index < 0)
			continue;
		if (hb_mem_alloc(p, b->size, &arr[i].a, why, sizeof(why)) ||
		    hb_mem_alloc(p, b->size, &arr[i].b, why, sizeof(why)) ||
		    hb_mem_alloc(p, b->size, &arr[i].c, why, sizeof(why))) {
			hb_mem_free(&arr[i].a);
			hb_mem_free(&arr[i].b);
			unavailable(b, "stream", p, why);
			continue;
		}
		progress(b, "stream: first touch of pool %s's arrays", p->name);
		hb_fill(arr[i].a.addr, n, X0);
		hb_fill(arr[i].b.addr, n, Y0);
		hb_fill(arr[i].c.addr, n, 0);
		hb_where_t w;
		note_where(b, "stream", "x", p, &arr[i].a, &w);
		note_where(b, "stream", "y", p, &arr[i].b, &w);
		note_where(b, "stream", "z", p, &arr[i].c, &w);
		arr[i].ok = true;
		np++;
	}
	if (!np)
		return;
	for (int k = 0; k < HB_NKERNELS; k++)
		if (b->kernels >> k & 1)
			total += hb_kernel_inputs[k] == 1 ? np * np : np * (np + 1) / 2 * np;
	total *= b->nthreads;
	for (int ti = 0; ti < b->nthreads; ti++) {
		int t = b->threads[ti];
		omp_set_num_threads(t);
		for (int k = 0; k < HB_NKERNELS; k++) {
			if (!(b->kernels >> k & 1))
				continue;
			bool two = hb_kernel_inputs[k] == 2;
			for (int p1 = 0; p1 < b->nuser; p1++)
				for (int p2 = p1; p2 < (two ? b->nuser : p1 + 1); p2++)
					for (int out = 0; out < b->nuser; out++) {
						if (!arr[p1].ok || !arr[p2].ok || !arr[out].ok)
							continue;
						double *z = arr[out].c.addr;
						const double *x = arr[p1].a.addr,
						             *y = arr[p2].b.addr;
						double best = INFINITY, sum = 0, worst = 0;
						stream_label(b, k, p1, p2, out, label,
						             sizeof(label));
						progress(b, "stream %d/%d: %s %s, %d thread%s",
						         ++done, total, hb_kernel_names[k], label,
						         t, t == 1 ? "" : "s");
						hb_fill(z, n, 0);
						for (int r = 0; r < b->reps; r++) {
							double s = hb_stream_pass(k, z, x, y, n);
							if (r == 0 && b->reps > 1)
								continue; /* STREAM: the first pass
								             warms up */
							best = s < best ? s : best;
							worst = s > worst ? s : worst;
							sum += s;
						}
						int counted = b->reps > 1 ? b->reps - 1 : 1;
						double err = hb_stream_error(
						    z, n, hb_stream_expect(k, X0, Y0));
						hb_row_t row = {
						    .mode = "stream",
						    .threads = t,
						    .bytes = n * sizeof(double),
						    .value = (double)hb_kernel_bytes[k] *
						             (double)n / best / 1e9,
						    .unit = "GB/s",
						    .best_s = best,
						    .avg_s = sum / counted,
						    .max_s = worst,
						    .verified = err < 1e-13,
						};
						snprintf(row.what, sizeof(row.what), "%s",
						         hb_kernel_names[k]);
						snprintf(row.placement, sizeof(row.placement), "%s",
						         label);
						if (!row.verified) {
							snprintf(row.note, sizeof(row.note),
							         "average relative error %.3g",
							         err);
							progress_done(b);
							fprintf(stderr,
							        "hmpt-bench: stream: %s %s with %d "
							        "threads: wrong results (average "
							        "relative error %.3g)\n",
							        hb_kernel_names[k], label, t, err);
							b->wrong++;
						}
						hb_results_add(&b->res, &row);
						b->measured++;
					}
		}
	}
	progress_done(b);
	for (int i = 0; i < b->nuser; i++) {
		hb_mem_free(&arr[i].a);
		hb_mem_free(&arr[i].b);
		hb_mem_free(&arr[i].c);
	}
	json_object_set_new(
	    b->res.doc, "stream",
	    json_pack("{s:I,s:I,s:i,s:i,s:s,s:f,s:f}", "array_bytes",
	              (json_int_t)(n * sizeof(double)), "elements", (json_int_t)n, "passes",
	              b->reps, "counted", b->reps > 1 ? b->reps - 1 : 1, "reported",
	              "best (minimum) time of the counted passes; bytes as STREAM counts them", "x",
	              X0, "y", Y0));
	char text[256];
	snprintf(text, sizeof(text), "arrays of %s each (%zu doubles), best of %d passes",
	         hmpt_fmt_size_text(sz, sizeof(sz), n * sizeof(double)), n,
	         b->reps > 1 ? b->reps - 1 : 1);
	json_object_set_new(b->res.doc, "stream_text", json_string(text));
}

/* ------------------------------------------------------------ latency */

static const char *const page_names[3] = {"4k", "thp", "hugetlb"};

/* ns per load over a chain already built in the window: best of 3 after
 * a calibration to ~0.1 s */
static double chase_ns(void *buf, size_t window)
{
	size_t lines = window / 64, steps = 1 << 14;
	double t;

	hb_chase(buf, lines < ((size_t)1 << 20) ? lines : (size_t)1 << 20); /* warm */
	for (;;) {
		t = hb_now();
		hb_chase(buf, steps);
		t = hb_now() - t;
		if (t > 0.02 || steps > ((size_t)1 << 34))
			break;
		steps *= 4;
	}
	steps = (size_t)((double)steps * 0.1 / (t > 0 ? t : 1e-9)) + 1;
	double best = INFINITY;
	for (int r = 0; r < 3; r++) {
		t = hb_now();
		void *end = hb_chase(buf, steps);
		t = hb_now() - t;
		__asm__ volatile("" ::"r"(end));
		best = t < best ? t : best;
	}
	return best / (double)steps * 1e9;
}

static void run_latency(bench_t *b)
{
	int nwin = 0, done = 0, total = 0;
	char why[512], sz[32];

	for (uint64_t w = b->wmin; w <= b->wmax; w *= 2)
		nwin++;
	for (int i = 0; i < b->npools; i++)
		for (int u = 0; u < b->nuser; u++)
			for (int k = 0; k < 3; k++)
				total += b->lat_of[u][k] == i;
	total *= nwin;
	bool measured[HB_MAX_POOLS] = {0};
	for (int u = 0; u < b->nuser; u++)
		for (int k = 0; k < 3; k++) {
			int i = b->lat_of[u][k];
			if (i < 0 || measured[i] || b->pools[u].index < 0) /* said already */
				continue;
			measured[i] = true;
			hb_pool_t *p = &b->pools[i];
			hb_buf_t buf;
			if (p->index < 0) {
				unavailable(b, "latency", p, p->why);
				done += nwin;
				continue;
			}
			if (hb_mem_alloc(p, b->wmax, &buf, why, sizeof(why))) {
				unavailable(b, "latency", p, why);
				done += nwin;
				continue;
			}
			for (uint64_t w = b->wmin; w <= b->wmax; w *= 2) {
				progress(b, "latency %d/%d: %s, window %s", ++done, total, p->name,
				         hmpt_fmt_size_text(sz, sizeof(sz), w));
				hb_chase_build(buf.addr, w, 0x5eed + w);
				hb_row_t row = {.mode = "latency",
				                .threads = 1,
				                .bytes = w,
				                .value = chase_ns(buf.addr, w),
				                .unit = "ns per load",
				                .verified = true};
				snprintf(row.what, sizeof(row.what), "chase");
				snprintf(row.placement, sizeof(row.placement), "%s", p->name);
				hb_results_add(&b->res, &row);
				b->measured++;
			}
			hb_where_t wh;
			note_where(b, "latency", "chain", p, &buf, &wh);
			hb_mem_free(&buf);
		}
	progress_done(b);
	json_object_set_new(b->res.doc, "latency",
	                    json_pack("{s:I,s:I,s:i,s:s}", "window_min", (json_int_t)b->wmin,
	                              "window_max", (json_int_t)b->wmax, "threads", 1, "reported",
	                              "best of 3 timed chases of ~0.1 s each, after a warm-up"));
	char text[256], lo[32];
	snprintf(text, sizeof(text),
	         "pointer chase, 1 thread, random cycle over 64-byte lines of windows %s to %s",
	         hmpt_fmt_size_text(lo, sizeof(lo), b->wmin),
	         hmpt_fmt_size_text(sz, sizeof(sz), b->wmax));
	json_object_set_new(b->res.doc, "latency_text", json_string(text));
}

/* ------------------------------------------------------------- gather */

static void run_gather(bench_t *b)
{
	size_t n = b->gsize / sizeof(uint64_t), m = b->reads;
	int total = 0, done = 0;
	char why[512], sz[32];

	for (int i = 0; i < b->nuser; i++)
		total += b->pools[i].index >= 0;
	total *= b->nthreads;
	for (int i = 0; i < b->nuser; i++) {
		hb_pool_t *p = &b->pools[i];
		hb_buf_t table, idx;
		if (p->index < 0)
			continue;
		if (hb_mem_alloc(p, n * sizeof(uint64_t), &table, why, sizeof(why))) {
			unavailable(b, "gather", p, why);
			continue;
		}
		if (hb_mem_alloc(p, m * sizeof(uint64_t), &idx, why, sizeof(why))) {
			hb_mem_free(&table);
			unavailable(b, "gather", p, why);
			continue;
		}
		progress(b, "gather: first touch of pool %s's table", p->name);
		hb_gather_fill(table.addr, n, idx.addr, m, 0xfeed);
		uint64_t want = 0;
		const uint64_t *ix = idx.addr;
		for (size_t j = 0; j < m; j++)
			want += hb_gather_value(ix[j]);
		hb_where_t w;
		note_where(b, "gather", "table", p, &table, &w);
		note_where(b, "gather", "indices", p, &idx, &w);
		for (int ti = 0; ti < b->nthreads; ti++) {
			int t = b->threads[ti];
			double best = INFINITY, s;
			bool ok = true;
			omp_set_num_threads(t);
			progress(b, "gather %d/%d: %s, %d thread%s", ++done, total, p->name, t,
			         t == 1 ? "" : "s");
			for (int r = 0; r < 5; r++) {
				ok &= hb_gather_pass(table.addr, idx.addr, m, &s) == want;
				best = s < best ? s : best;
			}
			hb_row_t row = {.mode = "gather",
			                .threads = t,
			                .bytes = n * sizeof(uint64_t),
			                .value = (double)m / best / 1e6,
			                .unit = "million reads/s",
			                .verified = ok};
			snprintf(row.what, sizeof(row.what), "indirect");
			snprintf(row.placement, sizeof(row.placement), "%s", p->name);
			if (!ok) {
				progress_done(b);
				fprintf(stderr,
				        "hmpt-bench: gather: %s with %d threads: wrong sum\n",
				        p->name, t);
				b->wrong++;
			}
			hb_results_add(&b->res, &row);
			b->measured++;
		}
		hb_mem_free(&table);
		hb_mem_free(&idx);
	}
	progress_done(b);
	json_object_set_new(b->res.doc, "gather",
	                    json_pack("{s:I,s:I,s:i,s:s}", "table_bytes",
	                              (json_int_t)(n * sizeof(uint64_t)), "reads", (json_int_t)m,
	                              "passes", 5, "reported",
	                              "best of 5 passes of sum += table[index[j]], the indices "
	                              "random and read in order, both arrays in the pool"));
	char text[256];
	snprintf(text, sizeof(text), "random indirect sum over a %s table, %zu reads per pass",
	         hmpt_fmt_size_text(sz, sizeof(sz), n * sizeof(uint64_t)), m);
	json_object_set_new(b->res.doc, "gather_text", json_string(text));
}

/* --------------------------------------------------------------- pools */

static int add_pool(bench_t *b, const char *name, json_t *spec)
{
	for (int i = 0; i < b->npools; i++)
		if (json_equal(b->pools[i].spec, spec)) {
			json_decref(spec);
			return i;
		}
	if (b->npools == HB_MAX_POOLS)
		usage_error("too many pools", name);
	hb_pool_t *p = &b->pools[b->npools];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->spec = spec;
	return b->npools++;
}

static void setup_pools(bench_t *b, const char *list)
{
	char *items[HB_MAX_POOLS], name[64];
	int n = hmpt_poolspec_split(list, items, 8);

	if (n <= 0)
		usage_error(
		    "--pools: expected up to 8 pools, comma-separated, each " HMPT_POOLSPEC_HELP,
		    list);
	for (int i = 0; i < n; i++) {
		json_t *spec = hmpt_poolspec_parse(items[i]);
		if (!spec)
			usage_error("--pools: expected " HMPT_POOLSPEC_HELP, items[i]);
		snprintf(name, sizeof(name), "%s", items[i][0] == '{' ? "" : items[i]);
		if (!name[0])
			snprintf(name, sizeof(name), "pool%d", i + 1);
		if (add_pool(b, name, spec) != i)
			usage_error("--pools: a pool is named twice", items[i]);
		free(items[i]);
	}
	b->nuser = n;
	/* the latency variants: each pool with each page size; one that equals
	 * a pool already there is that pool */
	for (int u = 0; u < n; u++)
		for (int k = 0; k < 3; k++) {
			b->lat_of[u][k] = -1;
			if (!(b->pages >> k & 1))
				continue;
			json_t *spec = json_deep_copy(b->pools[u].spec);
			json_object_set_new(spec, "pages", json_string(page_names[k]));
			/* plan pool names allow A-Z a-z 0-9 _ . - */
			snprintf(name, sizeof(name), "%s_%s", b->pools[u].name, page_names[k]);
			b->lat_of[u][k] = add_pool(b, name, spec);
		}
}

/* "4k: no node policy, 4k pages; thp: ..." for the plots */
static void describe_pools(bench_t *b)
{
	json_t *list = json_array();
	char text[2048] = "";
	size_t len = 0;

	for (int i = 0; i < b->npools; i++) {
		hb_pool_t *p = &b->pools[i];
		json_array_append_new(list, json_pack("{s:s,s:O,s:b,s:s,s:s?}", "name", p->name,
		                                      "spec", p->spec, "available", p->index >= 0,
		                                      "placement", p->index >= 0 ? p->place : "",
		                                      "why", p->index >= 0 ? NULL : p->why));
		if (p->index >= 0 && len < sizeof(text))
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s: %s",
			                        len ? "; " : "", p->name, p->place);
	}
	json_object_set_new(b->res.doc, "pools", list);
	json_object_set_new(b->res.doc, "pools_text", json_string(text));
}

/* Where a mode's arrays were, one line per pool: "thp: on node 0, 99.6 %
 * in 2 MiB pages" (read back with move_pages and smaps; over all of the
 * pool's arrays: the nodes of any, the smallest huge-page share) */
static void print_pages(const bench_t *b, const char *mode)
{
	bool first = true;

	for (int p = 0; p < b->npools; p++) {
		hmpt_nodemask_t nodes = {0};
		double huge = 2;
		int n = 0;
		size_t i;
		json_t *e;
		json_array_foreach(b->placement, i, e)
		{
			const char *key;
			json_t *v, *h = json_object_get(e, "huge_pages");
			if (strcmp(json_string_value(json_object_get(e, "mode")), mode) ||
			    strcmp(json_string_value(json_object_get(e, "pool")), b->pools[p].name))
				continue;
			n++;
			json_object_foreach(json_object_get(e, "nodes"), key, v)
			    hmpt_nodemask_set(&nodes, (unsigned)atoi(key));
			if (json_is_number(h) && json_number_value(h) < huge)
				huge = json_number_value(h);
		}
		if (!n)
			continue;
		char buf[256];
		hmpt_fmt_t f;
		hmpt_fmt_init(&f, buf, sizeof(buf), -1);
		hmpt_nodemask_format(&f, &nodes);
		printf("%s %s: on node%s %s", first ? "where:" : "      ", b->pools[p].name,
		       hmpt_nodemask_weight(&nodes) == 1 ? "" : "s", hmpt_fmt_cstr(&f));
		if (huge <= 1)
			printf(", %.1f %% in 2 MiB pages", 100 * huge);
		putchar('\n');
		first = false;
	}
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	static bench_t b;
	static const struct option longopts[] = {
	    {"pools", required_argument, NULL, 'p'},
	    {"threads", required_argument, NULL, 't'},
	    {"output", required_argument, NULL, 'o'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"no-plots", no_argument, NULL, 'P'},
	    {"size", required_argument, NULL, 's'},
	    {"reps", required_argument, NULL, 'n'},
	    {"kernels", required_argument, NULL, 'k'},
	    {"window-min", required_argument, NULL, 'w'},
	    {"window-max", required_argument, NULL, 'W'},
	    {"pages", required_argument, NULL, 'G'},
	    {"gather-size", required_argument, NULL, 'g'},
	    {"reads", required_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {0},
	};
	const char *pools = NULL, *threads = NULL;
	char err[1024], sz[32], sz2[32];
	int c;

	b.dir = "hmpt-bench.out";
	b.reps = 10;
	b.kernels = (1 << HB_NKERNELS) - 1;
	b.pages = PAGES_4K | PAGES_THP;
	b.wmin = 4 << 10;
	b.wmax = (uint64_t)4 << 30;
	b.reads = 16 << 20;
	b.plots = true;
	while ((c = getopt_long(argc, argv, "p:t:o:qs:n:k:g:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': pools = optarg; break;
		case 't': threads = optarg; break;
		case 'o': b.dir = optarg; break;
		case 'q': b.quiet = true; break;
		case 'P': b.plots = false; break;
		case 's': b.size = size_option("--size", optarg, 4096); break;
		case 'n': b.reps = (int)count_option("--reps", optarg, 1, 1000); break;
		case 'k':
			b.kernels = names_option("--kernels", optarg, hb_kernel_names, HB_NKERNELS);
			break;
		case 'w': b.wmin = size_option("--window-min", optarg, 4096); break;
		case 'W': b.wmax = size_option("--window-max", optarg, 4096); break;
		case 'G': b.pages = names_option("--pages", optarg, page_names, 3); break;
		case 'g': b.gsize = size_option("--gather-size", optarg, 4096); break;
		case 'r': b.reads = count_option("--reads", optarg, 1, (uint64_t)1 << 34); break;
		case 'h': fputs(usage, stdout); return 0;
		case 'V': printf("hmpt-bench %s\n", HMPT_VERSION); return 0;
		default: fprintf(stderr, "Try 'hmpt-bench --help'.\n"); return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		static const char *const modes[3] = {"stream", "latency", "gather"};
		int m = 0;
		while (m < 3 && strcmp(argv[i], modes[m]))
			m++;
		if (m == 3)
			usage_error("expected a mode: stream, latency or gather", argv[i]);
		b.modes[m] = true;
	}
	if (optind == argc)
		b.modes[0] = b.modes[1] = b.modes[2] = true;
	if (b.wmin > b.wmax)
		usage_error("--window-min is larger than --window-max", NULL);
	if (threads) {
		threads_option(&b, threads);
	} else {
		int max = omp_get_max_threads();
		for (int t = 1; t < max && b.nthreads < 63; t *= 2)
			b.threads[b.nthreads++] = t;
		b.threads[b.nthreads++] = max;
	}
	hb_cache_read("", &b.llc);
	uint64_t rule = 4 * b.llc.bytes;
	if (!b.size)
		b.size = rule > ((uint64_t)64 << 20) ? rule : (uint64_t)64 << 20;
	if (!b.gsize)
		b.gsize = b.size > ((uint64_t)1 << 30) ? b.size : (uint64_t)1 << 30;
	b.size = (b.size + HB_HUGE - 1) / HB_HUGE * HB_HUGE;
	b.gsize = (b.gsize + HB_HUGE - 1) / HB_HUGE * HB_HUGE;
	b.progress = !b.quiet && isatty(2);

	/* pools: the user's, or what this machine has */
	if (!pools) {
		static hmpt_topo_t topo;
		pools = hmpt_poolspec_topo(&topo, NULL, err, sizeof(err)) == 0 &&
		                !hmpt_nodemask_empty(&topo.hbm)
		            ? "ddr,hbm"
		            : "4k,thp";
		if (!b.quiet && !strcmp(pools, "4k,thp"))
			fprintf(stderr,
			        "hmpt-bench: no HBM found here: measuring the page-size pools "
			        "4k and thp (--pools to choose)\n");
	}
	setup_pools(&b, pools);
	if (hb_mem_setup(b.pools, b.npools, err, sizeof(err)) != 0) {
		fprintf(stderr, "hmpt-bench: %s\n", err);
		return 1;
	}
	for (int i = 0; i < b.nuser; i++)
		if (b.pools[i].index < 0) {
			fprintf(stderr, "hmpt-bench: pool %s: %s; it is skipped\n", b.pools[i].name,
			        b.pools[i].why);
			b.unavailable++;
		}
	if (mkdir(b.dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "hmpt-bench: cannot create %s: %s\n", b.dir, strerror(errno));
		return 1;
	}

	time_t now = time(NULL);
	char date[64], host[256] = "";
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
	gethostname(host, sizeof(host) - 1);
	b.res.doc =
	    json_pack("{s:s,s:s,s:s,s:s,s:{s:s,s:i,s:I,s:s,s:s?,s:s?}}", "tool", "hmpt-bench",
	              "version", HMPT_VERSION, "date", date, "host", host, "machine", "nodes",
	              hb_mem_machine(), "cpus", omp_get_num_procs(), "last_level_cache_bytes",
	              (json_int_t)b.llc.bytes, "last_level_cache_source", b.llc.source,
	              "OMP_PROC_BIND", getenv("OMP_PROC_BIND"), "OMP_PLACES", getenv("OMP_PLACES"));
	b.placement = json_array();
	describe_pools(&b);
	json_t *tl = json_array();
	for (int i = 0; i < b.nthreads; i++)
		json_array_append_new(tl, json_integer(b.threads[i]));
	json_object_set_new(b.res.doc, "threads", tl);

	if (!b.quiet) {
		printf("hmpt-bench: %s; %d CPUs, last-level cache %s (%s)\n", hb_mem_machine(),
		       omp_get_num_procs(), hmpt_fmt_size_text(sz, sizeof(sz), b.llc.bytes),
		       b.llc.source);
		for (int i = 0; i < b.npools; i++)
			if (b.pools[i].index >= 0)
				printf("  pool %-12s %s\n", b.pools[i].name, b.pools[i].place);
	}
	if (!b.llc.bytes && (b.modes[0] || b.modes[2]))
		fprintf(stderr,
		        "hmpt-bench: warning: the last-level cache size is %s: STREAM's rule "
		        "(arrays of 4 x that) cannot be checked\n",
		        b.llc.source);
	if ((b.modes[0] && b.size < rule) || (b.modes[2] && b.gsize < rule))
		fprintf(stderr,
		        "hmpt-bench: warning: arrays of %s are below STREAM's rule of 4 x the "
		        "last-level cache (%s): they may be served from cache\n",
		        hmpt_fmt_size_text(sz, sizeof(sz), b.modes[0] ? b.size : b.gsize),
		        hmpt_fmt_size_text(sz2, sizeof(sz2), rule));

	static void (*const run[3])(bench_t *) = {run_stream, run_latency, run_gather};
	static const char *const modes[3] = {"stream", "latency", "gather"};
	static const char *const heading[3] = {"STREAM, %s; bandwidth by threads", "%s; by pool",
	                                       "%s; by threads"};
	for (int m = 0; m < 3; m++) {
		char key[32];
		if (!b.modes[m])
			continue;
		run[m](&b);
		snprintf(key, sizeof(key), "%s_text", modes[m]);
		const char *text = json_string_value(json_object_get(b.res.doc, key));
		if (b.quiet || !text)
			continue;
		putchar('\n');
		printf(heading[m], text);
		putchar('\n');
		hb_results_table(&b.res, modes[m]);
		print_pages(&b, modes[m]);
		fflush(stdout); /* a table as soon as its mode ends, also into a pipe */
	}
	json_object_set_new(b.res.doc, "placement", b.placement);
	if (hb_results_write(&b.res, b.dir, b.plots, b.quiet) != 0)
		return 1;
	if (!b.quiet)
		printf("\nresults: %s/results.json, %s/results.csv%s\n", b.dir, b.dir,
		       b.plots ? ", plots: stream, latency, gather (.svg, .png)" : "");
	if (b.wrong) {
		fprintf(stderr, "hmpt-bench: %d measurement%s gave wrong results\n", b.wrong,
		        b.wrong == 1 ? "" : "s");
		return 1;
	}
	if (!b.measured) {
		fprintf(stderr, "hmpt-bench: nothing could be measured\n");
		return 1;
	}
	return b.unavailable ? EXIT_SOME_POOLS : 0;
}
