/* planout.c — see planout.h. */
#include "planout.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "plan.h"
#include "profiles.h"
#include "report.h"
#include "siteid.h"
#include "sitesym.h"
#include "outfile.h"

json_t *hmpt_plan_profile_load(const char *arg)
{
	char path[PATH_MAX], err[1024];
	struct stat st;
	json_t *p;

	snprintf(path, sizeof(path), "%s", arg);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(path, sizeof(path), "%s/profile.json", arg);
	p = hmpt_prof_load(path, err, sizeof(err));
	if (!p)
		fprintf(stderr, "hmpt-tune: %s\n", err);
	else
		hmpt_prof_sort_sites(p);
	return p;
}

json_t *hmpt_plan_site_entry(const json_t *prof, const json_t *s, unsigned prefix, hmpt_sym_t *sym)
{
	json_t *e = json_object(), *frames = json_array(), *symbols = json_array();
	const json_t *fr = json_object_get(s, "frames");
	size_t n = json_array_size(fr), i;
	json_t *f;

	/* a version-1 stack cut short (profiles.h): no id of today's stacks
	 * equals its id, but they begin with all its frames */
	if (!prefix && json_is_true(json_object_get(s, "cut")))
		prefix = (unsigned)n;
	/* a prefix reaches at least the stack's first identity frame
	 * (siteid.h): frames in no module (JIT code) name nothing, nor do
	 * runtime ones before the program's own; with no identity frame at all
	 * (only JIT frames), the whole stack is the site */
	if (prefix && prefix < n) {
		uint32_t idx[64];
		if (hmpt_prof_identity(fr, idx) == 0)
			prefix = 0;
		else if (prefix <= idx[0])
			prefix = idx[0] + 1;
	}
	if (prefix && prefix < n)
		n = prefix;
	json_array_foreach(fr, i, f)
	{
		if (i >= n)
			break;
		char text[1024], detail[160] = "";
		const hmpt_symframe_t *sf = hmpt_sitesym_frame(sym, prof, s, i);
		json_array_append(frames, f);
		if (sf && sf->positions > 1)
			hmpt_sitesym_ordinal(detail, sizeof(detail), sf->position, sf->positions,
			                     sf->variable);
		if (!hmpt_report_static_text(s, text, sizeof(text)))
			hmpt_report_frame_text(sym, prof, json_string_value(f), detail, text,
			                       sizeof(text));
		json_array_append_new(symbols, json_string(text));
	}
	if (!prefix)
		json_object_set(e, "id", json_object_get(s, "id"));
	json_object_set_new(e, "frames", frames);
	if (prefix)
		json_object_set_new(e, "match", json_string("prefix"));
	json_object_set_new(e, "symbols", symbols);
	/* what `plan rebase` follows across a rebuild */
	json_object_set_new(e, "symbolic", hmpt_sitesym_json(sym, prof, s, n));
	json_object_set(e, "bytes", json_object_get(s, "bytes"));
	return e;
}

void hmpt_plan_add_modules(json_t *plan, const json_t *prof)
{
	json_t *mods = json_object(), *g, *site, *f;
	size_t i, k, j;

	json_array_foreach(json_object_get(plan, "groups"), i, g)
	{
		json_array_foreach(json_object_get(g, "sites"), k, site)
		{
			json_array_foreach(json_object_get(site, "frames"), j, f)
			{
				char name[256];
				uint64_t off;
				/* a malformed frame names no module; a runtime library's
				 * update is no reason to warn */
				if (hmpt_prof_parse_frame(json_string_value(f), name, sizeof(name),
				                          &off) != 0 ||
				    hmpt_siteid_runtime(name) || json_object_get(mods, name))
					continue;
				const json_t *m = hmpt_prof_module(prof, name);
				const char *id = m ? hmpt_prof_str(m, "build_id") : NULL;
				if (!m || !id || !*id)
					continue;
				json_object_set_new(mods, name,
				                    json_pack("{s:s,s:s}", "build_id", id, "path",
				                              hmpt_prof_str(m, "path") ?: ""));
			}
		}
	}
	if (json_object_size(mods))
		json_object_set_new(plan, "modules", mods);
	else
		json_decref(mods);
}

/* A frames-table row's key: the frame, its symbol and symbolic entry
 * (a frame's symbolic entry may differ between sites: its position among
 * a statement's calls counts the calls seen under the same callers). */
