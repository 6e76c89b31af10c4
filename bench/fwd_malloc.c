/* fwd_malloc.c — the floor of any malloc interposer: libfwd_malloc.so
 * defines the malloc family and forwards every call to the next
 * definition, and does nothing else (bench/malloc_overhead.c measures it
 * beside glibc alone and beside hmpt).
 *
 * As cheap as an interposer can be: each entry point is one indirect jump
 * through a pointer that holds glibc's own __libc_* entry point until the
 * constructor has resolved the next definition once (dlsym may allocate:
 * those calls reach glibc directly).  No guard, no test, no state.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

static void *(*next_malloc)(size_t) = __libc_malloc;
static void (*next_free)(void *) = __libc_free;
static void *(*next_calloc)(size_t, size_t) = __libc_calloc;
static void *(*next_realloc)(void *, size_t) = __libc_realloc;
static void *(*next_memalign)(size_t, size_t) = __libc_memalign;
static void *(*next_valloc)(size_t) = __libc_valloc;
static void *(*next_pvalloc)(size_t) = __libc_pvalloc;

/* `*slot` becomes the next definition of `name`, if there is one */
static void resolve(void **slot, const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (f)
		*slot = f;
}

__attribute__((constructor)) static void fwd_init(void)
{
	resolve((void **)&next_malloc, "malloc");
	resolve((void **)&next_free, "free");
	resolve((void **)&next_calloc, "calloc");
	resolve((void **)&next_realloc, "realloc");
	resolve((void **)&next_memalign, "memalign");
	resolve((void **)&next_valloc, "valloc");
	resolve((void **)&next_pvalloc, "pvalloc");
}

void *malloc(size_t size)
{
	return next_malloc(size);
}

void free(void *p)
{
	next_free(p);
}

void *calloc(size_t n, size_t size)
{
	return next_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	return next_realloc(p, size);
}

void *memalign(size_t align, size_t size)
{
	return next_memalign(align, size);
}

void *valloc(size_t size)
{
	return next_valloc(size);
}

void *pvalloc(size_t size)
{
	return next_pvalloc(size);
}
