/* track.c — tracked blocks (track.h): allocated where the plan says,
 * along the fallback chain, and counted to their site. */
#include "track.h"

#include <errno.h>
#include <string.h>

#include "arena.h"
#include "boot.h"
#include "log.h"
#include "placer.h"
#include "sample.h"
#include "sites.h"
#include "thresh.h"
#include "sys.h"

static int warned_invalid_free_g, warned_arena_g, warned_track_g;

bool hmpt_track_lookup(void *p, hmpt_track_block_t *b)
{
	hmpt_backend_pool_t *bp;
	hmpt_backend_block_t a;

	if (hmpt_backend_lookup(p, &a, &bp) != 0)
		return false;
	*b = (hmpt_track_block_t){a.size,       a.usable, a.site,       a.tag, a.head_tag,
	                          a.head_bytes, bp,       a.unobserved, a.born};
	return true;
}

/* The bytes of a `size` block that go to the group's pool under a share
 * (parts per million): whole granules, the nearest count to the share. */
static uint64_t split_head(size_t size, uint32_t share)
{
	uint64_t gran = ((uint64_t)size + HMPT_GRANULE - 1) >> HMPT_GRANULE_SHIFT;
	uint64_t head = (gran * share + HMPT_PLAN_SHARE_ONE / 2) / HMPT_PLAN_SHARE_ONE;
	return head << HMPT_GRANULE_SHIFT;
}

/* A split block: `head` bytes along `pool`'s chain, the rest along
 * `rest`'s, each charged to the pool it lands in.  NULL (errno): not made,
 * nothing charged; where both parts land in one placement the block is
 * whole. */
static void *place_split(uint32_t site, size_t size, size_t align, bool zero, int pool, int rest,
                         uint64_t head, uint64_t id)
{
	hmpt_choice_t h, t;
	void *p;

	hmpt_pools_choose(&hmpt_pools_g, pool, head, id, &h);
	hmpt_pools_choose(&hmpt_pools_g, rest, size - head, id, &t);
	if (h.tag == t.tag) /* head is whole pages: the charges add up to the whole's */
		p = t.bp->be->ops->alloc(t.bp, size, align, zero, site, t.tag);
	else
		p = t.bp->be->ops->alloc_split(t.bp, size, align, zero, site, t.tag, h.tag, head);
	if (!p) {
		int saved = errno;
		hmpt_pools_release(&hmpt_pools_g, h.tag, h.bytes);
		hmpt_pools_release(&hmpt_pools_g, t.tag, t.bytes);
		errno = saved;
		return NULL;
	}
	hmpt_sites_lock();
	if (h.tag == t.tag) {
		hmpt_placer_count(site, t.pool, size);
	} else {
		hmpt_placer_count(site, h.pool, head);
		hmpt_placer_count(site, t.pool, size - head);
	}
	hmpt_sites_unlock();
	return p;
}

/* Allocate for `site` as the plan says, along the fallback chain; NULL:
 * not even the "system" placement could be made (the arena is full). */
static void *place_alloc(uint32_t site, size_t size, size_t align, bool zero)
{
	hmpt_choice_t c = {.pool = HMPT_POOL_SYSTEM, .bp = &hmpt_backend_arena_g};
	uint64_t id = hmpt_sites_get(site)->id;
	void *p;

	if (hmpt_placing_g) {
		uint32_t share;
		int rest, pool = hmpt_placer_site_split(site, &share, &rest);
		if (align <= HMPT_GRANULE && share < HMPT_PLAN_SHARE_ONE) {
			uint64_t head = split_head(size, share);
			if (head == 0)
				pool = rest; /* less than half a granule's worth */
			else if (head < size && (p = place_split(site, size, align, zero, pool,
			                                         rest, head, id)) != NULL)
				return p;
		}
		hmpt_pools_choose(&hmpt_pools_g, pool, size, id, &c);
	}
	for (;;) {
		p = c.bp->be->ops->alloc(c.bp, size, align, zero, site, c.tag);
		if (p || !hmpt_placing_g || !hmpt_pools_refuse(&hmpt_pools_g, &c, size, id, errno))
			break;
	}
	if (p && hmpt_placing_g) {
		hmpt_sites_lock();
		hmpt_placer_count(site, c.pool, size);
		hmpt_sites_unlock();
	}
	return p;
}

