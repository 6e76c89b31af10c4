/* profiles.h — reading, merging and writing hmpt profiles in the tuner.
 *
 * Contract: profiles are held as jansson objects in the format of
 * docs/profile-format.md.  hmpt_prof_load() validates every field the tuner
 * uses and, on error, writes one message naming the file, the field and what
 * was expected into `err` and returns NULL.  Returned objects belong to the
 * caller (json_decref).  Nothing here prints but hmpt_prof_write.
 */
#ifndef HMPT_TUNER_PROFILE_H
#define HMPT_TUNER_PROFILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pattern.h"
#include "profile_format.h"
#include "siteid.h"

/* Version-1 profiles are read too: their site ids are recomputed as
 * version 2 defines them (siteid.h); a site of theirs whose stack was cut
 * at a depth that counted runtime frames gets "cut": true (plans match it
 * as a prefix).  The same for a version-2 site written before frames in no
 * module ("??", JIT code) were left out of ids, whose id hashed them: today's
 * id, and "cut" where the depth counted them.  Sites with one id (stacks
 * that differ in runtime or "??" frames only) are merged into one, as
 * hmpt_prof_merge merges processes. */
json_t *hmpt_prof_load(const char *path, char *err, size_t errlen);
/* Split a frame "module!0xoffset" as the shim's plan loader does: at the
 * last '!', a module of 1 to cap-1 characters, then 0x or 0X and 1 to 16 hex
 * digits.  0, or -EINVAL when the frame is not of that form (the one parser
 * of frames in the tuner: a malformed frame is an error, never a crash). */
int hmpt_prof_parse_frame(const char *frame, char *module, size_t cap, uint64_t *offset);
/* The first 64 frames "module!0xoffset" of a profile's or plan's site, parsed
 * for siteid.h: per frame its module-name hash (0 for "??"), offset and
 * class (owned, runtime library, no module); a frame not of that form counts
 * in *bad and as hash 0, offset 0, owned.  Returns how many. */
uint32_t hmpt_prof_frames(const json_t *frames, uint64_t hashes[64], uint64_t offsets[64],
                          hmpt_siteid_class_t cls[64], uint32_t *bad);
/* The identity frames (siteid.h) of those frames: their indices into idx;
 * how many. */
uint32_t hmpt_prof_identity(const json_t *frames, uint32_t idx[64]);
/* The site id (siteid.h) of frames "module!0xoffset", as 16 hex digits
 * into id[17]; -1 when a frame is not of that form. */
int hmpt_prof_site_id(const json_t *frames, char id[17]);
/* The same on the text of a profile in memory (`path` names it in messages);
 * for the fuzzer, which has no file. */
json_t *hmpt_prof_parse(const char *text, size_t len, const char *path, char *err, size_t errlen);
/* Merge profiles (at least one) into a new profile: sites by id, modules by
 * name; `process` is the one of `main_pid` when present, else the first's. */
json_t *hmpt_prof_merge(json_t *const *profiles, const char *const *files, size_t n, long main_pid);
/* Sort the sites of `prof` by bytes, largest first (in place). */
void hmpt_prof_sort_sites(json_t *prof);
/* Write JSON to path atomically, made safely (tools/outfile.h); 0, or -1
 * after saying why on stderr (the one function here that prints). */
int hmpt_prof_write(const json_t *prof, const char *path);

/* convenience getters on validated profiles */
uint64_t hmpt_prof_u64(const json_t *obj, const char *key);
/* A site's access pattern, classed from its samples' pattern counts (they
 * add up across processes, so the sum is classed again); unknown without. */
void hmpt_prof_site_pattern(const json_t *site, hmpt_pattern_class_t *c);
const char *hmpt_prof_str(const json_t *obj, const char *key);

/* What a profile's sampling source reported (shim/sources.h): its "caps",
 * or, in a profile older than them, what its "mode" implied. */
typedef struct {
	bool sampled; /* a source ran (mode not "off") */
	bool access_density, first_touch, latency, weight, stores, regions;
} hmpt_prof_caps_t;
hmpt_prof_caps_t hmpt_prof_sampling_caps(const json_t *sampling);
/* the module named `name` (its "modules" entry), or NULL */
const json_t *hmpt_prof_module(const json_t *prof, const char *name);
/* path of the module named `name`, or NULL */
const char *hmpt_prof_module_path(const json_t *prof, const char *name);

#endif
