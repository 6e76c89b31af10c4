/* pool_file.c — memory from a file: hmpt_backend_file_ops (backend.h).
 *
 * Why: memory that Linux reaches as a file rather than as a NUMA node —
 * persistent memory or CXL exposed as a device-DAX device, a file on a DAX
 * filesystem — and, for tests, tmpfs and hugetlbfs files.  A pool names
 * {"file": PATH}:
 *   - a character device (device-DAX): its size and alignment from sysfs;
 *   - a regular file: its size, or the pool's capacity when it is empty;
 *   - a directory: an unnamed file made there (O_TMPFILE) of the pool's
 *     capacity, one per process, so that the ranks of a job never share.
 * A device or named file is locked (flock) for the process: two processes
 * mapping the same bytes would write over each other's data.
 *
 * The file is mapped once, shared, at open; blocks are ranges of it, first
 * fit in a table of free ranges (reused as soon as freed), recorded in the
 * table of blocks outside the arena.  A block's range is allocated in the
 * file (fallocate) when it is made, so that a full filesystem refuses the
 * block (it goes to the fallback) instead of a SIGBUS at the first touch;
 * freeing punches the range out again, which gives tmpfs and hugetlbfs
 * memory back and makes it read zero.
 *
 * fork: a shared mapping would let parent and child see each other's
 * writes.  The fork handlers copy the live blocks before fork (the snapshot
 * the child must see) and put the copies in their place in the child, where
 * they are private memory; a process other than the one that opened the
 * file never allocates from it, and frees such blocks by unmapping them.
 */
#include "backend.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fmt.h"
#include "lockrank.h"
#include "options.h"
#include "plan.h"
#include "sys.h"

#define FREE_MAX         8192
#define HUGETLBFS_MAGIC_ 0x958458f6

typedef struct {
	uint64_t off, len;
} range_t;

typedef struct {
	pthread_mutex_t lock; /* the free ranges */
	int fd;
	char *base;    /* the mapping */
	uint64_t size; /* mapped bytes */
	uint64_t unit; /* a block's granularity: page, huge page, DAX alignment */
	pid_t owner;   /* the process that opened it */
	bool no_punch; /* punching holes failed: zero by hand */
	int nfree;
	range_t free[FREE_MAX]; /* sorted by offset, never adjacent */
} state_t;

static uint64_t round_up(uint64_t x, uint64_t u)
{
	return (x + u - 1) / u * u;
}

/* --------------------------------------------------------------- open */

/* A number in a sysfs file, or -1. */
static int sysfs_u64(const char *path, uint64_t *v)
{
	char buf[64];
	ssize_t n = hmpt_sys_read_file(path, buf, sizeof(buf));

	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n > 0 && hmpt_options_parse_uint(buf, v) == 0 ? 0 : -1;
}

/* A device-DAX's size and alignment from sysfs (/sys/dev/char/M:m). */
static int dax_geometry(dev_t dev, uint64_t *size, uint64_t *align)
{
	char path[96];
	uint64_t v;

	hmpt_fmt_text(path, sizeof(path), "/sys/dev/char/%u:%u/size", major(dev), minor(dev));
	if (sysfs_u64(path, &v) != 0)
		return -ENODEV;
	*size = v;
	*align = (uint64_t)2 << 20;
	hmpt_fmt_text(path, sizeof(path), "/sys/dev/char/%u:%u/align", major(dev), minor(dev));
	if (sysfs_u64(path, &v) == 0 && v >= 4096)
		*align = v;
	return 0;
}

/* -e, *field = name, and `err` says "WHAT PATH: why", or "WHAT" with `why`
 * NULL */
static int fail(const char **field, const char *name, char *err, size_t errlen, int e,
                const char *what, const char *path, const char *why)
{
	hmpt_fmt_t f;

	*field = name;
	hmpt_fmt_init(&f, err, errlen, -1);
	hmpt_fmt_str(&f, what);
	if (path) {
		hmpt_fmt_char(&f, ' ');
		hmpt_fmt_str(&f, path);
	}
	if (why) {
		hmpt_fmt_str(&f, ": ");
		hmpt_fmt_str(&f, why);
	}
	hmpt_fmt_cstr(&f);
	return -e;
}

