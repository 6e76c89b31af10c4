/* sources.c — see sources.h: one row per sampling source. */
#include "sources.h"

#define RING_PAGES_HW     16 /* 64 KiB of records per thread: PEBS/IBS at their periods */
#define RING_PAGES_FAULTS 64 /* 256 KiB: a thread first-touching a large array faults fast */

/* the page faults' hooks: the faults source's, and the timer's beside it */
#define FAULT_HOOKS                                                                                \
	.map = hmpt_source_faults_map, .go_live = hmpt_source_faults_go_live,                      \
	.fork_child = hmpt_source_faults_fork_child, .touch = hmpt_source_faults_touch,            \
	.release = hmpt_source_faults_release, .stop = hmpt_source_faults_stop

static const hmpt_sample_source_t rows[] = {
    {.kind = HMPT_SAMPLER_PEBS,
     .caps = {.access_density = true, .latency = true, .weight = true, .stores = true},
     .ring_pages = RING_PAGES_HW},
    {.kind = HMPT_SAMPLER_IBS,
     .caps = {.access_density = true, .latency = true, .weight = true, .stores = true},
     .ring_pages = RING_PAGES_HW},
    {.kind = HMPT_SAMPLER_FAULTS,
     .caps = {.first_touch = true},
     .ring_pages = RING_PAGES_FAULTS,
     .describe = hmpt_source_faults_describe,
     FAULT_HOOKS},
    /* the page faults beside it fill the ring fastest */
    {.kind = HMPT_SAMPLER_TIMER,
     .caps = {.access_density = true, .first_touch = true, .stores = true},
     .ring_pages = RING_PAGES_FAULTS,
     .locate = hmpt_source_timer_locate,
     .describe = hmpt_source_timer_describe,
     .write_totals = hmpt_source_timer_write_totals,
     .start = hmpt_source_timer_start,
     FAULT_HOOKS},
};

static const hmpt_sample_source_t none = {.kind = HMPT_SAMPLER_OFF};

const hmpt_sample_source_t *hmpt_sample_source(hmpt_sampler_t kind)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].kind == kind)
			return &rows[i];
	return &none;
}
