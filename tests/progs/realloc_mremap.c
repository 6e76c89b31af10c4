/* realloc_mremap.c — large blocks grown by realloc until they move, then
 * moved again once they span two mappings, every byte checked after each
 * step; then zeroed requests over the same memory must read as zeros.
 *
 *   realloc_mremap
 *
 * Under hmpt the steps fall on granules other blocks used (a 40 MiB block
 * freed first, reused by first fit): a move whose destination the kernel
 * unmapped and hmpt still believes mapped faults there.  Prints one line
 * per step and "realloc_mremap: ok, N of M reallocs moved"; exits 1 on the
 * first wrong byte, saying where. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

static unsigned moved_g, reallocs_g;

static uint64_t word(unsigned seed, size_t i)
{
	return ((uint64_t)seed << 56) ^ (i * 0x9e3779b97f4a7c15ull);
}

static void fill(char *p, size_t from, size_t to, unsigned seed)
{
	for (size_t i = from / 8; i < to / 8; i++)
		((uint64_t *)p)[i] = word(seed, i);
}

static void check(const char *what, const char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len / 8; i++)
		if (((const uint64_t *)p)[i] != word(seed, i)) {
			printf("realloc_mremap: %s: wrong data at byte %zu of %zu\n", what, i * 8,
			       len);
			exit(1);
		}
}

static void check_zero(const char *what, const char *p, size_t len)
{
	for (size_t i = 0; i < len / 8; i++)
		if (((const uint64_t *)p)[i]) {
			printf("realloc_mremap: %s: byte %zu of %zu is not zero\n", what, i * 8,
			       len);
			exit(1);
		}
}

static char *alloc(size_t len, unsigned seed)
{
	char *p = malloc(len);

	if (!p) {
		printf("realloc_mremap: malloc(%zu) failed\n", len);
		exit(1);
	}
	fill(p, 0, len, seed);
	return p;
}

/* p (`have` bytes of seed's pattern) grown to `want`: checked, then filled */
static char *grow(const char *what, char *p, size_t have, size_t want, unsigned seed)
{
	char *q = realloc(p, want);

	if (!q) {
		printf("realloc_mremap: %s: realloc(%zu) failed\n", what, want);
		exit(1);
	}
	reallocs_g++;
	moved_g += q != p;
	check(what, q, have < want ? have : want, seed);
	fill(q, have < want ? have : want, want, seed);
	printf("%s: %zu -> %zu MiB%s\n", what, have / MiB, want / MiB, q != p ? ", moved" : "");
	return q;
}

int main(void)
{
	/* used, then freed: granules mapped and kept, which the moves reuse */
	char *x = alloc(40 * MiB, 9);
	char *a = alloc(3 * MiB, 1), *b = alloc(3 * MiB, 2);
	free(x);

	a = grow("a1", a, 3 * MiB, 7 * MiB, 1);  /* moves: two mappings now */
	char *c = alloc(3 * MiB, 3);             /* right after a */
	a = grow("a2", a, 7 * MiB, 15 * MiB, 1); /* a block of two mappings moves */
	b = grow("b1", b, 3 * MiB, 5 * MiB, 2);
	a = grow("a3", a, 15 * MiB, 47 * MiB, 1); /* past b: moves again */
	b = grow("b2", b, 5 * MiB, 13 * MiB, 2);
	a = grow("a4", a, 47 * MiB, 11 * MiB, 1); /* shrinks in place */
	c = grow("c1", c, 3 * MiB, 9 * MiB, 3);
	check("a", a, 11 * MiB, 1);
	check("b", b, 13 * MiB, 2);
	check("c", c, 9 * MiB, 3);
	free(a);
	free(b);
	free(c);

	/* the same memory asked for zeroed, then written whole */
	size_t sizes[] = {7 * MiB, 15 * MiB, 3 * MiB, 40 * MiB, 47 * MiB};
	char *z[5];
	for (int i = 0; i < 5; i++) {
		z[i] = calloc(1, sizes[i]);
		if (!z[i]) {
			printf("realloc_mremap: calloc(%zu) failed\n", sizes[i]);
			return 1;
		}
		check_zero("calloc", z[i], sizes[i]);
		fill(z[i], 0, sizes[i], 20 + (unsigned)i);
	}
	for (int i = 0; i < 5; i++) {
		check("calloc'ed", z[i], sizes[i], 20 + (unsigned)i);
		free(z[i]);
	}
	printf("realloc_mremap: ok, %u of %u reallocs moved\n", moved_g, reallocs_g);
	return 0;
}
