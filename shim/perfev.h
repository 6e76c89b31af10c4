/* perfev.h — one thread's perf events for a sampling setup, sharing one ring.
 *
 * Why a module of its own: what the kernel accepts of a group is decided in
 * kernel/events/core.c, not by the PMU, and it is where sampling degrades
 * silently.  Every event of a group must use the same clock (a counting
 * leader such as Sapphire Rapids' mem-loads-aux included: the kernel refuses
 * a member whose clock differs with EINVAL), and an older kernel refuses
 * sample fields it does not know with the same EINVAL.  Kept apart from the
 * sampler's state so that a unit test opens the real groups with software
 * events that carry the same fields as PEBS.
 *
 * Contract: no malloc, no stdio; the caller holds the shim's re-entrancy
 * guard.  Functions return 0 or -errno, with a message in `err`.
 */
#ifndef HMPT_PERFEV_H
#define HMPT_PERFEV_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu.h"

/* How the events are opened: the same for every thread of a process. */
typedef struct {
	uint64_t sample_type; /* the sampling events' fields */
	bool clock;           /* CLOCK_MONOTONIC timestamps, on every event of the group */
	size_t ring_pages;    /* data pages of the ring, a power of two */
	size_t page;          /* the system page size */
	char fallbacks[320];  /* what the kernel refused and what was done: "" if nothing */
} hmpt_perfev_opts_t;

/* One thread's open events. */
typedef struct {
	int nfd;
	int fd[HMPT_PMU_MAX_EVENTS];
	uint64_t id[HMPT_PMU_MAX_EVENTS]; /* PERF_EVENT_IOC_ID: a sample's event */
	int ring_fd;                      /* the sampling event the ring belongs to */
	struct perf_event_mmap_page *ring;
} hmpt_perfev_group_t;

/* The options a setup asks for, nothing refused yet. */
void hmpt_perfev_opts_init(hmpt_perfev_opts_t *o, const hmpt_pmu_setup_t *s, size_t ring_pages,
                           size_t page);
/* The data area's size in bytes. */
size_t hmpt_perfev_data_bytes(const hmpt_perfev_opts_t *o);

/* Open the setup's events for the calling thread, the leaders before their
 * members, the sampling ones writing into one ring. */
int hmpt_perfev_open(const hmpt_pmu_setup_t *s, const hmpt_perfev_opts_t *o, hmpt_perfev_group_t *g,
                     char *err, size_t cap);
/* The first open of a process: where the kernel refuses with EINVAL, drop
 * one field at a time (the weight struct, Linux 5.12; the data page size,
 * 5.11; the clock, 4.1), record each step in o->fallbacks, and try again.
 * The options that worked serve every later thread. */
int hmpt_perfev_open_first(const hmpt_pmu_setup_t *s, hmpt_perfev_opts_t *o, hmpt_perfev_group_t *g,
                           char *err, size_t cap);
/* Stop the events counting (the ring stays readable). */
void hmpt_perfev_disable(const hmpt_perfev_group_t *g);
/* Unmap the ring and close the events. */
void hmpt_perfev_close(hmpt_perfev_group_t *g, const hmpt_perfev_opts_t *o);
/* In a fork child: close the inherited descriptors only.  The parent's ring
 * is not mapped here (the kernel does not copy perf mappings into a child)
 * and its address may hold something else by now. */
void hmpt_perfev_forget(hmpt_perfev_group_t *g);

/* The kernel's budget for ring buffers (kernel/events/core.c perf_mmap):
 * each user may lock perf_event_mlock_kb per online CPU, shared by all of
 * that user's processes; past it, a process may pin up to RLIMIT_MEMLOCK of
 * its own; CAP_IPC_LOCK or perf_event_paranoid -1 lifts both.  Each sampled
 * thread maps one ring (its sampling events share it). */
typedef struct {
	uint64_t mlock_kb;   /* kernel.perf_event_mlock_kb */
	uint64_t cpus;       /* online CPUs */
	uint64_t rlimit;     /* RLIMIT_MEMLOCK, bytes (UINT64_MAX: none) */
	bool unlimited;      /* CAP_IPC_LOCK, or perf_event_paranoid -1 */
	uint64_t ring_bytes; /* one thread's mapping: the data pages and one */
	uint64_t processes;  /* this user's sampled processes on the node (the job's ranks) */
	uint64_t page;       /* the kernel counts in pages */
} hmpt_perfev_budget_t;

/* About how many threads' rings the budget holds on the node, for all
 * `processes` together; UINT64_MAX when unlimited. */
uint64_t hmpt_perfev_budget_threads(const hmpt_perfev_budget_t *b);

#endif