#define WHY(e) strerrordesc_np(e)

static int file_open(hmpt_backend_pool_t *bp, const char **field, char *err, size_t errlen)
{
	const hmpt_plan_pool_t *p = bp->plan;
	const char *path = p->file;
	struct stat st;
	struct statfs sf;
	uint64_t size = 0, unit = 4096;
	int fd, e;

	if (stat(path, &st) != 0)
		return fail(field, "file", err, errlen, errno, "cannot use", path, WHY(errno));
	if (S_ISBLK(st.st_mode))
		return fail(field, "file", err, errlen, EINVAL, "cannot map the block device", path,
		            "its pages would go through the page cache; name a device-DAX device, "
		            "or a directory on a filesystem mounted with -o dax");
	if (S_ISDIR(st.st_mode)) {
		if (!p->capacity)
			return fail(
			    field, "capacity", err, errlen, EINVAL,
			    "missing: a file pool in a directory needs a capacity in bytes, "
			    "such as \"64G\": the size of the file it makes in",
			    path, NULL);
		fd = open(path, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (fd < 0)
			return fail(field, "file", err, errlen, errno, "cannot make a file in",
			            path, WHY(errno));
		size = p->capacity;
	} else {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return fail(field, "file", err, errlen, errno, "cannot open", path,
			            WHY(errno));
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			close(fd);
			return fail(field, "file", err, errlen, EBUSY, "another process uses", path,
			            "it holds a lock on it; give each process its own file, or "
			            "name a directory");
		}
		if (S_ISCHR(st.st_mode)) {
			if (dax_geometry(st.st_rdev, &size, &unit) != 0) {
				close(fd);
				return fail(field, "file", err, errlen, ENODEV,
				            "not a device-DAX device (no size in /sys/dev/char):",
				            path, NULL);
			}
		} else {
			size = (uint64_t)st.st_size;
			if (p->capacity && (size == 0 || p->capacity < size))
				size = p->capacity;
		}
	}
	if (fstatfs(fd, &sf) == 0 && sf.f_type == HUGETLBFS_MAGIC_ && (uint64_t)sf.f_bsize > unit)
		unit = (uint64_t)sf.f_bsize; /* hugetlbfs: its page size */
	size = size / unit * unit;
	if (size == 0) {
		close(fd);
		return fail(field, "capacity", err, errlen, EINVAL,
		            "missing: the file is empty (or smaller than a page); give the pool "
		            "a capacity, the size to make it:",
		            path, NULL);
	}
	if (!S_ISCHR(st.st_mode) && (uint64_t)st.st_size < size && ftruncate(fd, (off_t)size)) {
		e = errno;
		close(fd);
		return fail(field, "file", err, errlen, e, "cannot size", path, WHY(e));
	}
	state_t *s = hmpt_sys_map(sizeof(state_t));
	char *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!s || base == MAP_FAILED) {
		char what[64];
		e = base == MAP_FAILED ? errno : ENOMEM;
		if (s)
			hmpt_sys_unmap(s, sizeof(state_t));
		if (base != MAP_FAILED)
			munmap(base, size);
		close(fd);
		hmpt_fmt_text(what, sizeof(what), "cannot map %s of", HMPT_SIZE(size));
		return fail(field, "file", err, errlen, e, what, path, WHY(e));
	}
	pthread_mutex_init(&s->lock, NULL);
	s->fd = fd;
	s->base = base;
	s->size = size;
	s->unit = unit;
	s->owner = getpid();
	s->nfree = 1;
	s->free[0] = (range_t){0, size};
	bp->state = s;
	bp->capacity = size;
	return 0;
}

