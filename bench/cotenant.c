/* cotenant.c — a memory-bandwidth co-tenant for bench/demo_cotenant.sh: a
 * STREAM triad (a = b + s c) over three arrays of MiB each, pinned to one
 * CPU, for SECONDS (0: until killed).  It takes one CPU and as much memory
 * bandwidth as that CPU can draw, the load that slows all-slow more than a
 * placement in fast memory (issue 40).
 *
 * Usage: cotenant CPU MIB [SECONDS] */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: cotenant CPU MIB [SECONDS]\n");
		return 2;
	}
	int cpu = atoi(argv[1]);
	size_t n = (size_t)atol(argv[2]) << 20 >> 3;
	double secs = argc > 3 ? atof(argv[3]) : 0;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("cotenant: sched_setaffinity");
	double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)),
	       *c = malloc(n * sizeof(double));
	if (!a || !b || !c || n == 0) {
		fprintf(stderr, "cotenant: no memory for 3 x %s MiB\n", argv[2]);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		a[i] = 0, b[i] = 1, c[i] = 2;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long pass = 0;; pass++) {
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] + 3.0 * c[i];
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (secs > 0 &&
		    (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > secs)
			break;
		b[pass % n] = a[(pass * 7) % n]; /* the passes depend on each other */
	}
	printf("%g\n", a[n / 2]);
	return 0;
}
