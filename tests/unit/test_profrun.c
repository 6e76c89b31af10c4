/* test_profrun.c — the environment of a run under the shim (profrun.c):
 * NAME=value replaces, a bare NAME removes, the rest is kept, and the shim
 * is preloaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "profrun.h"

int main(void)
{
	setenv("HMPT_PROFILE", "/tmp/p.json", 1);
	setenv("HMPT_SAMPLE", "faults", 1);
	setenv("HMPT_PROFILE_X", "kept", 1);
	char *set[] = {"HMPT_SAMPLE=off", "HMPT_PROFILE", NULL};
	size_t added;
	char **env = hmpt_child_env("/x/libhmpt.so", set, &added);
	int profile_vars = 0, sample_vars = 0, kept = 0, preload = 0;
	for (char **e = env; e && *e; e++) {
		profile_vars += !strncmp(*e, "HMPT_PROFILE=", 13) || !strcmp(*e, "HMPT_PROFILE");
		sample_vars += !strncmp(*e, "HMPT_SAMPLE=", 12);
		CHECK(strncmp(*e, "HMPT_SAMPLE=", 12) || !strcmp(*e, "HMPT_SAMPLE=off"));
		kept += !strcmp(*e, "HMPT_PROFILE_X=kept");
		preload += !strncmp(*e, "LD_PRELOAD=/x/libhmpt.so", 24);
	}
	CHECK(env && profile_vars == 0 && sample_vars == 1 && kept == 1 && preload == 1);
	hmpt_child_env_free(env, added);
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
