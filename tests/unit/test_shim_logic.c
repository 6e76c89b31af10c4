/* test_shim_logic.c — the shim's pure logic: options, formatting, extents,
 * profile path patterns, site hashing.  Run from the repository root. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "extents.h"
#include "fmt.h"
#include "options.h"
#include "profile.h"
#include "sites.h"

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
	CHECK(r.n == 0);
	CHECK(v[HMPT_OPT_MIN_SIZE].num == 65536 && v[HMPT_OPT_MIN_SIZE].set);
	CHECK(v[HMPT_OPT_STACK_DEPTH].num == 8);
	CHECK(v[HMPT_OPT_PROFILE].str && strcmp(v[HMPT_OPT_PROFILE].str, "/tmp/p.%p.json") == 0);
	CHECK(v[HMPT_OPT_VERBOSE].num == 0 && !v[HMPT_OPT_VERBOSE].set);

	r.n = 0;
	hmpt_options_load(bad_size, v, text, collect, &r);
	CHECK(r.n == 1);
	CHECK(strstr(r.last, "HMPT_MIN_SIZE='abc'") && strstr(r.last, "default 1M"));
	CHECK(v[HMPT_OPT_MIN_SIZE].num == 1 << 20 && !v[HMPT_OPT_MIN_SIZE].set);

	r.n = 0;
	hmpt_options_load(bad_range, v, text, collect, &r);
	CHECK(r.n == 1 && strstr(r.last, "HMPT_STACK_DEPTH") && strstr(r.last, "1 to 64"));
	CHECK(v[HMPT_OPT_STACK_DEPTH].num == 16);

	r.n = 0;
	hmpt_options_load(unknown, v, text, collect, &r);
	CHECK(r.n == 1 && strstr(r.last, "unknown variable HMPT_FOO"));

	r.n = 0;
	hmpt_options_load(empty, v, text, collect, &r);
	CHECK(r.n == 1 && v[HMPT_OPT_PROFILE].str == NULL);

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
	CHECK(v[HMPT_OPT_PLAN].str == NULL);

	/* every option is documented */
	for (int i = 0; i < HMPT_OPT_COUNT; i++)
		CHECK(hmpt_options_g[i].name && hmpt_options_g[i].meaning &&
		      hmpt_options_g[i].def_text);
}

static void test_fmt(void)
{
	char buf[64];
	hmpt_fmt_t f;

	hmpt_fmt_init(&f, buf, sizeof(buf), -1);
	hmpt_fmt_u64(&f, 0);
	hmpt_fmt_char(&f, ' ');
	hmpt_fmt_i64(&f, -42);
	hmpt_fmt_char(&f, ' ');
	hmpt_fmt_hex(&f, 0xbeef, 8);
	hmpt_fmt_char(&f, ' ');
	hmpt_fmt_fixed(&f, 1.5, 3);
	CHECK(strcmp(hmpt_fmt_cstr(&f), "0 -42 0000beef 1.500") == 0);

	hmpt_fmt_init(&f, buf, sizeof(buf), -1);
	hmpt_fmt_json_str(&f, "a\"b\\c\n");
	CHECK(strcmp(hmpt_fmt_cstr(&f), "\"a\\\"b\\\\c\\u000a\"") == 0);

	hmpt_fmt_init(&f, buf, sizeof(buf), -1);
	hmpt_fmt_size(&f, 512);
	hmpt_fmt_char(&f, '|');
	hmpt_fmt_size(&f, 1536);
	hmpt_fmt_char(&f, '|');
	hmpt_fmt_size(&f, 64ull << 20);
	CHECK(strcmp(hmpt_fmt_cstr(&f), "512 B|1.50 KiB|64.0 MiB") == 0);

	/* truncation never overruns */
	char small[8];
	hmpt_fmt_init(&f, small, sizeof(small), -1);
	hmpt_fmt_str(&f, "0123456789");
	CHECK(f.truncated && strcmp(hmpt_fmt_cstr(&f), "0123456") == 0);
}

