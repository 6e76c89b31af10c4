/* sample.h — access sampling inside the application (HMPT_SAMPLE).
 *
 * Why: size alone does not say where fast memory pays; the share of sampled
 * accesses that land in each tracked block does.  Each thread opens its own
 * perf events (pmu.h chooses them) sharing one small ring; one reader
 * thread, with every signal blocked, drains the rings and attributes each
 * sampled address to the tracked block that held it at the sample's time
 * (blocks freed or moved since are found in a log of recent departures),
 * with the NUMA node of the sampled page (move_pages).
 *
 * Contract: every entry point is called by lifecycle.c, override.c or track.c with the
 * re-entrancy guard held (perf setup, libpfm4 and thread creation may
 * allocate).  No malloc: slots, logs and per-site counters live in fixed
 * mappings.  Lock order: sites -> sample -> arena; the departure log's lock
 * is a leaf.  Per-site counters are written only by the reader (or by a
 * caller draining with the sample lock held) and read with it held.
 * Functions return 0 or -errno; getters return NULL when sampling is off.
 */
#ifndef HMPT_SAMPLE_H
#define HMPT_SAMPLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pattern.h"
#include "pmu.h"
#include "ring.h"
#include "sources.h"

#define HMPT_SAMPLE_NODES       16 /* nodes counted one by one; higher ones as "other" */
#define HMPT_SAMPLE_LAT_BUCKETS 8  /* <16, <32, <64, <128, <256, <512, <1024, more cycles */
#define HMPT_SAMPLE_TIDS        4  /* threads named per site; the rest summed */

typedef struct {
	uint64_t samples;
	uint64_t stores;
	uint64_t lat_sum, lat_n;
	uint64_t lat_hist[HMPT_SAMPLE_LAT_BUCKETS];
	uint64_t level[HMPT_LEVEL_COUNT];
	uint64_t node[HMPT_SAMPLE_NODES + 2]; /* then: higher nodes, page not found */
	uint64_t bytes;                       /* page faults: bytes first touched */
	uint64_t unseen_bytes;                /* resident at free, no fault counted them */
	uint64_t node_wait;                   /* zero-page pages waiting for a write */
	uint32_t tid[HMPT_SAMPLE_TIDS];
	uint64_t tid_n[HMPT_SAMPLE_TIDS];
	uint64_t tid_other;
	hmpt_pattern_t pattern; /* the order of its samples' addresses */
	hmpt_pattern_top_t ips; /* the instructions that issued most of them */
	uint64_t ips_of;        /* samples with an instruction pointer */
} hmpt_sample_site_t;

typedef struct {
	hmpt_ring_counts_t ring;  /* samples read, lost, throttled, malformed, unknown */
	uint64_t attributed;      /* to a live tracked block */
	uint64_t attributed_gone; /* to a block freed or moved before the sample was read */
	uint64_t untracked;       /* small allocations, stacks, static data, code */
	uint64_t gone_unknown;    /* in the arena, but its block left no trace */
	uint64_t no_address;      /* the hardware gave no data address */
	uint64_t threads, threads_failed, threads_unsampled;
	uint64_t untracked_bytes; /* page faults */
	uint64_t refaults;        /* page faults in tracked memory that first touched nothing */
	uint64_t unobserved;      /* page faults in blocks not observed (see hmpt_sample_observe) */
	uint64_t mthp_bytes;      /* bytes counted from the page table around mTHP faults */
} hmpt_sample_totals_t;

/* Page-fault mode observes the first HMPT_SAMPLE_OBSERVE_FIRST blocks of
 * each site, then one in HMPT_SAMPLE_OBSERVE_EVERY: those get clean pages
 * and their first touches are counted; the others may reuse freed pages
 * (arena.h) and their faults are not counted.  A site's bytes are the
 * observed blocks' scaled by allocations / observed (Horvitz-Thompson):
 * exact for a site allocated at most HMPT_SAMPLE_OBSERVE_FIRST times. */
#define HMPT_SAMPLE_OBSERVE_FIRST 8
#define HMPT_SAMPLE_OBSERVE_EVERY 256

typedef int (*hmpt_pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                                      void *);

typedef struct {
	hmpt_sampler_t want;
	uint64_t period, ldlat;        /* 0: the defaults */
	hmpt_pthread_create_fn create; /* the real pthread_create, for the reader */
	uint64_t processes;            /* the job's ranks on this node (0: one process) */
	uint64_t threads;              /* threads per process expected (OMP_NUM_THREADS; 0: 1) */
} hmpt_sample_config_t;

/* Choose the events and start: this thread's events, the reader thread.
 * Says once what it set up, or why it could not; returns 0 when sampling
 * runs. */
int hmpt_sample_start(const hmpt_sample_config_t *cfg);
bool hmpt_sample_active(void);
/* In each new thread, before its start routine (pthread_create). */
void hmpt_sample_thread_begin(void);
/* A tracked block [start, start+len) of `site`, born at `born`, left its
 * range just now (freed, or moved by realloc).  Takes the time only while
 * sampling runs. */
void hmpt_sample_note_gone(uintptr_t start, uint64_t len, uint32_t site, uint64_t born,
                           bool unobserved);
