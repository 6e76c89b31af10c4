/* runrec.h — records of runs that hmpt-tune reads back from files: the
 * lines of DIR/journal.jsonl and the result file a Slurm batch job leaves.
 *
 * Why a module of its own: both are files an earlier (maybe killed) tuner
 * or a job on another node wrote, so their parsing is kept apart from the
 * I/O that finds them, for the fuzzers (tests/fuzz/).
 *
 * Contract: nothing here prints or keeps memory beyond what the caller is
 * given; strings are copied, cut to their buffers.
 */
#ifndef HMPT_TUNER_RUNREC_H
#define HMPT_TUNER_RUNREC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "slurmjob.h"
#include "tuning.h"

typedef enum {
	HMPT_RUNREC_BAD,     /* not JSON: the last line of a killed tuner may be cut short */
	HMPT_RUNREC_OTHER,   /* JSON that is neither of these */
	HMPT_RUNREC_PROFILE, /* the profile run finished: `wall` */
	HMPT_RUNREC_RUN,     /* a run of configuration `config`: `run` */
} hmpt_runrec_kind_t;

typedef struct {
	hmpt_runrec_kind_t kind;
	json_t *key;   /* the line's "key" (the journal's first line has it), or NULL;
	                  a reference the caller drops */
	uint64_t seed; /* the head's "seed", 0: none */
	double wall;   /* HMPT_RUNREC_PROFILE */
	char config[17];
	hmpt_trun_t run; /* HMPT_RUNREC_RUN */
} hmpt_runrec_t;

/* One line of journal.jsonl (NUL-terminated, its newline may remain). */
void hmpt_runrec_journal_line(const char *line, hmpt_runrec_t *r);
/* A Slurm job's result file, open for reading: 1 with status, wall, why and
 * host of `j` filled, or 0 when it is not JSON (yet). */
int hmpt_runrec_slurm_result(FILE *f, hmpt_sjob_t *j);

#endif
