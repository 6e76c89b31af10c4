/* bench_util.h — what the small benchmark programs share: a monotonic
 * clock in seconds, the median of a sample (which it sorts), and the
 * environment of a child run with or without the shim. */
#ifndef HMPT_BENCH_UTIL_H
#define HMPT_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* the median of v[0..n), n > 0, sorting v */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The caller's environment without LD_PRELOAD, and without HMPT_* unless
 * `keep_hmpt` (so that only what the benchmark sets applies), with
 * LD_PRELOAD=lib added unless lib is NULL: a NULL-terminated array,
 * allocated for the program's life, or NULL. */
static inline char **bench_env_keep(const char *lib, int keep_hmpt)
{
	extern char **environ;
	size_t n = 0, k = 0;

	for (char **e = environ; *e; e++)
		n++;
	char **env = calloc(n + 2, sizeof(char *));
	if (!env)
		return NULL;
	for (char **e = environ; *e; e++)
		if ((keep_hmpt || strncmp(*e, "HMPT_", 5) != 0) &&
		    strncmp(*e, "LD_PRELOAD=", 11) != 0)
			env[k++] = *e;
	if (lib) {
		size_t len = strlen(lib) + 12;
		if (!(env[k] = malloc(len)))
			return NULL;
		snprintf(env[k], len, "LD_PRELOAD=%s", lib);
	}
	return env;
}

/* bench_env_keep() without the caller's HMPT_* variables */
static inline char **bench_env(const char *lib)
{
	return bench_env_keep(lib, 0);
}

#endif
