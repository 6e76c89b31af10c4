/* split_gather.c — random gathers over one table, for bench/split_gather.sh:
 * the table comes from one call site, so that a plan can put a share of it
 * in one pool and the rest in another.  The gathers are spread evenly over
 * the table, so the time should follow the share in the faster pool.
 *
 * Usage: split_gather [TABLE_MIB [MILLIONS_OF_GATHERS [SHARE]]] (defaults 1024,
 * 64): with SHARE, the control without hmpt: the table is its own mapping,
 * its first SHARE (whole 2 MiB pages) advised MADV_HUGEPAGE and the rest
 * MADV_NOHUGEPAGE, as a split plan places it.
 * Prints "Time in seconds = T" (the gathers only) and a checksum.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
	size_t n = mib * 1024 * 1024 / sizeof(uint64_t), len = n * sizeof(uint64_t),
	       huge = 2u << 20;
	uint64_t *t;
	if (argc > 3) { /* the control: split by hand */
		char *p = mmap(NULL, len + huge, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		t = (uint64_t *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
		size_t head = (size_t)(strtod(argv[3], NULL) * (double)len) / huge * huge;
		if (head)
			madvise(t, head, MADV_HUGEPAGE);
		if (len > head)
			madvise((char *)t + head, len - head, MADV_NOHUGEPAGE);
	} else {
		t = alloc_table(len);
	}

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
	if (argc <= 3)
		free(t);
	return 0;
}
