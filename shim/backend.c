/* backend.c — the arena as a backend (backend.h), and the shim's table of
 * backends.  Node pools' blocks come from the arena, which gives fresh
 * granules their placement through pool.c's shaper (placer.c sets it). */
#include "backend_arena.h"

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

static void *arena_alloc(size_t size, size_t align, bool zero, uint32_t site, uint16_t tag,
                         int kind)
{
	(void)kind;
	return hmpt_arena_alloc(size, align, zero, site, tag);
}

static void *arena_alloc_split(size_t size, size_t align, bool zero, uint32_t site, uint16_t tag,
                               uint16_t head_tag, uint64_t head_bytes)
{
	return hmpt_arena_alloc_split(size, align, zero, site, tag, head_tag,
	                              (uint32_t)(head_bytes >> HMPT_GRANULE_SHIFT));
}

static int arena_free(void *p, hmpt_backend_block_t *out)
{
	hmpt_block_t a;
	int rc = hmpt_arena_free(p, &a);

	if (rc == 0)
		*out = from_arena(&a);
	return rc;
}

static int arena_lookup(const void *p, hmpt_backend_block_t *out)
{
	hmpt_block_t a;
	int rc = hmpt_arena_lookup(p, &a);

	if (rc == 0)
		*out = from_arena(&a);
	return rc;
}

static void *arena_resize(void *p, size_t size, uint32_t site, hmpt_backend_block_t *old)
{
	hmpt_block_t a = {0};
	void *q = hmpt_arena_realloc(p, size, site, &a);

	*old = from_arena(&a);
	return q;
}

const hmpt_backend_ops_t hmpt_backend_arena = {
    .name = "arena",
    .sampled = true,
    .alloc = arena_alloc,
    .alloc_split = arena_alloc_split,
    .free = arena_free,
    .lookup = arena_lookup,
    .resize = arena_resize,
    .lock = hmpt_arena_lock,
    .unlock = hmpt_arena_unlock,
    .reset_lock = hmpt_arena_reset_lock,
};

const hmpt_backend_ops_t *const hmpt_backends_g[2] = {
    [HMPT_BACKEND_NUMA] = &hmpt_backend_arena,
    [HMPT_BACKEND_MEMKIND] = &hmpt_backend_memkind,
};