/* Release a tracked block: its memory, its charge, its site's live bytes. */
static void block_free(void *p, const hmpt_track_block_t *b)
{
	hmpt_backend_block_t a;

	bool sampled = b->bp->be->caps.sampled;

	if (sampled)
		hmpt_sample_before_release((uintptr_t)p, b->usable, b->site, b->born, b->unobserved,
		                           true);
	if (b->bp->be->ops->free(b->bp, p, &a) == 0 && sampled)
		hmpt_sample_note_gone((uintptr_t)p, a.usable, a.site, a.born, a.unobserved);
	/* a split block's head (none: 0 bytes), then the rest */
	hmpt_pools_release(&hmpt_pools_g, b->head_tag, b->head_bytes);
	hmpt_pools_release(&hmpt_pools_g, b->tag,
	                   hmpt_pools_round(&hmpt_pools_g, b->tag, b->size - b->head_bytes));
	hmpt_sites_lock();
	hmpt_sites_note_free(b->site, b->size);
	hmpt_sites_unlock();
}

/* ------------------------------------------------------------- tracking */

static void note_untracked(const char *why, size_t size)
{
	if (hmpt_placer_sites_ready()) {
		hmpt_sites_lock();
		hmpt_sites_note_untracked();
		hmpt_sites_unlock();
	}
	if (why && hmpt_log_first(&warned_track_g))
		hmpt_log_printf(
		    HMPT_LOG_WARN,
		    "could not track an allocation of %s (%s); it and any like it go to "
		    "the normal allocator",
		    HMPT_SIZE(size), why);
}

static void log_tracked(const char *what, void *p, size_t size, uint32_t site)
{
	char buf[256];
	hmpt_fmt_t f;
	hmpt_track_block_t b;

	if (hmpt_log_level_g < HMPT_LOG_DEBUG)
		return;
	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_fmt_printf(&f, "%s %s at 0x%llx site %016llx", what, HMPT_SIZE(size),
	                (unsigned long long)(uintptr_t)p,
	                (unsigned long long)hmpt_sites_get(site)->id);
	if (hmpt_placing_g && hmpt_track_lookup(p, &b))
		hmpt_fmt_printf(
		    &f, " pool %s",
		    hmpt_plan_pool_name(&hmpt_plan_g, hmpt_pools_tag_pool(&hmpt_pools_g, b.tag)));
	hmpt_log_end(&f, HMPT_LOG_DEBUG);
}

/* Set up plan and sites (once); false when sites cannot be used. */
static bool ready_to_track(void)
{
	hmpt_placer_init();
	return hmpt_placer_sites_init();
}

/* Capture the site and allocate as planned; NULL means "not tracked, use
 * the normal allocator" (errno preserved). */
void *hmpt_track_alloc(size_t size, size_t align, bool zero)
{
	int saved = errno;
	void *p = NULL;

	/* more than the arena holds: the normal allocator answers (ENOMEM) */
	if (!hmpt_tracking_g || align > HMPT_ARENA_MAX_ALIGN || size > hmpt_arena_capacity())
		return NULL;
	if (hmpt_guard_held()) { /* a large request from hmpt's own callees */
		note_untracked(NULL, size);
		return NULL;
	}
	hmpt_guard_enter();
	if (!ready_to_track())
		goto out;
	uint32_t site = hmpt_sites_capture();
	p = place_alloc(site, size, align, zero);
	if (!p) {
		note_untracked(errno == ENOMEM ? "arena full or memory refused" : "mapping failed",
		               size);
		goto out;
	}
	hmpt_sites_lock();
	hmpt_sites_note_alloc(site, size, hmpt_sys_now_ns());
	hmpt_sites_unlock();
	log_tracked("track", p, size, site);
out:
	hmpt_guard_leave();
	errno = saved;
	return p;
}

static void warn_invalid_free(void *p)
{
	if (hmpt_log_first(&warned_invalid_free_g))
		hmpt_log_printf(HMPT_LOG_WARN,
		                "free(0x%llx): not the start of a live tracked block (double "
		                "free?); ignored",
		                (unsigned long long)(uintptr_t)p);
}

/* free() of a pointer in the arena, or of a live memkind block */
void hmpt_track_free(void *p, bool by_free)
{
	hmpt_track_block_t b;

	if (!hmpt_track_lookup(p, &b)) {
		warn_invalid_free(p);
		return;
	}
	if (by_free && hmpt_thresh_following())
		hmpt_thresh_note_free(b.size); /* what glibc's free would have done */
	hmpt_guard_enter();
	block_free(p, &b);
	hmpt_guard_leave();
}

