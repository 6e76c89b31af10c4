/* dlopen_lib.c — a library that allocates in its constructor and in a
 * function called after dlopen. */
#include <stdlib.h>
#include <string.h>

static char *from_ctor;

__attribute__((constructor)) static void lib_init(void)
{
	from_ctor = malloc(3 << 20); /* hmpt-expect: allocations=1 bytes=3145728 */
	memset(from_ctor, 1, 3 << 20);
}

__attribute__((destructor)) static void lib_fini(void)
{
	free(from_ctor);
}

void *testlib_alloc(size_t n)
{
	void *p = malloc(n); /* hmpt-expect: allocations=2 bytes=12582912 */
	memset(p, 2, n);
	return p;
}
