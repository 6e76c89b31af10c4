/* rebase.c — see rebase.h. */
#include "rebase.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hash.h"
#include "plan.h"
#include "planout.h"
#include "profiles.h"
#include "profrun.h"
#include "runner.h"
#include "sitesym.h"

#define MAX_FRAMES 64

/* ------------------------------------------------------------- matching */

size_t hmpt_rebase_identity(const json_t *site)
{
	uint32_t idx[MAX_FRAMES];
	return hmpt_prof_identity(json_object_get(site, "frames"), idx);
}

size_t hmpt_rebase_cut(const json_t *frames, size_t k)
{
	uint32_t idx[MAX_FRAMES], n = hmpt_prof_identity(frames, idx);

	if (k == 0 || k >= n)
		return json_array_size(frames);
	return idx[k - 1] + 1;
}

static bool is_prefix(const json_t *site)
{
	const char *m = json_string_value(json_object_get(site, "match"));
	return m && !strcmp(m, "prefix");
}

static int num(const json_t *o, const char *key, int dflt)
{
	const json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static void say(char *how, size_t cap, const char *fmt, ...)
{
	size_t len = strlen(how);
	va_list ap;

	if (len + 2 >= cap)
		return;
	if (len)
		len += (size_t)snprintf(how + len, cap - len, "; ");
	va_start(ap, fmt);
	vsnprintf(how + len, cap - len, fmt, ap);
	va_end(ap);
}

/* one identity frame: a (the plan's symbolic entry) against b (the new
 * site's); fa, fb the frames themselves */
static int frame_compare(const json_t *a, const json_t *b, const char *fa, const char *fb,
                         hmpt_rebase_score_t *sc, char *how, size_t cap)
{
	const char *afn = hmpt_prof_str(a, "function"), *bfn = hmpt_prof_str(b, "function");
	const char *avar = hmpt_prof_str(a, "variable"), *bvar = hmpt_prof_str(b, "variable");

	if (!json_is_object(a) || (!afn && !avar)) /* nothing known: the frame itself */
		return fa && fb && !strcmp(fa, fb) ? 0 : -1;
	if (!afn) /* a static data object: its symbol */
		return !bfn && bvar && !strcmp(avar, bvar) ? 0 : -1;
	if (!bfn || strcmp(afn, bfn))
		return -1;
	const char *afile = hmpt_prof_str(a, "file"), *bfile = hmpt_prof_str(b, "file");
	if (afile && bfile && strcmp(afile, bfile))
		return -1;
	int al = afile ? num(a, "line", 0) : 0, bl = bfile ? num(b, "line", 0) : 0;
	if (al <= 0 && bl <= 0)
		return 0; /* the same function, and nothing more known on either side */
	if (al <= 0 || bl <= 0) {
		sc->function_only++;
		sc->exact = false;
		say(how, cap, "%s: no line %s: matched by function", afn,
		    al > 0 ? "in the new build" : "in the plan");
		return 0;
	}
	int ap = num(a, "position", 1), bp = num(b, "position", 1);
	int an = num(a, "positions", 1), bn = num(b, "positions", 1);
	long d = labs((long)al - bl), pd = labs((long)ap - bp);
	bool other_var = avar && bvar && strcmp(avar, bvar);
	sc->variables += other_var;
	sc->shapes += an != bn;
	sc->lines += d;
	sc->positions += pd;
	/* positions rank the calls a profile tracked (>= HMPT_MIN_SIZE): with
	 * another number of them, the same rank may be another call.  Numbering
	 * the calls from DWARF's call sites instead would settle it; not done. */
	if (d || pd || other_var || an != bn)
		sc->exact = false;
	if (d)
		say(how, cap, "%s: %s line %d -> %d", afile, afn, al, bl);
	if (an != bn)
		say(how, cap, "%s: %d of %d calls seen, now %d of %d", afn, ap, an, bp, bn);
	if ((pd && an == bn) || other_var) {
		char o1[160], o2[160];
		hmpt_sitesym_ordinal(o1, sizeof(o1), ap, an > 1 ? an : 2, avar);
		hmpt_sitesym_ordinal(o2, sizeof(o2), bp, bn > 1 ? bn : 2, bvar);
		say(how, cap, "%s: %s call %s -> %s", afile, afn, an > 1 ? o1 : "the only",
		    bn > 1 ? o2 : "the only");
	}
	return 0;
}

int hmpt_rebase_compare(const json_t *old, const json_t *cand, hmpt_rebase_score_t *sc, char *how,
                        size_t cap)
{
	const json_t *of = json_object_get(old, "frames"), *cf = json_object_get(cand, "frames");
	const json_t *os = json_object_get(old, "symbolic"),
	             *cs = json_object_get(cand, "symbolic");
	uint32_t oi[MAX_FRAMES], ci[MAX_FRAMES];
	uint32_t ko = hmpt_prof_identity(of, oi), kc = hmpt_prof_identity(cf, ci);

	*sc = (hmpt_rebase_score_t){.exact = true};
	if (cap)
		how[0] = '\0';
	/* the same id: the same identity frames, so the same build's same site,
	 * whatever its symbols say */
	const char *oid = is_prefix(old) ? NULL : hmpt_prof_str(old, "id"),
	           *cid = hmpt_prof_str(cand, "id");
	if (oid && cid && strlen(oid) == 16 && !strcmp(oid, cid)) {
		sc->same_id = true;
		return 0;
	}
	if (ko == 0 || !json_is_array(os) || (is_prefix(old) ? kc < ko : kc != ko))
		return -1;
	for (uint32_t j = 0; j < ko; j++)
		if (frame_compare(json_array_get(os, oi[j]), json_array_get(cs, ci[j]),
		                  json_string_value(json_array_get(of, oi[j])),
		                  json_string_value(json_array_get(cf, ci[j])), sc, how, cap) != 0)
			return -1;
	return 0;
}

typedef struct {
	size_t o, c;
	hmpt_rebase_score_t sc;
} pair_t;

static int cmp_pairs(const void *x, const void *y)
{
	const pair_t *a = x, *b = y;
#define BY(field)                                                                                  \
	if (a->field != b->field)                                                                  \
		return a->field < b->field ? -1 : 1;
	if (a->sc.same_id != b->sc.same_id)
		return a->sc.same_id ? -1 : 1;
	if (a->sc.exact != b->sc.exact)
		return a->sc.exact ? -1 : 1;
	/* what names the array first (lines shift by different amounts in
	 * different places: the nearest line can be another statement's) */
	BY(sc.variables)
	BY(sc.shapes)
	BY(sc.lines)
	BY(sc.positions)
	BY(sc.function_only)
	BY(o)
	BY(c)
#undef BY
	return 0;
}

/* what a candidate becomes for an old site: its frames as the old site's
 * match cuts them, and the match (two sites of a plan may not share both) */
static char *target_key(const json_t *old, const json_t *cand)
{
	const json_t *cf = json_object_get(cand, "frames");
	size_t n =
	    is_prefix(old) ? hmpt_rebase_cut(cf, hmpt_rebase_identity(old)) : json_array_size(cf);
	char *key = NULL;
	size_t len;
	FILE *m = open_memstream(&key, &len);

	if (!m)
		return NULL;
	fprintf(m, "%c|", is_prefix(old) ? 'p' : 's');
	for (size_t i = 0; i < n; i++)
		fprintf(m, "%s ", json_string_value(json_array_get(cf, i)) ?: "");
	if (fclose(m) != 0) {
		free(key);
		return NULL;
	}
	return key;
}

/* ------------------------------------------------- candidates by key */

/* Comparing every plan site with every new site cost O(n^2) (a 1,000-site
 * plan took 34 s, a 10,000-site one most of an hour).  A candidate can
 * only match a site whose identity frames ask for what its own have
 * (frame_compare): the function, else the variable (static data), else the
 * frame itself; or one of the same id.  Candidates are filed under those
 * keys, and each plan site compared with those under its own only. */
enum { KEY_ID = 1, KEY_FUNCTION, KEY_VARIABLE, KEY_RAW };

static uint64_t key_add(uint64_t h, int kind, const char *str)
{
	h = hmpt_hash_bytes(h, &kind, sizeof(kind));
	return hmpt_hash_bytes(h, str, strlen(str) + 1);
}

typedef struct {
	uint64_t key;
	size_t c;
} keyed_t;

typedef struct {
	keyed_t *v;
	size_t n, cap;
	size_t *seen; /* per candidate: the lookup that last listed it, + 1 */
	size_t lookups;
	size_t *list; /* the last lookup's candidates */
} cand_index_t;

static void index_put(cand_index_t *ix, uint64_t key, size_t c)
{
	if (ix->n == ix->cap) {
		size_t cap = ix->cap ? 2 * ix->cap : 1024;
		keyed_t *v = realloc(ix->v, cap * sizeof(*v));
		if (!v)
			return; /* fewer keys: fewer matches, never a wrong one */
		ix->v = v;
		ix->cap = cap;
	}
	ix->v[ix->n++] = (keyed_t){key, c};
}

static int by_key(const void *x, const void *y)
{
	const keyed_t *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->c < b->c ? -1 : a->c > b->c;
}

/* the identity frame k's symbolic entry, its function and variable */
static const json_t *ident_entry(const json_t *site, const uint32_t *idx, uint32_t k,
                                 const char **fn, const char **var)
{
	const json_t *e = json_array_get(json_object_get(site, "symbolic"), idx[k]);
	*fn = hmpt_prof_str(e, "function");
	*var = hmpt_prof_str(e, "variable");
	return e;
}

/* 0, or -1 out of memory (ix freed by index_free either way) */
static int index_build(cand_index_t *ix, const json_t *const *cands, size_t ncand)
{
	memset(ix, 0, sizeof(*ix));
	ix->seen = calloc(ncand + 1, sizeof(*ix->seen));
	ix->list = malloc((ncand + 1) * sizeof(*ix->list));
	if (!ix->seen || !ix->list)
		return -1;
	for (size_t c = 0; c < ncand; c++) {
		const json_t *cf = json_object_get(cands[c], "frames");
		const char *id = hmpt_prof_str(cands[c], "id"), *fn, *var;
		uint32_t ci[MAX_FRAMES], kc = hmpt_prof_identity(cf, ci);
		if (id)
			index_put(ix, key_add(HMPT_HASH_SEED, KEY_ID, id), c);
		if (kc == 0)
			continue;
		/* the functions of its first 1, 2, ... kc identity frames */
		uint64_t h = HMPT_HASH_SEED;
		for (uint32_t k = 0; k < kc; k++) {
			ident_entry(cands[c], ci, k, &fn, &var);
			if (!fn)
				break;
			h = key_add(h, KEY_FUNCTION, fn);
			index_put(ix, h, c);
		}
		ident_entry(cands[c], ci, 0, &fn, &var);
		if (!fn && var)
			index_put(ix, key_add(HMPT_HASH_SEED, KEY_VARIABLE, var), c);
		const char *raw = json_string_value(json_array_get(cf, ci[0]));
		if (raw)
			index_put(ix, key_add(HMPT_HASH_SEED, KEY_RAW, raw), c);
	}
	qsort(ix->v, ix->n, sizeof(*ix->v), by_key);
	return 0;
}

static void index_free(cand_index_t *ix)
{
	free(ix->v);
	free(ix->seen);
	free(ix->list);
}

/* add the candidates filed under key to the lookup's list, once each */
static void index_take(cand_index_t *ix, uint64_t key, size_t *n)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < ix->n && ix->v[i].key == key; i++)
		if (ix->seen[ix->v[i].c] != ix->lookups) {
			ix->seen[ix->v[i].c] = ix->lookups;
			ix->list[(*n)++] = ix->v[i].c;
		}
}

