/* walk_overhead.c — what a tracked allocation costs at stack depth 16, by
 * the way its call stack is walked, as medians taken in one process.
 *
 * Run under LD_PRELOAD=libhmpt.so (bench/shim_ab.sh -b walk does, for two
 * builds of the shim side by side).  Times malloc+free of SIZE bytes (1 MiB,
 * tracked) 16 frames deep, through the interposed entry points, and the
 * same through glibc's own __libc_malloc/__libc_free, round by round.  The
 * program is built twice: walk_overhead with frame pointers, whose stacks
 * the shim's frame-pointer walk names, and walk_overhead_nofp without,
 * which leaves the shim to libunwind.  MODE new allocates through operator
 * new and delete[] of the C++ runtime (libstdc++; Debian's is built without
 * frame pointers) instead of malloc.
 *
 * Usage: walk_overhead [malloc|new [SIZE]]
 * Prints: "tracked NS glibc NS" (medians over the rounds, ns a pair).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
/* operator new[](size_t) and operator delete[](void *), from C */
extern void *_Znam(size_t);
extern void _ZdaPv(void *);

#define ROUNDS 21
#define PAIRS  2000

static void *volatile sink;

/* one loop per way, no call through a pointer inside: that would add to
 * what is measured */
static double pairs_malloc(size_t size)
{
	double t = bench_now();
	for (long i = 0; i < PAIRS; i++) {
		void *p = malloc(size);
		sink = p;
		free(p);
	}
	return (bench_now() - t) / PAIRS;
}

static double pairs_new(size_t size)
{
	double t = bench_now();
	for (long i = 0; i < PAIRS; i++) {
		void *p = _Znam(size);
		sink = p;
		_ZdaPv(p);
	}
	return (bench_now() - t) / PAIRS;
}

static double pairs_glibc(size_t size)
{
	double t = bench_now();
	for (long i = 0; i < PAIRS; i++) {
		void *p = __libc_malloc(size);
		sink = p;
		__libc_free(p);
	}
	return (bench_now() - t) / PAIRS;
}

/* recurse to `depth` frames, then time there */
static __attribute__((noinline)) double deep(int depth, double (*fn)(size_t), size_t size)
{
	double r;
	if (depth > 1)
		r = deep(depth - 1, fn, size);
	else
		r = fn(size);
	__asm__ volatile("" ::: "memory"); /* keep the frame: no tail call */
	return r;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "malloc";
	size_t size = argc > 2 ? strtoull(argv[2], NULL, 0) : (size_t)1 << 20;
	double (*fn)(size_t) = strcmp(mode, "new") == 0 ? pairs_new : pairs_malloc;
	double h[ROUNDS], g[ROUNDS];

	if (strcmp(mode, "new") != 0 && strcmp(mode, "malloc") != 0) {
		fprintf(stderr, "walk_overhead: %s: expected malloc or new\n", mode);
		return 2;
	}
	if (!dlsym(RTLD_DEFAULT, "hmpt_version")) {
		fprintf(stderr, "walk_overhead: libhmpt.so is not loaded; run under "
		                "LD_PRELOAD=build/libhmpt.so\n");
		return 2;
	}
	for (int r = 0; r < ROUNDS; r++) {
		if (r & 1) {
			g[r] = deep(16, pairs_glibc, size);
			h[r] = deep(16, fn, size);
		} else {
			h[r] = deep(16, fn, size);
			g[r] = deep(16, pairs_glibc, size);
		}
	}
	printf("tracked %.1f glibc %.1f\n", bench_median(h, ROUNDS) * 1e9,
	       bench_median(g, ROUNDS) * 1e9);
	return 0;
}
