/* fuzz_plan.c — libFuzzer target for the plan loader (and the JSON reader
 * under it): any input either loads or yields one message line naming the
 * file; a loaded plan is internally consistent and matching never reads out
 * of bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static hmpt_plan_t plan;
	char err[1024];
	uint64_t hs[64], offs[64];

	int rc = hmpt_plan_parse((const char *)data, size, "f.json", &plan, err, sizeof(err));
	if (rc) {
		fuzz_check(strncmp(err, "f.json", 6) == 0, "the message does not name the file");
		fuzz_check(!strchr(err, '\n'), "the message is not one line");
		return 0;
	}
	fuzz_check(plan.npools >= 1 && plan.npools <= HMPT_PLAN_MAX_POOLS, "pool count");
	fuzz_check(plan.default_pool >= HMPT_POOL_SYSTEM && plan.default_pool < plan.npools,
	           "default pool");
	for (int i = 0; i < plan.npools; i++) {
		int at = i, steps = 0;
		while (at != HMPT_POOL_SYSTEM && steps++ <= plan.npools) {
			fuzz_check(at >= 0 && at < plan.npools, "fallback index");
			at = plan.pools[at].fallback;
		}
		fuzz_check(at == HMPT_POOL_SYSTEM, "a fallback chain does not end in system");
	}
	uint32_t sites = 0;
	for (uint32_t g = 0; g < plan.ngroups; g++) {
		fuzz_check(plan.groups[g].first_site == sites, "group sites not contiguous");
		sites += plan.groups[g].nsites;
	}
	fuzz_check(sites == plan.nsites, "site count");
	for (uint32_t i = 0; i < plan.nsites; i++) {
		const hmpt_plan_site_t *s = &plan.sites[i];
		fuzz_check(s->nframes >= 1 && s->nframes <= 64, "frame count");
		fuzz_check(s->nid <= s->nframes, "identity frame count");
		/* none only where every frame is in no module ("??", JIT code),
		 * and then never as a prefix, which would match every stack */
		for (uint32_t k = 0; s->nid == 0 && k < s->nframes; k++)
			fuzz_check(strcmp(s->modules[k], "??") == 0, "no identity frame");
		fuzz_check(s->nid > 0 || (!s->prefix && !s->legacy_prefix), "an empty prefix");
		/* matching takes a stack's identity frames (siteid.h), as the shim
		 * passes them */
		memcpy(hs, s->id_hashes, s->nid * sizeof(uint64_t));
		memcpy(offs, s->id_offsets, s->nid * sizeof(uint64_t));
		int m = hmpt_plan_match(&plan, hs, offs, s->nid);
		fuzz_check(m >= 0, "a site does not match its own frames");
	}
	hmpt_plan_free(&plan);
	return 0;
}
