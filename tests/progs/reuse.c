/* reuse.c — freed tracked blocks are reused: calloc must still see zeros,
 * realloc must keep contents wherever the block moves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int all(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

int main(void)
{
	for (int round = 0; round < 50; round++) {
		size_t n = ((size_t)1 << 20) + (size_t)round * 40960;
		unsigned char *a = malloc(n);
		unsigned char *b = malloc(3 << 20); /* a neighbour, so a cannot grow in place */
		memset(a, 0xab, n);
		memset(b, 0xcd, 3 << 20);
		unsigned char *c = realloc(a, 2 * n);
		if (!c || !all(c, n, 0xab)) {
			fprintf(stderr, "reuse: realloc lost data in round %d\n", round);
			return 1;
		}
		memset(c, 0xef, 2 * n);
		free(c);
		free(b);
		unsigned char *z = calloc(1, 2 * n + 4096);
		if (!z || !all(z, 2 * n + 4096, 0)) {
			fprintf(stderr, "reuse: calloc memory not zero in round %d\n", round);
			return 1;
		}
		free(z);
	}
	puts("reuse: ok");
	return 0;
}
