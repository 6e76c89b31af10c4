/* profiles.c — see profiles.h. */
#include "profiles.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "siteid.h"
#include "outfile.h"

static int fail(char *err, size_t errlen, const char *path, const char *field, const char *what)
{
	snprintf(err, errlen, "%s: %s: %s", path, field, what);
	return -1;
}

static int need(json_t *obj, const char *key, int type, const char *path, const char *ctx,
                char *err, size_t errlen)
{
	static const char *const names[] = {
	    [JSON_OBJECT] = "an object",   [JSON_ARRAY] = "an array", [JSON_STRING] = "a string",
	    [JSON_INTEGER] = "an integer", [JSON_REAL] = "a number",  [JSON_TRUE] = "a boolean",
	};
	json_t *v = json_object_get(obj, key);
	char field[256], what[64];
	int ok;

	if (type == JSON_REAL)
		ok = v && json_is_number(v);
	else if (type == JSON_INTEGER)
		ok = v && json_is_integer(v) && json_integer_value(v) >= 0;
	else
		ok = v && json_typeof(v) == (json_type)type;
	if (ok)
		return 0;
	snprintf(field, sizeof(field), "%s%s%s", ctx, *ctx ? "." : "", key);
	snprintf(what, sizeof(what), "expected %s%s", names[type],
	         type == JSON_INTEGER ? " >= 0" : "");
	return fail(err, errlen, path, field, v ? what : "missing");
}

/* The document jansson read (or failed to read) from `path`, validated. */
/* A version-1 site as deep as its profile's stack_depth, with runtime
 * frames: the shim counted them in the depth then, so its stack was cut
 * short, and today's deeper capture never has its id. */
static bool cut_v1(const json_t *frames, json_int_t depth)
{
	uint64_t hashes[64], offs[64];
	hmpt_siteid_class_t cls[64];
	uint32_t bad, n;

	if (depth <= 0 || json_array_size(frames) != (size_t)depth)
		return false;
	n = hmpt_prof_frames(frames, hashes, offs, cls, &bad);
	for (uint32_t i = 0; i < n; i++)
		if (cls[i] == HMPT_SITEID_FRAME_RUNTIME)
			return true;
	return false;
}

/* A version-2 site written before frames in no module (JIT code) were left
 * out of ids (siteid.h): its id hashed them.  Gives it today's id, and
 * tells whether its stack was cut at a depth that counted them. */
static bool old_anon_id(json_t *site, json_int_t depth, bool *cut)
{
	const json_t *frames = json_object_get(site, "frames");
	uint64_t hashes[64], offs[64];
	hmpt_siteid_class_t cls[64];
	uint32_t idx[64], bad, n = hmpt_prof_frames(frames, hashes, offs, cls, &bad), k, kold;
	char old[17], id[17];

	if (bad || json_array_size(frames) > 64)
		return false;
	kold = hmpt_siteid_frames(cls, n, HMPT_SITEID_OWNED_ANON, idx);
	snprintf(old, sizeof(old), "%016llx",
	         (unsigned long long)hmpt_siteid_hash(hashes, offs, idx, kold));
	k = hmpt_siteid_frames(cls, n, HMPT_SITEID_OWNED, idx);
	snprintf(id, sizeof(id), "%016llx",
	         (unsigned long long)hmpt_siteid_hash(hashes, offs, idx, k));
	if (strcmp(old, id) == 0 || strcmp(old, hmpt_prof_str(site, "id")) != 0)
		return false;
	json_object_set_new(site, "id", json_string(id));
	*cut = k > 0 && depth > 0 && kold == (uint32_t)depth;
	return true;
}

