/* test_arena.c — the arena (arena.h): blocks on granules, lookup and find,
 * realloc in place and moved with contents kept, kept pages reused but
 * zeroed for calloc, ENOMEM when full, alignment, the oldest kept pages
 * dropped beyond the budget, a refused realloc that changes nothing, what
 * the program did to a block's mapping gone when it is freed. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#include "arena.h"
#include "arena_shaper.h"

#define MIB   ((size_t)1 << 20)
#define ARENA (64 * MIB) /* 32 granules: small enough to fill */

static size_t page_g;

static void fill(void *p, size_t n, unsigned char seed)
{
	for (size_t i = 0; i < n; i += 4096)
		((unsigned char *)p)[i] = (unsigned char)(seed + i / 4096);
	((unsigned char *)p)[n - 1] = seed;
}

/* the first `n` bytes of what fill(p, whole, seed) wrote are there */
static bool kept(const void *p, size_t n, size_t whole, unsigned char seed)
{
	for (size_t i = 0; i < n; i += 4096)
		if (((const unsigned char *)p)[i] != (unsigned char)(seed + i / 4096))
			return false;
	return n < whole || ((const unsigned char *)p)[n - 1] == seed;
}

static bool filled(const void *p, size_t n, unsigned char seed)
{
	return kept(p, n, n, seed);
}

static bool all_zero(const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)p)[i])
			return false;
	return true;
}

static void test_alloc_lookup_find(void)
{
	hmpt_block_t b;
	uintptr_t start;
	size_t size = 3 * MIB + 5;
	char *p = hmpt_arena_alloc(size, 0, false, 7, 0);

	CHECK_OP(p, !=, NULL);
	if (!p)
		return;
	CHECK(hmpt_arena_owns(p));
	CHECK_OP(((uintptr_t)p & (HMPT_GRANULE - 1)), ==, 0);
	CHECK_OP(hmpt_arena_lookup(p, &b), ==, 0);
	CHECK_OP(b.size, ==, size);
	CHECK_OP(b.mapped, ==, ((size + page_g - 1) & ~(page_g - 1)));
	CHECK_OP(b.ngran, ==, 2);
	CHECK_OP(b.site, ==, 7);
	CHECK_OP(b.tag, ==, 0);
	CHECK_OP(hmpt_arena_lookup(p + 4096, &b), ==, -EINVAL); /* not a block's start */
	CHECK_OP(hmpt_arena_find(p + 2 * MIB + 17, &start, &b), ==, 0);
	CHECK_OP(start, ==, (uintptr_t)p);
	CHECK_OP(b.size, ==, size);
	fill(p, size, 3);
	CHECK(filled(p, size, 3));
	CHECK_OP(hmpt_arena_free(p, &b), ==, 0);
	CHECK_OP(b.size, ==, size);
	CHECK_OP(b.site, ==, 7);
	CHECK_OP(hmpt_arena_lookup(p, &b), ==, -EINVAL);
	CHECK_OP(hmpt_arena_find(p + 17, &start, &b), ==, -ENOENT);
	CHECK_OP(hmpt_arena_free(p, &b), ==, -EINVAL); /* double free */
}

static void test_realloc(void)
{
	hmpt_block_t old, b;
	char *p = hmpt_arena_alloc(MIB, 0, false, 1, 0);

	CHECK_OP(p, !=, NULL);
	if (!p)
		return;
	fill(p, MIB, 11);
	/* the next granules are free: grows in place */
	char *q = hmpt_arena_realloc(p, 5 * MIB, 2, &old);
	CHECK_OP(q, ==, p);
	CHECK_OP(old.size, ==, MIB);
	CHECK_OP(old.site, ==, 1);
	CHECK(filled(q, MIB, 11));
	CHECK_OP(hmpt_arena_lookup(q, &b), ==, 0);
	CHECK_OP(b.size, ==, 5 * MIB);
	CHECK_OP(b.site, ==, 2);
	/* a block right after it: growing further must move */
	char *next = hmpt_arena_alloc(MIB, 0, false, 3, 0);
	CHECK_OP(next, !=, NULL);
	CHECK_OP(next, ==, q + 6 * MIB);
	fill(q, 5 * MIB, 23);
	char *r = hmpt_arena_realloc(q, 9 * MIB, 4, &old);
	CHECK(r != NULL && r != q);
	if (r) {
		CHECK(filled(r, 5 * MIB, 23));
		CHECK_OP(hmpt_arena_lookup(r, &b), ==, 0);
		CHECK_OP(b.size, ==, 9 * MIB);
		CHECK_OP(b.site, ==, 4);
		CHECK_OP(hmpt_arena_lookup(q, &b), ==, -EINVAL);
		/* shrinks in place */
		char *s = hmpt_arena_realloc(r, 2 * MIB, 4, &old);
		CHECK_OP(s, ==, r);
		CHECK(kept(s, 2 * MIB, 5 * MIB, 23));
		CHECK_OP(hmpt_arena_free(s, &b), ==, 0);
		CHECK_OP(b.size, ==, 2 * MIB);
	}
	if (next)
		CHECK_OP(hmpt_arena_free(next, &b), ==, 0);
}

