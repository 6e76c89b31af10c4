/* stress_mix.c — an allocation-heavy multi-threaded mix, contents checked.
 *
 * Each thread keeps 64 live blocks and, at random, mallocs, callocs,
 * reallocs (also across the 1 MiB tracking threshold), posix_memaligns,
 * aligned_allocs and frees them.  One operation in 16 is 1-8 MiB, the rest
 * 16 B-64 KiB.  Every block is filled with a pattern of its own when it is
 * made (a calloc'd one is first checked to be zero), and every byte is
 * checked before the block is freed or moved; realloc checks the part it
 * kept.  A wrong byte is corruption: it is counted, said and makes the exit
 * status 1.
 *
 * Usage: stress_mix THREADS OPS-PER-THREAD [SEED]
 * Prints one line: "threads T ops N seconds S kops/s K corrupt C failed F
 * maxrss_mib M" (failed: allocations refused; M: the peak resident set).
 * bench/stress_mix.sh runs it with and without libhmpt.so and prints the
 * ratios; tests/integration/t_stress_mix.sh runs it short under ASan.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"

#define LIVE 64

typedef struct {
	unsigned char *p;
	size_t n;
	uint8_t seed;
} blk_t;

typedef struct {
	pthread_t tid;
	long ops;
	uint64_t rng;
	uint64_t corrupt;
	uint64_t failed;
} worker_t;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* 1 in 16: 1-8 MiB; otherwise 16 B-64 KiB, log-uniform */
static size_t pick_size(uint64_t *s)
{
	if (rnd(s) % 16 == 0)
		return ((size_t)1 << 20) + rnd(s) % ((size_t)7 << 20);
	unsigned shift = 4 + (unsigned)(rnd(s) % 13); /* 16 B .. 64 KiB */
	return ((size_t)1 << shift) + rnd(s) % ((size_t)1 << shift);
}

/* The pattern: byte i of a block with seed s is (s + i * 7) mod 256, with
 * 64-bit words so that filling and checking run near memory speed. */
static uint64_t pattern_word(uint8_t seed, size_t i)
{
	uint64_t w = 0;
	for (int k = 7; k >= 0; k--)
		w = w << 8 | (uint8_t)(seed + (i + (size_t)k) * 7);
	return w;
}

static void fill(const blk_t *b)
{
	size_t i = 0;
	/* the pattern repeats every 256 bytes: 32 words, then copies */
	uint64_t words[32];
	for (int k = 0; k < 32; k++)
		words[k] = pattern_word(b->seed, (size_t)k * 8);
	for (; i + 256 <= b->n; i += 256)
		memcpy(b->p + i, words, 256);
	for (; i < b->n; i++)
		b->p[i] = (uint8_t)(b->seed + i * 7);
}

/* bytes [0, n) of the block hold its pattern */
static bool intact(const blk_t *b, size_t n)
{
	uint64_t words[32];
	size_t i = 0;
	for (int k = 0; k < 32; k++)
		words[k] = pattern_word(b->seed, (size_t)k * 8);
	for (; i + 256 <= n; i += 256)
		if (memcmp(b->p + i, words, 256) != 0)
			return false;
	for (; i < n; i++)
		if (b->p[i] != (uint8_t)(b->seed + i * 7))
			return false;
	return true;
}

