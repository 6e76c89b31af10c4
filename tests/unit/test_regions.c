/* test_regions.c — the attribution core's entry for region-based sources
 * (hmpt_sample_add_region, sample.h), driven by a synthetic source: ranges
 * with counts over tracked blocks whose sites and sizes the test chose,
 * each expected count worked out from the bytes of each block in range. */
#include <stdint.h>
#include <unistd.h>

#include "arena.h"
#include "check.h"
#include "sample.h"

#define MIB (1024u * 1024u)

static uint64_t samples_of(uint32_t site)
{
	const hmpt_sample_site_t *s = hmpt_sample_site(site);
	return s ? s->samples : 0;
}

int main(void)
{
	if (hmpt_arena_init(64 * MIB, 64 * MIB) != 0) {
		fprintf(stderr, "cannot reserve a 64 MiB arena\n");
		return 1;
	}
	/* sites 1, 2, 3: 1, 2 and 1 MiB */
	char *a = hmpt_arena_alloc(MIB, 0, false, 1, 0);
	char *b = hmpt_arena_alloc(2 * MIB, 0, false, 2, 0);
	char *c = hmpt_arena_alloc(MIB, 0, false, 3, 0);
	CHECK(a && b && c);
	if (!a || !b || !c)
		return 1;

	/* the whole of b: all to site 2 */
	hmpt_sample_add_region((uintptr_t)b, (uintptr_t)b + 2 * MIB, 1000);
	CHECK_OP(samples_of(2), ==, 1000);
	CHECK_OP(samples_of(1), ==, 0);

	/* the second half of a and the first quarter of b: 2 : 1 by bytes */
	hmpt_sample_add_region((uintptr_t)a + MIB / 2, (uintptr_t)a + MIB / 2 + MIB, 0);
	uintptr_t lo = (uintptr_t)a + MIB / 2, hi = (uintptr_t)b + MIB / 2;
	hmpt_sample_add_region(lo, hi, 300);
	uint64_t in_a = 300 * (uint64_t)((uintptr_t)a + MIB - lo) / (hi - lo);
	uint64_t in_b = 300 * (uint64_t)(hi - (uintptr_t)b) / (hi - lo);
	CHECK_OP(samples_of(1), ==, in_a);
	CHECK_OP(samples_of(2), ==, 1000 + in_b);

	/* a range past the last block: the part outside counts untracked */
	uint64_t before = hmpt_sample_totals()->untracked;
	hmpt_sample_add_region((uintptr_t)c, (uintptr_t)c + 4 * MIB, 400);
	CHECK_OP(samples_of(3), ==, 100);
	CHECK_OP(hmpt_sample_totals()->untracked - before, ==, 300);
	CHECK_OP(hmpt_sample_totals()->attributed, ==, 1000 + in_a + in_b + 100);

	/* nothing tracked there at all */
	hmpt_sample_add_region(4096, 8192, 50);
	CHECK_OP(hmpt_sample_totals()->untracked - before, ==, 350);

	if (failures)
		fprintf(stderr, "test_regions: %d failures\n", failures);
	return failures ? 1 : 0;
}
