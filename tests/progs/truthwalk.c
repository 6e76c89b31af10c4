/* truthwalk — arrays walked in known patterns for known shares of CPU time,
 * and the truth of it written as JSON: what a sampler must find
 * (t_sample_timer, bench/timer_overhead.sh).
 *
 * Five arrays, each allocated by its own function (its own site):
 *   seq     read in order, 8 bytes at a time              sequential
 *   stride  read every 4 KiB, each read waiting for the    strided (4096)
 *           one before; four times the others' size
 *   gather  read at random (xorshift)                      random
 *   chase   a list of 64-byte nodes linked in one random   pointer-chasing
 *           cycle, followed
 *   update  incremented at random (a store)                random
 * Each is walked for a budget of CPU time (CLOCK_THREAD_CPUTIME_ID: a timer
 * sampler counts CPU time, so the truth holds when the machine is busy), in
 * rounds that take turns, each walk going on where its last round left it.
 * The program counts its accesses and times each walk (and each array's
 * first touch apart).  With -t N, N OpenMP threads each walk their own slice
 * of every array with the same budgets; times and accesses are summed.
 *
 * Usage: truthwalk [-t threads] [-s MiB] [-r rounds] [-b name=ms,...] [-W] [-o truth.json]
 *   -s  MiB of each array per thread (default 64, a power of two, at least 8;
 *       the strided one four times that)
 *   -b  CPU milliseconds per thread for an array's walks (defaults below)
 *   -W  fixed work instead: -b gives each array's chunks of CHUNK accesses
 *       (the overhead benchmark times the same work with and without a sampler)
 *   -o  where the truth goes (else $TRUTHWALK_OUT; else none)
 */
#define _GNU_SOURCE
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)
/* The strided walk: a word every 4 KiB, each step waiting for the word
 * before it (as a list laid out in order would), over an array four times
 * the others' size.  A timer sample lands on the load that waits: every
 * access here costs alike (a page each), so the steps between samples are
 * as irregular as a stride needs to show (at 128 B, loads at 1 KiB
 * boundaries waited longest and drew half the samples), and a pass lasts
 * ~5 ms here, 50 samples at 10 kHz (4 KiB reads without the wait, over
 * 64 MiB: 0.3 ms a pass, samples fell in passes far apart, and no walk one
 * way was seen). */
#define STRIDE       4096
#define STRIDE_TIMES 4
#define CHUNK        16384 /* accesses between looks at the clock */
#define MAX_THREAD   64

typedef struct node {
	struct node *next;
	uint64_t pad[7]; /* one node a cache line */
} node_t;

enum { SEQ, STRIDED, GATHER, CHASE, UPDATE, NARRAY };

static const char *const names_g[NARRAY] = {"seq", "stride", "gather", "chase", "update"};
static const char *const kinds_g[NARRAY] = {"sequential", "strided", "random", "pointer-chasing",
                                            "random"};
static const char *const allocs_g[NARRAY] = {"alloc_seq", "alloc_stride", "alloc_gather",
                                             "alloc_chase", "alloc_update"};
static const char *const walks_g[NARRAY] = {"walk_seq", "walk_stride", "walk_gather", "walk_chase",
                                            "walk_update"};
/* CPU ms per thread: shares of 32, 16, 24, 20 and 8 %, every two at least
 * a fifth apart, so that a sampler's ranks are the test's to check */
static unsigned budget_ms_g[NARRAY] = {640, 320, 480, 400, 160};
static int fixed_work_g; /* -W: the budgets are chunks of accesses, not ms */

/* The pointer, through an empty asm: malloc is then no tail call, and the
 * function that called it stays on the stack the shim walks. */
static inline void *keep_frame(void *p)
{
	__asm__ volatile("" : "+r"(p));
	return p;
}

/* one call site each: the profile names them by these functions (noipa:
 * gcc would fold five identical functions into one) */
