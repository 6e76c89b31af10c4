/* test_topo.c — topology from sysfs trees made here for machines we lack:
 * one node, Xeon Max flat and SNC4 (HMAT), KNL flat without HMAT (found by
 * the probe or by name), CXL (a slower CPU-less node is not HBM), a kernel
 * without NUMA; node lists parsed and written as numactl does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "topo.h"
#include "sysfs_fixture.h"

static hmpt_topo_t topo;
static int classify(const hmpt_topo_hints_t *h, char *err)
{
	return hmpt_topo_classify(&topo, h, err, 256);
}

static int mask_is(const hmpt_nodemask_t *m, const char *want)
{
	char buf[256];
	hmpt_fmt_t f;
	hmpt_fmt_init(&f, buf, sizeof(buf), -1);
	hmpt_nodemask_format(&f, m);
	hmpt_fmt_cstr(&f);
	if (strcmp(buf, want) != 0) {
		fprintf(stderr, "  mask %s, want %s\n", buf, want);
		return 0;
	}
	return 1;
}

static void describe(char *buf, size_t cap)
{
	hmpt_fmt_t f;
	hmpt_fmt_init(&f, buf, cap, -1);
	hmpt_topo_describe(&f, &topo);
	hmpt_fmt_cstr(&f);
}

static void test_nodemask(void)
{
	hmpt_nodemask_t m;
	char err[160];

	CHECK(hmpt_nodemask_parse("0,2-3", &m, err, sizeof(err)) == 0 && mask_is(&m, "0,2-3"));
	CHECK(hmpt_nodemask_parse(" 1 ", &m, err, sizeof(err)) == 0 && mask_is(&m, "1"));
	CHECK(hmpt_nodemask_parse("", &m, err, sizeof(err)) == 0 && hmpt_nodemask_empty(&m));
	CHECK(hmpt_nodemask_parse("0-63,64,127", &m, err, sizeof(err)) == 0 &&
	      mask_is(&m, "0-64,127") && hmpt_nodemask_weight(&m) == 66);
	CHECK_OP(hmpt_nodemask_parse("0-", &m, err, sizeof(err)), ==, -EINVAL);
	CHECK_OP(hmpt_nodemask_parse("3-1", &m, err, sizeof(err)), ==, -EINVAL);
	CHECK(hmpt_nodemask_parse("x", &m, err, sizeof(err)) == -EINVAL && *err);
	CHECK_OP(hmpt_nodemask_parse("200", &m, err, sizeof(err)), ==, -ERANGE);
	CHECK_OP(hmpt_nodemask_parse("1,,2", &m, err, sizeof(err)), ==, -EINVAL);
}

static void test_one_node(void)
{
	const char *r = machine("one", "0\n", "0\n");
	hmpt_topo_hints_t h = {0};
	char err[256], d[512];

	node(r, 0, "0-1", 24 * 1024, "10", 0, -1);
	CHECK_OP(hmpt_topo_read(&topo, r), ==, 0);
	CHECK(mask_is(&topo.online, "0") && topo.ncpus == 2 && topo.cpu_node[1] == 0);
	CHECK_OP(topo.node[0].mem_total, ==, 24ull << 30);
	CHECK_OP(topo.node[0].mem_free, ==, 12ull << 30);
	CHECK_STREQ(topo.thp, "madvise");
	CHECK_OP(topo.huge_total, ==, 8);
	CHECK_OP(topo.huge_free_total, ==, 6);
	CHECK_OP(topo.node[0].huge_free, ==, 6);
	CHECK_OP(classify(&h, err), ==, 0);
	CHECK(hmpt_nodemask_empty(&topo.hbm) && topo.hbm_src == HMPT_TOPO_SRC_NONE);
	CHECK(mask_is(&topo.ddr, "0") && topo.ddr_src == HMPT_TOPO_SRC_CPUS);
	describe(d, sizeof(d));
	CHECK_OP(strstr(d, "no HBM nodes found"), !=, NULL);
	/* an explicit list naming a node that is not there */
	h.hbm_env = "1";
	CHECK_OP(classify(&h, err), ==, -EINVAL);
	CHECK_OP(strstr(err, "HMPT_HBM_NODES=1: node 1 is not an online node with memory"), !=,
	         NULL);
	h.hbm_env = "x";
	CHECK_OP(classify(&h, err), ==, -EINVAL);
	CHECK_OP(strncmp(err, "HMPT_HBM_NODES=x: expected", 26), ==, 0);
}

