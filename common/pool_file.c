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
#include <sys/uio.h>
#include <unistd.h>

#include "fmt.h"
#include "log.h"
#include "lockrank.h"
#include "plan.h"
#include "sys.h"

#define FREE_MAX         8192
#define HUGETLBFS_MAGIC_ 0x958458f6
/* the mapping's alignment: huge pages can back its blocks */
#define HMPT_FILE_ALIGN ((uint64_t)2 << 20)

typedef struct {
	uint64_t off, len;
} range_t;

typedef struct {
	pthread_mutex_t lock; /* the free ranges */
	int fd;
	char *base;      /* the mapping */
	uint64_t size;   /* mapped bytes */
	uint64_t unit;   /* a block's granularity: page, huge page, DAX alignment */
	pid_t owner;     /* the process that opened it */
	bool no_punch;   /* punching holes failed: zero by hand */
	int warned_lost; /* a range could not be reused: said once */
	int nfree;
	range_t free[FREE_MAX]; /* sorted by offset, never adjacent */
} state_t;

static uint64_t round_up(uint64_t x, uint64_t u)
{
	return (x + u - 1) / u * u;
}

/* --------------------------------------------------------------- open */

/* A device-DAX's size and alignment from sysfs (/sys/dev/char/M:m). */
static int dax_geometry(dev_t dev, uint64_t *size, uint64_t *align)
{
	char path[96];
	uint64_t v;

	hmpt_fmt_text(path, sizeof(path), "/sys/dev/char/%u:%u/size", major(dev), minor(dev));
	if (hmpt_sys_read_u64(path, &v) != 0)
		return -ENODEV;
	*size = v;
	*align = (uint64_t)2 << 20;
	hmpt_fmt_text(path, sizeof(path), "/sys/dev/char/%u:%u/align", major(dev), minor(dev));
	if (hmpt_sys_read_u64(path, &v) == 0 && v >= 4096)
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

/* Is the character device a device-DAX (its sysfs subsystem "dax")?  Asked
 * before opening it: opening some devices does something. */
static bool is_dax(dev_t dev)
{
	char path[96], link[256];
	ssize_t n;

	hmpt_fmt_text(path, sizeof(path), "/sys/dev/char/%u:%u/subsystem", major(dev), minor(dev));
	n = hmpt_sys_readlink(path, link, sizeof(link));
	return n >= 4 && strcmp(link + n - 4, "/dax") == 0;
}

/* Map `size` bytes of fd shared at an address aligned to `align`, so that
 * a block's alignment is its offset's: NORESERVE, since every block's
 * range is allocated in the file (fallocate) before it is used, and a
 * hugetlbfs mapping would otherwise reserve all its huge pages at once. */
static char *map_aligned(int fd, uint64_t size, uint64_t align)
{
	char *area =
	    mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED)
		return MAP_FAILED;
	char *at = (char *)round_up((uintptr_t)area, align);
	char *base =
	    mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0);
	if (base == MAP_FAILED) {
		munmap(area, size + align);
		return MAP_FAILED;
	}
	if (at > area)
		munmap(area, (size_t)(at - area));
	if (at + size < area + size + align)
		munmap(at + size, (size_t)(area + size + align - (at + size)));
	return base;
}

