/* fuzz_poolspec.c — libFuzzer target for the --pools spec (poolspec.c):
 * the list is split, each item read as a preset or a JSON pool, and the
 * pools made into a plan that the shim's loader checks, as hmpt-tune and
 * hmpt-bench do. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "fuzz_check.h"
#include "poolspec.h"

#define MAX_ITEMS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static hmpt_plan_t plan;
	char *text = malloc(size + 1), *items[MAX_ITEMS], err[1024], name[16];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0'; /* a command-line argument ends at its first NUL */
	int n = hmpt_poolspec_split(text, items, MAX_ITEMS);
	fuzz_check(n == -1 || (n >= 1 && n <= MAX_ITEMS), "item count");
	json_t *pools = json_object();
	for (int i = 0; i < n; i++) {
		fuzz_check(items[i] && *items[i], "an empty item");
		json_t *pool = hmpt_poolspec_parse(items[i]);
		fuzz_check(!pool || json_is_object(pool), "a pool that is not an object");
		snprintf(name, sizeof(name), "p%d", i);
		if (pool)
			json_object_set_new(pools, name, pool);
		free(items[i]);
	}
	json_t *doc = hmpt_poolspec_plan(pools, json_object_size(pools) ? "p0" : NULL);
	char *plan_text = json_dumps(doc, 0);
	fuzz_check(plan_text != NULL, "the plan does not dump");
	if (hmpt_plan_parse(plan_text, strlen(plan_text), "--pools", &plan, err, sizeof(err)) == 0)
		hmpt_plan_free(&plan);
	free(plan_text);
	json_decref(doc);
	json_decref(pools);
	free(text);
	return 0;
}
