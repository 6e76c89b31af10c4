/* fake_mremap.c — libfake_mremap.so: an mremap that fails as some kernels
 * do, preloaded after libhmpt.so (LD_PRELOAD="libhmpt.so libfake_mremap.so")
 * so that the shim's moves of a block's pages reach it.
 *
 * Only calls with MREMAP_FIXED are changed; FAKE_MREMAP says how:
 *   old     as kernels 5.7 to 6.16: when the old range spans more than one
 *           mapping (/proc/self/maps), the destination is unmapped first,
 *           then the call fails with EFAULT
 *   efault  every call: the destination unmapped, then EFAULT
 *   einval  every call fails with EINVAL, nothing touched (kernels before
 *           5.7 know no MREMAP_DONTUNMAP)
 *   enomem  every call fails with ENOMEM, nothing touched
 *   unset or anything else: the kernel's own mremap
 * At exit it writes "fake_mremap: MODE: N calls, F failed" to stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { PASS, OLD, EFAULT_ALWAYS, EINVAL_ALWAYS, ENOMEM_ALWAYS };
static int mode_g;
static const char *name_g = "pass";
static unsigned long calls_g, failed_g;
static char maps_g[1 << 20];

__attribute__((constructor)) static void fake_init(void)
{
	static const char *const names[] = {"pass", "old", "efault", "einval", "enomem"};
	const char *m = getenv("FAKE_MREMAP");

	for (int i = 1; m && i < 5; i++)
		if (strcmp(m, names[i]) == 0) {
			mode_g = i;
			name_g = names[i];
		}
}

__attribute__((destructor)) static void fake_report(void)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "fake_mremap: %s: %lu calls, %lu failed\n", name_g,
	                 calls_g, failed_g);

	if (n > 0 && write(2, line, (size_t)n) < 0)
		return;
}

/* Does [p, p+len) lie in more than one mapping (or in none)?  Read with
 * read(2) alone: the caller may be inside an allocator. */
static int spans_mappings(uintptr_t p, size_t len)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	size_t have = 0;
	ssize_t r;

	if (fd < 0)
		return 1;
	while (have < sizeof(maps_g) - 1 &&
	       (r = read(fd, maps_g + have, sizeof(maps_g) - 1 - have)) > 0)
		have += (size_t)r;
	close(fd);
	maps_g[have] = '\0';
	for (char *s = maps_g; *s;) {
		char *end;
		uintptr_t lo = strtoull(s, &end, 16),
		          hi = *end == '-' ? strtoull(end + 1, &end, 16) : 0;
		if (p >= lo && p < hi)
			return p + len > hi;
		char *nl = strchr(s, '\n');
		if (!nl)
			break;
		s = nl + 1;
	}
	return 1;
}

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *to = NULL;
	int err = 0;

	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		to = va_arg(ap, void *);
		va_end(ap);
		calls_g++;
		if (mode_g == EFAULT_ALWAYS ||
		    (mode_g == OLD && spans_mappings((uintptr_t)old, old_len))) {
			munmap(to, new_len);
			err = EFAULT;
		} else if (mode_g == EINVAL_ALWAYS) {
			err = EINVAL;
		} else if (mode_g == ENOMEM_ALWAYS) {
			err = ENOMEM;
		}
	}
	if (err) {
		failed_g++;
		errno = err;
		return MAP_FAILED;
	}
	long r = syscall(SYS_mremap, old, old_len, new_len, flags, to);
	return r == -1 ? MAP_FAILED : (void *)r;
}
