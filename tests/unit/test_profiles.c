/* test_profiles.c — the tuner's profile loader (field-level errors), merger
 * and frame parser (profiles.c), on small files written here; and the plan
 * entry that plancmd.c makes of a cut site and of a JIT site's prefix. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "planout.h"
#include "profiles.h"
#include "symbolize.h"

static char dir[] = "/tmp/hmpt-test-profile.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

#define GOOD_HEAD                                                                                  \
	"{\"format\": \"hmpt-profile\", \"format_version\": 2,"                                    \
	" \"process\": {\"pid\": %d, \"exe\": \"/bin/x\"},"                                        \
	" \"totals\": {\"tracked_allocations\": 2, \"tracked_bytes\": %d,"                         \
	" \"peak_tracked_bytes\": 10, \"live_tracked_bytes\": 0, \"peak_rss_bytes\": %d,"          \
	" \"untracked_large\": 0},"                                                                \
	" \"modules\": [{\"name\": \"x\", \"path\": \"/bin/x\", \"build_id\": \"\"}],"

static const char *profile(int pid, int bytes, int rss, const char *sites)
{
	static char buf[16384];
	snprintf(buf, sizeof(buf), GOOD_HEAD " \"sites\": [%s]}", pid, bytes, rss, sites);
	return buf;
}

static const char *site(const char *id, int allocs, int bytes, int max, double first)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]),
	         "{\"id\": \"%s\", \"frames\": [\"x!0x1234\", \"libc.so.6!0x2724a\"],"
	         " \"allocations\": %d, \"bytes\": %d, \"max_size\": %d, \"peak_live_bytes\": %d,"
	         " \"live_bytes\": 0, \"first_s\": %g, \"last_s\": %g}",
	         id, allocs, bytes, max, bytes, first, first + 1);
	return buf[k];
}

static void expect_error(const char *text, const char *needle)
{
	char err[512] = "";
	const char *path = write_file("bad.json", text);
	json_t *p = hmpt_prof_load(path, err, sizeof(err));
	if (p || !strstr(err, needle) || !strstr(err, "bad.json")) {
		fprintf(stderr, "expected an error with '%s', got '%s'\n", needle, err);
		failures++;
	}
	json_decref(p);
}

int main(void)
{
	char err[512], both[8192];

	if (!mkdtemp(dir))
		return 77;
	/* errors name the file, the field and what was expected */
	expect_error("{", "bad.json:");
	expect_error("[]", "expected an object");
	expect_error("{\"format\": \"other\"}", "format: expected \"hmpt-profile\"");
	expect_error("{\"format\": \"hmpt-profile\", \"format_version\": 3}", "format_version");
	expect_error("{\"format\": \"hmpt-profile\", \"format_version\": 0}", "format_version");
	expect_error(profile(1, 10, 5, site("a", 1, -3, 1, 0)),
	             "sites[0].bytes: expected an integer >= 0");
	expect_error(profile(1, 10, 5,
	                     "{\"id\": \"a\", \"frames\": [3], \"allocations\": 1, \"bytes\": 1,"
	                     " \"max_size\": 1, \"peak_live_bytes\": 1, \"live_bytes\": 0,"
	                     " \"first_s\": 0, \"last_s\": 0}"),
	             "sites[0].frames");
	expect_error(
	    profile(1, 10, 5,
	            "{\"id\": \"a\", \"frames\": [\"nobang\"], \"allocations\": 1, \"bytes\": 1,"
	            " \"max_size\": 1, \"peak_live_bytes\": 1, \"live_bytes\": 0,"
	            " \"first_s\": 0, \"last_s\": 0}"),
	    "sites[0].frames[0]: expected a string \"module!0xoffset\"");

	/* a version-1 profile: its ids are recomputed without the runtime's
	 * frames, so that a shifted libc frame changes nothing */
	{
		char v1[16384];
		snprintf(v1, sizeof(v1), "%s",
		         profile(1, 10, 5, site("0123456789abcdef", 1, 1, 1, 0)));
		char *ver = strstr(v1, "\"format_version\": 2");
		ver[18] = '1';
		json_t *p = hmpt_prof_load(write_file("v1.json", v1), err, sizeof(err));
		CHECK_OP(p, !=, NULL);
		json_t *s0 = json_array_get(json_object_get(p, "sites"), 0);
		json_t *shifted = json_pack("[s,s]", "x!0x1234", "libc.so.6!0x2728a");
		json_t *alone = json_pack("[s]", "x!0x1234");
		char id1[17], id2[17];
		CHECK_OP(hmpt_prof_site_id(shifted, id1), ==, 0);
		CHECK_OP(hmpt_prof_site_id(alone, id2), ==, 0);
		CHECK(s0 && !strcmp(hmpt_prof_str(s0, "id"), id1) && !strcmp(id1, id2));
		CHECK_OP(hmpt_prof_u64(p, "format_version"), ==, 2);
		json_decref(shifted);
		json_decref(alone);
		json_decref(p);
	}

	/* one id twice in one profile (stacks differing in runtime frames
	 * only): one site, its counts summed */
	{
		char two[2048];
		snprintf(two, sizeof(two), "%s, %s, %s", site("aaaa", 1, 100, 100, 0.5),
		         site("bbbb", 2, 50, 30, 0.1), site("aaaa", 3, 300, 200, 0.2));
		json_t *p = hmpt_prof_load(write_file("dup.json", profile(1, 450, 5, two)), err,
		                           sizeof(err));
		CHECK(p && json_array_size(json_object_get(p, "sites")) == 2);
		json_t *a = json_array_get(json_object_get(p, "sites"), 0);
		CHECK(a && !strcmp(hmpt_prof_str(a, "id"), "aaaa") &&
		      hmpt_prof_u64(a, "allocations") == 4 && hmpt_prof_u64(a, "bytes") == 400 &&
		      hmpt_prof_u64(a, "max_size") == 200);
		CHECK(!json_object_get(p, "processes"));
		CHECK_OP(hmpt_prof_u64(json_object_get(p, "totals"), "tracked_bytes"), ==, 450);
		json_decref(p);
	}

	/* a version-1 site as deep as stack_depth, with a runtime frame, was cut
	 * at a depth that counted it: marked, and a plan matches it as a prefix
	 * of all its frames */
	{
		char v1[16384];
		snprintf(v1, sizeof(v1), "%s",
		         profile(1, 10, 5, site("0123456789abcdef", 1, 1, 1, 0)));
		char *ver = strstr(v1, "\"format_version\": 2");
		ver[18] = '1';
		char *sites = strstr(v1, "\"sites\"");
		char with[16384];
		snprintf(with, sizeof(with), "%.*s\"settings\": {\"stack_depth\": %%d}, %s",
		         (int)(sites - v1), v1, sites);
		for (int depth = 2; depth <= 3; depth++) {
			snprintf(v1, sizeof(v1), with, depth);
			json_t *p = hmpt_prof_load(write_file("v1cut.json", v1), err, sizeof(err));
			CHECK_OP(p, !=, NULL);
			json_t *s0 = json_array_get(json_object_get(p, "sites"), 0);
			CHECK_OP(json_is_true(json_object_get(s0, "cut")), ==, (depth == 2));
			hmpt_sym_t *sym = hmpt_sym_new();
			json_t *e = hmpt_plan_site_entry(p, s0, 0, sym);
			const char *m = hmpt_prof_str(e, "match");
			CHECK(depth == 2 ? m && !strcmp(m, "prefix") && !json_object_get(e, "id") &&
			                       json_array_size(json_object_get(e, "frames")) == 2
			                 : !m && json_object_get(e, "id"));
			json_decref(e);
			hmpt_sym_free(sym);
			json_decref(p);
		}
	}

	/* frames in no module ("??", JIT code) are no part of an id: two such
	 * sites that differ only there are one; a version-2 site written before,
	 * its id over them too, gets today's id (and "cut" where the depth
	 * counted them); an id of neither kind is left as it is */
	{
		static const char *jit_site =
		    "{\"id\": \"%s\", \"frames\": [\"?\?!0x7f00%s\", \"x!0x1234\", "
		    "\"libc.so.6!0x2724a\"], \"allocations\": 1, \"bytes\": %d, \"max_size\": 1,"
		    " \"peak_live_bytes\": 1, \"live_bytes\": 0, \"first_s\": 0, \"last_s\": 1}";
		json_t *fr =
		    json_pack("[s,s,s]", "?\?!0x7f001006", "x!0x1234", "libc.so.6!0x2724a");
		json_t *own = json_pack("[s]", "x!0x1234");
		char today[17], alone[17], old[17], a[512], b[512], text[4096];
		CHECK_OP(hmpt_prof_site_id(fr, today), ==, 0);
		CHECK_OP(hmpt_prof_site_id(own, alone), ==, 0);
		CHECK_STREQ(today, alone);
		snprintf(old, sizeof(old), "%016llx",
		         (unsigned long long)hmpt_hash_frame(
		             hmpt_hash_frame(HMPT_HASH_SEED, 0, 0x7f001006),
		             hmpt_hash_module("x", 1), 0x1234));
		CHECK(strcmp(old, today) != 0);
		/* today's id and the old one, two JIT addresses: one site */
		snprintf(a, sizeof(a), jit_site, today, "2006", 10);
		snprintf(b, sizeof(b), jit_site, old, "1006", 20);
		for (int depth = 1; depth <= 2; depth++) {
			char both2[1100];
			snprintf(both2, sizeof(both2), "%s, %s", a, b);
			const char *body = profile(1, 30, 5, both2);
			snprintf(text, sizeof(text), "%.*s\"settings\": {\"stack_depth\": %d}, %s",
			         (int)(strstr(body, "\"sites\"") - body), body, depth,
			         strstr(body, "\"sites\""));
			json_t *p = hmpt_prof_load(write_file("jit.json", text), err, sizeof(err));
			CHECK_OP(p, !=, NULL);
			json_t *sites = json_object_get(p, "sites");
			CHECK_OP(json_array_size(sites), ==, 1);
			json_t *s0 = json_array_get(sites, 0);
			CHECK(s0 && !strcmp(hmpt_prof_str(s0, "id"), today) &&
			      hmpt_prof_u64(s0, "bytes") == 30);
			/* the old stack's depth counted the "??" frame: cut at 2 */
			CHECK_OP(json_is_true(json_object_get(s0, "cut")), ==, (depth == 2));
			/* a prefix of one frame, "??" alone, would name nothing: it
			 * reaches x's frame */
			hmpt_sym_t *sym = hmpt_sym_new();
			json_t *e = hmpt_plan_site_entry(p, s0, 1, sym);
			CHECK_OP(json_array_size(json_object_get(e, "frames")), ==, 2);
			json_decref(e);
			hmpt_sym_free(sym);
			json_decref(p);
		}
		snprintf(a, sizeof(a), jit_site, "aaaa", "1006", 10);
		json_t *p =
		    hmpt_prof_load(write_file("jit2.json", profile(1, 10, 5, a)), err, sizeof(err));
		CHECK(p &&
		      !strcmp(hmpt_prof_str(json_array_get(json_object_get(p, "sites"), 0), "id"),
		              "aaaa"));
		/* only frames in no module: no prefix of them names anything, the
		 * whole stack is the site */
		json_t *s0 = json_array_get(json_object_get(p, "sites"), 0);
		json_object_set_new(s0, "frames",
		                    json_pack("[s,s]", "?\?!0x7f001006", "?\?!0x7f002006"));
		hmpt_sym_t *sym = hmpt_sym_new();
		json_t *e = hmpt_plan_site_entry(p, s0, 1, sym);
		CHECK(!json_object_get(e, "match") && json_object_get(e, "id") &&
		      json_array_size(json_object_get(e, "frames")) == 2);
		json_decref(e);
		hmpt_sym_free(sym);
		json_decref(p);
		json_decref(fr);
		json_decref(own);
	}

	/* merge: the same site in two processes adds up */
	snprintf(both, sizeof(both), "%s, %s", site("aaaa", 1, 100, 100, 0.5),
	         site("bbbb", 2, 50, 30, 0.1));
	json_t *p1 = hmpt_prof_load(write_file("profile.1.json", profile(11, 150, 1000, both)), err,
	                            sizeof(err));
	snprintf(both, sizeof(both), "%s", site("aaaa", 3, 300, 200, 0.2));
	json_t *p2 = hmpt_prof_load(write_file("profile.2.json", profile(22, 300, 3000, both)), err,
	                            sizeof(err));
	CHECK(p1 && p2);
	/* site aaaa walked with a 16 KiB stride in both processes, most
	 * samples from one instruction */
	for (int k = 0; k < 2 && p1 && p2; k++) {
		json_t *sj = json_array_get(json_object_get(k ? p2 : p1, "sites"), 0);
		CHECK_STREQ(hmpt_prof_str(sj, "id"), "aaaa");
		json_object_set_new(sj, "samples", json_pack("{s:i}", "n", 10));
		json_t *ss = json_object_get(sj, "samples");
		json_object_set_new(ss, "pattern",
		                    json_pack("{s:s,s:i,s:i,s:i,s:[{s:i,s:i}]}", "order",
		                              "first touch", "steps", 100, "forward", 100,
		                              "adjacent", 0, "steps_by_value", "step", 16384, "n",
		                              60));
		json_object_set_new(ss, "ips",
		                    k ? json_pack("[{s:s,s:i},{s:s,s:i}]", "at", "x!0x10", "n", 7,
		                                  "at", "x!0x20", "n", 1)
		                      : json_pack("[{s:s,s:i}]", "at", "x!0x10", "n", 5));
	}
	if (p1 && p2) {
		json_t *in[2] = {p1, p2};
		const char *files[2] = {"profile.1.json", "profile.2.json"};
		json_t *m = hmpt_prof_merge(in, files, 2, 22);
		json_t *sites = json_object_get(m, "sites");
		CHECK_OP(json_array_size(sites), ==, 2);
		json_t *a = json_array_get(sites, 0); /* sorted by bytes */
		CHECK_STREQ(hmpt_prof_str(a, "id"), "aaaa");
		CHECK_OP(hmpt_prof_u64(a, "allocations"), ==, 4);
		CHECK_OP(hmpt_prof_u64(a, "bytes"), ==, 400);
		CHECK_OP(hmpt_prof_u64(a, "max_size"), ==, 200);
		CHECK_OP(json_real_value(json_object_get(a, "first_s")), ==, 0.2);
		CHECK_OP(json_real_value(json_object_get(a, "last_s")), ==, 1.5);
		/* the pattern of the summed counts: 120 of 200 steps of 16 KiB */
		json_t *pat = json_object_get(json_object_get(a, "samples"), "pattern");
		CHECK_OP(hmpt_prof_u64(pat, "steps"), ==, 200);
		CHECK_STREQ(hmpt_prof_str(pat, "kind"), "strided");
		CHECK_OP(hmpt_prof_u64(pat, "stride"), ==, 16384);
		CHECK_OP(
		    hmpt_prof_u64(json_array_get(json_object_get(pat, "steps_by_value"), 0), "n"),
		    ==, 120);
		json_t *ips = json_object_get(json_object_get(a, "samples"), "ips");
		CHECK_OP(json_array_size(ips), ==, 2);
		CHECK_STREQ(hmpt_prof_str(json_array_get(ips, 0), "at"), "x!0x10");
		CHECK_OP(hmpt_prof_u64(json_array_get(ips, 0), "n"), ==, 12);
		json_t *t = json_object_get(m, "totals");
		CHECK_OP(hmpt_prof_u64(t, "tracked_bytes"), ==, 450);
		CHECK_OP(hmpt_prof_u64(t, "peak_rss_bytes"), ==, 3000); /* max, not sum */
		CHECK_OP(hmpt_prof_u64(json_object_get(m, "process"), "pid"), ==, 22);
		CHECK_OP(json_array_size(json_object_get(m, "processes")), ==, 2);
		CHECK(hmpt_prof_module_path(m, "x") &&
		      !strcmp(hmpt_prof_module_path(m, "x"), "/bin/x"));
		/* what is written reads back, every field of it: the merged sites,
		 * totals, processes and modules, not only something that loads */
		char out[256];
		snprintf(out, sizeof(out), "%s/profile.json", dir);
		CHECK_OP(hmpt_prof_write(m, out), ==, 0);
		json_t *back = hmpt_prof_load(out, err, sizeof(err));
		CHECK_OP(back, !=, NULL);
		CHECK(back && json_equal(back, m));
		if (back && !json_equal(back, m)) {
			char *w = json_dumps(m, JSON_SORT_KEYS | JSON_COMPACT);
			char *r = json_dumps(back, JSON_SORT_KEYS | JSON_COMPACT);
			fprintf(stderr, "written: %s\nread back: %s\n", w, r);
			free(w);
			free(r);
		}
		json_decref(back);
		json_decref(m);
	}
	json_decref(p1);
	json_decref(p2);

	/* frames */
	char mod[64];
	uint64_t off = 0;
	CHECK_OP(hmpt_prof_parse_frame("libc.so.6!0x2724a", mod, sizeof(mod), &off), ==, 0);
	CHECK_STREQ(mod, "libc.so.6");
	CHECK_OP(off, ==, 0x2724a);
	CHECK_OP(hmpt_prof_parse_frame("x!0x", mod, sizeof(mod), &off), !=, 0);
	CHECK_OP(hmpt_prof_parse_frame("x!0x12zz", mod, sizeof(mod), &off), !=, 0);
	CHECK_OP(hmpt_prof_parse_frame("nobang", mod, sizeof(mod), &off), !=, 0);
	/* the shim's rule: the last '!', 0x or 0X, a module and digits */
	CHECK_OP(hmpt_prof_parse_frame("a!b.so!0X1F", mod, sizeof(mod), &off), ==, 0);
	CHECK_STREQ(mod, "a!b.so");
	CHECK_OP(off, ==, 0x1f);
	CHECK_OP(hmpt_prof_parse_frame("!0x12", mod, sizeof(mod), &off), !=, 0);
	CHECK_OP(hmpt_prof_parse_frame("x!0x12!", mod, sizeof(mod), &off), !=, 0);
	CHECK_OP(hmpt_prof_parse_frame("x!12", mod, sizeof(mod), &off), !=, 0);
	CHECK_OP(hmpt_prof_parse_frame("x!0x10000000000000000", mod, sizeof(mod), &off), !=, 0);
	CHECK_OP(hmpt_prof_parse_frame(NULL, mod, sizeof(mod), &off), !=, 0);
	CHECK_OP(hmpt_prof_parse_frame(
	             "a-module-name-longer-than-the-buffer-of-sixty-four-characters-for-sure!0x1",
	             mod, sizeof(mod), &off),
	         !=, 0);

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		failures++;
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
