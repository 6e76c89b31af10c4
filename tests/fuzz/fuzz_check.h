/* fuzz_check.h — a fuzz target's own invariants: one that does not hold
 * aborts, so that libFuzzer reports it as a crash and keeps the input. */
#ifndef HMPT_FUZZ_CHECK_H
#define HMPT_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static inline void fuzz_check_at(int ok, const char *file, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s: %s\n", file, what);
		abort();
	}
}
#define fuzz_check(ok, what) fuzz_check_at((ok), __FILE__, (what))

#endif
