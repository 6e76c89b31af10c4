/* walk_lib.c — a library for test_walk, built twice: with frame pointers
 * (libwalk_fp.so) and without (libwalk_nofp.so), so that the test's stacks
 * hold frames of both kinds, in a module other than the test's own. */
#include <stdint.h>

typedef void (*walk_cb_t)(void *);

#define EXPORT __attribute__((visibility("default"), noinline))
#define LOCAL  __attribute__((noinline))

/* `depth` frames of this library, then cb(arg) */
EXPORT int walk_lib_call(walk_cb_t cb, void *arg, int depth)
{
	int r = 0;
	if (depth > 0)
		r = walk_lib_call(cb, arg, depth - 1) + 1;
	else
		cb(arg);
	__asm__ volatile("" ::: "memory"); /* keep the frame: no tail call */
	return r;
}

static LOCAL int even(walk_cb_t cb, void *arg, int depth);
static LOCAL int odd(walk_cb_t cb, void *arg, int depth)
{
	int r = depth > 0 ? even(cb, arg, depth - 1) : (cb(arg), 0);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}
static LOCAL int even(walk_cb_t cb, void *arg, int depth)
{
	int r = depth > 0 ? odd(cb, arg, depth - 1) : (cb(arg), 0);
	__asm__ volatile("" ::: "memory");
	return r + 2;
}

/* the same through function pointers, alternating */
EXPORT int walk_lib_pointers(walk_cb_t cb, void *arg, int depth)
{
	static int (*volatile const fns[2])(walk_cb_t, void *, int) = {even, odd};
	return fns[depth & 1](cb, arg, depth);
}

/* cb(arg) with a frame-pointer register that points nowhere (in the
 * library built without frame pointers, where rbp is just a register) */
EXPORT int walk_lib_wild(walk_cb_t cb, void *arg)
{
#if defined(__x86_64__) && defined(WALK_NOFP)
	register uintptr_t wild __asm__("rbp") = 16;
	__asm__ volatile("" : "+r"(wild));
	cb(arg);
	__asm__ volatile("" : : "r"(wild));
	return (int)wild;
#else
	cb(arg);
	__asm__ volatile("" ::: "memory");
	return 0;
#endif
}
