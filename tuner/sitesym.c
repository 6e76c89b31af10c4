/* sitesym.c — see sitesym.h. */
#include "sitesym.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiles.h"
#include "siteid.h"

#define MAX_INLINE 16
#define MAX_FRAMES 64

typedef struct {
	const json_t *json;
	size_t n;
	const char *frames[MAX_FRAMES];
	uint64_t offsets[MAX_FRAMES];
	char *keys[MAX_FRAMES]; /* the inline chain's positions; NULL without a line */
	hmpt_symframe_t sym[MAX_FRAMES];
} site_t;

typedef struct {
	json_t *prof; /* a reference: the table describes this object */
	size_t n;
	site_t *sites;
	site_t **by_json; /* the sites by their json's address, for lookup */
} table_t;

static void table_free(void *p)
{
	table_t *t = p;

	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		for (size_t k = 0; k < t->sites[i].n; k++) {
			free(t->sites[i].keys[k]);
			free((char *)t->sites[i].sym[k].variable);
		}
	free(t->sites);
	free(t->by_json);
	json_decref(t->prof);
	free(t);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* frame k of site s: its inline chain, resolved; the key of its chain */
static void resolve(hmpt_sym_t *sym, const json_t *prof, site_t *s, size_t k)
{
	hmpt_sym_frame_t chain[MAX_INLINE];
	hmpt_symframe_t *f = &s->sym[k];
	char module[256];
	uint64_t off;

	if (hmpt_prof_parse_frame(s->frames[k], module, sizeof(module), &off) != 0)
		return;
	int n = hmpt_sym_resolve(sym, hmpt_prof_module_path(prof, module), off, chain, MAX_INLINE);
	if (n < 1 || (!strcmp(chain[0].function, "??") && !chain[0].file))
		return;
	f->known = true;
	f->function = strcmp(chain[0].function, "??") ? chain[0].function : NULL;
	f->file = chain[0].file;
	f->line = chain[0].file ? chain[0].line : 0;
	f->column = chain[0].column;
	f->discriminator = chain[0].discriminator;
	f->inlined_into = n > 1 ? chain[n - 1].function : NULL;
	f->position = f->positions = 1;
	if (!f->file || f->line <= 0)
		return;
	/* one statement: the same functions, files and lines at every level */
	char *key = NULL;
	size_t len;
	FILE *m = open_memstream(&key, &len);
	if (!m)
		return;
	for (int i = 0; i < n; i++)
		fprintf(m, "%s|%s|%d;", chain[i].function, chain[i].file ? chain[i].file : "",
		        chain[i].line);
	if (fclose(m) != 0) {
		free(key);
		key = NULL;
	}
	s->keys[k] = key;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* the source line `lineno` of `path`, or NULL */
static char *source_line(const char *path, int lineno)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	int at = 0;

	if (!f)
		return NULL;
	while (getline(&buf, &cap, f) >= 0)
		if (++at == lineno) {
			fclose(f);
			return buf;
		}
	free(buf);
	fclose(f);
	return NULL;
}

/* a site's frame k, to sort by statement (the frame's key and the frames
 * above it) and offset */
typedef struct {
	site_t *s;
	size_t k;
} at_t;

static int same_statement(const at_t *x, const at_t *y)
{
	int c = strcmp(x->s->keys[x->k], y->s->keys[x->k]);
	for (size_t j = 0; !c && j < x->k; j++)
		c = strcmp(x->s->frames[j], y->s->frames[j]);
	return c;
}

static int cmp_at(const void *a, const void *b)
{
	const at_t *x = a, *y = b;
	int c = same_statement(x, y);
	return c ? c : cmp_u64(&x->s->offsets[x->k], &y->s->offsets[x->k]);
}

/* each frame's position among the calls of its statement (the sites whose
 * frame k has the same key, under the same frames 0..k-1), and its
 * variable: sorted once per depth, n log n, not n^2 (10,000 sites took
 * 100 s of strcmp) */
static void rank_all(table_t *t)
{
	at_t *at = malloc((t->n + 1) * sizeof(*at)); /* not on the stack: 65536 sites */

	if (!at)
		return;
	for (size_t k = 0; k < MAX_FRAMES; k++) {
		size_t m = 0, deeper = 0;
		for (size_t i = 0; i < t->n; i++) {
			deeper += t->sites[i].n > k;
			if (t->sites[i].n > k && t->sites[i].keys[k])
				at[m++] = (at_t){&t->sites[i], k};
		}
		if (!deeper)
			break;
		qsort(at, m, sizeof(at[0]), cmp_at);
		for (size_t a = 0, b; a < m; a = b) {
			int distinct = 1;
			for (b = a + 1; b < m && !same_statement(&at[a], &at[b]); b++)
				distinct += at[b].s->offsets[k] != at[b - 1].s->offsets[k];
			for (size_t i = a, pos = 0; i < b; i++) {
				pos += i == a || at[i].s->offsets[k] != at[i - 1].s->offsets[k];
				hmpt_symframe_t *f = &at[i].s->sym[k];
				f->position = (int)pos;
				f->positions = distinct;
				if (distinct < 2)
					continue;
				char *text = source_line(f->file, f->line), name[256];
				if (text && hmpt_sitesym_variable(text, f->position, f->positions,
				                                  name, sizeof(name)) == 0)
					f->variable = strdup(name);
				free(text);
			}
		}
	}
	free(at);
}

static int cmp_json(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)(*(site_t *const *)a)->json,
	          y = (uintptr_t)(*(site_t *const *)b)->json;
	return (x > y) - (x < y);
}

