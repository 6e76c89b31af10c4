/* arena_shaper.h — the arena tests' shaper: tag 7's shaping fails on
 * request (an mbind refused), no tag is hugetlb.  Included once per test. */
#ifndef HMPT_TEST_ARENA_SHAPER_H
#define HMPT_TEST_ARENA_SHAPER_H

#include <errno.h>
#include <stdbool.h>

#include "arena.h"

static int shape_fails_g;

static int test_shape(void *addr, size_t len, uint16_t tag)
{
	(void)addr;
	(void)len;
	return tag == 7 && shape_fails_g ? -ENOMEM : 0;
}

static bool test_hugetlb(uint16_t tag)
{
	(void)tag;
	return false;
}

static const hmpt_arena_shaper_t test_shaper = {test_shape, test_hugetlb};

#endif
