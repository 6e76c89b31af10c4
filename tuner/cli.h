/* cli.h — what every hmpt-tune command shares: usage errors, exit codes. */
#ifndef HMPT_TUNER_CLI_H
#define HMPT_TUNER_CLI_H

#define EXIT_USAGE 2

/* "hmpt-tune CMD: MSG: ARG" and "Try 'hmpt-tune help CMD'.", then exit 2 */
__attribute__((noreturn)) void hmpt_cli_usage_error(const char *cmd, const char *msg,
                                                    const char *arg);
/* A whole-number option from lo to hi, or a usage error naming it. */
int hmpt_cli_whole_option(const char *cmd, const char *name, const char *arg, int lo, int hi);

#endif
