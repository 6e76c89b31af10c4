/* fanout.c — N allocation sites in a few lines: each block is allocated at
 * the bottom of a binary tree of calls, 14 levels deep, whose path spells
 * the block's number, so that every block has a call stack of its own (a
 * site of its own, within the shim's 16 frames).  For reports of thousands
 * of sites (t_report_browser), made in a second.
 *
 * Usage: fanout [N [KIB]]   N blocks (default 10000, at most 16384) of
 *   KIB KiB times 1 to 4 (default 64), each allocated, its first byte
 *   written, and freed.  Prints "Time in seconds = T" (the time of the
 *   loop) and "fanout: N sites". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LEVELS 14

static size_t unit = 64 << 10;

__attribute__((noinline)) static int leaf(unsigned n)
{
	volatile char *p = malloc(unit * (1 + n % 4));
	if (!p)
		return 1;
	p[0] = (char)n;
	free((void *)p);
	return 0;
}

/* two calls, two return addresses: bit `level` of n picks one */
__attribute__((noinline)) static int down(unsigned n, int level)
{
	int rc;
	if (level == LEVELS)
		return leaf(n);
	if (n >> level & 1)
		rc = down(n, level + 1);
	else
		rc = down(n, level + 1);
	return rc; /* built -O0, as every test program: two calls, no tail call */
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	struct timespec a, b;

	if (argc > 2)
		unit = (size_t)atol(argv[2]) << 10;
	if (n < 1 || n > 1L << LEVELS || unit == 0) {
		fprintf(stderr, "usage: fanout [N (1-%ld) [KIB]]\n", 1L << LEVELS);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		if (down((unsigned)i, 0))
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("Time in seconds = %.6f\n",
	       (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
	printf("fanout: %ld sites\n", n);
	return 0;
}
