/* sys.h — small system helpers for the shim: raw mappings, a permanent
 * bump allocator for the shim's own tables, clocks and file reads.
 *
 * Contract: nothing here calls malloc or stdio.  hmpt_sys_perm_alloc() is
 * for data that lives until exit (module paths, site frames); it is
 * thread-safe and returns NULL when the system refuses memory.
 */
#ifndef HMPT_SYS_H
#define HMPT_SYS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* anonymous private mapping of `len` bytes, NORESERVE; NULL on failure */
void *hmpt_sys_map(size_t len);
void hmpt_sys_unmap(void *p, size_t len);
/* zeroed, 16-byte aligned, never freed; NULL on failure */
void *hmpt_sys_perm_alloc(size_t len);
/* fork: its lock, a leaf (forktab.h) */
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
/* readlink into buf, NUL-terminated; returns length or -errno */
ssize_t hmpt_sys_readlink(const char *path, char *buf, size_t cap);

#endif
