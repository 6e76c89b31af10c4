/* profrun.h — what running a program under the shim needs: the library, an
 * environment, an output directory, and the per-process profiles it leaves.
 *
 * Contract: functions that can fail print one message naming the file or
 * option on standard error and return nonzero (or NULL).
 */
#ifndef HMPT_TUNER_PROFRUN_H
#define HMPT_TUNER_PROFRUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "runner.h"
#include "symbolize.h"

/* The libhmpt.so to preload: `opt` (--lib) when given, else the one next to
 * hmpt-tune or in ../lib; 0, or -1 with a message. */
int hmpt_lib_resolve(const char *opt, char *out, size_t cap);
/* mkdir -p; 0 or -errno */
int hmpt_mkdir_p(const char *dir);
/* Our environment with LD_PRELOAD=lib (before any LD_PRELOAD already set)
 * and each "NAME=value" of `set` (NULL-terminated) replacing NAME; a bare
 * "NAME" removes it.  Entries from index *added on are allocated here: free
 * them and the array. */
char **hmpt_child_env(const char *lib, char *const *set, size_t *added);
void hmpt_child_env_free(char **env, size_t added);
/* Remove per-process profiles and their merged outputs from dir. */
void hmpt_profiles_clear(const char *dir);
/* Load and merge dir's per-process profiles; NULL with a message if one is
 * bad, NULL and *none set if there were none. */
json_t *hmpt_profiles_collect(const char *dir, long main_pid, int *none);
/* Write dir/profile.json and dir/sites.tsv; 0 or -errno with a message. */
int hmpt_profiles_write(const char *dir, json_t *merged, hmpt_sym_t *sym);

/* One run of a command under the shim, as `hmpt-tune profile` makes it. */
typedef struct {
	const char *dir;      /* where the profiles go: created, emptied of old ones */
	const char *lib;      /* the libhmpt.so to preload (hmpt_lib_resolve) */
	const char *min_size; /* HMPT_MIN_SIZE, HMPT_STACK_DEPTH, HMPT_SAMPLE; NULL: */
	const char *depth;    /* as the environment has them */
	const char *sample;
	char *const *argv; /* the command */
	const char *log;   /* its output goes here (NULL: our terminal) */
	bool quiet;        /* the caller says how the command ended */
} hmpt_profrun_t;

/* Run r->argv with the shim preloaded and merge the profiles of all its
 * processes into r->dir/profile.json and sites.tsv.  *res says how the
 * command ended (res->status: hmpt_run's, or 2 when r->dir cannot be made).
 * Returns the merged profile (the caller drops it), or NULL: with *none
 * set when no process tracked an allocation (nothing said), else after a
 * message. */
json_t *hmpt_profrun(const hmpt_profrun_t *r, hmpt_sym_t *sym, hmpt_run_result_t *res, int *none);

#endif
