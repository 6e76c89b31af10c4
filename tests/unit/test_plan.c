/* test_plan.c — the plan loader: every malformed plan of tests/plans/bad.tsv
 * gives its one expected message; the examples load with the right
 * meaning; matching picks the most specific site; site ids (hash.h, FNV-1a
 * test vectors) leave runtime frames and frames in no module out; stale.c's
 * lines.  Run from the
 * repository root. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "hash.h"
#include "plan.h"
#include "siteid.h"
#include "stale.h"

static hmpt_plan_t plan;

static void test_bad_table(void)
{
	FILE *t = fopen("bad.tsv", "r");
	char line[1024], path[1100], err[1024];
	int n = 0;

	CHECK_OP(t, !=, NULL);
	if (!t)
		return;
	while (fgets(line, sizeof(line), t)) {
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		snprintf(path, sizeof(path), "bad/%s.json", line);
		int rc = hmpt_plan_load(path, &plan, err, sizeof(err));
		if (rc != -EINVAL || !strstr(err, tab + 1)) {
			fprintf(stderr, "%s: rc %d, message\n  %s\nexpected to contain\n  %s\n",
			        path, rc, err, tab + 1);
			failures++;
		}
		/* one line, no newline inside */
		CHECK(!strchr(err, '\n'));
		n++;
	}
	fclose(t);
	fprintf(stderr, "bad plans: %d cases\n", n);
	CHECK_OP(n, >=, 45);
}

static void test_missing_file(void)
{
	char err[512];

	CHECK_OP(hmpt_plan_load("no/such/plan.json", &plan, err, sizeof(err)), ==, -ENOENT);
	CHECK_STREQ(err, "no/such/plan.json: No such file or directory");
	CHECK_OP(hmpt_plan_load(".", &plan, err, sizeof(err)), ==, -EINVAL);
	CHECK_STREQ(err, ".: not a regular file");
}

static int pool_index(const char *name)
{
	for (int i = 0; i < plan.npools; i++)
		if (!strcmp(plan.pools[i].name, name))
			return i;
	return -100;
}

static void test_examples(void)
{
	static const char *const files[] = {"xeonmax-flat", "thp-vs-4k",      "hugetlb",
	                                    "memkind-hbw",  "interleave-cxl", "tiers"};
	char path[256], err[1024];

	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "../../plans/examples/%s.json", files[i]);
		int rc = hmpt_plan_load(path, &plan, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "%s: %s\n", path, err);
			failures++;
			continue;
		}
		hmpt_plan_free(&plan);
	}

	CHECK_OP(hmpt_plan_load("../../plans/examples/tiers.json", &plan, err, sizeof(err)), ==, 0);
	int fast = pool_index("fast"), cold = pool_index("cold");
	CHECK(fast >= 0 && plan.pools[fast].nodes == HMPT_NODES_TIER &&
	      plan.pools[fast].tier == 0 && plan.pools[fast].local);
	CHECK(cold >= 0 && plan.pools[cold].nodes == HMPT_NODES_TIER &&
	      plan.pools[cold].tier == HMPT_TIER_SLOWEST && !plan.pools[cold].local &&
	      plan.pools[cold].policy == HMPT_POLICY_INTERLEAVE);
	hmpt_plan_free(&plan);

	CHECK_OP(hmpt_plan_load("../../plans/examples/xeonmax-flat.json", &plan, err, sizeof(err)),
	         ==, 0);
	CHECK_OP(plan.npools, ==, 2);
	int hbm = pool_index("hbm"), ddr = pool_index("ddr");
	CHECK_OP(hbm, ==, 0);
	CHECK_OP(ddr, ==, 1);
	CHECK_OP(plan.default_pool, ==, ddr);
	CHECK(plan.pools[hbm].nodes == HMPT_NODES_HBM && plan.pools[hbm].local);
	CHECK_OP(plan.pools[hbm].policy, ==, HMPT_POLICY_BIND);
	CHECK_OP(plan.pools[hbm].capacity, ==, 60ull << 30);
	CHECK_OP(plan.pools[hbm].fallback, ==, ddr);
	CHECK_OP(plan.pools[ddr].fallback, ==, HMPT_POOL_SYSTEM); /* the default pool */
	CHECK_OP(plan.stack_depth, ==, 16);
	CHECK_OP(plan.ngroups, ==, 2);
	CHECK_OP(plan.nsites, ==, 2);
	CHECK_STREQ(plan.groups[0].name, "grid");
	CHECK_OP(plan.groups[0].pool, ==, hbm);
	CHECK(plan.sites[0].nframes == 5 && !plan.sites[0].prefix);
	CHECK_STREQ(plan.sites[0].modules[2], "libc.so.6");
	CHECK_OP(plan.sites[0].offsets[2], ==, 0x271ca);
	CHECK(plan.sites[1].prefix && plan.sites[1].nframes == 1);
	CHECK(plan.provenance && hmpt_json_get(plan.provenance, "tool"));
	CHECK_STREQ(hmpt_plan_pool_name(&plan, HMPT_POOL_SYSTEM), "system");
	hmpt_plan_free(&plan);

	CHECK_OP(
	    hmpt_plan_load("../../plans/examples/interleave-cxl.json", &plan, err, sizeof(err)), ==,
	    0);
	int spread = pool_index("spread");
	CHECK_OP(spread, >=, 0);
	if (spread >= 0) {
		CHECK_OP(plan.pools[spread].nodes, ==, HMPT_NODES_LIST);
		CHECK(hmpt_nodemask_has(&plan.pools[spread].list, 0) &&
		      hmpt_nodemask_has(&plan.pools[spread].list, 2) &&
		      !hmpt_nodemask_has(&plan.pools[spread].list, 1));
		CHECK(plan.pools[spread].policy == HMPT_POLICY_INTERLEAVE &&
		      !plan.pools[spread].local);
	}
	CHECK(plan.has_ddr_nodes && hmpt_nodemask_weight(&plan.ddr_nodes) == 1);
	hmpt_plan_free(&plan);

	CHECK_OP(hmpt_plan_load("../../plans/examples/memkind-hbw.json", &plan, err, sizeof(err)),
	         ==, 0);
	CHECK_STREQ(plan.pools[0].backend->name, "memkind");
	CHECK_STREQ(plan.pools[0].backend->kinds[plan.pools[0].kind].name, "hbw");
	hmpt_plan_free(&plan);
}

