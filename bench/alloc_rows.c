/* alloc_rows.c — allocation rows in the manner of mimalloc-bench, written
 * for hmpt: what the shim costs a program that asks nothing of it.
 *
 * Each row is a mode of this program, a fixed amount of work (not a fixed
 * time, so that a slow run shows as time), timed by itself.  The shapes
 * follow mimalloc-bench's rows that a user measured under the shim; the
 * code is hmpt's own:
 *
 *   thread1, thread2  glibc-thread: each thread replaces random slots of a
 *                     working set of 1024 with blocks of 16 B-32 KiB
 *                     (inverse-square: mostly small) and writes each line
 *   larson1, larson2  larson-sized: a server; each thread replaces random
 *                     slots of its 5000 with 8-1000 B blocks, the slot's
 *                     size kept beside it, and after 100000 replacements
 *                     hands its slots to a new thread (blocks of a dead
 *                     thread freed by its successor, which waits for it to
 *                     end: see la_life)
 *   barnes            a particle simulation: six arrays of 1-3 MiB (all
 *                     tracked by the shim) and a cell-list force loop
 *   large             malloc-large: 20 slots of 5-25 MiB, each new block
 *                     zeroed, 100 replacements (every block tracked)
 *   cfrac             cfrac: bignum continued-fraction expansions, every
 *                     result a new small block, the terms in a realloc'd
 *                     array
 *   espresso          espresso: covers of bit-vector cubes (calloc'd),
 *                     intersections kept in realloc'd covers
 *   heaptop           a 4 MiB buffer freed (tracked), then rounds of 4096
 *                     blocks of 2000 B made and freed newest first: the heap
 *                     top rises and falls by 8 MiB, which glibc keeps once
 *                     a large block was freed (shim/thresh.h)
 *   xmalloc2          xmalloc-test: one thread allocates 16-256 B blocks,
 *                     another frees them (batches through a queue)
 *   scratch1, scratch2 cache-scratch: each thread frees an object made by
 *                     the main thread, then allocates, writes and frees
 *                     small objects
 *
 * Usage: alloc_rows ROW [SCALE]   (SCALE multiplies the work, default 1)
 * Prints one line: "ROW time S cpu S maxrss_kib K check X": the row's own
 * wall time, the process's CPU time and peak resident set (getrusage), and
 * a checksum that must not depend on the allocator.
 * bench/alloc_rows.sh runs every row with and without libhmpt.so.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_util.h"

static double scale_g = 1;

static long scaled(long n)
{
	long v = (long)((double)n * scale_g);
	return v > 0 ? v : 1;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void die(const char *what)
{
	fprintf(stderr, "alloc_rows: %s\n", what);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p)
		die("out of memory");
	return p;
}

/* a thread per worker, all joined; fn gets its index */
static void run_threads(int n, void *(*fn)(void *), void *args, size_t arg_size)
{
	pthread_t t[16];

	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, (char *)args + (size_t)i * arg_size))
			die("pthread_create failed");
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

/* --------------------------------------------------------- glibc-thread */

#define TH_SLOTS 1024
#define TH_SIZES 8000
#define TH_OFFS  (4 * TH_SLOTS)

static unsigned th_size_g[TH_SIZES];
static unsigned th_off_g[TH_OFFS];

typedef struct {
	long iters;
	uint64_t check;
} th_arg_t;

static void *th_work(void *p)
{
	th_arg_t *a = p;
	void *slot[TH_SLOTS] = {0};
	unsigned si = 0, oi = 0;
	uint64_t check = 0;

	for (long i = 0; i < a->iters; i++) {
		unsigned k = th_off_g[oi], n = th_size_g[si];
		oi = oi + 1 == TH_OFFS ? 0 : oi + 1;
		si = si + 1 == TH_SIZES ? 0 : si + 1;
		free(slot[k]);
		unsigned char *b = slot[k] = xmalloc(n);
		for (unsigned j = 0; j < n; j += 64)
			b[j] = (unsigned char)j;
		b[n - 1] = (unsigned char)i;
		check += b[0] + n;
	}
	for (int k = 0; k < TH_SLOTS; k++)
		free(slot[k]);
	a->check = check;
	return NULL;
}