static int file_open(hmpt_backend_pool_t *bp, const char **field, char *err, size_t errlen)
{
	const hmpt_plan_pool_t *p = bp->plan;
	const char *path = p->file;
	struct stat st, fst;
	struct statfs sf;
	uint64_t size = 0, unit = 4096;
	int fd, e;

	if (stat(path, &st) != 0)
		return fail(field, "file", err, errlen, errno, "cannot use", path, WHY(errno));
	if (S_ISBLK(st.st_mode))
		return fail(field, "file", err, errlen, EINVAL, "cannot map the block device", path,
		            "its pages would go through the page cache; name a device-DAX device, "
		            "or a directory on a filesystem mounted with -o dax");
	if (S_ISCHR(st.st_mode) && !is_dax(st.st_rdev))
		return fail(field, "file", err, errlen, ENODEV, "not a device-DAX device:", path,
		            NULL);
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
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
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
				            "no size in /sys/dev/char for the device-DAX", path,
				            NULL);
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
		char what[160];
		close(fd);
		hmpt_fmt_text(what, sizeof(what),
		              "less than one unit of its memory (%s): give the pool a capacity of "
		              "at least that, the size to make",
		              HMPT_SIZE(unit));
		return fail(field, "capacity", err, errlen, EINVAL, what, path, NULL);
	}
	/* the new file's size, not the directory's */
	if (!S_ISCHR(st.st_mode) && (fstat(fd, &fst) != 0 || ((uint64_t)fst.st_size < size &&
	                                                      ftruncate(fd, (off_t)size)))) {
		e = errno;
		close(fd);
		return fail(field, "file", err, errlen, e, "cannot size", path, WHY(e));
	}
	state_t *s = hmpt_sys_map(sizeof(state_t));
	uint64_t align = unit > HMPT_FILE_ALIGN ? unit : HMPT_FILE_ALIGN;
	char *base = s ? map_aligned(fd, size, align) : MAP_FAILED;
	if (base == MAP_FAILED) {
		char what[64];
		e = s ? errno : ENOMEM;
		if (s)
			hmpt_sys_unmap(s, sizeof(state_t));
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
	/* a block must read zero when asked: what a named file or a device
	 * held before (an earlier run's blocks) is punched out now, or, where
	 * that cannot be done (device-DAX), zeroed block by block */
	s->no_punch = S_ISCHR(st.st_mode) ||
	              (!S_ISDIR(st.st_mode) &&
	               fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)size));
	bp->state = s;
	bp->capacity = size;
	bp->unit = unit;
	bp->capacity_from = S_ISCHR(st.st_mode) ? "the device" : "its file";
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

/* With the lock: the offset of `len` bytes whose address is aligned to
 * `align` (first fit), or -1. */
