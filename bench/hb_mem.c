/* hb_mem.c — pool-backed buffers for hmpt-bench; see hb.h. */
#include <errno.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "hb.h"
#include "log.h"
#include "plan.h"
#include "pool.h"
#include "poolspec.h"

#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << 26)
#endif

static hmpt_topo_t topo_g;
static hmpt_plan_t plan_g, alone_g;
static hmpt_pools_t *pools_g; /* plan_g's */
static char machine_g[512];

const char *hb_mem_machine(void)
{
	return machine_g;
}

static void print_warning(const char *msg, void *ctx)
{
	(void)ctx;
	/* the shim's "no huge pages: its allocations go to its fallback" does
	 * not fit here; hb_mem_alloc says what the pool could not give */
	if (!strstr(msg, "no free 2 MiB huge pages"))
		fprintf(stderr, "hmpt-bench: warning: %s\n", msg);
}

static void quiet_warning(const char *msg, void *ctx)
{
	(void)msg;
	(void)ctx;
}

/* A plan of these pools, named p0, p1... (the user's names may be reserved
 * ones: "system"), with no fallback: a pool that cannot hold an array must
 * say so, not hand it to another */
static int load_plan(hb_pool_t *pools, int n, const int *use, hmpt_plan_t *out, char *err,
                     size_t errlen)
{
	json_t *obj = json_object();
	for (int i = 0; i < n; i++)
		if (use[i]) {
			json_t *spec = json_deep_copy(pools[i].spec);
			char name[16];
			snprintf(name, sizeof(name), "p%d", i);
			json_object_del(spec, "fallback");
			json_object_set_new(obj, name, spec);
		}
	json_t *plan = hmpt_poolspec_plan(obj, NULL);
	char *text = json_dumps(plan, 0);
	int rc = hmpt_plan_parse(text, strlen(text), "--pools", out, err, errlen);
	free(text);
	json_decref(plan);
	json_decref(obj);
	return rc;
}

int hb_mem_setup(hb_pool_t *pools, int n, char *err, size_t errlen)
{
	int use[HB_MAX_POOLS] = {0}, rc;
	hmpt_fmt_t f;

	/* the shim's own messages would speak of "the program": the bench
	 * says what it could not get itself */
	hmpt_log_level_g = -1;
	if (hmpt_poolspec_topo(&topo_g, NULL, err, errlen) != 0)
		return -1;
	hmpt_fmt_init(&f, machine_g, sizeof(machine_g), -1);
	hmpt_topo_describe(&f, &topo_g);
	hmpt_fmt_cstr(&f);
	for (int i = 0; i < n; i++) {
		char why[512];
		int only[HB_MAX_POOLS] = {0};
		pools[i].index = -1;
		only[i] = 1;
		rc = load_plan(pools, n, only, &alone_g, why, sizeof(why));
		if (rc == 0) {
			/* pools of their own, gone with their plan */
			hmpt_pools_t *alone = hmpt_pools_create();
			rc = alone ? hmpt_pools_resolve(alone, &alone_g, &topo_g, print_warning,
			                                NULL, why, sizeof(why))
			           : -ENOMEM;
			if (!alone)
				snprintf(why, sizeof(why), "no memory for the pools");
			hmpt_pools_destroy(alone);
			hmpt_plan_free(&alone_g);
		}
		if (rc) {
			/* "--pools:1: pools.p3.nodes: node 7 is..." -> "nodes: node 7 is..." */
			const char *at = strstr(why, "pools.p");
			if (at) {
				at += strspn(at + 7, "0123456789") + 7;
				at += *at == '.' ? 1 : strspn(at, ": ");
			}
			snprintf(pools[i].why, sizeof(pools[i].why), "%s", at ? at : why);
		} else
			use[i] = 1;
	}
	int k = 0;
	for (int i = 0; i < n; i++)
		k += use[i];
	if (k == 0)
		return 0;
	hmpt_pools_destroy(pools_g);
	pools_g = hmpt_pools_create();
	if (!pools_g) {
		snprintf(err, errlen, "no memory for the pools");
		return -1;
	}
	if (load_plan(pools, n, use, &plan_g, err, errlen) != 0 ||
	    hmpt_pools_resolve(pools_g, &plan_g, &topo_g, quiet_warning, NULL, err, errlen) != 0)
		return -1;
	for (int i = 0, j = 0; i < n; i++) {
		if (!use[i])
			continue;
		hmpt_pool_stats_t st;
		pools[i].index = j;
		hmpt_pools_stats(pools_g, j, &st);
		pools[i].nodes = st.nodes;
		hmpt_fmt_init(&f, pools[i].place, sizeof(pools[i].place), -1);
		hmpt_pools_describe_place(pools_g, &f, j);
		hmpt_fmt_cstr(&f);
		j++;
	}
	return 0;
}