static uint64_t row_thread(int threads)
{
	uint64_t s = 88;
	th_arg_t a[2];
	uint64_t check = 0;

	/* inverse-square on [16, 32768]: the inverse of its distribution */
	for (int i = 0; i < TH_SIZES; i++) {
		double u = (double)(rnd(&s) >> 11) / (double)(1ull << 53);
		th_size_g[i] = (unsigned)(1.0 / (1.0 / 16 - u * (1.0 / 16 - 1.0 / 32768)));
	}
	for (int i = 0; i < TH_OFFS; i++)
		th_off_g[i] = (unsigned)(rnd(&s) % TH_SLOTS);
	for (int i = 0; i < threads; i++)
		a[i] = (th_arg_t){.iters = scaled(12000000 / threads)};
	if (threads == 1)
		th_work(&a[0]); /* in the main thread, as glibc-thread does */
	else
		run_threads(threads, th_work, a, sizeof(a[0]));
	for (int i = 0; i < threads; i++)
		check += a[i].check;
	return check;
}

/* ---------------------------------------------------------------- larson */

#define LA_SLOTS 5000
#define LA_LIFE  100000 /* replacements by one thread before its successor */

typedef struct {
	char *blk[LA_SLOTS];
	size_t size[LA_SLOTS];
	uint64_t rng;
	long lives; /* threads still to come */
	uint64_t check;
	pthread_t prev; /* the thread before, to be joined */
	int have_prev;
	pthread_mutex_t *mu;
	pthread_cond_t *cv;
	int *running;
} la_chain_t;

static void *la_life(void *p)
{
	la_chain_t *c = p;

	/* The thread before has ended, so its glibc arena is free for this
	 * one: larson starts the next thread while the last is still ending,
	 * and whether the next one gets a new arena (here: by the load of the
	 * machine, 10 % slower and 40 % more memory) is a race, not the
	 * allocator's cost. */
	if (c->have_prev)
		pthread_join(c->prev, NULL);
	for (long i = 0; i < LA_LIFE; i++) {
		unsigned v = (unsigned)(rnd(&c->rng) % LA_SLOTS);
		/* sized: the size kept beside the slot is read before the free */
		c->check += (unsigned char)c->blk[v][c->size[v] - 1];
		free(c->blk[v]);
		size_t n = 8 + rnd(&c->rng) % 992;
		char *b = c->blk[v] = xmalloc(n);
		c->size[v] = n;
		b[0] = 'a';
		b[n - 1] = (char)n;
	}
	c->prev = pthread_self();
	c->have_prev = 1;
	if (--c->lives > 0) { /* the next thread carries on with these slots */
		pthread_t t;
		if (pthread_create(&t, NULL, la_life, c))
			die("pthread_create failed");
	} else {
		pthread_mutex_lock(c->mu);
		--*c->running;
		pthread_cond_signal(c->cv);
		pthread_mutex_unlock(c->mu);
	}
	return NULL;
}

static uint64_t row_larson(int threads)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
	int running = threads;
	la_chain_t *c = xmalloc(sizeof(*c) * (size_t)threads);
	uint64_t s = 4141, check = 0;

	/* the main thread makes every slot first, as larson's warm-up does */
	for (int t = 0; t < threads; t++) {
		c[t] = (la_chain_t){.rng = rnd(&s),
		                    .lives = scaled(48 / threads),
		                    .mu = &mu,
		                    .cv = &cv,
		                    .running = &running};
		for (int i = 0; i < LA_SLOTS; i++) {
			c[t].size[i] = 8 + rnd(&s) % 992;
			c[t].blk[i] = xmalloc(c[t].size[i]);
			memset(c[t].blk[i], 1, c[t].size[i]);
		}
	}
	for (int t = 0; t < threads; t++) {
		pthread_t tid;
		if (pthread_create(&tid, NULL, la_life, &c[t]))
			die("pthread_create failed");
	}
	pthread_mutex_lock(&mu);
	while (running > 0)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	for (int t = 0; t < threads; t++) {
		pthread_join(c[t].prev, NULL); /* each chain's last thread */
		for (int i = 0; i < LA_SLOTS; i++)
			free(c[t].blk[i]);
		check += c[t].check;
	}
	free(c);
	return check;
}

/* ---------------------------------------------------------------- barnes */

typedef struct {
	double x, y, z;
} vec_t;

