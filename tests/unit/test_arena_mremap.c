/* test_arena_mremap.c — realloc's move (arena.c) when mremap fails as
 * kernels 5.7 to 6.16 fail it for a block in two mappings: the destination
 * unmapped, then EFAULT.  This file's mremap stands in for the kernel's
 * (arena.o calls it by name).  The block moves onto kept pages of a freed
 * block all the same, every byte intact, the kept bytes counted right; and
 * when the range it moves to cannot be mapped either, realloc fails,
 * changing nothing, and no page it took over reads as zero when it is not. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#include "arena.h"
#include "arena_shaper.h"

#define MIB   ((size_t)1 << 20)
#define ARENA (64 * MIB)

static int old_kernel_g; /* mremap(MREMAP_FIXED): unmap the destination, fail */
static int calls_g;
static uint64_t base_g; /* kept bytes elsewhere in the arena */

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *to = NULL;

	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		to = va_arg(ap, void *);
		va_end(ap);
		calls_g++;
		if (old_kernel_g) {
			munmap(to, new_len);
			errno = EFAULT;
			return MAP_FAILED;
		}
	}
	long r = syscall(SYS_mremap, old, old_len, new_len, flags, to);
	return r == -1 ? MAP_FAILED : (void *)r;
}

static void fill(char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n / 8; i++)
		((uint64_t *)p)[i] = ((uint64_t)seed << 56) ^ i;
}

static bool filled(const char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n / 8; i++)
		if (((const uint64_t *)p)[i] != (((uint64_t)seed << 56) ^ i))
			return false;
	return true;
}

static bool all_zero(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* p and a block right after it (so that p cannot grow in place), then a
 * block of `kept` bytes after those, written and freed: its pages kept,
 * where p's move lands (first fit). */
static char *setup(uint16_t tag, size_t kept, char **next)
{
	hmpt_block_t b;
	char *p = hmpt_arena_alloc(2 * MIB, 0, false, 1, tag);
	*next = hmpt_arena_alloc(2 * MIB, 0, false, 1, tag);
	char *d = hmpt_arena_alloc(kept, 0, false, 1, tag);

	CHECK(p && *next && d);
	if (!p || !*next || !d)
		return NULL;
	CHECK_OP(*next, ==, p + 2 * MIB);
	CHECK_OP(d, ==, p + 4 * MIB);
	fill(p, 2 * MIB, 1);
	memset(d, 0x5a, kept);
	base_g = hmpt_arena_kept_bytes();
	CHECK_OP(hmpt_arena_free(d, &b), ==, 0);
	CHECK_OP(hmpt_arena_kept_bytes(), ==, base_g + kept);
	return p;
}

/* The move fails after unmapping its destination: copied there instead. */
static void test_moved_after_efault(void)
{
	hmpt_block_t b, old;
	char *next, *p = setup(0, 8 * MIB, &next);

	if (!p)
		return;
	old_kernel_g = 1;
	calls_g = 0;
	char *q = hmpt_arena_realloc(p, 6 * MIB, 1, &old);
	old_kernel_g = 0;
	CHECK_OP(calls_g, ==, 1);
	CHECK_OP(q, ==, p + 4 * MIB); /* on the kept pages */
	if (!q)
		return;
	CHECK(filled(q, 2 * MIB, 1));
	memset(q + 2 * MIB, 3, 4 * MIB); /* mapped read-write, or this test dies */
	/* kept: p's old granule and the last of the freed block's four */
	CHECK_OP(hmpt_arena_kept_bytes(), ==, base_g + 4 * MIB);
	CHECK_OP(hmpt_arena_free(q, &b), ==, 0);
	CHECK_OP(hmpt_arena_free(next, &b), ==, 0);
	char *z = hmpt_arena_alloc(16 * MIB, 0, true, 1, 0);
	CHECK_OP(z, ==, p);
	if (z) {
		CHECK(all_zero(z, 16 * MIB));
		CHECK_OP(hmpt_arena_free(z, &b), ==, 0);
	}
}

/* The move fails after unmapping its destination, and the destination
 * cannot be mapped again (shaping refused): realloc fails, the block is as
 * it was, and a zeroed block over the range reads zeros. */
static void test_refused_after_efault(void)
{
	hmpt_block_t b, old;
	char *next, *p = setup(7, 8 * MIB, &next);

	if (!p)
		return;
	old_kernel_g = 1;
	shape_fails_g = 1;
	errno = 0;
	CHECK_OP(hmpt_arena_realloc(p, 6 * MIB, 1, &old), ==, NULL);
	CHECK_OP(errno, ==, ENOMEM);
	old_kernel_g = 0;
	shape_fails_g = 0;
	CHECK(filled(p, 2 * MIB, 1));
	CHECK_OP(hmpt_arena_lookup(p, &b), ==, 0);
	CHECK_OP(b.size, ==, 2 * MIB);
	/* kept: the tail's two granules (what it took over, kept again) and
	 * the freed block's last; not the granule unmapped */
	CHECK_OP(hmpt_arena_kept_bytes(), ==, base_g + 6 * MIB);
	CHECK_OP(hmpt_arena_free(p, &b), ==, 0);
	CHECK_OP(hmpt_arena_free(next, &b), ==, 0);
	char *z = hmpt_arena_alloc(16 * MIB, 0, true, 1, 7);
	CHECK_OP(z, ==, p);
	if (z) {
		CHECK(all_zero(z, 16 * MIB));
		CHECK_OP(hmpt_arena_free(z, &b), ==, 0);
	}
}

int main(void)
{
	if (hmpt_arena_init(ARENA, ARENA) != 0) {
		fprintf(stderr, "cannot reserve a %zu MiB arena\n", ARENA / MIB);
		return 1;
	}
	hmpt_arena_set_shaper(&test_shaper);
	test_moved_after_efault();
	test_refused_after_efault();
	if (failures)
		fprintf(stderr, "test_arena_mremap: %d failures\n", failures);
	return failures != 0;
}
