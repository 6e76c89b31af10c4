/* test_bench.c — hmpt-bench's kernels compute what they claim: each STREAM
 * kernel's result and the check that catches one wrong element, a pointer
 * chain that is one cycle through every line of its window, and an indirect
 * sum that matches its serial value, with 1 and 3 threads.  The last-level
 * cache size from sysfs trees made here, and from the fallbacks when the
 * tree has no cache entries (as on some AMD VMs). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sysfs_fixture.h"

#include "hb.h"

static void test_stream(void)
{
	size_t n = 100003; /* not a multiple of any vector width */
	double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double)),
	       *z = malloc(n * sizeof(double));

	for (int threads = 1; threads <= 3; threads += 2) {
		omp_set_num_threads(threads);
		hb_fill(x, n, 2.0);
		hb_fill(y, n, 1.0);
		for (int k = 0; k < HB_NKERNELS; k++) {
			hb_fill(z, n, 0);
			CHECK_OP(hb_stream_pass(k, z, x, y, n), >=, 0);
			double want = hb_stream_expect(k, 2.0, 1.0);
			CHECK_OP(hb_stream_error(z, n, want), ==, 0);
			/* the last element is written too */
			CHECK_OP(z[n - 1], ==, want);
			/* one wrong element is seen */
			z[n / 2] += 1;
			CHECK_OP(hb_stream_error(z, n, want), >, 1e-13);
		}
	}
	CHECK_OP(hb_stream_expect(HB_COPY, 2, 1), ==, 2);
	CHECK_OP(hb_stream_expect(HB_SCALE, 2, 1), ==, 6);
	CHECK_OP(hb_stream_expect(HB_ADD, 2, 1), ==, 3);
	CHECK_OP(hb_stream_expect(HB_TRIAD, 2, 1), ==, 5);
	CHECK_OP(hb_kernel_bytes[HB_COPY], ==, 16);
	CHECK_OP(hb_kernel_bytes[HB_TRIAD], ==, 24);
	free(x);
	free(y);
	free(z);
}

static void test_chase(void)
{
	size_t window = 1 << 20, lines = window / 64;
	char *buf = aligned_alloc(64, window);
	unsigned char *seen = calloc(lines, 1);

	hb_chase_build(buf, window, 42);
	/* following the chain from the start visits every line once, then
	 * comes back */
	char *p = buf;
	size_t steps = 0;
	do {
		size_t line = (size_t)(p - buf) / 64;
		CHECK_OP(p, >=, buf);
		CHECK_OP(p, <, buf + window);
		CHECK_OP((size_t)(p - buf) % 64, ==, 0);
		CHECK(!seen[line]);
		seen[line] = 1;
		p = *(char **)p;
		steps++;
	} while (p != buf && steps <= lines);
	CHECK_OP(steps, ==, lines);
	CHECK_OP(hb_chase(buf, lines), ==, buf);
	CHECK_OP(hb_chase(buf, 3), ==, *(char **)*(char **)*(char **)buf);
	/* a smaller window of the same buffer stays inside it */
	hb_chase_build(buf, 4096, 7);
	p = hb_chase(buf, 1000);
	CHECK_OP(p, >=, buf);
	CHECK_OP(p, <, buf + 4096);
	free(buf);
	free(seen);
}

static void test_gather(void)
{
	size_t n = 1 << 16, m = 100000;
	uint64_t *table = malloc(n * sizeof(uint64_t)), *idx = malloc(m * sizeof(uint64_t));
	double s;

	hb_gather_fill(table, n, idx, m, 9);
	uint64_t want = 0;
	for (size_t j = 0; j < m; j++) {
		CHECK_OP(idx[j], <, n);
		want += hb_gather_value(idx[j]);
	}
	for (int threads = 1; threads <= 3; threads += 2) {
		omp_set_num_threads(threads);
		CHECK_OP(hb_gather_pass(table, idx, m, &s), ==, want);
		CHECK_OP(s, >=, 0);
	}
	/* the indices are spread over the table, not stuck in one place */
	size_t low = 0;
	for (size_t j = 0; j < m; j++)
		low += idx[j] < n / 2;
	CHECK_OP(low, >, m * 45 / 100);
	CHECK_OP(low, <, m * 55 / 100);
	free(table);
	free(idx);
}

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
	test_stream();
	test_chase();
	test_gather();
	if (fixture_begin() != 0)
		return 1;
	test_cache();
	fixture_end();
	return failures != 0;
}
