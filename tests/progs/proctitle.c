/* proctitle.c — a program that sets its process title as redis, nginx and
 * postgres do (setproctitle): the environment copied to the heap and
 * environ pointed at the copy, then the old argv and environment area
 * zeroed and the title written over it.  Then one 8 MiB block from one call
 * site, touched, reported (report.h), freed.
 *
 *   proctitle title STATUS   as above; exits with STATUS
 *   proctitle plain STATUS   the same block without touching the title
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define MiB (1024ul * 1024)

extern char **environ;

/* one call site: the plan names it */
__attribute__((noinline)) static char *alloc_block(size_t n)
{
	return malloc(n);
}

static void set_title(int argc, char **argv, const char *title)
{
	char *start = argv[0], *end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
	size_t n = 0;

	/* the environment's strings follow argv's: the area ends with the last */
	for (; environ[n]; n++)
		if (environ[n] == end)
			end += strlen(environ[n]) + 1;
	/* the test means nothing unless hmpt's variables are in the area wiped */
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "HMPT_", 5) == 0 &&
		    (environ[i] < start || environ[i] >= end)) {
			fprintf(stderr, "proctitle: %.20s... lies outside the argv/environ area\n",
			        environ[i]);
			exit(4);
		}
	char **env = malloc((n + 1) * sizeof(*env));
	for (size_t i = 0; i < n; i++)
		env[i] = strdup(environ[i]);
	env[n] = NULL;
	environ = env;
	memset(start, 0, (size_t)(end - start));
	snprintf(start, (size_t)(end - start), "%s", title);
	argv[1] = NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "title") && strcmp(argv[1], "plain"))) {
		fprintf(stderr, "usage: proctitle title|plain STATUS\n");
		return 2;
	}
	int status = atoi(argv[2]);
	if (strcmp(argv[1], "title") == 0)
		set_title(argc, argv, "proctitle: serving");

	size_t n = 8 * MiB;
	char *p = alloc_block(n);
	if (!p) {
		fprintf(stderr, "proctitle: allocation failed\n");
		return 1;
	}
	memset(p, 1, n);
	report_range("A", p, n);
	free(p);
	return status;
}
