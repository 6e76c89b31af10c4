/* malloc_overhead.c — what an interposed malloc costs a program, three
 * ways in one run: glibc alone, the floor of any interposer (a forwarder
 * that does nothing but call the next malloc: libfwd_malloc.so,
 * bench/fwd_malloc.c) and hmpt.
 *
 * Run under LD_PRELOAD=libhmpt.so (bench/run.sh does): that names the shim.
 * The driver starts three child processes of this program, one with no
 * preload, one under the forwarder, one under the shim (with the caller's
 * HMPT_ variables; the other two get none), each with a second thread
 * waiting.  Round by round it has each child time the same loop of
 * malloc+free pairs, in an order drawn at random for each figure of each
 * round, so that drift and bursts on a busy machine hit all three alike;
 * every GEN rounds the children are started afresh (another address-space
 * layout).  A child's time is the fastest of 10 slices of its pairs (a
 * slice that lost the CPU to other work is not the allocator's cost).  It
 * prints per figure the medians of the time per pair and of the per-round
 * ratios, with the ratios' quartiles.
 *
 *  1. small blocks (below HMPT_MIN_SIZE): the untracked fast path, with one
 *     thread and with two (each doing its pairs at once: the time is the
 *     wall time over the pairs of one thread).  Target: hmpt within 1.02x of
 *     the forwarder (issue 43).
 *  2. tracked blocks (>= HMPT_MIN_SIZE) allocated 16 frames deep: the whole
 *     cost of a tracked malloc+free (stack capture, site lookup, arena
 *     mapping); target <= 300 ns (issue 20).
 *
 * Usage: malloc_overhead [-b BASE] [-r ROUNDS] [-g GEN] [-s SIZES]
 *                        [-t THREADS] [-S SEED] [BIG]
 *   BASE     another libhmpt.so (main's, say), measured as a fourth variant:
 *            before and after a change in one run
 *   ROUNDS   rounds (default 21); GEN: rounds per set of children (7)
 *   SIZES    small sizes in bytes, comma-separated (16,64,512,4096,65536,262144)
 *   THREADS  thread counts, comma-separated, 1 or 2 (1,2)
 *   BIG      the tracked block's size (1 MiB)
 * The lines "small 64 B ..." (64 B, one thread, when measured) and
 * "tracked ..." keep the form bench/shim_ab.sh reads.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

/* the variants: V_BASE only with -b */
enum { V_GLIBC, V_FWD, V_HMPT, V_BASE, NV };

#define MAX_ROUNDS  201
#define MAX_FIGURES 24
#define DEPTH       16

/* ------------------------------------------------------------ the child */

static void *volatile sink;

static void pairs(size_t size, long n)
{
	for (long i = 0; i < n; i++) {
		void *p = malloc(size);
		sink = p;
		free(p);
	}
}

/* recurse to `depth` frames, then do the pairs there */
static __attribute__((noinline)) void deep(int depth, size_t size, long n)
{
	if (depth > 1)
		deep(depth - 1, size, n);
	else
		pairs(size, n);
	__asm__ volatile("" ::: "memory"); /* keep the frame: no tail call */
}

/* the second thread: the pairs of the current order, between barriers */
static pthread_barrier_t start_b, done_b;
static size_t job_size;
static long job_n;

static void *second_thread(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&start_b);
		if (!job_n)
			return NULL;
		pairs(job_size, job_n);
		pthread_barrier_wait(&done_b);
	}
}

/* Orders on stdin, one a line: "S SIZE THREADS N" (N pairs of SIZE bytes
 * in each of THREADS threads), "T SIZE N" (N pairs DEPTH frames deep);
 * the answer on stdout: ns per pair, the fastest of SLICES slices of the
 * pairs (wall time over one thread's pairs): a slice in which the machine's
 * other work took the CPU away is not the allocator's cost. */
#define SLICES 10

static double slice(char kind, size_t size, int threads, long n)
{
	double s = bench_now();

	if (kind == 'T') {
		deep(DEPTH, size, n);
	} else {
		if (threads == 2) {
			job_size = size;
			job_n = n;
			pthread_barrier_wait(&start_b);
		}
		pairs(size, n);
		if (threads == 2)
			pthread_barrier_wait(&done_b);
	}
	return bench_now() - s;
}

