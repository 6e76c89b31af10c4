/* planout.h — plans as hmpt-tune writes them: from `plan make`, `plan
 * rebase` (rebase.c) and a tuning (config.c, stage_plans.c, tune.c).
 *
 * Contract: every plan written goes through hmpt_plan_emit, which checks it
 * with the shim's own loader first; messages go to standard error.
 */
#ifndef HMPT_TUNER_PLANOUT_H
#define HMPT_TUNER_PLANOUT_H

#include <jansson.h>

#include "symbolize.h"

/* A profile (hmpt-tune profile's DIR, or a profile.json), its sites sorted
 * by size; NULL after a message. */
json_t *hmpt_plan_profile_load(const char *arg);
/* A plan's entry for profile site `s`: id (unless prefix), frames (the
 * first `prefix`, 0: all), symbols for people, bytes. */
json_t *hmpt_plan_site_entry(const json_t *prof, const json_t *s, unsigned prefix, hmpt_sym_t *sym);
/* The plan's "modules": the build id of each module its sites' identity
 * frames name (siteid.h), from the profile, so that the shim can say when
 * it runs another build. */
void hmpt_plan_add_modules(json_t *plan, const json_t *prof);
/* Check `plan` (frames inline in its sites, as hmpt-tune builds plans)
 * with the shim's own loader, then write it to path (NULL: standard
 * output) in format 4 (HMPT_PLAN_VERSION_COMPACT); 0, or -1 after a
 * message. */
int hmpt_plan_emit(const json_t *plan, const char *path);
/* The plan in format 4: each distinct frame (with its symbol and
 * symbolic entry) once, in a top-level "frames" table that sites name by
 * "stack" indices; a new document, or NULL. */
json_t *hmpt_plan_json_compact(const json_t *plan);
/* A format-4 plan, in place, back to frames inline in its sites (format 2,
 * or 3 where a group has a share), as `plan rebase` reads them; other
 * versions are left alone.  0, or -1 on a "stack" index out of the table
 * (the loader refuses such a plan first). */
int hmpt_plan_json_expand(json_t *plan);
/* Now in UTC as ISO 8601, for a plan's provenance "created". */
void hmpt_plan_created_now(char when[32]);

#endif