static json_t *check(json_t *p, const json_error_t *je, const char *path, char *err, size_t errlen)
{
	json_t *v;
	char ctx[64];
	size_t i, k;

	if (!p) {
		if (je->line <= 0)
			snprintf(err, errlen, "%s: %s", path, je->text);
		else
			snprintf(err, errlen, "%s:%d: %s", path, je->line, je->text);
		return NULL;
	}
	if (!json_is_object(p)) {
		fail(err, errlen, path, "(top level)", "expected an object");
		goto bad;
	}
	v = json_object_get(p, "format");
	if (!json_is_string(v) || strcmp(json_string_value(v), HMPT_PROFILE_FORMAT) != 0) {
		fail(err, errlen, path, "format", "expected \"" HMPT_PROFILE_FORMAT "\"");
		goto bad;
	}
	v = json_object_get(p, "format_version");
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > HMPT_PROFILE_VERSION) {
		fail(err, errlen, path, "format_version",
		     "expected 2 or 1 (this hmpt-tune reads profiles of versions 1 and 2)");
		goto bad;
	}
	bool v1 = json_integer_value(v) == 1;
	if (need(p, "process", JSON_OBJECT, path, "", err, errlen) ||
	    need(p, "totals", JSON_OBJECT, path, "", err, errlen) ||
	    need(p, "modules", JSON_ARRAY, path, "", err, errlen) ||
	    need(p, "sites", JSON_ARRAY, path, "", err, errlen))
		goto bad;
	json_t *proc = json_object_get(p, "process"), *tot = json_object_get(p, "totals");
	if (need(proc, "pid", JSON_INTEGER, path, "process", err, errlen))
		goto bad;
	static const char *const totals[] = {"tracked_allocations", "tracked_bytes",
	                                     "peak_tracked_bytes",  "live_tracked_bytes",
	                                     "peak_rss_bytes",      "untracked_large"};
	for (i = 0; i < sizeof(totals) / sizeof(totals[0]); i++)
		if (need(tot, totals[i], JSON_INTEGER, path, "totals", err, errlen))
			goto bad;
	json_array_foreach(json_object_get(p, "modules"), i, v)
	{
		snprintf(ctx, sizeof(ctx), "modules[%zu]", i);
		if (!json_is_object(v)) {
			fail(err, errlen, path, ctx, "expected an object");
			goto bad;
		}
		if (need(v, "name", JSON_STRING, path, ctx, err, errlen) ||
		    need(v, "path", JSON_STRING, path, ctx, err, errlen))
			goto bad;
	}
	const json_t *sd = json_object_get(json_object_get(p, "settings"), "stack_depth");
	json_int_t depth = json_is_integer(sd) ? json_integer_value(sd) : 0;
	json_array_foreach(json_object_get(p, "sites"), i, v)
	{
		static const char *const ints[] = {"allocations", "bytes", "max_size",
		                                   "peak_live_bytes", "live_bytes"};
		json_t *fr;
		snprintf(ctx, sizeof(ctx), "sites[%zu]", i);
		if (!json_is_object(v)) {
			fail(err, errlen, path, ctx, "expected an object");
			goto bad;
		}
		if (need(v, "id", JSON_STRING, path, ctx, err, errlen) ||
		    need(v, "frames", JSON_ARRAY, path, ctx, err, errlen) ||
		    need(v, "first_s", JSON_REAL, path, ctx, err, errlen) ||
		    need(v, "last_s", JSON_REAL, path, ctx, err, errlen))
			goto bad;
		for (k = 0; k < sizeof(ints) / sizeof(ints[0]); k++)
			if (need(v, ints[k], JSON_INTEGER, path, ctx, err, errlen))
				goto bad;
		json_array_foreach(json_object_get(v, "frames"), k, fr)
		{
			char module[256];
			uint64_t off;
			if (hmpt_prof_parse_frame(json_string_value(fr), module, sizeof(module),
			                          &off) != 0) {
				char f[96];
				snprintf(f, sizeof(f), "%s.frames[%zu]", ctx, k);
				fail(err, errlen, path, f, "expected a string \"module!0xoffset\"");
				goto bad;
			}
		}
		char id[17];
		if (v1 && hmpt_prof_site_id(json_object_get(v, "frames"), id) == 0)
			json_object_set_new(v, "id", json_string(id));
		if (v1 && cut_v1(json_object_get(v, "frames"), depth))
			json_object_set_new(v, "cut", json_true());
		bool cut;
		if (!v1 && old_anon_id(v, depth, &cut) && cut)
			json_object_set_new(v, "cut", json_true());
	}
	if (v1)
		json_object_set_new(p, "format_version", json_integer(HMPT_PROFILE_VERSION));
	/* stacks that differ only in runtime frames (a qsort comparator that
	 * allocates) are sites of their own in the shim with one id: one site
	 * per id for every reader, their counts summed as across processes */
	json_t *ids = json_object();
	bool dup = false;
	json_array_foreach(json_object_get(p, "sites"), i, v)
	{
		const char *id = hmpt_prof_str(v, "id");
		dup = dup || json_object_get(ids, id);
		json_object_set_new(ids, id, json_true());
	}
	json_decref(ids);
	if (dup) {
		bool had = json_object_get(p, "processes") != NULL;
		json_t *m = hmpt_prof_merge(&p, NULL, 1, -1);
		if (!had)
			json_object_del(m, "processes");
		json_decref(p);
		p = m;
	}
	return p;
