/* thp_probe.c — does this kernel, now, grant 2 MiB pages to a region that
 * asks for them?  The tests' pre-flight (place_common.sh: need_thp): a
 * kernel with THP enabled can still answer with 4 KiB pages when its memory
 * is fragmented, and a test that expects huge pages must then skip, not fail.
 *
 *   thp_probe [MIB]   map MIB (default 8) MiB on a 2 MiB boundary, ask for
 *                     huge pages (MADV_HUGEPAGE), write every byte, and print
 *                     the placement report's line for it (report.h:
 *                     "probe bytes=N ... thp_kb=N ...").  Run without hmpt. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "report.h"

int main(int argc, char **argv)
{
	size_t huge = 2u << 20, len = (size_t)(argc > 1 ? atoi(argv[1]) : 8) << 20;
	char *map =
	    mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (len == 0 || map == MAP_FAILED) {
		perror("thp_probe: mmap");
		return 2;
	}
	char *p = (char *)(((uintptr_t)map + huge - 1) & ~(uintptr_t)(huge - 1));
	if (madvise(p, len, MADV_HUGEPAGE) != 0) {
		perror("thp_probe: madvise(MADV_HUGEPAGE)");
		return 2;
	}
	memset(p, 1, len);
	report_range("probe", p, len);
	return 0;
}
