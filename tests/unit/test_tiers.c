/* test_tiers.c — memory tiers and HBM found on public topologies, each
 * with and without HMAT, with and without the kernel's memory tiers, and
 * always with its SLIT; then `hmpt-tune plan check` (its function) on a
 * plan of "fastest" and "slowest" tier pools against the same sysfs copies.
 *
 * The node layouts and distances are those users posted; the HMAT figures
 * are representative of the memories (no thread shows a whole HMAT), so
 * what they decide is only their order. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "plan.h"
#include "plancmd.h"
#include "topo.h"
#include "sysfs_fixture.h"

static hmpt_topo_t topo;

static const char *fmt_mask(const hmpt_nodemask_t *m, char *buf, size_t cap)
{
	hmpt_fmt_t f;
	hmpt_fmt_init(&f, buf, cap, -1);
	hmpt_nodemask_format(&f, m);
	return hmpt_fmt_cstr(&f);
}

/* Xeon Max 9480, flat mode, SNC4, two sockets: 16 nodes, 0-7 DDR5 with 12
 * cores (24 threads) each, 8-15 HBM2e of 16 GiB without CPUs, HBM k+8 in
 * the cluster of CPU node k.  Layout and sizes: `numactl -H` in
 * oneapi-src/unified-memory-framework#1289 (UMF missed this HBM).
 * Distances: 10 local, 13 to the cluster's own HBM, 21/23 to the other
 * socket's DDR/HBM as the quadrant-mode SLIT in argonne-lcf/user-guides#756
 * shows; 12/14 between clusters of one socket. */
static void xeonmax_snc4(const char *name, int with_hmat)
{
	const char *r = machine(name, "0-15\n", "0-7\n");
	for (int n = 0; n < 16; n++) {
		char slit[128] = "", cpus[64] = "";
		for (int m = 0; m < 16; m++) {
			bool hbm = n >= 8 || m >= 8;
			int d = n == m                       ? 10
			        : (n % 8) / 4 != (m % 8) / 4 ? (hbm ? 23 : 21)
			        : n % 8 == m % 8             ? 13
			        : hbm                        ? 14
			                                     : 12;
			snprintf(slit + strlen(slit), sizeof(slit) - strlen(slit), "%s%d",
			         m ? " " : "", d);
		}
		if (n < 8)
			snprintf(cpus, sizeof(cpus), "%d-%d,%d-%d", n * 12, n * 12 + 11,
			         96 + n * 12, 96 + n * 12 + 11);
		node(r, n, cpus, n < 8 ? 64 * 1024 : 16 * 1024, slit, 0, -1);
		/* HBM: more bandwidth, a little more latency than DDR5 */
		if (with_hmat)
			hmat(r, n, n < 8 ? 76800 : 409600, n < 8 ? 110 : 130, n % 8);
	}
}

/* Fujitsu A64FX (FX700): four CMGs, each a node with 12 cores and 8 GiB of
 * HBM2; no other memory.  Layout: memkind/memkind#765 (memkind found no
 * HBW nodes there); distances: the CMG nodes of RRZE-HPC/likwid#565. */
static void a64fx(const char *name, int with_hmat)
{
	static const char *const slit[] = {"10 20 30 30", "20 10 30 30", "30 30 10 20",
	                                   "30 30 20 10"};
	const char *r = machine(name, "0-3\n", "0-3\n");
	for (int n = 0; n < 4; n++) {
		char cpus[16];
		snprintf(cpus, sizeof(cpus), "%d-%d", n * 12, n * 12 + 11);
		node(r, n, cpus, 8 * 1024, slit[n], 0, -1);
		if (with_hmat)
			hmat(r, n, 256000, 120, n);
	}
}

/* NVIDIA GH200 Grace Hopper: node 0 the Grace CPUs (0-71) with LPDDR5X,
 * node 1 the Hopper's HBM3 without CPUs, nodes 2-8 online without memory
 * (for the GPU's MIG instances).  Layout: bytedance/xpu-perf#129 (9 nodes,
 * CPUs only on node 0); distances 10 local, 80 between CPU and GPU. */
