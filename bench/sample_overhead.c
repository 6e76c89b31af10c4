/* sample_overhead — what access sampling costs a bandwidth-bound program.
 *
 * Runs a STREAM-like triad over three malloc'ed arrays in child processes
 * preloaded with libhmpt.so, alternately with HMPT_SAMPLE=off and with the
 * sampling asked for (default auto), and prints the median times of each
 * phase and their ratio, taken in one run.  The first-touch phase is where
 * page-fault sampling costs; the triad phase is where PEBS/IBS would.
 *
 *   sample_overhead LIB [MODE [MIB [ROUNDS]]]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

/* the workload: first touch, then 10 triads; prints both times */
static int work(size_t mib)
{
	size_t n = (mib << 20) / sizeof(double);
	double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)),
	       *c = malloc(n * sizeof(double));
	if (!a || !b || !c)
		return 1;
	double t0 = bench_now();
	for (size_t i = 0; i < n; i++) {
		a[i] = 1.0;
		b[i] = 2.0;
		c[i] = 0.0;
	}
	double t1 = bench_now();
	for (int k = 0; k < 10; k++)
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] + 3.0 * c[i];
	double t2 = bench_now();
	printf("%.6f %.6f %g\n", t1 - t0, t2 - t1, a[n / 2]);
	return 0;
}

/* run the workload under the shim with HMPT_SAMPLE=mode */
static int run(const char *self, const char *lib, const char *mode, const char *mib,
               const char *profile, double *touch, double *triad)
{
	int fd[2];
	char buf[256] = {0};

	if (pipe(fd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		setenv("LD_PRELOAD", lib, 1);
		setenv("HMPT_SAMPLE", mode, 1);
		if (profile)
			setenv("HMPT_PROFILE", profile, 1);
		else
			unsetenv("HMPT_PROFILE");
		execl(self, self, "--work", mib, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	ssize_t got = read(fd[0], buf, sizeof(buf) - 1);
	close(fd[0]);
	int st;
	waitpid(pid, &st, 0);
	if (got <= 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return sscanf(buf, "%lf %lf", touch, triad) == 2 ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--work"))
		return work((size_t)atol(argv[2]));
	if (argc < 2) {
		fprintf(stderr, "usage: sample_overhead LIB [MODE [MIB [ROUNDS]]]\n");
		return 2;
	}
	const char *lib = argv[1], *mode = argc > 2 ? argv[2] : "auto";
	const char *mib = argc > 3 ? argv[3] : "128";
	int rounds = argc > 4 ? atoi(argv[4]) : 7;
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0 || rounds < 1 || rounds > 100)
		return 2;
	self[len] = 0;

	/* which sampling the mode gives here, from one profile */
	char prof[] = "/tmp/hmpt-sample-overhead.XXXXXX";
	int pfd = mkstemp(prof);
	double t, u;
	char kind[32] = "?";
	if (pfd >= 0)
		close(pfd);
	if (pfd >= 0 && run(self, lib, mode, "8", prof, &t, &u) == 0) {
		/* the shim renames its profile into place: open it anew */
		char text[16384] = {0};
		FILE *f = fopen(prof, "r");
		if (f && fread(text, 1, sizeof(text) - 1, f) > 0) {
			char *m = strstr(text, "\"mode\": \"");
			if (m)
				sscanf(m + 9, "%31[^\"]", kind);
		}
		if (f)
			fclose(f);
	}
	if (pfd >= 0)
		unlink(prof);

	double off_touch[100], off_triad[100], on_touch[100], on_triad[100];
	for (int r = 0; r < rounds; r++) { /* interleaved, so drift hits both alike */
		if (run(self, lib, "off", mib, NULL, &off_touch[r], &off_triad[r]) ||
		    run(self, lib, mode, mib, NULL, &on_touch[r], &on_triad[r])) {
			fprintf(stderr, "sample_overhead: a run failed\n");
			return 1;
		}
	}
	double ot = bench_median(off_touch, rounds), otr = bench_median(off_triad, rounds);
	double nt = bench_median(on_touch, rounds), ntr = bench_median(on_triad, rounds);
	printf("sampling overhead: HMPT_SAMPLE=%s gives \"%s\" here; 3 x %s MiB arrays, "
	       "medians of %d interleaved rounds\n",
	       mode, kind, mib, rounds);
	printf("  first touch : off %.3f s, sampled %.3f s, ratio %.3f\n", ot, nt, nt / ot);
	printf("  10 triads   : off %.3f s, sampled %.3f s, ratio %.3f (target <= 1.03 with "
	       "PEBS/IBS)\n",
	       otr, ntr, ntr / otr);
	printf("  whole run   : ratio %.3f\n", (nt + ntr) / (ot + otr));
	return 0;
}
