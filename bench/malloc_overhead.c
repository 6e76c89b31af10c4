/* malloc_overhead.c — what hmpt costs a program, as ratios taken in one run.
 *
 * Run under LD_PRELOAD=libhmpt.so (bench/run.sh does).  In the same process
 * it times malloc+free pairs through the interposed entry points and
 * through glibc's own __libc_malloc/__libc_free, interleaved round by round
 * so that drift on a noisy machine hits both alike, and prints the median
 * of the per-round ratios.
 *
 *  1. small blocks (64 B): the untracked fast path; target <= 1.05x glibc.
 *  2. tracked blocks (>= HMPT_MIN_SIZE) allocated 16 frames deep: the whole
 *     cost of a tracked malloc+free (stack capture, site lookup, arena
 *     mapping); target <= 300 ns (issue 20).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);

#define ROUNDS 21

static void *volatile sink;

/* Two loops, not one through a function pointer: an indirect call in both
 * would add the very cost being measured. */
static double pairs_hmpt(size_t size, long n)
{
	double t = bench_now();
	for (long i = 0; i < n; i++) {
		void *p = malloc(size);
		sink = p;
		free(p);
	}
	return (bench_now() - t) / (double)n;
}

static double pairs_glibc(size_t size, long n)
{
	double t = bench_now();
	for (long i = 0; i < n; i++) {
		void *p = __libc_malloc(size);
		sink = p;
		__libc_free(p);
	}
	return (bench_now() - t) / (double)n;
}

/* recurse to `depth` frames, then time malloc+free there */
static __attribute__((noinline)) double deep(int depth, double (*fn)(size_t, long), size_t size,
                                             long n)
{
	double r;
	if (depth > 1)
		r = deep(depth - 1, fn, size, n);
	else
		r = fn(size, n);
	__asm__ volatile("" ::: "memory"); /* keep the frame: no tail call */
	return r;
}

int main(int argc, char **argv)
{
	const char *(*version)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "hmpt_version");
	size_t big = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)1 << 20;
	double small_ratio[ROUNDS], small_h[ROUNDS], small_g[ROUNDS];
	double big_h[ROUNDS], big_g[ROUNDS];

	if (!version) {
		fprintf(stderr, "malloc_overhead: libhmpt.so is not loaded; run under "
		                "LD_PRELOAD=build/libhmpt.so (bench/run.sh does)\n");
		return 2;
	}
	for (int r = 0; r < ROUNDS; r++) {
		/* alternate which goes first */
		if (r & 1) {
			small_g[r] = pairs_glibc(64, 2000000);
			small_h[r] = pairs_hmpt(64, 2000000);
		} else {
			small_h[r] = pairs_hmpt(64, 2000000);
			small_g[r] = pairs_glibc(64, 2000000);
		}
		small_ratio[r] = small_h[r] / small_g[r];
		big_h[r] = deep(16, pairs_hmpt, big, 2000);
		big_g[r] = deep(16, pairs_glibc, big, 2000);
	}
	printf("hmpt %s, %d rounds, medians\n", version(), ROUNDS);
	printf("small 64 B malloc+free: glibc %.1f ns, with hmpt %.1f ns, ratio %.3fx "
	       "(target <= 1.05x)\n",
	       bench_median(small_g, ROUNDS) * 1e9, bench_median(small_h, ROUNDS) * 1e9,
	       bench_median(small_ratio, ROUNDS));
	printf("tracked %zu B malloc+free at stack depth 16: %.0f ns (target <= 300 ns); "
	       "glibc alone %.0f ns\n",
	       big, bench_median(big_h, ROUNDS) * 1e9, bench_median(big_g, ROUNDS) * 1e9);
	return 0;
}
