/* sample_core.h — what the attribution core (sample.c) offers the
 * sampling sources' files (sources.h), and nothing else includes.
 *
 * Contract: the accessors return the core's tables; a source writes them
 * only from its hooks, which the core calls with the sample lock held
 * (touch, release, stop) or before sampling runs (map, go_live,
 * fork_child). */
#ifndef HMPT_SAMPLE_CORE_H
#define HMPT_SAMPLE_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h"
#include "sample.h"
#include "sources.h"

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