static int parse(const char *text)
{
	char err[1024];
	int rc = hmpt_plan_parse(text, strlen(text), "t.json", &plan, err, sizeof(err));
	if (rc)
		fprintf(stderr, "parse: %s\n", err);
	return rc;
}

static uint64_t h(const char *m)
{
	return hmpt_hash_module(m, strlen(m));
}

static void test_match(void)
{
	const char *text =
	    "{\"format\": \"hmpt-plan\", \"format_version\": 1,\n"
	    " \"pools\": {\"p\": {}, \"q\": {\"capacity\": \"25%\"}},\n"
	    " \"groups\": [\n"
	    "  {\"name\": \"whole\", \"pool\": \"p\", \"sites\": [{\"frames\": [\"a!0x1\", "
	    "\"b!0x2\", "
	    "\"c!0x3\"]}]},\n"
	    "  {\"name\": \"short\", \"pool\": \"q\", \"sites\": [{\"frames\": [\"a!0x1\"], "
	    "\"match\": \"prefix\"}]},\n"
	    "  {\"name\": \"long\", \"pool\": \"system\", \"sites\": [{\"frames\": [\"a!0x1\", "
	    "\"b!0x2\"], \"match\": \"prefix\"}, {\"frames\": [\"?\?!0x7f00\"]}]}\n"
	    " ]}";
	uint64_t hs[4], offs[4];

	CHECK_OP(parse(text), ==, 0);
	CHECK_OP(plan.pools[1].capacity_pct, ==, 25);
	CHECK_OP(plan.default_pool, ==, HMPT_POOL_SYSTEM);
	CHECK_OP(plan.pools[0].fallback, ==, HMPT_POOL_SYSTEM);
	CHECK_OP(plan.groups[2].pool, ==, HMPT_POOL_SYSTEM);
	/* a, b, c: the whole stack */
	hs[0] = h("a"), hs[1] = h("b"), hs[2] = h("c"), hs[3] = h("d");
	offs[0] = 1, offs[1] = 2, offs[2] = 3, offs[3] = 4;
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 3), ==, 0);
	/* a, b, c, d: not the whole stack; the longer prefix wins */
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 4), ==, 2);
	/* a, b */
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 2), ==, 2);
	/* a */
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 1), ==, 1);
	/* a, x */
	offs[1] = 9;
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 3), ==, 1);
	/* same offsets in another module */
	hs[0] = h("z");
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 3), ==, -1);
	/* a frame outside any module (JIT code) is no identity frame: that
	 * site names the stacks that have none, whatever the address */
	hs[0] = 0, offs[0] = 0x7f00;
	CHECK_OP(plan.sites[3].nid, ==, 0u);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 1), ==, -1);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 0), ==, 3);
	/* ids: the shim's hash over (module hash, offset) */
	uint64_t id = hmpt_hash_frame(
	    hmpt_hash_frame(hmpt_hash_frame(HMPT_HASH_SEED, h("a"), 1), h("b"), 2), h("c"), 3);
	CHECK_OP(plan.sites[0].id, ==, id);
	hmpt_plan_free(&plan);

	/* an id given with the frames is checked against them */
	char buf[512];
	snprintf(buf, sizeof(buf),
	         "{\"format\": \"hmpt-plan\", \"format_version\": 1, \"pools\": {\"p\": {}},"
	         " \"groups\": [{\"pool\": \"p\", \"sites\": [{\"id\": \"%016llx\", \"frames\": "
	         "[\"a!0x1\", \"b!0x2\", \"c!0x3\"]}]}]}",
	         (unsigned long long)id);
	CHECK_OP(parse(buf), ==, 0);
	CHECK_OP(plan.sites[0].id, ==, id);
	hmpt_plan_free(&plan);
}