bad:
	json_decref(p);
	return NULL;
}

int hmpt_prof_parse_frame(const char *frame, char *module, size_t cap, uint64_t *offset)
{
	const char *bang = frame ? strrchr(frame, '!') : NULL;
	uint64_t o = 0;

	if (!bang || bang == frame || (size_t)(bang - frame) >= cap || bang[1] != '0' ||
	    (bang[2] != 'x' && bang[2] != 'X') || !bang[3])
		return -EINVAL;
	for (const char *h = bang + 3; *h; h++) {
		int d = *h >= '0' && *h <= '9'   ? *h - '0'
		        : *h >= 'a' && *h <= 'f' ? *h - 'a' + 10
		        : *h >= 'A' && *h <= 'F' ? *h - 'A' + 10
		                                 : -1;
		if (d < 0 || o >> 60)
			return -EINVAL;
		o = o << 4 | (unsigned)d;
	}
	memcpy(module, frame, (size_t)(bang - frame));
	module[bang - frame] = '\0';
	*offset = o;
	return 0;
}

uint32_t hmpt_prof_frames(const json_t *frames, uint64_t hashes[64], uint64_t offsets[64],
                          hmpt_siteid_class_t cls[64], uint32_t *bad)
{
	uint32_t n = 0;
	const json_t *f;
	size_t i;

	*bad = 0;
	json_array_foreach(frames, i, f)
	{
		char module[256];
		if (n == 64)
			break;
		if (hmpt_prof_parse_frame(json_string_value(f), module, sizeof(module),
		                          &offsets[n]) != 0) {
			(*bad)++;
			hashes[n] = offsets[n] = 0;
			cls[n++] = HMPT_SITEID_FRAME_OWNED;
			continue;
		}
		/* profiles write "??" for a frame in no known module, hashed as 0
		 * where an old rule hashes it */
		cls[n] = hmpt_siteid_class(module);
		hashes[n] =
		    cls[n] == HMPT_SITEID_FRAME_ANON ? 0 : hmpt_hash_module(module, strlen(module));
		n++;
	}
	return n;
}

uint32_t hmpt_prof_identity(const json_t *frames, uint32_t idx[64])
{
	uint64_t hashes[64], offs[64];
	hmpt_siteid_class_t cls[64];
	uint32_t bad, n = hmpt_prof_frames(frames, hashes, offs, cls, &bad);

	return hmpt_siteid_frames(cls, n, HMPT_SITEID_OWNED, idx);
}

int hmpt_prof_site_id(const json_t *frames, char id[17])
{
	uint64_t hashes[64], offs[64];
	hmpt_siteid_class_t cls[64];
	uint32_t idx[64], bad, n = hmpt_prof_frames(frames, hashes, offs, cls, &bad);

	if (bad || json_array_size(frames) > 64)
		return -1;
	uint32_t k = hmpt_siteid_frames(cls, n, HMPT_SITEID_OWNED, idx);
	snprintf(id, 17, "%016llx", (unsigned long long)hmpt_siteid_hash(hashes, offs, idx, k));
	return 0;
}

