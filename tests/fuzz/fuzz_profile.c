/* fuzz_profile.c — libFuzzer target for the profile loader (profiles.c):
 * any text either loads or yields a message naming the file; a loaded
 * profile answers the getters, and merges with itself and sorts without a
 * crash or a leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "profiles.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024];
	size_t i;
	json_t *m;

	json_t *p = hmpt_prof_parse((const char *)data, size, "p.json", err, sizeof(err));
	if (!p) {
		fuzz_check(strncmp(err, "p.json", 6) == 0, "the message does not name the file");
		return 0;
	}
	json_array_foreach(json_object_get(p, "modules"), i, m)
	    fuzz_check(hmpt_prof_module_path(p, hmpt_prof_str(m, "name")) != NULL,
	               "a module is not found by its name");
	(void)hmpt_prof_u64(json_object_get(p, "totals"), "tracked_bytes");

	/* as profrun.c merges the profiles of a job's processes */
	json_t *two[2] = {p, p};
	const char *files[2] = {"a.json", "b.json"};
	json_t *one = hmpt_prof_merge(two, files, 1, 0);
	json_t *both = hmpt_prof_merge(two, files, 2, -1);
	fuzz_check(one && both, "merge returned nothing");
	fuzz_check(json_array_size(json_object_get(both, "processes")) == 2,
	           "merged process count");
	hmpt_prof_sort_sites(p);
	json_decref(one);
	json_decref(both);
	json_decref(p);
	return 0;
}
