/* test_order.c — the rounds' orders (tuner/order.c) counted: for 1-5
 * configurations beside all-slow (and all-slow 1-3 times a round), over any
 * 8 consecutive rounds each configuration follows all-slow as often as
 * all-slow follows it within a round, within one; orders stay random (each
 * run opens rounds about as often as the others); the same seed gives the
 * same orders, another seed others. */
#include <math.h>
#include <stdlib.h>

#include "check.h"

#include "order.h"

#define ROUNDS 64
#define REF    0

/* The orders of ROUNDS rounds of k configurations (1..k) and `share`
 * all-slow runs each, one after the other into seq. */
static int stream(uint64_t seed, int k, int share, int *seq)
{
	hmpt_order_t o = {0};
	int n = 0;
	hmpt_order_init(&o, seed, REF);
	for (int r = 0; r < ROUNDS; r++) {
		int items[16], m = 0;
		for (int s = 0; s < share; s++)
			items[m++] = REF;
		for (int c = 1; c <= k; c++)
			items[m++] = c;
		CHECK_OP(hmpt_order_round(&o, items, m), ==, 0);
		for (int i = 0; i < m; i++)
			seq[n++] = items[i];
	}
	hmpt_order_free(&o);
	return n;
}

/* openings per run over all seeds: [k][share][0] all-slow's, [1] a
 * configuration's (each), for test_random */
static long opened[6][4][2], rounds_seen[6][4];

static void test_balance(int k, int share, uint64_t seed)
{
	int seq[ROUNDS * 16], m = k + share;
	stream(seed, k, share, seq);
	/* adjacency within rounds, over every window of 8 rounds */
	for (int w = 0; w + 8 <= ROUNDS; w++)
		for (int c = 1; c <= k; c++) {
			int after_ref = 0, ref_after = 0;
			for (int r = w; r < w + 8; r++)
				for (int i = r * m + 1; i < (r + 1) * m; i++) {
					after_ref += seq[i] == c && seq[i - 1] == REF;
					ref_after += seq[i] == REF && seq[i - 1] == c;
				}
			if (abs(after_ref - ref_after) > 1) {
				fprintf(stderr,
				        "k %d share %d seed %llu window %d config %d: %d / %d\n", k,
				        share, (unsigned long long)seed, w, c, after_ref,
				        ref_after);
				CHECK(abs(after_ref - ref_after) <= 1);
			}
		}
	if (k > 5 || share > 3)
		return;
	for (int r = 0; r < ROUNDS; r++) {
		opened[k][share][0] += seq[r * m] == REF;
		opened[k][share][1] += seq[r * m] == 1;
	}
	rounds_seen[k][share] += ROUNDS;
}

/* The orders stay random where all-slow runs once a round (the
 * confirmation's rounds): it opens a round in 1 / (k + 1) of them, and so
 * does each configuration, within a fifth.  (With more all-slow runs a
 * round, as in the search, it opens more often than its share: a chain of
 * them keeps the leads.) */
static void test_random(void)
{
	for (int k = 1; k <= 5; k++) {
		double n = (double)rounds_seen[k][1], m = k + 1;
		CHECK_OP(fabs(opened[k][1][0] / n - 1 / m), <=, 0.2 / m);
		CHECK_OP(fabs(opened[k][1][1] / n - 1 / m), <=, 0.2 / m);
	}
}

static void test_seeds(void)
{
	int a[ROUNDS * 16], b[ROUNDS * 16], c[ROUNDS * 16];
	int n = stream(7, 4, 1, a);
	stream(7, 4, 1, b);
	stream(8, 4, 1, c);
	int same = 1, differ = 0;
	for (int i = 0; i < n; i++) {
		same &= a[i] == b[i];
		differ |= a[i] != c[i];
	}
	CHECK(same);
	CHECK(differ);
	/* a large round (the search's: candidates sampled) stays balanced */
	test_balance(12, 3, 99);
}

int main(void)
{
	for (uint64_t seed = 1; seed <= 20; seed++)
		for (int k = 1; k <= 5; k++)
			for (int share = 1; share <= 3; share++)
				test_balance(k, share, seed * 0x9e3779b97f4a7c15ull);
	test_random();
	test_seeds();
	if (failures)
		fprintf(stderr, "test_order: %d failures\n", failures);
	return failures != 0;
}