/* index_lookup's candidates, in the order filed */
static size_t lookup_keys(cand_index_t *ix, const json_t *old)
{
	const json_t *of = json_object_get(old, "frames");
	const char *id = is_prefix(old) ? NULL : hmpt_prof_str(old, "id"), *fn, *var;
	uint32_t oi[MAX_FRAMES], ko = hmpt_prof_identity(of, oi);
	size_t n = 0;

	ix->lookups++;
	if (id && strlen(id) == 16)
		index_take(ix, key_add(HMPT_HASH_SEED, KEY_ID, id), &n);
	if (ko == 0 || !json_is_array(json_object_get(old, "symbolic")))
		return n;
	uint64_t h = HMPT_HASH_SEED;
	uint32_t k = 0;
	for (; k < ko; k++) {
		if (!json_is_object(ident_entry(old, oi, k, &fn, &var)) || !fn)
			break;
		h = key_add(h, KEY_FUNCTION, fn);
	}
	if (k == ko) { /* functions at every frame: the new site's must be those */
		index_take(ix, h, &n);
		return n;
	}
	const json_t *e = ident_entry(old, oi, 0, &fn, &var);
	const char *raw = json_string_value(json_array_get(of, oi[0]));
	if (json_is_object(e) && fn)
		index_take(ix, key_add(HMPT_HASH_SEED, KEY_FUNCTION, fn), &n);
	else if (json_is_object(e) && var)
		index_take(ix, key_add(HMPT_HASH_SEED, KEY_VARIABLE, var), &n);
	else if (raw)
		index_take(ix, key_add(HMPT_HASH_SEED, KEY_RAW, raw), &n);
	return n;
}

