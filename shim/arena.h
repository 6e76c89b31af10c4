/* arena.h — the address range that holds every tracked block.
 *
 * Why: one reserved range makes "is this pointer ours?" a single compare in
 * free/realloc/malloc_usable_size, gives every tracked block its own
 * mapping (so a plan can bind and advise it without touching neighbours),
 * and lets realloc move pages instead of copying them.
 *
 * Layout: the range is cut into 2 MiB granules, reserved PROT_NONE.  Under
 * an address-space limit (RLIMIT_AS counts reserved ranges too) the range
 * is reserved a share at a time as blocks need it, none at start, so
 * that a program that takes its address space at start (a JVM, a Go or V8
 * heap) keeps what it had without hmpt.  Each
 * block starts on a granule boundary (so it can use huge pages) and holds
 * whole granules; a granule is mapped read-write when a block first uses it
 * and stays mapped.  A freed block's pages are kept for reuse, and the
 * oldest kept ones dropped (MADV_DONTNEED: back to the system) while more
 * is kept than the live blocks' bytes or HMPT_ARENA_KEEP_MIN, whichever is
 * more.  Only the pages are kept: a granule whose mapping the program
 * changed (protection, advice, locks, guards, pages unmapped or moved:
 * hmpt_arena_taint, from mapcalls.c) is mapped afresh at free, as glibc's
 * next block would be.
 * The usable size of a block is round_up(size, page), or round_up(size,
 * 2 MiB) for hugetlb placements.  The per-granule bookkeeping is reserved
 * for the capacity and made writable as the arena grows, so that
 * RLIMIT_DATA and mlockall see what is used, not 16 TiB's worth.
 *
 * Placement: every block and every mapped granule carries a tag (pool.h: 0
 * is "system", no policy).  A granule whose mapping was made for another
 * tag is mapped afresh (which clears node policy and page advice) and given
 * to the shaper, so pages placed for one pool never serve another; hugetlb
 * granules are always fresh and are unmapped when their block is freed.
 *
 * Contract: all functions are thread-safe (one internal lock, never held
 * across a system call that can block for long), never call malloc, and
 * return NULL with errno set, or 0 / -errno.  hmpt_arena_init() must have
 * succeeded before any other call except hmpt_arena_owns().
 */
#ifndef HMPT_ARENA_H
#define HMPT_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HMPT_GRANULE_SHIFT 21
#define HMPT_GRANULE       ((size_t)1 << HMPT_GRANULE_SHIFT)
/* largest alignment served from the arena; larger goes to the allocator */
#define HMPT_ARENA_MAX_ALIGN ((size_t)1 << 30)
/* freed pages kept for reuse: within the live blocks' bytes, or this much
 * when that is more (arena.c) */
#define HMPT_ARENA_KEEP_MIN ((uint64_t)64 << 20)

typedef struct {
	uint64_t size;   /* bytes requested */
	uint64_t mapped; /* bytes mapped read-write: round_up(size, page) */
	uint32_t ngran;  /* granules held, 0 = no block starts here */
	uint32_t site;   /* allocation site index */
	uint16_t tag;    /* placement (pool.h), 0 = system */
	/* a split block (plan "share"): its first head_gran granules are
	 * placed as head_tag says, the rest as tag; 0: not split */
	uint16_t head_tag;
	uint32_t head_gran;
	/* page-fault sampling did not observe it: it may hold pages another
	 * block touched, so its faults say nothing of its first touches */
	bool unobserved;
	uint64_t born; /* when the block took its address range (CLOCK_MONOTONIC ns), or 0 */
} hmpt_block_t;

/* How the arena learns what a tag means (pool.h provides both). */
typedef struct {
	/* give a freshly mapped range its placement: 0 or -errno */
	int (*shape)(void *addr, size_t len, uint16_t tag);
	/* this tag maps 2 MiB hugetlb pages */
	bool (*hugetlb)(uint16_t tag);
} hmpt_arena_shaper_t;

/* The reserved range: [base, base + size), size growing (never
 * shrinking) as the arena grows. */
extern uintptr_t hmpt_arena_base_g;
extern uintptr_t hmpt_arena_size_g;

static inline bool hmpt_arena_owns(const void *p)
{
	return (uintptr_t)p - hmpt_arena_base_g <
	       __atomic_load_n(&hmpt_arena_size_g, __ATOMIC_ACQUIRE);
}

/* An arena of `capacity` bytes of address space (rounded down to
 * granules).  initial >= capacity: all of it reserved now.  Otherwise (an
 * address-space limit) its place is chosen now, in the middle of the
 * largest gap in the address space so that nothing else is likely to take
 * it, and it is reserved as blocks need it: a quarter of what it holds,
 * 16 MiB at least and `initial` bytes at most (or what a block needs).
 * Once the limit refuses more, or something else holds the next
 * addresses, allocation fails (ENOMEM).  When no gap holds the capacity,
 * `initial` bytes are reserved now and that is all. */
int hmpt_arena_init(uint64_t capacity, uint64_t initial);
/* Bytes the arena can hold when fully reserved, and the most it reserves
 * at a time as it grows (0: it was all reserved at init). */
