/* alloc_c.c — every entry point of the malloc family, large and small, from
 * known lines.  Markers give the expected totals per source line.
 * Usage: alloc_c [exit-status] */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1024 * 1024)

static void *volatile keep;

static __attribute__((noinline)) void *helper(size_t n)
{
	void *p = malloc(n); /* hmpt-expect: allocations=2 bytes=5242880 */
	keep = p;            /* work after the call: no tail call, even at -O2 */
	return p;
}

/* a use the compiler cannot see through: -O2 must not drop the allocation */
static void use(void *p)
{
	keep = p;
	*(volatile char *)p = 1;
}

static void fill(unsigned char *p, size_t n, unsigned char v)
{
	memset(p, v, n);
}

static int check(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i += 4093)
		if (p[i] != v)
			return 1;
	return p[n - 1] != v;
}

int main(int argc, char **argv)
{
	int bad = 0;
	void *p = NULL;

	unsigned char *a = malloc(8 * MiB); /* hmpt-expect: allocations=1 bytes=8388608 */
	fill(a, 8 * MiB, 1);
	double *b = calloc(MiB, sizeof(double)); /* hmpt-expect: allocations=1 bytes=8388608 */
	bad |= b[12345] != 0.0;
	unsigned char *c = helper(2 * MiB);
	unsigned char *d = helper(3 * MiB);
	fill(c, 2 * MiB, 3);
	c = realloc(c, 16 * MiB); /* hmpt-expect: allocations=1 bytes=16777216 */
	bad |= check(c, 2 * MiB, 3);
	unsigned char *e = malloc(1000);
	fill(e, 1000, 7);
	e = realloc(e, 4 * MiB); /* hmpt-expect: allocations=1 bytes=4194304 */
	bad |= check(e, 1000, 7);
	if (posix_memalign(&p, 4096, 2 * MiB) != 0) /* hmpt-expect: allocations=1 bytes=2097152 */
		bad = 1;
	use(p);
	free(p);
	p = aligned_alloc(64, 3 * MiB); /* hmpt-expect: allocations=1 bytes=3145728 */
	use(p);
	free(p);
	p = memalign(1 << 22, 5 * MiB); /* hmpt-expect: allocations=1 bytes=5242880 */
	bad |= ((unsigned long)p & ((1 << 22) - 1)) != 0;
	free(p);
	p = valloc(6 * MiB); /* hmpt-expect: allocations=1 bytes=6291456 */
	use(p);
	free(p);
	p = pvalloc(7 * MiB - 100); /* hmpt-expect: allocations=1 bytes=7340032 */
	bad |= malloc_usable_size(p) < 7 * MiB;
	free(p);
	p = reallocarray(NULL, MiB, 9); /* hmpt-expect: allocations=1 bytes=9437184 */
	use(p);
	free(p);
	for (int i = 0; i < 10000; i++) { /* small ones are never tracked */
		keep = malloc((size_t)(i % 4096) + 1);
		free(keep);
	}
	bad |= check(a, 8 * MiB, 1); /* a is used: -O2 cannot drop it */
	if (bad)
		fprintf(stderr, "alloc_c: content or alignment check failed\n");
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
	return bad ? 99 : argc > 1 ? atoi(argv[1]) : 0;
}
