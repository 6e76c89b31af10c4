/* test_backend.c — the backends (backend.h): each backend's alloc, lookup
 * and free round-trip through its instance, the inline owner test that
 * free() relies on, the table of blocks outside the arena, the file
 * backend's ranges (fit, reuse, zero, a full file), and the registry
 * against the plan format's two other lists of it (plans/schema.json and
 * docs/plan-format.md), so that the three cannot drift apart.  memkind is
 * dlopen'ed: where it is missing, its refusal is checked instead. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#include "backend_arena.h"
#include "json.h"
#include "plan.h"

#define MIB ((size_t)1 << 20)

static int kind_index(const char *name)
{
	for (int i = 0; hmpt_backend_kinds_g[i].name; i++)
		if (strcmp(hmpt_backend_kinds_g[i].name, name) == 0)
			return i;
	return -1;
}

/* alloc, lookup, free, lookup again: the same record throughout */
static void round_trip(hmpt_backend_pool_t *bp)
{
	const hmpt_backend_ops_t *ops = bp->be->ops;
	hmpt_backend_pool_t *found = NULL;
	hmpt_backend_block_t b, f;
	size_t size = 3 * MIB + 5;
	char *p = ops->alloc(bp, size, 0, true, 7, 0);

	CHECK_OP(p, !=, NULL);
	if (!p)
		return;
	CHECK_OP(((uintptr_t)p & 4095), ==, 0);
	CHECK_OP(p[0], ==, 0);
	CHECK_OP(p[size - 1], ==, 0);
	memset(p, 0xa5, size);
	CHECK(hmpt_backend_owns(p));
	CHECK_OP(hmpt_backend_lookup(p, &b, &found), ==, 0);
	CHECK(found == bp || (found == &hmpt_backend_arena_g && bp->be == found->be));
	CHECK_OP(ops->lookup(bp, p, &b), ==, 0);
	CHECK_OP(b.size, ==, size);
	CHECK_OP(b.usable, >=, size);
	CHECK_OP(b.site, ==, 7);
	CHECK_OP(b.tag, ==, 0);
	CHECK_OP(ops->free(bp, p, &f), ==, 0);
	CHECK_OP(f.size, ==, b.size);
	CHECK_OP(f.usable, ==, b.usable);
	CHECK_OP(f.site, ==, b.site);
	CHECK_OP(ops->lookup(bp, p, &b), !=, 0);
	CHECK_OP(ops->free(bp, p, &f), !=, 0);
}

static void test_arena(void)
{
	hmpt_backend_pool_t *bp = &hmpt_backend_arena_g;
	const hmpt_backend_ops_t *ops = &hmpt_backend_nodes_ops;

	CHECK(bp->be == hmpt_backend_nodes() && bp->be->ops == ops);
	CHECK(bp->be->caps.sampled && bp->be->caps.split && bp->be->caps.statics);
	CHECK(!bp->be->caps.outside && ops->resize && !ops->open);
	CHECK_OP(hmpt_arena_init(64 * MIB, 64 * MIB), ==, 0);
	round_trip(bp);

	/* resize keeps the contents and the record's tag */
	hmpt_backend_block_t old, b;
	char *p = ops->alloc(bp, MIB, 0, false, 1, 0);
	CHECK_OP(p, !=, NULL);
	if (!p)
		return;
	p[0] = 'x';
	char *q = ops->resize(bp, p, 5 * MIB, 2, &old);
	CHECK(q != NULL && q[0] == 'x');
	CHECK_OP(old.size, ==, MIB);
	CHECK_OP(old.site, ==, 1);
	CHECK(q && ops->lookup(bp, q, &b) == 0 && b.size == 5 * MIB && b.site == 2);
	if (q)
		CHECK_OP(ops->free(bp, q, &b), ==, 0);
}

