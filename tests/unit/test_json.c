/* test_json.c — the malloc-free JSON reader: values and where they are,
 * exact integers, string decoding, and one precise error for each kind of
 * bad input. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#include "json.h"

static hmpt_json_doc_t doc;
static hmpt_json_error_t err;

static int parse(const char *text)
{
	return hmpt_json_parse(text, strlen(text), &doc, &err);
}

static void test_values(void)
{
	const char *text = "{\n"
	                   "  \"a\": [1, -2.5e3, true, false, null],\n"
	                   "  \"b\": {\"c\": \"x\"},\n"
	                   "    \"d\": \"\"\n"
	                   "}\n";
	CHECK_OP(parse(text), ==, 0);
	const hmpt_json_t *r = doc.root;
	CHECK_OP(r->type, ==, HMPT_JSON_OBJECT);
	CHECK_OP(r->count, ==, 3);
	CHECK_OP(r->line, ==, 1);
	CHECK_OP(r->col, ==, 1);
	const hmpt_json_t *a = hmpt_json_get(r, "a");
	CHECK(a && a->type == HMPT_JSON_ARRAY && a->count == 5 && a->line == 2 && a->col == 8);
	CHECK(a && strcmp(a->key, "a") == 0);
	const hmpt_json_t *e = a ? a->child : NULL;
	CHECK(e && e->type == HMPT_JSON_NUMBER && strcmp(e->str, "1") == 0 && e->col == 9);
	e = e ? e->next : NULL;
	CHECK(e && e->type == HMPT_JSON_NUMBER && strcmp(e->str, "-2.5e3") == 0 && e->col == 12);
	e = e ? e->next : NULL;
	CHECK(e && e->type == HMPT_JSON_TRUE);
	e = e ? e->next : NULL;
	CHECK(e && e->type == HMPT_JSON_FALSE);
	e = e ? e->next : NULL;
	CHECK(e && e->type == HMPT_JSON_NULL && e->next == NULL);
	const hmpt_json_t *c = hmpt_json_get(hmpt_json_get(r, "b"), "c");
	CHECK(c && c->type == HMPT_JSON_STRING && strcmp(c->str, "x") == 0 && c->line == 3 &&
	      c->col == 14);
	const hmpt_json_t *d = hmpt_json_get(r, "d");
	CHECK(d && d->len == 0 && d->line == 4 && d->col == 10);
	CHECK_OP(hmpt_json_get(r, "z"), ==, NULL);
	CHECK_OP(hmpt_json_get(a, "a"), ==, NULL);
	CHECK_OP(hmpt_json_get(NULL, "a"), ==, NULL);
	hmpt_json_free(&doc);

	/* a byte-order mark is skipped; scalars may be the whole document */
	CHECK_OP(parse("\xEF\xBB\xBF  42 "), ==, 0);
	CHECK(doc.root && doc.root->type == HMPT_JSON_NUMBER);
	hmpt_json_free(&doc);
	CHECK_OP(parse("[]"), ==, 0);
	CHECK(doc.root && doc.root->count == 0 && doc.root->child == NULL);
	hmpt_json_free(&doc);
	CHECK_STREQ(hmpt_json_type_name(HMPT_JSON_OBJECT), "an object");

	/* a value on line 3, column 5, inside nested arrays */
	CHECK_OP(parse("[\n [1,\n    true],\n\t{\"k\": []}]"), ==, 0);
	const hmpt_json_t *in = doc.root->child;
	CHECK(in && in->type == HMPT_JSON_ARRAY && in->line == 2 && in->col == 2 && in->count == 2);
	const hmpt_json_t *t = in && in->child ? in->child->next : NULL;
	CHECK(t && t->type == HMPT_JSON_TRUE && t->line == 3 && t->col == 5 && t->key == NULL);
	const hmpt_json_t *o = in ? in->next : NULL;
	CHECK(o && o->type == HMPT_JSON_OBJECT && o->line == 4 && o->col == 2);
	const hmpt_json_t *k = hmpt_json_get(o, "k");
	CHECK(k && k->type == HMPT_JSON_ARRAY && k->count == 0 && k->line == 4 && k->col == 8);
	CHECK_OP(hmpt_json_get(doc.root, "k"), ==, NULL); /* not an object */
	hmpt_json_free(&doc);
	CHECK_OP(doc.root, ==, NULL);
	CHECK_OP(doc.mem, ==, NULL);
}

static int u64_of(const char *text, uint64_t *v)
{
	int ok = parse(text) == 0 && hmpt_json_u64(doc.root, v);
	hmpt_json_free(&doc);
	return ok;
}

static int i64_of(const char *text, int64_t *v)
{
	int ok = parse(text) == 0 && hmpt_json_i64(doc.root, v);
	hmpt_json_free(&doc);
	return ok;
}

