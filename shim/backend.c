/* backend.c — the arena as the node backend's ops (backend.h), and the
 * instance its blocks are looked up with.  Node pools' blocks come from
 * the arena, which gives fresh granules their placement through pool.c's
 * shaper (placer.c sets it); the block's tag says which placement, so the
 * ops need nothing of the pool's instance. */
#include "backend_arena.h"

hmpt_backend_pool_t hmpt_backend_arena_g = {.be = &hmpt_backend_numa, .index = -1};

static hmpt_backend_block_t from_arena(const hmpt_block_t *a)
{
	/* a head is fewer granules than the block's (hmpt_arena_alloc_split) */
	return (hmpt_backend_block_t){.size = a->size,
	                              .usable = a->mapped,
	                              .site = a->site,
	                              .tag = a->tag,
	                              .head_tag = a->head_tag,
	                              .head_bytes = (uint64_t)a->head_gran << HMPT_GRANULE_SHIFT,
	                              .born = a->born,
	                              .unobserved = a->unobserved};
}

static void *arena_alloc(hmpt_backend_pool_t *bp, size_t size, size_t align, bool zero,
                         uint32_t site, uint16_t tag)
{
	(void)bp;
	return hmpt_arena_alloc(size, align, zero, site, tag);
}

static void *arena_alloc_split(hmpt_backend_pool_t *bp, size_t size, size_t align, bool zero,
                               uint32_t site, uint16_t tag, uint16_t head_tag, uint64_t head_bytes)
{
	(void)bp;
	return hmpt_arena_alloc_split(size, align, zero, site, tag, head_tag,
	                              (uint32_t)(head_bytes >> HMPT_GRANULE_SHIFT));
}

static int arena_free(hmpt_backend_pool_t *bp, void *p, hmpt_backend_block_t *out)
{
	hmpt_block_t a;
	int rc = hmpt_arena_free(p, &a);

	(void)bp;
	if (rc == 0)
		*out = from_arena(&a);
	return rc;
}

static int arena_lookup(hmpt_backend_pool_t *bp, const void *p, hmpt_backend_block_t *out)
{
	hmpt_block_t a;
	int rc = hmpt_arena_lookup(p, &a);

	(void)bp;
	if (rc == 0)
		*out = from_arena(&a);
	return rc;
}

static void *arena_resize(hmpt_backend_pool_t *bp, void *p, size_t size, uint32_t site,
                          hmpt_backend_block_t *old)
{
	hmpt_block_t a = {0};
	void *q = hmpt_arena_realloc(p, size, site, &a);

	(void)bp;
	*old = from_arena(&a);
	return q;
}

const hmpt_backend_ops_t hmpt_backend_nodes_ops = {
    .alloc = arena_alloc,
    .alloc_split = arena_alloc_split,
    .free = arena_free,
    .lookup = arena_lookup,
    .resize = arena_resize,
};