static void wrap(double *v, double box)
{
	while (*v >= box)
		*v -= box;
	while (*v < 0)
		*v += box;
}

/* Particles in a periodic box of G^3 cells, a short-range force from the
 * 27 neighbouring cells (a polynomial in r^2: no libm), leapfrog steps.
 * Six arrays, each at least 1 MiB: tracked. */
static uint64_t row_barnes(void)
{
	enum { G = 40 };
	const long n = 131072, ncell = (long)G * G * G;
	const double box = G, rc2 = 1.0;
	vec_t *pos = xmalloc(sizeof(vec_t) * (size_t)n);
	vec_t *vel = xmalloc(sizeof(vec_t) * (size_t)n);
	vec_t *acc = xmalloc(sizeof(vec_t) * (size_t)n);
	double *mass = xmalloc(sizeof(double) * (size_t)n);
	long *order = xmalloc(sizeof(long) * (size_t)n);
	long *start = xmalloc(sizeof(long) * (size_t)(ncell + 1) * 4); /* and counts: 2 MiB */
	long *count = start + ncell + 1;
	uint64_t s = 42, check = 0;
	long steps = scaled(2);

	for (long i = 0; i < n; i++) {
		pos[i] = (vec_t){(double)(rnd(&s) % 1000000) * box / 1e6,
		                 (double)(rnd(&s) % 1000000) * box / 1e6,
		                 (double)(rnd(&s) % 1000000) * box / 1e6};
		vel[i] = (vec_t){0, 0, 0};
		mass[i] = 1.0 + (double)(rnd(&s) % 100) / 100;
	}
	for (long st = 0; st < steps; st++) {
		/* bin the particles by cell: counting sort into order[] */
		memset(count, 0, sizeof(long) * (size_t)ncell);
		for (long i = 0; i < n; i++)
			count[((long)pos[i].z * G + (long)pos[i].y) * G + (long)pos[i].x]++;
		start[0] = 0;
		for (long c = 0; c < ncell; c++)
			start[c + 1] = start[c] + count[c];
		memset(count, 0, sizeof(long) * (size_t)ncell);
		for (long i = 0; i < n; i++) {
			long c = ((long)pos[i].z * G + (long)pos[i].y) * G + (long)pos[i].x;
			order[start[c] + count[c]++] = i;
		}
		for (long i = 0; i < n; i++) {
			long cx = (long)pos[i].x, cy = (long)pos[i].y, cz = (long)pos[i].z;
			vec_t a = {0, 0, 0};
			for (int dz = -1; dz <= 1; dz++)
				for (int dy = -1; dy <= 1; dy++)
					for (int dx = -1; dx <= 1; dx++) {
						long c =
						    (((cz + dz + G) % G) * G + (cy + dy + G) % G) *
						        G +
						    (cx + dx + G) % G;
						for (long k = start[c]; k < start[c + 1]; k++) {
							long j = order[k];
							double rx = pos[j].x - pos[i].x;
							double ry = pos[j].y - pos[i].y;
							double rz = pos[j].z - pos[i].z;
							rx -= rx > box / 2    ? box
							      : rx < -box / 2 ? -box
							                      : 0;
							ry -= ry > box / 2    ? box
							      : ry < -box / 2 ? -box
							                      : 0;
							rz -= rz > box / 2    ? box
							      : rz < -box / 2 ? -box
							                      : 0;
							double r2 = rx * rx + ry * ry + rz * rz;
							if (j == i || r2 >= rc2)
								continue;
							double w =
							    (rc2 - r2) * (rc2 - r2) * mass[j];
							a.x -= w * rx;
							a.y -= w * ry;
							a.z -= w * rz;
						}
					}
			acc[i] = a;
		}
		for (long i = 0; i < n; i++) {
			vel[i].x += 0.01 * acc[i].x;
			vel[i].y += 0.01 * acc[i].y;
			vel[i].z += 0.01 * acc[i].z;
			pos[i].x += 0.01 * vel[i].x;
			pos[i].y += 0.01 * vel[i].y;
			pos[i].z += 0.01 * vel[i].z;
			/* periodic: back into [0, box) */
			wrap(&pos[i].x, box);
			wrap(&pos[i].y, box);
			wrap(&pos[i].z, box);
		}
	}
	for (long i = 0; i < n; i++)
		check += (uint64_t)(pos[i].x * 1000) + (uint64_t)(pos[i].y * 1000);
	free(pos);
	free(vel);
	free(acc);
	free(mass);
	free(order);
	free(start);
	return check;
}

