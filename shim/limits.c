/* limits.c — limits a program sets after start: setrlimit, prlimit (and
 * their 64-bit names) and mlockall, passed on to the next definition once
 * the arena fits the new limit as it would had the limit been there at
 * start.
 *
 * Why: the arena reserves 16 TiB of address space and keeps freed pages
 * mapped.  A program that lowers RLIMIT_AS after start would find every
 * later mapping refused (the reservation counts); one that lowers
 * RLIMIT_DATA would find hmpt's kept pages counted against it; mlockall
 * would lock pages glibc had given back, and fail for a user whose
 * RLIMIT_MEMLOCK fits the program.  So before the call goes on:
 * - a finite RLIMIT_AS for this process: the arena reserves as blocks need
 *   it, within the limit, and the free end of its range goes back;
 * - a finite RLIMIT_DATA: freed pages are no longer kept, and free granules
 *   hold no writable mapping;
 * - mlockall: both, within RLIMIT_MEMLOCK unless the process may lock
 *   without limit (CAP_IPC_LOCK), and within the memory (what cannot be
 *   locked need not be tracked), so that only what the program uses is
 *   locked (and, with MCL_FUTURE, what it maps later).
 * Each is said once with HMPT_VERBOSE.  Nothing here allocates; the next
 * definitions were resolved at boot (boot.c), the system call serves when
 * there is none.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "arena.h"
#include "boot.h"
#include "log.h"

#define EXPORT __attribute__((visibility("default")))

static int said_as_g, said_data_g, said_lock_g, said_future_g;

/* May this process lock memory beyond RLIMIT_MEMLOCK? */
static bool may_lock_all(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {{0}};

	return syscall(SYS_capget, &h, d) == 0 &&
	       (d[CAP_TO_INDEX(CAP_IPC_LOCK)].effective & CAP_TO_MASK(CAP_IPC_LOCK));
}

/* The arena as the new limit `rl` of `resource` (this process's) wants it. */
static void fit_limit(int resource, const struct rlimit *rl)
{
	if (!rl || rl->rlim_cur == RLIM_INFINITY ||
	    (resource != RLIMIT_AS && resource != RLIMIT_DATA))
		return;
	hmpt_boot_init();
	if (!hmpt_tracking_g)
		return;
	hmpt_guard_enter();
	if (resource == RLIMIT_AS) {
		uint64_t given = hmpt_arena_reserve_as_needed(rl->rlim_cur);
		if (hmpt_log_first(&said_as_g))
			hmpt_log_printf(HMPT_LOG_INFO,
			                "RLIMIT_AS set to %s: the arena reserves as blocks need it "
			                "(%s of address space given back)",
			                HMPT_SIZE(rl->rlim_cur), HMPT_SIZE(given));
	} else {
		uint64_t dropped = hmpt_arena_keep_none();
		if (hmpt_log_first(&said_data_g))
			hmpt_log_printf(HMPT_LOG_INFO,
			                "RLIMIT_DATA set to %s: freed blocks' pages are no longer "
			                "kept (%s unmapped)",
			                HMPT_SIZE(rl->rlim_cur), HMPT_SIZE(dropped));
	}
	hmpt_guard_leave();
}

/* prlimit's pid names this process: 0, its pid, or any of its threads
 * (tgkill with signal 0 only checks that the thread is in the group) */
static bool own_process(pid_t pid)
{
	return pid == 0 || pid == getpid() || syscall(SYS_tgkill, getpid(), pid, 0) == 0;
}

/* The limit is set first and the arena fitted only once the kernel took
 * it: a refused call (EINVAL, EPERM, EFAULT) changes nothing, and `rl` is
 * read only after the kernel has read it.  A lower limit does not refuse
 * what is mapped already, so nothing is lost meanwhile but the room other
 * threads' mappings had for that instant. */
static int fitted(int rc, pid_t pid, int resource, const void *rl)
{
	if (rc == 0 && own_process(pid))
		fit_limit(resource, rl);
	return rc;
}

