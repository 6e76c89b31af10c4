/* extents.h — free ranges of the arena, in granules.
 *
 * Contract: a sorted array of disjoint, non-adjacent free extents over
 * caller-provided storage (`cap` entries); the caller locks.  Pure logic, no
 * system calls: unit-tested directly.  Returns 0 / start on success and
 * -ENOMEM (no room in the arena), -ENOSPC (no room in the table) or -EINVAL
 * (the range is not wholly free / overlaps a free range).
 */
#ifndef HMPT_EXTENTS_H
#define HMPT_EXTENTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint64_t start;
	uint64_t len;
} hmpt_extent_t;

typedef struct {
	hmpt_extent_t *v;
	size_t n;
	size_t cap;
} hmpt_extents_t;

/* The whole range [0, total) free. */
void hmpt_extents_init(hmpt_extents_t *e, hmpt_extent_t *storage, size_t cap, uint64_t total);
/* First fit of `len` granules starting at a multiple of `align` (a power of
 * two); returns the start or a negative error. */
int64_t hmpt_extents_take(hmpt_extents_t *e, uint64_t len, uint64_t align);
/* Take exactly [start, start+len) if it is wholly free. */
int hmpt_extents_take_at(hmpt_extents_t *e, uint64_t start, uint64_t len);
/* Return [start, start+len) to the free set, merging with neighbours. */
int hmpt_extents_give(hmpt_extents_t *e, uint64_t start, uint64_t len);
/* Free granules in total (for reports and tests). */
uint64_t hmpt_extents_free_total(const hmpt_extents_t *e);

#endif
