/* placed.c — allocations whose placement the tests check from outside hmpt.
 *
 *   placed arrays MIB [MIB_D]   four arrays A-D from four call sites (malloc,
 *                               calloc, posix_memalign, realloc(NULL)), D of
 *                               MIB_D MiB when given; touched, then reported
 *   placed realloc MIB          one array moved by realloc between sites
 *                               (and so pools), its contents checked each time
 *   placed thread CPU MIB       array A allocated and touched by a thread
 *                               pinned to CPU
 *   placed split MIB H1 H2      array A of MIB MiB, reported as A.head (its
 *                               first H1 MiB) and A.tail; then grown to twice
 *                               that by realloc at its own site (grow_a) and
 *                               reported as G.head (first H2 MiB) and G.tail,
 *                               its contents checked
 *   placed fork MIB             array A filled, then a fork: the child must
 *                               see A as it was at the fork while the parent
 *                               writes it, and the parent must not see the
 *                               child's writes ("fork parent=intact
 *                               child=intact"); then A freed and B (calloc,
 *                               same size) allocated: "reuse same=1|0 zero=1|0"
 *
 * For each array one line (report.h).  Exit status 0, or 1 when contents
 * were not intact. */
#define _GNU_SOURCE
#include <errno.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

#define MiB (1024ul * 1024)

/* one call site each: the plan names them */
__attribute__((noinline)) static char *alloc_a(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static char *alloc_b(size_t n)
{
	return calloc(1, n);
}

__attribute__((noinline)) static char *alloc_c(size_t n)
{
	void *p = NULL;
	return posix_memalign(&p, 4096, n) == 0 ? p : NULL;
}

__attribute__((noinline)) static char *alloc_d(size_t n)
{
	return realloc(NULL, n);
}

__attribute__((noinline)) static char *grow_a(char *p, size_t n)
{
	return realloc(p, n);
}

__attribute__((noinline)) static char *grow_b(char *p, size_t n)
{
	return realloc(p, n);
}

__attribute__((noinline)) static char *grow_c(char *p, size_t n)
{
	return realloc(p, n);
}

static void fill(char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i += 64)
		p[i] = (char)(seed + i / 64);
}

static int intact(const char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i += 64)
		if (p[i] != (char)(seed + i / 64))
			return 0;
	return 1;
}

static int arrays(size_t n, size_t nd)
{
	char *a = alloc_a(n), *b = alloc_b(n), *c = alloc_c(n), *d = alloc_d(nd);

	if (!a || !b || !c || !d) {
		fprintf(stderr, "placed: allocation failed\n");
		return 1;
	}
	memset(a, 1, n);
	for (size_t i = 0; i < n; i++) /* calloc: zero, then touched */
		if (b[i]) {
			fprintf(stderr, "placed: calloc block not zero at %zu\n", i);
			return 1;
		}
	memset(b, 2, n);
	memset(c, 3, n);
	memset(d, 4, nd);
	report_range("A", a, n);
	report_range("B", b, n);
	report_range("C", c, n);
	report_range("D", d, nd);
	free(a);
	free(b);
	free(c);
	free(d);
	return 0;
}

/* A (site a) -> grow at site b -> grow at site c -> shrink at site b */
static int reallocs(size_t n)
{
	char *p = alloc_a(n);
	int bad = 0;

	if (!p)
		return 1;
	fill(p, n, 7);
	report_range("R0", p, n);
	p = grow_b(p, n + n / 2);
	if (!p || !intact(p, n, 7))
		bad = 1, fprintf(stderr, "placed: contents lost in realloc 1\n");
	if (!p)
		return 1;
	fill(p, n + n / 2, 9);
	report_range("R1", p, n + n / 2);
	p = grow_c(p, 2 * n);
	if (!p || !intact(p, n + n / 2, 9))
		bad = 1, fprintf(stderr, "placed: contents lost in realloc 2\n");
	if (!p)
		return 1;
	fill(p, 2 * n, 11);
	report_range("R2", p, 2 * n);
	p = grow_b(p, n);
	if (!p || !intact(p, n, 11))
		bad = 1, fprintf(stderr, "placed: contents lost in realloc 3\n");
	if (!p)
		return 1;
	report_range("R3", p, n);
	free(p);
	printf("realloc contents %s\n", bad ? "LOST" : "intact");
	return bad;
}

