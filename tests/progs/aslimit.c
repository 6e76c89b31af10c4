/* aslimit.c — a program under an address-space limit (ulimit -v).
 *
 * Usage: aslimit [--reserve PCT] [--block-next] [--until-null]
 *                [--then-reserve PCT] N MIB
 *   --reserve PCT  first reserve PCT % of RLIMIT_AS (PROT_NONE), as a JVM
 *                  reserves its heap at start; exit 3 if refused
 *   --block-next   after the first block, map a page where hmpt's arena
 *                  would grow next (the end of the run of mappings that
 *                  holds the first block, read from /proc/self/maps), so
 *                  that it cannot grow; exit 4 if refused
 *   --until-null   stop at the first NULL instead of failing (exit 1)
 *   --then-reserve PCT  once the blocks are freed, reserve PCT % of the
 *                  limit, as a program that maps a large file after
 *                  freeing its buffers; exit 6 if refused
 * Then N blocks of MIB MiB, all live, each written at both ends (so that
 * the run stays quick) and checked, freed.
 * Prints "aslimit: ok K" with K the blocks it got. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Reserve pct % of the limit (PROT_NONE): 0, or -1 if refused. */
static int reserve(const struct rlimit *rl, int pct)
{
	size_t len = rl->rlim_cur == RLIM_INFINITY ? 0 : (size_t)(rl->rlim_cur / 100 * pct);

	if (!len || mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
	                 0) == MAP_FAILED)
		return -1;
	return 0;
}

/* The end of the run of adjacent mappings that holds address a, or 0. */
static uintptr_t run_end(uintptr_t a)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uintptr_t end = 0;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if ((lo <= a && a < hi) || (end && lo == end))
			end = hi;
	}
	if (f)
		fclose(f);
	return end;
}

int main(int argc, char **argv)
{
	int pct = 0, then_pct = 0, block_next = 0, until_null = 0, i = 1;
	struct rlimit rl;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--reserve") == 0 && i + 1 < argc)
			pct = atoi(argv[++i]);
		else if (strcmp(argv[i], "--block-next") == 0)
			block_next = 1;
		else if (strcmp(argv[i], "--until-null") == 0)
			until_null = 1;
		else if (strcmp(argv[i], "--then-reserve") == 0 && i + 1 < argc)
			then_pct = atoi(argv[++i]);
		else
			break;
	}
	if (argc - i != 2 || getrlimit(RLIMIT_AS, &rl) != 0) {
		fprintf(stderr, "usage: aslimit [--reserve PCT] [--block-next] [--until-null] "
		                "[--then-reserve PCT] N MIB\n");
		return 2;
	}
	int n = atoi(argv[i]);
	size_t size = (size_t)atoi(argv[i + 1]) << 20;
	if (pct && reserve(&rl, pct) != 0) {
		printf("aslimit: cannot reserve %d %% of the limit\n", pct);
		return 3;
	}
	char **p = calloc((size_t)n, sizeof(*p));
	int got = 0;
	for (; got < n; got++) {
		p[got] = malloc(size);
		if (!p[got]) {
			if (until_null)
				break;
			printf("aslimit: block %d refused\n", got);
			return 1;
		}
		p[got][0] = p[got][size - 1] = (char)(got & 0xff);
		if (got == 0 && block_next) {
			void *want = (void *)run_end((uintptr_t)p[0]);
			void *q = mmap(want, 4096, PROT_NONE,
			               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (q != want) {
				printf("aslimit: cannot map a page at %p\n", want);
				return 4;
			}
		}
	}
	for (int k = 0; k < got; k++) {
		if (p[k][0] != (char)(k & 0xff) || p[k][size - 1] != (char)(k & 0xff)) {
			printf("aslimit: block %d lost its data\n", k);
			return 5;
		}
		free(p[k]);
	}
	free(p);
	if (then_pct && reserve(&rl, then_pct) != 0) {
		printf("aslimit: cannot reserve %d %% of the limit after freeing\n", then_pct);
		return 6;
	}
	printf("aslimit: ok %d\n", got);
	return 0;
}
