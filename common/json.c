/* json.c — see json.h.  A recursive-descent reader over a byte buffer;
 * nodes and decoded strings go to one bump region, so nothing is freed one
 * by one and nothing calls malloc. */
#include "json.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "fmt.h"
#include "sys.h"

#define MAX_INPUT ((size_t)64 << 20)

typedef struct {
	const char *p, *end;
	const char *line_start;
	uint32_t line;
	char *mem; /* bump region */
	size_t used, cap;
	hmpt_json_error_t *err;
	int depth;
} reader_t;

static uint32_t col_of(const reader_t *r, const char *at)
{
	return (uint32_t)(at - r->line_start) + 1;
}

/* what is at `at`, for messages: 'x', "end of input", "byte 0xc3" */
static void describe_at(hmpt_fmt_t *f, const reader_t *r, const char *at)
{
	if (at >= r->end)
		hmpt_fmt_str(f, "end of input");
	else if ((unsigned char)*at >= 0x20 && (unsigned char)*at < 0x7f)
		hmpt_fmt_printf(f, "'%c'", *at);
	else
		hmpt_fmt_printf(f, "byte 0x%02x", (unsigned char)*at);
}

/* Error at `at` (on the current line); `got` adds ", got X". */
static int fail(reader_t *r, const char *at, const char *msg, bool got)
{
	hmpt_fmt_t f;

	r->err->line = r->line;
	r->err->col = col_of(r, at);
	hmpt_fmt_init(&f, r->err->msg, sizeof(r->err->msg), -1);
	hmpt_fmt_str(&f, msg);
	if (got) {
		hmpt_fmt_str(&f, ", got ");
		describe_at(&f, r, at);
	}
	hmpt_fmt_cstr(&f);
	return -EINVAL;
}

static void *bump(reader_t *r, size_t n, size_t align)
{
	size_t at = (r->used + align - 1) & ~(align - 1);

	if (at + n > r->cap || at + n < at)
		return NULL;
	r->used = at + n;
	return r->mem + at;
}

static void skip_space(reader_t *r)
{
	while (r->p < r->end) {
		char c = *r->p;
		if (c == '\n') {
			r->line++;
			r->line_start = ++r->p;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			r->p++;
		} else {
			break;
		}
	}
}

static hmpt_json_t *new_node(reader_t *r, hmpt_json_type_t t, const char *at)
{
	hmpt_json_t *n = bump(r, sizeof(*n), _Alignof(hmpt_json_t));

	if (n) {
		memset(n, 0, sizeof(*n));
		n->type = t;
		n->line = r->line;
		n->col = col_of(r, at);
	}
	return n;
}

/* ------------------------------------------------------------- strings */

