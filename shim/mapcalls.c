/* mapcalls.c — see mapcalls.h. */
#include "mapcalls.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"
#include "boot.h"
#include "log.h"

#define EXPORT      __attribute__((visibility("default")))
#define unlikely(x) __builtin_expect(!!(x), 0)

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* ------------------------------------------------- the next definitions */

/* Before boot resolves them: the kernel itself (no loader call can be made
 * from here, and libc's wrappers would be these very functions). */
static int sys_mprotect(void *a, size_t l, int p)
{
	return (int)syscall(SYS_mprotect, a, l, p);
}
static int sys_pkey_mprotect(void *a, size_t l, int p, int k)
{
	return (int)syscall(SYS_pkey_mprotect, a, l, p, k);
}
static int sys_madvise(void *a, size_t l, int adv)
{
	return (int)syscall(SYS_madvise, a, l, adv);
}
static int sys_mlock(const void *a, size_t l)
{
	return (int)syscall(SYS_mlock, a, l);
}
static int sys_mlock2(const void *a, size_t l, unsigned int f)
{
	return (int)syscall(SYS_mlock2, a, l, f);
}
static int sys_munlock(const void *a, size_t l)
{
	return (int)syscall(SYS_munlock, a, l);
}
static int sys_munmap(void *a, size_t l)
{
	return (int)syscall(SYS_munmap, a, l);
}
static void *sys_mremap(void *o, size_t ol, size_t nl, int f, ...)
{
	va_list ap;
	va_start(ap, f);
	void *na = va_arg(ap, void *);
	va_end(ap);
	return (void *)syscall(SYS_mremap, o, ol, nl, f, na);
}
static void *sys_mmap(void *a, size_t l, int p, int f, int fd, off_t off)
{
	return (void *)syscall(SYS_mmap, a, l, p, f, fd, off);
}

static int (*next_mprotect_g)(void *, size_t, int) = sys_mprotect;
static int (*next_pkey_mprotect_g)(void *, size_t, int, int) = sys_pkey_mprotect;
static int (*next_madvise_g)(void *, size_t, int) = sys_madvise;
static int (*next_mlock_g)(const void *, size_t) = sys_mlock;
static int (*next_mlock2_g)(const void *, size_t, unsigned int) = sys_mlock2;
static int (*next_munlock_g)(const void *, size_t) = sys_munlock;
static int (*next_munmap_g)(void *, size_t) = sys_munmap;
static void *(*next_mremap_g)(void *, size_t, size_t, int, ...) = sys_mremap;
static void *(*next_mmap_g)(void *, size_t, int, int, int, off_t) = sys_mmap;

static void resolve(void **slot, const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (p)
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
}

void hmpt_mapcalls_resolve(void)
{
	resolve((void **)&next_mprotect_g, "mprotect");
	resolve((void **)&next_pkey_mprotect_g, "pkey_mprotect");
	resolve((void **)&next_madvise_g, "madvise");
	resolve((void **)&next_mlock_g, "mlock");
	resolve((void **)&next_mlock2_g, "mlock2");
	resolve((void **)&next_munlock_g, "munlock");
	resolve((void **)&next_munmap_g, "munmap");
	resolve((void **)&next_mremap_g, "mremap");
	resolve((void **)&next_mmap_g, "mmap");
}

/* ------------------------------------------------------------ the checks */

/* [addr, addr+len) meets the arena: two compares, no lock */
static inline bool meets_arena(const void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr, b = hmpt_arena_base_g;
	uintptr_t s = __atomic_load_n(&hmpt_arena_size_g, __ATOMIC_ACQUIRE);

	return a < b + s && a + len > b;
}

/* The program's own call on tracked memory: not hmpt's (made with the
 * guard held, mapcalls.h). */
static inline bool programs(const void *addr, size_t len)
{
	return unlikely(meets_arena(addr, len)) && !hmpt_guard_held();
}

static int said_g;

static void mark(const char *call, const void *addr, size_t len, bool lost)
{
	hmpt_arena_taint((uintptr_t)addr, len, lost);
	if (hmpt_log_first(&said_g))
		hmpt_log_printf(HMPT_LOG_DEBUG,
		                "%s on tracked memory at 0x%llx: its granules get a fresh "
		                "mapping when freed",
		                call, (unsigned long long)(uintptr_t)addr);
}

static size_t page_up(size_t n)
{
	return (n + hmpt_page_g - 1) & ~(hmpt_page_g - 1);
}

/* The arena's part of [lo, hi) reserved again after the program's munmap
 * or mremap left it unmapped; without MAP_FIXED_NOREPLACE's answer
 * (someone else's mapping got there first) those granules are lost. */
