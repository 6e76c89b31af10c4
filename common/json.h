/* json.h — a small JSON reader that remembers where every value is.
 *
 * Why: plan errors must name the file, the line and the field; jansson
 * gives positions only for syntax errors.  And the shim reads the plan
 * inside the application, where it may not call malloc: this reader keeps
 * its nodes in one anonymous mapping (hmpt_sys_map), released as a whole.
 * The tuner uses the same reader, so shim and tuner accept the same files.
 *
 * Contract: hmpt_json_parse() reads `len` bytes (RFC 8259 JSON; a leading
 * UTF-8 byte-order mark is skipped; nothing but white space may follow the
 * value).  On success it returns 0 and doc->root; on failure -EINVAL with
 * err filled (line, column, message), or -ENOMEM.  Nesting deeper than
 * HMPT_JSON_MAX_DEPTH, a duplicate member name in one object, a string
 * holding \u0000, a raw control character in a string, and text that is not
 * UTF-8 are errors.  Strings are decoded (escapes, surrogate pairs) into
 * NUL-terminated UTF-8.  Numbers keep their literal text; hmpt_json_u64()
 * and hmpt_json_i64() convert integers exactly.  No malloc, no stdio, no
 * locks; the document is read-only after parsing.  Lines and columns are
 * 1-based; a column counts bytes.
 */
#ifndef HMPT_JSON_H
#define HMPT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HMPT_JSON_MAX_DEPTH 64

typedef enum {
	HMPT_JSON_NULL,
	HMPT_JSON_FALSE,
	HMPT_JSON_TRUE,
	HMPT_JSON_NUMBER,
	HMPT_JSON_STRING,
	HMPT_JSON_ARRAY,
	HMPT_JSON_OBJECT,
} hmpt_json_type_t;

typedef struct hmpt_json hmpt_json_t;
struct hmpt_json {
	hmpt_json_type_t type;
	uint32_t line, col; /* where the value starts */
	const char *key;    /* member name inside an object, else NULL */
	const char *str;    /* STRING: decoded text; NUMBER: the literal */
	size_t len;         /* bytes in str */
	hmpt_json_t *child; /* ARRAY/OBJECT: first element or member */
	hmpt_json_t *next;  /* next element or member of the parent */
	uint32_t count;     /* ARRAY/OBJECT: number of children */
};

typedef struct {
	hmpt_json_t *root;
	void *mem; /* the mapping that holds nodes and strings */
	size_t mem_len;
} hmpt_json_doc_t;

typedef struct {
	uint32_t line, col;
	char msg[160]; /* e.g. "expected ',' or '}' after a member, got 'x'" */
} hmpt_json_error_t;

int hmpt_json_parse(const char *text, size_t len, hmpt_json_doc_t *doc, hmpt_json_error_t *err);
void hmpt_json_free(hmpt_json_doc_t *doc);

/* The member `key` of an object, or NULL (also when obj is not an object). */
const hmpt_json_t *hmpt_json_get(const hmpt_json_t *obj, const char *key);
/* A NUMBER that is a whole number in range: true and *out; false otherwise
 * (fractions, exponents that leave a fraction, overflow, other types). */
bool hmpt_json_u64(const hmpt_json_t *v, uint64_t *out);
bool hmpt_json_i64(const hmpt_json_t *v, int64_t *out);
/* "null", "false", "true", "a number", "a string", "an array", "an object" */
const char *hmpt_json_type_name(hmpt_json_type_t t);

#endif
