/* test_hb_kern.c — hmpt-bench's kernels (bench/hb_kern.c) compute what they
 * claim: each STREAM kernel's result and the check that catches one wrong
 * element, a pointer chain that is one cycle through every line of its
 * window, and an indirect sum that matches its serial value, with 1 and 3
 * threads. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "hb.h"

static void test_stream(void)
{
	size_t n = 100003; /* not a multiple of any vector width */
	double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double)),
	       *z = malloc(n * sizeof(double));

	for (int threads = 1; threads <= 3; threads += 2) {
		omp_set_num_threads(threads);
		hb_fill(x, n, 2.0);
		hb_fill(y, n, 1.0);
		for (int k = 0; k < HB_NKERNELS; k++) {
			hb_fill(z, n, 0);
			CHECK_OP(hb_stream_pass(k, z, x, y, n), >=, 0);
			double want = hb_stream_expect(k, 2.0, 1.0);
			CHECK_OP(hb_stream_error(z, n, want), ==, 0);
			/* the last element is written too */
			CHECK_OP(z[n - 1], ==, want);
			/* one wrong element is seen */
			z[n / 2] += 1;
			CHECK_OP(hb_stream_error(z, n, want), >, 1e-13);
		}
	}
	CHECK_OP(hb_stream_expect(HB_COPY, 2, 1), ==, 2);
	CHECK_OP(hb_stream_expect(HB_SCALE, 2, 1), ==, 6);
	CHECK_OP(hb_stream_expect(HB_ADD, 2, 1), ==, 3);
	CHECK_OP(hb_stream_expect(HB_TRIAD, 2, 1), ==, 5);
	CHECK_OP(hb_kernel_bytes[HB_COPY], ==, 16);
	CHECK_OP(hb_kernel_bytes[HB_TRIAD], ==, 24);
	free(x);
	free(y);
	free(z);
}

static void test_chase(void)
{
	size_t window = 1 << 20, lines = window / 64;
	char *buf = aligned_alloc(64, window);
	unsigned char *seen = calloc(lines, 1);

	hb_chase_build(buf, window, 42);
	/* following the chain from the start visits every line once, then
	 * comes back */
	char *p = buf;
	size_t steps = 0;
	do {
		size_t line = (size_t)(p - buf) / 64;
		CHECK_OP(p, >=, buf);
		CHECK_OP(p, <, buf + window);
		CHECK_OP((size_t)(p - buf) % 64, ==, 0);
		CHECK(!seen[line]);
		seen[line] = 1;
		p = *(char **)p;
		steps++;
	} while (p != buf && steps <= lines);
	CHECK_OP(steps, ==, lines);
	CHECK_OP(hb_chase(buf, lines), ==, buf);
	CHECK_OP(hb_chase(buf, 3), ==, *(char **)*(char **)*(char **)buf);
	/* a smaller window of the same buffer stays inside it */
	hb_chase_build(buf, 4096, 7);
	p = hb_chase(buf, 1000);
	CHECK_OP(p, >=, buf);
	CHECK_OP(p, <, buf + 4096);
	free(buf);
	free(seen);
}

static void test_gather(void)
{
	size_t n = 1 << 16, m = 100000;
	uint64_t *table = malloc(n * sizeof(uint64_t)), *idx = malloc(m * sizeof(uint64_t));
	double s;

	hb_gather_fill(table, n, idx, m, 9);
	uint64_t want = 0;
	for (size_t j = 0; j < m; j++) {
		CHECK_OP(idx[j], <, n);
		want += hb_gather_value(idx[j]);
	}
	for (int threads = 1; threads <= 3; threads += 2) {
		omp_set_num_threads(threads);
		CHECK_OP(hb_gather_pass(table, idx, m, &s), ==, want);
		CHECK_OP(s, >=, 0);
	}
	/* the indices are spread over the table, not stuck in one place */
	size_t low = 0;
	for (size_t j = 0; j < m; j++)
		low += idx[j] < n / 2;
	CHECK_OP(low, >, m * 45 / 100);
	CHECK_OP(low, <, m * 55 / 100);
	free(table);
	free(idx);
}

int main(void)
{
	test_stream();
	test_chase();
	test_gather();
	return failures != 0;
}
