/* static_stream.c — a STREAM-like kernel over static arrays, for the tests
 * of static-data placement.
 *
 *   static_stream [run] [ITERS]   copy/scale/add/triad ITERS times (default
 *                                 4) on a, b, c; results checked as STREAM
 *                                 checks them
 *   static_stream report [ITERS]  the same, then where each object's pages
 *                                 are (report.h, over the pages hmpt places
 *                                 for it), and for each page two arrays
 *                                 share: "edge X|Y holder=X flags=hg"
 *   static_stream gather MREADS   MREADS million random reads of `table`
 *                                 (default 20); prints the time they took
 *                                 as "gather_s=..." (a metric for the tuner)
 *
 * The objects: a, b, c (.bss, 16 MiB and 2400 bytes each, so that they
 * share pages at their ends), table (.bss, 64 MiB), init (.data, 2 MiB of
 * 1.0) and ptrs (.data, 1 MiB of pointers the dynamic loader relocates, so
 * its pages are present before main).  Exit status 0, or 1 when a result
 * is wrong. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"

#define N       (2 * 1024 * 1024 + 300)
#define TABLE_N (8 * 1024 * 1024)
#define INIT_N  (256 * 1024)
#define PTRS_N  (128 * 1024 + 7)

static double a[N], b[N], c[N];
static double table[TABLE_N];
double init[INIT_N] = {[0 ... INIT_N - 1] = 1.0};
static double one = 1.0;
static double *ptrs[PTRS_N] = {[0 ... PTRS_N - 1] = &one};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* STREAM's own check: every element equals the value the recurrence gives */
static int stream(int iters)
{
	const double scalar = 3.0;
	double aj = 1.0, bj = 2.0, cj = 0.0;

	for (long j = 0; j < N; j++) {
		a[j] = 1.0;
		b[j] = 2.0;
		c[j] = 0.0;
	}
	double t = now();
	for (int k = 0; k < iters; k++) {
		for (long j = 0; j < N; j++)
			c[j] = a[j];
		for (long j = 0; j < N; j++)
			b[j] = scalar * c[j];
		for (long j = 0; j < N; j++)
			c[j] = a[j] + b[j];
		for (long j = 0; j < N; j++)
			a[j] = b[j] + scalar * c[j];
		cj = aj;
		bj = scalar * cj;
		cj = aj + bj;
		aj = bj + scalar * cj;
	}
	t = now() - t;
	int bad = 0;
	for (long j = 0; j < N; j++)
		if (fabs(a[j] - aj) > 1e-13 * aj || fabs(b[j] - bj) > 1e-13 * bj ||
		    fabs(c[j] - cj) > 1e-13 * cj)
			bad++;
	double sum = 0;
	for (long j = 0; j < INIT_N; j++)
		sum += init[j];
	for (long j = 0; j < PTRS_N; j++)
		if (ptrs[j] != &one)
			bad++;
	/* bytes moved: copy and scale 2 arrays each, add and triad 3 */
	printf("stream iters=%d time_s=%.3f GBps=%.2f bad=%d init_sum=%.0f\n", iters, t,
	       t > 0 ? 10.0 * sizeof(double) * N * iters / t / 1e9 : 0.0, bad, sum);
	return bad || sum != INIT_N ? 1 : 0;
}

static int gather(long mreads)
{
	uint64_t x = 88172645463325252ull, hits = (uint64_t)mreads * 1000000;
	double sum = 0, t;

	for (long j = 0; j < TABLE_N; j++)
		table[j] = (double)(j & 1023);
	t = now();
	for (uint64_t k = 0; k < hits; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += table[x % TABLE_N];
	}
	t = now() - t;
	printf("gather reads=%llu sum=%.0f gather_s=%.4f ns_per_read=%.2f\n",
	       (unsigned long long)hits, sum, t, 1e9 * t / (double)hits);
	return sum > 0 ? 0 : 1;
}

struct obj {
	const char *name;
	const void *p;
	size_t len;
};

static int by_addr(const void *x, const void *y)
{
	const struct obj *p = x, *q = y;
	return p->p < q->p ? -1 : p->p > q->p;
}

static void report_all(void)
{
	struct obj o[] = {{"a", a, sizeof(a)},          {"b", b, sizeof(b)},
	                  {"c", c, sizeof(c)},          {"table", table, sizeof(table)},
	                  {"init", init, sizeof(init)}, {"ptrs", ptrs, sizeof(ptrs)}};
	size_t n = sizeof(o) / sizeof(o[0]);
	uintptr_t ps = 4096;

	for (size_t i = 0; i < n; i++)
		report_static(o[i].name, o[i].p, o[i].len);
	qsort(o, n, sizeof(o[0]), by_addr);
	for (size_t i = 0; i + 1 < n; i++) {
		uintptr_t end = (uintptr_t)o[i].p + o[i].len, next = (uintptr_t)o[i + 1].p;
		if ((end - 1) / ps != next / ps)
			continue; /* no page in common */
		uintptr_t page = next & ~(ps - 1);
		/* the rule: the one holding more of the page, the lower one on a tie */
		uintptr_t lower = end - page, upper = page + ps - next;
		const char *holder = lower >= upper ? o[i].name : o[i + 1].name;
		printf("edge %s|%s holder=%s lower_bytes=%lu upper_bytes=%lu flags=%s\n", o[i].name,
		       o[i + 1].name, holder, (unsigned long)lower, (unsigned long)upper,
		       report_page_flags(page));
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "run";
	int rc;

	if (strcmp(mode, "gather") == 0)
		return gather(argc > 2 ? atol(argv[2]) : 20);
	if (strcmp(mode, "run") != 0 && strcmp(mode, "report") != 0) {
		fprintf(stderr, "usage: static_stream [run|report [ITERS] | gather MREADS]\n");
		return 2;
	}
	rc = stream(argc > 2 ? atoi(argv[2]) : 4);
	if (strcmp(mode, "report") == 0)
		report_all();
	return rc;
}
