/* check.h — the unit tests' one assertion: report and count, go on. */
#ifndef HMPT_TEST_CHECK_H
#define HMPT_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

#endif
