/* tune.h — the tuner's commands: hmpt-tune [tune] [options] -- COMMAND,
 * and hmpt-tune compare (compare.c), which takes some of its options.
 *
 * Contract: hmpt_cmd_tune() runs the whole method (the stages of stages.h)
 * with DIR as its journal; hmpt_cmd_compare() measures one plan against
 * another.  Both return the exit status.  The option parsers fill in a
 * hmpt_tune_opts_t; the tuning holds it read-only.
 */
#ifndef HMPT_TUNER_TUNE_H
#define HMPT_TUNER_TUNE_H

#include <getopt.h>
#include <stdbool.h>

#include "measure.h"
#include "tuning.h"

extern const char hmpt_tune_usage[];
int hmpt_cmd_tune(int argc, char **argv);
int hmpt_cmd_compare(int argc, char **argv);

/* What the command line asked beyond hmpt_tune_opts_t. */
typedef struct {
	const char *cmd; /* "tune" or "compare", for usage errors */
	const char *pools, *lib, *launcher;
	bool restart;
} hmpt_tune_cli_t;

/* Every option of a tuning, for getopt_long(). */
extern const char hmpt_tune_shortopts[];
extern const struct option hmpt_tune_longs[];
/* The options that compare takes as well (their short letters or getopt
 * values in hmpt_tune_longs). */
#define HMPT_TUNE_SHARED_OPTIONS "mHrtMALqlSPNTjQ"

/* A tuning's defaults: hmpt-tune --help's. */
hmpt_tune_opts_t hmpt_tune_opts_default(void);
/* Option c (one of HMPT_TUNE_SHARED_OPTIONS) with its argument into opt, x
 * or o: true when c is one; a bad argument is a usage error (exit 2). */
bool hmpt_tune_take_shared(int c, char *arg, hmpt_tune_opts_t *opt, hmpt_measure_t *x,
                           hmpt_tune_cli_t *o);
/* What the options asked, checked together once parsed (a usage error
 * exits), and --slurm's jobs set up in x. */
void hmpt_tune_check_options(hmpt_tune_opts_t *opt, hmpt_measure_t *x, const hmpt_tune_cli_t *o);
/* opt->cmd: words, after --launcher's words when given. */
void hmpt_tune_set_command(hmpt_tune_opts_t *opt, char **words, const hmpt_tune_cli_t *o);
/* t, empty, with the options opt (which t holds read-only). */
void hmpt_tune_start(hmpt_tune_t *t, const hmpt_tune_opts_t *opt);
/* what opt owns (the command, the pools) */
void hmpt_tune_opts_free(hmpt_tune_opts_t *opt);

#endif
