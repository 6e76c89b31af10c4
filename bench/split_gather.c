/* split_gather.c — random gathers over one table, for bench/split_gather.sh:
 * the table comes from one call site, so that a plan can put a share of it
 * in one pool and the rest in another.  The gathers are spread evenly over
 * the table, so the time should follow the share in the faster pool.
 *
 * Usage: split_gather [TABLE_MIB [MILLIONS_OF_GATHERS]] (defaults 1024, 64)
 * Prints "Time in seconds = T" (the gathers only) and a checksum.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the table's own call site: the plan names it */
__attribute__((noinline)) static uint64_t *alloc_table(size_t bytes)
{
	return malloc(bytes);
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 1024;
	uint64_t gathers = (argc > 2 ? strtoull(argv[2], NULL, 0) : 64) * 1000000ull;
	size_t n = mib * 1024 * 1024 / sizeof(uint64_t);
	uint64_t *t = alloc_table(n * sizeof(uint64_t));

	if (!t || n == 0) {
		fprintf(stderr, "split_gather: cannot allocate %zu MiB\n", mib);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		t[i] = i * 0x9e3779b97f4a7c15ull;
	uint64_t s = 88172645463325252ull, sum = 0;
	double t0 = now();
	for (uint64_t k = 0; k < gathers; k += 8) {
		/* eight independent reads in flight, as a gather loop has */
		for (int j = 0; j < 8; j++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			sum += t[s % n];
		}
	}
	double dt = now() - t0;
	printf("Time in seconds = %.4f\nchecksum %llx\n", dt, (unsigned long long)sum);
	free(t);
	return 0;
}