static int hex4(const char *p, const char *end, unsigned *out)
{
	unsigned v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs,
 * no surrogates, at most U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	size_t n;
	unsigned lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* Reads a string at r->p (at the opening quote); *out gets the decoded,
 * NUL-terminated text. */
static int read_string(reader_t *r, const char **out, size_t *out_len)
{
	const char *start = r->p++;
	/* decoded text is never longer than the source */
	char *o = bump(r, (size_t)(r->end - r->p) + 1, 1);
	size_t len = 0;

	if (!o)
		return -ENOMEM;
	for (;;) {
		if (r->p >= r->end)
			return fail(r, start, "unterminated string", false);
		unsigned char c = (unsigned char)*r->p;
		if (c == '"') {
			r->p++;
			break;
		}
		if (c < 0x20)
			return fail(r, r->p,
			            c == '\n' ? "unterminated string (a raw newline in a string)"
			                      : "a control character in a string must be escaped",
			            false);
		if (c >= 0x20 && c < 0x80 && c != '\\') {
			/* a run of plain ASCII, copied at once */
			const char *run = r->p;
			while (r->p < r->end && (unsigned char)*r->p >= 0x20 &&
			       (unsigned char)*r->p < 0x80 && *r->p != '"' && *r->p != '\\')
				r->p++;
			memcpy(o + len, run, (size_t)(r->p - run));
			len += (size_t)(r->p - run);
			continue;
		}
		if (c == '\\') {
			const char *esc = r->p++;
			if (r->p >= r->end)
				return fail(r, start, "unterminated string", false);
			char e = *r->p++;
			unsigned cp;
			switch (e) {
			case '"': o[len++] = '"'; break;
			case '\\': o[len++] = '\\'; break;
			case '/': o[len++] = '/'; break;
			case 'b': o[len++] = '\b'; break;
			case 'f': o[len++] = '\f'; break;
			case 'n': o[len++] = '\n'; break;
			case 'r': o[len++] = '\r'; break;
			case 't': o[len++] = '\t'; break;
			case 'u':
				if (hex4(r->p, r->end, &cp) != 0)
					return fail(r, esc, "expected four hex digits after \\u",
					            false);
				r->p += 4;
				if (cp >= 0xdc00 && cp <= 0xdfff)
					return fail(r, esc, "a lone low surrogate in \\u escapes",
					            false);
				if (cp >= 0xd800 && cp <= 0xdbff) {
					unsigned lo;
					if (r->end - r->p < 6 || r->p[0] != '\\' ||
					    r->p[1] != 'u' || hex4(r->p + 2, r->end, &lo) != 0 ||
					    lo < 0xdc00 || lo > 0xdfff)
						return fail(r, esc,
						            "a high surrogate must be followed by "
						            "a low one",
						            false);
					r->p += 6;
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				}
				if (cp == 0)
					return fail(r, esc, "a string may not hold \\u0000", false);
				len += put_utf8(o + len, cp);
				break;
			default: return fail(r, esc, "an unknown escape in a string", false);
			}
			continue;
		}
		size_t n = utf8_len((const unsigned char *)r->p, (const unsigned char *)r->end);
		if (n == 0)
			return fail(r, r->p, "text that is not UTF-8 in a string", true);
		memcpy(o + len, r->p, n);
		len += n;
		r->p += n;
	}
	o[len] = '\0';
	/* give back what the bound reserved beyond the text */
	r->used = (size_t)(o - r->mem) + len + 1;
	*out = o;
	*out_len = len;
	return 0;
}

/* ------------------------------------------------------------- numbers */

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

static int read_number(reader_t *r, hmpt_json_t *n)
{
	const char *s = r->p, *p = r->p;

	if (p < r->end && *p == '-')
		p++;
	if (p >= r->end || !digit(*p))
		return fail(r, s, "invalid number", false);
	if (*p == '0') {
		p++;
		if (p < r->end && digit(*p))
			return fail(r, s, "invalid number (a leading zero)", false);
	} else {
		while (p < r->end && digit(*p))
			p++;
	}
	if (p < r->end && *p == '.') {
		p++;
		if (p >= r->end || !digit(*p))
			return fail(r, s, "invalid number (a digit must follow the point)", false);
		while (p < r->end && digit(*p))
			p++;
	}
	if (p < r->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < r->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= r->end || !digit(*p))
			return fail(r, s, "invalid number (a digit must follow the exponent)",
			            false);
		while (p < r->end && digit(*p))
			p++;
	}
	char *t = bump(r, (size_t)(p - s) + 1, 1);
	if (!t)
		return -ENOMEM;
	memcpy(t, s, (size_t)(p - s));
	t[p - s] = '\0';
	n->str = t;
	n->len = (size_t)(p - s);
	r->p = p;
	return 0;
}

/* --------------------------------------------------------------- values */

static int read_value(reader_t *r, hmpt_json_t **out);

static int expect_word(reader_t *r, const char *w, hmpt_json_type_t t, hmpt_json_t **out)
{
	size_t n = strlen(w);
	const char *at = r->p;

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0)
		return fail(r, at, "expected a value", true);
	*out = new_node(r, t, at);
	if (!*out)
		return -ENOMEM;
	r->p += n;
	return 0;
}

static int read_array(reader_t *r, hmpt_json_t *a)
{
	hmpt_json_t **tail = &a->child;
	int rc;

	r->p++; /* [ */
	skip_space(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
		return 0;
	}
	for (;;) {
		hmpt_json_t *v;
		skip_space(r);
		if ((rc = read_value(r, &v)))
			return rc;
		*tail = v;
		tail = &v->next;
		a->count++;
		skip_space(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == ']') {
			r->p++;
			return 0;
		}
		return fail(r, r->p, "expected ',' or ']' after an array element", true);
	}
}

