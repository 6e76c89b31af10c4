/* hb.h — hmpt-bench's pieces: pool-backed buffers (hb_mem.c), the
 * measuring kernels (hb_kern.c) and the results (hb_out.c).
 *
 * Why its own buffers: each array of a kernel must live in a pool of its own
 * choosing, placed exactly as libhmpt.so would place it.  hb_mem.c therefore
 * resolves the pools with the shim's own code (common/plan.c, topo.c, pool.c)
 * and maps every array itself, then reads back where its pages really are.
 */
#ifndef HMPT_BENCH_HB_H
#define HMPT_BENCH_HB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topo.h"

#define HB_MAX_POOLS 24

/* ------------------------------------------------------------- pools */

typedef struct {
	char name[64];         /* as the user wrote it, or "pool2" for a JSON object */
	json_t *spec;          /* the plan-format pool object */
	int index;             /* in the resolved plan; -1: this machine cannot give it */
	char why[512];         /* why not, when index < 0 */
	char place[256];       /* "nodes 2-3 (local), bind, 4k pages" */
	hmpt_nodemask_t nodes; /* nodes it may use; empty: no node policy */
} hb_pool_t;

/* Resolve `pools` against this machine: each alone first, so that one pool
 * the machine lacks takes only itself out (index -1, `why` set), then all
 * usable ones together.  Warnings (no huge pages reserved...) are printed
 * once.  0, or -1 with `err` set when the topology cannot be read. */
int hb_mem_setup(hb_pool_t *pools, int n, char *err, size_t errlen);
/* "HBM nodes 2-3 (HMAT ...), DDR nodes 0-1 (...)" for reports */
const char *hb_mem_machine(void);
/* Page size the THP and hugetlb pools use. */
#define HB_HUGE ((size_t)2 << 20)

typedef struct {
	void *addr;   /* 2 MiB-aligned */
	size_t bytes; /* asked */
	size_t len;   /* mapped */
	uint16_t tag; /* placement (pool.h) */
	uint64_t charged;
	struct hmpt_backend_pool *bp; /* where it came from (backend.h) */
} hb_buf_t;

/* `bytes` in pool p, not yet touched.  0, or -1 with `why` saying what the
 * pool could not give (budget, no huge pages, mbind refused). */
int hb_mem_alloc(const hb_pool_t *p, size_t bytes, hb_buf_t *b, char *why, size_t whylen);
void hb_mem_free(hb_buf_t *b);

/* Where a touched buffer really is: move_pages(2) over up to 4096 of its
 * pages spread evenly, and the mapping's huge pages from /proc/self/smaps. */
typedef struct {
	int sampled;                 /* pages asked */
	int on_node[HMPT_MAX_NODES]; /* per node */
	int elsewhere;               /* not present or not on any node */
	double on_pool;              /* share on the pool's nodes; -1: it has none */
	double huge;                 /* share of the mapping in 2 MiB pages */
} hb_where_t;
void hb_mem_where(const hb_buf_t *b, const hb_pool_t *p, hb_where_t *w);
/* {"sampled_pages": n, "nodes": {"0": n...}, "on_pool_nodes": x|null, "huge_pages": x} */
json_t *hb_where_json(const hb_where_t *w);

/* ----------------------------------------------------------- kernels */

enum { HB_COPY, HB_SCALE, HB_ADD, HB_TRIAD, HB_NKERNELS };
extern const char *const hb_kernel_names[HB_NKERNELS];
/* inputs each kernel reads (1 or 2) and bytes it moves per element */
extern const int hb_kernel_inputs[HB_NKERNELS];
extern const int hb_kernel_bytes[HB_NKERNELS];
#define HB_SCALAR 3.0

double hb_now(void);
/* One timed pass of kernel k with the current OpenMP thread count:
 * copy z = x, scale z = q x, add z = x + y, triad z = x + q y. Seconds. */
double hb_stream_pass(int k, double *z, const double *x, const double *y, size_t n);
/* a[i] = v for all i, in parallel with the static schedule the kernels use,
 * so that first touch puts each thread's part where it will be used */
void hb_fill(double *a, size_t n, double v);
/* STREAM's check: the average absolute error of z against `want`,
 * relative to `want`. */
double hb_stream_error(const double *z, size_t n, double want);
/* The value kernel k leaves when x holds `x0` and y holds `y0`. */
double hb_stream_expect(int k, double x0, double y0);

/* A random cyclic pointer chain through the 64-byte lines of the first
 * `window` bytes of buf (Sattolo's algorithm: one cycle visits every line). */
void hb_chase_build(void *buf, size_t window, uint64_t seed);
/* Follow it `steps` times from buf; returns where it stopped. */
void *hb_chase(void *start, size_t steps);

/* table[i] = hb_gather_value(i); idx: m indices into a table of n */
void hb_gather_fill(uint64_t *table, size_t n, uint64_t *idx, size_t m, uint64_t seed);
static inline uint64_t hb_gather_value(uint64_t i)
{
	return i * 0x9e3779b97f4a7c15ull;
}
/* sum of table[idx[j]] over j < m, in parallel; *seconds set */
uint64_t hb_gather_pass(const uint64_t *table, const uint64_t *idx, size_t m, double *seconds);

/* ------------------------------------------------------------- cache */

/* The last-level cache, for STREAM's rule (arrays >= 4 x its size). */
typedef struct {
	uint64_t bytes;  /* over all its instances; 0: unknown */
	int level;       /* 3 for L3... */
	int instances;   /* counted (sysfs) or assumed 1 (sysconf, cpuid) */
	char source[96]; /* "sysfs, 1 instance of L3", "sysconf(...), one instance" */
} hb_cache_t;

/* sysfs under `root` ("" for this machine, a fixture in tests), then
 * sysconf(_SC_LEVEL3_CACHE_SIZE) and _SC_LEVEL2_CACHE_SIZE, then cpuid
 * (leaf 4 on Intel, 0x8000001D on AMD).  0, or -1 with bytes 0 when none
 * knows. */
int hb_cache_read(const char *root, hb_cache_t *c);
/* each source alone: 0, or -1 when it does not know */
int hb_cache_read_sysfs(const char *root, hb_cache_t *c);
int hb_cache_read_sysconf(hb_cache_t *c);
int hb_cache_read_cpuid(hb_cache_t *c);

/* ------------------------------------------------------------ results */

/* One figure of the results: every row of results.csv, every point of a
 * plot, every line of a table is one of these. */
typedef struct {
	const char *mode;    /* "stream", "latency", "gather" */
	char what[32];       /* kernel; "chase"; "indirect sum" */
	char placement[160]; /* "4k+thp->thp"; a pool; "ddr/thp" */
	int threads;
	uint64_t bytes; /* per array (stream), window (latency), table (gather) */
	double value;   /* GB/s; ns per load; million reads/s */
	const char *unit;
	double best_s, avg_s, max_s; /* stream: STREAM's min/avg/max time */
	bool verified;
	char note[160];
} hb_row_t;

typedef struct {
	hb_row_t *rows;
	size_t n, cap;
	json_t *doc; /* results.json under construction */
} hb_results_t;

void hb_results_add(hb_results_t *r, const hb_row_t *row);
/* results.json, results.csv, plots.gp and the plots (gnuplot when it is
 * there); 0, or -1 after a message */
int hb_results_write(hb_results_t *r, const char *dir, bool plots, bool quiet);
/* the terminal table of one mode */
void hb_results_table(const hb_results_t *r, const char *mode);

#endif
