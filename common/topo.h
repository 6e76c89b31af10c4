/* topo.h — the machine's NUMA nodes, and which of them are HBM and DDR.
 *
 * Why: a plan names pools by kind ("hbm", "ddr") so that one plan fits
 * every machine of a cluster; the shim must turn those into node sets, and
 * say where it learned them.  HBM nodes are found in layers, the first that
 * answers wins:
 *   1. an explicit list: HMPT_HBM_NODES, else the plan's "hbm_nodes";
 *   2. HMAT, as the kernel shows it in sysfs: memory nodes without CPUs
 *      whose local read bandwidth (nodeN/access1, else access0,
 *      initiators/read_bandwidth) is higher than that of every memory node
 *      with CPUs;
 *   3. a caller-supplied probe (the shim passes memkind's HBW detection),
 *      widened to the nodes that HMAT, where it covers every memory node,
 *      rates as fast as those it names (memkind names one node of an
 *      A64FX's four equal ones).
 * DDR nodes: an explicit list (HMPT_DDR_NODES, the plan's "ddr_nodes"),
 * else the memory nodes that have CPUs and are not HBM.
 * With sub-NUMA clustering or several sockets, each CPU node has its own
 * local HBM and DDR nodes: those named as its initiators by HMAT, else the
 * nearest by the SLIT distance (all nodes at the smallest distance).
 *
 * Memory tiers (fastest first) name the same sets portably for pools that
 * say "tier": the kernel's own (/sys/devices/virtual/memory_tiering,
 * memory_tierN, lower N faster; Linux 6.1+), else HMAT (read bandwidth,
 * higher first; read latency, lower first, between equal bandwidths),
 * else SLIT: memory nodes with CPUs first, then CPU-less nodes by their
 * distance from the nearest CPU node.  "Fastest" means most bandwidth for
 * the CPUs: the kernel gives every DRAM node one default tier (HBM, DDR and
 * even CXL alike unless a driver says otherwise), so a kernel tier is split
 * as a machine without kernel tiers would be, by HMAT, else by SLIT; and
 * HBM named by the environment, the plan or the probe goes first where the
 * tiers do not already separate it.  SLIT alone cannot tell HBM from CXL
 * (both CPU-less and farther): it ranks them below DDR, and the
 * description says so.
 *
 * Contract: reads sysfs below `root` ("" for the real /sys; tests pass a
 * directory holding a copy of the relevant files) with open/read/getdents64:
 * no malloc, no stdio, no locks; safe inside malloc and before libnuma is
 * initialised.  Functions return 0 or -errno, and on a user error fill
 * `err` with one sentence naming the source (variable or field), the value
 * and what was expected.  The structure is large: keep it static.
 */
#ifndef HMPT_TOPO_H
#define HMPT_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt.h"

#define HMPT_MAX_NODES 128
#define HMPT_MAX_CPUS  8192

typedef struct {
	uint64_t w[HMPT_MAX_NODES / 64];
} hmpt_nodemask_t;

static inline void hmpt_nodemask_set(hmpt_nodemask_t *m, unsigned n)
{
	if (n < HMPT_MAX_NODES)
		m->w[n / 64] |= 1ull << (n % 64);
}

static inline bool hmpt_nodemask_has(const hmpt_nodemask_t *m, unsigned n)
{
	return n < HMPT_MAX_NODES && (m->w[n / 64] >> (n % 64)) & 1;
}

bool hmpt_nodemask_empty(const hmpt_nodemask_t *m);
unsigned hmpt_nodemask_weight(const hmpt_nodemask_t *m);
/* lowest node in m, or -1 */
int hmpt_nodemask_first(const hmpt_nodemask_t *m);
/* next node above n in m, or -1 */
int hmpt_nodemask_next(const hmpt_nodemask_t *m, int n);
bool hmpt_nodemask_equal(const hmpt_nodemask_t *a, const hmpt_nodemask_t *b);
/* every node of a is in b */
bool hmpt_nodemask_subset(const hmpt_nodemask_t *a, const hmpt_nodemask_t *b);

/* Parse a node list as numactl and sysfs write it: "2", "0-3", "0,2-3".
 * White space around items is allowed; an empty string is an empty mask.
 * 0, or -EINVAL (not a list; `err` says what was wrong) or -ERANGE (a node
 * at or above HMPT_MAX_NODES). */
int hmpt_nodemask_parse(const char *s, hmpt_nodemask_t *m, char *err, size_t errlen);
/* "0-3,6" ("" for an empty mask) */
void hmpt_nodemask_format(hmpt_fmt_t *f, const hmpt_nodemask_t *m);

typedef struct {
	uint64_t mem_total, mem_free;   /* bytes, nodeN/meminfo */
	uint64_t huge_total, huge_free; /* 2 MiB pages, nodeN/hugepages/hugepages-2048kB */
	uint32_t read_bw;               /* MB/s from HMAT for local initiators; 0 if unknown */
	uint32_t read_lat;              /* ns; 0 if unknown */
	hmpt_nodemask_t initiators;     /* HMAT local initiators (nodes) */
} hmpt_node_t;

typedef enum {
	HMPT_TOPO_SRC_NONE,  /* not found */
	HMPT_TOPO_SRC_ENV,   /* HMPT_HBM_NODES / HMPT_DDR_NODES */
	HMPT_TOPO_SRC_PLAN,  /* the plan's hbm_nodes / ddr_nodes */
	HMPT_TOPO_SRC_HMAT,  /* HMAT bandwidth in sysfs */
	HMPT_TOPO_SRC_PROBE, /* the caller's probe (memkind) */
	HMPT_TOPO_SRC_CPUS,  /* DDR: memory nodes with CPUs */
} hmpt_topo_src_t;

