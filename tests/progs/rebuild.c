/* rebuild.c — the program of the plan tests that follow a rebuild: built
 * as it is, and again from a copy with lines inserted above its allocations
 * and a function added before them (tests/integration/rebuild_common.sh).
 *
 *   rebuild [MIB]   grid (2*MIB MiB), and u, v, r (MIB MiB each) from one
 *                   statement; each touched, then reported (report.h)
 *
 * Exit status 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define MiB (1024ul * 1024)

static char *grid, *u, *v, *r;

/* @FUNCTION@ */
__attribute__((noinline)) static void alloc_space(size_t n)
{
	/* @LINES@ */
	u = malloc(n), v = malloc(n), r = malloc(n);
}

__attribute__((noinline)) static char *alloc_grid(size_t n)
{
	/* @LINES@ */
	return malloc(n);
}

int main(int argc, char **argv)
{
	size_t n = (argc > 1 ? strtoul(argv[1], NULL, 10) : 8) * MiB;

	grid = alloc_grid(2 * n);
	alloc_space(n);
	if (!grid || !u || !v || !r)
		return 1;
	memset(grid, 1, 2 * n);
	memset(u, 2, n);
	memset(v, 3, n);
	memset(r, 4, n);
	report_range("grid", grid, 2 * n);
	report_range("u", u, n);
	report_range("v", v, n);
	report_range("r", r, n);
	return 0;
}
