/* journal.h — DIR/journal.jsonl: what a tuning has done, so that running the
 * same command again resumes it.
 *
 * Format (one JSON object a line, appended, never rewritten): first
 * {"journal":"hmpt-tune","version":1,"key":KEY,"seed":"HEX"} (the seed of
 * the order of its runs, so that a resumed tuning plans the same; a journal
 * written before has none and gets a new one at each resumption), then {"profile":"done",...}
 * once the profile run ended, and one {"config":...} per measured run as it
 * ends (runrec.h parses the lines back).  A journal whose key differs is
 * refused: it belongs to another tuning.
 *
 * Contract: open, then append and look up; close frees it all (also after a
 * failed open).  Functions that fail print one message and return -1.
 */
#ifndef HMPT_TUNER_JOURNAL_H
#define HMPT_TUNER_JOURNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tuning.h"

typedef struct hmpt_journal_rec hmpt_journal_rec_t;

typedef struct {
	FILE *f;
	hmpt_journal_rec_t *recs; /* the runs an earlier tuner recorded */
	size_t n, cap;
	uint64_t seed;       /* the tuning's own (order.h): its head's, else as set
	                        before opening (--seed), else drawn anew */
	bool profiled;       /* the profile run is done */
	double profile_wall; /* and took this long */
} hmpt_journal_t;

/* What makes two tunings the same: a new JSON reference. */
json_t *hmpt_journal_key(const hmpt_tune_t *t, const char *min_size, const char *user_groups);
/* Read DIR/journal.jsonl when it is there and `key` is its key (unless
 * restart), and open it for appending; or start a new one. */
int hmpt_journal_open(hmpt_journal_t *j, const char *dir, json_t *key, bool restart);
/* The profile run ended after `wall` seconds. */
void hmpt_journal_add_profile(hmpt_journal_t *j, double wall);
/* A run of configuration c ended, its output in `log`. */
void hmpt_journal_add_run(hmpt_journal_t *j, const hmpt_tconfig_t *c, const hmpt_trun_t *run,
                          const char *log);
/* Appends the runs of configuration `key` read from the journal to
 * (*runs, *nruns). */
void hmpt_journal_runs(const hmpt_journal_t *j, const char *key, hmpt_trun_t **runs, int *nruns);
/* The i-th run an earlier tuner recorded, in the order they ran, or NULL
 * past the last (j->n). */
const hmpt_trun_t *hmpt_journal_run(const hmpt_journal_t *j, size_t i);
void hmpt_journal_close(hmpt_journal_t *j);

#endif
