/* pmu_pfm.h — libpfm4 behind plain numbers (pmu_pfm.c).
 *
 * Contract: libpfm4's headers declare their own struct perf_event_attr, so
 * nothing here names a perf type.  libpfm4 allocates while it initialises:
 * callers hold the shim's re-entrancy guard.  0 or -1 with a message.
 */
#ifndef HMPT_PMU_PFM_H
#define HMPT_PMU_PFM_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint32_t type;
	uint64_t config, config1;
} hmpt_pfm_code_t;
int hmpt_pfm_encode(const char *event, hmpt_pfm_code_t *out, char *err, size_t errlen);
const char *hmpt_pfm_pmu(void); /* libpfm4's core PMU name ("spr", "skx"), or NULL */

#endif
