/* plancmd.h — the `hmpt-tune plan` command (check and make). */
#ifndef HMPT_TUNER_PLANCMD_H
#define HMPT_TUNER_PLANCMD_H

#include <jansson.h>

#include "symbolize.h"

extern const char hmpt_plan_usage[];
/* A plan's entry for profile site `s`: id (unless prefix), frames (the
 * first `prefix`, 0: all), symbols for people, bytes. */
json_t *hmpt_plan_site_entry(const json_t *prof, const json_t *s, unsigned prefix, hmpt_sym_t *sym);
int hmpt_cmd_plan(int argc, char **argv);

#endif
