/* thresh.c — see thresh.h. */
#include "thresh.h"

#include <malloc.h>
#include <string.h>

#include "boot.h"

extern void *__libc_malloc(size_t);
extern int __libc_mallopt(int, int);

/* glibc's DEFAULT_MMAP_THRESHOLD_MIN and, on 64-bit, _MAX: the first
 * threshold, and the largest freed block that moves it */
#define THRESH_START ((uint64_t)128 << 10)
#define THRESH_MAX   ((uint64_t)32 << 20)

enum { ST_UNSET, ST_FOLLOW, ST_FIXED };

static int state_g = ST_UNSET;
static uint64_t thresh_g = THRESH_START; /* what hmpt last asked of glibc */

/* glibc's settings that fix both thresholds (each sets no_dyn_threshold) */
static const char *const fixing_env_g[] = {
    "MALLOC_MMAP_THRESHOLD_=", "MALLOC_TRIM_THRESHOLD_=", "MALLOC_TOP_PAD_=", "MALLOC_MMAP_MAX_="};
static const char *const fixing_tunable_g[] = {
    "glibc.malloc.mmap_threshold=", "glibc.malloc.trim_threshold=", "glibc.malloc.top_pad=",
    "glibc.malloc.mmap_max="};

static bool env_fixes(char **env)
{
	for (; env && *env; env++) {
		for (size_t i = 0; i < sizeof(fixing_env_g) / sizeof(fixing_env_g[0]); i++)
			if (strncmp(*env, fixing_env_g[i], strlen(fixing_env_g[i])) == 0)
				return true;
		if (strncmp(*env, "GLIBC_TUNABLES=", 15) == 0)
			for (size_t i = 0;
			     i < sizeof(fixing_tunable_g) / sizeof(fixing_tunable_g[0]); i++)
				if (strstr(*env, fixing_tunable_g[i]))
					return true;
	}
	return false;
}

void hmpt_thresh_init(char **env)
{
	int expected = ST_UNSET;
	int st = hmpt_real_malloc_g != __libc_malloc || env_fixes(env) ? ST_FIXED : ST_FOLLOW;

	/* a mallopt() before this (another constructor's) has fixed them already */
	__atomic_compare_exchange_n(&state_g, &expected, st, false, __ATOMIC_ACQ_REL,
	                            __ATOMIC_ACQUIRE);
}

void hmpt_thresh_note_mallopt(int param)
{
	if (param == M_MMAP_THRESHOLD || param == M_TRIM_THRESHOLD || param == M_TOP_PAD ||
	    param == M_MMAP_MAX)
		__atomic_store_n(&state_g, ST_FIXED, __ATOMIC_RELEASE);
}

bool hmpt_thresh_following(void)
{
	return __atomic_load_n(&state_g, __ATOMIC_ACQUIRE) == ST_FOLLOW &&
	       __atomic_load_n(&thresh_g, __ATOMIC_RELAXED) < THRESH_MAX;
}

/* The size of the chunk glibc would have mapped for `size` bytes: the
 * request with its header, to 16 bytes, with the next chunk's size field,
 * to a page (malloc.c: request2size, sysmalloc_mmap). */
static uint64_t glibc_chunk(uint64_t size)
{
	uint64_t nb = (size + 8 + 15) & ~(uint64_t)15;
	return (nb + 8 + hmpt_page_g - 1) & ~((uint64_t)hmpt_page_g - 1);
}

void hmpt_thresh_note_free(uint64_t size)
{
	uint64_t chunk, t;

	if (!hmpt_thresh_following())
		return;
	chunk = glibc_chunk(size);
	t = __atomic_load_n(&thresh_g, __ATOMIC_RELAXED);
	/* glibc's rule (__libc_free): a freed mapped chunk larger than the
	 * threshold and at most the maximum raises it.  A block larger than
	 * the threshold now was larger when it was allocated, so glibc would
	 * have mapped it. */
	do {
		if (chunk <= t || chunk > THRESH_MAX)
			return;
	} while (!__atomic_compare_exchange_n(&thresh_g, &t, chunk, false, __ATOMIC_ACQ_REL,
	                                      __ATOMIC_RELAXED));
	/* Threads raising at once: each applies the largest value after its
	 * own call, so the last call made is with the largest. */
	hmpt_guard_enter();
	do {
		t = __atomic_load_n(&thresh_g, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&state_g, __ATOMIC_ACQUIRE) != ST_FOLLOW)
			break;
		__libc_mallopt(M_MMAP_THRESHOLD, (int)t);
		__libc_mallopt(M_TRIM_THRESHOLD, (int)(2 * t));
	} while (__atomic_load_n(&thresh_g, __ATOMIC_ACQUIRE) != t);
	hmpt_guard_leave();
}