static void test_integers(void)
{
	uint64_t u;
	int64_t i;

	CHECK(u64_of("18446744073709551615", &u) && u == UINT64_MAX);
	CHECK(!u64_of("18446744073709551616", &u));
	CHECK(u64_of("0", &u) && u == 0);
	CHECK(!u64_of("-1", &u));
	CHECK(!u64_of("1.5", &u));
	CHECK(!u64_of("\"7\"", &u));
	CHECK(i64_of("-9223372036854775808", &i) && i == INT64_MIN);
	CHECK(!i64_of("-9223372036854775809", &i));
	CHECK(i64_of("9223372036854775807", &i) && i == INT64_MAX);
	CHECK(!i64_of("9223372036854775808", &i));
	CHECK(i64_of("-3", &i) && i == -3);
	/* exponents: whole results convert, fractions do not */
	CHECK(u64_of("1e3", &u) && u == 1000);
	CHECK(u64_of("1E+2", &u) && u == 100);
	CHECK(u64_of("1.5e1", &u) && u == 15);
	CHECK(u64_of("100e-2", &u) && u == 1);
	CHECK(!u64_of("25e-1", &u));
	CHECK(u64_of("-0", &u) && u == 0);
	CHECK(u64_of("0e400", &u) && u == 0);
	CHECK(u64_of("1e19", &u) && u == 10000000000000000000ull);
	CHECK(!i64_of("1e19", &i));
	CHECK(!u64_of("1e20", &u));
	CHECK(!i64_of("-0.5", &i));
	CHECK(i64_of("-1.5e1", &i) && i == -15);
	/* whole numbers written with many digits are still whole numbers */
	CHECK(u64_of("1.0000000000000000000000000000000000000000000000000000000000000000", &u) &&
	      u == 1);
	CHECK(u64_of("0e100001", &u) && u == 0);
}

static void test_strings(void)
{
	CHECK_OP(parse("\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t \\u00e9 \\ud83d\\ude00\""), ==, 0);
	CHECK_STREQ(doc.root->str, "q\" b\\ s/ \b\f\n\r\t \xC3\xA9 \xF0\x9F\x98\x80");
	CHECK_OP(doc.root->len, ==, strlen(doc.root->str));
	hmpt_json_free(&doc);
	CHECK_OP(parse("\"caf\xC3\xA9\""), ==, 0);
	CHECK(doc.root && doc.root->str && strcmp(doc.root->str, "caf\xC3\xA9") == 0);
	hmpt_json_free(&doc);
}

/* text -> error at line:col */
static void bad(const char *text, uint32_t line, uint32_t col, const char *what)
{
	int rc = parse(text);
	if (rc != -EINVAL || err.line != line || err.col != col || !err.msg[0] ||
	    strchr(err.msg, '\n')) {
		fprintf(stderr, "%s: rc %d at %u:%u \"%s\", want -EINVAL at %u:%u\n", what, rc,
		        err.line, err.col, err.msg, line, col);
		failures++;
	}
	if (rc == 0)
		hmpt_json_free(&doc);
}

static void test_errors(void)
{
	char deep[2 * HMPT_JSON_MAX_DEPTH + 8];

	bad("", 1, 1, "empty input");
	bad("   \n ", 2, 2, "white space only");
	bad("{} x", 1, 4, "trailing garbage");
	bad("{\"a\": 1, \"a\": 2}", 1, 10, "duplicate key");
	bad("\"a\\u0000b\"", 1, 3, "\\u0000");
	bad("\"a\tb\"", 1, 3, "raw control character");
	bad("\"\xC3\x28\"", 1, 2, "invalid UTF-8");
	bad("\"\\ud83d\"", 1, 2, "lone high surrogate");
	bad("\"\\ude00\"", 1, 2, "lone low surrogate");
	bad("\"abc", 1, 1, "unterminated string");
	bad("01", 1, 1, "leading zero");
	bad("[1,]", 1, 4, "trailing comma");
	bad("{\"a\" 1}", 1, 6, "missing colon");
	bad("{\n  \"a\": tru\n}", 2, 8, "bad literal");
	bad("\"\\x\"", 1, 2, "unknown escape");
	bad("-", 1, 1, "lone minus");
	bad("1.", 1, 1, "fraction without digits");
	memset(deep, '[', HMPT_JSON_MAX_DEPTH + 1);
	deep[HMPT_JSON_MAX_DEPTH + 1] = '\0';
	bad(deep, 1, HMPT_JSON_MAX_DEPTH + 1, "too deep");
	/* as deep as allowed is fine */
	memset(deep, '[', HMPT_JSON_MAX_DEPTH);
	memset(deep + HMPT_JSON_MAX_DEPTH, ']', HMPT_JSON_MAX_DEPTH);
	deep[2 * HMPT_JSON_MAX_DEPTH] = '\0';
	CHECK_OP(parse(deep), ==, 0);
	hmpt_json_free(&doc);
}

int main(void)
{
	test_values();
	test_integers();
	test_strings();
	test_errors();
	return failures != 0;
}
