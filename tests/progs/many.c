/* many.c — N blocks of 1 MiB, all live at once, written, checked, freed.
 * Usage: many N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	char **p = calloc((size_t)n, sizeof(*p));

	for (int i = 0; i < n; i++) {
		p[i] = malloc(1 << 20);
		if (!p[i])
			return 1;
		memset(p[i], i & 0xff, 1 << 20);
	}
	for (int i = 0; i < n; i++) {
		if (p[i][(1 << 20) - 1] != (char)(i & 0xff))
			return 2;
		free(p[i]);
	}
	free(p);
	puts("many: ok");
	return 0;
}
