/* startup.c — what libhmpt.so adds to a process's start and exit, with
 * nothing asked of it (no plan, no profile, no sampling), taken in one run.
 *
 * Starts PROGRAM (default /bin/true) ROUNDS times without the shim and
 * ROUNDS times with LD_PRELOAD=LIB, alternating, each with posix_spawn and
 * waitpid, and prints the medians and their difference: the time every
 * process of a job script, and every short helper a launcher starts, pays
 * for being run under the shim.  The environment is the caller's with every
 * HMPT_* variable removed.  Goal (issue 20): at most 1 ms added.
 *
 * Usage: startup LIB [ROUNDS [PROGRAM ARGS...]]
 * With STARTUP_BEFORE=LIB2 (another build of the shim: what a change
 * gains), each round runs under LIB2 too, the three in turn, and a second
 * line gives LIB2's median and the median of the per-round ratios LIB/LIB2.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "bench_util.h"

static double run(char **argv, char **envp)
{
	pid_t pid;
	int st;
	double t = bench_now();
	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, envp) != 0 ||
	    waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) {
		fprintf(stderr, "startup: cannot run %s\n", argv[0]);
		exit(2);
	}
	return bench_now() - t;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: startup LIB [ROUNDS [PROGRAM ARGS...]]\n");
		return 2;
	}
	int rounds = argc > 2 ? atoi(argv[2]) : 200;
	char *deflt[] = {"/bin/true", NULL};
	char **prog = argc > 3 ? argv + 3 : deflt;
	if (rounds < 1)
		rounds = 1;

	/* the caller's environment without HMPT_* or LD_PRELOAD, and a copy
	 * with the shim preloaded */
	char **plain = bench_env(NULL), **shim = bench_env(argv[1]);
	const char *before = getenv("STARTUP_BEFORE");
	char **old = before ? bench_env(before) : NULL;
	double *a = calloc((size_t)rounds, sizeof(double)),
	       *b = calloc((size_t)rounds, sizeof(double)),
	       *c = calloc((size_t)rounds, sizeof(double)),
	       *ratio = calloc((size_t)rounds, sizeof(double));
	if (!plain || !shim || (before && !old) || !a || !b || !c || !ratio)
		return 2;

	run(prog, plain); /* warm the page cache for all */
	run(prog, shim);
	if (old)
		run(prog, old);
	for (int r = 0; r < rounds; r++) {
		int n = old ? 3 : 2;
		for (int k = 0; k < n; k++) { /* each goes first in turn */
			int which = (r + k) % n;
			if (which == 0)
				a[r] = run(prog, plain);
			else if (which == 1)
				b[r] = run(prog, shim);
			else
				c[r] = run(prog, old);
		}
		ratio[r] = old ? b[r] / c[r] : 0;
	}
	double ma = bench_median(a, rounds), mb = bench_median(b, rounds);
	if (old)
		printf("start-up of %s under %s: %.3f ms; per-round ratio %s / it %.3fx\n", prog[0],
		       before, bench_median(c, rounds) * 1e3, argv[1], bench_median(ratio, rounds));
	printf("start-up of %s, %d runs each, medians: without hmpt %.3f ms, with hmpt (nothing "
	       "asked) "
	       "%.3f ms: %.3f ms added, ratio %.2fx (goal: at most 1 ms added)\n",
	       prog[0], rounds, ma * 1e3, mb * 1e3, (mb - ma) * 1e3, mb / ma);
	return 0;
}
