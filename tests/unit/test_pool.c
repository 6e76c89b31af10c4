/* test_pool.c — pools resolved against a Xeon Max-like sysfs tree (this
 * machine's CPUs on node 0): budgets from capacity, from a node's free
 * memory and from free huge pages; the fallback chain; release and regrow.
 * Only the accounting runs here: nothing is mapped or bound. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sysfs_fixture.h"

#include "plan.h"
#include "pool.h"
#include "topo.h"

#define MiB (1024ull * 1024)

static hmpt_topo_t topo;
static hmpt_plan_t plan;
static hmpt_pools_t *pools;

static const char plan_text[] =
    "{ \"format\": \"hmpt-plan\", \"format_version\": 1,\n"
    "  \"pools\": {\n"
    "    \"hbm\": { \"nodes\": \"hbm\", \"capacity\": \"100M\", \"fallback\": \"ddr\" },\n"
    "    \"wide\": { \"nodes\": \"hbm\", \"fallback\": \"ddr\" },\n"
    "    \"huge\": { \"nodes\": [0], \"pages\": \"hugetlb\", \"fallback\": \"ddr\" },\n"
    "    \"ddr\": { \"nodes\": \"ddr\" } },\n"
    "  \"default_pool\": \"ddr\", \"groups\": [] }\n";

static int pool_index(const char *name)
{
	for (int i = 0; i < plan.npools; i++)
		if (strcmp(plan.pools[i].name, name) == 0)
			return i;
	return -2;
}

static void warned(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "warning: %s\n", msg);
}

/* node 0: CPUs 0-63 (this machine's), 1 GiB, 6 free huge pages; node 1
 * CPUs 64-127; nodes 2 and 3: 256 MiB HBM each, half free */
static int setup(void)
{
	const char *r = machine("pool", "0-3\n", "0-1\n");
	hmpt_topo_hints_t h = {0};
	char err[512];

	node(r, 0, "0-63", 1024, "10 21 13 23", 102400, 0);
	node(r, 1, "64-127", 1024, "21 10 23 13", 102400, 1);
	node(r, 2, "", 256, "13 23 10 23", 409600, 0);
	node(r, 3, "", 256, "23 13 23 10", 409600, 1);
	CHECK_OP(hmpt_topo_read(&topo, r), ==, 0);
	CHECK_OP(hmpt_topo_classify(&topo, &h, err, sizeof(err)), ==, 0);
	if (hmpt_plan_parse(plan_text, strlen(plan_text), "p.json", &plan, err, sizeof(err)) != 0) {
		fprintf(stderr, "plan: %s\n", err);
		return -1;
	}
	pools = hmpt_pools_create();
	if (!pools ||
	    hmpt_pools_resolve(pools, &plan, &topo, warned, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "resolve: %s\n", err);
		return -1;
	}
	return 0;
}

static int nodes_of(const hmpt_choice_t *c, unsigned n)
{
	hmpt_pool_stats_t st;
	hmpt_pools_stats(pools, c->pool, &st);
	return hmpt_nodemask_has(&st.nodes, n);
}

/* what the pools say on stderr (hmpt's log) between begin and end */
static int saved_fd = -1;
static char said_path[300];