static int by_index(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return a < b ? -1 : a > b;
}

/* The candidates that may match old (every one hmpt_rebase_compare would
 * accept, and maybe others), in ix->list in the candidates' order: how
 * many. */
static size_t index_lookup(cand_index_t *ix, const json_t *old)
{
	size_t n = lookup_keys(ix, old);

	qsort(ix->list, n, sizeof(*ix->list), by_index);
	return n;
}

/* hmpt_rebase_assign with the candidates' index built (the command's
 * report looks up the sites left unmatched in it too) */
static void assign_by(cand_index_t *ix, const json_t *const *olds, size_t nold,
                      const json_t *const *cands, long *match)
{
	pair_t *pairs = NULL;
	size_t np = 0, cap = 0;
	json_t *taken = json_object(); /* target keys given to a plan site */

	for (size_t o = 0; o < nold; o++)
		match[o] = -1;
	if (!taken)
		goto out;
	for (size_t o = 0; o < nold; o++) {
		size_t nc = index_lookup(ix, olds[o]);
		for (size_t i = 0; i < nc; i++) {
			char how[8];
			if (np == cap) {
				size_t ncap = cap ? 2 * cap : 1024;
				pair_t *p = realloc(pairs, ncap * sizeof(*p));
				if (!p)
					goto out;
				pairs = p;
				cap = ncap;
			}
			if (hmpt_rebase_compare(olds[o], cands[ix->list[i]], &pairs[np].sc, how,
			                        sizeof(how)) == 0) {
				pairs[np].o = o;
				pairs[np].c = ix->list[i];
				np++;
			}
		}
	}
	qsort(pairs, np, sizeof(*pairs), cmp_pairs);
	for (size_t i = 0; i < np; i++) {
		const pair_t *p = &pairs[i];
		if (match[p->o] >= 0)
			continue;
		char *key = target_key(olds[p->o], cands[p->c]);
		if (!key || json_object_get(taken, key)) {
			free(key);
			continue;
		}
		json_object_set_new(taken, key, json_true());
		free(key);
		match[p->o] = (long)p->c;
	}
out:
	json_decref(taken);
	free(pairs);
}

