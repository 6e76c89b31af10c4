/* order.c — see order.h. */
#include "order.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* candidate orders tried for a round of more than 6 runs */
#define ORDER_SAMPLES 64

static uint64_t next(hmpt_order_t *o)
{
	/* xorshift64*: state never 0 */
	o->rng ^= o->rng >> 12, o->rng ^= o->rng << 25, o->rng ^= o->rng >> 27;
	return o->rng * 0x2545f4914f6cdd1dull;
}

uint64_t hmpt_order_seed_draw(void)
{
	uint64_t s = 0;
	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		s = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec ^
		    (uint64_t)getpid() << 32;
	}
	return s ? s : 1;
}

void hmpt_order_init(hmpt_order_t *o, uint64_t seed, int ref)
{
	hmpt_order_free(o);
	o->rng = seed ? seed : 1;
	o->ref = ref;
}

void hmpt_order_free(hmpt_order_t *o)
{
	free(o->lead);
	*o = (hmpt_order_t){0};
}

static int grow(hmpt_order_t *o, int item)
{
	if (item < o->cap)
		return 0;
	int cap = 2 * item + 8, *q = realloc(o->lead, (size_t)cap * sizeof(int));
	if (!q)
		return -1;
	memset(q + o->cap, 0, (size_t)(cap - o->cap) * sizeof(int));
	o->lead = q;
	o->cap = cap;
	return 0;
}

static void shuffle(hmpt_order_t *o, int *v, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(next(o) % (uint64_t)(i + 1)), t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

/* What order v would do to the leads (into o's when `apply`): 4 for each
 * run whose lead it leaves outside {0, 1}, and 1 when it leaves no lead at
 * 1 among its runs (then the next round could not have all-slow after one
 * of them: it would have to open the round, more often than its share). */
static int judge(hmpt_order_t *o, const int *v, int n, bool apply)
{
	int bad = 0, holders = 0, ref = o->ref;
	for (int i = 0; i < n; i++) {
		int c = v[i];
		if (c == ref)
			continue;
		int l = o->lead[c] + (i > 0 && v[i - 1] == ref) - (i + 1 < n && v[i + 1] == ref);
		bad += l < 0 || l > 1 ? 4 : 0;
		holders += l == 1;
		if (apply)
			o->lead[c] = l;
	}
	return bad + (holders == 0 && n > 1);
}

/* A candidate for a round too long to try every order: the others in a
 * random order, all-slow's runs as one chain "h R s R t" (or blocks "R R")
 * that opens the round or follows a run whose lead is 1: a chain's inner
 * runs keep their leads, its first loses one and its last gains one. */
static void chain(hmpt_order_t *o, const int *items, int n, int *out)
{
	int conf[n > 0 ? n : 1], m = 0, nref = 0, ref = o->ref;
	for (int i = 0; i < n; i++)
		if (items[i] == ref)
			nref++;
		else
			conf[m++] = items[i];
	shuffle(o, conf, m);
	int q = 0; /* the chain starts before conf[q] */
	for (int i = 0; i < m; i++)
		if (o->lead[conf[i]] == 1 && next(o) % 2)
			q = i + 1;
	int k = 0, left = nref;
	for (int i = 0; i < q; i++)
		out[k++] = conf[i];
	for (int i = q; i < m; i++) {
		int take = left > 1 && next(o) % 4 == 0 ? 2 : left > 0;
		if (i + 1 == m)
			take = left;
		for (int j = 0; j < take; j++, left--)
			out[k++] = ref;
		out[k++] = conf[i];
	}
	while (left-- > 0)
		out[k++] = ref;
}

/* The next permutation of p[0..n-1] in lexicographic order: false after
 * the last. */
static bool next_permutation(int *p, int n)
{
	int i = n - 2;
	while (i >= 0 && p[i] >= p[i + 1])
		i--;
	if (i < 0)
		return false;
	int j = n - 1;
	while (p[j] <= p[i])
		j--;
	int t = p[i];
	p[i] = p[j];
	p[j] = t;
	for (int a = i + 1, b = n - 1; a < b; a++, b--)
		t = p[a], p[a] = p[b], p[b] = t;
	return true;
}

int hmpt_order_round(hmpt_order_t *o, int *items, int n)
{
	int top = o->ref;
	for (int i = 0; i < n; i++)
		top = items[i] > top ? items[i] : top;
	shuffle(o, items, n);
	int m = n > 0 ? n : 1, *base = malloc(3 * (size_t)m * sizeof(int));
	if (!base || grow(o, top) != 0) {
		free(base);
		return -1;
	}
	int *cand = base + m, *perm = cand + m;
	memcpy(base, items, (size_t)n * sizeof(int));
	for (int i = 0; i < n; i++)
		perm[i] = i;
	/* a random one of the orders that keep every lead in {0, 1} (or
	 * break the fewest) and open with a run drawn at random (the leads
	 * alone let all-slow open more often than its share): reservoir
	 * sampling over every order of up to 6 runs, else over chains */
	int opener = n ? items[next(o) % (uint64_t)n] : -1;
	int best = 2 * judge(o, items, n, false) + (n && items[0] != opener), ties = 1;
	for (int s = 0; n <= 6 ? next_permutation(perm, n) : s < ORDER_SAMPLES; s++) {
		if (n <= 6)
			for (int i = 0; i < n; i++)
				cand[i] = base[perm[i]];
		else
			chain(o, base, n, cand);
		int bad = 2 * judge(o, cand, n, false) + (cand[0] != opener);
		if (bad < best)
			best = bad, ties = 0;
		if (bad == best && next(o) % (uint64_t)++ties == 0)
			memcpy(items, cand, (size_t)n * sizeof(int));
	}
	free(base);
	judge(o, items, n, true);
	return 0;
}
