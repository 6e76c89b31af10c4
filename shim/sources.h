/* sources.h — what each sampling source reports, and what it does that
 * the attribution core (sample.c) does not.
 *
 * Why: the core attributes a sampled address (or a first touch) to the
 * tracked block that held it; where the address comes from differs by
 * source.  PEBS and IBS give it with the sample; page faults give the page
 * first touched; the timer gives an instruction and registers, decoded
 * (decode.h).  Callers ask a source's capability record, never its name.
 *
 * A new source is one file with its functions and one row in sources.c:
 * its hmpt_sampler_t (pmu.h, with its events: each says whether it samples
 * accesses or first touches, hmpt_pmu_event_t.touches), its caps, its ring
 * size, and where it must, `locate` (a data address for an access sample
 * that came without one), `describe` (its start-up line) and
 * `write_totals` (its own counts in the profile's "sampling" object).  A
 * region-based source (DAMON, NUMA-hinting faults) reports ranges with
 * counts through hmpt_sample_add_region (sample.h).
 *
 * Contract: called by sample.c's reader with the sample lock held (locate,
 * write_totals) or at start (describe); no malloc.
 */
#ifndef HMPT_SOURCES_H
#define HMPT_SOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt.h"
#include "pmu.h"
#include "ring.h"

typedef struct {
	bool access_density; /* samples of accesses: the share of the time or loads */
	bool first_touch;    /* page faults: the bytes each site first touched */
	bool latency;        /* a load latency per sample */
	bool weight;         /* a cost per sample (latency or cycles) */
	bool stores;         /* loads and stores told apart */
	bool regions;        /* reports ranges with counts, not addresses */
} hmpt_sample_caps_t;

typedef struct {
	hmpt_sampler_t kind;
	hmpt_sample_caps_t caps;
	size_t ring_pages; /* data pages of each thread's ring */
	/* An access sample with no data address: fill s->addr (0: none) and
	 * *store; counts what it could not do itself. */
	void (*locate)(hmpt_ring_sample_t *s, bool *store);
	/* The start-up line after "sampling: " (why: why not hardware) */
	void (*describe)(hmpt_fmt_t *f, const char *why);
	/* Its own totals, as JSON members ending with ",\n    " */
	void (*write_totals)(hmpt_fmt_t *f);
	/* At start (before any sample): its tables; false when it cannot run
	 * (why says why) */
	bool (*start)(char *why, size_t cap);
	/* First touches (page faults), where a source has them: */
	bool (*map)(void);     /* its tables, before sampling starts */
	void (*go_live)(void); /* as sampling starts, and in a fork child */
	void (*fork_child)(void);
	/* a first-touch sample resolved to site (-1: untracked, -2: gone
	 * without trace) in block [lo, hi) born at `born`; `beside`: an
	 * access source makes the site's samples.  True: the core counts it
	 * as one of the site's samples too. */
	bool (*touch)(const hmpt_ring_sample_t *s, int64_t site, uintptr_t lo, uintptr_t hi,
	              uint64_t born, bool gone, bool unobserved, bool beside);
	/* a block is freed or resized, after the core drained the rings */
	void (*release)(uintptr_t start, uint64_t len, uint32_t site, uint64_t born, bool freeing);
	void (*stop)(void); /* after the last drain */
} hmpt_sample_source_t;

/* what kernel samples add to first touches, as the log says it */
#define HMPT_SOURCE_KERNEL_TOUCHES                                                                 \
	"first touches the kernel makes for the program (read() into a buffer)"

/* The row of a kind (OFF and AUTO: a row with no caps). */
const hmpt_sample_source_t *hmpt_sample_source(hmpt_sampler_t kind);

/* The page faults' functions (source_faults.c) */
bool hmpt_source_faults_map(void);
void hmpt_source_faults_go_live(void);
void hmpt_source_faults_fork_child(void);
bool hmpt_source_faults_touch(const hmpt_ring_sample_t *s, int64_t site, uintptr_t lo, uintptr_t hi,
                              uint64_t born, bool gone, bool unobserved, bool beside);
void hmpt_source_faults_release(uintptr_t start, uint64_t len, uint32_t site, uint64_t born,
                                bool freeing);
void hmpt_source_faults_stop(void);
void hmpt_source_faults_describe(hmpt_fmt_t *f, const char *why);

/* The timer's functions (source_timer.c) */
void hmpt_source_timer_locate(hmpt_ring_sample_t *s, bool *store);
void hmpt_source_timer_describe(hmpt_fmt_t *f, const char *why);
void hmpt_source_timer_write_totals(hmpt_fmt_t *f);
bool hmpt_source_timer_start(char *why, size_t cap);

#endif
