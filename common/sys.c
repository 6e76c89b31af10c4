/* sys.c — see sys.h. */
#include "sys.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PERM_CHUNK (1u << 20)

static pthread_mutex_t perm_lock_g = PTHREAD_MUTEX_INITIALIZER;
static char *perm_cur_g;
static size_t perm_left_g;

void *hmpt_sys_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void hmpt_sys_unmap(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

int hmpt_sys_dlopen_syms(const char *lib, const hmpt_sys_sym_t *syms, int n, void **handle,
                         const char **why)
{
	*handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!*handle) {
		const char *e = dlerror();
		*why = e ? e : lib;
		return -ENOENT;
	}
	for (int i = 0; i < n; i++) {
		*syms[i].slot = dlsym(*handle, syms[i].name);
		if (!*syms[i].slot) {
			*why = syms[i].name;
			dlclose(*handle);
			*handle = NULL;
			return -ENOSYS;
		}
	}
	return 0;
}

void hmpt_sys_perm_lock(void)
{
	pthread_mutex_lock(&perm_lock_g);
}

void hmpt_sys_perm_unlock(void)
{
	pthread_mutex_unlock(&perm_lock_g);
}

void hmpt_sys_perm_reset_lock(void)
{
	pthread_mutex_init(&perm_lock_g, NULL);
}

void *hmpt_sys_perm_alloc(size_t len)
{
	void *p = NULL;

	len = (len + 15) & ~(size_t)15;
	pthread_mutex_lock(&perm_lock_g);
	if (len > perm_left_g) {
		size_t chunk = len > PERM_CHUNK ? len : PERM_CHUNK;
		char *c = hmpt_sys_map(chunk);
		if (!c)
			goto out_unlock;
		perm_cur_g = c;
		perm_left_g = chunk;
	}
	p = perm_cur_g;
	perm_cur_g += len;
	perm_left_g -= len;
out_unlock:
	pthread_mutex_unlock(&perm_lock_g);
	return p;
}

char *hmpt_sys_perm_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = hmpt_sys_perm_alloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}

uint64_t hmpt_sys_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double hmpt_sys_unix_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

ssize_t hmpt_sys_read_file(const char *path, char *buf, size_t cap)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (len + 1 < cap) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

ssize_t hmpt_sys_readlink(const char *path, char *buf, size_t cap)
{
	ssize_t n = readlink(path, buf, cap - 1);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}
