/* dlopen_main.c — dlopen a library that allocates; dlclose at the end.
 * Usage: dlopen_main /path/to/libhmpt_testlib.so */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "libhmpt_testlib.so", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen_main: %s\n", dlerror());
		return 1;
	}
	void *(*fn)(size_t) = (void *(*)(size_t))dlsym(h, "testlib_alloc");
	if (!fn) {
		fprintf(stderr, "dlopen_main: %s\n", dlerror());
		return 1;
	}
	void *a = fn(4 << 20);
	void *b = fn(8 << 20);
	free(a);
	free(b);
	dlclose(h);
	char *c = malloc(2 << 20); /* hmpt-expect: allocations=1 bytes=2097152 */
	c[0] = 0;
	free(c);
	puts("dlopen_main: ok");
	return 0;
}
