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
 *   decided no site at all (a wrapper) says nothing;
 * - a module the plan does not name with the build id of one it names that
 *   is not loaded (the program renamed: cp app app2): once per plan module,
 *   its sites can never match;
 * - at exit, when the process decided sites (made tracked allocations) but
 *   no plan site's modules were all loaded: the plan's modules that were
 *   not, "placed nothing" (a renamed program, or the plan of another one).
 *   Trade-off: a multi-program job whose driver (a script making big
 *   allocations) runs the real program under the same HMPT_PLAN gets this
 *   line from the driver too, since no process after exec knows another's
 *   modules (an MPI job's ranks on a node do: the line is the node's, and
 *   any rank that loaded the plan's modules keeps it quiet).  A silent plan
 *   that places nothing costs more than one line the driver's user can
 *   read as "not this process"; a helper below HMPT_MIN_SIZE, or a wrapper
 *   that only execs, decides no site and stays silent.  Set HMPT_PLAN for
 *   the real program only to silence it.
 *
 * Contract: no malloc, no stdio.  hmpt_stale_init() once, when the plan is
 * in force; check_module() and note_site() with the sites lock held;
 * at_exit() once per process at its end, before hmpt_job_leave(); it never
 * waits for the sites lock (the _exit interposer calls it, maybe from a
 * signal handler whose thread holds the lock): without it, the process
 * says nothing of its own at exit.
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
/* The exit line when no plan site's modules were all loaded: the plan's
 * identity-frame modules whose name hash is not among loaded[0..nloaded-1];
 * the number named (0: none, f untouched). */
uint32_t hmpt_stale_describe_unloaded(hmpt_fmt_t *f, const hmpt_plan_t *plan,
                                      const uint64_t *loaded, uint32_t nloaded);
/* The line for the plan's module j loaded here under another name, the
 * same build. */
void hmpt_stale_describe_renamed(hmpt_fmt_t *f, const hmpt_plan_t *plan, uint32_t j,
                                 const char *loaded_as);
/* The build-id line's text after the prefix for the plan's module j. */
void hmpt_stale_describe_build(hmpt_fmt_t *f, const hmpt_plan_t *plan, uint32_t j,
                               const uint8_t *id, uint8_t len);

#endif