/* A freed block's pages are kept for the next block of its tag: reused as
 * they are by malloc, zeroed for calloc. */
static void test_kept_pages(void)
{
	hmpt_block_t b;
	char *p = hmpt_arena_alloc(2 * MIB, 0, false, 1, 0);

	CHECK_OP(p, !=, NULL);
	if (!p)
		return;
	memset(p, 0xab, 2 * MIB);
	CHECK_OP(hmpt_arena_free(p, &b), ==, 0);
	char *q = hmpt_arena_alloc(2 * MIB, 0, true, 1, 0);
	CHECK_OP(q, !=, NULL);
	if (!q)
		return;
	CHECK_OP(q, ==, p); /* the kept granule: its old bytes must not show */
	CHECK(all_zero(q, 2 * MIB));
	memset(q, 0xcd, 2 * MIB);
	CHECK_OP(hmpt_arena_free(q, &b), ==, 0);
	char *r = hmpt_arena_alloc(2 * MIB, 0, false, 1, 0);
	CHECK_OP(r, !=, NULL);
	CHECK_OP(r, ==, q);
	if (r) {
		r[0] = 1; /* mapped read-write, whatever it holds */
		CHECK_OP(hmpt_arena_free(r, &b), ==, 0);
	}
	char *z = hmpt_arena_alloc(3 * MIB, 0, true, 1, 0);
	CHECK_OP(z, !=, NULL);
	if (z) {
		CHECK(all_zero(z, 3 * MIB));
		CHECK_OP(hmpt_arena_free(z, &b), ==, 0);
	}
}

/* resident pages of [p, p+len), read back with mincore() */
static size_t resident_pages(const void *p, size_t len)
{
	static unsigned char vec[32 << 20 >> 12];
	size_t n = len / page_g, r = 0;

	if (n > sizeof(vec) || mincore((void *)p, len, vec) != 0)
		return SIZE_MAX;
	for (size_t i = 0; i < n; i++)
		r += vec[i] & 1;
	return r;
}

/* A zeroed request on kept pages faults nothing in: resident pages are
 * cleared where they are, pages not resident left so, and a large block
 * (32 MiB and up) that was used sparsely is dropped whole, sparse as its
 * first 64 pages say; either way it reads as zeros.  The old block wrote
 * one page in `stride`, and every page of [from, to). */
static void test_sparse_calloc_range(size_t len, int stride, size_t from, size_t to,
                                     size_t want_resident)
{
	hmpt_block_t b;
	size_t pages = len / page_g;
	char *p = hmpt_arena_alloc(len, 0, false, 1, 0);

	CHECK_OP(p, !=, NULL);
	if (!p)
		return;
	/* only the pages written here (earlier tests' kept pages may be here),
	 * in pages of 4 KiB whatever the host's THP setting ("always" would
	 * fault in, and khugepaged collapse, whole 2 MiB pages) */
	CHECK_OP(madvise(p, len, MADV_NOHUGEPAGE), ==, 0);
	CHECK_OP(madvise(p, len, MADV_DONTNEED), ==, 0);
	for (size_t i = 0; stride && i < pages; i += (size_t)stride)
		p[i * page_g] = 1;
	for (size_t i = from; i < to; i++)
		p[i * page_g] = 1;
	CHECK_OP(hmpt_arena_free(p, &b), ==, 0);
	char *q = hmpt_arena_alloc(len, 0, true, 1, 0);
	CHECK_OP(q, ==, p);
	if (!q)
		return;
	CHECK_OP(resident_pages(q, len), ==, want_resident);
	CHECK(all_zero(q, len));
	CHECK_OP(hmpt_arena_free(q, &b), ==, 0);
}

static void test_sparse_calloc(size_t len, int stride, size_t want_resident)
{
	test_sparse_calloc_range(len, stride, 0, 0, want_resident);
}

static bool resident(const void *p)
{
	unsigned char v = 0;
	return mincore((void *)p, page_g, &v) == 0 && (v & 1);
}

