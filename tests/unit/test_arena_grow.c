/* test_arena_grow.c — an arena that reserves its address space as blocks
 * need it (arena.h, as under an address-space limit): where it goes
 * (hmpt_arena_pick_hole on /proc/self/maps texts), nothing reserved at
 * start, growth by a quarter of what it holds (within bounds) or by what
 * a block needs, every block owned, the free end given back,
 * ENOMEM at capacity, and a stop when something else holds the next
 * addresses. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"

#include "arena.h"

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

static void test_pick_hole(void)
{
	/* gaps: [4G, 0x555500000000) below the program, 0x555500010000 to
	 * 0x7f0000000000 between the heap and the libraries; nothing after
	 * [stack] counts (vsyscall lies far above) */
	const char *maps = "555500000000-555500010000 r-xp 00000000 08:01 1 /bin/prog\n"
	                   "7f0000000000-7f0000100000 r-xp 00000000 08:01 2 /lib/libc.so.6\n"
	                   "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n"
	                   "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n";
	uint64_t lo = 4 * GIB, hi = 0x555500000000ull;
	uintptr_t at = hmpt_arena_pick_hole(maps, 64 * GIB, GIB, lo);

	CHECK_OP(at, !=, 0);
	CHECK_OP(at % GIB, ==, 0);
	CHECK_OP(at, >=, lo);
	CHECK_OP(at + 64 * GIB, <=, hi);
	/* in the middle: as far from either end as alignment allows */
	CHECK_OP(at - lo + GIB, >=, hi - (at + 64 * GIB));
	/* the floor counts: with it above the first gap, the second is larger */
	at = hmpt_arena_pick_hole(maps, GIB, GIB, 0x500000000000ull);
	CHECK_OP(at, >, 0x555500010000ull);
	CHECK_OP(at + GIB, <=, 0x7f0000000000ull);
	/* too large for any gap below the stack */
	CHECK_OP(hmpt_arena_pick_hole(maps, 100 * 1024 * GIB, GIB, lo), ==, 0);
	/* a line cut short ends the reading: what it named is unknown */
	CHECK_OP(hmpt_arena_pick_hole("555500000000-5555", GIB, GIB, lo), ==, 0);
	CHECK_OP(hmpt_arena_pick_hole("", GIB, GIB, lo), ==, 0);
}

int main(void)
{
	hmpt_block_t b;
	static char *p[200];
	/* the reservation grows by a quarter of what it holds, 8 granules at
	 * least and step_g (16) at most, or by what a block needs: after the
	 * first block, the 20 MiB one, then 2 MiB blocks to capacity */
	static const uint64_t sizes[] = {8, 16, 24, 32, 40, 50, 62, 77, 93, 109, 125, 128};
	uint64_t seen[16];
	unsigned nseen = 0;

	test_pick_hole();
	/* 256 MiB of capacity, reserved at most 32 MiB (16 granules) at a time */
	if (hmpt_arena_init(256 * MIB, 32 * MIB) != 0) {
		fprintf(stderr, "test_arena_grow: cannot set up the arena\n");
		return 1;
	}
	CHECK_OP(hmpt_arena_capacity(), ==, 256 * MIB);
	CHECK_OP(hmpt_arena_step(), ==, 32 * MIB);
	CHECK_OP(hmpt_arena_size_g, ==, 0); /* nothing reserved before a block */
	CHECK_OP(hmpt_arena_base_g % HMPT_ARENA_MAX_ALIGN, ==, 0);
	CHECK_OP(hmpt_arena_free_bytes(), ==, 256 * MIB);
	p[0] = hmpt_arena_alloc(3 * MIB, 0, false, 1, 0);
	CHECK_OP(p[0], ==, (char *)hmpt_arena_base_g);
	seen[nseen++] = hmpt_arena_size_g / HMPT_GRANULE;
	/* larger than the free rest of the reservation (6 granules): it grows
	 * by what the block needs beyond them (4), or 8 granules at least, and
	 * the block starts right after the first */
	p[1] = hmpt_arena_alloc(20 * MIB, 0, true, 1, 0);
	CHECK_OP(p[1], ==, p[0] + 4 * MIB);
	seen[nseen++] = hmpt_arena_size_g / HMPT_GRANULE;
	int n = 2;
	for (; n < 200; n++) {
		p[n] = hmpt_arena_alloc(2 * MIB, 0, false, 1, 0);
		if (!p[n])
			break;
		CHECK(hmpt_arena_owns(p[n]));
		p[n][0] = p[n][2 * MIB - 1] = (char)n;
		if (hmpt_arena_size_g / HMPT_GRANULE != seen[nseen - 1] && nseen < 16)
			seen[nseen++] = hmpt_arena_size_g / HMPT_GRANULE;
	}
	CHECK_OP(n, ==, 2 + (128 - 12)); /* every granule of the capacity */
	CHECK_OP(errno, ==, ENOMEM);
	CHECK_OP(nseen, ==, sizeof(sizes) / sizeof(sizes[0]));
	for (unsigned i = 0; i < nseen && i < sizeof(sizes) / sizeof(sizes[0]); i++)
		CHECK_OP(seen[i], ==, sizes[i]);
	CHECK_OP(p[1][20 * MIB - 1], ==, 0);
	for (int i = 2; i < n; i++)
		CHECK_OP(p[i][2 * MIB - 1], ==, (char)i);
	for (int i = n - 1; i >= 0; i--)
		CHECK_OP(hmpt_arena_free(p[i], &b), ==, 0);
	CHECK_OP(hmpt_arena_free_bytes(), ==, 256 * MIB);
	/* all free: the reservation shrank to its 16 MiB of slack, and what
	 * lay beyond is no longer mapped (address space back to the limit) */
	CHECK_OP(hmpt_arena_size_g, ==, 16 * MIB);
	unsigned char v;
	CHECK_OP(mincore((void *)(hmpt_arena_base_g + 16 * MIB), 4096, &v), ==, -1);
	CHECK_OP(errno, ==, ENOMEM);
	/* and it grows again */
	p[0] = hmpt_arena_alloc(40 * MIB, 0, true, 1, 0);
	CHECK_OP(p[0], ==, (char *)hmpt_arena_base_g);
	CHECK_OP(hmpt_arena_size_g, ==, 40 * MIB);
	if (p[0]) {
		CHECK_OP(p[0][40 * MIB - 1], ==, 0);
		CHECK_OP(hmpt_arena_free(p[0], &b), ==, 0);
	}
	CHECK_OP(hmpt_arena_size_g, ==, 16 * MIB);
	if (failures)
		fprintf(stderr, "test_arena_grow: %d failures\n", failures);
	return failures != 0;
}