/* two sockets, DDR 0-1, HBM 2-3 local to 0 and 1 (SLIT of a Xeon Max 9480) */
static void test_xeonmax_flat(void)
{
	const char *r = machine("xmax", "0-3\n", "0-1\n");
	hmpt_topo_hints_t h = {0};
	char err[256], d[512];

	node(r, 0, "0-55,112-167", 128 * 1024, "10 21 13 23", 262144, 0);
	node(r, 1, "56-111,168-223", 128 * 1024, "21 10 23 13", 262144, 1);
	node(r, 2, "", 64 * 1024, "13 23 10 23", 1048576, 0);
	node(r, 3, "", 64 * 1024, "23 13 23 10", 1048576, 1);
	CHECK_OP(hmpt_topo_read(&topo, r), ==, 0);
	CHECK_OP(topo.max_node, ==, 3);
	CHECK_OP(topo.ncpus, ==, 224);
	CHECK_OP(topo.cpu_node[60], ==, 1);
	CHECK_OP(topo.cpu_node[112], ==, 0);
	CHECK_OP(topo.cpu_node[223], ==, 1);
	CHECK_OP(topo.distance[0][2], ==, 13);
	CHECK_OP(topo.distance[1][2], ==, 23);
	CHECK(topo.node[2].read_bw == 1048576 && hmpt_nodemask_has(&topo.node[2].initiators, 0));
	CHECK_OP(topo.node[2].read_lat, ==, 100);
	CHECK_OP(hmpt_nodemask_weight(&topo.node[2].initiators), ==, 1);
	CHECK_OP(topo.node[0].huge_total, ==, 8);
	CHECK_OP(topo.node[0].huge_free, ==, 6);
	CHECK_OP(topo.node[1].huge_total, ==, 0);
	CHECK_OP(topo.node[3].huge_free, ==, 0);
	CHECK_OP(topo.node[2].mem_total, ==, 64ull << 30);
	CHECK_OP(classify(&h, err), ==, 0);
	CHECK(mask_is(&topo.hbm, "2-3") && topo.hbm_src == HMPT_TOPO_SRC_HMAT);
	CHECK(mask_is(&topo.ddr, "0-1"));
	CHECK(mask_is(&topo.local_hbm[0], "2") && mask_is(&topo.local_hbm[1], "3"));
	CHECK(mask_is(&topo.local_ddr[0], "0") && mask_is(&topo.local_ddr[1], "1"));
	describe(d, sizeof(d));
	CHECK_OP(strstr(d, "HBM nodes 2-3 (HMAT"), !=, NULL);
	CHECK_OP(strstr(d, "local HBM: 0->2 1->3"), !=, NULL);
	/* the plan's list wins over HMAT, the environment over the plan */
	hmpt_nodemask_t plan = {{0}};
	hmpt_nodemask_set(&plan, 3);
	h.hbm_plan = &plan;
	CHECK(classify(&h, err) == 0 && mask_is(&topo.hbm, "3") &&
	      topo.hbm_src == HMPT_TOPO_SRC_PLAN);
	CHECK(mask_is(&topo.local_hbm[0], "3")); /* the only one: no initiator says 0 */
	h.hbm_env = "2";
	CHECK(classify(&h, err) == 0 && mask_is(&topo.hbm, "2") &&
	      topo.hbm_src == HMPT_TOPO_SRC_ENV);
	CHECK(mask_is(&topo.ddr, "0-1"));
	h.ddr_env = "1";
	CHECK(classify(&h, err) == 0 && mask_is(&topo.ddr, "1") &&
	      mask_is(&topo.local_ddr[0], "1"));
}