json_t *hmpt_prof_load(const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *p = json_load_file(path, 0, &je);

	return check(p, &je, path, err, errlen);
}

json_t *hmpt_prof_parse(const char *text, size_t len, const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *p = json_loadb(text, len, 0, &je);

	return check(p, &je, path, err, errlen);
}

uint64_t hmpt_prof_u64(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

const char *hmpt_prof_str(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

const json_t *hmpt_prof_module(const json_t *prof, const char *name)
{
	size_t i;
	json_t *m;

	json_array_foreach(json_object_get(prof, "modules"), i, m)
	{
		const char *n = hmpt_prof_str(m, "name");
		if (n && strcmp(n, name) == 0)
			return m;
	}
	return NULL;
}

const char *hmpt_prof_module_path(const json_t *prof, const char *name)
{
	return hmpt_prof_str(hmpt_prof_module(prof, name), "path");
}

static void add_u64(json_t *dst, const json_t *src, const char *key)
{
	json_object_set_new(
	    dst, key,
	    json_integer((json_int_t)(hmpt_prof_u64(dst, key) + hmpt_prof_u64(src, key))));
}

static void max_u64(json_t *dst, const json_t *src, const char *key)
{
	uint64_t a = hmpt_prof_u64(dst, key), b = hmpt_prof_u64(src, key);
	json_object_set_new(dst, key, json_integer((json_int_t)(a > b ? a : b)));
}

/* Sum per-pool figures of `src` into `dst` (arrays of objects keyed by
 * `key`), adding the entries dst lacks. */
static void merge_by_name(json_t *dst, const json_t *src, const char *key, const char *const *sums,
                          const char *const *maxes)
{
	size_t i, k;
	json_t *s, *d;

	json_array_foreach(src, i, s)
	{
		const char *name = hmpt_prof_str(s, key);
		json_t *hit = NULL;
		json_array_foreach(dst, k, d) if (name && hmpt_prof_str(d, key) &&
		                                  !strcmp(name, hmpt_prof_str(d, key))) hit = d;
		if (!hit) {
			json_array_append_new(dst, json_deep_copy(s));
			continue;
		}
		for (k = 0; sums[k]; k++)
			if (json_object_get(s, sums[k]))
				add_u64(hit, s, sums[k]);
		for (k = 0; maxes && maxes[k]; k++)
			if (json_object_get(s, maxes[k]))
				max_u64(hit, s, maxes[k]);
	}
}

static const char *const pool_sums_g[] = {"allocations", "bytes", "refused", "refused_bytes", NULL};
static const char *const pool_maxes_g[] = {"peak_bytes", NULL};
static const char *const group_sums_g[] = {"allocations", "bytes", NULL};

/* Whether string v is in array a. */
static bool array_has(const json_t *a, const char *v)
{
	size_t i;
	json_t *x;

	json_array_foreach(a, i, x) if (json_string_value(x) &&
	                                !strcmp(json_string_value(x), v)) return true;
	return false;
}

/* The plan's groups and build mismatches of two processes: counts added; a
 * site is unmatched only where no process matched it. */
static void merge_plan_matches(json_t *dst, const json_t *src)
{
	json_t *dg = json_object_get(dst, "groups"), *g;
	const json_t *sg = json_object_get(src, "groups");
	size_t i, k;

	if (json_is_array(sg) && !json_is_array(dg))
		json_object_set_new(dst, "groups", json_deep_copy(sg));
	else if (json_is_array(sg)) {
		/* the unmatched of both, before the sums add the groups up */
		json_array_foreach(dg, i, g)
		{
			const char *name = hmpt_prof_str(g, "name");
			json_t *mine = json_object_get(g, "unmatched_sites"), *theirs = NULL, *s;
			json_array_foreach(sg, k, s) if (name && hmpt_prof_str(s, "name") &&
			                                 !strcmp(name, hmpt_prof_str(s, "name")))
			    theirs = json_object_get(s, "unmatched_sites");
			if (!json_is_array(mine) || !json_is_array(theirs))
				continue;
			json_t *both = json_array(), *x;
			json_array_foreach(mine, k, x) if (array_has(theirs, json_string_value(x)))
			    json_array_append(both, x);
			json_int_t sites = json_integer_value(json_object_get(g, "sites"));
			json_object_set_new(
			    g, "sites_matched",
			    json_integer(sites - (json_int_t)json_array_size(both)));
			json_object_set_new(g, "unmatched_sites", both);
		}
		merge_by_name(dg, sg, "name", group_sums_g, NULL);
	}
	json_t *db = json_object_get(dst, "build_mismatches");
	const json_t *sb = json_object_get(src, "build_mismatches");
	if (json_is_array(sb) && !json_is_array(db))
		json_object_set_new(dst, "build_mismatches", json_deep_copy(sb));
	else if (json_is_array(sb))
		merge_by_name(db, sb, "module", (const char *const[]){NULL}, NULL);
}

/* Add every integer of src into dst, recursing into objects and adding
 * arrays of integers element by element; keys in `skip` keep dst's value. */
static void sum_ints(json_t *dst, const json_t *src, const char *const *skip)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)src, key, v)
	{
		bool skipped = false;
		for (int i = 0; skip && skip[i]; i++)
			skipped |= !strcmp(key, skip[i]);
		json_t *d = json_object_get(dst, key);
		if (skipped)
			continue;
		if (json_is_integer(v) && (!d || json_is_integer(d))) {
			add_u64(dst, src, key);
		} else if (json_is_object(v)) {
			if (!d)
				json_object_set_new(dst, key, json_deep_copy(v));
			else if (json_is_object(d))
				sum_ints(d, v, NULL);
		} else if (json_is_array(v) && json_is_array(d) &&
		           json_array_size(v) == json_array_size(d) &&
		           json_is_integer(json_array_get(v, 0))) {
			for (size_t i = 0; i < json_array_size(v); i++)
				json_array_set_new(
				    d, i,
				    json_integer(json_integer_value(json_array_get(d, i)) +
				                 json_integer_value(json_array_get(v, i))));
		}
	}
}