#define HMPT_MAX_TIERS 16

typedef enum {
	HMPT_TIER_SRC_NONE,
	HMPT_TIER_SRC_KERNEL,      /* memory_tiering, as the kernel has it */
	HMPT_TIER_SRC_KERNEL_HMAT, /* memory_tiering, a tier split by HMAT */
	HMPT_TIER_SRC_KERNEL_SLIT, /* memory_tiering, a tier split by SLIT */
	HMPT_TIER_SRC_HMAT,        /* HMAT bandwidth, then latency */
	HMPT_TIER_SRC_SLIT,        /* SLIT distances from the CPU nodes */
} hmpt_tier_src_t;

typedef struct {
	hmpt_nodemask_t online, cpu, memory; /* node/online, has_cpu, has_memory */
	int max_node;                        /* highest online node, -1 if none */
	hmpt_node_t node[HMPT_MAX_NODES];
	uint8_t distance[HMPT_MAX_NODES][HMPT_MAX_NODES]; /* SLIT; 0 = unknown */
	int ncpus;                       /* highest CPU id + 1 seen in node cpulists */
	int16_t cpu_node[HMPT_MAX_CPUS]; /* node of each CPU, -1 if none */
	char thp[16];                    /* "always", "madvise", "never" or "" */
	uint64_t huge_free_total;        /* free 2 MiB pages, all nodes */
	uint64_t huge_total;             /* 2 MiB pages reserved, all nodes */

	/* the kernel's memory tiers as read: ktier_id[i] is N of memory_tierN,
	 * ascending; nktiers 0 when the kernel has none */
	int nktiers;
	int ktier_id[HMPT_MAX_TIERS];
	hmpt_nodemask_t ktier[HMPT_MAX_TIERS];

	/* set by hmpt_topo_classify() */
	hmpt_nodemask_t hbm, ddr;
	hmpt_topo_src_t hbm_src, ddr_src;
	hmpt_nodemask_t local_hbm[HMPT_MAX_NODES]; /* per CPU node */
	hmpt_nodemask_t local_ddr[HMPT_MAX_NODES];
	/* memory tiers, 0 the fastest; every memory node in exactly one */
	int ntiers;
	hmpt_nodemask_t tier[HMPT_MAX_TIERS];
	int tier_kid[HMPT_MAX_TIERS]; /* N of its memory_tierN, or -1 */
	hmpt_tier_src_t tier_src;
	hmpt_topo_src_t tier_hbm_first; /* HBM moved ahead, named by; NONE if not */
} hmpt_topo_t;

/* Read everything above from sysfs below `root`.  A machine without
 * /sys/devices/system/node (a kernel without NUMA) reads as one node 0 with
 * all CPUs and the memory of /proc/meminfo.  -errno only when nothing at all
 * can be read. */
int hmpt_topo_read(hmpt_topo_t *t, const char *root);

/* Layer 3 of HBM detection: fills `hbm` and returns 0, or -errno (not
 * available). */
typedef int (*hmpt_topo_probe_fn)(hmpt_nodemask_t *hbm, void *ctx);

typedef struct {
	const char *hbm_env;             /* HMPT_HBM_NODES, or NULL */
	const char *ddr_env;             /* HMPT_DDR_NODES, or NULL */
	const hmpt_nodemask_t *hbm_plan; /* the plan's hbm_nodes, or NULL */
	const hmpt_nodemask_t *ddr_plan;
	hmpt_topo_probe_fn probe; /* may be NULL */
	void *probe_ctx;
} hmpt_topo_hints_t;

/* Decide hbm, ddr and the local maps.  An explicit list that does not parse
 * or names a node that is not online with memory is an error (-EINVAL,
 * `err` names the variable or field).  Finding no HBM is not an error:
 * hbm is empty and hbm_src NONE. */
int hmpt_topo_classify(hmpt_topo_t *t, const hmpt_topo_hints_t *h, char *err, size_t errlen);

/* The nodes of `cls` local to CPU node c: those whose HMAT initiators
 * name c, else the nearest by SLIT distance, else all of `cls`. */
void hmpt_topo_local_of(const hmpt_topo_t *t, int c, const hmpt_nodemask_t *cls,
                        hmpt_nodemask_t *out);

/* The index of tier `want` (0 = fastest, -1 = slowest), or -ERANGE when
 * the machine has no such tier (or none). */
int hmpt_topo_tier_index(const hmpt_topo_t *t, int want);

/* "kernel memory tiers", "kernel memory tiers split by HMAT", "HMAT",
 * "SLIT distances"... */
const char *hmpt_topo_tier_src_name(hmpt_tier_src_t s);

/* One line for logs: "memory tiers, fastest first (kernel memory tiers
 * split by HMAT): 0: nodes 2-3 (memory_tier4, 409600 MB/s), 1: nodes 0-1
 * (memory_tier4, 102400 MB/s)" */
void hmpt_topo_describe_tiers(hmpt_fmt_t *f, const hmpt_topo_t *t);

/* The node of the calling thread's CPU (sched_getcpu), or -1. */
int hmpt_topo_current_node(const hmpt_topo_t *t);

/* "HMPT_HBM_NODES", "the plan", "HMAT", "memkind"/probe name..., for logs */
const char *hmpt_topo_src_name(hmpt_topo_src_t s);

/* One line for logs and `hmpt-tune plan check`, e.g.
 * "HBM nodes 2-3 (HMAT: CPU-less, 409600 MB/s against 102400 MB/s), DDR nodes
 *  0-1 (nodes with CPUs); local HBM: 0->2 1->3" */
void hmpt_topo_describe(hmpt_fmt_t *f, const hmpt_topo_t *t);

#endif