static table_t *build(hmpt_sym_t *sym, const json_t *prof)
{
	const json_t *sites = json_object_get(prof, "sites"), *site;
	table_t *t = calloc(1, sizeof(*t));
	size_t i;

	if (!t)
		return NULL;
	t->prof = json_incref((json_t *)prof);
	t->sites = calloc(json_array_size(sites) + 1, sizeof(site_t));
	if (!t->sites) {
		table_free(t);
		return NULL;
	}
	json_array_foreach(sites, i, site)
	{
		site_t *s = &t->sites[t->n++];
		const json_t *fr = json_object_get(site, "frames"), *f;
		uint64_t hashes[MAX_FRAMES];
		hmpt_siteid_class_t cls[MAX_FRAMES];
		uint32_t idx[MAX_FRAMES], nid, bad;
		size_t k;
		s->json = site;
		s->n = hmpt_prof_frames(fr, hashes, s->offsets, cls, &bad);
		json_array_foreach(fr, k, f)
		{
			if (k == s->n)
				break;
			s->frames[k] = json_string_value(f) ?: "";
		}
		const char *kind = hmpt_prof_str(site, "kind");
		if (kind && !strcmp(kind, "static")) { /* a data object: its symbol names it */
			if (s->n) {
				s->sym[0] =
				    (hmpt_symframe_t){.known = true, .position = 1, .positions = 1};
				const char *name = hmpt_prof_str(site, "symbol");
				s->sym[0].variable = name ? strdup(name) : NULL;
			}
			continue;
		}
		nid = hmpt_siteid_frames(cls, (uint32_t)s->n, HMPT_SITEID_OWNED, idx);
		for (uint32_t j = 0; j < nid; j++)
			resolve(sym, prof, s, idx[j]);
	}
	rank_all(t);
	t->by_json = malloc((t->n + 1) * sizeof(*t->by_json));
	if (!t->by_json) {
		table_free(t);
		return NULL;
	}
	for (i = 0; i < t->n; i++)
		t->by_json[i] = &t->sites[i];
	qsort(t->by_json, t->n, sizeof(*t->by_json), cmp_json);
	return t;
}