uint64_t hmpt_arena_capacity(void);
uint64_t hmpt_arena_step(void);
/* Pure: where to put `len` bytes aligned to `align` (a power of two) in
 * the address space that `maps` (the text of /proc/self/maps) leaves free:
 * the middle of the largest gap between mappings below the stack, no lower
 * than `floor`.  0 if no gap holds it. */
uintptr_t hmpt_arena_pick_hole(const char *maps, uint64_t len, uint64_t align, uint64_t floor);
/* Before any block with a tag other than 0; `s` must stay valid. */
void hmpt_arena_set_shaper(const hmpt_arena_shaper_t *s);
/* A block of `size` bytes aligned to `align` (power of two, <=
 * HMPT_ARENA_MAX_ALIGN) placed as `tag` says; zero-filled when `zero`
 * (calloc: kept pages are cleared or dropped, never faulted in) — otherwise
 * it may reuse the pages of a recently freed block of
 * the same tag.  NULL with errno: ENOMEM (no room, or memory refused), or
 * the shaper's error. */
void *hmpt_arena_alloc(size_t size, size_t align, bool zero, uint32_t site, uint16_t tag);
/* The same, split: the first head_gran granules placed as head_tag says
 * (fewer than the block holds; neither tag hugetlb), the rest as tag. */
void *hmpt_arena_alloc_split(size_t size, size_t align, bool zero, uint32_t site, uint16_t tag,
                             uint16_t head_tag, uint32_t head_gran);
/* Release the block starting at p; its record is copied to *out.
 * -EINVAL: p is not the start of a live block. */
int hmpt_arena_free(void *p, hmpt_block_t *out);
/* The record of the live block starting at p; -EINVAL if none. */
int hmpt_arena_lookup(const void *p, hmpt_block_t *out);
/* From now on, stamp each block with its birth time (sampling needs it to
 * tell a block from the one that held its range before; without sampling
 * the clock is not read and `born` stays 0). */
void hmpt_arena_stamp_births(void);
/* From now on `observe` decides for each new block whether it is observed:
 * an observed block gets clean pages (kept ones dropped, never reused) so
 * that each first touch faults (page-fault sampling counts them; reused
 * pages raise none); the others may reuse kept pages and are marked
 * unobserved.  Called with no arena lock held; must not allocate. */
void hmpt_arena_observe_by(bool (*observe)(uint32_t site));
/* The floor of the budget for kept pages (HMPT_ARENA_KEEP_MIN unless a
 * test sets another), and the bytes kept now (for reports and tests). */
void hmpt_arena_set_keep_min(uint64_t bytes);
uint64_t hmpt_arena_kept_bytes(void);
/* The live block that holds address p (anywhere inside it): its start in
 * *start and its record in *out; -ENOENT if none.  For attributing sampled
 * addresses. */
int hmpt_arena_find(const void *p, uintptr_t *start, hmpt_block_t *out);
/* The first live block starting at or after address `from`: its start in
 * *start and its record in *out; -ENOENT if none (for walking every block
 * at the end of a run). */
int hmpt_arena_next(uintptr_t from, uintptr_t *start, hmpt_block_t *out);
/* Resize the block at p to `size` bytes keeping its contents and its tag,
 * in place when possible, otherwise moving its pages (copying hugetlb
 * ones); the new record gets `site`.  A split block is not resized here
 * (EINVAL): its caller places a new one.  On failure returns NULL (errno) and
 * the block is unchanged.  *old gets the block's record as it was.  A block
 * that moves is born again (its new range is new to it). */
void *hmpt_arena_realloc(void *p, size_t size, uint32_t site, hmpt_block_t *old);
/* Bytes of the arena not in use, reserved or not yet (for reports). */
uint64_t hmpt_arena_free_bytes(void);
/* Limits set after start (limits.c).  From now on the arena reserves its
 * address space as blocks need it, as under an address-space limit at
 * start, within a capacity of `cap` bytes (never less than its tables
 * cover); the free end of its reservation goes back now.  Returns the
 * bytes of address space given back. */
uint64_t hmpt_arena_reserve_as_needed(uint64_t cap);
/* From now on no freed page is kept, and a free granule is reserved
 * address space only (no writable mapping: RLIMIT_DATA, mlockall count
 * those); the kept pages go now.  Returns the bytes unmapped. */
uint64_t hmpt_arena_keep_none(void);
/* The program itself changed the mappings of [addr, addr+len) (mapcalls.h):
 * each granule it meets is mapped afresh when its block is freed (or when
 * it is taken, if it was free), so that no block inherits protection,
 * advice, locks or guards.  `lost`: the range is not the arena's any more
 * (another mapping took it): its granules are never used again.  Takes no
 * lock: a signal handler may call it. */
void hmpt_arena_taint(uintptr_t addr, size_t len, bool lost);
/* fork: the child gets a usable lock */
void hmpt_arena_lock(void);
void hmpt_arena_unlock(void);
void hmpt_arena_reset_lock(void);

#endif