static void test_hash(void)
{
	/* FNV-1a 64 test vectors: ids must never change between versions */
	CHECK_OP(hmpt_hash_bytes(HMPT_HASH_SEED, "", 0), ==, 0xcbf29ce484222325ull);
	CHECK_OP(hmpt_hash_bytes(HMPT_HASH_SEED, "a", 1), ==, 0xaf63dc4c8601ec8cull);
	CHECK_OP(hmpt_hash_bytes(HMPT_HASH_SEED, "foobar", 6), ==, 0x85944171f73967e8ull);

	/* literal site ids of saved plans (golden/README): the version-1 file's
	 * id (708bdf35a3c58dce) hashes every frame, libc's included, and loads
	 * only while that hash holds; loaded, both name the site by today's id,
	 * the program's own frames only */
	static const struct {
		const char *file;
		uint64_t id;
	} golden[] = {{"golden/alloc_c-v1.json", 0xe2368e6d3bbbee2aull},
	              {"golden/alloc_c-v2.json", 0xe2368e6d3bbbee2aull}};
	for (unsigned i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		hmpt_plan_t plan;
		char err[512];
		CHECK_OP(hmpt_plan_load(golden[i].file, &plan, err, sizeof(err)), ==, 0);
		CHECK_OP(plan.nsites, >=, 1u);
		if (plan.nsites >= 1)
			CHECK_OP(plan.sites[0].id, ==, golden[i].id);
		hmpt_plan_free(&plan);
	}
}