static site_t *lookup(hmpt_sym_t *sym, const json_t *prof, const json_t *site)
{
	table_t **slot = (table_t **)hmpt_sym_slot(sym, table_free);
	table_t *t = *slot;

	/* another profile, or sites added to it: build anew */
	if (!t || t->prof != prof || t->n != json_array_size(json_object_get(prof, "sites"))) {
		table_free(t);
		t = *slot = build(sym, prof);
	}
	if (!t)
		return NULL;
	site_t key = {.json = site}, *k = &key;
	site_t **hit =
	    bsearch(&k, t->by_json, t->n, sizeof(*t->by_json), cmp_json); /* n log n, not n^2 */
	return hit ? *hit : NULL;
}

const hmpt_symframe_t *hmpt_sitesym_frame(hmpt_sym_t *sym, const json_t *prof, const json_t *site,
                                          size_t k)
{
	site_t *s = lookup(sym, prof, site);
	return s && k < s->n ? &s->sym[k] : NULL;
}

json_t *hmpt_sitesym_json(hmpt_sym_t *sym, const json_t *prof, const json_t *site, size_t n)
{
	site_t *s = lookup(sym, prof, site);
	json_t *a = json_array();

	for (size_t k = 0; k < n; k++) {
		const hmpt_symframe_t *f = s && k < s->n ? &s->sym[k] : NULL;
		if (!f || !f->known) {
			json_array_append_new(a, json_null());
			continue;
		}
		json_t *e = json_object();
		if (f->function)
			json_object_set_new(e, "function", json_string(f->function));
		if (f->file)
			json_object_set_new(e, "file", json_string(base_name(f->file)));
		if (f->line > 0)
			json_object_set_new(e, "line", json_integer(f->line));
		if (f->column > 0)
			json_object_set_new(e, "column", json_integer(f->column));
		if (f->discriminator)
			json_object_set_new(e, "discriminator", json_integer(f->discriminator));
		if (f->inlined_into)
			json_object_set_new(e, "inlined_into", json_string(f->inlined_into));
		if (f->positions > 1) {
			json_object_set_new(e, "position", json_integer(f->position));
			json_object_set_new(e, "positions", json_integer(f->positions));
		}
		if (f->variable)
			json_object_set_new(e, "variable", json_string(f->variable));
		json_array_append_new(a, e);
	}
	return a;
}

void hmpt_sitesym_ordinal(char *buf, size_t cap, int position, int positions, const char *variable)
{
	int tens = position % 100, ones = position % 10;
	const char *suffix = tens >= 11 && tens <= 13 ? "th"
	                     : ones == 1              ? "st"
	                     : ones == 2              ? "nd"
	                     : ones == 3              ? "rd"
	                                              : "th";

	if (positions < 2)
		snprintf(buf, cap, "%s", "");
	else
		snprintf(buf, cap, "%s%s%d%s of %d", variable ? variable : "", variable ? ": " : "",
		         position, suffix, positions);
}

/* ------------------------------------------------- the source line's names */

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* the index after the bracket that closes the one at s[i]; 0 when the
 * line ends first */
static size_t close_paren(const char *s, size_t i)
{
	int depth = 0;

	for (; s[i]; i++) {
		if (s[i] == '(' || s[i] == '[')
			depth++;
		else if ((s[i] == ')' || s[i] == ']') && --depth == 0)
			return i + 1;
	}
	return 0;
}

static void trimmed(char *out, size_t cap, const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	snprintf(out, cap, "%.*s", (int)len, s);
}

/* Fortran: the items of every allocate(...) on the line, in order, each
 * its name (up to its bounds); -1 when the line has no allocate. */
