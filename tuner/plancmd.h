/* plancmd.h — the `hmpt-tune plan` command (check, make; rebase.c rebases;
 * planout.h writes plans). */
#ifndef HMPT_TUNER_PLANCMD_H
#define HMPT_TUNER_PLANCMD_H

#include <stdbool.h>

extern const char hmpt_plan_usage[];
int hmpt_cmd_plan(int argc, char **argv);

/* `plan check` of one file: the format, and with `machine` whether it fits
 * this machine; errors and warnings on standard error, the plan on standard
 * output unless quiet.  0 when valid. */
int hmpt_plan_check_file(const char *file, bool machine, bool quiet);

#endif