/* siteid.h: runtime frames are no part of a site's identity */
static void test_identity(void)
{
	char buf[2048];
	uint64_t hs[3] = {h("app"), h("app"), h("app")}, offs[3] = {0x10, 0x20, 0x30};
	uint64_t own =
	    hmpt_hash_frame(hmpt_hash_frame(HMPT_HASH_SEED, h("app"), 0x10), h("app"), 0x20);
	uint64_t all =
	    hmpt_hash_frame(hmpt_hash_frame(hmpt_hash_frame(HMPT_HASH_SEED, h("app"), 0x10),
	                                    h("libc.so.6"), 0x271ca),
	                    h("app"), 0x20);
	const char *fmt = "{\"format\": \"hmpt-plan\", \"format_version\": %d,%s \"pools\": "
	                  "{\"p\": {}}, \"groups\": [{\"pool\": \"p\", \"sites\": [{\"id\": "
	                  "\"%016llx\", \"frames\": [\"app!0x10\", \"libc.so.6!0x%x\", "
	                  "\"app!0x20\"]%s}]}]}";

	/* version 2: the id leaves libc out, so a shifted libc frame keeps it */
	snprintf(buf, sizeof(buf), fmt, 2, "", (unsigned long long)own, 0x271ca, "");
	CHECK_OP(parse(buf), ==, 0);
	CHECK_OP(plan.version, ==, 2);
	CHECK_OP(plan.sites[0].id, ==, own);
	CHECK_OP(plan.sites[0].nid, ==, 2);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 2), ==, 0);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 3), ==, -1);
	hmpt_plan_free(&plan);
	snprintf(buf, sizeof(buf), fmt, 2, "", (unsigned long long)own, 0x2720a, "");
	CHECK_OP(parse(buf), ==, 0);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 2), ==, 0);
	hmpt_plan_free(&plan);
	/* version 1: the id of every frame is checked; matching is as in 2 */
	snprintf(buf, sizeof(buf), fmt, 1, "", (unsigned long long)all, 0x271ca, "");
	CHECK_OP(parse(buf), ==, 0);
	CHECK(plan.sites[0].id == own && !plan.sites[0].legacy_prefix);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 2), ==, 0);
	hmpt_plan_free(&plan);
	snprintf(buf, sizeof(buf), fmt, 1, "", (unsigned long long)own, 0x271ca, "");
	CHECK_OP(parse(buf), !=, 0);
	/* a version-1 stack cut at its depth (3 frames, libc among them)
	 * names the first frames of a deeper stack */
	snprintf(buf, sizeof(buf), fmt, 1, " \"stack_depth\": 3,", (unsigned long long)all, 0x271ca,
	         "");
	CHECK_OP(parse(buf), ==, 0);
	CHECK(plan.sites[0].legacy_prefix);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 3), ==, 0);
	hmpt_plan_free(&plan);
	/* only runtime frames: they are the identity */
	CHECK_OP(parse("{\"format\": \"hmpt-plan\", \"format_version\": 2, \"pools\": {\"p\": {}},"
	               " \"groups\": [{\"pool\": \"p\", \"sites\": [{\"frames\": "
	               "[\"libc.so.6!0x5\", \"ld-linux-x86-64.so.2!0x6\"]}]}]}"),
	         ==, 0);
	CHECK_OP(plan.sites[0].nid, ==, 2);
	hmpt_plan_free(&plan);
	/* stacks that differ only in runtime frames are one site: in one group
	 * harmless; in two, a version-1 plan (which loaded before) lets the
	 * first win, a version-2 plan is refused (tests/plans/bad) */
	const char *two = "{\"format\": \"hmpt-plan\", \"format_version\": %d, \"pools\": {\"p\": "
	                  "{}}, \"groups\": [{\"pool\": \"p\", \"sites\": [{\"frames\": "
	                  "[\"app!0x10\", \"libc.so.6!0x5\"]}%s]}%s]}";
	snprintf(buf, sizeof(buf), two, 1, "",
	         ", {\"pool\": \"system\", \"sites\": [{\"frames\": [\"app!0x10\", "
	         "\"libc.so.6!0x9\"]}]}");
	CHECK_OP(parse(buf), ==, 0);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 1), ==, 0);
	hmpt_plan_free(&plan);
	snprintf(buf, sizeof(buf), two, 2, ", {\"frames\": [\"app!0x10\", \"libc.so.6!0x9\"]}", "");
	CHECK_OP(parse(buf), ==, 0);
	CHECK_OP(plan.nsites, ==, 2);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 1), ==, 0);
	hmpt_plan_free(&plan);
	/* modules and symbolic frames */
	snprintf(buf, sizeof(buf), fmt, 2,
	         " \"modules\": {\"app\": {\"build_id\": \"0aFf\", \"path\": \"/x/app\"}},",
	         (unsigned long long)own, 0x271ca,
	         ", \"symbolic\": [{\"function\": \"f\", \"file\": \"a.c\", \"line\": 3, "
	         "\"discriminator\": 2, \"position\": 1, \"positions\": 3}, null, {}]");
	CHECK_OP(parse(buf), ==, 0);
	CHECK_OP(plan.nmodules, ==, 1);
	if (plan.nmodules >= 1) {
		CHECK_OP(plan.modules[0].build_id_len, ==, 2);
		CHECK_OP(plan.modules[0].build_id[0], ==, 0x0a);
		CHECK_OP(plan.modules[0].build_id[1], ==, 0xff);
	}
	CHECK_OP(hmpt_plan_module(&plan, h("app")), ==, 0);
	CHECK_OP(hmpt_plan_module(&plan, h("b")), ==, -1);
	hmpt_plan_free(&plan);
}

/* siteid.h: frames in no module ("??", JIT code at other addresses in
 * every run) are no part of an id; the old version-2 ids that hashed them
 * still load */
