/* view.h — where the memory time goes: report.html's bottleneck view.
 *
 * Why: a table of groups and speedups answers "what to place" but not
 * "why": which arrays carry the accesses, how they are walked (bandwidth or
 * latency), and whether the fast pool could take their traffic.  The view
 * draws one bar per group, as long as its share of the accesses and
 * coloured by where its time goes, names the two or three groups that
 * matter in a sentence, puts each pool's measured bandwidth and latency
 * beside them (hmpt-bench's results, --bench DIR), and lists the sites with
 * all but the top ones folded away, so that a profile of 10,000 sites
 * still reads at a glance.
 *
 * Contract: reads the tuning (tuning.h) and its profile; writes HTML
 * fragments to an open report.html (no script, no external resource).
 * hmpt_view_bench_load() returns 0, or -1 with err naming the file and
 * what was wrong.
 */
#ifndef HMPT_TUNER_VIEW_H
#define HMPT_TUNER_VIEW_H

#include <jansson.h>
#include <stdio.h>

#include "pattern.h"
#include "tuning.h"

/* "sequential", "strided 4 KiB", "random", ... into buf */
const char *hmpt_view_pattern_text(const hmpt_pattern_class_t *c, char *buf, size_t cap);

/* A pool's figures from hmpt-bench's results.json: the best STREAM triad
 * with all three arrays in it, and the pointer chase at its largest window. */
typedef struct {
	double triad_gbs; /* 0: not measured */
	int threads;
	double chase_ns; /* 0: not measured */
	uint64_t window;
} hmpt_view_pool_t;

/* hmpt-bench's results, DIR/results.json: the document, or NULL with err
 * naming the file and what was wrong */
json_t *hmpt_view_bench_open(const char *dir, char *err, size_t cap);
/* The figures of pool `name` in that document (from DIR): 0, or -1 with
 * err saying why there are none */
int hmpt_view_bench_pool(const json_t *doc, const char *dir, const char *name,
                         hmpt_view_pool_t *out, char *err, size_t cap);

/* What a tuning's shares are of, and where they come from, into buf:
 * "the accesses (timer samples: where the CPU time went)", "the first
 * touches (page faults)", or "the bytes (no access sampling)". */
const char *hmpt_view_share_of(const hmpt_tune_t *t, char *buf, size_t cap);

/* Text for HTML: <, > and & escaped. */
void hmpt_view_html_text(FILE *f, const char *s);
/* The view: section#bottleneck, then table#sites. */
void hmpt_view_write(FILE *f, const hmpt_tune_t *t);

#endif
