/* test_options.c — the HMPT_* table and its parser (common/options.c):
 * sizes with their suffixes and limits, the environment read with one
 * message per bad, out-of-range, unknown or empty variable, and every
 * option documented. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#include "options.h"

static void test_parse_size(void)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t v;
	} cases[] = {
	    {"0", 0, 0},
	    {"4096", 0, 4096},
	    {"64K", 0, 65536},
	    {"64k", 0, 65536},
	    {"1M", 0, 1 << 20},
	    {"1MiB", 0, 1 << 20},
	    {"1mb", 0, 1 << 20},
	    {"2G", 0, 2ull << 30},
	    {"16T", 0, 16ull << 40},
	    {"", -EINVAL, 0},
	    {"abc", -EINVAL, 0},
	    {"-5", -EINVAL, 0},
	    {"1Q", -EINVAL, 0},
	    {"1.5M", -EINVAL, 0},
	    {" 1M", -EINVAL, 0},
	    {"M", -EINVAL, 0},
	    {"18446744073709551615", 0, UINT64_MAX},
	    {"18446744073709551616", -ERANGE, 0},
	    {"17179869184G", -ERANGE, 0},
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		int rc = hmpt_options_parse_size(cases[i].in, &v);
		if (rc != cases[i].rc || (rc == 0 && v != cases[i].v)) {
			fprintf(stderr, "parse_size(\"%s\") = %d, %llu; expected %d, %llu\n",
			        cases[i].in, rc, (unsigned long long)v, cases[i].rc,
			        (unsigned long long)cases[i].v);
			failures++;
		}
	}
}

struct reports {
	int n;
	char last[512];
};

static void collect(const char *msg, void *ctx)
{
	struct reports *r = ctx;
	r->n++;
	snprintf(r->last, sizeof(r->last), "%s", msg);
}

static void test_options_load(void)
{
	hmpt_opt_value_t v[HMPT_OPT_COUNT];
	static char text[HMPT_OPT_COUNT][HMPT_OPT_TEXT_MAX];
	struct reports r = {0};
	char *good[] = {"PATH=/bin", "HMPT_MIN_SIZE=64K", "HMPT_STACK_DEPTH=8",
	                "HMPT_PROFILE=/tmp/p.%p.json", NULL};
	char *bad_size[] = {"HMPT_MIN_SIZE=abc", NULL};
	char *bad_range[] = {"HMPT_STACK_DEPTH=1000", NULL};
	char *unknown[] = {"HMPT_FOO=1", NULL};
	char *empty[] = {"HMPT_PROFILE=", NULL};

	hmpt_options_load(good, v, text, collect, &r);
	CHECK_OP(r.n, ==, 0);
	CHECK(v[HMPT_OPT_MIN_SIZE].num == 65536 && v[HMPT_OPT_MIN_SIZE].set);
	CHECK_OP(v[HMPT_OPT_STACK_DEPTH].num, ==, 8);
	CHECK(v[HMPT_OPT_PROFILE].str && strcmp(v[HMPT_OPT_PROFILE].str, "/tmp/p.%p.json") == 0);
	CHECK(v[HMPT_OPT_VERBOSE].num == 0 && !v[HMPT_OPT_VERBOSE].set);

	r.n = 0;
	hmpt_options_load(bad_size, v, text, collect, &r);
	CHECK_OP(r.n, ==, 1);
	CHECK(strstr(r.last, "HMPT_MIN_SIZE='abc'") && strstr(r.last, "default 1M"));
	CHECK(v[HMPT_OPT_MIN_SIZE].num == 1 << 20 && !v[HMPT_OPT_MIN_SIZE].set);

	r.n = 0;
	hmpt_options_load(bad_range, v, text, collect, &r);
	CHECK(r.n == 1 && strstr(r.last, "HMPT_STACK_DEPTH") && strstr(r.last, "1 to 64"));
	CHECK_OP(v[HMPT_OPT_STACK_DEPTH].num, ==, 16);

	/* an unknown name is someone else's, said nothing of; a near miss of
	 * a known one (two edits at most, case ignored) is a misspelling */
	r.n = 0;
	hmpt_options_load(unknown, v, text, collect, &r);
	CHECK_OP(r.n, ==, 0);
	static const struct {
		const char *entry, *near; /* near: NULL when nothing is said */
	} spelt[] = {
	    {"HMPT_SAMPEL=1", "HMPT_SAMPLE"},           /* swapped neighbours */
	    {"HMPT_plan=x", "HMPT_PLAN"},               /* case */
	    {"HMPT_PLANS=x", "HMPT_PLAN"},              /* one inserted */
	    {"HMPT_MINSIZE=1M", "HMPT_MIN_SIZE"},       /* one dropped */
	    {"HMPT_STACK_DEPHT=4", "HMPT_STACK_DEPTH"}, /* swapped */
	    {"HMPT_VERBOSITY=1", NULL},                 /* four edits */
	    {"HMPT_SRC=/x", NULL},
	    {"HMPT_=1", NULL},
	    {"HMPT_PLANNING=x", NULL}, /* three inserted */
	};
	for (unsigned i = 0; i < sizeof(spelt) / sizeof(spelt[0]); i++) {
		char *one[] = {(char *)spelt[i].entry, NULL};
		r.n = 0;
		hmpt_options_load(one, v, text, collect, &r);
		if (!spelt[i].near) {
			CHECK_OP(r.n, ==, 0);
			CHECK_OP(hmpt_options_nearest(spelt[i].entry), ==, -1);
			continue;
		}
		char want[128];
		snprintf(want, sizeof(want), "unknown variable %.*s ignored: did you mean %s?",
		         (int)strcspn(spelt[i].entry, "="), spelt[i].entry, spelt[i].near);
		CHECK(r.n == 1 && strstr(r.last, want));
	}

	/* the build and test tools' variables are not the shim's, nor unknown;
	 * a near miss of a shim's variable still is */
	char *tools[] = {"HMPT_TEST_TOP=/x",  "HMPT_VM_CACHE=/y",
	                 "HMPT_SLURM_DIR=/z", "HMPT_DEPS=build",
	                 "HMPT_DEPS_KEYS=cc", "HMPT_OS_RELEASE=/etc/os-release",
	                 "HMPT_RANK=1",       NULL};
	r.n = 0;
	hmpt_options_load(tools, v, text, collect, &r);
	CHECK_OP(r.n, ==, 1);
	CHECK(strstr(r.last, "unknown variable HMPT_RANK ignored: did you mean HMPT_RANKS?"));

	r.n = 0;
	hmpt_options_load(empty, v, text, collect, &r);
	CHECK_OP(r.n, ==, 1);
	CHECK_OP(v[HMPT_OPT_PROFILE].str, ==, NULL);

	/* the values are copies: a program may overwrite its environment's
	 * strings (setproctitle) */
	char prof[] = "HMPT_PROFILE=/tmp/q.json";
	char *moved[] = {prof, NULL};
	r.n = 0;
	hmpt_options_load(moved, v, text, collect, &r);
	memset(prof, 0, sizeof(prof));
	CHECK(r.n == 0 && v[HMPT_OPT_PROFILE].str &&
	      strcmp(v[HMPT_OPT_PROFILE].str, "/tmp/q.json") == 0);

	/* the longest value kept, and one byte more: said, naming the variable */
	static char plan[10 + HMPT_OPT_TEXT_MAX + 1] = "HMPT_PLAN=";
	char *longest[] = {plan, NULL};
	memset(plan + 10, 'x', HMPT_OPT_TEXT_MAX - 1);
	r.n = 0;
	hmpt_options_load(longest, v, text, collect, &r);
	CHECK(r.n == 0 && v[HMPT_OPT_PLAN].str && strlen(v[HMPT_OPT_PLAN].str) == 4095);
	plan[10 + HMPT_OPT_TEXT_MAX - 1] = 'x';
	hmpt_options_load(longest, v, text, collect, &r);
	CHECK(r.n == 1 && strstr(r.last, "HMPT_PLAN='xxx") &&
	      strstr(r.last, "4096 bytes, longer than the 4095 hmpt keeps; using the default"));
	CHECK_OP(v[HMPT_OPT_PLAN].str, ==, NULL);

	/* every option is documented */
	for (int i = 0; i < HMPT_OPT_COUNT; i++)
		CHECK(hmpt_options_g[i].name && hmpt_options_g[i].meaning &&
		      hmpt_options_g[i].def_text);
}

int main(void)
{
	test_parse_size();
	test_options_load();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
