/* limits.c — a program that sets its limits after start.
 *
 * Usage: limits as|data|lock|report|future|fill
 *   as     lowers RLIMIT_AS to 512 MiB, a bit above what it uses
 *   data   lowers RLIMIT_DATA to 512 MiB
 *   lock   mlockall(MCL_CURRENT|MCL_FUTURE) within RLIMIT_MEMLOCK
 *          (run without CAP_IPC_LOCK to be held to it)
 *   report mlockall as root, then prints VmLck and VmRSS in KiB
 *   future mlockall(MCL_FUTURE) alone, then blocks of 3 MiB allocated and
 *          freed, then one of 5 MiB: within an 8 MiB RLIMIT_MEMLOCK when
 *          each freed block's share is given back
 *   fill   under the limits it started with: blocks of 16 MiB until one
 *          is refused, every other one freed, then blocks of 24 MiB until
 *          one is refused; prints "limits: fill N MiB then M"
 * (but future) then allocates and frees tracked (>= 1 MiB) and untracked blocks, in an
 * order that leaves freed granules between live ones, each marked at
 * both ends and the middle and checked.  Prints "limits: ok"; exit 1 when
 * a block is refused, 2 when the limit or the lock is, 3 when data is
 * lost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#define MIB ((size_t)1 << 20)

/* a field of /proc/self/status in KiB */
static long status_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, field, strlen(field)) == 0)
			v = atol(line + strlen(field) + 1);
	if (f)
		fclose(f);
	return v;
}

static char *take(size_t size, int tag)
{
	char *p = malloc(size);

	if (!p) {
		printf("limits: a block of %zu bytes refused\n", size);
		exit(1);
	}
	/* the limits count mappings, not pages: a few bytes tell the data */
	p[0] = p[size / 2] = p[size - 1] = (char)tag;
	return p;
}

static void check(const char *p, size_t size, int tag)
{
	if (p[0] != (char)tag || p[size / 2] != (char)tag || p[size - 1] != (char)tag) {
		printf("limits: a block of %zu bytes lost its data\n", size);
		exit(3);
	}
}

/* Blocks of up to `big` bytes: two live ones with a freed one between,
 * then one larger than the hole, and small ones beside them. */
static void churn(size_t big, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		char *a = take(big / 2, 1), *b = take(8 * MIB, 2), *s = take(64 << 10, 3);
		check(a, big / 2, 1);
		free(a);
		char *c = take(big, 4), *t = take(100 << 10, 5);
		check(b, 8 * MIB, 2);
		check(c, big, 4);
		check(s, 64 << 10, 3);
		check(t, 100 << 10, 5);
		free(b);
		free(c);
		free(s);
		free(t);
	}
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	struct rlimit rl = {512 * MIB, RLIM_INFINITY};
	/* a first tracked block before the limit: the arena is set up */
	char *first = take(4 * MIB, 7);

	if (strcmp(what, "as") == 0 || strcmp(what, "data") == 0) {
		getrlimit(what[0] == 'a' ? RLIMIT_AS : RLIMIT_DATA, &rl);
		rl.rlim_cur = 512 * MIB;
		if (setrlimit(what[0] == 'a' ? RLIMIT_AS : RLIMIT_DATA, &rl) != 0) {
			printf("limits: setrlimit refused\n");
			return 2;
		}
		churn(200 * MIB, 4);
	} else if (strcmp(what, "lock") == 0 || strcmp(what, "report") == 0) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
			printf("limits: mlockall refused\n");
			return 2;
		}
		if (what[0] == 'r') {
			printf("VmLck %ld VmRSS %ld\n", status_kib("VmLck:"), status_kib("VmRSS:"));
			churn(16 * MIB, 2);
		} else {
			/* within what an ordinary user may lock: a block of 1 MiB */
			char *p = take(MIB, 6);
			check(p, MIB, 6);
			free(p);
		}
	} else if (strcmp(what, "future") == 0) {
		if (mlockall(MCL_FUTURE) != 0) {
			printf("limits: mlockall refused\n");
			return 2;
		}
		for (int i = 0; i < 3; i++) {
			char *p = take(3 * MIB, 8);
			check(p, 3 * MIB, 8);
			free(p);
		}
		char *p = take(5 * MIB, 9);
		check(p, 5 * MIB, 9);
		free(p);
	} else if (strcmp(what, "fill") == 0) {
		static char *p[256];
		int n = 0, m = 0;
		while (n < 256 && (p[n] = malloc(16 * MIB)) != NULL)
			p[n++][0] = 1;
		for (int i = 0; i < n; i += 2)
			free(p[i]);
		for (char *q; m < 256 && (q = malloc(24 * MIB)) != NULL; m++)
			q[0] = 1;
		printf("limits: fill %d MiB then %d\n", n * 16, m);
		return 0;
	} else {
		fprintf(stderr, "usage: limits as|data|lock|report|future|fill\n");
		return 2;
	}
	check(first, 4 * MIB, 7);
	free(first);
	printf("limits: ok\n");
	return 0;
}
