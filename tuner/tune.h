/* tune.h — the tuner's commands: hmpt-tune [tune] [options] -- COMMAND,
 * and hmpt-tune compare.
 *
 * Contract: hmpt_cmd_tune() runs the whole method (profile, rank, group,
 * measure, choose, report) with DIR as its journal; hmpt_cmd_compare()
 * measures one plan against another.  Both return the exit status.
 */
#ifndef HMPT_TUNER_TUNE_H
#define HMPT_TUNER_TUNE_H

extern const char hmpt_tune_usage[];
int hmpt_cmd_tune(int argc, char **argv);
int hmpt_cmd_compare(int argc, char **argv);

#endif
