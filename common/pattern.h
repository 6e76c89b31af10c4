/* pattern.h — a site's access pattern, from the order of its sampled addresses.
 *
 * Why: where an array's memory time goes depends on how it is walked.  A
 * sequential or strided walk is bound by bandwidth (prefetchers cover its
 * latency), a random one or a pointer chase by latency; the fast pool
 * helps the first by its bandwidth and the second only if its latency is
 * lower.  So each site is classed as sequential, strided (with the
 * stride), random or pointer-chasing, with a confidence.
 *
 * How: the addresses a site's samples name are followed as streams, one per
 * (thread, block), and within a stream as up to three walks (each sample
 * joins the walk whose last address is nearest), in the order the kernel
 * recorded them; each step of a walk is counted:
 * - page faults (first touch): a step to the page right after the one just
 *   mapped (or right before it) is adjacent; other steps are counted by
 *   value, so a stride of pages shows as one value.  First-touch order sees
 *   strides of a page or more only: a walk with a smaller stride touches
 *   every page in order, and is sequential here.
 * - sampled loads and stores (PEBS, IBS): steps between samples are many
 *   accesses long, so their size says little; their sign says whether the
 *   walk goes one way, and the greatest common divisor of two successive
 *   steps is the stride the walk moves by (a dense walk of 8-byte elements:
 *   8, 16 or so; a column of a matrix: the row's length).
 * A sample whose 8-byte word points into its own block (read back from
 * memory by the sampler) counts as a pointer: an irregular walk whose words
 * mostly point into the block is a pointer chase.
 *
 * Contract: pure, no malloc (the shim updates it in its reader thread);
 * counts merge by adding (the tuner adds processes' counts and classes the
 * sum).  The candidate tables are space-saving top-k counters: exact for
 * the k most frequent values when few values dominate.
 */
#ifndef HMPT_PATTERN_H
#define HMPT_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HMPT_PATTERN_STREAMS 4 /* (thread, block) streams followed per site */
#define HMPT_PATTERN_CANDS   4 /* step values (or strides) counted per site */
#define HMPT_PATTERN_MIN     8 /* steps needed for any class */

typedef enum {
	HMPT_PATTERN_UNKNOWN,
	HMPT_PATTERN_SEQUENTIAL,
	HMPT_PATTERN_STRIDED,
	HMPT_PATTERN_RANDOM,
	HMPT_PATTERN_POINTER,
	HMPT_PATTERN_KINDS
} hmpt_pattern_kind_t;

/* top-k counted values (space-saving) */
typedef struct {
	int64_t v[HMPT_PATTERN_CANDS];
	uint64_t n[HMPT_PATTERN_CANDS];
} hmpt_pattern_top_t;

#define HMPT_PATTERN_CURSORS 3 /* walks followed within one stream (a stencil's rows) */

typedef struct {
	uint64_t last; /* the walk's last address */
	uint64_t size; /* page faults: the bytes the last fault mapped */
	uint64_t step; /* samples: the last step's size, for the divisor */
} hmpt_pattern_cursor_t;

typedef struct {
	uint64_t tid, born; /* the stream's thread and block */
	uint64_t used;      /* when it was last fed (for replacing the oldest; 0: empty) */
	int ncur;
	hmpt_pattern_cursor_t c[HMPT_PATTERN_CURSORS];
} hmpt_pattern_stream_t;

typedef struct {
	bool faults; /* page faults: first-touch order */
	uint64_t fed;
	hmpt_pattern_stream_t s[HMPT_PATTERN_STREAMS];
	/* the counts (they add up across processes) */
	uint64_t steps;             /* steps within a stream */
	uint64_t forward, backward; /* their sign (steps of 0 are neither) */
	uint64_t adjacent;          /* page faults: to the neighbouring page */
	uint64_t checked, pointers; /* words read back, of those pointing into the block */
	hmpt_pattern_top_t cand;    /* faults: other steps; samples: divisors */
} hmpt_pattern_t;

typedef struct {
	hmpt_pattern_kind_t kind;
	uint64_t stride;   /* bytes, for HMPT_PATTERN_STRIDED */
	double confidence; /* 0..1: the share of the evidence for the class */
	uint64_t steps;
} hmpt_pattern_class_t;

/* Follow one sample: at `addr` in the block born at `born` and `span`
 * bytes long (0: not known), by thread `tid`; `size` the bytes a fault
 * mapped (page faults), else 0.  A sample far (an eighth of the block)
 * from every walk of its stream starts a walk of its own, up to
 * HMPT_PATTERN_CURSORS: a stencil reads a[i-n], a[i] and a[i+n] as three
 * walks, each one way. */
void hmpt_pattern_note(hmpt_pattern_t *p, uint64_t tid, uint64_t born, uint64_t span, uint64_t addr,
                       uint64_t size);
/* A word read back at a sample's address: `pointer` when it points into
 * the sample's own block. */
void hmpt_pattern_note_word(hmpt_pattern_t *p, bool pointer);
/* Whether the next sample's word is worth reading back: all of the first
 * 64, then one in 16 (a system call each). */
bool hmpt_pattern_wants_word(const hmpt_pattern_t *p);
/* Count `v` in a top-k table. */
void hmpt_pattern_top_add(hmpt_pattern_top_t *t, int64_t v, uint64_t n);
void hmpt_pattern_classify(const hmpt_pattern_t *p, hmpt_pattern_class_t *out);
/* "sequential", "strided", "random", "pointer-chasing", "unknown" */
const char *hmpt_pattern_name(hmpt_pattern_kind_t k);
/* the kind of a name, HMPT_PATTERN_UNKNOWN for any other */
hmpt_pattern_kind_t hmpt_pattern_parse(const char *name);

#endif
