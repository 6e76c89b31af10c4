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
	/* zero-page entries wait for their write, whatever the time: only a
	 * page counted for the block is marked, and once */
	const uintptr_t z = base + 64 * MiB;
	CHECK_OP(hmpt_touched_add(z, z + 8 * MiB, 5), ==, 8 * MiB);
	for (uintptr_t p = z; p < z + 8 * MiB; p += 4 * KiB)
		CHECK(hmpt_touched_wait(p, 5));
	CHECK(!hmpt_touched_wait(z, 6));             /* another block's */
	CHECK(!hmpt_touched_wait(z + 16 * MiB, 5));  /* never counted */
	CHECK(hmpt_touched_unwait(z + 4 * KiB, 5));  /* its write */
	CHECK(!hmpt_touched_unwait(z + 4 * KiB, 5)); /* once */
	CHECK(!hmpt_touched_unwait(z + 8 * KiB, 4)); /* not that block's */
	/* the block freed: the 2047 still waiting, counted not found */
	CHECK_OP(hmpt_touched_unwait_range(z, z + 8 * MiB, 5), ==, 2047);
	CHECK_OP(hmpt_touched_unwait_range(z, z + 8 * MiB, 5), ==, 0);
	/* mTHP: the page table is read only while a neighbour is not counted */
	CHECK(!hmpt_touched_missing(z, z + 64 * KiB, 5));
	CHECK(hmpt_touched_missing(z + 8 * MiB - 4 * KiB, z + 8 * MiB + 60 * KiB, 5));
	CHECK(hmpt_touched_missing(z, z + 64 * KiB, 6));
	/* resident pages that no fault counted (get_user_pages fills) */
	unsigned char res[1024] = {0};
	for (int i = 0; i < 1024; i += 2)
		res[i] = 1;
	CHECK_OP(hmpt_touched_unseen(z + 6 * MiB, res, 512, 5), ==, 0);
	CHECK_OP(hmpt_touched_unseen(z + 8 * MiB, res, 1024, 5), ==, (uint64_t)512 * 4 * KiB);
	CHECK_OP(hmpt_touched_unseen(z + 6 * MiB, res, 1024, 7), ==, (uint64_t)512 * 4 * KiB);
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
