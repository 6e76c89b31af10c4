/* arena.c — see arena.h. */
#include "arena.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "extents.h"
#include "lockrank.h"
#include "sys.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << 26)
#endif

uintptr_t hmpt_arena_base_g;
uintptr_t hmpt_arena_size_g;

static pthread_mutex_t lock_g = PTHREAD_MUTEX_INITIALIZER;
static hmpt_extents_t free_g;
static hmpt_block_t *blocks_g; /* one record per granule */
static uint32_t *owner_g;      /* per granule: 1 + the start granule of its live block, 0 */
static uint64_t ngran_g;
static size_t page_g = 4096;
static int dontunmap_g = 1; /* mremap(MREMAP_DONTUNMAP) works here */
static const hmpt_arena_shaper_t *shaper_g;

/* fork: grow_lock_g first, as grow() takes them */
static pthread_mutex_t grow_lock_g = PTHREAD_MUTEX_INITIALIZER;

void hmpt_arena_lock(void)
{
	hmpt_lock_take(&grow_lock_g, HMPT_LOCK_ARENA_GROW);
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
}

void hmpt_arena_unlock(void)
{
	hmpt_lock_drop(&lock_g);
	hmpt_lock_drop(&grow_lock_g);
}

void hmpt_arena_reset_lock(void)
{
	hmpt_lock_reset(&lock_g);
	hmpt_lock_reset(&grow_lock_g);
}

static size_t round_page(size_t n)
{
	return (n + page_g - 1) & ~(page_g - 1);
}

static bool is_huge(uint16_t tag)
{
	return tag && shaper_g && shaper_g->hugetlb(tag);
}

/* mapped bytes of a block: whole pages, whole 2 MiB pages for hugetlb */
static size_t round_block(size_t n, uint16_t tag)
{
	return is_huge(tag) ? (n + HMPT_GRANULE - 1) & ~(HMPT_GRANULE - 1) : round_page(n);
}

void hmpt_arena_set_shaper(const hmpt_arena_shaper_t *s)
{
	shaper_g = s;
}

static uint64_t granules(size_t bytes)
{
	return (bytes + HMPT_GRANULE - 1) >> HMPT_GRANULE_SHIFT;
}

static char *gran_addr(uint64_t g)
{
	return (char *)(hmpt_arena_base_g + (g << HMPT_GRANULE_SHIFT));
}

/* Granule states.  A granule is mapped read-write the first time a block
 * uses it and stays mapped.  When a block is freed, its pages are either
 * kept as they are, so that a program that frees and allocates large
 * buffers in a loop reuses them without a system call or page faults, as it
 * would with glibc, or dropped at once (MADV_DONTNEED: memory back to the
 * system, zeros on next use).  Freed pages are kept, and the oldest kept
 * granules dropped, so that the kept bytes stay within the bytes of live
 * blocks, or HMPT_ARENA_KEEP_MIN when that is more (trim(), after every
 * free): like a heap allocator, hmpt then holds at most about twice what
 * the program uses, HMPT_ARENA_KEEP_MIN once it has freed everything, and a
 * program with many threads churning large blocks does not refault them.
 * A kept ("dirty") granule serves a zeroed request by clearing the pages
 * that are resident, and dropping them where a large block used them
 * sparsely (clear_kept()): a calloc faults nothing in, and a large one
 * that the program touches sparsely holds only what it touches.  Under
 * page-fault sampling pages are kept all the same; only the blocks the
 * sampler chooses to observe (observe_g: a sample of each site's
 * allocations) get clean pages, kept ones dropped, so that their first
 * touches fault and are counted.
 *
 * res_g bounds the bytes that may be resident in each granule (a block of
 * 64 KiB in a 2 MiB granule can have touched 64 KiB), so the budget counts
 * memory, not granules: many small freed blocks can wait for reuse, and a
 * zeroed request clears only what may hold data. */
enum { GRAN_UNMAPPED = 0, GRAN_CLEAN = 1, GRAN_DIRTY = 2 };
static uint64_t keep_min_g = HMPT_ARENA_KEEP_MIN; /* under lock_g */

static uint8_t *rw_g;     /* per granule state */
static uint16_t *shape_g; /* per mapped granule: the tag its mapping was made for */
static uint32_t *res_g;   /* per granule: bytes possibly resident; 0 when CLEAN and free */
static uint64_t kept_g;   /* res_g summed over GRAN_DIRTY granules, under lock_g */
static uint64_t live_g;   /* bytes mapped by live blocks, under lock_g */
/* granules below this have held a block, under lock_g: a walk of the
 * blocks stops here (the records beyond were never written, and reading
 * them would fault in pages of a table sized for the whole range) */
static uint64_t top_g;
/* page-fault sampling: whether a new block is observed (given clean pages) */
static bool (*observe_g)(uint32_t site);
/* The kept granules, oldest first: a list through knext_g/kprev_g (granule
 * index + 1, 0 for none) under lock_g.  Every GRAN_DIRTY granule in the
 * free set is on it; taking a granule from the free set takes it off. */
static uint32_t *knext_g, *kprev_g;
static uint64_t khead_g, ktail_g;
/* Nothing is kept, and a free granule holds no mapping (PROT_NONE again,
 * reset_run()): set once a limit counts what glibc would have unmapped
 * (RLIMIT_DATA, mlockall; hmpt_arena_keep_none()). */
static int lean_g;

/* The program's own changes to the arena's mappings (mapcalls.h): per
 * granule TAINT_SET (protection, advice, locks, pages unmapped or moved:
 * the granule is mapped afresh when freed or taken) or TAINT_LOST (the
 * program unmapped it and another mapping got there: never used again).
 * Marked without the lock (a signal handler may call mprotect), so bytes
 * are read and written atomically; the table is made at the first mark,
 * and tainted_any_g (1: the table says, 2: it could not be made, every
 * granule counts as tainted) spares the free path all of it until then. */
enum { TAINT_NONE = 0, TAINT_SET = 1, TAINT_LOST = 2 };
static uint8_t *taint_g;
static int tainted_any_g;

static uint8_t taint_at(uint64_t g)
{
	int any = __atomic_load_n(&tainted_any_g, __ATOMIC_ACQUIRE);

	if (!any)
		return TAINT_NONE;
	return any == 2 ? TAINT_SET : __atomic_load_n(&taint_g[g], __ATOMIC_RELAXED);
}

static bool tainted(uint64_t g, uint64_t n)
{
	if (!__atomic_load_n(&tainted_any_g, __ATOMIC_ACQUIRE))
		return false;
	for (uint64_t i = g; i < g + n; i++)
		if (taint_at(i))
			return true;
	return false;
}

/* [g, g+n) has a fresh mapping: nothing the program did is left (a lost
 * granule stays lost: the mapping there is not the arena's) */
static void untaint(uint64_t g, uint64_t n)
{
	if (__atomic_load_n(&tainted_any_g, __ATOMIC_ACQUIRE) != 1)
		return;
	for (uint64_t i = g; i < g + n; i++)
		if (__atomic_load_n(&taint_g[i], __ATOMIC_RELAXED) == TAINT_SET)
			__atomic_store_n(&taint_g[i], TAINT_NONE, __ATOMIC_RELAXED);
}