/* Freed pages beyond the budget go back to the system, the oldest first:
 * the budget is the live bytes, at least the floor (4 MiB here), so 8
 * blocks of 2 MiB freed one by one keep only the last two. */
static void test_trim(void)
{
	hmpt_block_t b;
	char *p[8];
	hmpt_arena_set_keep_min(4 * MIB);
	for (int i = 0; i < 8; i++) {
		p[i] = hmpt_arena_alloc(2 * MIB, 0, false, 1, 0);
		CHECK_OP(p[i], !=, NULL);
		if (!p[i])
			return;
		memset(p[i], 0x5a, 2 * MIB);
	}
	for (int i = 0; i < 8; i++)
		CHECK_OP(hmpt_arena_free(p[i], &b), ==, 0);
	CHECK_OP(hmpt_arena_kept_bytes(), <=, 4 * MIB);
	CHECK(!resident(p[0])); /* freed first: dropped */
	CHECK(resident(p[7]));  /* freed last: kept */
	hmpt_arena_set_keep_min(HMPT_ARENA_KEEP_MIN);
}

/* A realloc that must move and cannot (the new range's shaping refused)
 * changes nothing, and the range it tried serves later blocks mapped. */
static void test_realloc_refused(void)
{
	hmpt_block_t b, old;
	char *p = hmpt_arena_alloc(2 * MIB, 0, false, 1, 7);
	char *next = hmpt_arena_alloc(2 * MIB, 0, false, 1, 7); /* no growing in place */

	CHECK(p != NULL && next != NULL);
	if (!p || !next)
		return;
	CHECK_OP(next, ==, p + 2 * MIB);
	fill(p, 2 * MIB, 9);
	uint64_t kept = hmpt_arena_kept_bytes();
	shape_fails_g = 1;
	errno = 0;
	CHECK_OP(hmpt_arena_realloc(p, 6 * MIB, 1, &old), ==, NULL);
	CHECK_OP(errno, ==, ENOMEM);
	shape_fails_g = 0;
	CHECK(filled(p, 2 * MIB, 9));
	CHECK_OP(hmpt_arena_kept_bytes(), ==, kept);
	for (int i = 0; i < 4; i++) { /* every granule it tried, for another tag */
		char *q = hmpt_arena_alloc(6 * MIB, 0, false, 1, 0);
		CHECK_OP(q, !=, NULL);
		if (!q)
			break;
		memset(q, 1, 6 * MIB); /* mapped read-write, or this test dies */
		CHECK_OP(hmpt_arena_free(q, &b), ==, 0);
	}
	CHECK_OP(hmpt_arena_free(p, &b), ==, 0);
	CHECK_OP(hmpt_arena_free(next, &b), ==, 0);
}

static void test_full(void)
{
	hmpt_block_t b;
	char *blocks[64];
	int n = 0;
	uint64_t before = hmpt_arena_free_bytes();

	errno = 0;
	CHECK_OP(hmpt_arena_alloc(ARENA + MIB, 0, false, 1, 0), ==, NULL);
	CHECK_OP(errno, ==, ENOMEM);
	while (n < 64 && (blocks[n] = hmpt_arena_alloc(5 * MIB, 0, false, 1, 0)) != NULL)
		n++;
	CHECK_OP(n, >, 0);
	CHECK_OP(n, <, 64);
	CHECK_OP(errno, ==, ENOMEM);
	CHECK_OP(hmpt_arena_free_bytes(), <, 6 * MIB);
	/* a smaller block still fits the rest */
	char *last = hmpt_arena_alloc(MIB, 0, false, 1, 0);
	CHECK_OP(last, !=, NULL);
	if (last)
		CHECK_OP(hmpt_arena_free(last, &b), ==, 0);
	while (n > 0)
		CHECK_OP(hmpt_arena_free(blocks[--n], &b), ==, 0);
	CHECK_OP(hmpt_arena_free_bytes(), ==, before);
}

static void test_alignment(void)
{
	hmpt_block_t b;
	size_t aligns[] = {16, 4096, HMPT_GRANULE, 4 * MIB, 16 * MIB};

	for (unsigned i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
		/* a granule taken first, so that alignment must skip some */
		char *pad = hmpt_arena_alloc(MIB, 0, false, 1, 0);
		char *p = hmpt_arena_alloc(MIB, aligns[i], false, 1, 0);
		CHECK_OP(p, !=, NULL);
		if (p) {
			CHECK_OP(((uintptr_t)p & (aligns[i] - 1)), ==, 0);
			CHECK_OP(((uintptr_t)p & (HMPT_GRANULE - 1)), ==, 0);
			CHECK_OP(hmpt_arena_free(p, &b), ==, 0);
		}
		if (pad)
			CHECK_OP(hmpt_arena_free(pad, &b), ==, 0);
	}
}