void hmpt_rebase_assign(const json_t *const *olds, size_t nold, const json_t *const *cands,
                        size_t ncand, long *match)
{
	cand_index_t ix;

	if (index_build(&ix, cands, ncand) == 0)
		assign_by(&ix, olds, nold, cands, match);
	else
		for (size_t o = 0; o < nold; o++)
			match[o] = -1;
	index_free(&ix);
}

/* -------------------------------------------------------------- command */

typedef struct {
	const char *group;
	const json_t *site;
	char id[17];
	long match;
	hmpt_rebase_score_t sc;
	char how[1024];
} old_t;

/* the old site's id: written, or (a prefix site has none) of its frames */
static void old_id(const json_t *site, char id[17])
{
	const char *w = hmpt_prof_str(site, "id");

	if (w && strlen(w) == 16)
		snprintf(id, 17, "%s", w);
	else if (hmpt_prof_site_id(json_object_get(site, "frames"), id) != 0)
		snprintf(id, 17, "%s", "?");
}

/* "alloc_grid (rebuild.c:29)" of the first identity frame's entry */
static void first_symbolic(const json_t *site, char *buf, size_t cap)
{
	uint32_t idx[MAX_FRAMES];
	uint32_t k = hmpt_prof_identity(json_object_get(site, "frames"), idx);
	const json_t *e = k ? json_array_get(json_object_get(site, "symbolic"), idx[0]) : NULL;
	const char *fn = hmpt_prof_str(e, "function"), *file = hmpt_prof_str(e, "file"),
	           *var = hmpt_prof_str(e, "variable");

	if (!fn && var)
		snprintf(buf, cap, "%s (static data)", var);
	else if (fn && file)
		snprintf(buf, cap, "%s (%s:%d)", fn, file, num(e, "line", 0));
	else
		snprintf(buf, cap, "%s", fn ? fn : json_string_value(json_array_get(
		                                       json_object_get(site, "frames"), 0)) ?: "?");
}

