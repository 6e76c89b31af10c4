/* plan.h — placement plans (docs/plan-format.md): read, validate, match.
 *
 * Why one loader: the shim enforces plans and hmpt-tune checks and writes
 * them; both must accept exactly the same files and say the same thing
 * about the bad ones.
 *
 * Contract: hmpt_plan_parse() validates a whole document against the format
 * (not against the machine: that is pool.h's job) and fills `plan`.  On a bad
 * document it returns -EINVAL and writes one message into `err`:
 * "FILE:LINE:COL: FIELD: what was expected, got what" (or "FILE: ..." when
 * there is no position); -ENOMEM when memory is refused.  hmpt_plan_load()
 * reads the file first (-errno with the file named).  No malloc and no
 * stdio: the plan lives in anonymous mappings released by hmpt_plan_free().
 * The plan is read-only afterwards; its strings stay valid until freed.
 */
#ifndef HMPT_PLAN_H
#define HMPT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "json.h"
#include "topo.h"

#define HMPT_PLAN_FORMAT "hmpt-plan"
/* the layout with each site's frames inline: what hmpt-tune builds a plan
 * in (planout.c writes it as HMPT_PLAN_VERSION_COMPACT); 1 is read too:
 * siteid.h */
#define HMPT_PLAN_VERSION 2
/* a group's "share" (a split placement) needs this version or later */
#define HMPT_PLAN_VERSION_SPLIT 3
/* frames written once, in a top-level table that sites name by index:
 * what hmpt-tune writes */
#define HMPT_PLAN_VERSION_COMPACT 4
#define HMPT_PLAN_MAX_POOLS       32
#define HMPT_PLAN_MAX_BYTES       (64u << 20)
#define HMPT_POOL_NAME_MAX        32
/* What the shim says, in words hmpt-tune compare looks for in a run's
 * output: a plan that could not be used (placer.c), one whose sites
 * matched no allocation at all (stale.c). */
#define HMPT_PLAN_SAID_UNUSED  "the program runs with default placement"
#define HMPT_PLAN_SAID_NOTHING "placed nothing"
/* the normal allocator's placement, usable wherever a pool is named */
#define HMPT_POOL_SYSTEM      (-1)
#define HMPT_POOL_SYSTEM_NAME "system"

typedef enum {
	HMPT_NODES_NONE, /* no node policy */
	HMPT_NODES_ALL,
	HMPT_NODES_HBM,
	HMPT_NODES_DDR,
	HMPT_NODES_LIST,
	HMPT_NODES_TIER, /* "tier": a memory tier of topo.h */
} hmpt_nodes_t;
/* "tier": "slowest" (a tier number counts from 0, "fastest") */
#define HMPT_TIER_SLOWEST (-1)
typedef enum { HMPT_POLICY_BIND, HMPT_POLICY_PREFERRED, HMPT_POLICY_INTERLEAVE } hmpt_policy_t;
typedef enum { HMPT_PAGES_DEFAULT, HMPT_PAGES_4K, HMPT_PAGES_THP, HMPT_PAGES_HUGETLB } hmpt_pages_t;

typedef struct hmpt_plan_pool {
	char name[HMPT_POOL_NAME_MAX];
	const hmpt_backend_t *backend; /* its registry row (backend.h) */
	hmpt_nodes_t nodes;
	hmpt_nodemask_t list; /* HMPT_NODES_LIST */
	int tier;             /* HMPT_NODES_TIER: 0 fastest, or HMPT_TIER_SLOWEST */
	bool local;           /* HBM/DDR/tier: the nodes local to the allocating thread */
	hmpt_policy_t policy;
	hmpt_pages_t pages;
	uint64_t capacity;     /* bytes; 0 = not given */
	uint32_t capacity_pct; /* 1-100 of the nodes' memory; 0 = not given */
	int fallback;          /* pool index or HMPT_POOL_SYSTEM */
	int kind;              /* "kind": index into the backend's kinds, or -1 */
	const char *file;      /* "file": the path, or NULL */
	uint32_t line;         /* where the pool is defined */
} hmpt_plan_pool_t;