static void said_begin(void)
{
	snprintf(said_path, sizeof(said_path), "%s/said", base);
	int fd = open(said_path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	fflush(stderr);
	saved_fd = dup(2);
	dup2(fd, 2);
	close(fd);
}

static const char *said_end(char *buf, size_t cap)
{
	dup2(saved_fd, 2);
	close(saved_fd);
	FILE *f = fopen(said_path, "r");
	size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	fputs(buf, stderr);
	return buf;
}

static void test_capacity(void)
{
	int hbm = pool_index("hbm"), ddr = pool_index("ddr");
	hmpt_choice_t a, b, c;
	char msg[512];
	hmpt_pool_stats_t st;

	hmpt_pools_stats(pools, hbm, &st);
	CHECK_OP(st.budget, ==, 100 * MiB);
	CHECK_STREQ(st.budget_from, "capacity");
	hmpt_pools_choose(pools, hbm, 60 * MiB, 1, &a);
	CHECK(a.pool == hbm && a.tag != 0 && !a.hugetlb && a.bytes == 60 * MiB && nodes_of(&a, 2));
	said_begin();
	hmpt_pools_choose(pools, hbm, 60 * MiB, 2, &b); /* 120 > 100: the whole block to ddr */
	said_end(msg, sizeof(msg));
	CHECK_OP(b.pool, ==, ddr);
	CHECK_OP(b.bytes, ==, 60 * MiB);
	/* node 2 is short too (52 MiB left), but the capacity is what the plan said */
	CHECK_STREQ(msg, "hmpt: pool hbm cannot take 60.0 MiB for site 0000000000000002 (budget "
	                 "100.0 MiB from capacity, 60.0 MiB in use): it and any like it go to "
	                 "ddr; the profile counts them\n");
	hmpt_pools_stats(pools, hbm, &st);
	CHECK_OP(st.used, ==, 60 * MiB);
	CHECK_OP(st.refused, ==, 1);
	CHECK_OP(st.refused_bytes, ==, 60 * MiB);
	CHECK_OP(st.allocations, ==, 1);
	CHECK_OP(st.peak, ==, 60 * MiB);
	/* growing in place: to 90 fits, to 120 does not and changes nothing */
	CHECK(hmpt_pools_regrow(pools, a.tag, 60 * MiB, 90 * MiB));
	CHECK(!hmpt_pools_regrow(pools, a.tag, 90 * MiB, 120 * MiB));
	hmpt_pools_stats(pools, hbm, &st);
	CHECK_OP(st.used, ==, 90 * MiB);
	CHECK_OP(st.peak, ==, 90 * MiB);
	CHECK(hmpt_pools_regrow(pools, a.tag, 90 * MiB, 10 * MiB)); /* shrinking always fits */
	hmpt_pools_choose(pools, hbm, 60 * MiB, 3, &c);
	CHECK_OP(c.pool, ==, hbm);
	hmpt_pools_release(pools, a.tag, 10 * MiB);
	hmpt_pools_release(pools, c.tag, 60 * MiB);
	hmpt_pools_release(pools, b.tag, 60 * MiB);
	hmpt_pools_stats(pools, hbm, &st);
	CHECK_OP(st.used, ==, 0);
	hmpt_pools_stats(pools, ddr, &st);
	CHECK_OP(st.used, ==, 0);
	CHECK_OP(st.allocations, ==, 1);
}

/* no capacity: node 2's room is its free memory (128 MiB) less the reserve
 * (16 MiB), though the pool's budget spans nodes 2 and 3 */
static void test_node_room(void)
{
	int wide = pool_index("wide"), ddr = pool_index("ddr");
	hmpt_choice_t a, b;
	char msg[512];
	hmpt_pool_stats_t st;

	hmpt_pools_stats(pools, wide, &st);
	CHECK_OP(st.budget, ==, 224 * MiB);
	CHECK_STREQ(st.budget_from, "free memory");
	said_begin();
	hmpt_pools_choose(pools, wide, 120 * MiB, 4, &a);
	said_end(msg, sizeof(msg));
	CHECK_OP(a.pool, ==, ddr);
	CHECK_OP(strstr(msg, "(only 112.0 MiB left on node 2: its free memory at start less a "
	                     "reserve)"),
	         !=, NULL);
	hmpt_pools_choose(pools, wide, 112 * MiB, 5, &b);
	CHECK(b.pool == wide && nodes_of(&b, 2));
	hmpt_pools_release(pools, a.tag, a.bytes);
	hmpt_pools_release(pools, b.tag, b.bytes);
}

/* hugetlb: blocks rounded to 2 MiB, budget = the free huge pages (6) */
static void test_hugetlb(void)
{
	int huge = pool_index("huge"), ddr = pool_index("ddr");
	hmpt_choice_t a, b;
	char msg[512];
	hmpt_pool_stats_t st;

	hmpt_pools_stats(pools, huge, &st);
	CHECK_OP(st.budget, ==, 12 * MiB);
	CHECK_STREQ(st.budget_from, "free huge pages");
	hmpt_pools_choose(pools, huge, 9 * MiB + 1, 6, &a);
	CHECK(a.pool == huge && a.hugetlb && a.bytes == 10 * MiB);
	CHECK(hmpt_pools_round(pools, a.tag, 1) == 2 * MiB && hmpt_pools_tag_hugetlb(pools, a.tag));
	said_begin();
	hmpt_pools_choose(pools, huge, 4 * MiB, 7, &b);
	said_end(msg, sizeof(msg));
	CHECK(b.pool == ddr && !b.hugetlb);
	CHECK_OP(strstr(msg, "(only 2.00 MiB of free 2 MiB pages left on node 0)"), !=, NULL);
	hmpt_pools_release(pools, a.tag, a.bytes);
	hmpt_pools_release(pools, b.tag, b.bytes);
}

/* "system" always fits and is tag 0 */
static void test_system(void)
{
	hmpt_choice_t c;

	hmpt_pools_choose(pools, HMPT_POOL_SYSTEM, 3 * MiB, 8, &c);
	CHECK_OP(c.pool, ==, HMPT_POOL_SYSTEM);
	CHECK_OP(c.tag, ==, 0);
	CHECK(c.bp && c.bp->be->caps.split && c.bp->index == HMPT_POOL_SYSTEM);
	CHECK_OP(hmpt_pools_tag_pool(pools, 0), ==, HMPT_POOL_SYSTEM);
	CHECK(!hmpt_pools_refuse(pools, &c, 3 * MiB, 8, ENOMEM));
}

int main(void)
{
	if (fixture_begin() != 0)
		return 1;
	if (setup() == 0) {
		test_capacity();
		test_node_room();
		test_hugetlb();
		test_system();
	} else {
		failures++;
	}
	hmpt_pools_destroy(pools);
	hmpt_plan_free(&plan);
	fixture_end();
	return failures != 0;
}
