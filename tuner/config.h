/* config.h — the configurations of a tuning: which sites are in the fast
 * pool, and the plan that puts them there.
 *
 * A configuration's key is the FNV-1a hash of the sorted ids of its fast
 * sites (and of its phase: the combinations are measured afresh), so that a
 * placement measured once is never run again, and the journal's runs find
 * their configuration after a restart.
 *
 * Contract: configurations are added to t->configs and stay there (indices
 * are stable); functions that fail print one message and return nonzero.
 */
#ifndef HMPT_TUNER_CONFIG_H
#define HMPT_TUNER_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "journal.h"
#include "tuning.h"

/* The index of the configuration with fast[site] in the fast pool in a
 * phase: found, or added with its runs from the journal j. */
int hmpt_config_get(hmpt_tune_t *t, const hmpt_journal_t *j, const unsigned char *fast,
                    const char *label, hmpt_phase_t phase);
/* The same with a split: group `group`'s fast sites with `ppm` parts per
 * million of each block in the fast pool (0: none, as hmpt_config_get). */
int hmpt_config_get_split(hmpt_tune_t *t, const hmpt_journal_t *j, const unsigned char *fast,
                          const char *label, hmpt_phase_t phase, int group, uint32_t ppm);
/* The plan of configuration c; `measurement` says what it is in its
 * provenance.  A reference the caller drops. */
json_t *hmpt_config_plan(hmpt_tune_t *t, const hmpt_tconfig_t *c, const char *measurement);
/* DIR/plans/KEY.json, c's plan, written when missing: 0, or nonzero after a
 * message. */
int hmpt_config_plan_path(hmpt_tune_t *t, const hmpt_tconfig_t *c, char *path, size_t len);

#endif
