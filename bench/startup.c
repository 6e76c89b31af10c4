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
	double *a = calloc((size_t)rounds, sizeof(double)),
	       *b = calloc((size_t)rounds, sizeof(double));
	if (!plain || !shim || !a || !b)
		return 2;

	run(prog, plain); /* warm the page cache for both */
	run(prog, shim);
	for (int r = 0; r < rounds; r++) {
		if (r & 1) {
			a[r] = run(prog, plain);
			b[r] = run(prog, shim);
		} else {
			b[r] = run(prog, shim);
			a[r] = run(prog, plain);
		}
	}
	double ma = bench_median(a, rounds), mb = bench_median(b, rounds);
	printf("start-up of %s, %d runs each, medians: without hmpt %.3f ms, with hmpt (nothing "
	       "asked) "
	       "%.3f ms: %.3f ms added, ratio %.2fx (goal: at most 1 ms added)\n",
	       prog[0], rounds, ma * 1e3, mb * 1e3, (mb - ma) * 1e3, mb / ma);
	return 0;
}