/* remove what a temporary profile directory holds, and it */
static void remove_dir(const char *dir, const char *log)
{
	hmpt_profiles_clear(dir);
	unlink(log);
	rmdir(dir);
}

/* profile cmd into dir: 0, or -1 after a message (the command's output
 * is in dir/command.log) */
static int run_profile(const char *plan_path, const json_t *plan, char *const *cmd, const char *lib,
                       const char *dir, json_t **prof, hmpt_sym_t *sym)
{
	char log[PATH_MAX + 16], depth[32];
	const json_t *sd = json_object_get(plan, "stack_depth");
	hmpt_run_result_t res;
	int none;

	snprintf(log, sizeof(log), "%s/command.log", dir);
	/* stacks as deep as the plan's, so that like is compared with like */
	if (json_is_integer(sd))
		snprintf(depth, sizeof(depth), "%lld", (long long)json_integer_value(sd));
	hmpt_profrun_t r = {.dir = dir,
	                    .lib = lib,
	                    .depth = json_is_integer(sd) ? depth : NULL,
	                    .sample = "off",
	                    .argv = cmd,
	                    .log = log,
	                    .quiet = true};
	fprintf(stderr, "hmpt-tune: profiling %s for %s (its output in %s)\n", cmd[0], plan_path,
	        log);
	*prof = hmpt_profrun(&r, sym, &res, &none);
	if (res.status != 0) {
		char why[160];
		hmpt_run_describe(&res, 0, why, sizeof(why));
		fprintf(
		    stderr,
		    "hmpt-tune plan rebase: %s %s under the shim (its output is in %s): nothing "
		    "rebased\n",
		    cmd[0], why, log);
		json_decref(*prof);
		*prof = NULL;
		return -1;
	}
	if (!*prof) {
		if (none)
			fprintf(stderr,
			        "hmpt-tune plan rebase: %s made no allocation of at least 1 MiB "
			        "(HMPT_MIN_SIZE): no site to map\n",
			        cmd[0]);
		return -1;
	}
	hmpt_prof_sort_sites(*prof);
	return 0;
}

static const char *const status_text[] = {"not found", "mapped approximately", "mapped"};

static int status_of(const old_t *o)
{
	return o->match < 0 ? 0 : o->sc.exact ? 2 : 1;
}

