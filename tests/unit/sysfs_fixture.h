/* sysfs_fixture.h — sysfs trees for machines we lack, written under a
 * temporary directory for hmpt_topo_read(t, root) (unit tests only). */
#ifndef HMPT_TEST_SYSFS_FIXTURE_H
#define HMPT_TEST_SYSFS_FIXTURE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static char base[256];

/* write `text` to ROOT/REL, making the directories */
static void put(const char *root, const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void putf(const char *root, const char *fmt_rel, int n, const char *fmt, ...)
{
	char rel[256], text[1024];
	va_list ap;
	snprintf(rel, sizeof(rel), fmt_rel, n);
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	put(root, rel, text);
}

#define NODE "sys/devices/system/node"

/* a fixture root named `name`, with the machine-wide files */
__attribute__((unused)) static const char *machine(const char *name, const char *online,
                                                   const char *has_cpu)
{
	static char root[300];
	snprintf(root, sizeof(root), "%s/%s", base, name);
	mkdir(root, 0755);
	put(root, NODE "/online", online);
	put(root, NODE "/has_cpu", has_cpu);
	put(root, NODE "/has_memory", online);
	put(root, "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	put(root, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "8\n");
	put(root, "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "6\n");
	return root;
}

/* node n: CPUs (or ""), memory in MiB, SLIT row, HMAT bandwidth (0: none)
 * and initiator node (-1: none) */
__attribute__((unused)) static void node(const char *root, int n, const char *cpus, unsigned mib,
                                         const char *slit, unsigned bw, int initiator)
{
	putf(root, NODE "/node%d/cpulist", n, "%s\n", cpus);
	putf(root, NODE "/node%d/meminfo", n,
	     "Node %d MemTotal:       %u kB\nNode %d MemFree:        %u kB\n", n, mib * 1024, n,
	     mib * 512);
	putf(root, NODE "/node%d/distance", n, "%s\n", slit);
	putf(root, NODE "/node%d/hugepages/hugepages-2048kB/nr_hugepages", n, "%d\n",
	     n == 0 ? 8 : 0);
	putf(root, NODE "/node%d/hugepages/hugepages-2048kB/free_hugepages", n, "%d\n",
	     n == 0 ? 6 : 0);
	if (bw) {
		putf(root, NODE "/node%d/access0/initiators/read_bandwidth", n, "%u\n", bw);
		putf(root, NODE "/node%d/access0/initiators/read_latency", n, "%u\n", 100);
		char rel[128];
		snprintf(rel, sizeof(rel), NODE "/node%d/access0/initiators/node%d", n,
		         initiator >= 0 ? initiator : n);
		put(root, rel, ""); /* a symlink in sysfs; only the name matters */
	}
}

/* HMAT for node n as the kernel shows it for its local CPU initiators
 * (access1): read bandwidth MB/s, read latency ns, initiator node */
__attribute__((unused)) static void hmat(const char *root, int n, unsigned bw, unsigned lat,
                                         int initiator)
{
	char rel[160];
	putf(root, NODE "/node%d/access1/initiators/read_bandwidth", n, "%u\n", bw);
	putf(root, NODE "/node%d/access1/initiators/read_latency", n, "%u\n", lat);
	snprintf(rel, sizeof(rel), NODE "/node%d/access1/initiators/node%d", n, initiator);
	put(root, rel, "");
}

/* the kernel's memory tier N (Linux 6.1+) holding `nodes` */
__attribute__((unused)) static void kernel_tier(const char *root, int tier, const char *nodes)
{
	putf(root, "sys/devices/virtual/memory_tiering/memory_tier%d/nodelist", tier, "%s\n",
	     nodes);
}

/* the temporary directory that holds the trees: fixture_begin() first,
 * fixture_end() to remove it */
static int fixture_begin(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(base, sizeof(base), "%s/hmpt-topo.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

static void fixture_end(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", base);
}

#endif
