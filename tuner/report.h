/* report.h — the site table for people and sites.tsv for scripts.
 *
 * Contract: `prof` is a validated (possibly merged) profile with sites sorted
 * by bytes.  Symbolization goes through `sym`.  Returns 0 or -errno (a
 * write error).
 */
#ifndef HMPT_TUNER_REPORT_H
#define HMPT_TUNER_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include <stdio.h>

#include "fmt.h" /* hmpt_fmt_size_text: sizes as every table shows them */
#include "symbolize.h"

typedef struct {
	const char *function; /* of the location frame */
	char location[512];   /* "file.c:12" (base name), or "??:0" */
	/* which call of the location frame's statement (sitesym.h): "v: 2nd
	 * of 3", "2nd of 3" without a variable, "" for the only one */
	char detail[160];
	int position, positions; /* 1 of 1 unless the statement makes several calls */
	const char *variable;    /* NULL when unknown */
} hmpt_site_loc_t;

/* The location frame: the first frame, inline chains expanded innermost
 * first, whose source file is not under /usr/ (system and toolchain
 * headers); else the first with any source file; else the first frame's
 * symbol name at "??:0". */
void hmpt_report_locate(hmpt_sym_t *sym, const json_t *prof, const json_t *site,
                        hmpt_site_loc_t *loc);

typedef struct {
	int verbose;      /* whole stacks */
	int max_rows;     /* 0 = all */
	const char *more; /* where the rest is, for the "... N more" line */
} hmpt_report_opts_t;

/* One frame for people: "function (file.c:12)", or "function" without a
 * line, innermost inlined function first ("f inlined in g (file.c:12)");
 * `detail` (may be NULL or "") goes beside the line: "(file.c:12, v: 2nd
 * of 3)". */
void hmpt_report_frame_text(hmpt_sym_t *sym, const json_t *prof, const char *frame,
                            const char *detail, char *buf, size_t cap);

/* The instruction that issued most of a site's samples, as "function
 * (file:line), 62 %" ("the kernel ..." for the kernel's own first
 * touches); false when its profile names none. */
bool hmpt_report_top_instruction(hmpt_sym_t *sym, const json_t *prof, const json_t *site, char *buf,
                                 size_t cap);

/* What a profile's sampling source can tell (hmpt_prof_sampling_caps: its
 * capability record) and where its figures come from, in words: what the
 * tuner's shares, tables and ranking ask of a source. */
typedef struct {
	bool density;     /* shares are of sampled accesses (caps.access_density) */
	bool first_touch; /* sites have first_touch_bytes (caps.first_touch) */
	bool time;        /* each sample is a slice of CPU time, not an access: a
	                     density source whose samples carry no latency, no weight
	                     and no region counts (a timer's) */
	const char *kind; /* "accesses", "first touches", or NULL: not sampled */
	char source[64];  /* "timer samples: where the CPU time went", "PEBS load
	                     samples", "page faults"; "" when not sampled */
} hmpt_report_source_t;
void hmpt_report_source(const json_t *sm, hmpt_report_source_t *src);

/* The profile's sampling (its "sampling" object) in a line, then what it
 * fell back from and could not see, a line each (only where there is any). */
void hmpt_report_sampling(FILE *out, const json_t *sm);

/* A site of kind "static" (a static data object, not a call stack). */
bool hmpt_report_is_static(const json_t *site);
/* A static data object (kind "static"): true, and "a (static, .bss)" in buf;
 * false for heap sites. */
bool hmpt_report_static_text(const json_t *site, char *buf, size_t cap);
/* Bytes of the profile's static sites, and how many there are. */
uint64_t hmpt_report_static_bytes(const json_t *prof, size_t *count);

int hmpt_report_table(FILE *out, const json_t *prof, hmpt_sym_t *sym, const hmpt_report_opts_t *o);
int hmpt_report_tsv(FILE *out, const json_t *prof, hmpt_sym_t *sym);

#endif