/* What the pool's budget could not give: "1.0 GiB asked, 0 B of free huge
 * pages left (vm.nr_hugepages ...)" */
static void say_short(const hb_pool_t *p, size_t bytes, char *why, size_t whylen)
{
	hmpt_pool_stats_t st;

	hmpt_pools_stats(pools_g, p->index, &st);
	hmpt_fmt_text(
	    why, whylen,
	    "cannot get %s: its budget is %s (%s) and %s of it is in use by this benchmark%s",
	    HMPT_SIZE(bytes), HMPT_SIZE(st.budget), st.budget_from, HMPT_SIZE(st.used),
	    !strcmp(st.budget_from, "free huge pages") && st.budget < bytes
	        ? "; reserve 2 MiB pages first: echo N > /proc/sys/vm/nr_hugepages"
	        : "");
}

/* ------------------------------------------ node pools' own mappings
 * hmpt-bench's backend for node pools: each array a mapping of its own,
 * unmapped when freed (the shim's arena would keep freed pages for reuse
 * by tag, and each plan's tags are its own). */
#define MAPS 256
static struct {
	void *addr, *map; /* 2 MiB-aligned start; what munmap takes */
	size_t map_len;
	hmpt_backend_block_t b;
} maps_g[MAPS];
static char map_why_g[256]; /* what the last failed map_alloc could not do */

static int map_find(const void *p)
{
	for (int i = 0; p && i < MAPS; i++)
		if (maps_g[i].addr == p)
			return i;
	return -1;
}

static void *map_alloc(hmpt_backend_pool_t *bp, size_t size, size_t align, bool zero, uint32_t site,
                       uint16_t tag)
{
	bool huge = hmpt_pools_tag_hugetlb(pools_g, tag);
	int i;
	void *map;
	size_t map_len;

	(void)align; /* HB_HUGE: the mapping's own alignment */
	(void)zero;  /* fresh mappings are */
	(void)bp;
	for (i = 0; i < MAPS && maps_g[i].addr; i++)
		;
	if (i == MAPS) {
		errno = ENOSPC;
		return NULL;
	}
	if (huge) {
		map_len = size;
		map = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		           MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
	} else {
		/* one extra huge page, so that the array starts 2 MiB-aligned and
		 * THP can back all of it */
		map_len = size + HB_HUGE;
		map = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	}
	if (map == MAP_FAILED) {
		snprintf(map_why_g, sizeof(map_why_g), "mmap of %zu bytes%s failed: %s", map_len,
		         huge ? " in 2 MiB huge pages" : "", strerror(errno));
		return NULL;
	}
	void *addr = (void *)(((uintptr_t)map + HB_HUGE - 1) & ~(uintptr_t)(HB_HUGE - 1));
	int rc = hmpt_pools_shape(pools_g, addr, size, tag);
	if (rc) {
		snprintf(map_why_g, sizeof(map_why_g),
		         "the kernel refused its placement (mbind/madvise): %s", strerror(-rc));
		munmap(map, map_len);
		errno = -rc;
		return NULL;
	}
	maps_g[i].addr = addr;
	maps_g[i].map = map;
	maps_g[i].map_len = map_len;
	maps_g[i].b =
	    (hmpt_backend_block_t){.size = size, .usable = size, .site = site, .tag = tag};
	return addr;
}

static int map_lookup(hmpt_backend_pool_t *bp, const void *p, hmpt_backend_block_t *out)
{
	int i = map_find(p);

	(void)bp;
	if (i < 0)
		return -ENOENT;
	*out = maps_g[i].b;
	return 0;
}

static int map_free(hmpt_backend_pool_t *bp, void *p, hmpt_backend_block_t *out)
{
	int i = map_find(p);

	(void)bp;
	if (i < 0)
		return -ENOENT;
	*out = maps_g[i].b;
	munmap(maps_g[i].map, maps_g[i].map_len);
	memset(&maps_g[i], 0, sizeof(maps_g[i]));
	return 0;
}

