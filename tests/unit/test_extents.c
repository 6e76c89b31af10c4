/* test_extents.c — the arena's free-extent list (shim/extents.c): first
 * fit with alignment, merging on give, a double free refused, take_at, and a
 * full table that refuses to split without losing anything. */
#include <errno.h>
#include <stdio.h>

#include "check.h"

#include "extents.h"

static void test_extents(void)
{
	hmpt_extent_t store[8];
	hmpt_extents_t e;

	hmpt_extents_init(&e, store, 8, 100);
	CHECK_OP(hmpt_extents_take(&e, 10, 1), ==, 0);
	CHECK_OP(hmpt_extents_take(&e, 5, 1), ==, 10);
	CHECK_OP(hmpt_extents_take(&e, 4, 8), ==, 16); /* aligned start */
	CHECK_OP(e.n, ==, 2);
	CHECK_OP(hmpt_extents_free_total(&e), ==, 81);
	CHECK_OP(hmpt_extents_give(&e, 10, 5), ==, 0); /* merges with the [15,16) gap */
	CHECK_OP(e.n, ==, 2);
	CHECK_OP(e.v[0].start, ==, 10);
	CHECK_OP(e.v[0].len, ==, 6);
	CHECK_OP(hmpt_extents_take(&e, 7, 1), ==, 20); /* hole too small: first fit after */
	CHECK_OP(hmpt_extents_take(&e, 6, 1), ==, 10); /* exact fit of the hole */
	CHECK_OP(hmpt_extents_give(&e, 0, 10), ==, 0);
	CHECK_OP(hmpt_extents_give(&e, 0, 1), ==, -EINVAL); /* already free */
	CHECK_OP(hmpt_extents_give(&e, 10, 6), ==, 0);      /* merges with [0,10) */
	CHECK_OP(e.v[0].start, ==, 0);
	CHECK_OP(e.v[0].len, ==, 16);
	CHECK_OP(hmpt_extents_take_at(&e, 16, 1), ==, -ENOMEM); /* in use */
	CHECK_OP(hmpt_extents_give(&e, 16, 4), ==, 0);
	CHECK_OP(hmpt_extents_give(&e, 20, 7), ==, 0); /* everything merges back */
	CHECK_OP(e.n, ==, 1);
	CHECK_OP(e.v[0].start, ==, 0);
	CHECK_OP(e.v[0].len, ==, 100);
	CHECK_OP(hmpt_extents_take_at(&e, 50, 10), ==, 0);
	CHECK_OP(hmpt_extents_take_at(&e, 55, 1), ==, -ENOMEM);
	CHECK_OP(hmpt_extents_take(&e, 60, 1), ==, -ENOMEM);
	CHECK_OP(hmpt_extents_take(&e, 50, 1), ==, 0);
	CHECK_OP(hmpt_extents_take(&e, 0, 1), ==, -EINVAL);
	CHECK_OP(hmpt_extents_take(&e, 1, 3), ==, -EINVAL); /* alignment not a power of two */
	CHECK_OP(hmpt_extents_free_total(&e), ==, 40);

	/* a full table refuses to split, and nothing is lost */
	hmpt_extent_t tiny[2];
	hmpt_extents_init(&e, tiny, 2, 10);
	CHECK_OP(hmpt_extents_take(&e, 10, 1), ==, 0);
	CHECK_OP(hmpt_extents_give(&e, 1, 1), ==, 0);
	CHECK_OP(hmpt_extents_give(&e, 5, 1), ==, 0);
	CHECK_OP(hmpt_extents_give(&e, 8, 1), ==, -ENOSPC);
	CHECK_OP(hmpt_extents_free_total(&e), ==, 2);
}

int main(void)
{
	test_extents();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
