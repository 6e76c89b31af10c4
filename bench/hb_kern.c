/* hb_kern.c — the measuring kernels of hmpt-bench; see hb.h.
 *
 * The STREAM kernels follow STREAM's conventions: OpenMP static schedule,
 * one pass timed as a whole, bytes counted as the kernel names them (reads
 * plus writes, no write-allocate traffic).  They take restrict pointers to
 * separately mapped arrays, so the compiler vectorises them as it does
 * STREAM's static arrays. */
#include <math.h>
#include <omp.h>
#include <time.h>

#include "hb.h"

const char *const hb_kernel_names[HB_NKERNELS] = {"copy", "scale", "add", "triad"};
const int hb_kernel_inputs[HB_NKERNELS] = {1, 1, 2, 2};
const int hb_kernel_bytes[HB_NKERNELS] = {16, 16, 24, 24};

double hb_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double hb_stream_pass(int k, double *restrict z, const double *restrict x, const double *restrict y,
                      size_t n)
{
	const double q = HB_SCALAR;
	double t = hb_now();

	switch (k) {
	case HB_COPY:
#pragma omp parallel for schedule(static)
		for (size_t j = 0; j < n; j++)
			z[j] = x[j];
		break;
	case HB_SCALE:
#pragma omp parallel for schedule(static)
		for (size_t j = 0; j < n; j++)
			z[j] = q * x[j];
		break;
	case HB_ADD:
#pragma omp parallel for schedule(static)
		for (size_t j = 0; j < n; j++)
			z[j] = x[j] + y[j];
		break;
	default:
#pragma omp parallel for schedule(static)
		for (size_t j = 0; j < n; j++)
			z[j] = x[j] + q * y[j];
		break;
	}
	return hb_now() - t;
}

void hb_fill(double *a, size_t n, double v)
{
#pragma omp parallel for schedule(static)
	for (size_t j = 0; j < n; j++)
		a[j] = v;
}

double hb_stream_expect(int k, double x0, double y0)
{
	switch (k) {
	case HB_COPY: return x0;
	case HB_SCALE: return HB_SCALAR * x0;
	case HB_ADD: return x0 + y0;
	default: return x0 + HB_SCALAR * y0;
	}
}

double hb_stream_error(const double *z, size_t n, double want)
{
	double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
	for (size_t j = 0; j < n; j++)
		sum += fabs(z[j] - want);
	return n ? sum / (double)n / fabs(want) : 0;
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* uniform in [0, bound) without a division */
static uint64_t below(uint64_t *s, uint64_t bound)
{
	return (uint64_t)(((unsigned __int128)next_rand(s) * bound) >> 64);
}

#define LINE 64

void hb_chase_build(void *buf, size_t window, uint64_t seed)
{
	char *base = buf;
	size_t lines = window / LINE;
	uint64_t s = seed | 1;

	/* line i holds the address of line next[i]; start from the identity */
	for (size_t i = 0; i < lines; i++)
		*(char **)(base + i * LINE) = base + i * LINE;
	/* Sattolo: swapping with a strictly earlier line makes one cycle */
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = below(&s, i);
		char **a = (char **)(base + i * LINE), **b = (char **)(base + j * LINE);
		char *t = *a;
		*a = *b;
		*b = t;
	}
}

__attribute__((noinline)) void *hb_chase(void *start, size_t steps)
{
	void **p = start;

	for (; steps >= 8; steps -= 8) {
		p = *p;
		p = *p;
		p = *p;
		p = *p;
		p = *p;
		p = *p;
		p = *p;
		p = *p;
	}
	while (steps--)
		p = *p;
	return p;
}

void hb_gather_fill(uint64_t *table, size_t n, uint64_t *idx, size_t m, uint64_t seed)
{
#pragma omp parallel for schedule(static)
	for (size_t i = 0; i < n; i++)
		table[i] = hb_gather_value(i);
#pragma omp parallel
	{
		uint64_t s =
		    (seed + 0x9e3779b97f4a7c15ull * (uint64_t)(omp_get_thread_num() + 1)) | 1;
#pragma omp for schedule(static)
		for (size_t j = 0; j < m; j++)
			idx[j] = below(&s, n);
	}
}

uint64_t hb_gather_pass(const uint64_t *restrict table, const uint64_t *restrict idx, size_t m,
                        double *seconds)
{
	uint64_t sum = 0;
	double t = hb_now();

#pragma omp parallel for schedule(static) reduction(+ : sum)
	for (size_t j = 0; j < m; j++)
		sum += table[idx[j]];
	*seconds = hb_now() - t;
	return sum;
}