static void test_extents(void)
{
	hmpt_extent_t store[8];
	hmpt_extents_t e;

	hmpt_extents_init(&e, store, 8, 100);
	CHECK(hmpt_extents_take(&e, 10, 1) == 0);
	CHECK(hmpt_extents_take(&e, 5, 1) == 10);
	CHECK(hmpt_extents_take(&e, 4, 8) == 16); /* aligned start */
	CHECK(e.n == 2 && hmpt_extents_free_total(&e) == 81);
	CHECK(hmpt_extents_give(&e, 10, 5) == 0); /* merges with the [15,16) gap */
	CHECK(e.n == 2 && e.v[0].start == 10 && e.v[0].len == 6);
	CHECK(hmpt_extents_take(&e, 7, 1) == 20); /* hole too small: first fit after */
	CHECK(hmpt_extents_take(&e, 6, 1) == 10); /* exact fit of the hole */
	CHECK(hmpt_extents_give(&e, 0, 10) == 0);
	CHECK(hmpt_extents_give(&e, 0, 1) == -EINVAL); /* already free */
	CHECK(hmpt_extents_give(&e, 10, 6) == 0);      /* merges with [0,10) */
	CHECK(e.v[0].start == 0 && e.v[0].len == 16);
	CHECK(hmpt_extents_take_at(&e, 16, 1) == -ENOMEM); /* in use */
	CHECK(hmpt_extents_give(&e, 16, 4) == 0);
	CHECK(hmpt_extents_give(&e, 20, 7) == 0); /* everything merges back */
	CHECK(e.n == 1 && e.v[0].start == 0 && e.v[0].len == 100);
	CHECK(hmpt_extents_take_at(&e, 50, 10) == 0);
	CHECK(hmpt_extents_take_at(&e, 55, 1) == -ENOMEM);
	CHECK(hmpt_extents_take(&e, 60, 1) == -ENOMEM);
	CHECK(hmpt_extents_take(&e, 50, 1) == 0);
	CHECK(hmpt_extents_take(&e, 0, 1) == -EINVAL);
	CHECK(hmpt_extents_take(&e, 1, 3) == -EINVAL); /* alignment not a power of two */
	CHECK(hmpt_extents_free_total(&e) == 40);

	/* a full table refuses to split, and nothing is lost */
	hmpt_extent_t tiny[2];
	hmpt_extents_init(&e, tiny, 2, 10);
	CHECK(hmpt_extents_take(&e, 10, 1) == 0);
	CHECK(hmpt_extents_give(&e, 1, 1) == 0);
	CHECK(hmpt_extents_give(&e, 5, 1) == 0);
	CHECK(hmpt_extents_give(&e, 8, 1) == -ENOSPC);
	CHECK(hmpt_extents_free_total(&e) == 2);
}

static void test_profile_path(void)
{
	char buf[256], want[256];
	char host[256];

	CHECK(hmpt_profile_path("/tmp/x.%p.json", false, buf, sizeof(buf)) == 0);
	snprintf(want, sizeof(want), "/tmp/x.%d.json", (int)getpid());
	CHECK(strcmp(buf, want) == 0);
	CHECK(hmpt_profile_path("/tmp/x.json", true, buf, sizeof(buf)) == 0);
	snprintf(want, sizeof(want), "/tmp/x.json.%d", (int)getpid());
	CHECK(strcmp(buf, want) == 0);
	CHECK(hmpt_profile_path("a%%b%e", false, buf, sizeof(buf)) == 0);
	CHECK(strcmp(buf, "a%btest_shim_logic") == 0);
	gethostname(host, sizeof(host));
	host[strcspn(host, ".")] = '\0';
	CHECK(hmpt_profile_path("%h", false, buf, sizeof(buf)) == 0 && strcmp(buf, host) == 0);
	CHECK(hmpt_profile_path("", false, buf, sizeof(buf)) == -EINVAL);
	CHECK(hmpt_profile_path("0123456789abcdef", false, buf, 8) == -ENAMETOOLONG);
}

static void test_hash(void)
{
	/* FNV-1a 64 test vectors: ids must never change between versions */
	CHECK(hmpt_hash_bytes(HMPT_HASH_SEED, "", 0) == 0xcbf29ce484222325ull);
	CHECK(hmpt_hash_bytes(HMPT_HASH_SEED, "a", 1) == 0xaf63dc4c8601ec8cull);
	CHECK(hmpt_hash_bytes(HMPT_HASH_SEED, "foobar", 6) == 0x85944171f73967e8ull);
}

int main(void)
{
	test_parse_size();
	test_options_load();
	test_fmt();
	test_extents();
	test_profile_path();
	test_hash();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
