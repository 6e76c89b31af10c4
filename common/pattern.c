/* pattern.c — see pattern.h. */
#include "pattern.h"

#include <string.h>

/* Thresholds: the share of steps a class needs.  First-touch steps are
 * exact (a page after a page), so most of them must agree; sampled steps
 * only keep their sign, and a walk one way keeps it through other loads in
 * between. */
#define FAULT_SEQ      0.6
#define FAULT_STRIDE   0.5
#define SAMPLE_ONE_WAY 0.8
#define SAMPLE_STRIDE  0.3
#define STRIDE_MIN     128 /* bytes: a divisor below two lines is a dense walk */
#define POINTER_SHARE  0.5
#define WORDS_FIRST    64
#define WORDS_EVERY    16

static const char *const names_g[HMPT_PATTERN_KINDS] = {"unknown", "sequential", "strided",
                                                        "random", "pointer-chasing"};

const char *hmpt_pattern_name(hmpt_pattern_kind_t k)
{
	return k < HMPT_PATTERN_KINDS ? names_g[k] : names_g[0];
}

hmpt_pattern_kind_t hmpt_pattern_parse(const char *name)
{
	for (int k = 0; name && k < HMPT_PATTERN_KINDS; k++)
		if (!strcmp(name, names_g[k]))
			return (hmpt_pattern_kind_t)k;
	return HMPT_PATTERN_UNKNOWN;
}

/* Misra-Gries: a value's count is at most its true count and at least that
 * less steps / (k + 1), so noise never builds a stride out of nothing */
