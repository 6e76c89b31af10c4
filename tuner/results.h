/* results.h — what a tuning found, for people and for scripts:
 * results.json, results.csv, the two plots (gnuplot), report.html, and the
 * summary table.
 *
 * Contract: called once the analysis (method.h) and the plans are done;
 * hmpt_tune_write_results() returns 0, or nonzero after a message.
 */
#ifndef HMPT_TUNER_RESULTS_H
#define HMPT_TUNER_RESULTS_H

#include <stdio.h>

#include "tuning.h"

int hmpt_tune_write_results(hmpt_tune_t *t);
void hmpt_tune_print_summary(const hmpt_tune_t *t, FILE *out);

#endif
