/* arena.c — see arena.h. */
#include "arena.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "extents.h"
#include "sys.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

uintptr_t hmpt_arena_base_g;
uintptr_t hmpt_arena_size_g;

static pthread_mutex_t lock_g = PTHREAD_MUTEX_INITIALIZER;
static hmpt_extents_t free_g;
static hmpt_block_t *blocks_g;	/* one record per granule */
static uint64_t ngran_g;
static size_t page_g = 4096;
static int dontunmap_g = 1;	/* mremap(MREMAP_DONTUNMAP) works here */

void hmpt_arena_lock(void)
{
	pthread_mutex_lock(&lock_g);
}

void hmpt_arena_unlock(void)
{
	pthread_mutex_unlock(&lock_g);
}

void hmpt_arena_reset_lock(void)
{
	pthread_mutex_init(&lock_g, NULL);
}

static size_t round_page(size_t n)
{
	return (n + page_g - 1) & ~(page_g - 1);
}

static uint64_t granules(size_t bytes)
{
	return (bytes + HMPT_GRANULE - 1) >> HMPT_GRANULE_SHIFT;
}

static char *gran_addr(uint64_t g)
{
	return (char *)(hmpt_arena_base_g + (g << HMPT_GRANULE_SHIFT));
}

/* Give [p, p+len) back to the reservation: memory released, no access. */
static int unmap_range(char *p, size_t len)
{
	if (!len)
		return 0;
	void *r = mmap(p, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
		       -1, 0);
	return r == MAP_FAILED ? -errno : 0;
}

/* Fresh zero-filled read-write pages over [p, p+len). */
static int map_range(char *p, size_t len)
{
	if (!len)
		return 0;
	void *r = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		       -1, 0);
	return r == MAP_FAILED ? -errno : 0;
}

int hmpt_arena_init(uint64_t size)
{
	uint64_t n = size >> HMPT_GRANULE_SHIFT;
	size_t ext_cap = (size_t)(n / 2 + 2);
	void *base, *blocks, *ext;
	long ps = sysconf(_SC_PAGESIZE);

	if (ps > 0)
		page_g = (size_t)ps;
	if (n == 0)
		return -EINVAL;
	/* over-reserve one granule so the start can be granule-aligned */
	size_t len = (size_t)(n + 1) << HMPT_GRANULE_SHIFT;
	base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return -errno;
	uintptr_t b = ((uintptr_t)base + HMPT_GRANULE - 1) & ~(uintptr_t)(HMPT_GRANULE - 1);
	blocks = hmpt_sys_map(n * sizeof(hmpt_block_t));
	ext = hmpt_sys_map(ext_cap * sizeof(hmpt_extent_t));
	if (!blocks || !ext) {
		hmpt_sys_unmap(blocks, n * sizeof(hmpt_block_t));
		hmpt_sys_unmap(ext, ext_cap * sizeof(hmpt_extent_t));
		munmap(base, len);
		return -ENOMEM;
	}
	blocks_g = blocks;
	ngran_g = n;
	hmpt_extents_init(&free_g, ext, ext_cap, n);
	hmpt_arena_size_g = (uintptr_t)n << HMPT_GRANULE_SHIFT;
	__atomic_store_n(&hmpt_arena_base_g, b, __ATOMIC_RELEASE);
	return 0;
}

static int64_t take(uint64_t n, uint64_t align_gran)
{
	pthread_mutex_lock(&lock_g);
	int64_t g = hmpt_extents_take(&free_g, n, align_gran);
	pthread_mutex_unlock(&lock_g);
	return g;
}

static void give(uint64_t g, uint64_t n)
{
	pthread_mutex_lock(&lock_g);
	/* -ENOSPC cannot happen: the table holds n/2+2 extents */
	hmpt_extents_give(&free_g, g, n);
	pthread_mutex_unlock(&lock_g);
}

void *hmpt_arena_alloc(size_t size, size_t align, uint32_t site)
{
	size_t mapped = round_page(size);
	uint64_t n = granules(mapped);
	uint64_t ag = align > HMPT_GRANULE ? align >> HMPT_GRANULE_SHIFT : 1;
	int64_t g;
	int rc;

	if (size == 0 || mapped < size || align > HMPT_ARENA_MAX_ALIGN) {
		errno = ENOMEM;
		return NULL;
	}
	g = take(n, ag);
	if (g < 0) {
		errno = ENOMEM;
		return NULL;
	}
	rc = map_range(gran_addr((uint64_t)g), mapped);
	if (rc) {
		unmap_range(gran_addr((uint64_t)g), mapped);
		give((uint64_t)g, n);
		errno = -rc;
		return NULL;
	}
	pthread_mutex_lock(&lock_g);
	blocks_g[g] = (hmpt_block_t){.size = size, .mapped = mapped, .ngran = (uint32_t)n,
				     .site = site};
	pthread_mutex_unlock(&lock_g);
	return gran_addr((uint64_t)g);
}

