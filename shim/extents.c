/* extents.c — see extents.h. */
#include "extents.h"

#include <errno.h>
#include <string.h>

void hmpt_extents_init(hmpt_extents_t *e, hmpt_extent_t *storage, size_t cap, uint64_t total)
{
	e->v = storage;
	e->cap = cap;
	e->n = 0;
	if (total && cap) {
		e->v[0].start = 0;
		e->v[0].len = total;
		e->n = 1;
	}
}

static void remove_at(hmpt_extents_t *e, size_t i)
{
	memmove(&e->v[i], &e->v[i + 1], (e->n - i - 1) * sizeof(e->v[0]));
	e->n--;
}

static int insert_at(hmpt_extents_t *e, size_t i, uint64_t start, uint64_t len)
{
	if (e->n == e->cap)
		return -ENOSPC;
	memmove(&e->v[i + 1], &e->v[i], (e->n - i) * sizeof(e->v[0]));
	e->v[i].start = start;
	e->v[i].len = len;
	e->n++;
	return 0;
}

/* Carve [start, start+len) out of free extent i, which contains it. */
static int carve(hmpt_extents_t *e, size_t i, uint64_t start, uint64_t len)
{
	hmpt_extent_t x = e->v[i];
	uint64_t head = start - x.start;
	uint64_t tail = x.start + x.len - (start + len);

	if (head && tail) {
		int rc = insert_at(e, i + 1, start + len, tail);
		if (rc)
			return rc;
		e->v[i].len = head;
	} else if (head) {
		e->v[i].len = head;
	} else if (tail) {
		e->v[i].start = start + len;
		e->v[i].len = tail;
	} else {
		remove_at(e, i);
	}
	return 0;
}

int64_t hmpt_extents_take(hmpt_extents_t *e, uint64_t len, uint64_t align)
{
	if (len == 0 || align == 0 || (align & (align - 1)))
		return -EINVAL;
	for (size_t i = 0; i < e->n; i++) {
		uint64_t s = (e->v[i].start + align - 1) & ~(align - 1);
		uint64_t end = e->v[i].start + e->v[i].len;
		if (s < e->v[i].start || s > end || end - s < len)
			continue;
		int rc = carve(e, i, s, len);
		return rc ? rc : (int64_t)s;
	}
	return -ENOMEM;
}

/* index of the first extent whose end is beyond `start` */
static size_t find(const hmpt_extents_t *e, uint64_t start)
{
	size_t lo = 0, hi = e->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->v[mid].start + e->v[mid].len <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int hmpt_extents_take_at(hmpt_extents_t *e, uint64_t start, uint64_t len)
{
	size_t i = find(e, start);

	if (len == 0 || i == e->n || e->v[i].start > start ||
	    e->v[i].start + e->v[i].len < start + len)
		return -ENOMEM;
	return carve(e, i, start, len);
}

int hmpt_extents_give(hmpt_extents_t *e, uint64_t start, uint64_t len)
{
	size_t i = find(e, start);
	int merge_prev = i > 0 && e->v[i - 1].start + e->v[i - 1].len == start;
	int merge_next = i < e->n && e->v[i].start == start + len;

	if (len == 0)
		return -EINVAL;
	/* overlap with the extent at i (which ends beyond start)? */
	if (i < e->n && e->v[i].start < start + len)
		return -EINVAL;
	if (merge_prev && merge_next) {
		e->v[i - 1].len += len + e->v[i].len;
		remove_at(e, i);
	} else if (merge_prev) {
		e->v[i - 1].len += len;
	} else if (merge_next) {
		e->v[i].start = start;
		e->v[i].len += len;
	} else {
		return insert_at(e, i, start, len);
	}
	return 0;
}

uint64_t hmpt_extents_free_total(const hmpt_extents_t *e)
{
	uint64_t t = 0;

	for (size_t i = 0; i < e->n; i++)
		t += e->v[i].len;
	return t;
}