static __attribute__((noipa)) void *alloc_seq(size_t n)
{
	return keep_frame(malloc(n));
}
static __attribute__((noipa)) void *alloc_stride(size_t n)
{
	return keep_frame(malloc(n));
}
static __attribute__((noipa)) void *alloc_gather(size_t n)
{
	return keep_frame(malloc(n));
}
static __attribute__((noipa)) void *alloc_chase(size_t n)
{
	return keep_frame(malloc(n));
}
static __attribute__((noipa)) void *alloc_update(size_t n)
{
	return keep_frame(malloc(n));
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A bijection of [0, n), n a power of two: multiplications by odd numbers
 * and shifts folded in, each invertible modulo n. */
static size_t scramble(size_t x, size_t n)
{
	int bits = __builtin_ctzll(n);
	for (int r = 0; r < 2; r++) {
		x = (x * 0x9e3779b97f4a7c15ull) & (n - 1);
		x ^= x >> (bits / 2 + 1);
	}
	return x;
}

/* The walks: each `count` accesses, each going on from *pos (or *rng, or
 * *at), its own function so that samples name it. */
static __attribute__((noinline)) uint64_t walk_seq(const uint64_t *a, size_t n, size_t *pos,
                                                   size_t count)
{
	uint64_t sum = 0;
	size_t i = *pos;
	for (size_t k = 0; k < count; k++) {
		sum += a[i];
		if (++i == n)
			i = 0;
	}
	*pos = i;
	return sum;
}

static __attribute__((noinline)) uint64_t walk_stride(const uint64_t *a, size_t n, size_t *pos,
                                                      size_t count)
{
	const size_t step = STRIDE / sizeof(uint64_t);
	uint64_t sum = 0;
	size_t i = *pos;
	for (size_t k = 0; k < count; k++) {
		uint64_t v = a[i];
		sum += v;
		i += step + (v >> 48); /* the words are below 2^16: the step, once a[i] is in */
		if (i >= n)
			i -= n;
	}
	*pos = i;
	return sum;
}

static __attribute__((noinline)) uint64_t walk_gather(const uint64_t *a, size_t mask, uint64_t *rng,
                                                      size_t count)
{
	uint64_t sum = 0, r = *rng;
	for (size_t k = 0; k < count; k++)
		sum += a[next_rand(&r) & mask];
	*rng = r;
	return sum;
}

static __attribute__((noinline)) uint64_t walk_chase(node_t **at, size_t count)
{
	node_t *p = *at;
	for (size_t k = 0; k < count; k++)
		p = p->next;
	*at = p;
	return (uint64_t)(uintptr_t)p & 1;
}

static __attribute__((noinline)) uint64_t walk_update(uint64_t *a, size_t mask, uint64_t *rng,
                                                      size_t count)
{
	uint64_t r = *rng;
	for (size_t k = 0; k < count; k++)
		a[next_rand(&r) & mask] += 1;
	*rng = r;
	return 0;
}

typedef struct {
	double walk[NARRAY], init[NARRAY];
	uint64_t accesses[NARRAY], sum;
} tally_t;

/* One thread's slice of every array: first touch, then the rounds. */
static void run_thread(void *base[NARRAY], size_t bytes, int rounds, int t, tally_t *tl)
{
	size_t n = bytes / sizeof(uint64_t), nodes = bytes / sizeof(node_t);
	uint64_t *seq = (uint64_t *)base[SEQ] + (size_t)t * n;
	uint64_t *strided = (uint64_t *)base[STRIDED] + (size_t)t * STRIDE_TIMES * n;
	uint64_t *gather = (uint64_t *)base[GATHER] + (size_t)t * n;
	node_t *chase = (node_t *)base[CHASE] + (size_t)t * nodes;
	uint64_t *update = (uint64_t *)base[UPDATE] + (size_t)t * n;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(t + 1); /* each thread its own */
	double t0;

	t0 = cpu_now();
	for (size_t i = 0; i < n; i++)
		seq[i] = i & 0xffff;
	tl->init[SEQ] = cpu_now() - t0;
	t0 = cpu_now();
	/* the words the walk reads: a page each */
	for (size_t i = 0; i < STRIDE_TIMES * n; i += STRIDE / sizeof(uint64_t))
		strided[i] = i & 0xffff;
	tl->init[STRIDED] = cpu_now() - t0;
	t0 = cpu_now();
	for (size_t i = 0; i < n; i++)
		gather[i] = i & 0xffff; /* small numbers: no word looks like a pointer */
	tl->init[GATHER] = cpu_now() - t0;
	t0 = cpu_now();
	/* one cycle through every node in a random order: node h(k) links to
	 * h(k + 1), h a bijection of the node numbers (each link one store) */
	for (size_t k = 0; k < nodes; k++)
		chase[scramble(k, nodes)].next = &chase[scramble((k + 1) & (nodes - 1), nodes)];
	tl->init[CHASE] = cpu_now() - t0;
	t0 = cpu_now();
	memset(update, 0, bytes);
	tl->init[UPDATE] = cpu_now() - t0;

	size_t pos_seq = 0, pos_stride = 0, mask = n - 1;
	uint64_t rng_gather = seed ^ 1, rng_update = seed ^ 2;
	node_t *at = &chase[scramble(0, nodes)];
	for (int r = 0; r < rounds; r++)
		for (int a = 0; a < NARRAY; a++) {
			/* the rounds so far have had their share: each ends on time */
			double want = (double)budget_ms_g[a] * 1e-3 * (r + 1) / rounds;
			uint64_t chunks = (uint64_t)budget_ms_g[a] * (r + 1) / rounds;
			t0 = cpu_now();
			while (fixed_work_g ? tl->accesses[a] < chunks * CHUNK
			                    : tl->walk[a] + (cpu_now() - t0) < want) {
				switch (a) {
				case SEQ: tl->sum += walk_seq(seq, n, &pos_seq, CHUNK); break;
				case STRIDED:
					tl->sum += walk_stride(strided, STRIDE_TIMES * n,
					                       &pos_stride, CHUNK);
					break;
				case GATHER:
					tl->sum += walk_gather(gather, mask, &rng_gather, CHUNK);
					break;
				case CHASE: tl->sum += walk_chase(&at, CHUNK); break;
				case UPDATE:
					tl->sum += walk_update(update, mask, &rng_update, CHUNK);
					break;
				}
				tl->accesses[a] += CHUNK;
			}
			tl->walk[a] += cpu_now() - t0;
		}
}

static int parse_budgets(char *s)
{
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '=');
		int a = 0;
		if (!eq)
			return -1;
		*eq = 0;
		while (a < NARRAY && strcmp(tok, names_g[a]))
			a++;
		if (a == NARRAY)
			return -1;
		budget_ms_g[a] = (unsigned)strtoul(eq + 1, NULL, 10);
	}
	return 0;
}