static int read_object(reader_t *r, hmpt_json_t *o)
{
	hmpt_json_t **tail = &o->child;
	int rc;

	r->p++; /* { */
	skip_space(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
		return 0;
	}
	for (;;) {
		const char *key, *kat;
		size_t klen;
		hmpt_json_t *v;
		skip_space(r);
		kat = r->p;
		if (r->p >= r->end || *r->p != '"')
			return fail(r, r->p, "expected a member name in double quotes", true);
		uint32_t kline = r->line;
		const char *kls = r->line_start;
		if ((rc = read_string(r, &key, &klen)))
			return rc;
		for (const hmpt_json_t *m = o->child; m; m = m->next)
			if (m->key[0] == key[0] && strcmp(m->key, key) == 0) {
				hmpt_fmt_t f;
				r->line = kline;
				r->line_start = kls;
				fail(r, kat, "", false);
				hmpt_fmt_init(&f, r->err->msg, sizeof(r->err->msg), -1);
				hmpt_fmt_str(&f, "duplicate member ");
				hmpt_fmt_json_str(&f, key);
				hmpt_fmt_cstr(&f);
				return -EINVAL;
			}
		skip_space(r);
		if (r->p >= r->end || *r->p != ':')
			return fail(r, r->p, "expected ':' after a member name", true);
		r->p++;
		skip_space(r);
		if ((rc = read_value(r, &v)))
			return rc;
		v->key = key;
		*tail = v;
		tail = &v->next;
		o->count++;
		skip_space(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == '}') {
			r->p++;
			return 0;
		}
		return fail(r, r->p, "expected ',' or '}' after a member", true);
	}
}

static int read_value(reader_t *r, hmpt_json_t **out)
{
	const char *at = r->p;
	hmpt_json_t *n;
	int rc;

	if (r->p >= r->end)
		return fail(r, at, "expected a value", true);
	switch (*r->p) {
	case 'n': return expect_word(r, "null", HMPT_JSON_NULL, out);
	case 't': return expect_word(r, "true", HMPT_JSON_TRUE, out);
	case 'f': return expect_word(r, "false", HMPT_JSON_FALSE, out);
	case '"':
		if (!(n = new_node(r, HMPT_JSON_STRING, at)))
			return -ENOMEM;
		if ((rc = read_string(r, &n->str, &n->len)))
			return rc;
		*out = n;
		return 0;
	case '[':
	case '{':
		if (++r->depth > HMPT_JSON_MAX_DEPTH)
			return fail(r, at, "nesting deeper than 64", false);
		if (!(n = new_node(r, *r->p == '[' ? HMPT_JSON_ARRAY : HMPT_JSON_OBJECT, at)))
			return -ENOMEM;
		rc = n->type == HMPT_JSON_ARRAY ? read_array(r, n) : read_object(r, n);
		r->depth--;
		if (rc)
			return rc;
		*out = n;
		return 0;
	default:
		if (*r->p == '-' || digit(*r->p)) {
			if (!(n = new_node(r, HMPT_JSON_NUMBER, at)))
				return -ENOMEM;
			if ((rc = read_number(r, n)))
				return rc;
			*out = n;
			return 0;
		}
		return fail(r, at, "expected a value", true);
	}
}

int hmpt_json_parse(const char *text, size_t len, hmpt_json_doc_t *doc, hmpt_json_error_t *err)
{
	reader_t r = {.p = text, .end = text + len, .line_start = text, .line = 1, .err = err};
	int rc;

	memset(doc, 0, sizeof(*doc));
	memset(err, 0, sizeof(*err));
	if (len > MAX_INPUT) {
		err->line = err->col = 1;
		hmpt_fmt_text(err->msg, sizeof(err->msg), "larger than 64 MiB");
		return -EINVAL;
	}
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		r.p = r.line_start = text + 3;
	/* every value is at least one byte of text and every string decodes
	 * to at most its own length: nodes for len + 1 values, text twice */
	r.cap = (len + 2) * sizeof(hmpt_json_t) + 2 * len + 64;
	r.mem = hmpt_sys_map(r.cap);
	if (!r.mem)
		return -ENOMEM;
	/* a large document's nodes fault in by the 2 MiB page, not the 4 KiB
	 * one: most of its reading time was page faults */
	if (len >= (1u << 20))
		madvise(r.mem, r.cap, MADV_HUGEPAGE);
	skip_space(&r);
	if (r.p >= r.end) {
		rc = fail(&r, r.p, "empty document: expected a value", false);
		goto bad;
	}
	if ((rc = read_value(&r, &doc->root)))
		goto bad;
	skip_space(&r);
	if (r.p < r.end) {
		rc = fail(&r, r.p, "trailing characters after the document", true);
		goto bad;
	}
	doc->mem = r.mem;
	doc->mem_len = r.cap;
	return 0;
bad:
	hmpt_sys_unmap(r.mem, r.cap);
	doc->root = NULL;
	return rc;
}