/* ---------------------------------------------------------- malloc-large */

/* through a volatile pointer: the compiler would make malloc + memset a
 * calloc, which is not what a program that zeroes its new block does */
static void *(*volatile memset_fn)(void *, int, size_t) = memset;

static uint64_t row_large(void)
{
	enum { SLOTS = 20 };
	char *slot[SLOTS] = {0};
	uint64_t s = 42, check = 0;
	long iters = scaled(100);

	for (long i = 0; i < iters; i++) {
		int k = (int)(rnd(&s) % SLOTS);
		size_t n = ((size_t)5 << 20) + rnd(&s) % ((size_t)20 << 20);
		char *b = xmalloc(n);
		memset_fn(b, 0, n);
		free(slot[k]);
		slot[k] = b;
		check += (unsigned char)b[n / 2] + n;
	}
	for (int k = 0; k < SLOTS; k++)
		free(slot[k]);
	return check;
}

/* ----------------------------------------------------------------- cfrac */

/* A nonnegative bignum in base 2^32, least significant word first; every
 * operation returns a new block, as cfrac's do. */
typedef struct {
	int n;
	uint32_t d[];
} big_t;

static big_t *big_new(int n)
{
	big_t *b = xmalloc(sizeof(big_t) + sizeof(uint32_t) * (size_t)(n ? n : 1));
	b->n = n;
	return b;
}

static big_t *big_small(uint32_t v)
{
	big_t *b = big_new(v ? 1 : 0);
	b->d[0] = v;
	return b;
}

/* a * m + c */
static big_t *big_muladd(const big_t *a, uint32_t m, const big_t *c)
{
	int n = (a->n > c->n ? a->n : c->n) + 1;
	big_t *r = big_new(n);
	uint64_t carry = 0;

	for (int i = 0; i < n; i++) {
		uint64_t v = carry;
		if (i < a->n)
			v += (uint64_t)a->d[i] * m;
		if (i < c->n)
			v += c->d[i];
		r->d[i] = (uint32_t)v;
		carry = v >> 32;
	}
	while (r->n > 0 && r->d[r->n - 1] == 0)
		r->n--;
	return r;
}

/* the remainder of a by m */
static uint32_t big_mod(const big_t *a, uint32_t m)
{
	uint64_t r = 0;
	for (int i = a->n - 1; i >= 0; i--)
		r = ((r << 32) | a->d[i]) % m;
	return (uint32_t)r;
}

static uint32_t isqrt(uint64_t v)
{
	uint64_t r = 0;
	while ((r + 1) * (r + 1) <= v)
		r++;
	return (uint32_t)r;
}

/* The continued fraction of sqrt(k) and its convergents p/q as bignums;
 * the terms go to an array that grows by realloc. */
static uint64_t row_cfrac(void)
{
	uint64_t check = 0;
	long ks = scaled(6000);

	for (long k = 2; k < 2 + ks; k++) {
		uint32_t a0 = isqrt((uint64_t)k);
		if ((uint64_t)a0 * a0 == (uint64_t)k)
			continue;
		uint64_t m = 0, d = 1, a = a0;
		big_t *p0 = big_small(1), *p1 = big_small(a0);
		big_t *q0 = big_small(0), *q1 = big_small(1);
		uint32_t *terms = NULL;
		size_t nterms = 0, cap = 0;
		for (int i = 0; i < 300; i++) {
			m = d * a - m;
			d = ((uint64_t)k - m * m) / d;
			a = (a0 + m) / d;
			big_t *p2 = big_muladd(p1, (uint32_t)a, p0);
			big_t *q2 = big_muladd(q1, (uint32_t)a, q0);
			free(p0);
			free(q0);
			p0 = p1, p1 = p2, q0 = q1, q1 = q2;
			if (nterms == cap) {
				cap = cap ? cap + cap / 2 + 1 : 4;
				terms = realloc(terms, cap * sizeof(*terms));
				if (!terms)
					die("out of memory");
			}
			terms[nterms++] = big_mod(p1, 65521) ^ big_mod(q1, 65519);
		}
		for (size_t i = 0; i < nterms; i++)
			check += terms[i];
		free(terms);
		free(p0);
		free(p1);
		free(q0);
		free(q1);
	}
	return check;
}