static char *row_key(const json_t *frame, const json_t *symbol, const json_t *symbolic)
{
	char *sym =
	    symbolic ? json_dumps(symbolic, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
	char *key = NULL;

	if (asprintf(&key, "%s\x1f%s\x1f%s", json_string_value(frame) ?: "",
	             symbol ? json_string_value(symbol) ?: "" : "\x1e", sym ? sym : "\x1e") < 0)
		key = NULL;
	free(sym);
	return key;
}

/* A site in format 4: its frames as "stack" indices into rows (added to
 * where new); NULL when memory is refused. */
static json_t *site_compact(const json_t *site, json_t *rows, json_t *seen)
{
	const json_t *fr = json_object_get(site, "frames"),
	             *syms = json_object_get(site, "symbols"),
	             *symb = json_object_get(site, "symbolic");
	json_t *out = json_object(), *stack = json_array(), *v;
	const char *key;
	size_t k;

	json_object_foreach((json_t *)site, key, v)
	{
		if (!strcmp(key, "frames"))
			json_object_set(out, "stack", stack);
		else if (strcmp(key, "symbols") && strcmp(key, "symbolic"))
			json_object_set(out, key, v);
	}
	json_decref(stack); /* out holds it */
	json_array_foreach(fr, k, v)
	{
		const json_t *sym = json_array_get(syms, k), *sb = json_array_get(symb, k);
		if (!sb && json_is_array(symb))
			sb = json_null();
		char *rk = row_key(v, sym, sb);
		if (!rk) {
			json_decref(out);
			return NULL;
		}
		json_t *at = json_object_get(seen, rk);
		if (!at) {
			json_t *row = json_pack("{s:O}", "frame", v);
			if (sym)
				json_object_set(row, "symbol", (json_t *)sym);
			if (sb)
				json_object_set(row, "symbolic", (json_t *)sb);
			at = json_integer((json_int_t)json_array_size(rows));
			json_array_append_new(rows, row);
			json_object_set_new(seen, rk, at);
		}
		free(rk);
		json_array_append(stack, at);
	}
	return out;
}

json_t *hmpt_plan_json_compact(const json_t *plan)
{
	json_t *out = json_object(), *rows = json_array(), *seen = json_object(), *v, *g;
	const char *key;
	size_t i, k;

	json_object_foreach((json_t *)plan, key, v)
	{
		if (!strcmp(key, "format_version")) {
			json_object_set_new(out, key, json_integer(HMPT_PLAN_VERSION_COMPACT));
			continue;
		}
		if (strcmp(key, "groups")) {
			if (strcmp(key, "frames"))
				json_object_set(out, key, v);
			continue;
		}
		json_t *groups = json_array();
		json_object_set_new(out, key, groups);
		json_array_foreach(v, i, g)
		{
			json_t *ng = json_object(), *x, *site;
			const char *gk;
			json_array_append_new(groups, ng); /* out owns what follows */
			json_object_foreach(g, gk, x)
			{
				if (strcmp(gk, "sites")) {
					json_object_set(ng, gk, x);
					continue;
				}
				json_t *sites = json_array();
				json_object_set_new(ng, gk, sites);
				json_array_foreach(x, k, site)
				{
					json_t *ns = site_compact(site, rows, seen);
					if (!ns)
						goto nomem;
					json_array_append_new(sites, ns);
				}
			}
		}
		json_object_set(out, "frames", rows);
	}
	json_decref(rows);
	json_decref(seen);
	return out;
nomem:
	json_decref(rows);
	json_decref(seen);
	json_decref(out);
	return NULL;
}

int hmpt_plan_json_expand(json_t *plan)
{
	const json_t *rows = json_object_get(plan, "frames"), *g, *x;
	bool share = false;
	size_t i, k, j;

	if (json_integer_value(json_object_get(plan, "format_version")) < HMPT_PLAN_VERSION_COMPACT)
		return 0;
	json_array_foreach(json_object_get(plan, "groups"), i, g)
	{
		json_t *site;
		share |= json_object_get(g, "share") != NULL;
		json_array_foreach(json_object_get(g, "sites"), k, site)
		{
			json_t *frames = json_array(), *syms = json_array(), *symb = json_array();
			bool any_sym = false, any_symb = false;
			json_array_foreach(json_object_get(site, "stack"), j, x)
			{
				const json_t *row =
				    json_array_get(rows, (size_t)json_integer_value(x));
				const json_t *sym = json_object_get(row, "symbol"),
				             *sb = json_object_get(row, "symbolic");
				if (!row) {
					json_decref(frames), json_decref(syms), json_decref(symb);
					return -1;
				}
				json_array_append(frames, json_object_get(row, "frame"));
				json_array_append_new(syms, sym ? json_incref((json_t *)sym)
				                                : json_string(""));
				json_array_append_new(symb,
				                      sb ? json_incref((json_t *)sb) : json_null());
				any_sym |= sym != NULL;
				any_symb |= sb != NULL;
			}
			/* where "stack" stood, for people reading the result */
			json_t *ns = json_object(), *v;
			const char *key;
			json_object_foreach(site, key, v)
			{
				if (strcmp(key, "stack")) {
					json_object_set(ns, key, v);
					continue;
				}
				json_object_set(ns, "frames", frames);
				if (any_sym)
					json_object_set(ns, "symbols", syms);
				if (any_symb)
					json_object_set(ns, "symbolic", symb);
			}
			json_decref(frames), json_decref(syms), json_decref(symb);
			json_array_set_new(json_object_get(g, "sites"), k, ns);
		}
	}
	json_object_del(plan, "frames");
	json_object_set_new(plan, "format_version",
	                    json_integer(share ? HMPT_PLAN_VERSION_SPLIT : HMPT_PLAN_VERSION));
	return 0;
}

/* v as JSON, indented by two spaces a level from `indent` */
static void put_indented(FILE *f, const json_t *v, int indent)
{
	char *text = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);

	for (const char *p = text; p && *p; p++) {
		fputc(*p, f);
		if (*p == '\n')
			fprintf(f, "%*s", indent, "");
	}
	free(text);
}

