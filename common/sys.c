/* sys.c — see sys.h. */
#include "sys.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <stdio.h> /* renameat(2) only: no FILE streams here */
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lockrank.h"

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
	hmpt_lock_take(&perm_lock_g, HMPT_LOCK_PERM);
}

void hmpt_sys_perm_unlock(void)
{
	hmpt_lock_drop(&perm_lock_g);
}

void hmpt_sys_perm_reset_lock(void)
{
	hmpt_lock_reset(&perm_lock_g);
}

void *hmpt_sys_perm_alloc(size_t len)
{
	void *p = NULL;

	len = (len + 15) & ~(size_t)15;
	hmpt_lock_take(&perm_lock_g, HMPT_LOCK_PERM);
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
	hmpt_lock_drop(&perm_lock_g);
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

int hmpt_sys_read_u64(const char *path, uint64_t *out)
{
	char buf[64];
	const char *s = buf;
	uint64_t v = 0;

	if (hmpt_sys_read_file(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (uint64_t)(*s - '0');
	*out = v;
	return 0;
}

uint64_t hmpt_sys_meminfo_kb(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	uint64_t v = 0;

	if (!p)
		return 0;
	p += strlen(key);
	while (*p == ' ' || *p == '\t')
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

ssize_t hmpt_sys_read_file(const char *path, char *buf, size_t cap)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO: no wait */

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

bool hmpt_sys_others_in_sticky(int dir, uid_t uid)
{
	struct stat dst;

	return uid != geteuid() && fstat(dir, &dst) == 0 && (dst.st_mode & S_ISVTX);
}

/* An existing name may be replaced only when it is a regular file, and in a
 * sticky directory only when the caller owns it (as the kernel would have
 * it for anyone but root). */
static int replaceable(hmpt_sys_newfile_t *nf)
{
	struct stat st;

	if (fstatat(nf->dir, nf->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode)) {
		nf->why = "it is a symbolic link, which hmpt neither follows nor replaces";
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode)) {
		nf->why = "it exists and is not a regular file";
		return -EEXIST;
	}
	if (hmpt_sys_others_in_sticky(nf->dir, st.st_uid)) {
		nf->why = "another user's file in a sticky directory, which hmpt does not replace";
		return -EPERM;
	}
	return 0;
}

/* The directory part of path, opened.  Its last component may be a link
 * only when the caller or root owns the link: in a world-writable
 * directory anyone could have made it point anywhere. */
static int open_dir(hmpt_sys_newfile_t *nf, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;
	size_t n = slash ? (size_t)(slash - path) : 1;

	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, slash ? path : ".", n);
	dir[n ? n : 1] = '\0';
	if (slash == path)
		dir[0] = '/';
	/* a link fails with ENOTDIR (O_DIRECTORY is checked first) or ELOOP */
	nf->dir = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (nf->dir >= 0 || (errno != ELOOP && errno != ENOTDIR))
		return nf->dir >= 0 ? 0 : -errno;
	if (lstat(dir, &st) != 0 || !S_ISLNK(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		nf->why =
		    "its directory is another user's symbolic link, which hmpt does not follow";
		return -ELOOP;
	}
	nf->dir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return nf->dir >= 0 ? 0 : -errno;
}

int hmpt_sys_newfile_open(hmpt_sys_newfile_t *nf, const char *path, unsigned mode)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);
	int rc;

	*nf = (hmpt_sys_newfile_t){.dir = -1, .fd = -1};
	if (n == 0 || n >= sizeof(nf->name))
		return n ? -ENAMETOOLONG : -EISDIR;
	memcpy(nf->name, base, n + 1);
	rc = open_dir(nf, path);
	if (rc == 0)
		rc = replaceable(nf);
	for (int tries = 0; rc == 0 && nf->fd < 0; tries++) {
		uint64_t r;
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = hmpt_sys_now_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 32;
		/* the name's head (up to 200 bytes) keeps the temporary recognisable */
		size_t head = n > 200 ? 200 : n, len = head;
		memcpy(nf->tmp, nf->name, head);
		memcpy(nf->tmp + len, ".tmp.", 5);
		len += 5;
		for (int i = 0; i < 16; i++, r >>= 4)
			nf->tmp[len++] = "0123456789abcdef"[r & 15];
		nf->tmp[len] = '\0';
		nf->fd = openat(nf->dir, nf->tmp,
		                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
		if (nf->fd < 0 && (errno != EEXIST || tries == 16))
			rc = -errno;
	}
	if (rc) {
		if (nf->dir >= 0)
			close(nf->dir);
		nf->dir = -1;
		nf->tmp[0] = '\0';
		return rc;
	}
	return nf->fd;
}

int hmpt_sys_newfile_commit(hmpt_sys_newfile_t *nf)
{
	int rc = replaceable(nf);

	if (rc == 0 && renameat(nf->dir, nf->tmp, nf->dir, nf->name) != 0)
		rc = -errno;
	if (rc)
		unlinkat(nf->dir, nf->tmp, 0);
	close(nf->dir);
	nf->dir = -1;
	return rc;
}

void hmpt_sys_newfile_abort(hmpt_sys_newfile_t *nf)
{
	if (nf->fd >= 0)
		close(nf->fd);
	nf->fd = -1;
	if (nf->dir >= 0) {
		unlinkat(nf->dir, nf->tmp, 0);
		close(nf->dir);
	}
	nf->dir = -1;
}
