/* poolspec.h — pools named on a command line, as hmpt-tune --pools and
 * hmpt-bench --pools take them.
 *
 * A pool is a preset name (hbm, ddr, thp, 4k, hugetlb, system) or a pool
 * object in the plan format's JSON (docs/plan-format.md).  Lists are
 * comma-separated; commas inside a JSON object do not split.  Both tools
 * check their pools with the shim's own loader and resolution, so a pool
 * means here what it means in libhmpt.so.
 */
#ifndef HMPT_TOOLS_POOLSPEC_H
#define HMPT_TOOLS_POOLSPEC_H

#include <jansson.h>

#include "plan.h"
#include "topo.h"

#define HMPT_POOLSPEC_HELP                                                                         \
	"hbm, ddr, fastest-tier, slowest-tier, thp, 4k, hugetlb, system or a pool as a JSON "      \
	"object"

/* The pool a preset name or JSON object text stands for; NULL if neither. */
json_t *hmpt_poolspec_parse(const char *text);
/* Split a comma-separated list into at most `max` malloc'ed items (freed by
 * the caller); the number of items, or -1 when there are more than `max` or
 * one is empty. */
int hmpt_poolspec_split(const char *list, char **items, int max);
/* A plan with these pools (an object: name -> pool), no groups, and
 * `default_pool` (NULL: none). */
json_t *hmpt_poolspec_plan(json_t *pools, const char *default_pool);
/* This machine's topology, classified as libhmpt.so would (HMPT_HBM_NODES,
 * HMPT_DDR_NODES, the plan's own node lists when `plan` is given, memkind's
 * detection); 0, or -1 with `err` set. */
int hmpt_poolspec_topo(hmpt_topo_t *topo, const hmpt_plan_t *plan, char *err, size_t errlen);

#endif
