/* heaptop.c — a heap top that rises and falls, after one large buffer was
 * freed: glibc then keeps its top (its thresholds rose with that free),
 * and so must it under hmpt, which tracked the buffer (shim/thresh.h).
 *
 * Usage: heaptop ROUNDS [mallopt]   ("mallopt": the program fixes glibc's
 * trim threshold itself first, which hmpt must leave alone).
 * Prints "heaptop: minor faults N" for the rounds.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static void *volatile sink;
#define NBLK 3072
static char *blk[NBLK];

static long minflt(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 50;

	if (argc > 2 && strcmp(argv[2], "mallopt") == 0)
		mallopt(M_TRIM_THRESHOLD, 128 << 10);
	char *big = malloc(4 << 20); /* an input buffer, say; glibc maps it */
	big[0] = 1;
	sink = big;
	free(big);
	long before = minflt();
	for (int r = 0; r < rounds; r++) {
		/* 6 MiB of 2000-byte blocks (past the tcache), freed newest
		 * first: each free merges into the top, which then stays below
		 * the 8 MiB trim threshold glibc sets after the 4 MiB free (a
		 * margin that no layout of small blocks closes) and far above
		 * the 128 KiB one it starts with */
		for (int i = 0; i < NBLK; i++) {
			blk[i] = malloc(2000);
			blk[i][0] = (char)i;
		}
		for (int i = NBLK - 1; i >= 0; i--)
			free(blk[i]);
	}
	printf("heaptop: minor faults %ld\n", minflt() - before);
	return 0;
}
