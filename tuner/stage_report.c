/* stage_report.c — the report stage: results.json, .csv, the figures and
 * report.html (results.c), then the summary on standard output. */
#include "stages.h"

#include <stdio.h>

#include "results.h"

int hmpt_stage_report(hmpt_tune_t *t, hmpt_measure_t *x)
{
	if (hmpt_tune_write_results(t) != 0)
		return -1;
	if (!x->quiet)
		hmpt_tune_print_summary(t, stdout);
	return 0;
}