/* A split block: its record says which granules are the head's, an address
 * in either part finds it, realloc leaves it to the caller (EINVAL), and a
 * head of all its granules is refused. */
static void test_split(void)
{
	hmpt_block_t b;
	uintptr_t start;
	char *p = hmpt_arena_alloc_split(5 * MIB, 0, true, 4, 2, 1, 1);

	CHECK_OP(p, !=, NULL);
	if (!p)
		return;
	CHECK(all_zero(p, 5 * MIB));
	memset(p, 7, 5 * MIB);
	CHECK_OP(hmpt_arena_lookup(p, &b), ==, 0);
	CHECK_OP(b.ngran, ==, 3);
	CHECK_OP(b.tag, ==, 2);
	CHECK_OP(b.head_tag, ==, 1);
	CHECK_OP(b.head_gran, ==, 1);
	CHECK_OP(hmpt_arena_find(p + 4 * MIB, &start, &b), ==, 0);
	CHECK_OP(start, ==, (uintptr_t)p);
	hmpt_block_t old;
	errno = 0;
	CHECK_OP(hmpt_arena_realloc(p, 9 * MIB, 4, &old), ==, NULL);
	CHECK_OP(errno, ==, EINVAL);
	CHECK_OP(p[5 * MIB - 1], ==, 7); /* untouched */
	CHECK_OP(hmpt_arena_free(p, &b), ==, 0);
	CHECK_OP(b.head_gran, ==, 1);
	errno = 0;
	CHECK_OP(hmpt_arena_alloc_split(4 * MIB, 0, false, 4, 2, 1, 2), ==, NULL);
	CHECK_OP(errno, ==, EINVAL);
}

static bool observe_none(uint32_t site)
{
	(void)site;
	return false;
}

static bool observe_site_2(uint32_t site)
{
	return site == 2;
}

/* Page-fault sampling: a block not observed reuses kept pages as ever (and
 * is marked so); an observed one gets clean pages, so its first touches
 * fault; an observed block stays observed when it grows. */
static void test_observe(void)
{
	hmpt_block_t b;

	hmpt_arena_observe_by(observe_none);
	char *p = hmpt_arena_alloc(2 * MIB, 0, false, 1, 0);
	CHECK_OP(p, !=, NULL);
	if (!p)
		return;
	CHECK(hmpt_arena_lookup(p, &b) == 0 && b.unobserved);
	memset(p, 0xab, 2 * MIB);
	CHECK_OP(hmpt_arena_free(p, &b), ==, 0);
	CHECK_OP(hmpt_arena_kept_bytes(), >=, 2 * MIB);
	char *q = hmpt_arena_alloc(2 * MIB, 0, false, 1, 0);
	CHECK_OP(q, ==, p);
	CHECK_OP(resident_pages(q, 2 * MIB), ==, 2 * MIB / page_g); /* reused: no fault */
	CHECK_OP(hmpt_arena_free(q, &b), ==, 0);
	hmpt_arena_observe_by(observe_site_2);
	char *r = hmpt_arena_alloc(2 * MIB, 0, false, 2, 0);
	CHECK_OP(r, ==, p);
	CHECK(hmpt_arena_lookup(r, &b) == 0 && !b.unobserved);
	CHECK_OP(resident_pages(r, 2 * MIB), ==, 0); /* clean: each first touch faults */
	r[0] = 1;
	char *g = hmpt_arena_realloc(r, 4 * MIB, 2, &b);
	CHECK_OP(g, !=, NULL);
	if (g) {
		CHECK(hmpt_arena_lookup(g, &b) == 0 && !b.unobserved);
		CHECK_OP(hmpt_arena_free(g, &b), ==, 0);
	}
	hmpt_arena_observe_by(NULL);
}

/* A block whose mapping the program changed (marked as mapcalls.c marks
 * it) is freed into a fresh mapping: the next block there is writable
 * throughout and holds zeros; a lost granule (another mapping took it) is
 * never handed out again and what is there stays untouched. */
