/* sys.h — small system helpers for the shim: raw mappings, a permanent
 * bump allocator for the shim's own tables, clocks and file reads.
 *
 * Contract: nothing here calls malloc or stdio.  hmpt_sys_perm_alloc() is
 * for data that lives until exit (module paths, site frames); it is
 * thread-safe and returns NULL when the system refuses memory.
 */
#ifndef HMPT_SYS_H
#define HMPT_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* anonymous private mapping of `len` bytes, NORESERVE; NULL on failure */
void *hmpt_sys_map(size_t len);
void hmpt_sys_unmap(void *p, size_t len);
/* zeroed, 16-byte aligned, never freed; NULL on failure */
void *hmpt_sys_perm_alloc(size_t len);
/* fork: its lock, a leaf (rank HMPT_LOCK_PERM, lockrank.h) */
void hmpt_sys_perm_lock(void);
void hmpt_sys_perm_unlock(void);
void hmpt_sys_perm_reset_lock(void);
/* copy of a string into permanent storage */
char *hmpt_sys_perm_strdup(const char *s);

/* A symbol to resolve: its name and where its address goes (POSIX lets
 * dlsym's void * become a function pointer through such a slot). */
typedef struct {
	const char *name;
	void **slot;
} hmpt_sys_sym_t;
/* Load `lib` (dlopen, RTLD_NOW | RTLD_LOCAL) into *handle and resolve each
 * of syms[0..n).  0; -ENOENT: it cannot be loaded, *why is dlerror()'s
 * reason; -ENOSYS: *why names the first symbol it lacks (it is closed
 * again).  For libraries hmpt loads only when asked (memkind, libpfm4). */
int hmpt_sys_dlopen_syms(const char *lib, const hmpt_sys_sym_t *syms, int n, void **handle,
                         const char **why);

uint64_t hmpt_sys_now_ns(void);  /* CLOCK_MONOTONIC */
double hmpt_sys_unix_time(void); /* CLOCK_REALTIME, seconds */

/* Read up to cap-1 bytes of a file, NUL-terminate; returns bytes or -errno. */
ssize_t hmpt_sys_read_file(const char *path, char *buf, size_t cap);
/* The decimal number a file (sysfs) starts with, white space before it
 * allowed: 0, -ENOENT (unreadable) or -EINVAL (no number). */
int hmpt_sys_read_u64(const char *path, uint64_t *out);
/* The number after `key` in text as /proc/meminfo writes it ("MemTotal:
 * 123 kB", "Node 0 MemFree: 5 kB"): the kB value, 0 when absent. */
uint64_t hmpt_sys_meminfo_kb(const char *text, const char *key);
/* readlink into buf, NUL-terminated; returns length or -errno */
ssize_t hmpt_sys_readlink(const char *path, char *buf, size_t cap);

/* A file of `uid` in the directory open as `dir` is another user's in a
 * sticky directory (/tmp), which only its owner may replace or remove:
 * hmpt neither replaces nor reads what another user may have planted. */
bool hmpt_sys_others_in_sticky(int dir, uid_t uid);

/* A file made safely, for every file hmpt writes (the profile, the tuner's
 * and hmpt-bench's outputs): the directory is opened once (a link as its
 * last component only when the caller or root owns the link), a temporary
 * of unpredictable name is created in it with O_EXCL | O_NOFOLLOW, so that
 * nothing planted there is ever opened, and it is renamed over the name in
 * that same directory, which replaces a name and never follows it.  A name
 * that exists as a symbolic link or anything but a regular file, or as
 * another user's file in a sticky directory (/tmp), is refused: hmpt neither
 * writes through nor replaces what another user may have planted. */
typedef struct {
	int dir;         /* the directory, open until commit or abort */
	int fd;          /* the temporary, open for writing */
	char name[256];  /* the last component of the path */
	char tmp[256];   /* the temporary's name in dir */
	const char *why; /* a refusal in words, or NULL: then strerror of the return */
} hmpt_sys_newfile_t;
/* Create the temporary for `path` (mode before the umask); returns its
 * descriptor (O_WRONLY | O_CLOEXEC, also in nf->fd) or -errno. */
int hmpt_sys_newfile_open(hmpt_sys_newfile_t *nf, const char *path, unsigned mode);
/* Rename the temporary over the name (checked again) and close the
 * directory; the descriptor stays open for the caller.  0 or -errno; on
 * failure the temporary is removed. */
int hmpt_sys_newfile_commit(hmpt_sys_newfile_t *nf);
/* Remove the temporary; close it and the directory. */
void hmpt_sys_newfile_abort(hmpt_sys_newfile_t *nf);

#endif
