/* backend.c — the registry of backends (backend.h) and the table of blocks
 * outside the arena.
 *
 * The table is open addressing by address, in an anonymous mapping made at
 * the first block (no malloc); deleted slots keep later entries of a run
 * findable.  Its lock is a leaf: nothing is taken under it.
 */
#include "backend.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "lockrank.h"
#include "sys.h"

/* ----------------------------------------------------------- registry */

static const char *const node_fields_g[] = {"nodes", "tier", "local", "policy", "pages", NULL};
static const char *const memkind_fields_g[] = {"kind", NULL};
static const char *const file_fields_g[] = {"file", NULL};

/* each backend's file defines its ops (and describe): only its row names
 * them */
extern const hmpt_backend_ops_t hmpt_backend_memkind_ops, hmpt_backend_file_ops;
void hmpt_backend_memkind_describe(hmpt_fmt_t *f, const struct hmpt_plan_pool *p);
void hmpt_backend_file_describe(hmpt_fmt_t *f, const struct hmpt_plan_pool *p);

/* weak here only: hmpt-tune defines no node backend (backend.h) */
extern const hmpt_backend_ops_t hmpt_backend_nodes_ops __attribute__((weak));

const hmpt_backend_kind_t hmpt_backend_kinds_g[] = {
    {"hbw", true},
    {"hbw_all", true},
    {"hbw_preferred", true},
    {"hbw_interleave", true},
    {"hbw_hugetlb", true},
    {"hbw_all_hugetlb", true},
    {"hbw_preferred_hugetlb", true},
    {"hugetlb", false},
    {"interleave", false},
    {"regular", false},
    {"default", false},
    {"dax_kmem", false},
    {"dax_kmem_all", false},
    {"dax_kmem_preferred", false},
    {"dax_kmem_interleave", false},
    {"highest_capacity", false},
    {"highest_capacity_preferred", false},
    {"highest_capacity_local", false},
    {"highest_capacity_local_preferred", false},
    {"lowest_latency_local", false},
    {"lowest_latency_local_preferred", false},
    {"highest_bandwidth_local", false},
    {"highest_bandwidth_local_preferred", false},
    {NULL, false},
};

const hmpt_backend_t hmpt_backend_numa = {
    .name = "numa",
    .caps = {.split = true, .statics = true, .sampled = true, .node_fields = true},
    .fields = node_fields_g,
    .ops = &hmpt_backend_nodes_ops,
};

const hmpt_backend_t hmpt_backend_memkind = {
    .name = "memkind",
    .caps = {.outside = true, .hbw_budget = true},
    .fields = memkind_fields_g,
    .required = "kind",
    .hint = "a memkind pool needs a kind, such as \"hbw\"",
    .kinds = hmpt_backend_kinds_g,
    .describe = hmpt_backend_memkind_describe,
    .fork_rank = HMPT_LOCK_MEMKIND,
    .ops = &hmpt_backend_memkind_ops,
};

const hmpt_backend_t hmpt_backend_file = {
    .name = "file",
    .caps = {.outside = true},
    .fields = file_fields_g,
    .required = "file",
    .hint = "a file pool needs a file, such as \"/dev/dax0.0\"",
    .describe = hmpt_backend_file_describe,
    .fork_rank = HMPT_LOCK_FILE_FORK,
    .ops = &hmpt_backend_file_ops,
};

const hmpt_backend_t *const hmpt_backends_g[] = {&hmpt_backend_numa, &hmpt_backend_memkind,
                                                 &hmpt_backend_file, NULL};

const hmpt_backend_t *hmpt_backend_find(const char *name)
{
	for (int i = 0; hmpt_backends_g[i]; i++)
		if (strcmp(hmpt_backends_g[i]->name, name) == 0)
			return hmpt_backends_g[i];
	return NULL;
}

const hmpt_backend_t *hmpt_backend_nodes(void)
{
	return hmpt_backends_g[0];
}

/* ------------------------------------------------------- outside table */

#define TABLE_SLOTS (1u << 16)
typedef struct {
	uintptr_t addr; /* 0: empty, 1: deleted */
	hmpt_backend_pool_t *bp;
	hmpt_backend_block_t b;
} slot_t;
static slot_t *table_g;
uint64_t hmpt_outside_live_g; /* read without the lock by backend.h */
static pthread_mutex_t lock_g = PTHREAD_MUTEX_INITIALIZER;