void hmpt_json_free(hmpt_json_doc_t *doc)
{
	hmpt_sys_unmap(doc->mem, doc->mem_len);
	memset(doc, 0, sizeof(*doc));
}

const hmpt_json_t *hmpt_json_get(const hmpt_json_t *obj, const char *key)
{
	if (!obj || obj->type != HMPT_JSON_OBJECT)
		return NULL;
	for (const hmpt_json_t *m = obj->child; m; m = m->next)
		if (strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

/* The literal as sign, digits (integer and fraction, no point) and a
 * decimal exponent: whole-number conversion without floating point. */
/* The number's value as significant digits times a power of ten: zeros
 * are counted, not stored, so a literal of any length converts; more than
 * 64 significant digits are never a 64-bit whole number. */
static bool to_u64(const hmpt_json_t *v, bool *neg, uint64_t *out)
{
	char digits[64];
	size_t nd = 0;
	long zeros = 0, shift = 0, exp = 0; /* value = digits * 10^(zeros + shift + exp) */
	bool frac = false;
	const char *p;

	if (!v || v->type != HMPT_JSON_NUMBER)
		return false;
	p = v->str;
	*neg = *p == '-';
	if (*neg)
		p++;
	for (;; p++) {
		if (*p == '.' && !frac) {
			frac = true;
			continue;
		}
		if (!digit(*p))
			break;
		if (frac)
			shift--;
		if (*p == '0') {
			if (nd)
				zeros++; /* stored only if a non-zero digit follows */
			continue;
		}
		if (nd + (size_t)zeros + 1 > sizeof(digits))
			return false;
		for (; zeros; zeros--)
			digits[nd++] = '0';
		digits[nd++] = *p;
	}
	if (*p == 'e' || *p == 'E') {
		bool eneg = *++p == '-';
		if (*p == '+' || *p == '-')
			p++;
		for (; digit(*p); p++)
			if (exp < 100000) /* saturate: only zero survives such a power */
				exp = exp * 10 + (*p - '0');
		if (eneg)
			exp = -exp;
	}
	uint64_t x = 0;
	for (size_t i = 0; i < nd; i++)
		if (__builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (uint64_t)(digits[i] - '0'), &x))
			return false;
	long pow10 = zeros + shift + exp;
	if (x == 0 || pow10 == 0)
		return *out = x, true;
	if (pow10 < 0)
		return false; /* the last digit is not zero: a fraction remains */
	for (long i = 0; i < pow10; i++)
		if (__builtin_mul_overflow(x, 10, &x))
			return false;
	*out = x;
	return true;
}

bool hmpt_json_u64(const hmpt_json_t *v, uint64_t *out)
{
	bool neg;
	uint64_t x = 0;

	/* the common case, digits alone (the reader has checked that they
	 * are a number: no leading zero), at once */
	if (v && v->type == HMPT_JSON_NUMBER && v->len <= 19) {
		size_t i = 0;
		while (i < v->len && digit(v->str[i]))
			x = x * 10 + (uint64_t)(v->str[i++] - '0');
		if (i == v->len) {
			*out = x;
			return true;
		}
	}

	if (!to_u64(v, &neg, &x) || (neg && x))
		return false;
	*out = x;
	return true;
}

bool hmpt_json_i64(const hmpt_json_t *v, int64_t *out)
{
	bool neg;
	uint64_t x;

	if (!to_u64(v, &neg, &x))
		return false;
	if (neg ? x > (uint64_t)INT64_MAX + 1 : x > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? (int64_t)(0 - x) : (int64_t)x;
	return true;
}

const char *hmpt_json_type_name(hmpt_json_type_t t)
{
	static const char *const names[] = {"null",     "false",    "true",     "a number",
	                                    "a string", "an array", "an object"};
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}