/* the node backend's ops in hmpt-bench (backend.h) */
const hmpt_backend_ops_t hmpt_backend_nodes_ops = {
    .alloc = map_alloc, .free = map_free, .lookup = map_lookup};

int hb_mem_alloc(const hb_pool_t *p, size_t bytes, hb_buf_t *b, char *why, size_t whylen)
{
	hmpt_choice_t c;

	memset(b, 0, sizeof(*b));
	b->bytes = bytes;
	hmpt_pools_choose(pools_g, p->index, bytes, 0, &c);
	if (c.pool != p->index) {
		say_short(p, bytes, why, whylen);
		return -1;
	}
	const hmpt_backend_ops_t *ops = c.bp->be->ops;
	b->len = (bytes + HB_HUGE - 1) / HB_HUGE * HB_HUGE;
	map_why_g[0] = '\0';
	b->addr = ops->alloc(c.bp, b->len, HB_HUGE, false, 0, c.tag);
	if (!b->addr) {
		if (map_why_g[0])
			snprintf(why, whylen, "%s", map_why_g);
		else
			snprintf(why, whylen, "%s could not allocate %zu bytes: %s", c.bp->be->name,
			         bytes, strerror(errno));
		hmpt_pools_release(pools_g, c.tag, c.bytes);
		return -1;
	}
	b->tag = c.tag;
	b->charged = c.bytes;
	b->bp = c.bp;
	return 0;
}

void hb_mem_free(hb_buf_t *b)
{
	hmpt_backend_block_t rec;

	if (b->addr)
		b->bp->be->ops->free(b->bp, b->addr, &rec);
	if (b->tag)
		hmpt_pools_release(pools_g, b->tag, b->charged);
	memset(b, 0, sizeof(*b));
}

/* AnonHugePages (THP) or the kernel page size (hugetlb) of the mapping
 * holding addr, as a share of its size */
static double huge_share(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	unsigned long lo, hi, kb;
	double size = 0, huge = 0;
	bool in = false;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			if (in)
				break;
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			size = (double)(hi - lo);
		} else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
			huge += (double)kb * 1024;
		} else if (in && sscanf(line, "KernelPageSize: %lu kB", &kb) == 1 && kb >= 2048) {
			huge = size;
		}
	}
	fclose(f);
	return in && size > 0 ? (huge > size ? 1 : huge / size) : -1;
}

void hb_mem_where(const hb_buf_t *b, const hb_pool_t *p, hb_where_t *w)
{
	enum { MAXS = 4096 };
	void *pages[MAXS];
	int status[MAXS];
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), npages = (b->bytes + pg - 1) / pg;
	int n = npages < MAXS ? (int)npages : MAXS;

	memset(w, 0, sizeof(*w));
	for (int i = 0; i < n; i++)
		pages[i] = (char *)b->addr + (size_t)i * (npages / (size_t)n) * pg;
	w->sampled = n;
	w->on_pool = -1;
	if (move_pages(0, (unsigned long)n, pages, NULL, status, 0) != 0) {
		w->elsewhere = n;
	} else {
		int on = 0;
		for (int i = 0; i < n; i++) {
			if (status[i] < 0 || status[i] >= HMPT_MAX_NODES) {
				w->elsewhere++;
				continue;
			}
			w->on_node[status[i]]++;
			on += hmpt_nodemask_has(&p->nodes, (unsigned)status[i]);
		}
		if (!hmpt_nodemask_empty(&p->nodes))
			w->on_pool = (double)on / n;
	}
	w->huge = huge_share(b->addr);
}

json_t *hb_where_json(const hb_where_t *w)
{
	json_t *nodes = json_object();
	char key[16];

	for (int i = 0; i < HMPT_MAX_NODES; i++)
		if (w->on_node[i]) {
			snprintf(key, sizeof(key), "%d", i);
			json_object_set_new(nodes, key, json_integer(w->on_node[i]));
		}
	return json_pack("{s:i,s:o,s:i,s:o,s:o}", "sampled_pages", w->sampled, "nodes", nodes,
	                 "not_present", w->elsewhere, "on_pool_nodes",
	                 w->on_pool < 0 ? json_null() : json_real(w->on_pool), "huge_pages",
	                 w->huge < 0 ? json_null() : json_real(w->huge));
}
