/* stale.h — a plan that no longer fits the program it runs in, said aloud.
 *
 * Why: plans live in job scripts for months; a rebuilt program or an
 * updated library moves every frame, and a plan whose sites match nothing
 * places nothing.  Two lines at the default log level say so:
 * - a module the plan's "modules" names, loaded with another GNU build id
 *   (or none): once per module per process, when the plan is read or when
 *   a site in a module loaded later is first decided (the job's log filter
 *   keeps one per node of an MPI job);
 * - at exit, the plan's sites that matched no allocation, by group: once
 *   for the process that read the plan, counting what its fork children
 *   matched (they share one map and say nothing themselves), and once per
 *   node of an MPI job whose ranks read the same plan (the last of them to
 *   leave says it for all).  Only sites whose modules were all loaded count
 *   (another program of the job names the others), and a process that
 *   decided no site at all (a wrapper) says nothing.
 *
 * Contract: no malloc, no stdio.  hmpt_stale_init() once, when the plan is
 * in force; check_module() and note_site() with the sites lock held;
 * at_exit() once per process at its end, before hmpt_job_leave().
 */
#ifndef HMPT_STALE_H
#define HMPT_STALE_H

#include <stdbool.h>
#include <stdint.h>

#include "fmt.h"
#include "plan.h"
#include "sites.h"

/* The plan in force: the map its sites' matches go to (shared with fork
 * children) and, in an MPI rank, with the job's other ranks on the node. */
void hmpt_stale_init(const hmpt_plan_t *plan);
/* A loaded module (sites lock held): said when the plan names it with
 * another build. */
void hmpt_stale_check_module(const hmpt_module_t *m);
/* A site was decided to plan site `plan_site` (-1: to none). */
void hmpt_stale_note_site(int plan_site);
/* At exit: the line about the sites that matched nothing, if this process
 * (or node) is the one to say it. */
void hmpt_stale_at_exit(void);
/* For the profile: true when the plan's module j was loaded with another
 * build, whose id is *id (*len bytes, 0: none). */
bool hmpt_stale_build(uint32_t j, const uint8_t **id, uint8_t *len);

/* Pure parts, for the tests. */
/* The exit line's text after the prefix, from per-site flags (relevant:
 * its modules were loaded); the number of relevant sites that matched
 * nothing (0: nothing to say, f untouched). */
uint32_t hmpt_stale_describe(hmpt_fmt_t *f, const hmpt_plan_t *plan, const uint8_t *matched,
                             const uint8_t *relevant);
/* The build-id line's text after the prefix for the plan's module j. */
void hmpt_stale_describe_build(hmpt_fmt_t *f, const hmpt_plan_t *plan, uint32_t j,
                               const uint8_t *id, uint8_t len);

#endif