static void test_identity_anon(void)
{
	static const hmpt_siteid_class_t O = HMPT_SITEID_FRAME_OWNED, R = HMPT_SITEID_FRAME_RUNTIME,
	                                 A = HMPT_SITEID_FRAME_ANON;
	uint32_t idx[8];

	/* the rules on classes */
	CHECK_OP(hmpt_siteid_class("??"), ==, A);
	CHECK_OP(hmpt_siteid_class("libc.so.6"), ==, R);
	CHECK_OP(hmpt_siteid_class("app"), ==, O);
	CHECK_OP(hmpt_siteid_class("??x"), ==, O); /* only the marker itself */
	const hmpt_siteid_class_t mixed[] = {A, O, R, A, O};
	CHECK_OP(hmpt_siteid_frames(mixed, 5, HMPT_SITEID_OWNED, idx), ==, 2u);
	CHECK(idx[0] == 1 && idx[1] == 4);
	CHECK_OP(hmpt_siteid_frames(mixed, 5, HMPT_SITEID_OWNED_ANON, idx), ==, 4u);
	CHECK(idx[0] == 0 && idx[1] == 1 && idx[2] == 3 && idx[3] == 4);
	CHECK_OP(hmpt_siteid_frames(mixed, 5, HMPT_SITEID_ALL, idx), ==, 5u);
	const hmpt_siteid_class_t jit_rt[] = {A, R, A, R}; /* no owned frame: the runtime's */
	CHECK_OP(hmpt_siteid_frames(jit_rt, 4, HMPT_SITEID_OWNED, idx), ==, 2u);
	CHECK(idx[0] == 1 && idx[1] == 3);
	CHECK_OP(hmpt_siteid_frames(jit_rt, 4, HMPT_SITEID_OWNED_ANON, idx), ==, 2u);
	CHECK(idx[0] == 0 && idx[1] == 2);
	const hmpt_siteid_class_t jit[] = {A, A}; /* nothing names it: no frame */
	CHECK_OP(hmpt_siteid_frames(jit, 2, HMPT_SITEID_OWNED, idx), ==, 0u);
	CHECK_OP(hmpt_siteid_hash(NULL, NULL, idx, 0), ==, HMPT_HASH_SEED);
	CHECK_OP(hmpt_siteid_frames(jit, 2, HMPT_SITEID_OWNED_ANON, idx), ==, 2u);

	/* a plan: the id is the owned frames', wherever the JIT code was */
	char buf[2048];
	uint64_t hs[3] = {h("app"), h("app"), h("app")}, offs[3] = {0x10, 0x20, 0x30};
	uint64_t own =
	    hmpt_hash_frame(hmpt_hash_frame(HMPT_HASH_SEED, h("app"), 0x10), h("app"), 0x20);
	uint64_t old = hmpt_hash_frame(
	    hmpt_hash_frame(hmpt_hash_frame(HMPT_HASH_SEED, 0, 0x7f0000001006), h("app"), 0x10),
	    h("app"), 0x20);
	const char *fmt = "{\"format\": \"hmpt-plan\", \"format_version\": %d,%s \"pools\": "
	                  "{\"p\": {}}, \"groups\": [{\"pool\": \"p\", \"sites\": [{\"id\": "
	                  "\"%016llx\", \"frames\": [\"?\?!0x%llx\", \"app!0x10\", "
	                  "\"libc.so.6!0x5\", \"app!0x20\"]}]}]}";
	for (unsigned long long jit_at = 0x7f0000001006; jit_at < 0x7f0000003000;
	     jit_at += 0x1000) {
		snprintf(buf, sizeof(buf), fmt, 2, "", (unsigned long long)own, jit_at);
		CHECK_OP(parse(buf), ==, 0);
		CHECK_OP(plan.sites[0].id, ==, own);
		CHECK_OP(plan.sites[0].nid, ==, 2u);
		CHECK(!plan.sites[0].legacy_prefix);
		CHECK_OP(hmpt_plan_match(&plan, hs, offs, 2), ==, 0);
		hmpt_plan_free(&plan);
	}
	/* written before: its id hashed the frame (module hash 0, the address) */
	snprintf(buf, sizeof(buf), fmt, 2, "", (unsigned long long)old, 0x7f0000001006ull);
	CHECK_OP(parse(buf), ==, 0);
	CHECK_OP(plan.sites[0].id, ==, own);
	CHECK(!plan.sites[0].legacy_prefix);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 2), ==, 0);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 3), ==, -1);
	hmpt_plan_free(&plan);
	/* ... and cut at a depth that counted it: a prefix of deeper stacks */
	snprintf(buf, sizeof(buf), fmt, 2, " \"stack_depth\": 3,", (unsigned long long)old,
	         0x7f0000001006ull);
	CHECK_OP(parse(buf), ==, 0);
	CHECK(plan.sites[0].legacy_prefix);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 3), ==, 0);
	hmpt_plan_free(&plan);
	/* today's id with that depth: not cut (the depth does not count it) */
	snprintf(buf, sizeof(buf), fmt, 2, " \"stack_depth\": 3,", (unsigned long long)own,
	         0x7f0000001006ull);
	CHECK_OP(parse(buf), ==, 0);
	CHECK(!plan.sites[0].legacy_prefix);
	hmpt_plan_free(&plan);
	/* two such old sites, differing only there, in two groups: they loaded
	 * before, so the first one wins; with today's ids, ambiguous */
	const char *two = "{\"format\": \"hmpt-plan\", \"format_version\": 2, \"pools\": {\"p\": "
	                  "{}}, \"groups\": [{\"pool\": \"p\", \"sites\": [{\"id\": \"%016llx\", "
	                  "\"frames\": [\"?\?!0x7f0000001006\", \"app!0x10\", \"libc.so.6!0x5\", "
	                  "\"app!0x20\"]}]}, {\"pool\": \"system\", \"sites\": [{\"id\": "
	                  "\"%016llx\", \"frames\": [\"?\?!0x7f0000002006\", \"app!0x10\", "
	                  "\"libc.so.6!0x5\", \"app!0x20\"]}]}]}";
	uint64_t old2 = hmpt_hash_frame(
	    hmpt_hash_frame(hmpt_hash_frame(HMPT_HASH_SEED, 0, 0x7f0000002006), h("app"), 0x10),
	    h("app"), 0x20);
	snprintf(buf, sizeof(buf), two, (unsigned long long)old, (unsigned long long)old2);
	CHECK_OP(parse(buf), ==, 0);
	CHECK(plan.nsites == 2 && plan.sites[0].legacy_anon && plan.sites[1].legacy_anon);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 2), ==, 0);
	hmpt_plan_free(&plan);
	snprintf(buf, sizeof(buf), two, (unsigned long long)own, (unsigned long long)own);
	CHECK_OP(parse(buf), !=, 0);
	/* the old id of another address is an edit */
	snprintf(buf, sizeof(buf), fmt, 2, "", (unsigned long long)old, 0x7f0000002006ull);
	CHECK_OP(parse(buf), !=, 0);
	/* version 1 hashed every frame, this one too */
	uint64_t all = hmpt_hash_frame(
	    hmpt_hash_frame(
	        hmpt_hash_frame(hmpt_hash_frame(HMPT_HASH_SEED, 0, 0x7f0000001006), h("app"), 0x10),
	        h("libc.so.6"), 0x5),
	    h("app"), 0x20);
	snprintf(buf, sizeof(buf), fmt, 1, "", (unsigned long long)all, 0x7f0000001006ull);
	CHECK_OP(parse(buf), ==, 0);
	CHECK_OP(plan.sites[0].id, ==, own);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 2), ==, 0);
	hmpt_plan_free(&plan);
	snprintf(buf, sizeof(buf), fmt, 1, "", (unsigned long long)old, 0x7f0000001006ull);
	CHECK_OP(parse(buf), !=, 0);

	/* only frames in no module: an id of no frame, matching such stacks */
	const char *only = "{\"format\": \"hmpt-plan\", \"format_version\": 2, \"pools\": {\"p\": "
	                   "{}}, \"groups\": [{\"pool\": \"p\", \"sites\": [{\"frames\": "
	                   "[\"?\?!0x7f0000001006\", \"?\?!0x7f0000002000\"]%s}]}]}";
	snprintf(buf, sizeof(buf), only, "");
	CHECK_OP(parse(buf), ==, 0);
	CHECK_OP(plan.sites[0].nid, ==, 0u);
	CHECK_OP(plan.sites[0].id, ==, HMPT_HASH_SEED);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 0), ==, 0);
	CHECK_OP(hmpt_plan_match(&plan, hs, offs, 1), ==, -1);
	hmpt_plan_free(&plan);
	/* as a prefix it would match every stack: refused */
	char err[512];
	snprintf(buf, sizeof(buf), only, ", \"match\": \"prefix\"");
	CHECK_OP(hmpt_plan_parse(buf, strlen(buf), "t.json", &plan, err, sizeof(err)), ==, -EINVAL);
	CHECK(strstr(err, "sites[0].frames: a prefix of frames in no module") != NULL);
}