static void grace_hopper(const char *name, int with_hmat)
{
	const char *r = machine(name, "0-8\n", "0\n");
	put(r, NODE "/has_memory", "0-1\n");
	for (int n = 0; n < 9; n++) {
		char slit[64] = "";
		for (int m = 0; m < 9; m++)
			snprintf(slit + strlen(slit), sizeof(slit) - strlen(slit), "%s%d",
			         m ? " " : "", n == m ? 10 : 80);
		node(r, n, n == 0 ? "0-71" : "",
		     n == 0   ? 480 * 1024
		     : n == 1 ? 96 * 1024
		              : 0,
		     slit, 0, -1);
	}
	if (with_hmat) {
		hmat(r, 0, 512000, 120, 0);
		hmat(r, 1, 4000000, 800, 0);
	}
}

/* One socket of DDR5 (node 0) and a CXL memory expander (node 1, without
 * CPUs), the layout of skhynix/hmsdk#2, whose kernel put the expanders in
 * DRAM's tier 4; distance 20 to the expander. */
static void cxl(const char *name, int with_hmat)
{
	const char *r = machine(name, "0-1\n", "0\n");
	node(r, 0, "0-11", 128 * 1024, "10 20", 0, -1);
	node(r, 1, "", 96 * 1024, "20 10", 0, -1);
	if (with_hmat) {
		hmat(r, 0, 204800, 110, 0);
		hmat(r, 1, 40960, 250, 0);
	}
}

typedef struct {
	const char *name;
	void (*build)(const char *name, int with_hmat);
	int hmat;
	/* the kernel's tiers, "ID:NODES ID:NODES", or NULL (before Linux 6.1) */
	const char *kernel;
	const char *hbm_env; /* HBM named by hand (or by memkind), or NULL */
	const char *fast, *slow;
	hmpt_tier_src_t src;
	const char *hbm; /* what hmpt_topo_classify calls HBM ("" none) */
} row_t;

#define KERNEL HMPT_TIER_SRC_KERNEL
#define K_HMAT HMPT_TIER_SRC_KERNEL_HMAT
#define K_SLIT HMPT_TIER_SRC_KERNEL_SLIT
#define HMAT   HMPT_TIER_SRC_HMAT
#define SLIT   HMPT_TIER_SRC_SLIT

/* The kernel's one default tier (4) for all DRAM, as on these machines
 * without a driver that says otherwise (hwloc: open-mpi/hwloc#576). */
static const row_t rows[] = {
    {"xmax", xeonmax_snc4, 1, NULL, NULL, "8-15", "0-7", HMAT, "8-15"},
    {"xmax", xeonmax_snc4, 1, "4:0-15", NULL, "8-15", "0-7", K_HMAT, "8-15"},
    /* without HMAT, SLIT cannot tell HBM from slower memory: DDR first ... */
    {"xmax", xeonmax_snc4, 0, NULL, NULL, "0-7", "8-15", SLIT, ""},
    {"xmax", xeonmax_snc4, 0, "4:0-15", NULL, "0-7", "8-15", K_SLIT, ""},
    /* ... unless HBM is named (HMPT_HBM_NODES, hbm_nodes, memkind) */
    {"xmax", xeonmax_snc4, 0, NULL, "8-15", "8-15", "0-7", SLIT, "8-15"},
    {"xmax", xeonmax_snc4, 0, "4:0-15", "8-15", "8-15", "0-7", K_SLIT, "8-15"},
    /* all HBM: one tier, fastest is slowest */
    {"a64fx", a64fx, 1, NULL, NULL, "0-3", "0-3", HMAT, ""},
    {"a64fx", a64fx, 1, "4:0-3", NULL, "0-3", "0-3", KERNEL, ""},
    {"a64fx", a64fx, 0, NULL, NULL, "0-3", "0-3", SLIT, ""},
    {"a64fx", a64fx, 0, "4:0-3", NULL, "0-3", "0-3", KERNEL, ""},
    {"a64fx", a64fx, 0, NULL, "0-3", "0-3", "0-3", SLIT, "0-3"},
    {"gh200", grace_hopper, 1, NULL, NULL, "1", "0", HMAT, "1"},
    {"gh200", grace_hopper, 1, "4:0-1", NULL, "1", "0", K_HMAT, "1"},
    {"gh200", grace_hopper, 0, NULL, NULL, "0", "1", SLIT, ""},
    {"gh200", grace_hopper, 0, "4:0-1", "1", "1", "0", K_SLIT, "1"},
    {"cxl", cxl, 1, NULL, NULL, "0", "1", HMAT, ""},
    {"cxl", cxl, 1, "4:0-1", NULL, "0", "1", K_HMAT, ""},
    {"cxl", cxl, 0, NULL, NULL, "0", "1", SLIT, ""},
    {"cxl", cxl, 0, "4:0-1", NULL, "0", "1", K_SLIT, ""},
    /* a kernel that tiers the expander itself (dax/kmem: tier 22) */
    {"cxl", cxl, 0, "4:0 22:1", NULL, "0", "1", KERNEL, ""},
    {"cxl", cxl, 1, "4:0 22:1", NULL, "0", "1", KERNEL, ""},
};