void hmpt_outside_lock(void)
{
	hmpt_lock_take(&lock_g, HMPT_LOCK_OUTSIDE);
}

void hmpt_outside_unlock(void)
{
	hmpt_lock_drop(&lock_g);
}

void hmpt_outside_reset_lock(void)
{
	hmpt_lock_reset(&lock_g);
}

static uint32_t slot_of(uintptr_t a)
{
	return (uint32_t)((a >> 12) * 0x9e3779b97f4a7c15ull >> 48) & (TABLE_SLOTS - 1);
}

/* with the lock: the slot holding a, or -1 (never for 0 or 1, the
 * addresses of empty and deleted slots) */
static int64_t find(uintptr_t a)
{
	if (a < 2 || !table_g)
		return -1;
	for (uint32_t i = slot_of(a), k = 0; k < TABLE_SLOTS;
	     i = (i + 1) & (TABLE_SLOTS - 1), k++) {
		if (table_g[i].addr == a)
			return i;
		if (table_g[i].addr == 0)
			return -1;
	}
	return -1;
}

int hmpt_outside_add(void *p, const hmpt_backend_block_t *b, hmpt_backend_pool_t *bp)
{
	int rc = 0;

	hmpt_lock_take(&lock_g, HMPT_LOCK_OUTSIDE);
	if (!table_g)
		table_g = hmpt_sys_map(TABLE_SLOTS * sizeof(slot_t));
	if (!table_g) {
		rc = -ENOMEM;
	} else if (hmpt_outside_live_g >= TABLE_SLOTS / 2) {
		rc = -ENOSPC;
	} else {
		uint32_t i = slot_of((uintptr_t)p);
		while (table_g[i].addr > 1)
			i = (i + 1) & (TABLE_SLOTS - 1);
		table_g[i] = (slot_t){.addr = (uintptr_t)p, .bp = bp, .b = *b};
		__atomic_store_n(&hmpt_outside_live_g, hmpt_outside_live_g + 1, __ATOMIC_RELAXED);
	}
	hmpt_lock_drop(&lock_g);
	return rc;
}

static int get(const void *p, hmpt_backend_block_t *out, hmpt_backend_pool_t **bp, bool take)
{
	int64_t i;

	if (((uintptr_t)p & 4095) || !hmpt_outside_any())
		return -ENOENT;
	hmpt_lock_take(&lock_g, HMPT_LOCK_OUTSIDE);
	i = find((uintptr_t)p);
	if (i >= 0) {
		if (out)
			*out = table_g[i].b;
		if (bp)
			*bp = table_g[i].bp;
		if (take) {
			/* the end of a run can be emptied outright */
			table_g[i].addr = table_g[(i + 1) & (TABLE_SLOTS - 1)].addr == 0 ? 0 : 1;
			__atomic_store_n(&hmpt_outside_live_g, hmpt_outside_live_g - 1,
			                 __ATOMIC_RELAXED);
		}
	}
	hmpt_lock_drop(&lock_g);
	return i >= 0 ? 0 : -ENOENT;
}

int hmpt_outside_lookup(const void *p, hmpt_backend_block_t *out, hmpt_backend_pool_t **bp)
{
	return get(p, out, bp, false);
}

int hmpt_outside_take(const void *p, hmpt_backend_block_t *out, hmpt_backend_pool_t **bp)
{
	return get(p, out, bp, true);
}

int hmpt_outside_lookup_op(hmpt_backend_pool_t *bp, const void *p, hmpt_backend_block_t *out)
{
	(void)bp;
	return get(p, out, NULL, false);
}

bool hmpt_outside_owns(const void *p)
{
	return get(p, NULL, NULL, false) == 0;
}

void hmpt_outside_each(void (*fn)(void *p, hmpt_backend_block_t *b, hmpt_backend_pool_t *bp,
                                  void *ctx),
                       void *ctx)
{
	if (!table_g)
		return;
	for (uint32_t i = 0; i < TABLE_SLOTS; i++)
		if (table_g[i].addr > 1)
			fn((void *)table_g[i].addr, &table_g[i].b, table_g[i].bp, ctx);
}