static int write_truth(const char *path, int threads, size_t bytes, const tally_t *sum)
{
	FILE *f = fopen(path, "w");
	double total = 0;

	if (!f)
		return -1;
	for (int a = 0; a < NARRAY; a++)
		total += sum->walk[a];
	fprintf(f,
	        "{\"program\": \"truthwalk\", \"threads\": %d, \"clock\": "
	        "\"CLOCK_THREAD_CPUTIME_ID\",\n"
	        " \"budgets\": \"%s\", \"chunk\": %d, \"walk_seconds\": %.6f, \"arrays\": [\n",
	        threads, fixed_work_g ? "chunks" : "ms", CHUNK, total);
	for (int a = 0; a < NARRAY; a++)
		fprintf(f,
		        "  {\"name\": \"%s\", \"function\": \"%s\", \"walk_function\": \"%s\", "
		        "\"pattern\": \"%s\", \"stride\": %d, \"bytes\": %zu, \"accesses\": %llu, "
		        "\"seconds\": %.6f, \"init_seconds\": %.6f, \"share\": %.6f}%s\n",
		        names_g[a], allocs_g[a], walks_g[a], kinds_g[a], a == STRIDED ? STRIDE : 0,
		        bytes * (size_t)threads * (a == STRIDED ? STRIDE_TIMES : 1),
		        (unsigned long long)sum->accesses[a], sum->walk[a], sum->init[a],
		        total > 0 ? sum->walk[a] / total : 0, a + 1 < NARRAY ? "," : "");
	fprintf(f, "]}\n");
	return fclose(f);
}

int main(int argc, char **argv)
{
	int threads = 1, rounds = 8, c;
	size_t mib = 64;
	const char *out = getenv("TRUTHWALK_OUT");

	while ((c = getopt(argc, argv, "t:s:r:b:o:W")) != -1) {
		switch (c) {
		case 't': threads = atoi(optarg); break;
		case 's': mib = strtoull(optarg, NULL, 10); break;
		case 'r': rounds = atoi(optarg); break;
		case 'b':
			if (parse_budgets(optarg) != 0) {
				fprintf(stderr,
				        "truthwalk: -b %s: expected name=ms,... of seq, stride, "
				        "gather, chase, update\n",
				        optarg);
				return 2;
			}
			break;
		case 'o': out = optarg; break;
		case 'W': fixed_work_g = 1; break;
		default:
			fprintf(stderr, "usage: truthwalk [-t threads] [-s MiB] [-r rounds] "
			                "[-b name=ms,...] [-W] [-o truth.json]\n");
			return 2;
		}
	}
	/* a power of two, for the random walks' mask */
	if (threads < 1 || threads > MAX_THREAD || mib < 8 || (mib & (mib - 1)) || rounds < 1) {
		fprintf(stderr,
		        "truthwalk: -t 1..%d, -s a power of two of at least 8, -r 1 or more\n",
		        MAX_THREAD);
		return 2;
	}
	size_t bytes = mib * MiB;
	void *base[NARRAY] = {alloc_seq(bytes * threads),
	                      alloc_stride(STRIDE_TIMES * bytes * threads),
	                      alloc_gather(bytes * threads), alloc_chase(bytes * threads),
	                      alloc_update(bytes * threads)};
	static tally_t tally[MAX_THREAD];
	for (int a = 0; a < NARRAY; a++)
		if (!base[a]) {
			fprintf(stderr, "truthwalk: out of memory\n");
			return 1;
		}

#pragma omp parallel num_threads(threads)
	run_thread(base, bytes, rounds, omp_get_thread_num(), &tally[omp_get_thread_num()]);

	tally_t sum = {0};
	for (int t = 0; t < threads; t++) {
		for (int a = 0; a < NARRAY; a++) {
			sum.walk[a] += tally[t].walk[a];
			sum.init[a] += tally[t].init[a];
			sum.accesses[a] += tally[t].accesses[a];
		}
		sum.sum += tally[t].sum;
	}
	printf("truthwalk: %d thread(s), %zu MiB an array a thread, checksum %llu\n", threads, mib,
	       (unsigned long long)sum.sum);
	for (int a = 0; a < NARRAY; a++)
		printf("  %-6s %-15s %10llu accesses  %.3f s  (first touch %.3f s)\n", names_g[a],
		       kinds_g[a], (unsigned long long)sum.accesses[a], sum.walk[a], sum.init[a]);
	if (out && write_truth(out, threads, bytes, &sum) != 0) {
		perror(out);
		return 1;
	}
	for (int a = 0; a < NARRAY; a++)
		free(base[a]);
	return 0;
}