static void test_fallback_defaults(void)
{
	const char *text = "{\"format\": \"hmpt-plan\", \"format_version\": 1,\n"
	                   " \"pools\": {\"a\": {\"fallback\": \"c\"}, \"b\": {}, \"c\": {}},\n"
	                   " \"default_pool\": \"b\", \"groups\": []}";

	CHECK_OP(parse(text), ==, 0);
	CHECK_OP(plan.pools[0].fallback, ==, 2);                /* given, to a pool defined later */
	CHECK_OP(plan.pools[1].fallback, ==, HMPT_POOL_SYSTEM); /* the default pool */
	CHECK_OP(plan.pools[2].fallback, ==, 1);                /* the default pool */
	hmpt_plan_free(&plan);
	/* the default pool falls back to b: b's unwritten fallback would lead
	 * back to it, so b falls back to system (no cycle) */
	CHECK_OP(
	    parse("{\"format\": \"hmpt-plan\", \"format_version\": 1, \"pools\": {\"a\": "
	          "{\"fallback\": \"b\"}, \"b\": {}}, \"default_pool\": \"a\", \"groups\": []}"),
	    ==, 0);
	CHECK_OP(plan.pools[0].fallback, ==, 1);
	CHECK_OP(plan.pools[1].fallback, ==, HMPT_POOL_SYSTEM);
	hmpt_plan_free(&plan);
}

