/* test_pattern.c — access patterns classed from address streams.
 *
 * Page-fault streams are what first touch gives: one record per page mapped,
 * in the order the program (or the kernel) touched them.  Sampled streams
 * stand in for PEBS and IBS: a loop's loads, every P-th one recorded (P
 * varied by a few per cent, as IBS randomises its period's low bits); they
 * are modelled, not recorded on hardware this machine lacks. */
#include <stdlib.h>

#include "check.h"
#include "pattern.h"

#define KiB  1024ull
#define MiB  (1024ull * KiB)
#define BASE 0x7f0000000000ull

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void shuffle(uint64_t *a, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = next_rand() % (i + 1);
		uint64_t t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

static hmpt_pattern_class_t classify(const hmpt_pattern_t *p)
{
	hmpt_pattern_class_t c;
	hmpt_pattern_classify(p, &c);
	return c;
}

/* first touches of `n` pages of `page` bytes at the given page indices */
static hmpt_pattern_class_t faults(const uint64_t *idx, size_t n, uint64_t page, bool pointers)
{
	hmpt_pattern_t p = {.faults = true};
	for (size_t i = 0; i < n; i++) {
		hmpt_pattern_note(&p, 1, 1, n * page, BASE + idx[i] * page + 8, page);
		if (hmpt_pattern_wants_word(&p))
			hmpt_pattern_note_word(&p, pointers);
	}
	return classify(&p);
}

static void test_faults(void)
{
	enum { N = 2048 };
	static uint64_t idx[N];
	hmpt_pattern_class_t c;

	for (size_t i = 0; i < N; i++)
		idx[i] = i;
	c = faults(idx, N, 4 * KiB, false);
	CHECK_OP(c.kind, ==, HMPT_PATTERN_SEQUENTIAL);
	CHECK_OP(c.confidence, >, 0.99);
	/* transparent huge pages: a step of one huge page */
	c = faults(idx, 16, 2 * MiB, false);
	CHECK_OP(c.kind, ==, HMPT_PATTERN_SEQUENTIAL);
	/* backwards */
	for (size_t i = 0; i < N; i++)
		idx[i] = N - 1 - i;
	CHECK_OP(faults(idx, N, 4 * KiB, false).kind, ==, HMPT_PATTERN_SEQUENTIAL);
	/* every fourth page */
	for (size_t i = 0; i < N; i++)
		idx[i] = 4 * i;
	c = faults(idx, N, 4 * KiB, false);
	CHECK_OP(c.kind, ==, HMPT_PATTERN_STRIDED);
	CHECK_OP(c.stride, ==, 16 * KiB);
	/* at random, with plain data or with pointers in the touched words */
	for (size_t i = 0; i < N; i++)
		idx[i] = i;
	shuffle(idx, N);
	c = faults(idx, N, 4 * KiB, false);
	CHECK_OP(c.kind, ==, HMPT_PATTERN_RANDOM);
	CHECK_OP(c.confidence, >, 0.9);
	c = faults(idx, N, 4 * KiB, true);
	CHECK_OP(c.kind, ==, HMPT_PATTERN_POINTER);
	/* too few steps to tell */
	CHECK_OP(faults(idx, 5, 4 * KiB, false).kind, ==, HMPT_PATTERN_UNKNOWN);

	/* two threads each first-touching its half (OpenMP static), their
	 * records interleaved; and one thread filling two blocks in turn */
	hmpt_pattern_t p = {.faults = true};
	for (uint64_t i = 0; i < N / 2; i++) {
		hmpt_pattern_note(&p, 1, 1, N * 4 * KiB, BASE + i * 4 * KiB, 4 * KiB);
		hmpt_pattern_note(&p, 2, 1, N * 4 * KiB, BASE + (N / 2 + i) * 4 * KiB, 4 * KiB);
	}
	CHECK_OP(classify(&p).kind, ==, HMPT_PATTERN_SEQUENTIAL);
	p = (hmpt_pattern_t){.faults = true};
	for (uint64_t i = 0; i < N / 2; i++) {
		hmpt_pattern_note(&p, 1, 1, 8 * MiB, BASE + i * 4 * KiB, 4 * KiB);
		hmpt_pattern_note(&p, 1, 2, 8 * MiB, BASE + 64 * MiB + i * 4 * KiB, 4 * KiB);
	}
	CHECK_OP(classify(&p).kind, ==, HMPT_PATTERN_SEQUENTIAL);
	/* a stencil's three rows touched in one loop (a[i-n], a[i], a[i+n]) */
	p = (hmpt_pattern_t){.faults = true};
	for (uint64_t i = 0; i < N; i++)
		for (int r = 0; r < 3; r++)
			hmpt_pattern_note(&p, 1, 1, 3 * N * 4 * KiB, BASE + (r * N + i) * 4 * KiB,
			                  4 * KiB);
	CHECK_OP(classify(&p).kind, ==, HMPT_PATTERN_SEQUENTIAL);
}

/* A loop's loads at element offsets `at(i)` (bytes), every P-th recorded */
typedef uint64_t (*at_fn)(uint64_t i, uint64_t n);

static uint64_t at_dense(uint64_t i, uint64_t n)
{
	(void)n;
	return 8 * i;
}

static uint64_t at_stencil(uint64_t i, uint64_t n)
{
	/* a[j-row], a[j], a[j+row] for j = i / 3 */
	uint64_t row = n / 3 / 8;
	return 8 * (row + i / 3) + (i % 3 == 0 ? -8 * row : i % 3 == 1 ? 0 : 8 * row);
}

static uint64_t at_every16(uint64_t i, uint64_t n)
{
	(void)n;
	return 128 * i;
}

static uint64_t at_random(uint64_t i, uint64_t n)
{
	(void)i;
	return 8 * (next_rand() % (n / 8));
}

static hmpt_pattern_class_t sampled(at_fn at, uint64_t span, uint64_t loads, bool pointers)
{
	hmpt_pattern_t p = {0};
	uint64_t period = 2003;
	for (uint64_t i = next_rand() % period; i < loads;
	     i += period - period / 16 + next_rand() % (period / 8)) {
		hmpt_pattern_note(&p, 1, 1, span, BASE + at(i, span) % span, 0);
		if (hmpt_pattern_wants_word(&p))
			hmpt_pattern_note_word(&p, pointers);
	}
	return classify(&p);
}

static void test_samples(void)
{
	hmpt_pattern_class_t c;

	c = sampled(at_dense, 64 * MiB, 8 * MiB, false);
	CHECK_OP(c.kind, ==, HMPT_PATTERN_SEQUENTIAL);
	CHECK_OP(c.confidence, >, 0.95);
	c = sampled(at_stencil, 96 * MiB, 8 * MiB, false);
	CHECK_OP(c.kind, ==, HMPT_PATTERN_SEQUENTIAL);
	c = sampled(at_every16, 1024 * MiB, 8 * MiB, false);
	CHECK_OP(c.kind, ==, HMPT_PATTERN_STRIDED);
	CHECK_OP(c.stride, ==, 128);
	c = sampled(at_random, 64 * MiB, 8 * MiB, false);
	CHECK_OP(c.kind, ==, HMPT_PATTERN_RANDOM);
	CHECK_OP(c.confidence, >, 0.8);
	c = sampled(at_random, 64 * MiB, 8 * MiB, true);
	CHECK_OP(c.kind, ==, HMPT_PATTERN_POINTER);
}

static void test_top_and_names(void)
{
	hmpt_pattern_top_t t = {0};

	/* one value in 60 % of 1000 among noise: counted at least
	 * (0.6 - 1/5) of them, the noise near nothing */
	for (int i = 0; i < 1000; i++)
		hmpt_pattern_top_add(&t, i % 5 < 3 ? 4096 : (int64_t)(next_rand() % 100000) + 5000,
		                     1);
	int top = 0;
	for (int i = 1; i < HMPT_PATTERN_CANDS; i++)
		if (t.n[i] > t.n[top])
			top = i;
	CHECK_OP(t.v[top], ==, 4096);
	CHECK_OP(t.n[top], >=, 400);
	CHECK_OP(t.n[top], <=, 600);
	for (int k = 0; k < HMPT_PATTERN_KINDS; k++)
		CHECK_OP(hmpt_pattern_parse(hmpt_pattern_name((hmpt_pattern_kind_t)k)), ==, k);
	CHECK_STREQ(hmpt_pattern_name(HMPT_PATTERN_POINTER), "pointer-chasing");
	CHECK_OP(hmpt_pattern_parse("zigzag"), ==, HMPT_PATTERN_UNKNOWN);
}

int main(void)
{
	test_faults();
	test_samples();
	test_top_and_names();
	if (!failures)
		printf("test_pattern: ok\n");
	return failures ? 1 : 0;
}