/* realloc of a tracked block to a new tracked size: in place when the new
 * site's placement is the block's own, else a new block (placed for the new
 * site, along its fallback chain) and a copy.  NULL, errno set: nothing
 * changed. */
static void *track_resize(void *p, const hmpt_track_block_t *old, size_t size)
{
	uint32_t site = hmpt_sites_capture();
	hmpt_backend_block_t was;
	void *q = NULL;
	uint32_t share = HMPT_PLAN_SHARE_ONE;
	int rest, pool = hmpt_placing_g ? hmpt_placer_site_split(site, &share, &rest) : 0;

	/* a split block, or one of a site that splits, is placed anew: split
	 * again for its new size */
	if (old->bp->be->ops->resize && !old->head_bytes && share == HMPT_PLAN_SHARE_ONE &&
	    (!hmpt_placing_g || hmpt_pools_tag_pool(&hmpt_pools_g, old->tag) == pool)) {
		/* same pool: grow or shrink in place, or move the pages, if the
		 * placement's budget takes the new size */
		uint64_t before = hmpt_pools_round(&hmpt_pools_g, old->tag, old->size);
		uint64_t after = hmpt_pools_round(&hmpt_pools_g, old->tag, size);
		if (hmpt_pools_regrow(&hmpt_pools_g, old->tag, before, after)) {
			if (old->bp->be->caps.sampled)
				hmpt_sample_before_release((uintptr_t)p, old->usable, old->site,
				                           old->born, old->unobserved, false);
			q = old->bp->be->ops->resize(old->bp, p, size, site, &was);
			if (q && q != p) /* moved: samples at the old range before now are its */
				hmpt_sample_note_gone((uintptr_t)p, was.usable, was.site, was.born,
				                      was.unobserved);
			if (q)
				goto done;
			hmpt_pools_regrow(&hmpt_pools_g, old->tag, after, before);
		}
	}
	/* elsewhere: a new block where the plan says, then the copy */
	q = place_alloc(site, size, 0, false);
	if (!q)
		return NULL;
	memcpy(q, p, size < old->usable ? size : old->usable);
	block_free(p, old);
	hmpt_sites_lock();
	hmpt_sites_note_alloc(site, size, hmpt_sys_now_ns());
	hmpt_sites_unlock();
	log_tracked("realloc", q, size, site);
	return q;
done:
	hmpt_pools_count(&hmpt_pools_g, old->tag, hmpt_pools_round(&hmpt_pools_g, old->tag, size));
	hmpt_sites_lock();
	if (hmpt_placing_g)
		hmpt_placer_count(site, hmpt_pools_tag_pool(&hmpt_pools_g, old->tag), size);
	hmpt_sites_note_free(old->site, old->size);
	hmpt_sites_note_alloc(site, size, hmpt_sys_now_ns());
	hmpt_sites_unlock();
	log_tracked("realloc", q, size, site);
	return q;
}

/* realloc of a tracked block */
void *hmpt_track_realloc(void *p, size_t size)
{
	hmpt_track_block_t old;
	void *q;

	if (size == 0) { /* glibc: realloc(p, 0) frees p and returns NULL */
		hmpt_track_free(p, false);
		return NULL;
	}
	if (!hmpt_track_lookup(p, &old)) {
		errno = EINVAL;
		return NULL;
	}
	if (size >= hmpt_min_size_g && !hmpt_guard_held()) {
		int saved = errno;
		hmpt_guard_enter();
		q = track_resize(p, &old, size);
		hmpt_guard_leave();
		if (q) {
			errno = saved;
			return q;
		}
		if (errno == ENOMEM && hmpt_log_first(&warned_arena_g))
			hmpt_log_msg(HMPT_LOG_WARN,
			             "realloc: the arena is full; the block moves to "
			             "the normal allocator");
		errno = saved;
	}
	/* now small (or the arena is full): move to the normal allocator */
	q = hmpt_real_malloc_g(size);
	if (!q)
		return NULL; /* errno set; p is untouched */
	memcpy(q, p, size < old.usable ? size : old.usable);
	hmpt_track_free(p, false);
	return q;
}