void hmpt_pattern_top_add(hmpt_pattern_top_t *t, int64_t v, uint64_t n)
{
	int empty = -1;

	for (int i = 0; i < HMPT_PATTERN_CANDS; i++) {
		if (t->n[i] && t->v[i] == v) {
			t->n[i] += n;
			return;
		}
		if (!t->n[i] && empty < 0)
			empty = i;
	}
	if (empty >= 0) {
		t->v[empty] = v;
		t->n[empty] = n;
		return;
	}
	uint64_t least = n;
	for (int i = 0; i < HMPT_PATTERN_CANDS; i++)
		least = t->n[i] < least ? t->n[i] : least;
	for (int i = 0; i < HMPT_PATTERN_CANDS; i++)
		t->n[i] -= least;
	if (n > least)
		hmpt_pattern_top_add(t, v, n - least);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* the stream of (tid, born), or the least recently fed one, emptied */
static hmpt_pattern_stream_t *stream_of(hmpt_pattern_t *p, uint64_t tid, uint64_t born)
{
	hmpt_pattern_stream_t *old = &p->s[0];

	for (int i = 0; i < HMPT_PATTERN_STREAMS; i++) {
		hmpt_pattern_stream_t *s = &p->s[i];
		if (s->used && s->tid == tid && s->born == born)
			return s;
		if (s->used < old->used)
			old = s;
	}
	*old = (hmpt_pattern_stream_t){.tid = tid, .born = born};
	return old;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static void count_sign(hmpt_pattern_t *p, int64_t d)
{
	p->steps++;
	if (d > 0)
		p->forward++;
	else
		p->backward++;
}

static void step_fault(hmpt_pattern_t *p, hmpt_pattern_cursor_t *c, uint64_t addr, uint64_t size)
{
	/* page sizes are powers of two: the start of the page each fault mapped */
	uint64_t from = c->last & ~(c->size - 1), to = addr & ~(size - 1);
	int64_t d = (int64_t)(to - from);

	if (d == 0)
		return;
	count_sign(p, d);
	if (d == (int64_t)c->size || d == -(int64_t)size)
		p->adjacent++;
	else
		hmpt_pattern_top_add(&p->cand, d, 1);
}

static void step_sample(hmpt_pattern_t *p, hmpt_pattern_cursor_t *c, uint64_t addr)
{
	int64_t d = (int64_t)(addr - c->last);
	uint64_t a = distance(addr, c->last);

	if (d == 0)
		return;
	count_sign(p, d);
	if (c->step)
		hmpt_pattern_top_add(&p->cand, (int64_t)gcd(a, c->step), 1);
	c->step = a;
}

void hmpt_pattern_note(hmpt_pattern_t *p, uint64_t tid, uint64_t born, uint64_t span, uint64_t addr,
                       uint64_t size)
{
	if (!addr)
		return;
	if (p->faults && (!size || (size & (size - 1))))
		size = 4096; /* not a page size: steps by base pages */
	hmpt_pattern_stream_t *s = stream_of(p, tid, born);
	s->used = ++p->fed;
	int near = 0;
	for (int i = 1; i < s->ncur; i++)
		if (distance(addr, s->c[i].last) < distance(addr, s->c[near].last))
			near = i;
	if (!s->ncur || (s->ncur < HMPT_PATTERN_CURSORS && span &&
	                 distance(addr, s->c[near].last) > span / 8)) {
		s->c[s->ncur++] = (hmpt_pattern_cursor_t){.last = addr, .size = size};
		return;
	}
	hmpt_pattern_cursor_t *c = &s->c[near];
	if (p->faults)
		step_fault(p, c, addr, size);
	else
		step_sample(p, c, addr);
	c->last = addr;
	c->size = size;
}

void hmpt_pattern_note_word(hmpt_pattern_t *p, bool pointer)
{
	p->checked++;
	p->pointers += pointer;
}

bool hmpt_pattern_wants_word(const hmpt_pattern_t *p)
{
	return p->checked < WORDS_FIRST || p->fed % WORDS_EVERY == 0;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

static void set_class(hmpt_pattern_class_t *out, hmpt_pattern_kind_t kind, uint64_t stride,
                      double confidence)
{
	out->kind = kind;
	out->stride = stride;
	out->confidence = confidence;
}

void hmpt_pattern_classify(const hmpt_pattern_t *p, hmpt_pattern_class_t *out)
{
	int top = 0;
	double irregular; /* the confidence that the walk is irregular */

	*out = (hmpt_pattern_class_t){.kind = HMPT_PATTERN_UNKNOWN, .steps = p->steps};
	if (p->steps < HMPT_PATTERN_MIN)
		return;
	for (int i = 1; i < HMPT_PATTERN_CANDS; i++)
		if (p->cand.n[i] > p->cand.n[top])
			top = i;
	double most = share(p->cand.n[top], p->steps);
	uint64_t value = p->cand.v[top] < 0 ? -(uint64_t)p->cand.v[top] : (uint64_t)p->cand.v[top];
	double ptr = p->checked >= HMPT_PATTERN_MIN ? share(p->pointers, p->checked) : 0;

	if (p->faults) {
		double seq = share(p->adjacent, p->steps);
		if (seq >= FAULT_SEQ) {
			set_class(out, HMPT_PATTERN_SEQUENTIAL, 0, seq);
			return;
		}
		if (most >= FAULT_STRIDE) {
			set_class(out, HMPT_PATTERN_STRIDED, value, most);
			return;
		}
		irregular = 1 - (seq > most ? seq : most);
	} else {
		double one_way = share(p->forward > p->backward ? p->forward : p->backward,
		                       p->forward + p->backward);
		if (one_way >= SAMPLE_ONE_WAY) {
			bool strided = value >= STRIDE_MIN && most >= SAMPLE_STRIDE;
			set_class(out, strided ? HMPT_PATTERN_STRIDED : HMPT_PATTERN_SEQUENTIAL,
			          strided ? value : 0, one_way);
			return;
		}
		/* a random walk goes either way as often: 1; one way 80 %: 0.4 */
		irregular = 2 * (1 - one_way);
	}
	if (ptr >= POINTER_SHARE)
		set_class(out, HMPT_PATTERN_POINTER, 0, ptr);
	else
		set_class(out, HMPT_PATTERN_RANDOM, 0, irregular);
}
