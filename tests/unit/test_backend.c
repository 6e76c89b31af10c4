/* test_backend.c — the backends' ops table (backend.h): each backend's
 * alloc, lookup and free round-trip, and the inline owner test that
 * free() relies on.  memkind is dlopen'ed: where it is missing, its
 * refusal is checked instead. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#include "backend_arena.h"

#define MIB ((size_t)1 << 20)

static int kind_index(const char *name)
{
	for (int i = 0; hmpt_plan_kinds_g[i]; i++)
		if (strcmp(hmpt_plan_kinds_g[i], name) == 0)
			return i;
	return -1;
}

/* alloc, lookup, free, lookup again: the same record throughout */
static void round_trip(const hmpt_backend_ops_t *ops, int kind)
{
	hmpt_backend_block_t b, f;
	size_t size = 3 * MIB + 5;
	char *p = ops->alloc(size, 0, true, 7, 0, kind);

	CHECK_OP(p, !=, NULL);
	if (!p)
		return;
	CHECK_OP(((uintptr_t)p & 4095), ==, 0);
	CHECK_OP(p[0], ==, 0);
	CHECK_OP(p[size - 1], ==, 0);
	memset(p, 0xa5, size);
	CHECK(hmpt_backend_owns(p));
	CHECK_OP(hmpt_backend_of(p), ==, ops);
	CHECK_OP(ops->lookup(p, &b), ==, 0);
	CHECK_OP(b.size, ==, size);
	CHECK_OP(b.usable, >=, size);
	CHECK_OP(b.site, ==, 7);
	CHECK_OP(b.tag, ==, 0);
	CHECK_OP(ops->free(p, &f), ==, 0);
	CHECK_OP(f.size, ==, b.size);
	CHECK_OP(f.usable, ==, b.usable);
	CHECK_OP(f.site, ==, b.site);
	CHECK_OP(ops->lookup(p, &b), !=, 0);
	CHECK_OP(ops->free(p, &f), !=, 0);
}

static void test_arena(void)
{
	const hmpt_backend_ops_t *ops = hmpt_backends_g[HMPT_BACKEND_NUMA];

	CHECK(ops == &hmpt_backend_arena && ops->sampled && ops->resize && !ops->open);
	CHECK_OP(hmpt_arena_init(64 * MIB, 64 * MIB), ==, 0);
	round_trip(ops, -1);

	/* resize keeps the contents and the record's tag */
	hmpt_backend_block_t old, b;
	char *p = ops->alloc(MIB, 0, false, 1, 0, -1);
	CHECK_OP(p, !=, NULL);
	if (!p)
		return;
	p[0] = 'x';
	char *q = ops->resize(p, 5 * MIB, 2, &old);
	CHECK(q != NULL && q[0] == 'x');
	CHECK_OP(old.size, ==, MIB);
	CHECK_OP(old.site, ==, 1);
	CHECK(q && ops->lookup(q, &b) == 0 && b.size == 5 * MIB && b.site == 2);
	if (q)
		CHECK_OP(ops->free(q, &b), ==, 0);
}

static void test_memkind(void)
{
	const hmpt_backend_ops_t *ops = hmpt_backends_g[HMPT_BACKEND_MEMKIND];
	char err[256] = "";
	int kind = kind_index("default");

	CHECK(ops == &hmpt_backend_memkind && !ops->sampled && !ops->resize);
	CHECK_OP(kind, >=, 0);
	/* never a block of its own: an unknown kind is refused */
	errno = 0;
	CHECK_OP(ops->alloc(MIB, 0, false, 1, 0, -1), ==, NULL);
	CHECK_OP(errno, ==, ENOENT);
	if (ops->open(err, sizeof(err)) != 0) {
		/* memkind missing: said, and every allocation refused */
		printf("memkind not available here: %s\n", err);
		CHECK_OP(strstr(err, "memkind"), !=, NULL);
		CHECK_OP(ops->check(kind), !=, 0);
		errno = 0;
		CHECK_OP(ops->alloc(MIB, 0, false, 1, 0, kind), ==, NULL);
		CHECK_OP(errno, ==, ENOENT);
		CHECK(!hmpt_backend_outside_any());
		return;
	}
	CHECK_OP(ops->check(kind), ==, 0);
	CHECK(!hmpt_backend_outside_any());
	round_trip(ops, kind);
	CHECK(!hmpt_backend_outside_any());
}

int main(void)
{
	static char other[8192] __attribute__((aligned(4096)));

	/* neither backend's: memory someone else made */
	CHECK(!hmpt_backend_owns(other));
	test_arena();
	test_memkind();
	return failures != 0;
}