static void test_taint(void)
{
	hmpt_block_t b;
	char *p = hmpt_arena_alloc(4 * MIB, 0, false, 1, 0);

	CHECK_OP(p, !=, NULL);
	if (!p)
		return;
	memset(p, 0x5a, 4 * MIB);
	CHECK_OP(mprotect(p + 2 * MIB, page_g, PROT_NONE), ==, 0);
	hmpt_arena_taint((uintptr_t)p + 2 * MIB, page_g, false);
	CHECK_OP(hmpt_arena_free(p, &b), ==, 0);
	char *q = hmpt_arena_alloc(4 * MIB, 0, false, 1, 0);
	CHECK(q == p);
	if (!q)
		return;
	CHECK(all_zero(q + 2 * MIB, 2 * MIB)); /* fresh pages, not the kept ones */
	memset(q, 0x6b, 4 * MIB);              /* no fault */
	CHECK_OP(hmpt_arena_free(q, &b), ==, 0);
	/* lost: the program unmapped a granule and something else is there */
	char *r = hmpt_arena_alloc(2 * MIB, 0, false, 1, 0);
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_OP(munmap(r, 2 * MIB), ==, 0);
	char *other = mmap(r, page_g, PROT_READ | PROT_WRITE,
	                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	CHECK(other == r);
	strcpy(other, "not the arena's");
	hmpt_arena_taint((uintptr_t)r, 2 * MIB, true);
	CHECK_OP(hmpt_arena_free(r, &b), ==, 0);
	char *all[32];
	int n = 0;
	while (n < 32 && (all[n] = hmpt_arena_alloc(2 * MIB, 0, true, 1, 0)) != NULL)
		CHECK(all[n++] != r);
	CHECK_OP(n, >, 0);
	CHECK(strcmp(other, "not the arena's") == 0);
	while (n > 0)
		CHECK_OP(hmpt_arena_free(all[--n], &b), ==, 0);
	/* a free granule lost: refused once at most, then withheld */
	char *s = hmpt_arena_alloc(2 * MIB, 0, false, 1, 0);
	CHECK(s != NULL && hmpt_arena_free(s, &b) == 0);
	if (!s)
		return;
	CHECK_OP(munmap(s, 2 * MIB), ==, 0);
	CHECK(mmap(s, page_g, PROT_READ | PROT_WRITE,
	           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == s);
	strcpy(s, "not the arena's either");
	hmpt_arena_taint((uintptr_t)s, 2 * MIB, true);
	int refused = 0;
	for (n = 0; n < 8; n++) {
		all[n] = hmpt_arena_alloc(2 * MIB, 0, true, 1, 0);
		refused += all[n] == NULL;
		CHECK(all[n] != s);
	}
	CHECK_OP(refused, <=, 1);
	CHECK(strcmp(s, "not the arena's either") == 0);
	while (n > 0)
		if (all[--n])
			CHECK_OP(hmpt_arena_free(all[n], &b), ==, 0);
}

int main(void)
{
	page_g = (size_t)sysconf(_SC_PAGESIZE);
	if (hmpt_arena_init(ARENA, ARENA) != 0) {
		fprintf(stderr, "cannot reserve a %zu MiB arena\n", ARENA / MIB);
		return 1;
	}
	CHECK_OP(hmpt_arena_size_g, ==, ARENA);
	CHECK_OP((hmpt_arena_base_g & (HMPT_GRANULE - 1)), ==, 0);
	test_alloc_lookup_find();
	test_realloc();
	test_kept_pages();
	test_observe();
	test_split();
	/* 8 MiB, every page written: all cleared where they are */
	test_sparse_calloc(8 * MIB, 1, 8 * MIB / page_g);
	/* 8 MiB, one page in 64: those cleared, none faulted in */
	test_sparse_calloc(8 * MIB, 64, 8 * MIB / page_g / 64);
	/* 32 MiB, one page in 64: dropped whole */
	test_sparse_calloc(32 * MIB, 64, 0);
	/* 32 MiB, every page written: cleared where they are */
	test_sparse_calloc(32 * MIB, 1, 32 * MIB / page_g);
	/* 32 MiB, its first 256 pages written and one in 64 of the rest: the
	 * first pages say dense, so all cleared where they are */
	test_sparse_calloc_range(32 * MIB, 64, 0, 256, 256 + (32 * MIB / page_g - 256) / 64);
	/* 32 MiB, every page written but the first 64: dropped whole */
	test_sparse_calloc_range(32 * MIB, 0, 64, 32 * MIB / page_g, 0);
	test_full();
	test_alignment();
	test_trim();
	hmpt_arena_set_shaper(&test_shaper);
	test_realloc_refused();
	test_taint(); /* last: it loses a granule for good */
	if (failures)
		fprintf(stderr, "test_arena: %d failures\n", failures);
	return failures != 0;
}