EXPORT int setrlimit(__rlimit_resource_t resource, const struct rlimit *rl)
{
	int rc = hmpt_real_setrlimit_g ? hmpt_real_setrlimit_g(resource, rl)
	                               : (int)syscall(SYS_prlimit64, 0, resource, rl, NULL);
	return fitted(rc, 0, resource, rl);
}

/* struct rlimit64 is struct rlimit on the 64-bit targets hmpt builds for */
EXPORT int setrlimit64(__rlimit_resource_t resource, const struct rlimit64 *rl)
{
	int rc = hmpt_real_setrlimit64_g ? hmpt_real_setrlimit64_g(resource, rl)
	                                 : (int)syscall(SYS_prlimit64, 0, resource, rl, NULL);
	return fitted(rc, 0, resource, rl);
}

EXPORT int prlimit(pid_t pid, __rlimit_resource_t resource, const struct rlimit *rl,
                   struct rlimit *old)
{
	int rc = hmpt_real_prlimit_g ? hmpt_real_prlimit_g(pid, resource, rl, old)
	                             : (int)syscall(SYS_prlimit64, pid, resource, rl, old);
	return fitted(rc, pid, resource, rl);
}

EXPORT int prlimit64(pid_t pid, __rlimit_resource_t resource, const struct rlimit64 *rl,
                     struct rlimit64 *old)
{
	int rc = hmpt_real_prlimit64_g ? hmpt_real_prlimit64_g(pid, resource, rl, old)
	                               : (int)syscall(SYS_prlimit64, pid, resource, rl, old);
	return fitted(rc, pid, resource, rl);
}

/* mlockall(MCL_FUTURE) held to RLIMIT_MEMLOCK: every mapping the arena
 * makes from then on (a block's granules, and the reserved range a freed
 * one returns to) is locked and counted, where glibc's munmap would have
 * given a freed block's share back, so a program that fits the limit
 * under glibc would be refused.  New blocks then go to the normal
 * allocator, said once. */
static void stop_tracking_new(uint64_t limit)
{
	__atomic_store_n(&hmpt_min_size_g, SIZE_MAX, __ATOMIC_RELEASE);
	if (hmpt_log_first(&said_future_g))
		hmpt_log_printf(HMPT_LOG_WARN,
		                "mlockall(MCL_FUTURE) under RLIMIT_MEMLOCK %s: blocks allocated "
		                "from now on are not tracked (the arena's mappings would count "
		                "against the limit) and go to the normal allocator",
		                HMPT_SIZE(limit));
}

EXPORT int mlockall(int flags)
{
	uint64_t limit = 0; /* RLIMIT_MEMLOCK, when it holds this process */
	bool held = false;

	hmpt_boot_init();
	if (hmpt_tracking_g) {
		struct rlimit rl;
		struct sysinfo si;
		/* what can be locked: RLIMIT_MEMLOCK, or at most the memory */
		uint64_t cap = sysinfo(&si) == 0 ? (uint64_t)si.totalram * si.mem_unit : UINT64_MAX;
		hmpt_guard_enter();
		if (syscall(SYS_prlimit64, 0, RLIMIT_MEMLOCK, NULL, &rl) == 0 &&
		    rl.rlim_cur != RLIM_INFINITY && !may_lock_all()) {
			limit = rl.rlim_cur;
			held = true;
			if (limit < cap)
				cap = limit;
		}
		uint64_t dropped = hmpt_arena_keep_none();
		uint64_t given = hmpt_arena_reserve_as_needed(cap);
		if (hmpt_log_first(&said_lock_g))
			hmpt_log_printf(HMPT_LOG_INFO,
			                "mlockall: freed blocks' pages are no longer kept (%s "
			                "unmapped), the arena reserves as blocks need it (%s of "
			                "address space given back)",
			                HMPT_SIZE(dropped), HMPT_SIZE(given));
		hmpt_guard_leave();
	}
	int rc =
	    hmpt_real_mlockall_g ? hmpt_real_mlockall_g(flags) : (int)syscall(SYS_mlockall, flags);
	if (rc == 0 && (flags & MCL_FUTURE) && held)
		stop_tracking_new(limit);
	return rc;
}