static void test_memkind(void)
{
	const hmpt_backend_t *be = hmpt_backend_find("memkind");
	hmpt_plan_pool_t pp = {.kind = -1};
	hmpt_backend_pool_t bp = {.be = be, .plan = &pp};
	const char *field = NULL;
	char err[256] = "";

	CHECK(be && be->caps.outside && be->caps.hbw_budget && !be->caps.sampled);
	CHECK(!be->caps.split && !be->caps.statics && !be->ops->resize);
	pp.backend = be;
	/* never a block of its own: an unknown kind is refused */
	errno = 0;
	CHECK_OP(be->ops->alloc(&bp, MIB, 0, false, 1, 0), ==, NULL);
	CHECK_OP(errno, ==, ENOENT);
	pp.kind = kind_index("default");
	CHECK_OP(pp.kind, >=, 0);
	CHECK(!be->kinds[pp.kind].hbw && be->kinds[kind_index("hbw_interleave")].hbw);
	if (be->ops->open(&bp, &field, err, sizeof(err)) != 0) {
		/* memkind missing: said, and every allocation refused */
		printf("memkind not available here: %s\n", err);
		CHECK_OP(strstr(err, "memkind"), !=, NULL);
		CHECK_STREQ(field, "backend");
		errno = 0;
		CHECK_OP(be->ops->alloc(&bp, MIB, 0, false, 1, 0), ==, NULL);
		CHECK_OP(errno, ==, ENOENT);
		CHECK(!hmpt_outside_any());
		return;
	}
	CHECK(!hmpt_outside_any());
	round_trip(&bp);
	CHECK(!hmpt_outside_any());
}

/* the file backend on a directory of /dev/shm (tmpfs): ranges fit, are reused, read
 * zero again, and a full file refuses */
static void test_file(void)
{
	const hmpt_backend_t *be = hmpt_backend_find("file");
	char dir[] = "/dev/shm/hmpt-test-backend.XXXXXX", path[64], err[512] = "";
	hmpt_plan_pool_t pp = {.kind = -1, .capacity = 8 * MIB, .backend = be};
	hmpt_backend_pool_t bp = {.be = be, .plan = &pp};
	const char *field = NULL;

	CHECK(be && be->caps.outside && !be->caps.split && !be->caps.statics);
	if (!mkdtemp(dir)) {
		CHECK(!"no directory in /dev/shm");
		return;
	}
	/* a missing file: the field and the path named */
	snprintf(path, sizeof(path), "%s/none", dir);
	pp.file = path;
	CHECK_OP(be->ops->open(&bp, &field, err, sizeof(err)), ==, -ENOENT);
	CHECK_STREQ(field, "file");
	CHECK_OP(strstr(err, path), !=, NULL);
	/* a directory: an unnamed file of the capacity */
	pp.file = dir;
	CHECK_OP(be->ops->open(&bp, &field, err, sizeof(err)), ==, 0);
	CHECK_OP(bp.capacity, ==, 8 * MIB);
	round_trip(&bp);
	char *a = be->ops->alloc(&bp, 3 * MIB, 0, false, 1, 0);
	char *b = be->ops->alloc(&bp, 3 * MIB, 2 * MIB, false, 2, 0);
	/* the address is aligned, not only the offset in the file */
	CHECK(a && b && b >= a + 3 * MIB && ((uintptr_t)b & (2 * MIB - 1)) == 0);
	/* full: 8 MiB hold a's 3 and b's 3 (from 4 MiB), nothing of 3 more */
	errno = 0;
	CHECK_OP(be->ops->alloc(&bp, 3 * MIB, 0, false, 3, 0), ==, NULL);
	CHECK_OP(errno, ==, ENOSPC);
	hmpt_backend_block_t r;
	if (a) {
		memset(a, 0x5a, 3 * MIB);
		CHECK_OP(be->ops->free(&bp, a, &r), ==, 0);
		CHECK_OP(r.usable, ==, 3 * MIB);
		/* the freed range again, zero */
		char *c = be->ops->alloc(&bp, 2 * MIB, 0, true, 4, 0);
		CHECK_OP(c, ==, a);
		CHECK(c && c[0] == 0 && c[2 * MIB - 1] == 0);
		if (c)
			CHECK_OP(be->ops->free(&bp, c, &r), ==, 0);
	}
	if (b)
		CHECK_OP(be->ops->free(&bp, b, &r), ==, 0);
	CHECK(!hmpt_outside_any());
	/* everything back: the whole file in one block */
	char *w = be->ops->alloc(&bp, 8 * MIB, 0, false, 5, 0);
	CHECK(w != NULL);
	if (w)
		CHECK_OP(be->ops->free(&bp, w, &r), ==, 0);
	/* what the program did to a block's pages (mprotect) does not follow
	 * its range to the next block */
	char *m = be->ops->alloc(&bp, 2 * MIB, 0, false, 6, 0);
	CHECK(m != NULL);
	if (m) {
		CHECK_OP(mprotect(m, 4096, PROT_READ), ==, 0);
		CHECK_OP(be->ops->free(&bp, m, &r), ==, 0);
		char *n = be->ops->alloc(&bp, 2 * MIB, 0, false, 7, 0);
		CHECK_OP(n, ==, m);
		if (n) {
			n[0] = 1; /* SIGSEGV here if the protection had stayed */
			CHECK_OP(be->ops->free(&bp, n, &r), ==, 0);
		}
	}
	be->ops->close(&bp);
	CHECK(bp.state == NULL);

	/* a named file that holds data (an earlier run's blocks): zeroed
	 * blocks read zero */
	snprintf(path, sizeof(path), "%s/named", dir);
	FILE *f = fopen(path, "w");
	for (size_t i = 0; f && i < 4 * MIB; i++)
		fputc(0xaa, f);
	if (f)
		fclose(f);
	pp.file = path;
	pp.capacity = 0;
	CHECK_OP(be->ops->open(&bp, &field, err, sizeof(err)), ==, 0);
	CHECK_OP(bp.capacity, ==, 4 * MIB);
	char *z = be->ops->alloc(&bp, 4 * MIB, 0, true, 8, 0);
	CHECK(z && z[0] == 0 && z[4 * MIB - 1] == 0);
	if (z)
		CHECK_OP(be->ops->free(&bp, z, &r), ==, 0);
	be->ops->close(&bp);
	unlink(path);
	/* smaller than a page: the capacity named, with the unit */
	pp.file = dir;
	pp.capacity = 1000;
	CHECK_OP(be->ops->open(&bp, &field, err, sizeof(err)), ==, -EINVAL);
	CHECK_STREQ(field, "capacity");
	CHECK_OP(strstr(err, "less than one unit of its memory (4.00 KiB)"), !=, NULL);
	rmdir(dir);
}