/* The pages of [from, from+n) moved to [to, to+n) by mremap: the mapping
 * went with them, and what the program did to it (the old range keeps its
 * marks too: it may still carry the same attributes). */
static void taint_follow(uint64_t to, uint64_t from, uint64_t n)
{
	if (!tainted(from, n))
		return;
	for (uint64_t i = 0; i < n; i++)
		if (taint_at(from + i) == TAINT_SET)
			hmpt_arena_taint((uintptr_t)gran_addr(to + i), 1, false);
}

void hmpt_arena_taint(uintptr_t addr, size_t len, bool lost)
{
	uintptr_t base = hmpt_arena_base_g;
	uintptr_t size = __atomic_load_n(&hmpt_arena_size_g, __ATOMIC_ACQUIRE);
	uintptr_t lo = addr > base ? addr : base;
	uintptr_t hi = addr + len < base + size ? addr + len : base + size;
	uint8_t *t = __atomic_load_n(&taint_g, __ATOMIC_ACQUIRE);

	if (lo >= hi)
		return;
	if (!t) {
		uint8_t *made = hmpt_sys_map(ngran_g), *none = NULL;
		if (made && !__atomic_compare_exchange_n(&taint_g, &none, made, false,
		                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			hmpt_sys_unmap(made, ngran_g); /* another thread's is there */
		t = __atomic_load_n(&taint_g, __ATOMIC_ACQUIRE);
	}
	if (!t) { /* no table: no granule is kept from now on */
		__atomic_store_n(&tainted_any_g, 2, __ATOMIC_RELEASE);
		return;
	}
	for (uint64_t g = (lo - base) >> HMPT_GRANULE_SHIFT;
	     g <= (hi - 1 - base) >> HMPT_GRANULE_SHIFT; g++)
		if (lost || __atomic_load_n(&t[g], __ATOMIC_RELAXED) != TAINT_LOST)
			__atomic_store_n(&t[g], lost ? TAINT_LOST : TAINT_SET, __ATOMIC_RELAXED);
	int none = 0;
	__atomic_compare_exchange_n(&tainted_any_g, &none, 1, false, __ATOMIC_ACQ_REL,
	                            __ATOMIC_ACQUIRE);
}

static bool kept_listed(uint64_t g)
{
	return kprev_g[g] || khead_g == g + 1;
}

static void kept_append(uint64_t g)
{
	knext_g[g] = 0;
	kprev_g[g] = (uint32_t)ktail_g;
	if (ktail_g)
		knext_g[ktail_g - 1] = (uint32_t)(g + 1);
	else
		khead_g = g + 1;
	ktail_g = g + 1;
}

static void kept_unlink(uint64_t g)
{
	if (!kept_listed(g))
		return;
	uint32_t nx = knext_g[g], pv = kprev_g[g];
	if (pv)
		knext_g[pv - 1] = nx;
	else
		khead_g = nx;
	if (nx)
		kprev_g[nx - 1] = pv;
	else
		ktail_g = pv;
	knext_g[g] = kprev_g[g] = 0;
}

/* with lock_g held: [g, g+n) leaves the free set */
static void kept_unlink_run(uint64_t g, uint64_t n)
{
	for (uint64_t i = g; i < g + n; i++)
		kept_unlink(i);
}

static uint64_t keep_budget(void)
{
	return live_g > keep_min_g ? live_g : keep_min_g;
}

/* Pages back to the system: they read as zeros from now on.  Where the
 * kernel refuses (locked pages: mlockall), they are cleared instead, so
 * that what the caller counts as zeros is. */
static void drop_pages(char *p, size_t len)
{
	if (len && madvise(p, len, MADV_DONTNEED) != 0)
		memset(p, 0, len);
}

static uint64_t resident(uint64_t g, uint64_t n)
{
	uint64_t sum = 0;

	for (uint64_t i = g; i < g + n; i++)
		sum += res_g[i];
	return sum;
}

static void unkeep(uint64_t bytes)
{
	if (!bytes)
		return;
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	kept_g -= bytes;
	hmpt_lock_drop(&lock_g);
}

/* The block of `mapped` bytes at granule g0 may touch its pages. */
static void note_resident(uint64_t g0, uint64_t n, size_t mapped)
{
	for (uint64_t i = g0; i < g0 + n; i++) {
		uint64_t off = (i - g0) << HMPT_GRANULE_SHIFT;
		uint64_t part = off >= mapped ? 0 : mapped - off;
		if (part > HMPT_GRANULE)
			part = HMPT_GRANULE;
		if (part > res_g[i])
			res_g[i] = (uint32_t)part;
	}
}

/* Blocks from this size up are ones glibc serves with a fresh mapping
 * (its largest dynamic mmap threshold, DEFAULT_MMAP_THRESHOLD_MAX on
 * 64-bit): below it glibc reuses its heap and clears the block in place. */
#define SPARSE_DROP_MIN ((size_t)32 << 20)
/* how many of a kept range's first pages tell whether it was used sparsely */
#define SPARSE_PROBE_PAGES 64

/* Can a page that is not resident hold data?  Only when swap is
 * configured (a swapoff brings every page back first). */
static bool swap_configured(void)
{
	struct sysinfo si;

	return sysinfo(&si) != 0 || si.totalswap != 0;
}

/* Zero kept pages [p, p+len) (whole granules, all mapped) for a zeroed
 * request of a block of `block` bytes, faulting nothing in.  Resident
 * pages are cleared where they are: a refault costs more than clearing a
 * page (tens of microseconds in a VM against well under one).  A page that
 * is not resident reads as zeros already, unless it was swapped out, which
 * mincore() cannot tell from one never touched: with swap configured,
 * those are dropped (MADV_DONTNEED, a page-table walk).  A large block
 * whose pages the old block used sparsely is dropped whole instead, so
 * that it holds only what the program touches, as glibc's fresh mapping of
 * such a block would; smaller ones glibc clears in place, whole.
 *
 * Sparse is judged by the range's first SPARSE_PROBE_PAGES pages alone:
 * a mincore() of 48 MiB costs 15-25 us on this VM, more than dropping the
 * whole block and faulting a page back (7-9 us), one of 64 pages 2-3 us.
 * A block judged wrongly costs time, never zeros: one dropped that was
 * dense refaults as glibc's fresh mapping would, one cleared that was
 * sparse costs the full pass. */
static void clear_kept(char *p, size_t len, size_t block)
{
	unsigned char vec[4096];
	size_t chunk = sizeof(vec) * page_g;
	int swap = -1; /* not asked yet: only a page not resident needs to */

	if (block >= SPARSE_DROP_MIN) {
		size_t pages =
		    len / page_g < SPARSE_PROBE_PAGES ? len / page_g : SPARSE_PROBE_PAGES;
		size_t resident = 0;
		if (mincore(p, pages * page_g, vec) != 0) {
			drop_pages(p, len);
			return;
		}
		for (size_t i = 0; i < pages; i++)
			resident += vec[i] & 1;
		if (resident * 2 < pages) {
			drop_pages(p, len);
			return;
		}
	}
	for (size_t off = 0; off < len; off += chunk) {
		size_t part = len - off < chunk ? len - off : chunk, pages = part / page_g;
		char *q = p + off;
		if (mincore(q, part, vec) != 0) {
			memset(q, 0, part);
			continue;
		}
		for (size_t i = 0; i < pages;) {
			size_t j = i + 1;
			while (j < pages && (vec[j] & 1) == (vec[i] & 1))
				j++;
			if (vec[i] & 1) {
				memset(q + i * page_g, 0, (j - i) * page_g);
			} else {
				if (swap < 0)
					swap = swap_configured();
				if (swap)
					drop_pages(q + i * page_g, (j - i) * page_g);
			}
			i = j;
		}
	}
}

/* [g, g+n) back to reserved address space: no pages, no policy. */
static void reset_run(uint64_t g, uint64_t n)
{
	mmap(gran_addr(g), (size_t)n << HMPT_GRANULE_SHIFT, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	memset(rw_g + g, GRAN_UNMAPPED, (size_t)n);
	memset(shape_g + g, 0, n * sizeof(*shape_g));
	memset(res_g + g, 0, n * sizeof(*res_g));
	untaint(g, n);
}

/* A new mapping over [g, g+n) for `tag`, shaped. */
static int map_fresh(uint64_t g, uint64_t n, uint16_t tag, bool huge)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	size_t len = (size_t)n << HMPT_GRANULE_SHIFT;
	int rc = 0;

	if (huge)
		flags |= MAP_HUGETLB | MAP_HUGE_2MB;
	if (mmap(gran_addr(g), len, PROT_READ | PROT_WRITE, flags, -1, 0) == MAP_FAILED)
		rc = -errno;
	else if (tag && shaper_g)
		rc = shaper_g->shape(gran_addr(g), len, tag);
	if (rc) {
		/* a failed MAP_FIXED may leave a hole: reserve the range again so
		 * that no other mapping lands in the arena */
		reset_run(g, n);
		return rc;
	}
	memset(rw_g + g, GRAN_CLEAN, (size_t)n);
	for (uint64_t i = g; i < g + n; i++)
		shape_g[i] = tag;
	memset(res_g + g, 0, n * sizeof(*res_g));
	untaint(g, n);
	return 0;
}

/* Make [g, g+n), which the caller owns, read-write for `tag`; with `zero`,
 * also zero-filled; with `clean`, holding no page (kept ones dropped: an
 * observed block's first touches must fault).  First every granule not
 * mapped for this tag is mapped afresh and shaped (the only step that can
 * fail; fresh granules are clean and what was kept there is dropped), then
 * kept pages of the same tag are taken over, or dropped for a zeroed or
 * clean request; kept pages that are not dropped stay counted in res_g (the
 * block owns them now). */
static int prepare(uint64_t g, uint64_t n, bool zero, bool clean, uint16_t tag)
{
	bool huge = is_huge(tag);
	uint64_t unkept = 0;
	int rc = 0;

	if (tainted(g, n))
		for (uint64_t i = g; i < g + n; i++)
			if (taint_at(i) == TAINT_LOST) /* another mapping is there */
				return -EEXIST;
#define FRESH(k) (huge || rw_g[k] == GRAN_UNMAPPED || shape_g[k] != tag || taint_at(k))
	for (uint64_t i = g; i < g + n;) {
		uint64_t j = i + 1;
		bool fresh = FRESH(i);
		while (j < g + n && FRESH(j) == fresh)
			j++;
		if (fresh) {
			for (uint64_t k = i; k < j; k++)
				if (rw_g[k] == GRAN_DIRTY)
					unkept += res_g[k];
			rc = map_fresh(i, j - i, tag, huge);
			if (rc)
				break;
		}
		i = j;
	}
#undef FRESH
	for (uint64_t i = g; rc == 0 && i < g + n;) {
		uint64_t j = i;
		while (j < g + n && rw_g[j] == rw_g[i])
			j++;
		if (rw_g[i] == GRAN_DIRTY) {
			unkept += resident(i, j - i);
			if (clean) {
				drop_pages(gran_addr(i), (size_t)(j - i) << HMPT_GRANULE_SHIFT);
				memset(res_g + i, 0, (j - i) * sizeof(*res_g));
			} else if (zero) {
				clear_kept(gran_addr(i), (size_t)(j - i) << HMPT_GRANULE_SHIFT,
				           (size_t)n << HMPT_GRANULE_SHIFT);
			}
			memset(rw_g + i, GRAN_CLEAN, (size_t)(j - i));
		}
		i = j;
	}
	unkeep(unkept);
	return rc;
}

/* The kept bytes counted in kept_g for the granules of [g, g+n). */
static uint64_t kept_in(uint64_t g, uint64_t n)
{
	uint64_t sum = 0;

	for (uint64_t i = g; i < g + n; i++)
		if (rw_g[i] == GRAN_DIRTY)
			sum += res_g[i];
	return sum;
}

/* [g, g+n) just received a block's pages by mremap, which replaced
 * whatever mapping was there, kept pages included; the mapping (and its
 * policy) is now the block's. */
static void claim_moved(uint64_t g, uint64_t n, uint16_t tag)
{
	uint64_t unkept = kept_in(g, n);

	for (uint64_t i = g; i < g + n; i++)
		shape_g[i] = tag;
	memset(rw_g + g, GRAN_CLEAN, (size_t)n);
	memset(res_g + g, 0, n * sizeof(*res_g));
	unkeep(unkept);
}

/* [g, g+n), which the caller owns, after a failed mremap(MREMAP_FIXED) to
 * it: whatever was mapped there may be gone (kernels 5.7 to 6.16 unmap the
 * destination before they find that the source spans two mappings, and
 * fail), so the range is reserved afresh and its kept pages forgotten. */
static void forget_run(uint64_t g, uint64_t n)
{
	uint64_t unkept = kept_in(g, n);

	reset_run(g, n);
	unkeep(unkept);
}

/* Return granules that hold no data: a failed request (prepare() left only
 * clean or unmapped granules, or refused a lost one) or pages that moved
 * away. */
static void give(uint64_t g, uint64_t n)
{
	bool lean = __atomic_load_n(&lean_g, __ATOMIC_RELAXED);

	for (uint64_t i = g, j; i < g + n; i = j) {
		bool lost = taint_at(i) == TAINT_LOST;
		for (j = i + 1; j < g + n && (taint_at(j) == TAINT_LOST) == lost; j++)
			;
		if (lost) /* withheld for good: another mapping is there */
			continue;
		if (lean && memchr(rw_g + i, GRAN_CLEAN, j - i))
			reset_run(i, j - i);
		hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
		hmpt_extents_give(&free_g, i, j - i);
		hmpt_lock_drop(&lock_g);
	}
}

/* With lock_g held: keep the pages of [g, g+n) for reuse, newest last on
 * the kept list, and return the range to the free set (trim() then drops
 * the oldest beyond the budget).  Hugetlb pages never wait: they go back to
 * the system's pool.  false: discard() must follow, after the lock is
 * released. */
static bool keep_locked(uint64_t g, uint64_t n, uint16_t tag)
{
	uint64_t bytes = resident(g, n);

	/* what the program did to the mapping is not kept either (discard()) */
	if (is_huge(tag) || bytes > keep_budget() || __atomic_load_n(&lean_g, __ATOMIC_RELAXED) ||
	    tainted(g, n))
		return false;
	kept_g += bytes;
	memset(rw_g + g, GRAN_DIRTY, (size_t)n);
	for (uint64_t i = g; i < g + n; i++)
		kept_append(i);
	hmpt_extents_give(&free_g, g, n); /* cannot fail: room for n/2+2 extents */
	return true;
}

/* Drop the oldest kept granules while more is kept than the budget: a run
 * of adjacent ones (up to 64, no more than the excess needs) is taken from
 * the free set, so that no request can get it meanwhile, dropped outside
 * the lock, and given back. */
static void trim(void)
{
	for (;;) {
		hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
		if (kept_g <= keep_budget() || !khead_g) {
			hmpt_lock_drop(&lock_g);
			return;
		}
		uint64_t g = khead_g - 1, n = 1, bytes = res_g[g];
		uint64_t over = kept_g - keep_budget();
		while (n < 64 && bytes < over && knext_g[g + n - 1] == g + n + 1)
			bytes += res_g[g + n++];
		kept_unlink_run(g, n);
		if (hmpt_extents_take_at(&free_g, g, n) != 0) {
			/* cannot happen (listed granules are free): leave them */
			hmpt_lock_drop(&lock_g);
			return;
		}
		kept_g -= bytes;
		hmpt_lock_drop(&lock_g);
		drop_pages(gran_addr(g), (size_t)n << HMPT_GRANULE_SHIFT);
		memset(res_g + g, 0, n * sizeof(*res_g));
		memset(rw_g + g, GRAN_CLEAN, (size_t)n);
		give(g, n);
	}
}

/* What keep_locked() did not keep, granules the program changed
 * excepted: its pages back to the system, then the range to the free set. */
static void discard_run(uint64_t g, uint64_t n, uint16_t tag)
{
	if (is_huge(tag) || __atomic_load_n(&lean_g, __ATOMIC_RELAXED)) {
		reset_run(g, n);
	} else {
		drop_pages(gran_addr(g), (size_t)n << HMPT_GRANULE_SHIFT);
		memset(res_g + g, 0, n * sizeof(*res_g));
		for (uint64_t i = g; i < g + n; i++) /* an unmapped granule stays so */
			if (rw_g[i] != GRAN_UNMAPPED)
				rw_g[i] = GRAN_CLEAN;
	}
	give(g, n);
}

/* What keep_locked() did not keep.  A granule the program changed gets a
 * fresh mapping, as glibc's next block would (no protection, advice, lock
 * or guard of the old one); one that is lost is never given back. */
static void discard(uint64_t g, uint64_t n, uint16_t tag)
{
	if (!tainted(g, n)) {
		discard_run(g, n, tag);
		return;
	}
	for (uint64_t i = g; i < g + n;) {
		uint64_t j = i + 1;
		uint8_t t = taint_at(i);
		while (j < g + n && taint_at(j) == t)
			j++;
		if (t == TAINT_SET) {
			reset_run(i, j - i);
			give(i, j - i);
		} else if (t == TAINT_NONE) {
			discard_run(i, j - i, tag);
		} /* lost: neither mapped over nor given back */
		i = j;
	}
}

static void shrink(void);

/* Give [g, g+n) back: pages kept for reuse while the budget allows, else
 * dropped; then the range joins the free set. */
static void release(uint64_t g, uint64_t n, uint16_t tag)
{
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	bool kept = keep_locked(g, n, tag);
	hmpt_lock_drop(&lock_g);
	if (!kept)
		discard(g, n, tag);
	trim();
	shrink();
}

/* Address space the arena may still reserve: granules [reserved_g,
 * ngran_g), at most step_g at a time (0: all reserved at init).  Growth is
 * serialised by grow_lock_g, taken before lock_g; reserved_g changes under
 * both. */
static uint64_t reserved_g, step_g;
static int grow_blocked_g; /* the next range is someone else's: stop trying */

static uint64_t hex_field(const char **s)
{
	uint64_t v = 0;

	for (;; (*s)++) {
		unsigned c = (unsigned char)**s;
		unsigned d = c - '0' < 10 ? c - '0' : (c | 32) - 'a' < 6 ? (c | 32) - 'a' + 10 : 16;
		if (d == 16)
			return v;
		v = v << 4 | d;
	}
}

uintptr_t hmpt_arena_pick_hole(const char *maps, uint64_t len, uint64_t align, uint64_t floor)
{
	uint64_t prev = floor, best_lo = 0, best_len = 0;

	for (const char *s = maps; s && *s;) {
		const char *eol = strchr(s, '\n');
		if (!eol) /* a line cut short: what it names is unknown */
			break;
		uint64_t lo = hex_field(&s);
		uint64_t hi = *s == '-' ? (s++, hex_field(&s)) : 0;
		if (hi > lo) {
			if (lo > prev && lo - prev > best_len) {
				best_lo = prev;
				best_len = lo - prev;
			}
			if (hi > prev)
				prev = hi;
		}
		/* above the stack lie only the kernel's pages (vdso, vsyscall)
		 * and the stack's own room to grow */
		if (memmem(s, (size_t)(eol - s), "[stack]", 7))
			break;
		s = eol + 1;
	}
	if (best_len < len + align)
		return 0;
	uint64_t at = (best_lo + (best_len - len) / 2) & ~(align - 1);
	return at >= best_lo ? (uintptr_t)at : 0;
}

/* Reserve `len` bytes at exactly `at`, or fail without touching anything
 * there.  Kernels before 4.17 take MAP_FIXED_NOREPLACE as a hint: an
 * answer elsewhere is undone. */
static int reserve_at(uintptr_t at, size_t len)
{
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
	void *p = mmap((void *)at, len, PROT_NONE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if ((uintptr_t)p != at) {
		munmap(p, len);
		return -EEXIST;
	}
	return 0;
}

/* Where the whole capacity (`cap` bytes) will fit: the base, or 0.
 * Nothing is reserved yet: under an address-space limit the arena takes
 * none of it before a tracked block needs it. */
static uintptr_t pick_base(uint64_t cap)
{
	char *maps = hmpt_sys_map(256 << 10);
	uintptr_t at = 0;

	if (!maps)
		return 0;
	if (hmpt_sys_read_file("/proc/self/maps", maps, 256 << 10) > 0)
		at = hmpt_arena_pick_hole(maps, cap, HMPT_ARENA_MAX_ALIGN, (uint64_t)1 << 32);
	hmpt_sys_unmap(maps, 256 << 10);
	return at;
}

/* The whole capacity now, aligned to HMPT_ARENA_MAX_ALIGN: over-reserved
 * by the alignment, and the slack on either side given back. */
static int reserve_all(uint64_t cap, uintptr_t *base)
{
	size_t len = (size_t)cap + HMPT_ARENA_MAX_ALIGN;
	void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	uintptr_t lo = (uintptr_t)p;
	uintptr_t b = (lo + HMPT_ARENA_MAX_ALIGN - 1) & ~(uintptr_t)(HMPT_ARENA_MAX_ALIGN - 1);
	if (b > lo)
		munmap(p, b - lo);
	if (lo + len > b + cap)
		munmap((void *)(b + cap), lo + len - (b + cap));
	*base = b;
	return 0;
}

/* ------------------------------------------------- the per-granule tables
 *
 * Every table holds an entry per granule of the capacity (16 TiB: 8 Mi
 * granules, about 630 MB in all).  Each is reserved PROT_NONE for the whole
 * capacity at init, address space only, and made read-write as far as the
 * free set reaches (cover_g), when the arena grows (grow(), under
 * grow_lock_g): the memory a process pays for them, and what mlockall
 * locks and RLIMIT_DATA counts, follows the granules it has used, not the
 * capacity.  No entry at or beyond cover_g is ever read: the free set
 * holds none, and a pointer there is no block (block_index()). */
enum { TAB_BLOCKS, TAB_EXT, TAB_RW, TAB_RES, TAB_SHAPE, TAB_OWNER, TAB_KNEXT, TAB_KPREV, NTAB };
static const size_t tab_entry_g[NTAB] = {
    [TAB_BLOCKS] = sizeof(hmpt_block_t), [TAB_EXT] = sizeof(hmpt_extent_t),
    [TAB_RW] = sizeof(uint8_t),          [TAB_RES] = sizeof(uint32_t),
    [TAB_SHAPE] = sizeof(uint16_t),      [TAB_OWNER] = sizeof(uint32_t),
    [TAB_KNEXT] = sizeof(uint32_t),      [TAB_KPREV] = sizeof(uint32_t)};
static char *tab_g[NTAB];
static uint64_t cover_g; /* granules whose entries are read-write */

/* Entries of the extent table for n granules: n/2 + 2 (a free set of n
 * granules holds at most n/2 + 1 disjoint extents). */
static uint64_t ext_entries(uint64_t n)
{
	return n / 2 + 2;
}

/* Bytes of table t covering n granules, whole pages. */
static size_t tab_bytes(int t, uint64_t n)
{
	return round_page((t == TAB_EXT ? ext_entries(n) : n) * tab_entry_g[t]);
}

static void tables_unmap(uint64_t n)
{
	for (int t = 0; t < NTAB; t++)
		hmpt_sys_unmap(tab_g[t], tab_bytes(t, n));
}

/* Address space for the tables of n granules, none of it usable yet. */
static int tables_reserve(uint64_t n)
{
	for (int t = 0; t < NTAB; t++) {
		void *p = mmap(NULL, tab_bytes(t, n), PROT_NONE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		tab_g[t] = p == MAP_FAILED ? NULL : p;
		if (!tab_g[t]) {
			tables_unmap(n);
			return -ENOMEM;
		}
	}
	blocks_g = (hmpt_block_t *)tab_g[TAB_BLOCKS];
	rw_g = (uint8_t *)tab_g[TAB_RW];
	res_g = (uint32_t *)tab_g[TAB_RES];
	shape_g = (uint16_t *)tab_g[TAB_SHAPE];
	owner_g = (uint32_t *)tab_g[TAB_OWNER];
	knext_g = (uint32_t *)tab_g[TAB_KNEXT];
	kprev_g = (uint32_t *)tab_g[TAB_KPREV];
	return 0;
}

/* With grow_lock_g held: the entries of granules [0, n) read-write (their
 * pages are touched only as blocks use them).  A failure (RLIMIT_DATA)
 * leaves the cover as it was: the arena does not grow. */
static int tables_cover(uint64_t n)
{
	uint64_t had = cover_g;

	if (n <= had)
		return 0;
	for (int t = 0; t < NTAB; t++) {
		size_t from = had ? tab_bytes(t, had) : 0, to = tab_bytes(t, n);
		if (to > from && mprotect(tab_g[t] + from, to - from, PROT_READ | PROT_WRITE) != 0)
			return -errno;
	}
	__atomic_store_n(&cover_g, n, __ATOMIC_RELEASE);
	return 0;
}

int hmpt_arena_init(uint64_t capacity, uint64_t initial)
{
	uint64_t n = capacity >> HMPT_GRANULE_SHIFT;
	uint64_t first = initial >> HMPT_GRANULE_SHIFT;
	uintptr_t b = 0;
	long ps = sysconf(_SC_PAGESIZE);
	int rc;

	if (ps > 0)
		page_g = (size_t)ps;
	if (n == 0)
		return -EINVAL;
	if (first == 0)
		first = 1;
	/* The start is aligned to the largest alignment served: granule
	 * indices aligned within the arena are then aligned addresses too. */
	if (first < n && (b = pick_base(n << HMPT_GRANULE_SHIFT)) != 0) {
		step_g = first;
	} else {
		/* no room to grow into, or none needed: all of it, or at least
		 * the share, now */
		if (first < n)
			n = first;
		if ((rc = reserve_all(n << HMPT_GRANULE_SHIFT, &b)) != 0)
			return rc;
	}
	if ((rc = tables_reserve(n)) != 0) {
		if (!step_g)
			munmap((void *)b, (size_t)n << HMPT_GRANULE_SHIFT);
		return rc;
	}
	ngran_g = n;
	/* the free set starts empty and grows as the arena does (grow()),
	 * within the address space reserved here or reserved then */
	reserved_g = 0;
	hmpt_extents_init(&free_g, (hmpt_extent_t *)tab_g[TAB_EXT], 0, 0);
	hmpt_arena_size_g = step_g ? 0 : (uintptr_t)n << HMPT_GRANULE_SHIFT;
	__atomic_store_n(&hmpt_arena_base_g, b, __ATOMIC_RELEASE);
	return 0;
}

uint64_t hmpt_arena_capacity(void)
{
	return ngran_g << HMPT_GRANULE_SHIFT;
}

uint64_t hmpt_arena_step(void)
{
	return step_g << HMPT_GRANULE_SHIFT;
}

/* Add at least `need` granules to the free set beyond the `seen` it spans
 * when the caller found no room: their tables' entries made usable and,
 * under an address-space limit, their address space reserved.  true: try
 * again (grown, by this thread or another). */
static bool grow(uint64_t need, uint64_t seen)
{
	bool grown = false;

	hmpt_lock_take(&grow_lock_g, HMPT_LOCK_ARENA_GROW);
	uint64_t have = reserved_g, step = step_g;
	if (have != seen) { /* another thread grew it meanwhile */
		hmpt_lock_drop(&grow_lock_g);
		return true;
	}
	/* a quarter of what is held, 16 MiB at least, step_g at most: few
	 * reservations for a program of many blocks, and little address space
	 * taken from one of few (a JVM tracks a few blocks of 1 MiB) */
	uint64_t room = ngran_g - have, want = have / 4 > 8 ? have / 4 : 8;
	if (step && want > step)
		want = step;
	uint64_t add = need > want ? need : want;
	if (add > room)
		add = room;
	if (grow_blocked_g || add < need) {
		hmpt_lock_drop(&grow_lock_g);
		return false;
	}
	int rc = tables_cover(have + add);
	if (rc == 0 && step) {
		rc = reserve_at((uintptr_t)gran_addr(have), (size_t)add << HMPT_GRANULE_SHIFT);
		/* the limit (RLIMIT_AS; RLIMIT_MEMLOCK under mlockall's
		 * MCL_FUTURE): what this block needs, no more */
		if ((rc == -ENOMEM || rc == -EAGAIN) && add > need)
			rc = reserve_at((uintptr_t)gran_addr(have), (size_t)(add = need)
			                                                << HMPT_GRANULE_SHIFT);
		if (rc == -EEXIST)
			grow_blocked_g = 1;
	}
	if (rc == 0) {
		/* one step under lock_g, so that take() sees the size and the
		 * free set agree; hmpt_arena_owns() sees the size before any
		 * block is there */
		hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
		if (step)
			__atomic_store_n(&hmpt_arena_size_g,
			                 (uintptr_t)(have + add) << HMPT_GRANULE_SHIFT,
			                 __ATOMIC_RELEASE);
		free_g.cap = (size_t)ext_entries(cover_g);
		hmpt_extents_give(&free_g, have, add);
		reserved_g = have + add;
		hmpt_lock_drop(&lock_g);
		grown = true;
	}
	hmpt_lock_drop(&grow_lock_g);
	return grown;
}

/* With lock_g held: the free granules at the end of the reservation. */
static uint64_t free_tail(void)
{
	const hmpt_extent_t *last = free_g.n ? &free_g.v[free_g.n - 1] : NULL;

	return last && last->start + last->len == reserved_g ? last->len : 0;
}

/* n free granules starting at a multiple of align_gran, growing the
 * reservation when none are free; -1 when it cannot grow. */
static int64_t take(uint64_t n, uint64_t align_gran)
{
	for (;;) {
		hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
		int64_t g = hmpt_extents_take(&free_g, n, align_gran);
		if (g >= 0)
			kept_unlink_run((uint64_t)g, n);
		uint64_t seen = reserved_g, tail = free_tail();
		hmpt_lock_drop(&lock_g);
		if (g >= 0)
			return g;
		/* the free tail and what is added hold an aligned run of n */
		uint64_t need = n + align_gran - 1;
		if (!grow(need > tail ? need - tail : 1, seen))
			return g;
	}
}

/* With grow_lock_g held (step mode): the free end of the reservation
 * beyond `slack` granules back to the system (munmap, kept pages there
 * included).  Returns the granules given back. */
static uint64_t cut_tail(uint64_t slack)
{
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	uint64_t have = reserved_g, tail = free_tail();
	uint64_t cut = have - tail + slack;
	if (tail <= slack || hmpt_extents_take_at(&free_g, cut, have - cut) != 0) {
		hmpt_lock_drop(&lock_g);
		return 0;
	}
	kept_g -= kept_in(cut, have - cut);
	kept_unlink_run(cut, have - cut);
	reserved_g = cut;
	__atomic_store_n(&hmpt_arena_size_g, (uintptr_t)cut << HMPT_GRANULE_SHIFT,
	                 __ATOMIC_RELEASE);
	hmpt_lock_drop(&lock_g);
	if (munmap(gran_addr(cut), (size_t)(have - cut) << HMPT_GRANULE_SHIFT) == 0) {
		memset(rw_g + cut, GRAN_UNMAPPED, (size_t)(have - cut));
		memset(shape_g + cut, 0, (have - cut) * sizeof(*shape_g));
		memset(res_g + cut, 0, (have - cut) * sizeof(*res_g));
		return have - cut;
	}
	/* still ours, as it was (its kept pages now clean or counted) */
	reset_run(cut, have - cut);
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	hmpt_extents_give(&free_g, cut, have - cut);
	reserved_g = have;
	__atomic_store_n(&hmpt_arena_size_g, (uintptr_t)have << HMPT_GRANULE_SHIFT,
	                 __ATOMIC_RELEASE);
	hmpt_lock_drop(&lock_g);
	return 0;
}

/* Under an address-space limit, the free end of the reservation beyond
 * 16 MiB goes back to the system, so that once the program frees a large
 * block it can map as much as it could without hmpt; the slack spares a
 * program that frees and allocates in a loop a system call each time. */
static void shrink(void)
{
	enum { SLACK = 8 }; /* granules */

	if (!__atomic_load_n(&step_g, __ATOMIC_RELAXED))
		return;
	hmpt_lock_take(&grow_lock_g, HMPT_LOCK_ARENA_GROW);
	cut_tail(SLACK);
	hmpt_lock_drop(&grow_lock_g);
}

static int stamp_g; /* read the clock for `born` (sampling runs) */

void hmpt_arena_stamp_births(void)
{
	__atomic_store_n(&stamp_g, 1, __ATOMIC_RELEASE);
}

void hmpt_arena_observe_by(bool (*observe)(uint32_t site))
{
	__atomic_store_n(&observe_g, observe, __ATOMIC_RELEASE);
}

/* Whether a new block of `site` is observed: *clean says it needs clean
 * pages (page-fault sampling chose it). */
static bool observed(uint32_t site, bool *clean)
{
	bool (*fn)(uint32_t) = __atomic_load_n(&observe_g, __ATOMIC_ACQUIRE);

	*clean = fn && fn(site);
	return !fn || *clean;
}

void hmpt_arena_set_keep_min(uint64_t bytes)
{
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	keep_min_g = bytes;
	hmpt_lock_drop(&lock_g);
}

uint64_t hmpt_arena_kept_bytes(void)
{
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	uint64_t k = kept_g;
	hmpt_lock_drop(&lock_g);
	return k;
}

static void set_owner(uint64_t g, uint64_t n, uint32_t v)
{
	for (uint64_t i = g; i < g + n; i++)
		owner_g[i] = v;
}

/* Record the block now at granule g; with `old` >= 0, the block that was at
 * granule `old` is gone (it moved to g) in the same step.  A block keeps its
 * birth time when it stays where it was. */
static void record(int64_t g, int64_t old, size_t size, size_t mapped, uint64_t n, uint32_t site,
                   uint16_t tag, uint16_t head_tag, uint32_t head_gran, bool unobserved)
{
	uint64_t now = __atomic_load_n(&stamp_g, __ATOMIC_ACQUIRE) ? hmpt_sys_now_ns() : 0;

	note_resident((uint64_t)g, n, mapped);
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	uint64_t had = blocks_g[g].ngran; /* resized in place: its old extent */
	uint64_t born = had && old < 0 ? blocks_g[g].born : now;
	if (had)
		live_g -= blocks_g[g].mapped;
	live_g += mapped;
	if ((uint64_t)g + n > top_g)
		top_g = (uint64_t)g + n;
	blocks_g[g] = (hmpt_block_t){.size = size,
	                             .mapped = mapped,
	                             .ngran = (uint32_t)n,
	                             .site = site,
	                             .tag = tag,
	                             .head_tag = head_tag,
	                             .head_gran = head_gran,
	                             .unobserved = unobserved,
	                             .born = born};
	if (had > n)
		set_owner((uint64_t)g + n, had - n, 0);
	set_owner((uint64_t)g, n, (uint32_t)g + 1);
	if (old >= 0 && old != g) {
		live_g -= blocks_g[old].mapped;
		set_owner((uint64_t)old, blocks_g[old].ngran, 0);
		blocks_g[old].ngran = 0;
	}
	hmpt_lock_drop(&lock_g);
}

void *hmpt_arena_alloc_split(size_t size, size_t align, bool zero, uint32_t site, uint16_t tag,
                             uint16_t head_tag, uint32_t head_gran)
{
	size_t mapped = round_block(size, tag);
	uint64_t n = granules(mapped);
	uint64_t ag = align > HMPT_GRANULE ? align >> HMPT_GRANULE_SHIFT : 1;
	int64_t g;
	int rc;

	if (size == 0 || mapped < size || align > HMPT_ARENA_MAX_ALIGN) {
		errno = ENOMEM;
		return NULL;
	}
	if (head_gran && (head_gran >= n || is_huge(tag) || is_huge(head_tag))) {
		errno = EINVAL;
		return NULL;
	}
	g = take(n, ag);
	if (g < 0) {
		errno = ENOMEM;
		return NULL;
	}
	bool clean, obs = observed(site, &clean);
	/* each part's granules mapped and shaped for its own tag */
	rc = prepare((uint64_t)g, head_gran, zero, clean, head_tag);
	if (rc == 0 &&
	    (rc = prepare((uint64_t)g + head_gran, n - head_gran, zero, clean, tag)) != 0) {
		/* the head may hold kept pages it took over: clean before giving */
		drop_pages(gran_addr((uint64_t)g), (size_t)head_gran << HMPT_GRANULE_SHIFT);
		memset(res_g + g, 0, head_gran * sizeof(*res_g));
	}
	if (rc) {
		give((uint64_t)g, n);
		errno = -rc;
		return NULL;
	}
	record(g, -1, size, mapped, n, site, tag, head_gran ? head_tag : 0, head_gran, !obs);
	return gran_addr((uint64_t)g);
}

void *hmpt_arena_alloc(size_t size, size_t align, bool zero, uint32_t site, uint16_t tag)
{
	return hmpt_arena_alloc_split(size, align, zero, site, tag, 0, 0);
}

/* granule index of a block start, or -1 */
static int64_t block_index(const void *p)
{
	uintptr_t off = (uintptr_t)p - hmpt_arena_base_g;

	if (off >= __atomic_load_n(&hmpt_arena_size_g, __ATOMIC_RELAXED) ||
	    (off & (HMPT_GRANULE - 1)) ||
	    off >> HMPT_GRANULE_SHIFT >= __atomic_load_n(&cover_g, __ATOMIC_ACQUIRE))
		return -1;
	return (int64_t)(off >> HMPT_GRANULE_SHIFT);
}

int hmpt_arena_lookup(const void *p, hmpt_block_t *out)
{
	int64_t g = block_index(p);
	int rc = -EINVAL;

	if (g < 0)
		return rc;
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	if (blocks_g[g].ngran) {
		*out = blocks_g[g];
		rc = 0;
	}
	hmpt_lock_drop(&lock_g);
	return rc;
}

int hmpt_arena_find(const void *p, uintptr_t *start, hmpt_block_t *out)
{
	uintptr_t off = (uintptr_t)p - hmpt_arena_base_g;
	int rc = -ENOENT;

	if (off >= __atomic_load_n(&hmpt_arena_size_g, __ATOMIC_RELAXED) ||
	    off >> HMPT_GRANULE_SHIFT >= __atomic_load_n(&cover_g, __ATOMIC_ACQUIRE))
		return rc;
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	uint32_t o = owner_g[off >> HMPT_GRANULE_SHIFT];
	if (o && blocks_g[o - 1].ngran) {
		*start = hmpt_arena_base_g + ((uintptr_t)(o - 1) << HMPT_GRANULE_SHIFT);
		*out = blocks_g[o - 1];
		rc = 0;
	}
	hmpt_lock_drop(&lock_g);
	return rc;
}

int hmpt_arena_next(uintptr_t from, uintptr_t *start, hmpt_block_t *out)
{
	uint64_t g =
	    from > hmpt_arena_base_g ? (from - hmpt_arena_base_g) >> HMPT_GRANULE_SHIFT : 0;
	int rc = -ENOENT;

	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	for (; blocks_g && g < top_g; g++) {
		if (blocks_g[g].ngran) {
			*start = (uintptr_t)gran_addr(g);
			*out = blocks_g[g];
			rc = 0;
			break;
		}
	}
	hmpt_lock_drop(&lock_g);
	return rc;
}

int hmpt_arena_free(void *p, hmpt_block_t *out)
{
	int64_t g = block_index(p);
	bool kept = false;

	if (g < 0)
		return -EINVAL;
	/* one lock hold for the record and, when its pages are kept, the free
	 * set: the common case of a free */
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	*out = blocks_g[g];
	if (out->ngran) {
		set_owner((uint64_t)g, out->ngran, 0);
		live_g -= out->mapped;
		blocks_g[g].ngran = 0;
		kept = keep_locked((uint64_t)g, out->ngran, out->tag);
	}
	hmpt_lock_drop(&lock_g);
	if (!out->ngran)
		return -EINVAL;
	if (!kept)
		discard((uint64_t)g, out->ngran, out->tag);
	trim();
	shrink();
	return 0;
}

/* Move the pages of [old, old+len) to `to` without copying, leaving the old
 * range mapped and empty.  -ENOSYS when the kernel cannot (nothing tried);
 * after any other failure the old range is as it was but `to` is unknown
 * (forget_run()). */
static int move_pages_to(char *old, char *to, size_t len)
{
	if (!__atomic_load_n(&dontunmap_g, __ATOMIC_RELAXED))
		return -ENOSYS;
	void *r = mremap(old, len, len, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, to);
	if (r == MAP_FAILED) {
		if (errno == EINVAL)
			__atomic_store_n(&dontunmap_g, 0, __ATOMIC_RELAXED);
		return -errno;
	}
	return 0;
}

/* The block of `have` granules at g, `bytes` of them in use, to [ng,
 * ng+have), which the caller owns: its pages moved where the kernel can
 * (not hugetlb ones), else the range prepared and the bytes copied.  1:
 * moved (the old range is mapped and empty), 0: copied, -errno: neither
 * (the range holds no data; the block is untouched). */
static int move_or_copy(uint64_t g, uint64_t ng, uint64_t have, size_t bytes, bool clean,
                        uint16_t tag)
{
	char *from = gran_addr(g), *to = gran_addr(ng);
	int rc =
	    is_huge(tag) ? -ENOSYS : move_pages_to(from, to, (size_t)have << HMPT_GRANULE_SHIFT);

	if (rc == 0) {
		claim_moved(ng, have, tag);
		taint_follow(ng, g, have);
		return 1;
	}
	if (rc != -ENOSYS)
		forget_run(ng, have);
	rc = prepare(ng, have, false, clean, tag);
	if (rc == 0)
		memcpy(to, from, bytes);
	return rc;
}

/* Extend the block at granule g from `have` to `want` granules in place. */
static bool take_at_grow(int64_t g, uint64_t have, uint64_t want)
{
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	int rc = hmpt_extents_take_at(&free_g, (uint64_t)g + have, want - have);
	if (rc == 0)
		kept_unlink_run((uint64_t)g + have, want - have);
	hmpt_lock_drop(&lock_g);
	return rc == 0;
}

void *hmpt_arena_realloc(void *p, size_t size, uint32_t site, hmpt_block_t *old)
{
	int64_t g = block_index(p);
	int rc;

	if (g < 0 || hmpt_arena_lookup(p, old) != 0 || old->head_gran) {
		errno = EINVAL;
		return NULL;
	}
	uint16_t tag = old->tag;
	/* an observed block stays so: its new pages must fault too */
	bool clean = !old->unobserved && __atomic_load_n(&observe_g, __ATOMIC_ACQUIRE);
	size_t mapped = round_block(size, tag);
	uint64_t n = granules(mapped);
	if (size == 0 || mapped < size) {
		errno = ENOMEM;
		return NULL;
	}
	if (n <= old->ngran || take_at_grow(g, old->ngran, n)) {
		/* in place */
		if (n > old->ngran) {
			rc = prepare((uint64_t)g + old->ngran, n - old->ngran, false, clean, tag);
			if (rc) {
				give((uint64_t)g + old->ngran, n - old->ngran);
				errno = -rc;
				return NULL;
			}
		} else if (n < old->ngran) {
			release((uint64_t)g + n, old->ngran - n, tag);
		}
		record(g, -1, size, mapped, n, site, tag, 0, 0, old->unobserved);
		return p;
	}
	/* elsewhere: a new extent, its tail first, so that once the block is
	 * there nothing can fail and nothing need move back */
	int64_t ng = take(n, 1);
	if (ng < 0) {
		errno = ENOMEM;
		return NULL;
	}
	uint64_t have = old->ngran;
	rc = prepare((uint64_t)ng + have, n - have, false, clean, tag);
	if (rc) {
		/* prepare() left only clean or unmapped granules: nothing to keep */
		give((uint64_t)ng, n);
		errno = -rc;
		return NULL;
	}
	rc = move_or_copy((uint64_t)g, (uint64_t)ng, have, old->mapped, clean, tag);
	if (rc < 0) {
		/* the tail may hold kept pages it took over: kept or dropped */
		give((uint64_t)ng, have);
		release((uint64_t)ng + have, n - have, tag);
		errno = -rc;
		return NULL;
	}
	record(ng, g, size, mapped, n, site, tag, 0, 0, old->unobserved);
	if (rc == 1) { /* the pages moved away: the old range is mapped and empty */
		memset(res_g + g, 0, have * sizeof(*res_g));
		give((uint64_t)g, have);
	} else {
		release((uint64_t)g, have, tag);
	}
	return gran_addr((uint64_t)ng);
}

uint64_t hmpt_arena_free_bytes(void)
{
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	uint64_t f = hmpt_extents_free_total(&free_g) + ngran_g - reserved_g;
	hmpt_lock_drop(&lock_g);
	return f << HMPT_GRANULE_SHIFT;
}

/* ------------------------------------------- limits set after the start
 *
 * A program may lower its limits, or lock its memory, after hmpt reserved
 * the arena (setrlimit, prlimit, mlockall: shim/limits.c).  These switch
 * the arena to what it would have done had the limit been there at start. */

uint64_t hmpt_arena_reserve_as_needed(uint64_t cap)
{
	uint64_t given = 0, n = cap >> HMPT_GRANULE_SHIFT;

	hmpt_lock_take(&grow_lock_g, HMPT_LOCK_ARENA_GROW);
	if (n > ngran_g)
		n = ngran_g;
	if (!step_g) {
		/* all of the capacity was reserved at init: what lies beyond the
		 * free set's span goes back now, and the arena grows from there */
		uint64_t have = reserved_g, all = ngran_g;
		hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
		__atomic_store_n(&hmpt_arena_size_g, (uintptr_t)have << HMPT_GRANULE_SHIFT,
		                 __ATOMIC_RELEASE);
		hmpt_lock_drop(&lock_g);
		if (all > have &&
		    munmap(gran_addr(have), (size_t)(all - have) << HMPT_GRANULE_SHIFT) != 0) {
			__atomic_store_n(&hmpt_arena_size_g, (uintptr_t)all << HMPT_GRANULE_SHIFT,
			                 __ATOMIC_RELEASE);
			hmpt_lock_drop(&grow_lock_g);
			return 0;
		}
		given = all - have;
		/* as under the limit at start (boot.c): an eighth at a time */
		__atomic_store_n(&step_g, n / 8 ? n / 8 : 1, __ATOMIC_RELAXED);
	}
	/* a capacity within the limit: the tables' address space beyond it
	 * back too (never below what they cover) */
	if (n < cover_g)
		n = cover_g;
	if (n && n < ngran_g) {
		for (int t = 0; t < NTAB; t++)
			if (tab_bytes(t, ngran_g) > tab_bytes(t, n))
				munmap(tab_g[t] + tab_bytes(t, n),
				       tab_bytes(t, ngran_g) - tab_bytes(t, n));
		__atomic_store_n(&ngran_g, n, __ATOMIC_RELAXED);
	}
	given += cut_tail(0);
	hmpt_lock_drop(&grow_lock_g);
	return given << HMPT_GRANULE_SHIFT;
}

/* a free granule the arena may map afresh: mapped, and not lost (a lost
 * granule's mapping is another's) */
static bool resettable(uint64_t g)
{
	return rw_g[g] != GRAN_UNMAPPED && taint_at(g) != TAINT_LOST;
}

uint64_t hmpt_arena_keep_none(void)
{
	uint64_t dropped = 0;

	hmpt_lock_take(&grow_lock_g, HMPT_LOCK_ARENA_GROW);
	hmpt_lock_take(&lock_g, HMPT_LOCK_ARENA);
	__atomic_store_n(&lean_g, 1, __ATOMIC_RELAXED);
	/* every free granule that is mapped back to reserved address space, at
	 * once under the lock (a few system calls, once in a process's life) */
	for (size_t e = 0; e < free_g.n; e++) {
		uint64_t end = free_g.v[e].start + free_g.v[e].len;
		for (uint64_t i = free_g.v[e].start; i < end;) {
			uint64_t j = i + 1;
			bool mapped = resettable(i);
			while (j < end && resettable(j) == mapped)
				j++;
			if (mapped) {
				kept_g -= kept_in(i, j - i);
				kept_unlink_run(i, j - i);
				reset_run(i, j - i);
				dropped += j - i;
			}
			i = j;
		}
	}
	hmpt_lock_drop(&lock_g);
	hmpt_lock_drop(&grow_lock_g);
	return dropped << HMPT_GRANULE_SHIFT;
}