static int fortran_items(const char *line, char names[][128], int max)
{
	size_t len = strlen(line), i = 0;
	int n = 0, found = 0;

	if (len > 4096)
		return -1;
	char low[len + 1];

	/* a comment ends the statement (strings with '!' are not allocations) */
	for (i = 0; i < len; i++) {
		low[i] = (char)tolower((unsigned char)line[i]);
		if (line[i] == '!')
			break;
	}
	low[i] = '\0';
	for (const char *p = low; (p = strstr(p, "allocate"));) {
		size_t at = (size_t)(p - low);
		p += 8;
		if ((at && ident_char(low[at - 1])) || ident_char(*p))
			continue; /* deallocate, allocated, a variable named so */
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '(')
			continue;
		found = 1;
		size_t open = (size_t)(p - low), close = close_paren(low, open);
		if (!close)
			return -1; /* continued on the next line: the items are not all here */
		size_t start = open + 1, end = close - 1;
		for (size_t j = start; j <= end && low[j]; j++) {
			if (low[j] == '(' || low[j] == '[') {
				j = close_paren(low, j) - 1; /* closed: the statement's is */
				continue;
			}
			if (low[j] != ',' && j != end)
				continue;
			/* one item: line[start..j) */
			char item[256];
			trimmed(item, sizeof(item), line + start, j - start);
			start = j + 1;
			char *colons = strstr(item, "::"); /* a type-spec before the items */
			const char *name = colons ? colons + 2 : item;
			while (*name == ' ' || *name == '\t')
				name++;
			size_t nl = strcspn(name, "(=");
			if (name[nl] == '=' || nl == 0)
				continue; /* stat=, errmsg=, source=, mold=: options */
			for (size_t c = 0; c < nl; c++)
				if (!ident_char(name[c]) && name[c] != '%' &&
				    !isspace((unsigned char)name[c]))
					return -1; /* not a plain allocate statement */
			if (n < max)
				trimmed(names[n], sizeof(names[n]), name, nl);
			n++;
		}
		p = low + end;
	}
	return found ? n : -1;
}

/* C and C++: NAME of each `NAME = malloc...(`, `NAME = new ...` */
static int c_items(const char *line, char names[][128], int max)
{
	size_t len = strlen(line);
	int n = 0;

	for (size_t i = 1; i < len; i++) {
		if (line[i] != '=' || line[i + 1] == '=' || strchr("=!<>+-*/%&|^", line[i - 1]))
			continue;
		/* the right side: casts, then the allocator */
		size_t j = i + 1, c = 1;
		for (;;) {
			while (isspace((unsigned char)line[j]))
				j++;
			if (line[j] != '(' || !(c = close_paren(line, j)))
				break;
			j = c;
		}
		if (!c)
			continue;
		if (!strncmp(line + j, "std::", 5))
			j += 5;
		else if (!strncmp(line + j, "::", 2))
			j += 2;
		size_t w = j;
		while (ident_char(line[w]))
			w++;
		size_t after = w;
		while (isspace((unsigned char)line[after]))
			after++;
		bool alloc = (w - j == 3 && !strncmp(line + j, "new", 3)) ||
		             ((!strncmp(line + j, "malloc", 6) || !strncmp(line + j, "calloc", 6) ||
		               !strncmp(line + j, "realloc", 7)) &&
		              line[after] == '(');
		if (!alloc)
			continue;
		/* the left side: a name, members and subscripts */
		size_t e = i;
		while (e && isspace((unsigned char)line[e - 1]))
			e--;
		size_t b = e;
		while (b) {
			char c = line[b - 1];
			if (ident_char(c) || c == '.')
				b--;
			else if (c == '>' && b >= 2 && line[b - 2] == '-')
				b -= 2;
			else if (c == ']') {
				int depth = 0;
				while (b) {
					c = line[--b];
					if (c == ']')
						depth++;
					else if (c == '[' && --depth == 0)
						break;
				}
			} else
				break;
		}
		if (b == e)
			continue;
		if (n < max)
			trimmed(names[n], sizeof(names[n]), line + b, e - b);
		n++;
	}
	return n;
}

int hmpt_sitesym_variable(const char *line, int position, int positions, char *out, size_t cap)
{
	char names[64][128];
	int n;

	if (position < 1 || position > positions || positions > 64)
		return -1;
	n = fortran_items(line, names, 64);
	if (n < 0)
		n = c_items(line, names, 64);
	if (n != positions)
		return -1;
	snprintf(out, cap, "%s", names[position - 1]);
	return 0;
}