/* two sockets in SNC4: CPU nodes 0-7, HBM nodes 8-15, HBM k+8 local to k */
static void snc4(const char *name, int hmat)
{
	const char *r = machine(name, "0-15\n", "0-7\n");
	for (int n = 0; n < 16; n++) {
		char slit[128] = "", cpus[32] = "";
		for (int m = 0; m < 16; m++) {
			int d = n == m                       ? 10
			        : (n % 8) / 4 != (m % 8) / 4 ? 21 /* other socket */
			        : n % 8 == m % 8             ? 13 /* a cluster's own HBM */
			        : n < 8 && m < 8             ? 12 /* another cluster's CPUs */
			                                     : 14;
			snprintf(slit + strlen(slit), sizeof(slit) - strlen(slit), "%s%d",
			         m ? " " : "", d);
		}
		if (n < 8)
			snprintf(cpus, sizeof(cpus), "%d-%d", n * 14, n * 14 + 13);
		node(r, n, cpus, n < 8 ? 32 * 1024 : 16 * 1024, slit,
		     hmat ? (n < 8 ? 65536 : 262144) : 0, n < 8 ? n : n - 8);
	}
	CHECK_OP(hmpt_topo_read(&topo, r), ==, 0);
}

static void test_xeonmax_snc4(void)
{
	hmpt_topo_hints_t h = {0};
	char err[256], want[8];

	snc4("snc4", 1);
	CHECK_OP(classify(&h, err), ==, 0);
	CHECK(mask_is(&topo.hbm, "8-15") && mask_is(&topo.ddr, "0-7"));
	for (int k = 0; k < 8; k++) {
		snprintf(want, sizeof(want), "%d", k + 8);
		CHECK(mask_is(&topo.local_hbm[k], want));
	}
	CHECK_OP(topo.cpu_node[5 * 14 + 3], ==, 5);
	/* without HMAT, named by hand: the nearest by SLIT is the same node */
	snc4("snc4-nohmat", 0);
	h.hbm_env = "8-15";
	CHECK(classify(&h, err) == 0 && mask_is(&topo.hbm, "8-15"));
	for (int k = 0; k < 8; k++) {
		snprintf(want, sizeof(want), "%d", k + 8);
		CHECK(mask_is(&topo.local_hbm[k], want));
	}
}

static int probe_calls;
static int probe_node1(hmpt_nodemask_t *hbm, void *ctx)
{
	(void)ctx;
	probe_calls++;
	hmpt_nodemask_set(hbm, 1);
	return 0;
}
static int probe_bogus(hmpt_nodemask_t *hbm, void *ctx)
{
	(void)ctx;
	hmpt_nodemask_set(hbm, 5); /* not a node here: ignored */
	return 0;
}

/* KNL in flat mode: MCDRAM is node 1, without CPUs; no HMAT */
static void test_knl_probe(void)
{
	const char *r = machine("knl", "0-1\n", "0\n");
	hmpt_topo_hints_t h = {0};
	char err[256], d[512];

	node(r, 0, "0-255", 96 * 1024, "10 31", 0, -1);
	node(r, 1, "", 16 * 1024, "31 10", 0, -1);
	CHECK_OP(hmpt_topo_read(&topo, r), ==, 0);
	CHECK(classify(&h, err) == 0 && hmpt_nodemask_empty(&topo.hbm));
	h.probe = probe_bogus;
	CHECK(classify(&h, err) == 0 && hmpt_nodemask_empty(&topo.hbm));
	h.probe = probe_node1;
	CHECK(classify(&h, err) == 0 && mask_is(&topo.hbm, "1") && probe_calls == 1);
	CHECK(topo.hbm_src == HMPT_TOPO_SRC_PROBE && mask_is(&topo.local_hbm[0], "1"));
	CHECK(mask_is(&topo.ddr, "0"));
	describe(d, sizeof(d));
	CHECK_OP(strstr(d, "HBM nodes 1 (memkind"), !=, NULL);
	/* an explicit list: the probe is not asked */
	h.hbm_env = "1";
	CHECK_OP(classify(&h, err), ==, 0);
	CHECK_OP(probe_calls, ==, 1);
	CHECK_OP(topo.hbm_src, ==, HMPT_TOPO_SRC_ENV);
	CHECK(mask_is(&topo.hbm, "1") && mask_is(&topo.local_hbm[0], "1"));
	/* a node that is not there */
	h.hbm_env = "7";
	CHECK_OP(classify(&h, err), ==, -EINVAL);
	CHECK_OP(strncmp(err, "HMPT_HBM_NODES=7: node 7", 24), ==, 0);
}