/* ------------------------------------------- the registry and the docs */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	s = calloc(1, (size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return s;
}

static bool json_enum_has(const hmpt_json_t *e, const char *name)
{
	for (const hmpt_json_t *v = e ? e->child : NULL; v; v = v->next)
		if (v->type == HMPT_JSON_STRING && strcmp(v->str, name) == 0)
			return true;
	return false;
}

/* plans/schema.json's pool: its "backend" and "kind" enums are the
 * registry's, no more and no fewer; each backend's own fields are
 * properties */
static void test_schema(void)
{
	size_t len = 0;
	char *text = slurp("plans/schema.json", &len);
	hmpt_json_doc_t doc;
	hmpt_json_error_t jerr;
	int n = 0, k = 0;

	CHECK(text != NULL);
	if (!text || hmpt_json_parse(text, len, &doc, &jerr) != 0) {
		CHECK(!"plans/schema.json does not parse");
		free(text);
		return;
	}
	const hmpt_json_t *pool = hmpt_json_get(hmpt_json_get(doc.root, "$defs"), "pool");
	const hmpt_json_t *props = hmpt_json_get(pool, "properties");
	const hmpt_json_t *be = hmpt_json_get(hmpt_json_get(props, "backend"), "enum");
	const hmpt_json_t *kinds = hmpt_json_get(hmpt_json_get(props, "kind"), "enum");
	CHECK(be && kinds);
	for (; hmpt_backends_g[n]; n++) {
		if (!json_enum_has(be, hmpt_backends_g[n]->name))
			fprintf(stderr, "schema.json: backend %s missing\n",
			        hmpt_backends_g[n]->name);
		CHECK(json_enum_has(be, hmpt_backends_g[n]->name));
		for (int j = 0; hmpt_backends_g[n]->fields[j]; j++)
			CHECK(hmpt_json_get(props, hmpt_backends_g[n]->fields[j]) != NULL);
	}
	CHECK_OP(be ? (int)be->count : -1, ==, n);
	for (; hmpt_backend_kinds_g[k].name; k++)
		CHECK(json_enum_has(kinds, hmpt_backend_kinds_g[k].name));
	CHECK_OP(kinds ? (int)kinds->count : -1, ==, k);
	hmpt_json_free(&doc);
	free(text);
}

/* The backticked words of the table row of `field` in docs/plan-format.md
 * that follow `after`, up to `stop` (or the row's end), counted against the
 * names given; -1: one is not. */
static int doc_row_words(const char *doc, const char *field, const char *after, const char *stop,
                         bool (*known)(const char *w, size_t n))
{
	char head[64];
	int words = 0;

	snprintf(head, sizeof(head), "\n| `%s` |", field);
	const char *row = strstr(doc, head), *end;
	if (!row || !(row = strstr(row, after)))
		return -1;
	row += strlen(after);
	end = strchr(row, '\n');
	const char *s = stop ? strstr(row, stop) : NULL;
	if (s && s < end)
		end = s;
	for (const char *p = strchr(row, '`'); p && p < end; p = strchr(p, '`')) {
		const char *q = strchr(p + 1, '`');
		if (!q || q > end)
			break;
		if (!known(p + 1, (size_t)(q - p - 1))) {
			fprintf(stderr, "plan-format.md: `%.*s` in the %s row is not the code's\n",
			        (int)(q - p - 1), p + 1, field);
			return -1;
		}
		words++;
		p = q + 1;
	}
	return words;
}

static bool is_kind(const char *w, size_t n)
{
	for (int i = 0; hmpt_backend_kinds_g[i].name; i++)
		if (strlen(hmpt_backend_kinds_g[i].name) == n &&
		    !strncmp(hmpt_backend_kinds_g[i].name, w, n))
			return true;
	return false;
}

static bool is_backend(const char *w, size_t n)
{
	/* "numa" and the like, quoted as JSON strings */
	if (n < 2 || w[0] != '"' || w[n - 1] != '"')
		return true; /* other words of the row (mbind(2)) */
	for (int i = 0; hmpt_backends_g[i]; i++)
		if (strlen(hmpt_backends_g[i]->name) == n - 2 &&
		    !strncmp(hmpt_backends_g[i]->name, w + 1, n - 2))
			return true;
	return false;
}

static void test_docs(void)
{
	size_t len = 0;
	char *doc = slurp("docs/plan-format.md", &len);
	int k = 0;

	CHECK(doc != NULL);
	if (!doc)
		return;
	for (; hmpt_backend_kinds_g[k].name; k++)
		;
	/* the kind row lists every kind, and only kinds */
	CHECK_OP(doc_row_words(doc, "kind", "without the `MEMKIND_` prefix:", ". ", is_kind), ==,
	         k);
	/* the backend row names every backend */
	CHECK_OP(doc_row_words(doc, "backend", "|", NULL, is_backend), >=, 0);
	for (int i = 0; hmpt_backends_g[i]; i++) {
		char quoted[40];
		snprintf(quoted, sizeof(quoted), "`\"%s\"`", hmpt_backends_g[i]->name);
		const char *row = strstr(doc, "\n| `backend` |");
		const char *end = row ? strchr(row + 1, '\n') : NULL;
		const char *at = row ? strstr(row, quoted) : NULL;
		if (!at || at > end)
			fprintf(stderr, "plan-format.md: the backend row lacks %s\n", quoted);
		CHECK(at && at < end);
	}
	free(doc);
}

int main(void)
{
	static char other[8192] __attribute__((aligned(4096)));

	/* no backend's: memory someone else made */
	CHECK(!hmpt_backend_owns(other));
	test_arena();
	test_memkind();
	test_file();
	test_schema();
	test_docs();
	return failures != 0;
}