/* Read every ring now (for a profile written on request); pages that wait
 * for their node keep waiting. */
void hmpt_sample_flush(void);
/* Page-fault mode, before an observed block [start, start+len) is freed
 * (`freeing`) or resized: read every ring, so that its samples are
 * counted for it and the node of each of its pages is looked up while the
 * page is there (its pages may be dropped at the free); on a free, its
 * pages still waiting for a write are counted as not found, and the pages
 * resident that no fault counted as unseen.  Nothing in other modes (freed
 * pages are kept there, and hardware samples do not count pages), nor for
 * a block not observed (its faults are not counted). */
void hmpt_sample_before_release(uintptr_t start, uint64_t len, uint32_t site, uint64_t born,
                                bool unobserved, bool freeing);
/* Page-fault mode's choice for the next block of `site` (arena.h
 * hmpt_arena_observe_by): deterministic, per site. */
bool hmpt_sample_observe(uint32_t site);
/* The site's blocks decided on since sampling started, and those observed
 * (both 0 outside page-fault mode); with the sample lock held. */
void hmpt_sample_observed(uint32_t site, uint64_t *allocs, uint64_t *observed);
/* Page-fault mode: whether first touches the kernel makes for the program
 * (read() into a buffer) are counted (kernel samples allowed). */
bool hmpt_sample_kernel_touches(void);
/* The largest mTHP size enabled (bytes; 0: none), whose faults are counted
 * from the page table (the sample says a base page). */
uint64_t hmpt_sample_mthp(void);
/* A region-based source (DAMON, NUMA-hinting faults; sources.h): `count`
 * accesses somewhere in [lo, hi), split over the tracked blocks live there
 * by the bytes of each within the range; what falls outside them counts as
 * untracked.  Takes the sample lock. */
void hmpt_sample_add_region(uintptr_t lo, uintptr_t hi, uint64_t count);
/* Stop sampling and read what is left (at exit, before the profile). */
void hmpt_sample_stop(void);
/* fork child: the parent's events and reader are not ours; start afresh
 * (the locks are re-initialised by the fork table first, forktab.h) */
void hmpt_sample_fork_child(void);
/* fork (forktab.h): the sample lock, and the gone-blocks lock */
void hmpt_sample_reset_lock(void);
void hmpt_sample_gone_lock(void);
void hmpt_sample_gone_unlock(void);
void hmpt_sample_gone_reset_lock(void);

/* For the profile, with the sample lock held (hmpt_sample_lock). */
void hmpt_sample_lock(void);
void hmpt_sample_unlock(void);
const hmpt_pmu_setup_t *hmpt_sample_setup_used(void);
const hmpt_sample_totals_t *hmpt_sample_totals(void);
const hmpt_sample_site_t *hmpt_sample_site(uint32_t site);
uint64_t hmpt_sample_type_used(void);
/* What the kernel refused of the sample fields and clock, and what was
 * done instead ("" when nothing). */
const char *hmpt_sample_fallbacks(void);
/* About how many threads' rings the kernel's mlock budget holds on this
 * node (perfev.h); UINT64_MAX when unlimited. */
uint64_t hmpt_sample_ring_room(void);
/* Why hardware sampling or any sampling is not running ("" if it is). */
const char *hmpt_sample_why(void);

/* The pthread_create trampoline's storage: a fixed pool, no malloc.  NULL
 * when all are in use (the thread then runs unsampled). */
typedef struct {
	void *(*fn)(void *);
	void *arg;
	int used;
} hmpt_sample_tramp_t;
hmpt_sample_tramp_t *hmpt_sample_tramp_get(void);
void hmpt_sample_tramp_put(hmpt_sample_tramp_t *t);

/* ------------------------------------------------------------------------
 * For the sampling sources' files only (sources.h): the core's tables and
 * helpers.  A source writes them only from its hooks, which the core calls
 * with the sample lock held (touch, release, stop) or before sampling runs
 * (map, go_live, fork_child). */

/* A site's counters, for writing (site < HMPT_SITES_MAX). */
hmpt_sample_site_t *hmpt_sample_acc(uint32_t site);
/* The totals, for writing. */
hmpt_sample_totals_t *hmpt_sample_counts(void);
/* The system page size. */
size_t hmpt_sample_page(void);
/* When this process forked (0: never): blocks born before hold the
 * parent's pages. */
uint64_t hmpt_sample_fork_ns(void);
/* The caps of the source in use (none before it starts). */
hmpt_sample_caps_t hmpt_sample_active_caps(void);
/* Look the page of addr up for its node at the end of the drain. */
void hmpt_sample_pend(uint32_t site, uintptr_t addr, uint64_t born);
/* The sample's place in its site's pattern (`faults`: an order of first
 * touches), and the instruction that issued it. */
void hmpt_sample_note_pattern(hmpt_sample_site_t *acc, const hmpt_ring_sample_t *s, bool faults,
                              uint64_t born, uintptr_t lo, uintptr_t hi, bool gone);
/* A sysctl's integer value, or dflt when it cannot be read. */
int64_t hmpt_sample_read_sysctl(const char *path, int64_t dflt);

#endif
