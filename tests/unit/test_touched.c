/* test_touched.c — page-fault mode counts each base page once per block. */
#include "check.h"
#include "touched.h"

#define KiB 1024u
#define MiB (1024u * KiB)

int main(void)
{
	const uintptr_t base = (uintptr_t)0x7f0000000000ull;

	CHECK(hmpt_touched_init(4096));
	/* a read fault maps the zero page, the write faults again: once */
	CHECK_OP(hmpt_touched_add(base, base + 4 * KiB, 1), ==, 4 * KiB);
	CHECK_OP(hmpt_touched_add(base, base + 4 * KiB, 1), ==, 0);
	/* a huge page over it: the 511 pages not counted yet */
	CHECK_OP(hmpt_touched_add(base, base + 2 * MiB, 1), ==, 2 * MiB - 4 * KiB);
	CHECK_OP(hmpt_touched_add(base + 8 * KiB, base + 12 * KiB, 1), ==, 0);
	/* the range freed and taken by a block born later: counted again */
	CHECK_OP(hmpt_touched_add(base + 8 * KiB, base + 12 * KiB, 2), ==, 4 * KiB);
	/* a range across granules, partly counted (1 GiB hugetlb pages span 512) */
	CHECK_OP(hmpt_touched_add(base + 2 * MiB, base + 2 * MiB + 4 * KiB, 3), ==, 4 * KiB);
	CHECK_OP(hmpt_touched_add(base + 2 * MiB, base + 6 * MiB, 3), ==, 4 * MiB - 4 * KiB);
	/* a fork child starts afresh */
	hmpt_touched_reset();
	CHECK_OP(hmpt_touched_add(base, base + 4 * KiB, 1), ==, 4 * KiB);
	/* more granules than the table holds: the rest count unchecked, none lost */
	uint64_t sum = 0;
	for (uint64_t g = 0; g < (1u << 17); g++)
		sum += hmpt_touched_add(base + (g << 21), base + (g << 21) + 4 * KiB, 9);
	CHECK_OP(sum, ==, (uint64_t)(1u << 17) * 4 * KiB);
	if (failures)
		fprintf(stderr, "test_touched: %d failures\n", failures);
	return failures != 0;
}