/* A group's share (version 3), read by hand to parts per million: exact to
 * the millionth, the next digit rounds; "rest" defaults to the default
 * pool; no share: the whole block. */
static void test_share(void)
{
	static const struct {
		const char *lit;
		int ppm; /* -1: refused */
	} cases[] = {
	    {"0.5", 500000},       {"1", 1000000},   {"1.0", 1000000},  {"0.3333333", 333333},
	    {"0.6666667", 666667}, {"0.0000005", 1}, {"0.0000004", -1}, {"0", -1},
	    {"1.5", -1},           {"1e-1", -1},     {"-0.5", -1},      {"0.25", 250000}};
	char buf[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(buf, sizeof(buf),
		         "{\"format\": \"hmpt-plan\", \"format_version\": 3, \"pools\": {\"f\": "
		         "{}, \"s\": {}}, \"default_pool\": \"s\", \"groups\": [{\"pool\": \"f\", "
		         "\"share\": %s, \"sites\": [{\"frames\": [\"app!0x10\"]}]}]}",
		         cases[i].lit);
		if (cases[i].ppm < 0) { /* refused: quietly here, t_plan_bad has the words */
			char err[1024];
			CHECK_OP(
			    hmpt_plan_parse(buf, strlen(buf), "t.json", &plan, err, sizeof(err)),
			    ==, -EINVAL);
			continue;
		}
		int rc = parse(buf);
		CHECK_OP(rc, ==, 0);
		if (rc == 0) {
			CHECK_OP(plan.groups[0].share, ==, (uint32_t)cases[i].ppm);
			CHECK_OP(plan.groups[0].rest, ==, 1); /* the default pool */
			hmpt_plan_free(&plan);
		}
	}
	CHECK_OP(parse("{\"format\": \"hmpt-plan\", \"format_version\": 2, \"pools\": {\"f\": "
	               "{}}, \"groups\": [{\"pool\": \"f\", \"sites\": [{\"frames\": "
	               "[\"app!0x10\"]}]}]}"),
	         ==, 0);
	CHECK_OP(plan.groups[0].share, ==, HMPT_PLAN_SHARE_ONE);
	hmpt_plan_free(&plan);
}

/* stale.c's exit line: whole groups, parts of groups, sites of modules not
 * loaded left out, "placed nothing" only when nothing matched, and a long
 * list cut after six groups. */