static int child(void)
{
	char line[128];
	pthread_t t;

	if (pthread_barrier_init(&start_b, NULL, 2) || pthread_barrier_init(&done_b, NULL, 2) ||
	    pthread_create(&t, NULL, second_thread, NULL))
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		size_t size;
		long n;
		int threads = 1;
		char kind = line[0];
		if (!((kind == 'S' && sscanf(line, "S %zu %d %ld", &size, &threads, &n) == 3) ||
		      (kind == 'T' && sscanf(line, "T %zu %ld", &size, &n) == 2)) ||
		    n < SLICES)
			break;
		double best = 0;
		for (int i = 0; i < SLICES; i++) {
			double t = slice(kind, size, threads, n / SLICES);
			if (i == 0 || t < best)
				best = t;
		}
		printf("%.4f\n", best / (double)(n / SLICES) * 1e9);
		fflush(stdout);
	}
	job_n = 0;
	pthread_barrier_wait(&start_b);
	pthread_join(t, NULL);
	return 0;
}

/* ----------------------------------------------------------- the driver */

typedef struct {
	pid_t pid;
	FILE *to, *from;
} kid_t;

static int kid_start(kid_t *k, char *self, char **env)
{
	char *argv[] = {self, "--child", NULL};
	int in[2], out[2];
	posix_spawn_file_actions_t fa;

	if (pipe(in) != 0)
		return -1;
	if (pipe(out) != 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addclose(&fa, in[1]);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	int rc = posix_spawn(&k->pid, self, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	k->to = fdopen(in[1], "w");
	k->from = fdopen(out[0], "r");
	if (rc != 0 || !k->to || !k->from)
		return -1;
	return 0;
}

static void kid_stop(kid_t *k)
{
	int st;

	fprintf(k->to, "Q\n");
	fclose(k->to);
	fclose(k->from);
	waitpid(k->pid, &st, 0);
}

/* one order to a child; its answer in ns, or a negative number */
static double kid_ask(kid_t *k, const char *order)
{
	char line[64];
	double ns;

	if (fputs(order, k->to) < 0 || fflush(k->to) != 0 || !fgets(line, sizeof(line), k->from) ||
	    sscanf(line, "%lf", &ns) != 1)
		return -1;
	return ns;
}

/* A figure: one order, asked of all three children every round. */
typedef struct {
	char order[64];
	size_t size;
	int threads; /* 0: tracked */
	double ns[NV][MAX_ROUNDS];
} figure_t;

static uint64_t rng_state;

static unsigned rng_below(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

/* parse "a,b,c" into v (at most max), 0 on success */
static int parse_list(const char *s, size_t *v, int max, int *n)
{
	char *end;

	for (*n = 0; *s; s = *end ? end + 1 : end) {
		if (*n == max)
			return -1;
		v[(*n)++] = strtoull(s, &end, 0);
		if (end == s || (*end && *end != ','))
			return -1;
	}
	return *n ? 0 : -1;
}

static void ratios(const figure_t *f, int num, int den, int rounds, double *out)
{
	for (int r = 0; r < rounds; r++)
		out[r] = f->ns[num][r] / f->ns[den][r];
}

/* median of the ratio num/den over the rounds, with its quartiles */
static void ratio_stats(const figure_t *f, int num, int den, int rounds, double *med, double *q1,
                        double *q3)
{
	double v[MAX_ROUNDS];
	int q = (rounds + 3) / 4;

	ratios(f, num, den, rounds, v);
	*med = bench_median(v, rounds); /* sorts v */
	*q1 = v[q - 1];
	*q3 = v[rounds - q];
}

static double med_ns(const figure_t *f, int v, int rounds)
{
	double c[MAX_ROUNDS];

	memcpy(c, f->ns[v], sizeof(double) * (size_t)rounds);
	return bench_median(c, rounds);
}

static double load_now(void)
{
	double l = -1;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

static int usage(void)
{
	fprintf(stderr, "usage: malloc_overhead [-b BASE] [-r ROUNDS] [-g GEN] [-s SIZES] "
	                "[-t THREADS] [-S SEED] [BIG]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static figure_t figs[MAX_FIGURES];
	size_t sizes[16] = {16, 64, 512, 4096, 65536, 262144}, threads[2] = {1, 2};
	int nsizes = 6, nthreads = 2, rounds = 21, gen = 7, nfig = 0, opt;
	uint64_t seed = (uint64_t)time(NULL);
	char *base = NULL; /* -b: another build of the shim, measured alike */
	size_t big = (size_t)1 << 20;
	Dl_info di;

	if (argc == 2 && strcmp(argv[1], "--child") == 0)
		return child();
	while ((opt = getopt(argc, argv, "b:r:g:s:t:S:")) != -1) {
		switch (opt) {
		case 'b':
			if (!(base = realpath(optarg, NULL))) {
				fprintf(stderr, "malloc_overhead: -b %s: no such file\n", optarg);
				return 2;
			}
			break;
		case 'r': rounds = atoi(optarg); break;
		case 'g': gen = atoi(optarg); break;
		case 's':
			if (parse_list(optarg, sizes, 16, &nsizes))
				return usage();
			break;
		case 't':
			if (parse_list(optarg, threads, 2, &nthreads))
				return usage();
			break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		default: return usage();
		}
	}
	if (optind < argc)
		big = strtoull(argv[optind], NULL, 0);
	if (rounds < 1 || rounds > MAX_ROUNDS || gen < 1 || !big)
		return usage();
	for (int t = 0; t < nthreads; t++)
		if (threads[t] != 1 && threads[t] != 2)
			return usage();

	void *version = dlsym(RTLD_DEFAULT, "hmpt_version");
	if (!version || !dladdr(version, &di) || !di.dli_fname) {
		fprintf(stderr, "malloc_overhead: libhmpt.so is not loaded; run under "
		                "LD_PRELOAD=build/libhmpt.so (bench/run.sh does)\n");
		return 2;
	}
	char *self = realpath("/proc/self/exe", NULL), *shim = realpath(di.dli_fname, NULL);
	char fwd[4096];
	if (!self || !shim)
		return 1;
	snprintf(fwd, sizeof(fwd), "%s/libfwd_malloc.so", dirname(strdup(self)));
	if (access(fwd, R_OK) != 0) {
		fprintf(stderr, "malloc_overhead: %s is missing: run 'make bench-build' first\n",
		        fwd);
		return 2;
	}
	char **env[NV] = {bench_env(NULL), bench_env(fwd), bench_env_keep(shim, 1),
	                  base ? bench_env_keep(base, 1) : NULL};
	int nv = base ? NV : V_BASE;
	for (int v = 0; v < nv; v++)
		if (!env[v])
			return 1;

	/* the figures: each small size with each thread count, then tracked;
	 * about 20 ms of glibc's time an order */
	for (int s = 0; s < nsizes; s++)
		for (int t = 0; t < nthreads; t++) {
			figure_t *f = &figs[nfig++];
			f->size = sizes[s];
			f->threads = (int)threads[t];
			snprintf(f->order, sizeof(f->order), "S %zu %d %ld\n", sizes[s], f->threads,
			         sizes[s] <= 4096 ? 1000000L : 200000L);
		}
	figs[nfig].size = big;
	snprintf(figs[nfig++].order, sizeof(figs[0].order), "T %zu 5000\n", big);

	double load0 = load_now();
	rng_state = seed | 1;
	kid_t kids[NV];
	int order[NV] = {V_GLIBC, V_FWD, V_HMPT, V_BASE};
	for (int r = 0; r < rounds; r++) {
		if (r % gen == 0) {
			if (r)
				for (int v = 0; v < nv; v++)
					kid_stop(&kids[v]);
			for (int v = 0; v < nv; v++)
				if (kid_start(&kids[v], self, env[v]) != 0) {
					fprintf(stderr, "malloc_overhead: cannot start a child\n");
					return 1;
				}
			/* a warm-up of every order (first-use costs; glibc's mmap
			 * threshold raised by the tracked size's free, alike in all) */
			for (int i = nfig - 1; i >= 0; i--)
				for (int v = 0; v < nv; v++)
					if (kid_ask(&kids[v], figs[i].order) < 0)
						goto failed;
		}
		for (int i = 0; i < nfig; i++) {
			for (int v = nv - 1; v > 0; v--) { /* Fisher-Yates */
				int j = (int)rng_below((unsigned)v + 1), x = order[v];
				order[v] = order[j];
				order[j] = x;
			}
			for (int v = 0; v < nv; v++)
				if ((figs[i].ns[order[v]][r] =
				         kid_ask(&kids[order[v]], figs[i].order)) <= 0)
					goto failed;
		}
	}
	for (int v = 0; v < nv; v++)
		kid_stop(&kids[v]);

	const char *(*ver)(void) = (const char *(*)(void))version;
	printf("hmpt %s (%s), %d rounds, fresh processes every %d, seed %llu\n", ver(), shim,
	       rounds, gen, (unsigned long long)seed);
	if (base)
		printf("base: %s\n", base);
	printf("malloc+free pairs; ns: medians; ratios: median of the per-round ratios "
	       "[quartiles]\n");
	/* the columns: each variant's ns, then ratios num/den */
	static const int cols[][2] = {{V_FWD, V_GLIBC},
	                              {V_HMPT, V_GLIBC},
	                              {V_HMPT, V_FWD},
	                              {V_BASE, V_FWD},
	                              {V_HMPT, V_BASE}};
	static const char *const names[NV] = {"glibc", "fwd", "hmpt", "base"};
	int ncols = base ? 5 : 3;
	printf("%8s %3s", "size", "thr");
	for (int v = 0; v < nv; v++)
		printf(" %8s", names[v]);
	for (int k = 0; k < ncols; k++) {
		char h[16];
		snprintf(h, sizeof(h), "%s/%s", names[cols[k][0]], names[cols[k][1]]);
		printf(" %22s", h);
	}
	printf("\n");
	for (int i = 0; i < nfig - 1; i++) {
		figure_t *f = &figs[i];
		printf("%8zu %3d", f->size, f->threads);
		for (int v = 0; v < nv; v++)
			printf(" %8.2f", med_ns(f, v, rounds));
		for (int k = 0; k < ncols; k++) {
			double m, lo, hi;
			ratio_stats(f, cols[k][0], cols[k][1], rounds, &m, &lo, &hi);
			printf("  %.3fx [%.3f-%.3f]", m, lo, hi);
		}
		printf("\n");
	}
	for (int i = 0; i < nfig - 1; i++) {
		figure_t *f = &figs[i];
		double hg, hf, lo, hi;
		if (f->size != 64 || f->threads != 1)
			continue;
		ratio_stats(f, V_HMPT, V_FWD, rounds, &hf, &lo, &hi);
		ratio_stats(f, V_HMPT, V_GLIBC, rounds, &hg, &lo, &hi);
		printf(
		    "small 64 B malloc+free: glibc %.1f ns, forwarder %.1f ns, with hmpt %.1f ns, "
		    "ratio %.3fx; hmpt/fwd %.3fx (target <= 1.02x)\n",
		    med_ns(f, V_GLIBC, rounds), med_ns(f, V_FWD, rounds), med_ns(f, V_HMPT, rounds),
		    hg, hf);
	}
	figure_t *t = &figs[nfig - 1];
	printf("tracked %zu B malloc+free at stack depth %d: %.0f ns (target <= 300 ns); "
	       "glibc alone %.0f ns, forwarder %.0f ns",
	       big, DEPTH, med_ns(t, V_HMPT, rounds), med_ns(t, V_GLIBC, rounds),
	       med_ns(t, V_FWD, rounds));
	if (base) {
		double m, lo, hi;
		ratio_stats(t, V_HMPT, V_BASE, rounds, &m, &lo, &hi);
		printf(", base %.0f ns, hmpt/base %.3fx [%.3f-%.3f]", med_ns(t, V_BASE, rounds), m,
		       lo, hi);
	}
	printf("\n");
	printf("(this machine: %ld CPUs, load average %.2f at the start, %.2f at the end)\n",
	       sysconf(_SC_NPROCESSORS_ONLN), load0, load_now());
	return 0;
failed:
	fprintf(stderr, "malloc_overhead: a child failed or answered nonsense\n");
	return 1;
}
