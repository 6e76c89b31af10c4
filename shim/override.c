/* override.c — the malloc family, as seen by the application.
 *
 * Small requests (below HMPT_MIN_SIZE) cost one compare and one indirect
 * call: they go straight to the next allocator (glibc, or whatever follows
 * libhmpt in the search order).  Large requests are tracked: their call
 * site is captured and the block comes from the arena (arena.h), so that
 * every pointer hmpt owns is recognised by one range check, and every
 * other pointer goes back to the allocator that made it.  free, realloc and
 * malloc_usable_size first test the pointer's low bits (boot.h): every
 * block hmpt makes starts on a page, so most pointers need no range check.
 *
 * Only the exported entry points live here: bootstrap is boot.c, tracked
 * blocks track.c, placement placer.c, the constructor and the profile at
 * exit lifecycle.c.
 *
 * When hmpt cannot do what was asked (no arena, mapping refused, re-entrant
 * call) the request goes to the normal allocator and hmpt says so once.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hmpt.h"
#include "boot.h"
#include "lifecycle.h"
#include "options.h"
#include "sample.h"
#include "thresh.h"
#include "track.h"

#define EXPORT      __attribute__((visibility("default")))
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
/* The fast paths each start a 64-byte line, so that none of their few
 * instructions straddles one wherever the linker puts them: built from
 * one source, a malloc whose last jump crossed a line cost 3-5 % more of a
 * 64 B malloc+free than one that did not (bench/malloc_overhead -b). */
#define HOT_ENTRY __attribute__((aligned(64)))

extern void *__libc_realloc(void *, size_t);

/* ------------------------------------------------------ the entry points */

/* malloc's and calloc's slow path: true when *p is the answer (a boot
 * block inside dlsym, even NULL, or a tracked block); false: the next
 * allocator answers. */
static bool slow_alloc(size_t size, bool zero, void **p)
{
	if (hmpt_boot_init()) {
		*p = hmpt_boot_alloc(size, 16);
		return true;
	}
	*p = size >= hmpt_min_size_g ? hmpt_track_alloc(size, 0, zero) : NULL;
	return *p != NULL;
}

static void *slow_malloc(size_t size)
{
	void *p;

	return slow_alloc(size, false, &p) ? p : hmpt_real_malloc_g(size);
}

EXPORT HOT_ENTRY void *malloc(size_t size)
{
	if (likely(size < __atomic_load_n(&hmpt_min_size_g, __ATOMIC_ACQUIRE)))
		return hmpt_real_malloc_g(size);
	return slow_malloc(size);
}

/* free's rare cases, out of line: the common case then needs no stack
 * frame (a memkind lookup's record made free() build one for every call) */
static __attribute__((noinline)) void free_rare(void *p)
{
	if (!p)
		return;
	if (hmpt_backend_owns(p)) {
		hmpt_track_free(p, true);
		return;
	}
	if (hmpt_boot_owns(p))
		return; /* boot blocks are never reused */
	hmpt_real_free_g(p);
}

/* One test of the low bits passes nearly every free() on (boot.h); a
 * pointer into the middle of a tracked block, which free() must never get,
 * reaches the next allocator, as it would without hmpt. */
EXPORT HOT_ENTRY void free(void *p)
{
	if (likely(!hmpt_boot_may_own_any(p)))
		return hmpt_real_free_g(p);
	free_rare(p);
}

/* The slow paths are out of line (noinline) so that the fast ones need no
 * stack frame: inlined, they made calloc and realloc save four registers
 * on every call. */
static __attribute__((noinline)) void *slow_calloc(size_t n, size_t size, size_t total)
{
	void *p;

	return slow_alloc(total, true, &p) ? p : hmpt_real_calloc_g(n, size);
}

EXPORT HOT_ENTRY void *calloc(size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	if (likely(total < __atomic_load_n(&hmpt_min_size_g, __ATOMIC_ACQUIRE)))
		return hmpt_real_calloc_g(n, size);
	return slow_calloc(n, size, total);
}

static __attribute__((noinline)) void *slow_realloc(void *p, size_t size)
{
	if (hmpt_boot_init()) {
		if (p && !hmpt_boot_owns(p)) /* made by glibc before hmpt started */
			return __libc_realloc(p, size);
		void *q = size ? hmpt_boot_alloc(size, 16) : NULL;
		if (q && p)
			memcpy(q, p, hmpt_boot_size(p) < size ? hmpt_boot_size(p) : size);
		return q;
	}
	if (p && hmpt_track_owns(p)) /* NULL: no block of any backend's */
		return hmpt_track_realloc(p, size);
	if (hmpt_boot_owns(p)) {
		if (size == 0)
			return NULL;
		void *q = malloc(size);
		if (q)
			memcpy(q, p, hmpt_boot_size(p) < size ? hmpt_boot_size(p) : size);
		return q;
	}
	if (size >= hmpt_min_size_g) {
		/* an untracked block grows past the threshold: track it now */
		void *q = hmpt_track_alloc(size, 0, false);
		if (q) {
			if (p) {
				size_t old = hmpt_real_usable_g ? hmpt_real_usable_g(p) : size;
				memcpy(q, p, old < size ? old : size);
				hmpt_real_free_g(p);
			}
			return q;
		}
	}
	return hmpt_real_realloc_g(p, size);
}

