/* plancmd.h — the `hmpt-tune plan` command (check and make). */
#ifndef HMPT_TUNER_PLANCMD_H
#define HMPT_TUNER_PLANCMD_H

extern const char hmpt_plan_usage[];
int hmpt_cmd_plan(int argc, char **argv);

#endif
