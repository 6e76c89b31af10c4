/* touch4 — four arrays first touched in known proportions, one of them by
 * a second thread, and a block freed and its range used again, for the
 * sampling tests.  Each line marked "touch:" names its array and the MiB
 * the program touches in it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

static void touch(char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4096)
		p[i] = (char)i;
}

static void *second_thread(void *p)
{
	touch(p, 32 * MiB);
	return NULL;
}

int main(int argc, char **argv)
{
	int pages = argc > 1 && !strcmp(argv[1], "--sum");
	char *a = malloc(64 * MiB); /* touch: A 64 */
	char *b = malloc(32 * MiB); /* touch: B 32 */
	char *c = malloc(64 * MiB); /* touch: C 16 */
	char *d = malloc(8 * MiB);  /* touch: D 8 */
	pthread_t t;

	if (!a || !b || !c || !d)
		return 1;
	touch(a, 64 * MiB);
	if (pthread_create(&t, NULL, second_thread, b) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	touch(c, 16 * MiB);
	touch(d, 8 * MiB);
	/* a block freed while its samples may still wait in the ring, and its
	 * range taken by the next one (calloc: fresh pages, faulted again) */
	char *e = malloc(16 * MiB); /* touch: E 16 */
	touch(e, 16 * MiB);
	free(e);
	char *f = calloc(1, 16 * MiB); /* touch: F 16 */
	if (!f)
		return 1;
	touch(f, 16 * MiB);
	long sum = a[4096] + b[8192] + c[4096] + d[4096] + f[4096];
	if (pages)
		printf("%ld\n", sum);
	free(a);
	free(b);
	free(c);
	free(d);
	free(f);
	return 0;
}
