/* report.c — see report.h. */
#define _GNU_SOURCE
#include "report.h"

#include <errno.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void report_range(const char *name, const void *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len;
	unsigned long thp = 0, tlb = 0, kps = 0;
	char flags[8] = "-", line[1024], file[512] = "";
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b, v;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3) { /* a VMA's first line */
			int at = 0;
			in = a < hi && b > lo;
			/* the first VMA's file: "anon", or its path (spaces as _) */
			if (in && !file[0] && sscanf(line, "%*s %*s %*s %*s %*s %n", &at) >= 0 &&
			    at) {
				size_t k = 0;
				for (const char *c = line + at;
				     *c && *c != '\n' && k < sizeof(file) - 1; c++)
					file[k++] = *c == ' ' ? '_' : *c;
				file[k] = '\0';
				if (!k)
					strcpy(file, "anon");
			}
			continue;
		}
		if (!in)
			continue;
		if (sscanf(line, "AnonHugePages: %lu kB", &v) == 1)
			thp += v;
		else if (sscanf(line, "Private_Hugetlb: %lu kB", &v) == 1 ||
		         sscanf(line, "Shared_Hugetlb: %lu kB", &v) == 1)
			tlb += v;
		else if (sscanf(line, "KernelPageSize: %lu kB", &v) == 1)
			kps = v > kps ? v : kps;
		else if (strncmp(line, "VmFlags:", 8) == 0) {
			/* a VMA that says neither keeps the flag of the others */
			if (strstr(line, " hg"))
				strcpy(flags, strcmp(flags, "nh") == 0 ? "mixed" : "hg");
			else if (strstr(line, " nh"))
				strcpy(flags, strcmp(flags, "hg") == 0 ? "mixed" : "nh");
		}
	}
	if (f)
		fclose(f);

	long ps = sysconf(_SC_PAGESIZE);
	size_t n = len / (size_t)ps;
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status));
	long count[130] = {0};
	for (size_t i = 0; i < n; i++)
		pages[i] = (void *)((const char *)p + i * (size_t)ps);
	if (move_pages(0, n, pages, NULL, status, 0) != 0)
		for (size_t i = 0; i < n; i++)
			status[i] = -errno;
	/* A page that automatic NUMA balancing has marked PROT_NONE (to sample
	 * its next access) has no node for move_pages until it is touched: -EFAULT
	 * as for a page never touched.  Touch each such page (a read: it maps the
	 * zero page where nothing is, which still has no node) and ask again, a
	 * few rounds, so that the report says where pages are, not when the
	 * kernel last scanned them.  The arrays are the program's own. */
	for (int round = 0; round < 4 && kps <= 4 && tlb == 0;
	     round++) { /* hugetlb has no zero page */
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (status[i] == -EFAULT) {
				(void)*(volatile const char *)pages[i];
				pages[k++] = pages[i];
			}
		if (k == 0)
			break;
		int *again = calloc(k, sizeof(*again));
		if (!again)
			break;
		if (move_pages(0, k, pages, NULL, again, 0) != 0)
			for (size_t j = 0; j < k; j++)
				again[j] = -errno;
		/* put the answers back in order: pages[0..k) are the -EFAULT ones */
		size_t found = 0;
		for (size_t i = 0, j = 0; i < n && j < k; i++)
			if (status[i] == -EFAULT) {
				found += again[j] != -EFAULT;
				status[i] = again[j++];
			}
		free(again);
		for (size_t i = 0; i < n; i++)
			pages[i] = (void *)((const char *)p + i * (size_t)ps);
		if (found == 0) /* untouched pages: the zero page, no node to find */
			break;
	}
	for (size_t i = 0; i < n; i++)
		count[status[i] >= 0 && status[i] < 128 ? status[i] : 128]++;
	printf("%s bytes=%zu flags=%s thp_kb=%lu hugetlb_kb=%lu pagesize_kb=%lu nodes=", name, len,
	       flags, thp, tlb, kps);
	const char *sep = "";
	for (int k = 0; k < 129; k++)
		if (count[k]) {
			if (k == 128) /* move_pages failed, or a page not present */
				printf("%serr:%ld(%d)", sep, count[k], status[0]);
			else
				printf("%s%d:%ld", sep, k, count[k]);
			sep = ",";
		}
	printf(" file=%s\n", file[0] ? file : "anon");
	free(pages);
	free(status);
}

void report_static(const char *name, const void *p, size_t len)
{
	uintptr_t ps = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)p + ps / 2) & ~(ps - 1);
	uintptr_t hi = ((uintptr_t)p + len + ps / 2) & ~(ps - 1);

	report_range(name, (const void *)lo, hi > lo ? hi - lo : 0);
}

const char *report_page_flags(uintptr_t addr)
{
	static char flags[4];
	char line[1024];
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	strcpy(flags, "-");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3) {
			in = a <= addr && addr < b;
			continue;
		}
		if (in && strncmp(line, "VmFlags:", 8) == 0)
			strcpy(flags, strstr(line, " hg")   ? "hg"
			              : strstr(line, " nh") ? "nh"
			                                    : "-");
	}
	if (f)
		fclose(f);
	return flags;
}