static bool zeroed(const unsigned char *p, size_t n)
{
	static const unsigned char zero[256];
	size_t i = 0;
	for (; i + 256 <= n; i += 256)
		if (memcmp(p + i, zero, 256) != 0)
			return false;
	for (; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void corrupt(worker_t *w, const char *what, size_t n)
{
	if (w->corrupt++ == 0)
		fprintf(stderr, "stress_mix: corrupt block after %s (size %zu)\n", what, n);
}

static void release(worker_t *w, blk_t *b)
{
	if (!b->p)
		return;
	if (!intact(b, b->n))
		corrupt(w, "its life", b->n);
	free(b->p);
	b->p = NULL;
}

/* A new block in slot b by one of the five ways of making one. */
static void make(worker_t *w, blk_t *b)
{
	size_t n = pick_size(&w->rng);
	size_t align = (size_t)64 << (rnd(&w->rng) % 7); /* 64 B .. 4 KiB */
	void *p = NULL;

	unsigned op = (unsigned)(rnd(&w->rng) % 4);
	switch (op) {
	case 0: p = malloc(n); break;
	case 1: { /* count x size, as programs call it */
		size_t elem = (size_t)1 << (rnd(&w->rng) % 4);
		n = (n + elem - 1) / elem * elem;
		p = calloc(n / elem, elem);
		if (p && !zeroed(p, n))
			corrupt(w, "calloc (not zero)", n);
		break;
	}
	case 2:
		if (posix_memalign(&p, align, n) != 0)
			p = NULL;
		break;
	default: p = aligned_alloc(align, (n + align - 1) & ~(align - 1)); break;
	}
	if (p && (uintptr_t)p % (op >= 2 ? align : 16))
		corrupt(w, "allocation (misaligned)", n);
	if (!p) {
		w->failed++;
		return;
	}
	b->p = p;
	b->n = n;
	b->seed = (uint8_t)rnd(&w->rng);
	fill(b);
}

/* realloc slot b to a new size, keeping (and checking) its contents */
static void resize(worker_t *w, blk_t *b)
{
	size_t n = pick_size(&w->rng);
	size_t keep = n < b->n ? n : b->n;

	if (!intact(b, b->n))
		corrupt(w, "its life", b->n);
	unsigned char *q = realloc(b->p, n);
	if (!q) {
		w->failed++;
		return;
	}
	b->p = q;
	if (!intact(b, keep))
		corrupt(w, "realloc", n);
	b->n = n;
	fill(b); /* the grown part takes the pattern too */
}

static void *work(void *arg)
{
	worker_t *w = arg;
	blk_t live[LIVE] = {{0}};

	for (long i = 0; i < w->ops; i++) {
		blk_t *b = &live[rnd(&w->rng) % LIVE];
		uint64_t r = rnd(&w->rng) % 8;
		if (!b->p)
			make(w, b);
		else if (r < 3)
			release(w, b);
		else if (r < 5)
			resize(w, b);
		else {
			release(w, b);
			make(w, b);
		}
	}
	for (int k = 0; k < LIVE; k++)
		release(w, &live[k]);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: stress_mix THREADS OPS-PER-THREAD [SEED]\n");
		return 2;
	}
	int nt = atoi(argv[1]);
	long ops = atol(argv[2]);
	uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 88172645463325252ull;
	if (nt < 1 || nt > 1024 || ops < 1) {
		fprintf(stderr,
		        "stress_mix: THREADS must be 1-1024 and OPS-PER-THREAD at least 1\n");
		return 2;
	}
	worker_t *w = calloc((size_t)nt, sizeof(*w));
	if (!w)
		return 2;
	double t0 = bench_now();
	for (int i = 0; i < nt; i++) {
		w[i].ops = ops;
		w[i].rng = seed + (uint64_t)i * 0x9e3779b97f4a7c15ull;
		int rc = pthread_create(&w[i].tid, NULL, work, &w[i]);
		if (rc) {
			fprintf(stderr, "stress_mix: pthread_create: %s\n", strerror(rc));
			return 2;
		}
	}
	uint64_t bad = 0, failed = 0;
	for (int i = 0; i < nt; i++) {
		pthread_join(w[i].tid, NULL);
		bad += w[i].corrupt;
		failed += w[i].failed;
	}
	double s = bench_now() - t0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("threads %d ops %ld seconds %.3f kops/s %.1f corrupt %llu failed %llu maxrss_mib "
	       "%.1f\n",
	       nt, ops * nt, s, (double)ops * nt / s / 1e3, (unsigned long long)bad,
	       (unsigned long long)failed, (double)ru.ru_maxrss / 1024);
	free(w);
	return bad ? 1 : 0;
}