/* a split block: its two parts reported apart, before and after realloc */
static int split(size_t n, size_t h1, size_t h2)
{
	char *a = alloc_a(n);
	int bad = 0;

	if (!a || h1 > n || h2 > 2 * n)
		return 1;
	fill(a, n, 13);
	report_range("A.head", a, h1);
	report_range("A.tail", a + h1, n - h1);
	a = grow_a(a, 2 * n);
	if (!a || !intact(a, n, 13))
		bad = 1, fprintf(stderr, "placed: contents lost in realloc\n");
	if (!a)
		return 1;
	fill(a, 2 * n, 17);
	report_range("G.head", a, h2);
	report_range("G.tail", a + h2, 2 * n - h2);
	free(a);
	printf("realloc contents %s\n", bad ? "LOST" : "intact");
	return bad;
}

static size_t thread_len;

static void *thread_main(void *arg)
{
	char *a = alloc_a(thread_len);
	(void)arg;
	if (!a)
		return NULL;
	memset(a, 5, thread_len);
	printf("thread on cpu %d\n", sched_getcpu());
	report_range("A", a, thread_len);
	free(a);
	return NULL;
}

static int threaded(int cpu, size_t n)
{
	pthread_attr_t at;
	pthread_t t;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	thread_len = n;
	pthread_attr_init(&at);
	if (pthread_attr_setaffinity_np(&at, sizeof(set), &set) != 0 ||
	    pthread_create(&t, &at, thread_main, NULL) != 0) {
		fprintf(stderr, "placed: cannot start a thread on CPU %d\n", cpu);
		return 1;
	}
	pthread_join(t, NULL);
	return 0;
}

static int forked(size_t n)
{
	char *a = alloc_a(n), go;
	int to_child[2], to_parent[2], status = 0, child_ok;

	if (!a || pipe(to_child) || pipe(to_parent)) {
		fprintf(stderr, "placed: allocation failed\n");
		return 1;
	}
	fill(a, n, 5);
	report_range("A", a, n);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) { /* the snapshot, though the parent wrote since */
		if (read(to_child[0], &go, 1) != 1)
			_exit(2);
		int ok = intact(a, n, 5);
		fill(a, n, 9);
		if (write(to_parent[1], &go, 1) != 1)
			_exit(2);
		_exit(ok ? 0 : 1);
	}
	fill(a, n, 7);
	if (pid < 0 || write(to_child[1], "x", 1) != 1 || read(to_parent[0], &go, 1) != 1 ||
	    waitpid(pid, &status, 0) != pid) {
		fprintf(stderr, "placed: fork failed\n");
		return 1;
	}
	child_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	int parent_ok = intact(a, n, 7);
	printf("fork parent=%s child=%s\n", parent_ok ? "intact" : "LOST",
	       child_ok ? "intact" : "LOST");
	free(a);
	char *b = alloc_b(n);
	int zero = b != NULL;
	for (size_t i = 0; b && i < n; i += 4096)
		zero &= b[i] == 0 && b[n - 1 - i] == 0;
	printf("reuse same=%d zero=%d\n", b == a, zero);
	report_range("B", b, n);
	free(b);
	return parent_ok && child_ok && zero ? 0 : 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "arrays"))
		return arrays(strtoul(argv[2], NULL, 0) * MiB,
		              (argc > 3 ? strtoul(argv[3], NULL, 0) : strtoul(argv[2], NULL, 0)) *
		                  MiB);
	if (argc == 3 && !strcmp(argv[1], "fork"))
		return forked(strtoul(argv[2], NULL, 0) * MiB);
	if (argc == 3 && !strcmp(argv[1], "realloc"))
		return reallocs(strtoul(argv[2], NULL, 0) * MiB);
	if (argc == 4 && !strcmp(argv[1], "thread"))
		return threaded(atoi(argv[2]), strtoul(argv[3], NULL, 0) * MiB);
	if (argc == 5 && !strcmp(argv[1], "split"))
		return split(strtoul(argv[2], NULL, 0) * MiB, strtoul(argv[3], NULL, 0) * MiB,
		             strtoul(argv[4], NULL, 0) * MiB);
	fprintf(stderr, "usage: placed arrays MIB [MIB_D] | realloc MIB | thread CPU MIB | split "
	                "MIB H1 H2 | fork MIB\n");
	return 2;
}
