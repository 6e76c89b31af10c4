/* crashy.c — a program with a bug that only one placement shows: it aborts
 * when its first array has been given transparent huge pages (VmFlags "hg"
 * in /proc/self/smaps), as a program can when it assumes a page size.  Two
 * arrays from two call sites; prints "Time in seconds = T" unless -n. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int has_huge_advice(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long lo = 0, hi = 0, a = (unsigned long)p;
	int in = 0, found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			in = a >= lo && a < hi;
		else if (in && !strncmp(line, "VmFlags:", 8))
			found = strstr(line, " hg") != NULL;
	}
	fclose(f);
	return found;
}

static __attribute__((noinline)) char *alloc_fragile(size_t n)
{
	return malloc(n);
}

static __attribute__((noinline)) char *alloc_sturdy(size_t n)
{
	return malloc(n);
}

int main(int argc, char **argv)
{
	size_t n = 8u << 20;
	int quiet_metric = argc > 1 && !strcmp(argv[1], "-n");
	char *a = alloc_fragile(n), *b = alloc_sturdy(n);
	struct timespec t0, t1;

	if (!a || !b)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(a, 1, n);
	memset(b, 2, n);
	if (has_huge_advice(a)) {
		fprintf(stderr, "crashy: my first array has huge pages: aborting\n");
		abort();
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!quiet_metric)
		printf("Time in seconds = %.6f\n",
		       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	int same = a[0] == b[0];
	free(a);
	free(b);
	return same;
}
