/* hmpt.h — the few functions libhmpt.so offers to programs that want them.
 *
 * Nothing here is needed to use hmpt: LD_PRELOAD=libhmpt.so works on any
 * unmodified program.  Link with `pkg-config --libs hmpt` to call these, or
 * look them up with dlsym(RTLD_DEFAULT, ...) to stay independent of hmpt.
 */
#ifndef HMPT_H
#define HMPT_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, e.g. "0.1.0". */
const char *hmpt_version(void);

/* Write the profile now (it is also written at exit).  `path` may use the
 * HMPT_PROFILE patterns (%p, %h, %e); NULL means HMPT_PROFILE.
 * Returns 0, or a negative errno (-EINVAL: no path; -ENOTSUP: hmpt is
 * disabled in this process, e.g. under AT_SECURE). */
int hmpt_profile_write(const char *path);

#ifdef __cplusplus
}
#endif

#endif