static int by_n_desc(const void *a, const void *b)
{
	uint64_t x = hmpt_prof_u64(*(json_t *const *)a, "n");
	uint64_t y = hmpt_prof_u64(*(json_t *const *)b, "n");
	return (x < y) - (x > y);
}

/* Two processes' top-k lists (a pattern's steps by value, the sampled
 * instructions): the counts of one `key` added, the k largest kept, as the
 * shim keeps them (pattern.h). */
static void merge_top(json_t *dst, const json_t *src, const char *key)
{
	json_t *all[2 * HMPT_PATTERN_CANDS + 8], *e, *f;
	size_t i, j, n = 0;

	if (!json_is_array(dst) || !json_is_array(src))
		return;
	json_array_foreach(dst, i, e) if (n < sizeof(all) / sizeof(all[0])) all[n++] =
	    json_incref(e);
	json_array_foreach(src, i, e)
	{
		bool found = false;
		for (j = 0; j < n && !found; j++) {
			f = all[j];
			if (json_equal(json_object_get(f, key), json_object_get(e, key))) {
				json_object_set_new(
				    f, "n",
				    json_integer((json_int_t)(hmpt_prof_u64(f, "n") +
				                              hmpt_prof_u64(e, "n"))));
				found = true;
			}
		}
		if (!found && n < sizeof(all) / sizeof(all[0]))
			all[n++] = json_deep_copy(e);
	}
	qsort(all, n, sizeof(all[0]), by_n_desc);
	json_array_clear(dst);
	for (i = 0; i < n; i++) {
		if (i < HMPT_PATTERN_CANDS)
			json_array_append(dst, all[i]);
		json_decref(all[i]);
	}
}

/* a site's samples over processes: counts add up, the mean latency is
 * weighted by the loads each process measured */