static int64_t carve(state_t *s, uint64_t len, uint64_t align)
{
	uintptr_t base = (uintptr_t)s->base;

	for (int i = 0; i < s->nfree; i++) {
		range_t *r = &s->free[i];
		uint64_t at = round_up(base + r->off, align) - base;
		if (at + len > r->off + r->len)
			continue;
		uint64_t after = r->off + r->len - (at + len);
		if (at > r->off && after) { /* a range on each side */
			if (s->nfree == FREE_MAX)
				continue; /* no room to split it: another may fit whole */
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

/* The range [off, off+len) goes back: its memory to the filesystem (tmpfs
 * and hugetlbfs memory returns, and it reads zero when reused), its
 * mapping made anew (what the program did to it with mprotect, madvise or
 * munmap must not follow it to the next block), and it is free again.
 * Where the mapping cannot be made, the range is kept out of use. */
static void release(state_t *s, uint64_t off, uint64_t len)
{
	bool kept;

	if (!__atomic_load_n(&s->no_punch, __ATOMIC_RELAXED) &&
	    fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len))
		__atomic_store_n(&s->no_punch, true, __ATOMIC_RELAXED);
	kept = mmap(s->base + off, len, PROT_READ | PROT_WRITE,
	            MAP_SHARED | MAP_FIXED | MAP_NORESERVE, s->fd, (off_t)off) != MAP_FAILED;
	hmpt_lock_take(&s->lock, HMPT_LOCK_BACKEND_POOL);
	kept = kept && give_back(s, off, len);
	hmpt_lock_drop(&s->lock);
	if (!kept && hmpt_log_first(&s->warned_lost))
		hmpt_log_printf(HMPT_LOG_WARN,
		                "a file pool cannot reuse %s of its file (its mapping could not be "
		                "made again, or its table of %d free ranges is full): later blocks "
		                "may go to the fallback sooner",
		                HMPT_SIZE(len), FREE_MAX);
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
		release(s, (uint64_t)off, len);
		errno = e == ENOSPC || e == ENOMEM ? ENOMEM : e;
		return NULL;
	}
	char *p = s->base + off;
	if (zero && __atomic_load_n(&s->no_punch, __ATOMIC_RELAXED))
		memset(p, 0, size);
	hmpt_backend_block_t b = {.size = size, .usable = len, .site = site, .tag = tag};
	if ((rc = hmpt_outside_add(p, &b, bp)) != 0) {
		release(s, (uint64_t)off, len);
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
	if (getpid() != s->owner) { /* a child's copy (below): private memory now */
		munmap(p, out->usable);
		return 0;
	}
	release(s, (uint64_t)((char *)p - s->base), out->usable);
	return 0;
}

void hmpt_backend_file_describe(hmpt_fmt_t *f, const struct hmpt_plan_pool *p)
{
	hmpt_fmt_str(f, "file ");
	hmpt_fmt_str(f, p->file ? p->file : "?");
}

/* --------------------------------------------------------------- fork
 * The child must see the blocks as they were at the fork, and neither
 * side the other's later writes: a shared mapping gives neither.  So the
 * prepare handler copies them (the snapshot), the child puts the copies in
 * the blocks' places, the parent drops them.  The cost is the blocks'
 * bytes, copied at every fork (not at posix_spawn or vfork, which run no
 * handlers); where that would take more than half the memory available,
 * or a copy cannot be made, the child shares those blocks and says so. */

typedef struct {
	void *at, *copy;
	uint64_t len;
} copy_t;

#define COPY_MAX 32768
extern const hmpt_backend_ops_t hmpt_backend_file_ops;
static copy_t *copies_g;
static int ncopies_g;
static uint64_t live_g, shared_g; /* this fork's: bytes live, bytes not copied */

static bool is_file_block(const hmpt_backend_pool_t *bp)
{
	return bp && bp->be && bp->be->ops == &hmpt_backend_file_ops && bp->state &&
	       ((const state_t *)bp->state)->owner == getpid();
}

static void count_one(void *p, hmpt_backend_block_t *b, hmpt_backend_pool_t *bp, void *ctx)
{
	(void)p;
	(void)ctx;
	if (is_file_block(bp))
		live_g += b->usable;
}

static void copy_one(void *p, hmpt_backend_block_t *b, hmpt_backend_pool_t *bp, void *ctx)
{
	bool copy = *(bool *)ctx;

	if (!is_file_block(bp))
		return;
	void *c = copy && ncopies_g < COPY_MAX
	              ? mmap(NULL, b->usable, PROT_READ | PROT_WRITE,
	                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
	              : MAP_FAILED;
	/* read through the kernel: a page the program made unreadable
	 * (mprotect) fails the copy instead of faulting here */
	struct iovec to = {c, b->usable}, from = {p, b->usable};
	if (c != MAP_FAILED &&
	    process_vm_readv(getpid(), &to, 1, &from, 1, 0) == (ssize_t)b->usable) {
		copies_g[ncopies_g++] = (copy_t){p, c, b->usable};
		return;
	}
	if (c != MAP_FAILED)
		munmap(c, b->usable);
	shared_g += b->usable;
}

/* MemAvailable, or 0 */
static uint64_t mem_available(void)
{
	char buf[4096];

	if (hmpt_sys_read_file("/proc/meminfo", buf, sizeof(buf)) <= 0)
		return 0;
	return hmpt_sys_meminfo_kb(buf, "MemAvailable:") << 10;
}

/* before fork, every hmpt lock held (the outside table's too) */
static void file_fork_prepare(void)
{
	bool copy;

	ncopies_g = 0;
	live_g = shared_g = 0;
	if (!hmpt_outside_any())
		return;
	hmpt_outside_each(count_one, NULL);
	if (!live_g)
		return;
	if (!copies_g)
		copies_g = hmpt_sys_map(COPY_MAX * sizeof(copy_t));
	copy = copies_g && live_g <= mem_available() / 2;
	hmpt_outside_each(copy_one, &copy);
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
		           MREMAP_MAYMOVE | MREMAP_FIXED, copies_g[i].at) == MAP_FAILED) {
			munmap(copies_g[i].copy, copies_g[i].len);
			shared_g += copies_g[i].len;
		}
	ncopies_g = 0;
	if (shared_g)
		hmpt_log_printf(
		    HMPT_LOG_WARN,
		    "fork: this child shares %s of its parent's file-pool blocks (of %s "
		    "live): copying them at the fork %s; what either process writes "
		    "there the other sees",
		    HMPT_SIZE(shared_g), HMPT_SIZE(live_g),
		    shared_g == live_g ? "would take more than half the available memory"
		                       : "failed for some");
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