static const char *row_name(int i)
{
	static char name[40];
	snprintf(name, sizeof(name), "row%d-%s", i, rows[i].name);
	return name;
}

static const char *row_root(int i)
{
	static char root[sizeof(base) + 80];
	snprintf(root, sizeof(root), "%s/%s", base, row_name(i));
	return root;
}

static void build_row(int i)
{
	const row_t *w = &rows[i];
	const char *r = row_root(i);
	char kernel[64];

	w->build(row_name(i), w->hmat);
	if (!w->kernel)
		return;
	snprintf(kernel, sizeof(kernel), "%s", w->kernel);
	for (char *save, *t = strtok_r(kernel, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *colon = strchr(t, ':');
		*colon = '\0';
		kernel_tier(r, atoi(t), colon + 1);
	}
}

static void test_rows(void)
{
	char a[64], b[64], c[64], err[256];

	for (int i = 0; i < (int)(sizeof(rows) / sizeof(rows[0])); i++) {
		const row_t *w = &rows[i];
		hmpt_topo_hints_t h = {.hbm_env = w->hbm_env};
		build_row(i);
		CHECK_OP(hmpt_topo_read(&topo, row_root(i)), ==, 0);
		CHECK_OP(hmpt_topo_classify(&topo, &h, err, sizeof(err)), ==, 0);
		int slow = hmpt_topo_tier_index(&topo, HMPT_TIER_SLOWEST);
		fmt_mask(&topo.tier[0], a, sizeof(a));
		fmt_mask(&topo.tier[slow < 0 ? 0 : slow], b, sizeof(b));
		fmt_mask(&topo.hbm, c, sizeof(c));
		bool ok = strcmp(a, w->fast) == 0 && strcmp(b, w->slow) == 0 &&
		          topo.tier_src == w->src && strcmp(c, w->hbm) == 0;
		CHECK(ok);
		if (!ok)
			fprintf(stderr,
			        "  row %d %s hmat %d kernel %s hbm_env %s: fastest %s slowest %s "
			        "(%s) HBM %s; want %s %s (%s) HBM %s\n",
			        i, w->name, w->hmat, w->kernel ? w->kernel : "-",
			        w->hbm_env ? w->hbm_env : "-", a, b,
			        hmpt_topo_tier_src_name(topo.tier_src), c, w->fast, w->slow,
			        hmpt_topo_tier_src_name(w->src), w->hbm);
		/* every memory node in exactly one tier */
		unsigned total = 0;
		for (int k = 0; k < topo.ntiers; k++)
			total += hmpt_nodemask_weight(&topo.tier[k]);
		CHECK_OP(total, ==, hmpt_nodemask_weight(&topo.memory));
	}
}

/* local parts of a tier: each CPU node gets its own cluster's HBM */
static void test_local(void)
{
	hmpt_topo_hints_t h = {0};
	hmpt_nodemask_t l;
	char err[256], buf[64], want[8];

	build_row(0);
	CHECK_OP(hmpt_topo_read(&topo, row_root(0)), ==, 0);
	CHECK_OP(hmpt_topo_classify(&topo, &h, err, sizeof(err)), ==, 0);
	for (int c = 0; c < 8; c++) {
		hmpt_topo_local_of(&topo, c, &topo.tier[0], &l);
		snprintf(want, sizeof(want), "%d", c + 8);
		CHECK_STREQ(fmt_mask(&l, buf, sizeof(buf)), want);
		hmpt_topo_local_of(&topo, c, &topo.tier[1], &l);
		snprintf(want, sizeof(want), "%d", c);
		CHECK_STREQ(fmt_mask(&l, buf, sizeof(buf)), want);
	}
	/* without HMAT's initiators, the nearest by SLIT: the same nodes */
	build_row(4);
	CHECK_OP(hmpt_topo_read(&topo, row_root(4)), ==, 0);
	h.hbm_env = "8-15";
	CHECK_OP(hmpt_topo_classify(&topo, &h, err, sizeof(err)), ==, 0);
	hmpt_topo_local_of(&topo, 5, &topo.tier[0], &l);
	CHECK_STREQ(fmt_mask(&l, buf, sizeof(buf)), "13");
	CHECK_OP(topo.tier_hbm_first, ==, HMPT_TOPO_SRC_ENV);
}

static int probe_node3(hmpt_nodemask_t *hbm, void *ctx)
{
	(void)ctx;
	hmpt_nodemask_set(hbm, 3);
	return 0;
}

/* memkind names one CMG of an A64FX as its HBM (seen in the QEMU guest's
 * A64FX row): HMAT rates all four alike, so all four are HBM, each CPU
 * node's own local; without HMAT the probe's answer stands */
static void test_probe_widened(void)
{
	hmpt_topo_hints_t h = {.probe = probe_node3};
	char err[256], buf[64], want[8];

	build_row(6); /* A64FX with HMAT */
	CHECK_OP(hmpt_topo_read(&topo, row_root(6)), ==, 0);
	CHECK_OP(hmpt_topo_classify(&topo, &h, err, sizeof(err)), ==, 0);
	CHECK_STREQ(fmt_mask(&topo.hbm, buf, sizeof(buf)), "0-3");
	CHECK_OP(topo.hbm_src, ==, HMPT_TOPO_SRC_PROBE);
	CHECK(hmpt_nodemask_empty(&topo.ddr));
	for (int c = 0; c < 4; c++) {
		snprintf(want, sizeof(want), "%d", c);
		CHECK_STREQ(fmt_mask(&topo.local_hbm[c], buf, sizeof(buf)), want);
	}
	CHECK_OP(topo.ntiers, ==, 1);
	CHECK_STREQ(fmt_mask(&topo.tier[0], buf, sizeof(buf)), "0-3");
	build_row(8); /* without HMAT */
	CHECK_OP(hmpt_topo_read(&topo, row_root(8)), ==, 0);
	CHECK_OP(hmpt_topo_classify(&topo, &h, err, sizeof(err)), ==, 0);
	CHECK_STREQ(fmt_mask(&topo.hbm, buf, sizeof(buf)), "3");
	CHECK_STREQ(fmt_mask(&topo.tier[0], buf, sizeof(buf)), "3");
}

/* equal bandwidth: the lower latency first; figures within an eighth of
 * each other are one tier */
static void test_hmat_ties(void)
{
	const char *r = machine("ties", "0-3\n", "0\n");
	hmpt_topo_hints_t h = {0};
	char err[256], buf[64];

	node(r, 0, "0-3", 1024, "10 20 20 20", 0, -1);
	node(r, 1, "", 1024, "20 10 20 20", 0, -1);
	node(r, 2, "", 1024, "20 20 10 20", 0, -1);
	node(r, 3, "", 1024, "20 20 20 10", 0, -1);
	hmat(r, 0, 100000, 100, 0);
	hmat(r, 1, 100000, 300, 0);
	hmat(r, 2, 95000, 105, 0); /* like node 0 */
	hmat(r, 3, 300000, 100, 0);
	CHECK_OP(hmpt_topo_read(&topo, r), ==, 0);
	CHECK_OP(hmpt_topo_classify(&topo, &h, err, sizeof(err)), ==, 0);
	CHECK_OP(topo.ntiers, ==, 3);
	CHECK_STREQ(fmt_mask(&topo.tier[0], buf, sizeof(buf)), "3");
	CHECK_STREQ(fmt_mask(&topo.tier[1], buf, sizeof(buf)), "0,2");
	CHECK_STREQ(fmt_mask(&topo.tier[2], buf, sizeof(buf)), "1");
	CHECK_OP(hmpt_topo_tier_index(&topo, 3), ==, -ERANGE);
	CHECK_OP(hmpt_topo_tier_index(&topo, HMPT_TIER_SLOWEST), ==, 2);
}

/* `hmpt-tune plan check` output for the plan against row i's sysfs copy */
static void plan_check(int i, const char *plan, char *out, size_t cap, int *rc)
{
	char file[320], log[320];
	snprintf(file, sizeof(file), "%s/plan.json", base);
	snprintf(log, sizeof(log), "%s/check.out", base);
	put(base, "plan.json", plan);
	setenv("HMPT_TEST_SYSFS_ROOT", row_root(i), 1);
	unsetenv("HMPT_HBM_NODES");
	if (rows[i].hbm_env)
		setenv("HMPT_HBM_NODES", rows[i].hbm_env, 1);
	fflush(stdout);
	fflush(stderr);
	int saved = dup(1), saved2 = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 1);
	dup2(fd, 2);
	*rc = hmpt_plan_check_file(file, true, false);
	fflush(stdout);
	fflush(stderr);
	dup2(saved, 1);
	dup2(saved2, 2);
	close(saved);
	close(saved2);
	close(fd);
	FILE *f = fopen(log, "r");
	size_t n = f ? fread(out, 1, cap - 1, f) : 0;
	out[n] = '\0';
	if (f)
		fclose(f);
	unsetenv("HMPT_TEST_SYSFS_ROOT");
	unsetenv("HMPT_HBM_NODES");
}