/* the rebased plan: the old one with its sites replaced */
static json_t *rebased_plan(const json_t *plan, const old_t *olds, size_t nold, const json_t *prof,
                            hmpt_sym_t *sym, const char *plan_path, const char *profile_what,
                            const int counts[3])
{
	json_t *out = json_deep_copy(plan), *groups = json_array(), *g;
	size_t gi, o = 0;

	json_array_foreach(json_object_get(plan, "groups"), gi, g)
	{
		json_t *ng = json_deep_copy(g), *sites = json_array(), *s;
		size_t si;
		json_array_foreach(json_object_get(g, "sites"), si, s)
		{
			const old_t *x = &olds[o++];
			if (x->match < 0)
				continue;
			const json_t *site =
			    json_array_get(json_object_get(prof, "sites"), (size_t)x->match);
			unsigned cut = 0;
			if (is_prefix(s)) /* as many identity frames as before */
				cut = (unsigned)hmpt_rebase_cut(json_object_get(site, "frames"),
				                                hmpt_rebase_identity(s));
			json_t *e = hmpt_plan_site_entry(prof, site, cut, sym);
			if (json_object_get(s, "comment"))
				json_object_set(e, "comment", json_object_get(s, "comment"));
			json_array_append_new(sites, e);
		}
		if (json_array_size(sites) == 0) {
			fprintf(stderr,
			        "hmpt-tune plan rebase: group %s: none of its sites was found: "
			        "dropped\n",
			        hmpt_prof_str(g, "name") ?: "(unnamed)");
			json_decref(sites);
			json_decref(ng);
			continue;
		}
		json_object_set_new(ng, "sites", sites);
		json_array_append_new(groups, ng);
	}
	json_object_set_new(out, "groups", groups);
	const json_t *depth = json_object_get(json_object_get(prof, "settings"), "stack_depth");
	if (json_object_get(out, "stack_depth") && json_is_integer(depth))
		json_object_set(out, "stack_depth", (json_t *)depth);
	json_object_del(out, "modules");
	hmpt_plan_add_modules(out, prof);

	/* what the plan now is: the old provenance, and where it was moved */
	json_t *pv = json_object_get(out, "provenance");
	if (!json_is_object(pv)) {
		pv = json_object();
		json_object_set_new(out, "provenance", pv);
	}
	char when[32], what[256];
	hmpt_plan_created_now(when);
	snprintf(what, sizeof(what), "%d of %zu sites mapped (%d exactly, %d approximately)",
	         counts[1] + counts[2], nold, counts[2], counts[1]);
	json_object_set_new(
	    pv, "program",
	    json_string(hmpt_prof_str(json_object_get(prof, "process"), "exe") ?: ""));
	json_object_set_new(pv, "created", json_string(when));
	json_object_set_new(pv, "tool", json_string("hmpt-tune " HMPT_VERSION));
	json_object_set_new(pv, "profile", json_string(profile_what));
	json_object_set_new(pv, "rebased", json_string(what));
	json_object_set_new(pv, "rebased_from", json_string(plan_path));
	/* provenance goes last, where plan make writes it */
	json_incref(pv);
	json_object_del(out, "provenance");
	json_object_set_new(out, "provenance", pv);
	return out;
}

/* the plan as jansson has it, refused when it cannot be rebased */
static json_t *load_plan(const char *path)
{
	static hmpt_plan_t check;
	char err[1024];
	json_error_t je;

	/* the shim's loader says what is wrong with it, as plan check does */
	if (hmpt_plan_load(path, &check, err, sizeof(err)) != 0) {
		fprintf(stderr, "hmpt-tune plan rebase: %s\n", err);
		return NULL;
	}
	uint32_t version = check.version;
	hmpt_plan_free(&check);
	json_t *plan = json_load_file(path, 0, &je);
	if (!plan) {
		fprintf(stderr, "hmpt-tune plan rebase: %s:%d:%d: %s\n", path, je.line, je.column,
		        je.text);
		return NULL;
	}
	hmpt_plan_json_expand(plan); /* format 4: the loader checked its indices */
	bool symbolic = false;
	const json_t *g, *s;
	size_t i, k;
	json_array_foreach(json_object_get(plan, "groups"), i, g)
	{
		json_array_foreach(json_object_get(g, "sites"), k, s)
		{
			symbolic |= json_is_array(json_object_get(s, "symbolic"));
		}
	}
	if (version < 2 || (!symbolic && json_array_size(json_object_get(plan, "groups")))) {
		fprintf(stderr,
		        "hmpt-tune plan rebase: %s: %s: it cannot be rebased; profile the program "
		        "again (hmpt-tune profile) and make a new plan (hmpt-tune plan make, or "
		        "tune it again)\n",
		        path,
		        version < 2 ? "a plan of format version 1 has no symbolic frames"
		                    : "no site has \"symbolic\" frames (a plan written by hand?)");
		json_decref(plan);
		return NULL;
	}
	return plan;
}

static const char usage_rebase[] = "rebase: expected PLAN and PROFILE|DIR, or PLAN -- COMMAND";