EXPORT HOT_ENTRY void *realloc(void *p, size_t size)
{
	/* small, and not a block of hmpt's (boot.h): NULL takes the slow path */
	if (likely(size < __atomic_load_n(&hmpt_min_size_g, __ATOMIC_ACQUIRE) &&
	           !hmpt_boot_may_own_any(p)))
		return hmpt_real_realloc_g(p, size);
	return slow_realloc(p, size);
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, total);
}

static bool power_of_two(size_t x)
{
	return x && !(x & (x - 1));
}

/* Shared by memalign, aligned_alloc, valloc, pvalloc: track when large and
 * the alignment is one hmpt serves; otherwise NULL, and the caller asks the
 * normal allocator, so odd alignments get exactly glibc's answer. */
static void *aligned_track(size_t align, size_t size)
{
	if (hmpt_boot_init())
		return hmpt_boot_alloc(size, power_of_two(align) && align <= 4096 ? align : 4096);
	if (size >= hmpt_min_size_g && power_of_two(align))
		return hmpt_track_alloc(size, align, false);
	return NULL;
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (align % sizeof(void *) != 0 || !power_of_two(align))
		return EINVAL;
	p = size ? aligned_track(align, size) : NULL;
	if (p) {
		*out = p;
		return 0;
	}
	if (hmpt_real_posix_memalign_g)
		return hmpt_real_posix_memalign_g(out, align, size);
	p = hmpt_real_memalign_g(align, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
	void *p = aligned_track(align, size);

	if (p)
		return p;
	return hmpt_real_aligned_alloc_g ? hmpt_real_aligned_alloc_g(align, size)
	                                 : hmpt_real_memalign_g(align, size);
}

EXPORT void *memalign(size_t align, size_t size)
{
	void *p = aligned_track(align, size);

	return p ? p : hmpt_real_memalign_g(align, size);
}

EXPORT void *valloc(size_t size)
{
	void *p = aligned_track(hmpt_page_g, size);

	if (p)
		return p;
	return hmpt_real_valloc_g ? hmpt_real_valloc_g(size)
	                          : hmpt_real_memalign_g(hmpt_page_g, size);
}

EXPORT void *pvalloc(size_t size)
{
	size_t rounded = (size + hmpt_page_g - 1) & ~(hmpt_page_g - 1);
	void *p = rounded >= size && rounded ? aligned_track(hmpt_page_g, rounded) : NULL;

	if (p)
		return p;
	return hmpt_real_pvalloc_g ? hmpt_real_pvalloc_g(size)
	                           : hmpt_real_memalign_g(hmpt_page_g, rounded);
}

static __attribute__((noinline)) size_t slow_usable_size(void *p)
{
	hmpt_track_block_t b;

	if (!p)
		return 0;
	if (hmpt_track_owns(p))
		return hmpt_track_lookup(p, &b) ? b.usable : 0;
	if (hmpt_boot_owns(p))
		return hmpt_boot_size(p);
	hmpt_boot_init();
	return hmpt_real_usable_g ? hmpt_real_usable_g(p) : 0;
}

EXPORT size_t malloc_usable_size(void *p)
{
	size_t (*usable)(void *) = hmpt_real_usable_g;

	/* not a block of hmpt's (boot.h), and the next allocator known */
	if (likely(!hmpt_boot_may_own_any(p) && usable))
		return usable(p);
	return slow_usable_size(p);
}

/* The program sets glibc's thresholds itself: hmpt stops moving them
 * (thresh.h). */
EXPORT int mallopt(int param, int value)
{
	hmpt_thresh_note_mallopt(param);
	hmpt_boot_init();
	return hmpt_real_mallopt_g ? hmpt_real_mallopt_g(param, value) : 0;
}

/* ------------------------------------------------------------- the end */

EXPORT __attribute__((noreturn)) void _exit(int status)
{
	hmpt_lifecycle_end(HMPT_END__EXIT);
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT __attribute__((noreturn)) void _Exit(int status)
{
	_exit(status);
}

/* ---------------------------------------------------------------- threads */

/* A new thread: its own events first, then the program's start routine. */
static void *thread_start(void *p)
{
	hmpt_sample_tramp_t *t = p;
	void *(*fn)(void *) = t->fn;
	void *arg = t->arg;

	hmpt_sample_tramp_put(t);
	hmpt_guard_enter();
	hmpt_sample_thread_begin();
	hmpt_guard_leave();
	return fn(arg);
}

EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *),
                          void *arg)
{
	hmpt_sample_tramp_t *t;

	hmpt_boot_init();
	if (!hmpt_real_pthread_create_g)
		return EAGAIN;
	if (!hmpt_sample_active() || !(t = hmpt_sample_tramp_get()))
		return hmpt_real_pthread_create_g(thread, attr, fn, arg);
	t->fn = fn;
	t->arg = arg;
	int rc = hmpt_real_pthread_create_g(thread, attr, thread_start, t);
	if (rc)
		hmpt_sample_tramp_put(t);
	return rc;
}

EXPORT const char *hmpt_version(void)
{
	return HMPT_VERSION;
}

EXPORT int hmpt_profile_write(const char *path)
{
	hmpt_boot_init();
	if (!path)
		path = hmpt_opt_g[HMPT_OPT_PROFILE].str;
	return hmpt_lifecycle_write_profile(path, HMPT_END_REQUEST);
}