/* HMAT for CPU initiators (access1) wins over any initiator (access0) */
static void test_access1(void)
{
	const char *r = machine("acc1", "0-1\n", "0\n");
	hmpt_topo_hints_t h = {0};
	char err[256];

	node(r, 0, "0-7", 1024, "10 20", 100000, 0);
	node(r, 1, "", 1024, "20 10", 50000, 0); /* access0: slower than DDR */
	put(r, NODE "/node1/access1/initiators/read_bandwidth", "400000\n");
	put(r, NODE "/node1/access1/initiators/read_latency", "90\n");
	put(r, NODE "/node1/access1/initiators/node0", "");
	CHECK_OP(hmpt_topo_read(&topo, r), ==, 0);
	CHECK_OP(topo.node[1].read_bw, ==, 400000);
	CHECK_OP(topo.node[1].read_lat, ==, 90);
	CHECK(classify(&h, err) == 0 && mask_is(&topo.hbm, "1") &&
	      topo.hbm_src == HMPT_TOPO_SRC_HMAT && mask_is(&topo.local_hbm[0], "1"));
}

/* scribble on the stack, so that what a callee does not initialise shows */
static void __attribute__((noinline)) dirty_stack(void)
{
	volatile char junk[8192];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)0xAA;
}

/* an explicit list of only white space is an error whose message is one
 * clean sentence (the topology read last is still in `topo`) */
static void test_blank_env(void)
{
	hmpt_topo_hints_t h = {0};
	char err[256];
	int clean = 1;

	h.hbm_env = " ";
	dirty_stack();
	CHECK_OP(classify(&h, err), ==, -EINVAL);
	for (const char *c = err; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			clean = 0;
	CHECK(clean && strncmp(err, "HMPT_HBM_NODES= : expected a node list", 38) == 0);
	if (!clean)
		fprintf(stderr, "  message: %s\n", err);
}

/* CXL memory: CPU-less, but slower than DDR: not HBM */
static void test_cxl(void)
{
	const char *r = machine("cxl", "0-1\n", "0\n");
	hmpt_topo_hints_t h = {0};
	char err[256];

	node(r, 0, "0-31", 256 * 1024, "10 20", 204800, 0);
	node(r, 1, "", 128 * 1024, "20 10", 40960, 0);
	CHECK_OP(hmpt_topo_read(&topo, r), ==, 0);
	CHECK_OP(classify(&h, err), ==, 0);
	CHECK(hmpt_nodemask_empty(&topo.hbm) && mask_is(&topo.ddr, "0"));
}

/* a kernel without NUMA: one node 0 from /proc/meminfo */
static void test_no_numa(void)
{
	char root[300];
	hmpt_topo_hints_t h = {0};
	char err[256];

	snprintf(root, sizeof(root), "%s/flat", base);
	mkdir(root, 0755);
	put(root, "proc/meminfo", "MemTotal:        4194304 kB\nMemFree:         1048576 kB\n");
	put(root, "sys/devices/system/cpu/online", "0-3\n");
	CHECK_OP(hmpt_topo_read(&topo, root), ==, 0);
	CHECK(mask_is(&topo.online, "0") && mask_is(&topo.memory, "0") && mask_is(&topo.cpu, "0"));
	CHECK_OP(topo.node[0].mem_total, ==, 4ull << 30);
	CHECK_OP(topo.node[0].mem_free, ==, 1ull << 30);
	CHECK_OP(topo.ncpus, ==, 4);
	CHECK_OP(topo.cpu_node[3], ==, 0);
	CHECK(classify(&h, err) == 0 && mask_is(&topo.ddr, "0"));
	/* nothing at all */
	snprintf(root, sizeof(root), "%s/nothing", base);
	mkdir(root, 0755);
	CHECK_OP(hmpt_topo_read(&topo, root), <, 0);
}

/* this machine, for what it is worth: it reads, and has node 0 */
static void test_this_machine(void)
{
	hmpt_topo_hints_t h = {0};
	char err[256];

	CHECK_OP(hmpt_topo_read(&topo, ""), ==, 0);
	CHECK(hmpt_nodemask_has(&topo.online, 0) && topo.ncpus >= 1);
	CHECK(classify(&h, err) == 0 && !hmpt_nodemask_empty(&topo.ddr));
}

int main(void)
{
	if (fixture_begin() != 0)
		return 1;
	test_nodemask();
	test_one_node();
	test_xeonmax_flat();
	test_xeonmax_snc4();
	test_knl_probe();
	test_cxl();
	test_access1();
	test_no_numa();
	test_this_machine();
	fixture_end();
	test_blank_env();
	return failures != 0;
}
