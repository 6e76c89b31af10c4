/* boot.h — the shim's start: the next allocator, the boot buffer, set-up,
 * and the re-entrancy guard.
 *
 * The first request of any size runs hmpt_boot_init(): a state machine
 * (UNINIT -> RESOLVING -> READY) that records the initialising thread.  While
 * that thread resolves the next allocator with dlsym(RTLD_NEXT), which may
 * itself allocate, its requests are served from a static buffer whose blocks
 * are never freed.  Until then the hmpt_real_* pointers hold glibc's own
 * __libc_* entry points, so a free() that arrives before any malloc() is
 * still correct.
 *
 * What the malloc fast paths read is declared hidden here (not only by
 * -fvisibility, which does not cover extern declarations), so that the
 * compiler addresses it directly and malloc stays one compare and one
 * indirect call.
 */
#ifndef HMPT_BOOT_H
#define HMPT_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "options.h"
#include "sample.h"

#define HMPT_HIDDEN __attribute__((visibility("hidden")))

/* Requests at or above this take the slow path.  0 until set-up is done,
 * so that the first request of any size (even one made before hmpt's
 * constructor, by another library's) sets hmpt up; SIZE_MAX when hmpt does
 * not track. */
extern HMPT_HIDDEN size_t hmpt_min_size_g;
extern HMPT_HIDDEN bool hmpt_tracking_g; /* arena and options are usable */
extern HMPT_HIDDEN hmpt_opt_value_t hmpt_opt_g[HMPT_OPT_COUNT];
extern HMPT_HIDDEN pid_t hmpt_owner_pid_g; /* the process the profile is for */
extern HMPT_HIDDEN double hmpt_start_unix_g;
extern HMPT_HIDDEN size_t hmpt_page_g;

/* the next allocator (glibc's __libc_* until resolved) */
extern HMPT_HIDDEN void *(*hmpt_real_malloc_g)(size_t);
extern HMPT_HIDDEN void (*hmpt_real_free_g)(void *);
extern HMPT_HIDDEN void *(*hmpt_real_calloc_g)(size_t, size_t);
extern HMPT_HIDDEN void *(*hmpt_real_realloc_g)(void *, size_t);
extern HMPT_HIDDEN void *(*hmpt_real_memalign_g)(size_t, size_t);
extern HMPT_HIDDEN int (*hmpt_real_posix_memalign_g)(void **, size_t, size_t);
extern HMPT_HIDDEN void *(*hmpt_real_aligned_alloc_g)(size_t, size_t);
extern HMPT_HIDDEN void *(*hmpt_real_valloc_g)(size_t);
extern HMPT_HIDDEN void *(*hmpt_real_pvalloc_g)(size_t);
extern HMPT_HIDDEN size_t (*hmpt_real_usable_g)(void *);
extern HMPT_HIDDEN int (*hmpt_real_mallopt_g)(int, int);
extern HMPT_HIDDEN hmpt_pthread_create_fn hmpt_real_pthread_create_g;
/* limits.c's next definitions (NULL: the system call serves) */
struct rlimit;
struct rlimit64;
extern HMPT_HIDDEN int (*hmpt_real_setrlimit_g)(int, const struct rlimit *);
extern HMPT_HIDDEN int (*hmpt_real_setrlimit64_g)(int, const struct rlimit64 *);
extern HMPT_HIDDEN int (*hmpt_real_prlimit_g)(pid_t, int, const struct rlimit *, struct rlimit *);
extern HMPT_HIDDEN int (*hmpt_real_prlimit64_g)(pid_t, int, const struct rlimit64 *,
                                                struct rlimit64 *);
extern HMPT_HIDDEN int (*hmpt_real_mlockall_g)(int);

/* Returns true when the caller is the initialising thread, inside dlsym:
 * it must serve the request from the boot buffer. */
bool hmpt_boot_init(void);
/* set-up has finished (in this process or the one it was forked from) */
bool hmpt_boot_ready(void);

/* ------------------------------------------------------------ boot buffer */

#define HMPT_BOOT_SIZE (256u * 1024u)
/* Every boot block starts on a page (room for 63 of them), as every block
 * of the arena and of memkind does. */
#define HMPT_BOOT_ALIGN ((size_t)4096)
extern HMPT_HIDDEN char hmpt_boot_buf_g[HMPT_BOOT_SIZE];

static inline bool hmpt_boot_owns(const void *p)
{
	return (uintptr_t)p - (uintptr_t)hmpt_boot_buf_g < HMPT_BOOT_SIZE;
}

/* Perhaps a block of hmpt's: every one starts on a page (the arena's on a
 * granule, memkind's and the boot buffer's on a page), and the next
 * allocator's almost never do (glibc's start 16 bytes into a chunk; only
 * memalign'd ones are page-aligned), so the fast paths of free, realloc and
 * malloc_usable_size pass any other pointer on with one test and no load.
 * NULL and page-aligned blocks of the next allocator (memalign'd, or a
 * jemalloc's large ones) take the slow path, which checks the ranges. */
static inline bool hmpt_boot_may_own_any(const void *p)
{
	return ((uintptr_t)p & (HMPT_BOOT_ALIGN - 1)) == 0;
}

/* Bump allocation, never freed, page-aligned; the size is kept before the
 * block. */
void *hmpt_boot_alloc(size_t size, size_t align);

static inline size_t hmpt_boot_size(const void *p)
{
	return *(const size_t *)((const char *)p - sizeof(size_t));
}

/* -------------------------------------------------------------- the guard */

/* Held around hmpt's outbound calls (libunwind, the loader, memkind,
 * sampling set-up): a large request they make is passed on untracked.  A
 * count, so that a holder may call another. */
extern HMPT_HIDDEN __thread int hmpt_guard_tl __attribute__((tls_model("initial-exec")));

static inline void hmpt_guard_enter(void)
{
	hmpt_guard_tl++;
}

static inline void hmpt_guard_leave(void)
{
	hmpt_guard_tl--;
}

static inline bool hmpt_guard_held(void)
{
	return hmpt_guard_tl != 0;
}

#endif