static void merge_samples(json_t *dst, const json_t *src)
{
	const json_t *ss = json_object_get(src, "samples");
	json_t *ds = json_object_get(dst, "samples");

	if (!ss)
		return;
	if (!ds) {
		json_object_set_new(dst, "samples", json_deep_copy(ss));
		return;
	}
	uint64_t n1 = hmpt_prof_u64(ds, "latency_n"), n2 = hmpt_prof_u64(ss, "latency_n");
	double m1 = json_number_value(json_object_get(ds, "latency_mean"));
	double m2 = json_number_value(json_object_get(ss, "latency_mean"));
	static const char *const skip[] = {"threads", NULL};
	merge_top(json_object_get(json_object_get(ds, "pattern"), "steps_by_value"),
	          json_object_get(json_object_get(ss, "pattern"), "steps_by_value"), "step");
	merge_top(json_object_get(ds, "ips"), json_object_get(ss, "ips"), "at");
	sum_ints(ds, ss, skip);
	if (n1 + n2)
		json_object_set_new(
		    ds, "latency_mean",
		    json_real((m1 * (double)n1 + m2 * (double)n2) / (double)(n1 + n2)));
}

void hmpt_prof_site_pattern(const json_t *site, hmpt_pattern_class_t *c)
{
	const json_t *pj = json_object_get(json_object_get(site, "samples"), "pattern"), *e;
	hmpt_pattern_t p = {0};
	size_t i;

	if (!pj) {
		*c = (hmpt_pattern_class_t){.kind = HMPT_PATTERN_UNKNOWN};
		return;
	}
	const char *order = hmpt_prof_str(pj, "order");
	p.faults = order && !strcmp(order, "first touch");
	p.steps = hmpt_prof_u64(pj, "steps");
	p.forward = hmpt_prof_u64(pj, "forward");
	p.backward = hmpt_prof_u64(pj, "backward");
	p.adjacent = hmpt_prof_u64(pj, "adjacent");
	p.checked = hmpt_prof_u64(pj, "checked");
	p.pointers = hmpt_prof_u64(pj, "pointers");
	json_array_foreach(json_object_get(pj, "steps_by_value"), i, e)
	{
		json_t *v = json_object_get(e, "step");
		if (json_is_integer(v))
			hmpt_pattern_top_add(&p.cand, json_integer_value(v), hmpt_prof_u64(e, "n"));
	}
	hmpt_pattern_classify(&p, c);
}

hmpt_prof_caps_t hmpt_prof_sampling_caps(const json_t *sm)
{
	hmpt_prof_caps_t c = {0};
	const char *mode = hmpt_prof_str(sm, "mode");
	const json_t *cj = json_object_get(sm, "caps");

	if (!json_is_object(sm) || !mode || !strcmp(mode, "off"))
		return c;
	c.sampled = true;
	if (json_is_object(cj)) {
		c.access_density = json_is_true(json_object_get(cj, "access_density"));
		c.first_touch = json_is_true(json_object_get(cj, "first_touch"));
		c.latency = json_is_true(json_object_get(cj, "latency"));
		c.weight = json_is_true(json_object_get(cj, "weight"));
		c.stores = json_is_true(json_object_get(cj, "stores"));
		c.regions = json_is_true(json_object_get(cj, "regions"));
	} else if (!strcmp(mode, "faults")) { /* profiles before the caps */
		c.first_touch = true;
	} else {
		c.access_density = c.latency = c.weight = c.stores = true;
	}
	return c;
}

/* shares and densities again, from the merged counts */
static void reshare(json_t *out)
{
	json_t *sm = json_object_get(out, "sampling");
	uint64_t whole = hmpt_prof_u64(sm, "share_of");
	/* shares of bytes first touched where no accesses were sampled */
	bool faults = !hmpt_prof_sampling_caps(sm).access_density;
	size_t i;
	json_t *s;

	json_array_foreach(json_object_get(out, "sites"), i, s)
	{
		json_t *ss = json_object_get(s, "samples");
		if (!ss)
			continue;
		uint64_t part = hmpt_prof_u64(ss, faults ? "first_touch_bytes" : "n");
		json_object_set_new(ss, "share",
		                    json_real(whole ? (double)part / (double)whole : 0));
		json_t *pj = json_object_get(ss, "pattern");
		if (pj) { /* counts added up: the class of the sum */
			hmpt_pattern_class_t c;
			hmpt_prof_site_pattern(s, &c);
			json_object_set_new(pj, "kind", json_string(hmpt_pattern_name(c.kind)));
			json_object_set_new(pj, "stride", json_integer((json_int_t)c.stride));
			json_object_set_new(pj, "confidence", json_real(c.confidence));
		}
		uint64_t size = hmpt_prof_u64(s, "peak_live_bytes");
		if (!faults && size)
			json_object_set_new(
			    ss, "per_mib",
			    json_real((double)hmpt_prof_u64(ss, "n") / ((double)size / 1048576.0)));
	}
}