static void file_close(hmpt_backend_pool_t *bp)
{
	state_t *s = bp->state;

	if (!s)
		return;
	munmap(s->base, s->size);
	close(s->fd);
	hmpt_sys_unmap(s, sizeof(state_t));
	bp->state = NULL;
}

/* ---------------------------------------------------------- the ranges */

/* With the lock: the offset of `len` bytes aligned to `align` (first fit),
 * or -1. */
static int64_t carve(state_t *s, uint64_t len, uint64_t align)
{
	for (int i = 0; i < s->nfree; i++) {
		range_t *r = &s->free[i];
		uint64_t at = round_up(r->off, align);
		if (at + len > r->off + r->len)
			continue;
		uint64_t after = r->off + r->len - (at + len);
		if (at > r->off && after) { /* a range on each side */
			if (s->nfree == FREE_MAX)
				return -1;
			memmove(r + 2, r + 1, (size_t)(s->nfree - i - 1) * sizeof(*r));
			s->nfree++;
			r[1] = (range_t){at + len, after};
			r->len = at - r->off;
		} else if (at > r->off) {
			r->len = at - r->off;
		} else if (after) {
			*r = (range_t){at + len, after};
		} else {
			memmove(r, r + 1, (size_t)(s->nfree - i - 1) * sizeof(*r));
			s->nfree--;
		}
		return (int64_t)at;
	}
	return -1;
}

/* With the lock: give [off, off+len) back, merged with its neighbours.
 * False: the table of free ranges is full (the range is lost to the
 * process, not to the file's other users). */
static bool give_back(state_t *s, uint64_t off, uint64_t len)
{
	int i = 0;

	while (i < s->nfree && s->free[i].off < off)
		i++;
	bool left = i > 0 && s->free[i - 1].off + s->free[i - 1].len == off;
	bool right = i < s->nfree && off + len == s->free[i].off;
	if (left && right) {
		s->free[i - 1].len += len + s->free[i].len;
		memmove(&s->free[i], &s->free[i + 1], (size_t)(s->nfree - i - 1) * sizeof(range_t));
		s->nfree--;
	} else if (left) {
		s->free[i - 1].len += len;
	} else if (right) {
		s->free[i].off = off;
		s->free[i].len += len;
	} else {
		if (s->nfree == FREE_MAX)
			return false;
		memmove(&s->free[i + 1], &s->free[i], (size_t)(s->nfree - i) * sizeof(range_t));
		s->free[i] = (range_t){off, len};
		s->nfree++;
	}
	return true;
}

/* ----------------------------------------------------------------- ops */

static void *file_alloc(hmpt_backend_pool_t *bp, size_t size, size_t align, bool zero,
                        uint32_t site, uint16_t tag)
{
	state_t *s = bp->state;
	uint64_t len, a;
	int64_t off;
	int rc;

	/* a forked child shares the parent's file: it takes none of it */
	if (!s || getpid() != s->owner) {
		errno = ENOSPC;
		return NULL;
	}
	len = round_up(size ? size : 1, s->unit);
	a = round_up(align > s->unit ? align : s->unit, s->unit);
	hmpt_lock_take(&s->lock, HMPT_LOCK_BACKEND_POOL);
	off = carve(s, len, a);
	hmpt_lock_drop(&s->lock);
	if (off < 0) {
		errno = ENOSPC;
		return NULL;
	}
	/* the range's memory now, where a shortage is a refusal, not a SIGBUS
	 * later; device-DAX has its memory already (and no fallocate) */
	if (fallocate(s->fd, 0, off, (off_t)len) != 0 && errno != EOPNOTSUPP && errno != ENODEV) {
		int e = errno;
		hmpt_lock_take(&s->lock, HMPT_LOCK_BACKEND_POOL);
		give_back(s, (uint64_t)off, len);
		hmpt_lock_drop(&s->lock);
		errno = e == ENOSPC || e == ENOMEM ? ENOMEM : e;
		return NULL;
	}
	char *p = s->base + off;
	if (zero && __atomic_load_n(&s->no_punch, __ATOMIC_RELAXED))
		memset(p, 0, size);
	hmpt_backend_block_t b = {.size = size, .usable = len, .site = site, .tag = tag};
	if ((rc = hmpt_outside_add(p, &b, bp)) != 0) {
		hmpt_lock_take(&s->lock, HMPT_LOCK_BACKEND_POOL);
		give_back(s, (uint64_t)off, len);
		hmpt_lock_drop(&s->lock);
		errno = -rc;
		return NULL;
	}
	return p;
}

