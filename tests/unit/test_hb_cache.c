/* test_hb_cache.c — hmpt-bench's last-level cache size (bench/hb_cache.c),
 * for STREAM's array-size rule: from sysfs trees made here, and from the
 * fallbacks when the tree has no cache entries (as on some AMD VMs). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sysfs_fixture.h"

#include "hb.h"

#define CPU "sys/devices/system/cpu"

/* cache index `idx` of `cpu`: level, type, size, sharing */
static void cache(const char *root, int cpu, int idx, int level, const char *type, const char *size,
                  const char *shared)
{
	char rel[128];
#define ATTR(name, ...)                                                                            \
	snprintf(rel, sizeof(rel), CPU "/cpu%d/cache/index%d/" name, cpu, idx);                    \
	putf(root, rel, 0, __VA_ARGS__)
	ATTR("level", "%d\n", level);
	ATTR("type", "%s\n", type);
	ATTR("size", "%s\n", size);
	ATTR("shared_cpu_list", "%s\n", shared);
#undef ATTR
}

/* a fixture root with `ncpus` CPUs, each with private L1d, L1i (larger,
 * to be ignored) and L2, and an L3 shared by `per_l3` CPUs */
static const char *cpus(const char *name, int ncpus, int per_l3)
{
	static char root[300];
	char shared[32];

	snprintf(root, sizeof(root), "%s/%s", base, name);
	mkdir(root, 0755);
	for (int c = 0; c < ncpus; c++) {
		int first = c / per_l3 * per_l3;
		snprintf(shared, sizeof(shared), "%d", c);
		cache(root, c, 0, 1, "Data", "32K", shared);
		cache(root, c, 1, 1, "Instruction", "64000K", shared);
		cache(root, c, 2, 2, "Unified", "1024K", shared);
		snprintf(shared, sizeof(shared), "%d-%d", first, first + per_l3 - 1);
		cache(root, c, 3, 3, "Unified", "32768K", shared);
	}
	return root;
}

static void test_cache(void)
{
	hb_cache_t c;
	char root[300];

	/* one L3 shared by 4 CPUs: counted once */
	CHECK_OP(hb_cache_read(cpus("l3x1", 4, 4), &c), ==, 0);
	CHECK_OP(c.bytes, ==, (uint64_t)32 << 20);
	CHECK_OP(c.level, ==, 3);
	CHECK_OP(c.instances, ==, 1);
	CHECK_STREQ(c.source, "sysfs, 1 instance of L3");
	/* two L3s (two sockets, or AMD's CCXs): both count */
	CHECK_OP(hb_cache_read(cpus("l3x2", 4, 2), &c), ==, 0);
	CHECK_OP(c.bytes, ==, (uint64_t)64 << 20);
	CHECK_OP(c.instances, ==, 2);
	CHECK_STREQ(c.source, "sysfs, 2 instances of L3");
	/* no L3: the L2s, one per CPU */
	snprintf(root, sizeof(root), "%s/l2", base);
	mkdir(root, 0755);
	for (int cpu = 0; cpu < 2; cpu++) {
		char one[8];
		snprintf(one, sizeof(one), "%d", cpu);
		cache(root, cpu, 0, 1, "Data", "48K", one);
		cache(root, cpu, 1, 2, "Unified", "2048K", one);
	}
	CHECK_OP(hb_cache_read_sysfs(root, &c), ==, 0);
	CHECK_OP(c.bytes, ==, (uint64_t)4 << 20);
	CHECK_OP(c.level, ==, 2);

	/* CPUs without cache entries (an AMD VM), and no CPUs at all: sysfs
	 * does not know, the fallbacks do on x86 */
	snprintf(root, sizeof(root), "%s/nocache", base);
	mkdir(root, 0755);
	put(root, CPU "/cpu0/online", "1\n");
	put(root, CPU "/cpu1/online", "1\n");
	const char *roots[2] = {root, base};
	for (int i = 0; i < 2; i++) {
		memset(&c, 0xff, sizeof(c));
		CHECK_OP(hb_cache_read_sysfs(roots[i], &c), <, 0);
		int rc = hb_cache_read(roots[i], &c);
		printf("no cache in sysfs: %llu bytes from %s\n", (unsigned long long)c.bytes,
		       c.source);
		CHECK(rc == 0 ? c.bytes > 0 && strncmp(c.source, "sysfs", 5) != 0
		              : c.bytes == 0 && strstr(c.source, "unknown"));
#if defined(__x86_64__) || defined(__i386__)
		CHECK(rc == 0 && c.bytes > 0 && c.level >= 2);
#endif
	}
	/* each fallback alone: what it says is whole */
	if (hb_cache_read_sysconf(&c) == 0)
		CHECK(c.bytes > 0 && c.instances == 1 && strstr(c.source, "sysconf(_SC_LEVEL"));
	if (hb_cache_read_cpuid(&c) == 0) {
		printf("cpuid: %llu bytes, L%d (%s)\n", (unsigned long long)c.bytes, c.level,
		       c.source);
		CHECK(c.bytes > 0 && c.level >= 2 && strstr(c.source, "cpuid leaf"));
	}
}

int main(void)
{
	if (fixture_begin() != 0)
		return 1;
	test_cache();
	fixture_end();
	return failures != 0;
}
