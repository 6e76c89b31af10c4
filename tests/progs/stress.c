/* stress.c — threads doing a million mixed operations of every entry point,
 * on both sides of the tracking threshold, with blocks handed between
 * threads, every block's contents checked.  Exits 1 at the first error.
 * Usage: stress [threads] [ops-per-thread]   (run with HMPT_MIN_SIZE=64K) */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS  64
#define SHARED 256

struct blk {
	unsigned char *p;
	size_t n;
	unsigned char tag;
};

static struct blk shared_g[SHARED];
static pthread_mutex_t shared_lock_g = PTHREAD_MUTEX_INITIALIZER;
static long ops_g = 250000;

static void fail(const char *what, size_t n)
{
	fprintf(stderr, "stress: %s (size %zu, errno %d)\n", what, n, errno);
	exit(1);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* mostly small, some around 64K, a few of several MiB */
static size_t pick_size(uint64_t *s)
{
	uint64_t r = rnd(s) % 1000;
	if (r < 700)
		return 1 + rnd(s) % 512;
	if (r < 900)
		return 1 + rnd(s) % (128 << 10);
	if (r < 995)
		return (32 << 10) + rnd(s) % (256 << 10);
	return (1 << 20) + rnd(s) % (4 << 20);
}

static void fill(struct blk *b)
{
	/* touch the ends and a stride: full memset of MiB blocks would make
	 * the test slow without checking more */
	for (size_t i = 0; i < b->n; i += 1021)
		b->p[i] = (unsigned char)(b->tag + i);
	b->p[b->n - 1] = b->tag;
}

/* the pattern of fill() over the first `upto` bytes; with upto == n, the
 * last byte too */
static void verify(const struct blk *b, size_t upto)
{
	size_t n = upto < b->n ? upto : b->n;
	for (size_t i = 0; i < n; i += 1021)
		if (i != b->n - 1 && b->p[i] != (unsigned char)(b->tag + i))
			fail("contents changed", b->n);
	if (upto >= b->n && b->p[b->n - 1] != b->tag)
		fail("last byte changed", b->n);
}

static int alloc_one(struct blk *b, uint64_t *s)
{
	size_t n = pick_size(s);
	void *p = NULL;
	int kind = (int)(rnd(s) % 8);

	switch (kind) {
	case 0: p = malloc(n); break;
	case 1:
		p = calloc(1, n);
		if (p)
			for (size_t i = 0; i < n; i += 997)
				if (((unsigned char *)p)[i])
					fail("calloc memory not zero", n);
		break;
	case 2:
		if (posix_memalign(&p, (size_t)64 << (rnd(s) % 8), n) != 0)
			p = NULL;
		break;
	case 3: p = aligned_alloc(256, n); break;
	case 4: p = memalign(4096, n); break;
	case 5: p = valloc(n); break;
	case 6: p = pvalloc(n); break;
	default: p = reallocarray(NULL, n, 1); break;
	}
	if (!p)
		fail("allocation failed", n);
	if (kind == 4 || kind == 5 || kind == 6)
		if ((uintptr_t)p & 4095)
			fail("page alignment", n);
	if (malloc_usable_size(p) < n)
		fail("malloc_usable_size smaller than requested", n);
	b->p = p;
	b->n = n;
	b->tag = (unsigned char)rnd(s);
	fill(b);
	return 0;
}

/* volatile: the compiler must not see (and reject) the huge sizes */
static volatile size_t huge_g = SIZE_MAX;

static void edge_cases(void)
{
	void *p = (void *)1;
	size_t half = huge_g / 2;
	errno = 0;
	if (calloc(half, 4) != NULL || errno != ENOMEM)
		fail("calloc overflow must give NULL and ENOMEM", 0);
	errno = 0;
	if (reallocarray(NULL, half, 4) != NULL || errno != ENOMEM)
		fail("reallocarray overflow must give NULL and ENOMEM", 0);
	if (posix_memalign(&p, 3, 100) != EINVAL || p != (void *)1)
		fail("posix_memalign(3) must give EINVAL and leave *p", 0);
	if (posix_memalign(&p, 0, 100) != EINVAL)
		fail("posix_memalign(0) must give EINVAL", 0);
	if (posix_memalign(&p, 4, 100) != EINVAL) /* not a multiple of sizeof(void *) */
		fail("posix_memalign(4) must give EINVAL", 0);
	errno = 0;
	if (malloc(huge_g) != NULL || errno != ENOMEM)
		fail("malloc(huge_g) must give NULL and ENOMEM", 0);
	errno = 0;
	if (malloc(half) != NULL || errno != ENOMEM)
		fail("malloc(SIZE_MAX/2) must give NULL and ENOMEM", 0);
	p = malloc(0);
	if (!p)
		fail("malloc(0) must give a unique pointer", 0);
	free(p);
	p = malloc(2 << 20);
	if (realloc(p, 0) != NULL) /* glibc: frees p, returns NULL */
		fail("realloc(p, 0) must free and return NULL", 0);
	if (malloc_usable_size(NULL) != 0)
		fail("malloc_usable_size(NULL) must be 0", 0);
	free(NULL);
	p = aligned_alloc(1 << 21, 3 << 20);
	if (!p || ((uintptr_t)p & ((1 << 21) - 1)))
		fail("aligned_alloc(2M) alignment", 3 << 20);
	free(p);
	p = pvalloc(1);
	if (!p || ((uintptr_t)p & 4095) || malloc_usable_size(p) < 4096)
		fail("pvalloc(1) must give a whole page", 1);
	free(p);
}

static void *worker(void *arg)
{
	uint64_t s = 0x9e3779b97f4a7c15ull * ((uintptr_t)arg + 1);
	struct blk mine[SLOTS] = {0};

	for (long op = 0; op < ops_g; op++) {
		struct blk *b = &mine[rnd(&s) % SLOTS];
		int what = (int)(rnd(&s) % 10);
		if (!b->p) {
			alloc_one(b, &s);
		} else if (what < 4) {
			verify(b, b->n);
			free(b->p);
			b->p = NULL;
		} else if (what < 7) {
			size_t n = pick_size(&s);
			verify(b, b->n);
			b->p[b->n - 1] =
			    (unsigned char)(b->tag + b->n - 1); /* pattern everywhere */
			void *q = (what == 6) ? reallocarray(b->p, n, 1) : realloc(b->p, n);
			if (!q)
				fail("realloc failed", n);
			size_t old = b->n;
			b->p = q;
			b->n = n;
			if (malloc_usable_size(q) < n)
				fail("usable size after realloc", n);
			/* the first min(old, new) bytes keep their values */
			for (size_t i = 0; i < (old < n ? old : n); i += 1021)
				if (b->p[i] != (unsigned char)(b->tag + i))
					fail("contents changed by realloc", n);
			if (old <= n && old && b->p[old - 1] != (unsigned char)(b->tag + old - 1))
				fail("last byte lost by realloc", n);
			fill(b);
		} else if (what < 9) {
			/* swap with the shared pool: blocks change threads */
			pthread_mutex_lock(&shared_lock_g);
			struct blk *x = &shared_g[rnd(&s) % SHARED];
			struct blk t = *x;
			*x = *b;
			*b = t;
			pthread_mutex_unlock(&shared_lock_g);
			if (b->p)
				verify(b, b->n);
		} else {
			verify(b, b->n);
		}
	}
	for (int i = 0; i < SLOTS; i++)
		if (mine[i].p) {
			verify(&mine[i], mine[i].n);
			free(mine[i].p);
		}
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	if (argc > 2)
		ops_g = atol(argv[2]);
	if (nthreads < 1 || nthreads > 64)
		nthreads = 4;
	edge_cases();
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0)
			fail("pthread_create", 0);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < SHARED; i++)
		if (shared_g[i].p) {
			verify(&shared_g[i], shared_g[i].n);
			free(shared_g[i].p);
		}
	printf("stress: %d threads x %ld operations: ok\n", nthreads, ops_g);
	return 0;
}