static void merge_site(json_t *dst, const json_t *src)
{
	double f1 = json_number_value(json_object_get(dst, "first_s"));
	double f2 = json_number_value(json_object_get(src, "first_s"));
	double l1 = json_number_value(json_object_get(dst, "last_s"));
	double l2 = json_number_value(json_object_get(src, "last_s"));

	add_u64(dst, src, "allocations");
	add_u64(dst, src, "bytes");
	max_u64(dst, src, "max_size");
	add_u64(dst, src, "peak_live_bytes"); /* an upper bound across processes */
	add_u64(dst, src, "live_bytes");
	json_object_set_new(dst, "first_s", json_real(f1 < f2 ? f1 : f2));
	/* the order of the process that allocated first */
	const json_t *seq = json_object_get(src, "seq");
	if (f2 < f1 && seq)
		json_object_set(dst, "seq", (json_t *)seq);
	else if (f2 < f1)
		json_object_del(dst, "seq");
	json_object_set_new(dst, "last_s", json_real(l1 > l2 ? l1 : l2));
	const json_t *sp = json_object_get(src, "placement");
	json_t *dp = json_object_get(dst, "placement");
	if (sp && !dp)
		json_object_set_new(dst, "placement", json_deep_copy(sp));
	else if (sp && dp)
		merge_by_name(json_object_get(dp, "pools"), json_object_get(sp, "pools"), "pool",
		              pool_sums_g, NULL);
	merge_samples(dst, src);
	if (json_is_true(json_object_get(src, "cut"))) /* either was cut short */
		json_object_set_new(dst, "cut", json_true());
}