static void refill(uintptr_t lo, uintptr_t hi)
{
	uintptr_t b = hmpt_arena_base_g,
	          e = b + __atomic_load_n(&hmpt_arena_size_g, __ATOMIC_ACQUIRE);

	lo = lo > b ? lo : b;
	hi = hi < e ? hi : e;
	if (lo >= hi)
		return;
	void *p =
	    next_mmap_g((void *)lo, hi - lo, PROT_NONE,
	                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == (void *)lo)
		return;
	if (p != MAP_FAILED) /* a kernel before 4.17 took it as a hint */
		next_munmap_g(p, hi - lo);
	hmpt_arena_taint(lo, hi - lo, true);
}

/* ------------------------------------------------------- the entry points */

EXPORT int mprotect(void *addr, size_t len, int prot)
{
	if (programs(addr, len))
		mark("mprotect", addr, len, false);
	return next_mprotect_g(addr, len, prot);
}

EXPORT int pkey_mprotect(void *addr, size_t len, int prot, int pkey)
{
	if (programs(addr, len))
		mark("pkey_mprotect", addr, len, false);
	return next_pkey_mprotect_g(addr, len, prot, pkey);
}

/* Advice that acts on the pages present now and leaves the mapping as it
 * was: nothing for the next block to inherit. */
static bool changes_pages_only(int advice)
{
	return advice == MADV_DONTNEED || advice == MADV_WILLNEED || advice == MADV_COLD ||
	       advice == MADV_PAGEOUT || advice == MADV_POPULATE_READ ||
	       advice == MADV_POPULATE_WRITE;
}

EXPORT int madvise(void *addr, size_t len, int advice)
{
	if (programs(addr, len) && !changes_pages_only(advice))
		mark("madvise", addr, len, false);
	return next_madvise_g(addr, len, advice);
}

EXPORT int mlock(const void *addr, size_t len)
{
	if (programs(addr, len))
		mark("mlock", addr, len, false);
	return next_mlock_g(addr, len);
}

EXPORT int mlock2(const void *addr, size_t len, unsigned int flags)
{
	if (programs(addr, len))
		mark("mlock2", addr, len, false);
	return next_mlock2_g(addr, len, flags);
}

EXPORT int munlock(const void *addr, size_t len)
{
	if (programs(addr, len))
		mark("munlock", addr, len, false);
	return next_munlock_g(addr, len);
}

/* In the arena the pages are replaced by reserved address space, never
 * unmapped: same effect for the program (accesses fault), and no hole. */
EXPORT int munmap(void *addr, size_t len)
{
	if (!programs(addr, len))
		return next_munmap_g(addr, len);
	uintptr_t a = (uintptr_t)addr, end = a + page_up(len);
	uintptr_t b = hmpt_arena_base_g,
	          e = b + __atomic_load_n(&hmpt_arena_size_g, __ATOMIC_ACQUIRE);
	if ((a & (hmpt_page_g - 1)) || len == 0 || end < a) {
		errno = EINVAL;
		return -1;
	}
	uintptr_t lo = a > b ? a : b, hi = end < e ? end : e;
	mark("munmap", (void *)lo, hi - lo, false);
	int rc = 0;
	if (a < lo && next_munmap_g(addr, lo - a) != 0)
		rc = -1;
	if (end > hi && next_munmap_g((void *)hi, end - hi) != 0)
		rc = -1;
	if (next_mmap_g((void *)lo, hi - lo, PROT_NONE,
	                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
	                0) == MAP_FAILED)
		rc = -1;
	return rc;
}

EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *to = NULL;

	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		to = va_arg(ap, void *);
		va_end(ap);
	}
	bool from_arena = programs(old, old_len ? old_len : 1);
	bool into_arena = (flags & MREMAP_FIXED) && programs(to, new_len);
	if (!from_arena && !into_arena)
		return next_mremap_g(old, old_len, new_len, flags, to);
	if (from_arena)
		mark("mremap", old, old_len, false);
	if (into_arena) /* the mapping there is the program's from now on */
		mark("mremap", to, new_len, false);
	void *r = next_mremap_g(old, old_len, new_len, flags, to);
	if (r == MAP_FAILED || !from_arena)
		return r;
	uintptr_t o = (uintptr_t)old;
	if (r != old && old_len && !(flags & MREMAP_DONTUNMAP))
		refill(o, o + page_up(old_len)); /* moved away */
	else if (r == old && new_len < old_len)
		refill(o + page_up(new_len), o + page_up(old_len)); /* shrunk */
	if (meets_arena(r, new_len)) /* grown in place, or moved within */
		mark("mremap", r, new_len, false);
	return r;
}

/* A fixed mapping over tracked memory replaces it: the program's now. */
EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if ((flags & MAP_FIXED) && programs(addr, len))
		mark("mmap", addr, len, false);
	return next_mmap_g(addr, len, prot, flags, fd, off);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
    __attribute__((alias("mmap")));