int hmpt_rebase_cmd(int argc, char **argv, const char *usage)
{
	static const struct option longs[] = {{"output", required_argument, 0, 'o'},
	                                      {"profile-dir", required_argument, 0, 'P'},
	                                      {"lib", required_argument, 0, 'L'},
	                                      {"help", no_argument, 0, 'h'},
	                                      {0, 0, 0, 0}};
	const char *out = NULL, *pdir = NULL, *lib_opt = NULL;
	char tmpdir[PATH_MAX] = "", what[PATH_MAX + 64];
	json_t *plan = NULL, *prof = NULL, *rebased = NULL;
	json_t **cands = NULL;
	old_t *olds = NULL;
	cand_index_t ix = {0};
	char *const *cmd = NULL;
	int c, rc = 1;

	while ((c = getopt_long(argc, argv, "+o:h", longs, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'P': pdir = optarg; break;
		case 'L': lib_opt = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: hmpt_cli_usage_error("plan", "unknown option", NULL);
		}
	}
	if (optind + 2 < argc && !strcmp(argv[optind + 1], "--"))
		cmd = argv + optind + 2;
	else if (optind + 2 != argc || !strcmp(argv[optind + 1], "--"))
		hmpt_cli_usage_error("plan", usage_rebase, NULL);
	if (pdir && !cmd)
		hmpt_cli_usage_error("plan", "rebase: --profile-dir goes with PLAN -- COMMAND",
		                     pdir);
	const char *plan_path = argv[optind];
	if (!(plan = load_plan(plan_path)))
		return 1;

	hmpt_sym_t *sym = hmpt_sym_new();
	if (cmd) {
		char lib[PATH_MAX];
		if (hmpt_lib_resolve(lib_opt, lib, sizeof(lib)) != 0)
			goto done;
		if (!pdir) {
			snprintf(tmpdir, sizeof(tmpdir), "%s/hmpt-rebase.XXXXXX",
			         getenv("TMPDIR") ?: "/tmp");
			if (!mkdtemp(tmpdir)) {
				fprintf(stderr, "hmpt-tune plan rebase: %s: %s\n", tmpdir,
				        strerror(errno));
				goto done;
			}
		}
		if (run_profile(plan_path, plan, cmd, lib, pdir ? pdir : tmpdir, &prof, sym) != 0) {
			*tmpdir = '\0'; /* keep the command's output for the user */
			goto done;
		}
		snprintf(what, sizeof(what), "%s%s (a profile of %s)", pdir ? pdir : "",
		         pdir ? "/profile.json" : "made for the rebase", cmd[0]);
	} else {
		if (!(prof = hmpt_plan_profile_load(argv[optind + 1])))
			goto done;
		snprintf(what, sizeof(what), "%s", argv[optind + 1]);
	}

	/* the new sites as plan entries: their symbolic frames */
	const json_t *sites = json_object_get(prof, "sites"), *s, *g;
	size_t ncand = json_array_size(sites), nold = 0, i, k;
	cands = calloc(ncand + 1, sizeof(*cands));
	json_array_foreach(json_object_get(plan, "groups"), i, g)
	{
		nold += json_array_size(json_object_get(g, "sites"));
	}
	olds = calloc(nold + 1, sizeof(*olds));
	const json_t **oldp = calloc(nold + 1, sizeof(*oldp));
	if (!cands || !olds || !oldp) {
		free(oldp);
		fprintf(stderr, "hmpt-tune plan rebase: out of memory\n");
		goto done;
	}
	json_array_foreach(sites, i, s)
	{
		cands[i] = hmpt_plan_site_entry(prof, s, 0, sym);
	}
	size_t o = 0;
	json_array_foreach(json_object_get(plan, "groups"), i, g)
	{
		json_array_foreach(json_object_get(g, "sites"), k, s)
		{
			olds[o].group = hmpt_prof_str(g, "name") ?: "-";
			olds[o].site = oldp[o] = s;
			old_id(s, olds[o].id);
			o++;
		}
	}
	/* the candidates by key: for the assignment, and in the report for
	 * the sites not found */
	long *match = calloc(nold + 1, sizeof(long));
	if (!match || index_build(&ix, (const json_t *const *)cands, ncand) != 0) {
		fprintf(stderr, "hmpt-tune plan rebase: out of memory\n");
		free(match);
		free(oldp);
		goto done;
	}
	assign_by(&ix, oldp, nold, (const json_t *const *)cands, match);
	int counts[3] = {0, 0, 0};
	for (o = 0; o < nold; o++) {
		old_t *x = &olds[o];
		x->match = match[o];
		if (x->match >= 0)
			hmpt_rebase_compare(x->site, cands[x->match], &x->sc, x->how,
			                    sizeof(x->how));
		counts[status_of(x)]++;
	}
	free(match);
	free(oldp);

	/* the report: every site, then the sum; for those not found, the
	 * candidates that would have matched */
	fprintf(stderr, "hmpt-tune: rebasing %s onto %s: %zu site%s\n", plan_path, what, nold,
	        nold == 1 ? "" : "s");
	fprintf(stderr, "%-12s  %-16s  %-20s  %-16s  %s\n", "group", "site", "status", "new site",
	        "how");
	for (o = 0; o < nold; o++) {
		old_t *x = &olds[o];
		char how[1400];
		if (x->match < 0) {
			char first[512], scratch[512], shape[512] = "";
			hmpt_rebase_score_t sc;
			size_t near = 0, nc = index_lookup(&ix, x->site);
			for (size_t j = 0; j < nc; j++)
				if (hmpt_rebase_compare(x->site, cands[ix.list[j]], &sc, scratch,
				                        sizeof(scratch)) == 0) {
					near++;
					/* another number of calls tracked: which is which
					 * is a guess, and the user should know */
					if (sc.shapes && !*shape)
						snprintf(shape, sizeof(shape), "%s", scratch);
				}
			first_symbolic(x->site, first, sizeof(first));
			if (!json_is_array(json_object_get(x->site, "symbolic")))
				snprintf(how, sizeof(how),
				         "%s: the plan gives it no symbolic frames", first);
			else if (near && *shape)
				snprintf(
				    how, sizeof(how),
				    "%s: its %zu match%s in the new profile went to other plan "
				    "sites, but that profile tracks another number of calls "
				    "of the statement (%s): which call is which is uncertain",
				    first, near, near == 1 ? "" : "es", shape);
			else if (near)
				snprintf(
				    how, sizeof(how),
				    "%s: its %zu match%s in the new profile went to sites that "
				    "match better",
				    first, near, near == 1 ? "" : "es");
			else
				snprintf(how, sizeof(how),
				         "%s: no site of the new profile has its frames", first);
		} else {
			char first[512];
			first_symbolic(x->site, first, sizeof(first));
			snprintf(how, sizeof(how), "%s",
			         *x->how         ? x->how
			         : x->sc.same_id ? "the same site (its id: the same build)"
			         : strstr(first, "(static data)")
			             ? "the same static object"
			             : "the same functions, files and lines");
		}
		fprintf(stderr, "%-12s  %-16s  %-20s  %-16s  %s\n", x->group, x->id,
		        status_text[status_of(x)],
		        x->match >= 0 ? hmpt_prof_str(json_array_get(sites, (size_t)x->match), "id")
		                      : "-",
		        how);
	}
	rebased = rebased_plan(plan, olds, nold, prof, sym, plan_path, what, counts);
	if (hmpt_plan_emit(rebased, out) != 0)
		goto done;
	fprintf(stderr,
	        "hmpt-tune: %d of %zu site%s mapped (%d exactly, %d approximately), %d not found; "
	        "wrote %s\n",
	        counts[1] + counts[2], nold, nold == 1 ? "" : "s", counts[2], counts[1], counts[0],
	        out ? out : "the plan to standard output");
	rc = counts[0] ? 3 : 0; /* 2 is every command's usage error */
done:
	if (cands)
		for (i = 0; i < json_array_size(json_object_get(prof, "sites")); i++)
			json_decref(cands[i]);
	free(cands);
	free(olds);
	index_free(&ix);
	if (*tmpdir) {
		char log[PATH_MAX + 16];
		snprintf(log, sizeof(log), "%s/command.log", tmpdir);
		remove_dir(tmpdir, log);
	}
	hmpt_sym_free(sym);
	json_decref(rebased);
	json_decref(prof);
	json_decref(plan);
	return rc;
}