/* -------------------------------------------------------------- espresso */

typedef struct {
	int words;
	uint64_t bits[];
} cube_t;

typedef struct {
	cube_t **c;
	size_t n, cap;
} cover_t;

static void cover_add(cover_t *cv, cube_t *c)
{
	if (cv->n == cv->cap) {
		cv->cap = cv->cap ? cv->cap * 2 : 8;
		cv->c = realloc(cv->c, cv->cap * sizeof(*cv->c));
		if (!cv->c)
			die("out of memory");
	}
	cv->c[cv->n++] = c;
}

static void cover_free(cover_t *cv)
{
	for (size_t i = 0; i < cv->n; i++)
		free(cv->c[i]);
	free(cv->c);
	*cv = (cover_t){0};
}

static cube_t *cube_new(int words)
{
	cube_t *c = calloc(1, sizeof(cube_t) + sizeof(uint64_t) * (size_t)words);
	if (!c)
		die("out of memory");
	c->words = words;
	return c;
}

/* Passes over random covers: each cube meets the next few, the non-empty
 * intersections form the next cover, which is then reduced again. */
static uint64_t row_espresso(void)
{
	uint64_t s = 7, check = 0;
	long passes = scaled(800);

	for (long p = 0; p < passes; p++) {
		int words = 1 + (int)(rnd(&s) % 8);
		cover_t in = {0}, out = {0};
		for (int i = 0; i < 600; i++) {
			cube_t *c = cube_new(words);
			for (int w = 0; w < words; w++)
				c->bits[w] = rnd(&s) | rnd(&s) | rnd(&s);
			cover_add(&in, c);
		}
		for (int round = 0; round < 3; round++) {
			for (size_t i = 0; i < in.n; i++)
				for (size_t j = i + 1; j < in.n && j < i + 4; j++) {
					cube_t *r = cube_new(words);
					uint64_t any = 0;
					for (int w = 0; w < words; w++)
						any |= r->bits[w] =
						    in.c[i]->bits[w] & in.c[j]->bits[w];
					if (any && out.n < 2000)
						cover_add(&out, r);
					else
						free(r);
				}
			check += out.n;
			cover_free(&in);
			in = out;
			out = (cover_t){0};
		}
		cover_free(&in);
	}
	return check;
}

/* --------------------------------------------------------------- heaptop */

static void *volatile sink_g;

static uint64_t row_heaptop(void)
{
	enum { N = 4096 };
	static char *blk[N];
	uint64_t check = 0;
	long rounds = scaled(2000);
	char *big = xmalloc((size_t)4 << 20);

	memset_fn(big, 1, (size_t)4 << 20);
	sink_g = big;
	free(big);
	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < N; i++) {
			blk[i] = xmalloc(2000);
			blk[i][0] = (char)i;
			blk[i][1999] = (char)r;
		}
		for (int i = N - 1; i >= 0; i--) {
			check += (unsigned char)blk[i][0] + (unsigned char)blk[i][1999];
			free(blk[i]);
		}
	}
	return check;
}

/* --------------------------------------------------------------- xmalloc */

#define XM_BATCH 256
#define XM_QUEUE 64 /* batches in flight at most */

typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void **q[XM_QUEUE];
	int head, len;
	long batches;
	uint64_t check;
} xm_t;

static void *xm_produce(void *p)
{
	xm_t *x = p;
	uint64_t s = 99;

	for (long b = 0; b < x->batches; b++) {
		void **batch = xmalloc(sizeof(void *) * XM_BATCH);
		for (int i = 0; i < XM_BATCH; i++) {
			size_t n = 16 + rnd(&s) % 241;
			unsigned char *blk = xmalloc(n);
			blk[0] = (unsigned char)n;
			blk[n - 1] = (unsigned char)i;
			batch[i] = blk;
		}
		pthread_mutex_lock(&x->mu);
		while (x->len == XM_QUEUE)
			pthread_cond_wait(&x->cv, &x->mu);
		x->q[(x->head + x->len++) % XM_QUEUE] = batch;
		pthread_cond_broadcast(&x->cv);
		pthread_mutex_unlock(&x->mu);
	}
	return NULL;
}

