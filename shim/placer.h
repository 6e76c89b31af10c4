/* placer.h — plan -> site -> pool.
 *
 * The plan is read once, at the first tracked request (in the constructor
 * with HMPT_STRICT=1 or static data to place), with the guard held: the
 * topology is read and the pools are resolved (pool.h).  A site's pool is
 * decided at its first allocation (most specific plan site wins) and kept
 * in the placer's own table, indexed like the site table, with what the
 * site put in each pool.  The table is read and written with the sites
 * lock held.
 *
 * The sites (sites.h) are set up here too, once: a plan's "stack" sites
 * set the depth their stacks are compared at.
 */
#ifndef HMPT_PLACER_H
#define HMPT_PLACER_H

#include <stdbool.h>
#include <stdint.h>

#include "boot.h"
#include "plan.h"
#include "pool.h"
#include "sites.h"

/* a site's placement under the plan in force */
typedef struct {
	bool decided;
	int16_t pool;              /* the planned pool (pool.h), -1: system */
	int16_t rest;              /* split: the pool of each block's rest */
	uint32_t share;            /* split: parts per million in pool; ONE: none */
	int32_t plan_site;         /* the matching plan site, or -1 */
	uint32_t nplaced;          /* entries in placed */
	hmpt_site_place_t *placed; /* [0]: system, [1 + i]: pool i */
} hmpt_placer_site_t;

extern HMPT_HIDDEN bool hmpt_placing_g; /* a plan is in force */
extern HMPT_HIDDEN hmpt_plan_t hmpt_plan_g;
/* the plan's pools (pool.h), resolved with it */
extern HMPT_HIDDEN hmpt_pools_t hmpt_pools_g;
/* fork (forktab.h): the pools' lock */
void hmpt_placer_pools_lock(void);
void hmpt_placer_pools_unlock(void);
void hmpt_placer_pools_reset_lock(void);

/* Read the plan and resolve its pools, once. */
void hmpt_placer_init(void);
/* Set the sites up, once; false when they cannot be used. */
bool hmpt_placer_sites_init(void);
bool hmpt_placer_sites_ready(void);

/* The pool planned for a site (taking the sites lock), decided the first
 * time it is asked. */
int hmpt_placer_site_pool(uint32_t site);
/* The pool for a site of n identity frames (siteid.h) under `plan`, and the
 * plan site that placed it (or -1): the most specific plan site; else the
 * default pool for heap sites, "system" for static data. */
int hmpt_placer_decide(const hmpt_plan_t *plan, const uint64_t *name_hashes,
                       const uint64_t *offsets, uint32_t n, bool is_static, int32_t *plan_site);

/* hmpt_placer_site_pool with the site's split (plan "share", version 3): the share in
 * parts per million (HMPT_PLAN_SHARE_ONE: its blocks go whole to the pool)
 * and the pool of the rest, decided with the pool.  A split whose pools
 * (or their fallbacks) are hugetlb or memkind ones cannot be made: whole
 * blocks, said once. */
int hmpt_placer_site_split(uint32_t site, uint32_t *share, int *rest);

/* with the sites lock held: */
/* one allocation of `bytes` that site put in pool (-1: system) */
void hmpt_placer_count(uint32_t site, int pool, uint64_t bytes);
/* the site's placement, NULL while undecided */
const hmpt_placer_site_t *hmpt_placer_site(uint32_t site);
/* fork child: the counts start again from zero (static data's stay) */
void hmpt_placer_reset_counts(void);

#endif