static const char tier_plan[] = "{\"format\": \"hmpt-plan\", \"format_version\": 2,\n"
                                " \"pools\": {\"fast\": {\"tier\": \"fastest\"},\n"
                                "           \"slow\": {\"tier\": \"slowest\", \"local\": false}},\n"
                                " \"default_pool\": \"slow\", \"groups\": []}\n";

static void test_plan_check(void)
{
	static char out[16384];
	char want[160];
	int rc;

	for (int i = 0; i < (int)(sizeof(rows) / sizeof(rows[0])); i++) {
		const row_t *w = &rows[i];
		plan_check(i, tier_plan, out, sizeof(out), &rc);
		CHECK_OP(rc, ==, 0);
		snprintf(want, sizeof(want), "fast: tier fastest (0 of ");
		bool ok = strstr(out, want) != NULL;
		snprintf(want, sizeof(want), "from %s", hmpt_topo_tier_src_name(w->src));
		ok = ok && strstr(out, want);
		snprintf(want, sizeof(want), "): nodes %s (local)", w->fast);
		ok = ok && strstr(out, want);
		snprintf(want, sizeof(want), "): nodes %s, bind", w->slow);
		ok = ok && strstr(out, want);
		ok = ok && strstr(out, "memory tiers, fastest first (");
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  row %d %s: plan check said:\n%s\n", i, w->name, out);
	}
	/* a tier number this machine does not have */
	plan_check(7, /* A64FX: one tier */
	           "{\"format\": \"hmpt-plan\", \"format_version\": 2,\n"
	           " \"pools\": {\"t\": {\"tier\": 1}}, \"groups\": []}\n",
	           out, sizeof(out), &rc);
	CHECK_OP(rc, ==, 1);
	CHECK(strstr(out, "tier: tier 1, but this machine has 1 memory tier (0 to 0") != NULL);
}

int main(void)
{
	if (fixture_begin() != 0)
		return 1;
	test_rows();
	test_local();
	test_probe_widened();
	test_hmat_ties();
	test_plan_check();
	fixture_end();
	return failures != 0;
}
