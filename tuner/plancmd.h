/* plancmd.h — the `hmpt-tune plan` command (check, make; rebase.c rebases). */
#ifndef HMPT_TUNER_PLANCMD_H
#define HMPT_TUNER_PLANCMD_H

#include <jansson.h>
#include <stdbool.h>

#include "symbolize.h"

extern const char hmpt_plan_usage[];
/* A plan's entry for profile site `s`: id (unless prefix), frames (the
 * first `prefix`, 0: all), symbols for people, bytes. */
json_t *hmpt_plan_site_entry(const json_t *prof, const json_t *s, unsigned prefix, hmpt_sym_t *sym);
int hmpt_cmd_plan(int argc, char **argv);
/* A profile (hmpt-tune profile's DIR, or a profile.json), its sites sorted
 * by size; NULL after a message. */
json_t *hmpt_plan_profile_load(const char *arg);
/* The plan's "modules": the build id of each module its sites' identity
 * frames name (siteid.h), from the profile, so that the shim can say when
 * it runs another build. */
void hmpt_plan_add_modules(json_t *plan, const json_t *prof);

/* `plan check` of one file: the format, and with `machine` whether it fits
 * this machine; errors and warnings on standard error, the plan on standard
 * output unless quiet.  0 when valid. */
int hmpt_plan_check_file(const char *file, bool machine, bool quiet);
/* Check `plan` with the shim's own loader, then write it to path (NULL:
 * standard output); 0, or -1 after a message. */
int hmpt_plan_emit(const json_t *plan, const char *path);
/* Now in UTC as ISO 8601, for a plan's provenance "created". */
void hmpt_plan_created_now(char when[32]);

#endif
