/* poolspec.c — see poolspec.h. */
#include "poolspec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "pool.h"

json_t *hmpt_poolspec_parse(const char *text)
{
	static const struct {
		const char *name, *json;
	} presets[] = {
	    {"hbm", "{\"nodes\":\"hbm\"}"},
	    {"ddr", "{\"nodes\":\"ddr\"}"},
	    {"thp", "{\"pages\":\"thp\"}"},
	    {"4k", "{\"pages\":\"4k\"}"},
	    {"hugetlb", "{\"pages\":\"hugetlb\"}"},
	    {"system", "{}"},
	    {"fastest-tier", "{\"tier\":\"fastest\"}"},
	    {"slowest-tier", "{\"tier\":\"slowest\"}"},
	};
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(text, presets[i].name))
			return json_loads(presets[i].json, 0, NULL);
	if (text[0] == '{') {
		json_t *j = json_loads(text, 0, NULL);
		if (json_is_object(j))
			return j;
		json_decref(j);
	}
	return NULL;
}

int hmpt_poolspec_split(const char *list, char **items, int max)
{
	int n = 0, depth = 0;
	const char *start = list;

	for (const char *p = list;; p++) {
		depth += *p == '{' ? 1 : *p == '}' ? -1 : 0;
		if (*p && (*p != ',' || depth > 0))
			continue;
		if (p == start || n == max) {
			while (n > 0)
				free(items[--n]);
			return -1;
		}
		items[n++] = strndup(start, (size_t)(p - start));
		if (!*p)
			return n;
		start = p + 1;
	}
}

json_t *hmpt_poolspec_plan(json_t *pools, const char *default_pool)
{
	json_t *plan = json_pack("{s:s,s:i,s:O,s:[]}", "format", HMPT_PLAN_FORMAT, "format_version",
	                         HMPT_PLAN_VERSION, "pools", pools, "groups");
	if (default_pool)
		json_object_set_new(plan, "default_pool", json_string(default_pool));
	return plan;
}

int hmpt_poolspec_topo(hmpt_topo_t *topo, const hmpt_plan_t *plan, char *err, size_t errlen)
{
	/* tests read a copy of another machine's sysfs (tests/unit/sysfs_fixture.h) */
	const char *root = getenv("HMPT_TEST_SYSFS_ROOT");
	int rc = hmpt_topo_read(topo, root ? root : "");
	if (rc) {
		snprintf(err, errlen, "cannot read the NUMA topology: %s", strerror(-rc));
		return -1;
	}
	hmpt_topo_hints_t h = {
	    .hbm_env = getenv("HMPT_HBM_NODES"),
	    .ddr_env = getenv("HMPT_DDR_NODES"),
	    .hbm_plan = plan && plan->has_hbm_nodes ? &plan->hbm_nodes : NULL,
	    .ddr_plan = plan && plan->has_ddr_nodes ? &plan->ddr_nodes : NULL,
	    /* memkind would answer for this machine, not for the copy */
	    .probe = root ? NULL : hmpt_backend_memkind_probe_hbw,
	};
	return hmpt_topo_classify(topo, &h, err, errlen) ? -1 : 0;
}