json_t *hmpt_prof_merge(json_t *const *profiles, const char *const *files, size_t n, long main_pid)
{
	json_t *out = json_deep_copy(profiles[0]);
	json_t *by_id = json_object(), *mods = json_object(), *procs = json_array();
	json_t *sites = json_array(), *totals = json_object();
	size_t i, k, main_i = 0;
	json_t *v;

	/* the main process: the one started, or an MPI job's rank 0 */
	for (i = 0; i < n; i++)
		if ((long)hmpt_prof_u64(json_object_get(profiles[i], "process"), "pid") == main_pid)
			main_i = i;
	for (i = 0; i < n; i++) {
		const json_t *mpi = json_object_get(json_object_get(profiles[i], "process"), "mpi");
		if (mpi && json_integer_value(json_object_get(mpi, "rank")) == 0)
			main_i = i;
	}
	json_object_set(out, "process", json_object_get(profiles[main_i], "process"));
	for (i = 0; i < n; i++) {
		const json_t *p = profiles[i], *proc = json_object_get(p, "process");
		const json_t *t = json_object_get(p, "totals");
		json_t *entry =
		    json_pack("{s:I,s:s,s:s}", "pid", (json_int_t)hmpt_prof_u64(proc, "pid"), "exe",
		              hmpt_prof_str(proc, "exe") ?: "", "file", files ? files[i] : "");
		const json_t *mpi = json_object_get(proc, "mpi");
		if (mpi)
			json_object_set(entry, "mpi", (json_t *)mpi);
		json_array_append_new(procs, entry);
		static const char *const sums[] = {"tracked_allocations", "tracked_bytes",
		                                   "peak_tracked_bytes", "live_tracked_bytes",
		                                   "untracked_large"};
		for (k = 0; k < sizeof(sums) / sizeof(sums[0]); k++)
			add_u64(totals, t, sums[k]);
		max_u64(totals, t, "peak_rss_bytes");
		const json_t *plan = json_object_get(p, "plan");
		if (plan && i == 0)
			json_object_set_new(out, "plan", json_deep_copy(plan));
		else if (plan && json_object_get(out, "plan")) {
			merge_by_name(json_object_get(json_object_get(out, "plan"), "pools"),
			              json_object_get(plan, "pools"), "name", pool_sums_g,
			              pool_maxes_g);
			merge_plan_matches(json_object_get(out, "plan"), plan);
		} else if (plan)
			json_object_set_new(out, "plan", json_deep_copy(plan));
		/* sampling: the first process's setup, every process's counts */
		const json_t *sm = json_object_get(p, "sampling");
		json_t *om = json_object_get(out, "sampling");
		static const char *const setup_keys[] = {"period",
		                                         "ldlat",
		                                         "events",
		                                         "mthp_size",
		                                         "observe_first",
		                                         "observe_every",
		                                         "ring_room_threads",
		                                         NULL};
		if (json_is_object(sm) && i > 0 && json_is_object(om))
			sum_ints(om, sm, setup_keys);
		else if (json_is_object(sm) && !json_is_object(om))
			json_object_set_new(out, "sampling", json_deep_copy(sm));
		json_array_foreach(json_object_get(p, "modules"), k,
		                   v) if (!json_object_get(mods, hmpt_prof_str(v, "name")))
		    json_object_set(mods, hmpt_prof_str(v, "name"), v);
		json_array_foreach(json_object_get(p, "sites"), k, v)
		{
			const char *id = hmpt_prof_str(v, "id");
			json_t *have = json_object_get(by_id, id);
			if (have) {
				merge_site(have, v);
			} else {
				json_t *c = json_deep_copy(v);
				json_object_set(by_id, id, c);
				json_array_append_new(sites, c);
			}
		}
	}
	json_t *modarr = json_array();
	const char *key;
	json_object_foreach(mods, key, v) json_array_append(modarr, v);
	json_object_set_new(out, "modules", modarr);
	json_object_set_new(out, "totals", totals);
	json_object_set_new(out, "sites", sites);
	json_object_set_new(out, "processes", procs);
	json_decref(by_id);
	json_decref(mods);
	if (n > 1)
		reshare(out);
	hmpt_prof_sort_sites(out);
	return out;
}

/* a site and what it sorts by, read once */
typedef struct {
	json_t *site;
	uint64_t bytes, seq;
	double first_s;
	const char *id;
} sort_key_t;

/* more bytes first; of equal bytes the site allocated first (first_s, then
 * the order the shim saw them in, "seq"), which a rebuild does not change
 * as it changes ids; then the id */
static int by_bytes(const void *a, const void *b)
{
	const sort_key_t *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->first_s != y->first_s)
		return x->first_s < y->first_s ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->id, y->id);
}

void hmpt_prof_sort_sites(json_t *prof)
{
	json_t *sites = json_object_get(prof, "sites");
	size_t n = json_array_size(sites), i;
	sort_key_t *v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return;
	for (i = 0; i < n; i++) {
		json_t *s = json_array_get(sites, i);
		const json_t *seq = json_object_get(s, "seq");
		v[i] = (sort_key_t){
		    json_incref(s), hmpt_prof_u64(s, "bytes"),
		    /* profiles before "seq": after those with one */
		    json_is_integer(seq) ? (uint64_t)json_integer_value(seq) : UINT64_MAX,
		    json_number_value(json_object_get(s, "first_s")), hmpt_prof_str(s, "id") ?: ""};
	}
	qsort(v, n, sizeof(*v), by_bytes);
	json_array_clear(sites);
	for (i = 0; i < n; i++)
		json_array_append_new(sites, v[i].site);
	free(v);
}

int hmpt_prof_write(const json_t *prof, const char *path)
{
	hmpt_outfile_t out;

	if (!hmpt_outfile_open(&out, path))
		return -1;
	json_dumpf(prof, out.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	return hmpt_outfile_close(&out);
}