static void test_stale_line(void)
{
	char buf[1024];
	hmpt_fmt_t f;
	hmpt_fmt_t *fp = &f;
	uint8_t matched[16] = {0}, relevant[16];

	CHECK_OP(
	    parse("{\"format\": \"hmpt-plan\", \"format_version\": 2,\n"
	          " \"pools\": {\"p\": {}},\n"
	          " \"groups\": [\n"
	          "  {\"name\": \"G1\", \"pool\": \"p\", \"sites\": [{\"frames\": [\"a!0x1\"]},\n"
	          "   {\"frames\": [\"a!0x2\"]}]},\n"
	          "  {\"name\": \"G2\", \"pool\": \"p\", \"sites\": [{\"frames\": [\"a!0x3\"]},\n"
	          "   {\"frames\": [\"a!0x4\"]}, {\"frames\": [\"b!0x5\"]}]}]}"),
	    ==, 0);
	memset(relevant, 1, sizeof(relevant));
#define LINE(want)                                                                                 \
	do {                                                                                       \
		hmpt_fmt_init(fp, buf, sizeof(buf), -1);                                           \
		hmpt_stale_describe(fp, &plan, matched, relevant);                                 \
		CHECK_STREQ(hmpt_fmt_cstr(fp), want);                                              \
		if (strcmp(buf, want))                                                             \
			fprintf(stderr, "got: %s\n", buf);                                         \
	} while (0)
	LINE("t.json placed nothing: group G1 (2 sites) and group G2 (3 sites) matched no "
	     "allocation: was the program rebuilt or its libraries updated?");
	matched[2] = 1;
	LINE("t.json: group G1 (2 sites) and 2 of 3 sites of group G2 matched no allocation: was "
	     "the program rebuilt or its libraries updated?");
	relevant[4] = 0; /* module b never loaded: another program's site */
	matched[0] = 1;
	LINE("t.json: 1 of 2 sites of group G1 and 1 of 3 sites of group G2 matched no "
	     "allocation: was the program rebuilt or its libraries updated?");
	matched[1] = matched[3] = 1;
	hmpt_fmt_init(fp, buf, sizeof(buf), -1);
	CHECK_OP(hmpt_stale_describe(fp, &plan, matched, relevant), ==, 0);
	CHECK_OP(f.len, ==, 0);
	/* no site relevant: the modules not loaded, once each */
	uint64_t loaded[1] = {hmpt_hash_module("a", 1)};
	hmpt_fmt_init(fp, buf, sizeof(buf), -1);
	CHECK_OP(hmpt_stale_describe_unloaded(fp, &plan, loaded, 0), ==, 2);
	CHECK_STREQ(hmpt_fmt_cstr(fp), "t.json placed nothing: its sites name a and b, which this "
	                               "program did not load: was it renamed, or is this another "
	                               "program?");
	hmpt_fmt_init(fp, buf, sizeof(buf), -1);
	CHECK_OP(hmpt_stale_describe_unloaded(fp, &plan, loaded, 1), ==, 1);
	CHECK_STREQ(hmpt_fmt_cstr(fp), "t.json placed nothing: its sites name b, which this "
	                               "program did not load: was it renamed, or is this another "
	                               "program?");
	hmpt_plan_free(&plan);

	char text[4096];
	hmpt_fmt_init(fp, text, sizeof(text), -1);
	hmpt_fmt_str(fp,
	             "{\"format\": \"hmpt-plan\", \"format_version\": 2, \"pools\": {\"p\": {}},"
	             " \"groups\": [");
	for (int g = 0; g < 9; g++) {
		hmpt_fmt_str(fp, g ? ", {\"name\": \"g" : "{\"name\": \"g");
		hmpt_fmt_u64(fp, (uint64_t)g);
		hmpt_fmt_str(fp, "\", \"pool\": \"p\", \"sites\": [{\"frames\": [\"a!0x");
		hmpt_fmt_u64(fp, (uint64_t)g + 1);
		hmpt_fmt_str(fp, "\"]}]}");
	}
	hmpt_fmt_str(fp, "]}");
	CHECK_OP(parse(hmpt_fmt_cstr(fp)), ==, 0);
	memset(matched, 0, sizeof(matched));
	memset(relevant, 1, sizeof(relevant));
	matched[0] = 1;
	LINE("t.json: group g1 (1 site), group g2 (1 site), group g3 (1 site), group g4 (1 site), "
	     "group g5 (1 site), group g6 (1 site) and 2 more groups matched no allocation: was "
	     "the program rebuilt or its libraries updated?");
#undef LINE
	hmpt_plan_free(&plan);
}

int main(void)
{
	if (chdir("tests/plans") != 0) {
		perror("tests/plans");
		return 1;
	}
	test_bad_table();
	test_missing_file();
	test_examples();
	test_match();
	test_hash();
	test_identity();
	test_identity_anon();
	test_fallback_defaults();
	test_share();
	test_stale_line();
	return failures != 0;
}
