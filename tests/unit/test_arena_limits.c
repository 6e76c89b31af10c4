/* test_arena_limits.c — an arena reserved whole at init that a limit set
 * later switches (arena.h, limits.c): its tables read-write only as far
 * as it has grown; hmpt_arena_keep_none() leaves no freed page kept, then
 * or after; hmpt_arena_reserve_as_needed() gives back the free end of the
 * range and the capacity beyond the limit, then grows as under a limit at
 * start, live blocks intact. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"

#include "arena.h"

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

/* VmData of this process in KiB */
static long vm_data_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmData:", 7) == 0)
			v = atol(line + 7);
	if (f)
		fclose(f);
	return v;
}

int main(void)
{
	hmpt_block_t b;
	long before = vm_data_kib();

	/* 4 TiB of capacity, all reserved now: its tables (about 150 MB for
	 * the whole) are not writable data until used */
	if (hmpt_arena_init(4096 * GIB, 4096 * GIB) != 0) {
		fprintf(stderr, "test_arena_limits: cannot set up the arena\n");
		return 1;
	}
	CHECK_OP(hmpt_arena_step(), ==, 0);
	CHECK_OP(vm_data_kib() - before, <, 1024);
	char *a = hmpt_arena_alloc(8 * MIB, 0, false, 1, 0);
	char *m = hmpt_arena_alloc(8 * MIB, 0, false, 1, 0);
	char *c = hmpt_arena_alloc(8 * MIB, 0, false, 1, 0);
	CHECK(a && m && c);
	if (!a || !m || !c)
		return 1;
	memset(a, 1, 8 * MIB);
	memset(m, 2, 8 * MIB);
	memset(c, 3, 8 * MIB);
	CHECK_OP(vm_data_kib() - before, <, 24 * 1024 + 1024);
	/* a pointer past what the tables cover is no block */
	CHECK_OP(hmpt_arena_lookup((char *)hmpt_arena_base_g + 1024 * GIB, &b), ==, -EINVAL);

	/* RLIMIT_DATA: the kept block's pages go, and no later one is kept */
	CHECK_OP(hmpt_arena_free(m, &b), ==, 0);
	CHECK_OP(hmpt_arena_kept_bytes(), ==, 8 * MIB);
	CHECK_OP(hmpt_arena_keep_none(), >=, 8 * MIB);
	CHECK_OP(hmpt_arena_kept_bytes(), ==, 0);
	unsigned char v;
	CHECK_OP(mincore(m, 4096, &v), ==, 0);
	CHECK_OP(v & 1, ==, 0);
	CHECK_OP(hmpt_arena_free(a, &b), ==, 0);
	CHECK_OP(hmpt_arena_kept_bytes(), ==, 0);

	/* RLIMIT_AS of 256 MiB: the range ends at the last live block, the
	 * capacity is the limit, and it grows by an eighth of it at most */
	CHECK_OP(hmpt_arena_reserve_as_needed(256 * MIB), >=, 4000 * GIB);
	CHECK_OP(hmpt_arena_size_g, ==, (uintptr_t)(c + 8 * MIB) - hmpt_arena_base_g);
	CHECK_OP(hmpt_arena_capacity(), ==, 256 * MIB);
	CHECK_OP(hmpt_arena_step(), ==, 32 * MIB);
	CHECK_OP(mincore(c + 8 * MIB, 4096, &v), ==, -1);
	CHECK_OP(errno, ==, ENOMEM);
	char *d = hmpt_arena_alloc(40 * MIB, 0, true, 1, 0);
	CHECK_OP(d, !=, NULL);
	if (d) {
		CHECK(hmpt_arena_owns(d + 40 * MIB - 1));
		CHECK_OP(d[40 * MIB - 1], ==, 0);
		CHECK_OP(hmpt_arena_free(d, &b), ==, 0);
	}
	CHECK_OP(c[0], ==, 3);
	CHECK_OP(c[8 * MIB - 1], ==, 3);
	/* beyond the capacity: refused */
	CHECK_OP(hmpt_arena_alloc(300 * MIB, 0, false, 1, 0), ==, NULL);
	CHECK_OP(hmpt_arena_free(c, &b), ==, 0);
	if (failures)
		fprintf(stderr, "test_arena_limits: %d failures\n", failures);
	return failures != 0;
}
