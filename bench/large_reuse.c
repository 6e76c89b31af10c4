/* large_reuse — what page-fault profiling costs a program that frees and
 * allocates large blocks in a loop, in the manner of mimalloc-bench's
 * malloc-large: 20 slots, each iteration a block of 5-25 MiB (a fixed
 * pseudo-random sequence) allocated, written whole (make_unique<char[]>
 * zeroes it; a memset of 0 after malloc would become calloc here, which
 * touches nothing) and put in a random slot, freeing the block there.
 *
 * Runs the loop in child processes, interleaved: without hmpt, under
 * libhmpt.so with HMPT_SAMPLE=off, and profiled with page faults
 * (HMPT_SAMPLE=faults, the profile written); prints the median wall time
 * and minor faults (the kernel's count, wait4) of each and their ratios,
 * taken in one run.  Target: profiled within 1.3x of unprofiled.
 *
 *   large_reuse LIB [ITERATIONS [ROUNDS]]   (1000 3) */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

#define SLOTS 20
#define MiB   ((size_t)1 << 20)

static int work(int iterations)
{
	char *slot[SLOTS] = {0};
	uint64_t x = 42;

	for (int i = 0; i < iterations; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		size_t size = 5 * MiB + (size_t)(x >> 33) % (20 * MiB);
		int k = (int)((x >> 20) % SLOTS);
		char *p = malloc(size);
		if (!p)
			return 1;
		memset(p, 1, size);
		free(slot[k]);
		slot[k] = p;
	}
	for (int k = 0; k < SLOTS; k++)
		free(slot[k]);
	return 0;
}

/* one run: lib NULL (no hmpt) or with HMPT_SAMPLE=mode; its wall time
 * and minor faults */
static int run(const char *self, const char *lib, const char *mode, const char *iter,
               const char *profile, double *wall, double *minflt)
{
	extern char **environ;
	struct rusage ru;
	int st;

	double t0 = bench_now();
	pid_t pid = fork();
	if (pid == 0) {
		/* the caller's environment less its HMPT_* and LD_PRELOAD, then
		 * this run's */
		char **env = bench_env(lib);
		if (!env)
			_exit(127);
		environ = env;
		if (lib) {
			setenv("HMPT_SAMPLE", mode, 1);
			if (profile)
				setenv("HMPT_PROFILE", profile, 1);
		}
		execl(self, self, "--work", iter, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	*wall = bench_now() - t0;
	*minflt = (double)ru.ru_minflt;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--work"))
		return work(atoi(argv[2]));
	if (argc < 2) {
		fprintf(stderr, "usage: large_reuse LIB [ITERATIONS [ROUNDS]]\n");
		return 2;
	}
	const char *lib = argv[1], *iter = argc > 2 ? argv[2] : "1000";
	int rounds = argc > 3 ? atoi(argv[3]) : 3;
	char self[4096], dir[] = "/tmp/hmpt-large-reuse.XXXXXX", prof[4200];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0 || rounds < 1 || rounds > 100 || !mkdtemp(dir))
		return 2;
	self[len] = 0;
	snprintf(prof, sizeof(prof), "%s/profile.json", dir);

	double w[3][100], f[3][100];
	for (int r = 0; r < rounds; r++) { /* interleaved, so drift hits all alike */
		if (run(self, NULL, NULL, iter, NULL, &w[0][r], &f[0][r]) ||
		    run(self, lib, "off", iter, NULL, &w[1][r], &f[1][r]) ||
		    run(self, lib, "faults", iter, prof, &w[2][r], &f[2][r])) {
			fprintf(stderr, "large_reuse: a run failed\n");
			return 1;
		}
		unlink(prof);
	}
	rmdir(dir);
	double mw[3], mf[3];
	for (int i = 0; i < 3; i++) {
		mw[i] = bench_median(w[i], rounds);
		mf[i] = bench_median(f[i], rounds);
	}
	printf("large blocks reused (malloc-large-like: %s x 5-25 MiB, %d slots), medians of %d "
	       "interleaved rounds\n",
	       iter, SLOTS, rounds);
	printf("  without hmpt        : %.3f s, %.0f minor faults\n", mw[0], mf[0]);
	printf("  hmpt, no sampling   : %.3f s, %.0f minor faults\n", mw[1], mf[1]);
	printf("  hmpt, faults profile: %.3f s, %.0f minor faults\n", mw[2], mf[2]);
	printf("  profiled / without hmpt: time %.3f, minor faults %.3f (target: time <= 1.3)\n",
	       mw[2] / mw[0], mf[2] / mf[0]);
	printf("  profiled / hmpt off    : time %.3f, minor faults %.3f\n", mw[2] / mw[1],
	       mf[2] / mf[1]);
	return 0;
}
