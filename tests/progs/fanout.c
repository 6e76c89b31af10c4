/* fanout.c — up to 10,000 allocation sites in a few lines: each block is
 * allocated at the bottom of two switches of 100 calls each, picked by the
 * block's number, so that every block has a call stack of its own (a site
 * of its own) only a few frames deep.  For reports of thousands of sites
 * (t_report_browser), made in seconds.
 *
 * Usage: fanout [N [KIB]]   N blocks (default 10000, at most 10000) of
 *   KIB KiB times 1 to 4 (default 64), each allocated, its first byte
 *   written, and freed.  Prints "Time in seconds = 1", a constant: every
 *   placement measures the same, so a tuning of it is the same every time;
 *   then "fanout: N sites in T s" (the loop's real time). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

/* 100 calls of F, each from an address of its own (built -O0, as every
 * test program: no two cases merged) */
#define CALL(i)                                                                                    \
	case i:                                                                                    \
		return F(n);
#define CALLS10(d)                                                                                 \
	CALL(10 * d + 0)                                                                           \
	CALL(10 * d + 1)                                                                           \
	CALL(10 * d + 2)                                                                           \
	CALL(10 * d + 3)                                                                           \
	CALL(10 * d + 4)                                                                           \
	CALL(10 * d + 5)                                                                           \
	CALL(10 * d + 6)                                                                           \
	CALL(10 * d + 7)                                                                           \
	CALL(10 * d + 8)                                                                           \
	CALL(10 * d + 9)
#define CALLS100                                                                                   \
	CALLS10(0)                                                                                 \
	CALLS10(1)                                                                                 \
	CALLS10(2)                                                                                 \
	CALLS10(3)                                                                                 \
	CALLS10(4)                                                                                 \
	CALLS10(5)                                                                                 \
	CALLS10(6)                                                                                 \
	CALLS10(7)                                                                                 \
	CALLS10(8)                                                                                 \
	CALLS10(9)

#define F leaf
__attribute__((noinline)) static int low(unsigned n)
{
	switch (n % 100) {
		CALLS100
	}
	return 1;
}
#undef F
#define F low
__attribute__((noinline)) static int high(unsigned n)
{
	switch (n / 100) {
		CALLS100
	}
	return 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	struct timespec a, b;

	if (argc > 2)
		unit = (size_t)atol(argv[2]) << 10;
	if (n < 1 || n > 10000 || unit == 0) {
		fprintf(stderr, "usage: fanout [N (1-10000) [KIB]]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		if (high((unsigned)i))
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("Time in seconds = 1\n");
	printf("fanout: %ld sites in %.6f s\n", n,
	       (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
	return 0;
}