typedef struct {
	uint32_t nframes;
	const char **modules;  /* base names */
	uint64_t *name_hashes; /* hmpt_hash_module of each */
	uint64_t *offsets;
	/* the identity frames (siteid.h): what matching compares */
	uint32_t nid;
	uint64_t *id_hashes, *id_offsets;
	bool prefix;        /* "match": "prefix" */
	bool legacy_prefix; /* a version-1 stack cut at the depth: matched as a prefix */
	bool legacy_anon;   /* its "id" hashed frames in no module (siteid.h): written before */
	uint64_t id;        /* the site id (siteid.h) */
	const char *symbol; /* its first frame for people ("symbols"), or NULL */
	uint32_t group;
	uint32_t line;
} hmpt_plan_site_t;

/* "modules": what the plan was made against */
typedef struct {
	const char *name;
	uint64_t name_hash;
	uint8_t build_id[32];
	uint8_t build_id_len; /* 0: not given */
	uint32_t line;
} hmpt_plan_module_t;

/* parts per million of a block's bytes: a group's "share" */
#define HMPT_PLAN_SHARE_ONE 1000000u

typedef struct {
	const char *name;
	int pool; /* index or HMPT_POOL_SYSTEM */
	/* split placement (version 3): the first `share` of each block's bytes
	 * (in 2 MiB granules, rounded to the nearest) in `pool`, the rest in
	 * `rest`; share HMPT_PLAN_SHARE_ONE: the whole block in `pool` */
	uint32_t share; /* parts per million, 1 to HMPT_PLAN_SHARE_ONE */
	int rest;       /* index or HMPT_POOL_SYSTEM: "rest", else the default pool */
	uint32_t first_site, nsites;
	uint32_t line;
} hmpt_plan_group_t;

/* A slot of the match index: the first site (in plan order) of a class of
 * sites with the same identity frames and match, `key` their id. */
typedef struct {
	uint64_t key;
	uint32_t head, tail; /* site + 1 (0: an empty slot); the class's last */
	uint32_t kind;       /* 0 "stack", 1 "prefix", 2 a legacy prefix */
} hmpt_plan_slot_t;

typedef struct {
	char path[256]; /* as given, for messages (truncated) */
	uint32_t version;
	int npools;
	hmpt_plan_pool_t pools[HMPT_PLAN_MAX_POOLS];
	int default_pool; /* index or HMPT_POOL_SYSTEM */
	uint32_t ngroups, nsites;
	hmpt_plan_group_t *groups;
	hmpt_plan_site_t *sites;
	bool has_hbm_nodes, has_ddr_nodes;
	hmpt_nodemask_t hbm_nodes, ddr_nodes;
	uint32_t stack_depth; /* 0: not given */
	uint32_t nmodules;
	hmpt_plan_module_t *modules;
	const hmpt_json_t *provenance; /* or NULL */
	hmpt_json_doc_t doc;           /* keeps strings and provenance alive */
	/* matching in O(1): open addressing over the sites' ids; same_next
	 * links a class's sites in plan order; prefix_lens: bit k-1 set when
	 * some prefix site has k identity frames */
	hmpt_plan_slot_t *index;
	uint32_t index_mask;
	uint32_t *same_next;
	uint64_t prefix_lens;
	void *mem; /* the first of a chain of mappings (plan.c) */
	size_t mem_len;
} hmpt_plan_t;

int hmpt_plan_parse(const char *text, size_t len, const char *path, hmpt_plan_t *plan, char *err,
                    size_t errlen);
int hmpt_plan_load(const char *path, hmpt_plan_t *plan, char *err, size_t errlen);
void hmpt_plan_free(hmpt_plan_t *plan);

/* The plan site that places a stack whose n identity frames (siteid.h)
 * are given as module-name hashes and offsets: the most specific match (a
 * whole-stack match, else the longest prefix; of equals, the first in the
 * plan); -1 when none.  O(n) in the stack, whatever the plan's size: a
 * lookup of the stack's id, and of its prefixes' at the lengths the
 * plan's prefix sites have. */
int hmpt_plan_match(const hmpt_plan_t *plan, const uint64_t *name_hashes, const uint64_t *offsets,
                    uint32_t n);
/* The plan's "modules" entry for a module-name hash, or -1. */
int hmpt_plan_module(const hmpt_plan_t *plan, uint64_t name_hash);

/* Pool name for an index (HMPT_POOL_SYSTEM -> "system"). */
const char *hmpt_plan_pool_name(const hmpt_plan_t *plan, int pool);
const char *hmpt_plan_policy_name(hmpt_policy_t p);
const char *hmpt_plan_pages_name(hmpt_pages_t p);
/* a pool's "tier" as the plan says it: "fastest" (0), "slowest", "2" */
void hmpt_plan_tier_format(hmpt_fmt_t *f, int tier);

#endif
