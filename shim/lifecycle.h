/* lifecycle.h — the shim's life in a process.
 *
 * The constructor sets hmpt up (if no request did before), registers the
 * fork table (forktab.h), warms the unwinder up, places static data and
 * starts sampling.  The profile is written once per process: by the
 * destructor (exit, return from main) or by _exit/_Exit, never in a vfork
 * child (the pid must be the owner's).
 */
#ifndef HMPT_LIFECYCLE_H
#define HMPT_LIFECYCLE_H

#include "profile.h"

/* The profile to a path pattern, now (hmpt_profile_write) or at the end. */
int hmpt_lifecycle_write_profile(const char *pattern, hmpt_end_t end);
/* The end of the process: its profile (once), the plan's stale report, the
 * job's shared state. */
void hmpt_lifecycle_end(hmpt_end_t end);

#endif
