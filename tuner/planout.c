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

int hmpt_plan_emit(const json_t *plan, const char *path)
{
	char *text = json_dumps(plan, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	char err[1024];
	static hmpt_plan_t check;
	int rc = -1;

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
