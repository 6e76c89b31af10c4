/* busywork — a null landscape for the tuner's load test: three arrays of
 * 1-2 MiB from three call sites, then a fixed amount of arithmetic on
 * registers that touches none of them, so that where the arrays are cannot
 * change its time and only other load on its CPUs can.
 * Usage: busywork [ITERATIONS]  (default 40 million: ~50-100 ms) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

static char *alloc_a(void)
{
	return malloc(2 * MiB);
}

static char *alloc_b(void)
{
	return malloc(MiB + MiB / 2);
}

static char *alloc_c(void)
{
	return malloc(MiB);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 40000000;
	char *a = alloc_a(), *b = alloc_b(), *c = alloc_c();
	volatile unsigned long sink;
	unsigned long x = 88172645463325252ul;

	if (!a || !b || !c)
		return 1;
	memset(a, 1, 2 * MiB);
	memset(b, 2, MiB + MiB / 2);
	memset(c, 3, MiB);
	/* xorshift: the same instructions every run */
	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	sink = x + (unsigned long)a[7] + (unsigned long)b[7] + (unsigned long)c[7];
	(void)sink;
	free(a);
	free(b);
	free(c);
	return 0;
}