static int file_free(hmpt_backend_pool_t *bp, void *p, hmpt_backend_block_t *out)
{
	state_t *s = bp->state;
	int rc = hmpt_outside_take(p, out, NULL);

	if (rc)
		return rc;
	if (getpid() != s->owner) { /* a child's copy (above): private memory now */
		munmap(p, out->usable);
		return 0;
	}
	uint64_t off = (uint64_t)((char *)p - s->base);
	/* the memory back to tmpfs and hugetlbfs, and zero when reused */
	if (fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
	              (off_t)out->usable) != 0)
		__atomic_store_n(&s->no_punch, true, __ATOMIC_RELAXED);
	hmpt_lock_take(&s->lock, HMPT_LOCK_BACKEND_POOL);
	give_back(s, off, out->usable);
	hmpt_lock_drop(&s->lock);
	return 0;
}

void hmpt_backend_file_describe(hmpt_fmt_t *f, const struct hmpt_plan_pool *p)
{
	hmpt_fmt_str(f, "file ");
	hmpt_fmt_str(f, p->file ? p->file : "?");
}

/* --------------------------------------------------------------- fork */

typedef struct {
	void *at, *copy;
	uint64_t len;
} copy_t;

#define COPY_MAX 32768
extern const hmpt_backend_ops_t hmpt_backend_file_ops;
static copy_t *copies_g;
static int ncopies_g;

static bool is_file_block(const hmpt_backend_pool_t *bp)
{
	return bp && bp->be && bp->be->ops == &hmpt_backend_file_ops && bp->state &&
	       ((const state_t *)bp->state)->owner == getpid();
}

static void copy_one(void *p, hmpt_backend_block_t *b, hmpt_backend_pool_t *bp, void *ctx)
{
	(void)ctx;
	if (!is_file_block(bp) || ncopies_g == COPY_MAX)
		return;
	void *c = mmap(NULL, b->usable, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		return; /* no memory for the snapshot: the child shares this one */
	memcpy(c, p, b->usable);
	copies_g[ncopies_g++] = (copy_t){p, c, b->usable};
}

/* before fork, every hmpt lock held (the outside table's too): the
 * snapshot of each live block */
static void file_fork_prepare(void)
{
	ncopies_g = 0;
	if (!hmpt_outside_any())
		return;
	if (!copies_g)
		copies_g = hmpt_sys_map(COPY_MAX * sizeof(copy_t));
	if (copies_g)
		hmpt_outside_each(copy_one, NULL);
}

static void file_fork_parent(void)
{
	for (int i = 0; i < ncopies_g; i++)
		munmap(copies_g[i].copy, copies_g[i].len);
	ncopies_g = 0;
}

/* the copies take the blocks' places: private to the child */
static void file_fork_child(void)
{
	for (int i = 0; i < ncopies_g; i++)
		if (mremap(copies_g[i].copy, copies_g[i].len, copies_g[i].len,
		           MREMAP_MAYMOVE | MREMAP_FIXED, copies_g[i].at) == MAP_FAILED)
			munmap(copies_g[i].copy, copies_g[i].len);
	ncopies_g = 0;
}

const hmpt_backend_ops_t hmpt_backend_file_ops = {
    .open = file_open,
    .close = file_close,
    .alloc = file_alloc,
    .free = file_free,
    .lookup = hmpt_outside_lookup_op,
    .fork_prepare = file_fork_prepare,
    .fork_parent = file_fork_parent,
    .fork_child = file_fork_child,
};