/* granule index of a block start, or -1 */
static int64_t block_index(const void *p)
{
	uintptr_t off = (uintptr_t)p - hmpt_arena_base_g;

	if (off >= hmpt_arena_size_g || (off & (HMPT_GRANULE - 1)))
		return -1;
	return (int64_t)(off >> HMPT_GRANULE_SHIFT);
}

int hmpt_arena_lookup(const void *p, hmpt_block_t *out)
{
	int64_t g = block_index(p);
	int rc = -EINVAL;

	if (g < 0)
		return rc;
	pthread_mutex_lock(&lock_g);
	if (blocks_g[g].ngran) {
		*out = blocks_g[g];
		rc = 0;
	}
	pthread_mutex_unlock(&lock_g);
	return rc;
}

int hmpt_arena_free(void *p, hmpt_block_t *out)
{
	int64_t g = block_index(p);

	if (g < 0)
		return -EINVAL;
	pthread_mutex_lock(&lock_g);
	*out = blocks_g[g];
	blocks_g[g].ngran = 0;
	pthread_mutex_unlock(&lock_g);
	if (!out->ngran)
		return -EINVAL;
	/* If the range cannot be re-reserved, keep it out of the free set: a
	 * hole someone else might map must never be handed out again. */
	if (unmap_range(p, out->mapped) == 0)
		give((uint64_t)g, out->ngran);
	return 0;
}

/* Move the pages of [old, old+len) to `to` without copying, leaving the old
 * range mapped and empty.  -EINVAL/-ENOSYS when the kernel cannot. */
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

/* Extend the block at granule g from `have` to `want` granules in place. */
static bool take_at_grow(int64_t g, uint64_t have, uint64_t want)
{
	pthread_mutex_lock(&lock_g);
	int rc = hmpt_extents_take_at(&free_g, (uint64_t)g + have, want - have);
	pthread_mutex_unlock(&lock_g);
	return rc == 0;
}

void *hmpt_arena_realloc(void *p, size_t size, uint32_t site, hmpt_block_t *old)
{
	int64_t g = block_index(p);
	size_t mapped = round_page(size);
	uint64_t n = granules(mapped);
	char *base = p;
	int rc;

	if (g < 0 || hmpt_arena_lookup(p, old) != 0) {
		errno = EINVAL;
		return NULL;
	}
	if (size == 0 || mapped < size) {
		errno = ENOMEM;
		return NULL;
	}
	if (n <= old->ngran || take_at_grow(g, old->ngran, n)) {
		/* in place: map or release the difference */
		if (mapped > old->mapped)
			rc = map_range(base + old->mapped, mapped - old->mapped);
		else
			rc = unmap_range(base + mapped, old->mapped - mapped);
		if (rc) {
			if (n > old->ngran)
				give((uint64_t)g + old->ngran, n - old->ngran);
			errno = -rc;
			return NULL;
		}
		if (n < old->ngran)
			give((uint64_t)g + n, old->ngran - n);
		pthread_mutex_lock(&lock_g);
		blocks_g[g] = (hmpt_block_t){.size = size, .mapped = mapped, .ngran = (uint32_t)n,
					     .site = site};
		pthread_mutex_unlock(&lock_g);
		return p;
	}
	/* elsewhere: a new extent, pages moved or copied */
	int64_t ng = take(n, 1);
	if (ng < 0) {
		errno = ENOMEM;
		return NULL;
	}
	char *to = gran_addr((uint64_t)ng);
	rc = move_pages_to(base, to, old->mapped);
	if (rc == 0) {
		rc = map_range(to + old->mapped, mapped - old->mapped);
		if (rc) { /* put the pages back where they were */
			move_pages_to(to, base, old->mapped);
			unmap_range(to, mapped);
		}
	} else {
		rc = map_range(to, mapped);
		if (rc == 0)
			memcpy(to, base, old->mapped); /* usable size, not requested */
	}
	if (rc) {
		unmap_range(to, mapped);
		give((uint64_t)ng, n);
		errno = -rc;
		return NULL;
	}
	pthread_mutex_lock(&lock_g);
	blocks_g[ng] = (hmpt_block_t){.size = size, .mapped = mapped, .ngran = (uint32_t)n,
				      .site = site};
	blocks_g[g].ngran = 0;
	pthread_mutex_unlock(&lock_g);
	if (unmap_range(base, old->mapped) == 0)
		give((uint64_t)g, old->ngran);
	return to;
}

uint64_t hmpt_arena_free_bytes(void)
{
	pthread_mutex_lock(&lock_g);
	uint64_t f = hmpt_extents_free_total(&free_g);
	pthread_mutex_unlock(&lock_g);
	return f << HMPT_GRANULE_SHIFT;
}
