/* demo.c — the bundled workload for `make demo` and the tuner's tests.
 *
 * Four large arrays from four distinct call sites, each used differently,
 * so that where each one lives matters differently:
 *   table    random gathers (latency- and TLB-bound: gains most from faster
 *            memory or larger pages)
 *   counts   random read-modify-write updates (GUPS-like)
 *   stream   sequential triad-like sweeps (bandwidth-bound)
 *   once     written once at start, never read again
 *
 * Usage: hmpt-demo [-s MiB] [-i iterations] [-q]
 *   -s  size of the table in MiB (default 512; counts is 1/2, stream 1/4,
 *       once 1/4 of it)
 *   -i  iterations of the main loop (default 4)
 * Prints the time of the access phase and a checksum (the same for every
 * placement of the arrays).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t next_rand(uint64_t *s)
{
	/* xorshift64*: cheap, so the memory access dominates */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static __attribute__((noinline)) void *alloc_table(size_t bytes)
{
	return malloc(bytes);
}

static __attribute__((noinline)) void *alloc_counts(size_t bytes)
{
	return calloc(1, bytes);
}

static __attribute__((noinline)) void *alloc_stream(size_t bytes)
{
	return malloc(bytes);
}

static __attribute__((noinline)) void *alloc_once(size_t bytes)
{
	return malloc(bytes);
}

static void die(const char *what)
{
	fprintf(stderr, "hmpt-demo: %s\n", what);
	exit(1);
}

int main(int argc, char **argv)
{
	size_t mib = 512;
	int iters = 4, quiet = 0, c;

	while ((c = getopt(argc, argv, "s:i:qh")) != -1) {
		switch (c) {
		case 's': mib = strtoull(optarg, NULL, 10); break;
		case 'i': iters = atoi(optarg); break;
		case 'q': quiet = 1; break;
		default:
			fprintf(stderr, "usage: hmpt-demo [-s table-MiB] [-i iterations] [-q]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (mib < 4 || iters < 1)
		die("-s must be at least 4 and -i at least 1");

	size_t nt = (mib << 20) / sizeof(uint64_t);
	size_t nc = nt / 2, ns = nt / 4, no = nt / 4;
	uint64_t *table = alloc_table(nt * sizeof(uint64_t));
	uint64_t *counts = alloc_counts(nc * sizeof(uint64_t));
	double *stream = alloc_stream(ns * sizeof(double));
	uint64_t *once = alloc_once(no * sizeof(uint64_t));
	if (!table || !counts || !stream || !once)
		die("out of memory");

	/* first touch, outside the timed phase */
	for (size_t i = 0; i < nt; i++)
		table[i] = i * 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < ns; i++)
		stream[i] = (double)(i & 1023);
	for (size_t i = 0; i < no; i++)
		once[i] = i;
	memset(counts, 0, nc * sizeof(uint64_t));

	double t0 = now();
	uint64_t seed = 88172645463325252ull, sum = 0;
	/* as many updates as gathers, so that both random-access arrays weigh
	 * clearly more than the sequential one */
	size_t ngather = nt / 2, nupdate = nc;
	for (int it = 0; it < iters; it++) {
		for (size_t k = 0; k < ngather; k++)
			sum += table[next_rand(&seed) % nt];
		for (size_t k = 0; k < nupdate; k++)
			counts[next_rand(&seed) % nc] += 1;
		for (size_t i = 0; i + 1 < ns; i++)
			stream[i] = stream[i + 1] * 0.5 + 1.0;
	}
	double t = now() - t0;
	for (size_t i = 0; i < nc; i += 4096)
		sum += counts[i];
	sum += (uint64_t)stream[ns / 2] + once[no - 1];
	if (!quiet)
		printf("hmpt-demo: table %zu MiB, %d iterations\n", mib, iters);
	printf("Time in seconds = %.3f\n", t);
	printf("checksum = %llu\n", (unsigned long long)sum);
	free(table);
	free(counts);
	free(stream);
	free(once);
	return 0;
}