static void *xm_consume(void *p)
{
	xm_t *x = p;

	for (long b = 0; b < x->batches; b++) {
		pthread_mutex_lock(&x->mu);
		while (x->len == 0)
			pthread_cond_wait(&x->cv, &x->mu);
		void **batch = x->q[x->head];
		x->head = (x->head + 1) % XM_QUEUE;
		x->len--;
		pthread_cond_broadcast(&x->cv);
		pthread_mutex_unlock(&x->mu);
		for (int i = 0; i < XM_BATCH; i++) {
			unsigned char *blk = batch[i];
			x->check += blk[0] + blk[blk[0] - 1];
			free(blk);
		}
		free(batch);
	}
	return NULL;
}

static uint64_t row_xmalloc(void)
{
	xm_t x = {.mu = PTHREAD_MUTEX_INITIALIZER,
	          .cv = PTHREAD_COND_INITIALIZER,
	          .batches = scaled(6000)};
	pthread_t t[2];

	if (pthread_create(&t[0], NULL, xm_produce, &x) ||
	    pthread_create(&t[1], NULL, xm_consume, &x))
		die("pthread_create failed");
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	return x.check;
}

/* --------------------------------------------------------- cache-scratch */

typedef struct {
	char *obj;
	long iters, reps;
	uint64_t check;
} sc_arg_t;

static void *sc_work(void *p)
{
	sc_arg_t *a = p;
	uint64_t check = 0;

	free(a->obj); /* made by the main thread */
	for (long i = 0; i < a->iters; i++) {
		volatile char *o = xmalloc(8);
		for (long r = 0; r < a->reps; r++)
			for (int k = 0; k < 8; k++) {
				o[k] = (char)k;
				check += (unsigned char)o[k];
			}
		free((void *)o);
	}
	a->check = check;
	return NULL;
}

static uint64_t row_scratch(int threads)
{
	sc_arg_t a[2];
	uint64_t check = 0;

	for (int i = 0; i < threads; i++)
		a[i] =
		    (sc_arg_t){.obj = xmalloc(8), .iters = scaled(1000), .reps = 60000 / threads};
	run_threads(threads, sc_work, a, sizeof(a[0]));
	for (int i = 0; i < threads; i++)
		check += a[i].check;
	return check;
}

/* ------------------------------------------------------------------ main */

static const char *const rows_g[] = {"thread1", "thread2",  "larson1",  "larson2",
                                     "barnes",  "large",    "cfrac",    "espresso",
                                     "heaptop", "xmalloc2", "scratch1", "scratch2"};

static uint64_t run_row(int r)
{
	switch (r) {
	case 0: return row_thread(1);
	case 1: return row_thread(2);
	case 2: return row_larson(1);
	case 3: return row_larson(2);
	case 4: return row_barnes();
	case 5: return row_large();
	case 6: return row_cfrac();
	case 7: return row_espresso();
	case 8: return row_heaptop();
	case 9: return row_xmalloc();
	case 10: return row_scratch(1);
	default: return row_scratch(2);
	}
}

int main(int argc, char **argv)
{
	int nrows = (int)(sizeof(rows_g) / sizeof(rows_g[0])), r;
	struct rusage ru;

	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for (r = 0; r < nrows; r++)
			printf("%s\n", rows_g[r]);
		return 0;
	}
	for (r = 0; argc > 1 && r < nrows; r++)
		if (strcmp(argv[1], rows_g[r]) == 0)
			break;
	if (argc < 2 || argc > 3 || r == nrows) {
		fprintf(stderr, "usage: alloc_rows ROW [SCALE] (alloc_rows --list: the rows)\n");
		return 2;
	}
	if (argc == 3 && (scale_g = strtod(argv[2], NULL)) <= 0)
		die("SCALE must be positive");
	double t = bench_now();
	uint64_t check = run_row(r);
	t = bench_now() - t;
	getrusage(RUSAGE_SELF, &ru);
	printf("%s time %.4f cpu %.4f maxrss_kib %ld check %llu\n", rows_g[r], t,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6,
	       ru.ru_maxrss, (unsigned long long)check);
	return 0;
}
