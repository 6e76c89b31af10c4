/* profile.h — writes the profile (docs/profile-format.md) from the shim.
 *
 * Contract: called with the sites lock held; no malloc, no stdio: the JSON
 * is formatted into a static buffer and written with write(2) to a
 * temporary file that is renamed into place.  Returns 0 or -errno.
 */
#ifndef HMPT_PROFILE_H
#define HMPT_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile_format.h"

typedef enum { HMPT_END_EXIT, HMPT_END__EXIT, HMPT_END_REQUEST } hmpt_end_t;

typedef struct {
	const char *pattern; /* HMPT_PROFILE */
	uint64_t min_size;
	uint64_t arena_bytes;
	double start_unix;
	bool forked; /* a fork child of the process that loaded the shim */
	hmpt_end_t end;
} hmpt_profile_info_t;

/* Expand %p %h %e %% into buf; appends .<pid> when `unique` and there is no
 * %p.  Returns 0 or -ENAMETOOLONG / -EINVAL. */
int hmpt_profile_path(const char *pattern, bool unique, char *buf, unsigned cap);
/* Write the profile to the expanded pattern, made as hmpt_sys_newfile_open
 * makes files (no link followed or replaced); 0 or -errno, *why a refusal
 * in words or NULL. */
int hmpt_profile_write_file(const hmpt_profile_info_t *info, char *path_out, unsigned cap,
                            const char **why);
/* Keep the command line now, before main(), for the profile: a program that
 * sets its process title overwrites what /proc/self/cmdline shows. */
void hmpt_profile_keep_cmdline(void);

#endif
