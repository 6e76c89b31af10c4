/* hb_cache.c — the last-level cache size for STREAM's rule; see hb.h.
 *
 * Sources in order of trust: sysfs (per CPU, with sharing, so instances can
 * be summed), then glibc's sysconf, then cpuid itself.  Some VMs (AMD ones
 * seen) have no cpuN/cache in sysfs; without a fallback the rule became
 * "4 x 0 B" and its warning never came. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "hb.h"

/* one line of ROOT/sys/devices/system/cpu/cpuCPU/cache/indexIDX/NAME */
static int read_attr(const char *root, int cpu, int idx, const char *name, char *buf, size_t cap)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cache/index%d/%s", root, cpu,
	         idx, name);
	if (!(f = fopen(path, "r")))
		return -1;
	buf[0] = '\0';
	if (!fgets(buf, (int)cap, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int hb_cache_read_sysfs(const char *root, hb_cache_t *c)
{
	char path[512], seen[64][64], line[64];
	int best = 0, nseen = 0;
	uint64_t total = 0;

	for (int cpu = 0; cpu < 4096; cpu++) {
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d", root, cpu);
		if (access(path, F_OK) != 0)
			break;
		for (int idx = 0; idx < 16; idx++) {
			int level = 0;
			unsigned long kb = 0;
			char shared[64] = "";
			if (read_attr(root, cpu, idx, "level", line, sizeof(line)) != 0 ||
			    sscanf(line, "%d", &level) != 1)
				break; /* no more caches of this CPU, or none in sysfs */
			if (read_attr(root, cpu, idx, "type", line, sizeof(line)) == 0 &&
			    !strcmp(line, "Instruction"))
				continue;
			if (read_attr(root, cpu, idx, "size", line, sizeof(line)) != 0 ||
			    sscanf(line, "%luK", &kb) != 1 || level < best)
				continue;
			read_attr(root, cpu, idx, "shared_cpu_list", shared, sizeof(shared));
			if (level > best) {
				best = level;
				total = 0;
				nseen = 0;
			}
			/* a cache shared by several CPUs is listed by each: count it once */
			bool dup = false;
			for (int s = 0; s < nseen && !dup; s++)
				dup = !strcmp(seen[s], shared);
			if (!dup && nseen < 64) {
				snprintf(seen[nseen++], sizeof(seen[0]), "%s", shared);
				total += (uint64_t)kb << 10;
			}
		}
	}
	if (!total)
		return -1;
	c->bytes = total;
	c->level = best;
	c->instances = nseen;
	snprintf(c->source, sizeof(c->source), "sysfs, %d instance%s of L%d", nseen,
	         nseen == 1 ? "" : "s", best);
	return 0;
}

int hb_cache_read_sysconf(hb_cache_t *c)
{
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
	static const struct {
		int name, level;
		const char *text;
	} q[] = {{_SC_LEVEL3_CACHE_SIZE, 3, "sysconf(_SC_LEVEL3_CACHE_SIZE)"},
	         {_SC_LEVEL2_CACHE_SIZE, 2, "sysconf(_SC_LEVEL2_CACHE_SIZE)"}};
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		long v = sysconf(q[i].name);
		if (v > 0) {
			c->bytes = (uint64_t)v;
			c->level = q[i].level;
			c->instances = 1; /* glibc says nothing of how many */
			snprintf(c->source, sizeof(c->source), "%s, one instance", q[i].text);
			return 0;
		}
	}
#endif
	(void)c;
	return -1;
}

int hb_cache_read_cpuid(hb_cache_t *c)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, cc, d, leaf;
	char vendor[13];

	if (!__get_cpuid(0, &a, &b, &cc, &d))
		return -1;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &cc, 4);
	vendor[12] = '\0';
	if (!strcmp(vendor, "GenuineIntel")) {
		if (a < 4)
			return -1;
		leaf = 4;
	} else if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine")) {
		/* 0x8000001D exists with the topology extensions (0x80000001 ECX bit 22) */
		if (__get_cpuid_max(0x80000000, NULL) < 0x8000001D ||
		    !__get_cpuid(0x80000001, &a, &b, &cc, &d) || !(cc >> 22 & 1))
			return -1;
		leaf = 0x8000001D;
	} else {
		return -1;
	}
	uint64_t best_bytes = 0;
	int best = 0;
	for (unsigned sub = 0; sub < 16; sub++) {
		__cpuid_count(leaf, sub, a, b, cc, d);
		unsigned type = a & 31, level = a >> 5 & 7;
		if (type == 0)
			break; /* no more caches */
		if (type == 2 || (int)level < best)
			continue; /* instruction cache */
		/* ways x partitions x line size x sets, each field stored minus one */
		uint64_t bytes = (uint64_t)((b >> 22) + 1) * ((b >> 12 & 0x3ff) + 1) *
		                 ((b & 0xfff) + 1) * ((uint64_t)cc + 1);
		best = (int)level;
		best_bytes = bytes;
	}
	if (!best_bytes)
		return -1;
	c->bytes = best_bytes;
	c->level = best;
	c->instances = 1; /* how many there are is sysfs's to say */
	snprintf(c->source, sizeof(c->source), "cpuid leaf %#x, one instance", leaf);
	return 0;
#else
	(void)c;
	return -1;
#endif
}

int hb_cache_read(const char *root, hb_cache_t *c)
{
	memset(c, 0, sizeof(*c));
	if (hb_cache_read_sysfs(root ? root : "", c) == 0 || hb_cache_read_sysconf(c) == 0 ||
	    hb_cache_read_cpuid(c) == 0)
		return 0;
	memset(c, 0, sizeof(*c));
	snprintf(c->source, sizeof(c->source), "unknown: not in sysfs, sysconf or cpuid");
	return -1;
}