/* a member name, quoted as JSON */
static void put_key(FILE *f, const char *key, bool first, const char *indent)
{
	json_t *k = json_string(key);
	char *name = json_dumps(k, JSON_ENCODE_ANY);

	fprintf(f, "%s\n%s%s: ", first ? "" : ",", indent, name ? name : "\"\"");
	free(name);
	json_decref(k);
}

/* v on one line */
static void put_line(FILE *f, const json_t *v)
{
	char *text = json_dumps(v, JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);

	fputs(text ? text : "null", f);
	free(text);
}

/* A format-4 plan as text: pools and groups indented as people read them,
 * each site and each frames row on a line of its own. */
static char *plan_text(const json_t *plan)
{
	char *text = NULL;
	size_t len = 0, i, k;
	FILE *f = open_memstream(&text, &len);
	const char *key;
	json_t *v, *g, *x, *site;
	bool first = true;

	if (!f)
		return NULL;
	fputs("{", f);
	json_object_foreach((json_t *)plan, key, v)
	{
		put_key(f, key, first, "  ");
		first = false;
		if (!strcmp(key, "frames") && json_array_size(v)) {
			fputs("[", f);
			json_array_foreach(v, i, x)
			{
				fputs(i ? ",\n    " : "\n    ", f);
				put_line(f, x);
			}
			fputs("\n  ]", f);
			continue;
		}
		if (strcmp(key, "groups") || !json_array_size(v)) {
			put_indented(f, v, 2);
			continue;
		}
		fputs("[", f);
		json_array_foreach(v, i, g)
		{
			const char *gk;
			bool gfirst = true;
			fputs(i ? ",\n    {" : "\n    {", f);
			json_object_foreach(g, gk, x)
			{
				put_key(f, gk, gfirst, "      ");
				gfirst = false;
				if (strcmp(gk, "sites") || !json_array_size(x)) {
					put_indented(f, x, 6);
					continue;
				}
				fputs("[", f);
				json_array_foreach(x, k, site)
				{
					fputs(k ? ",\n        " : "\n        ", f);
					put_line(f, site);
				}
				fputs("\n      ]", f);
			}
			fputs("\n    }", f);
		}
		fputs("\n  ]", f);
	}
	fputs("\n}", f);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int hmpt_plan_emit(const json_t *plan, const char *path)
{
	json_t *compact = hmpt_plan_json_compact(plan);
	char *text = compact ? plan_text(compact) : NULL;
	char err[1024];
	static hmpt_plan_t check;
	int rc = -1;

	json_decref(compact);
	if (!text)
		return -1;
	/* the same loader as the shim's must accept it */
	if (hmpt_plan_parse(text, strlen(text), path ? path : "(plan)", &check, err, sizeof(err)) !=
	    0) {
		fprintf(stderr, "hmpt-tune: the plan would not be valid: %s\n", err);
	} else {
		hmpt_plan_free(&check);
		hmpt_outfile_t out;
		if (!path) {
			if (printf("%s\n", text) >= 0 && fflush(stdout) == 0)
				rc = 0;
			else
				fprintf(stderr, "hmpt-tune: stdout: %s\n", strerror(errno));
		} else if (hmpt_outfile_open(&out, path)) {
			fprintf(out.f, "%s\n", text);
			rc = hmpt_outfile_close(&out);
		}
	}
	free(text);
	return rc;
}

void hmpt_plan_created_now(char when[32])
{
	time_t now = time(NULL);
	struct tm tm;

	strftime(when, 32, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
}
