/* test_rebase.c — the pure parts of plan rebase and of symbolic frames: the
 * variable a source line names per call, ordinals, the comparison of a plan
 * site with a new site frame by frame, and the assignment (best first, each
 * new site once). */
#include <stdio.h>
#include <string.h>

#include "check.h"

#include "rebase.h"
#include "sitesym.h"

static void expect_var(const char *line, int position, int positions, const char *want)
{
	char got[128] = "";
	int rc = hmpt_sitesym_variable(line, position, positions, got, sizeof(got));

	if (want ? rc != 0 || strcmp(got, want) : rc == 0) {
		fprintf(stderr, "'%s' %d of %d: got %s '%s', want %s\n", line, position, positions,
		        rc ? "none" : "", got, want ? want : "none");
		failures++;
	}
}

static void variables(void)
{
	/* Fortran: the items of the statement, not its options */
	expect_var("      allocate(u(nr), v(nv), r(nr))", 1, 3, "u");
	expect_var("      allocate(u(nr), v(nv), r(nr))", 2, 3, "v");
	expect_var("      allocate(u(nr), v(nv), r(nr))", 3, 3, "r");
	expect_var("  ALLOCATE (A(N,M), B(2*N), STAT=IERR)", 2, 2, "B");
	expect_var("  allocate(grid%u(n), grid%v(n)) ! two", 2, 2, "grid%v");
	expect_var("  allocate(real(8) :: a(n), b(n))", 1, 2, "a");
	expect_var("  if (n > 0) allocate(x(n), y(n)); allocate(z(n))", 3, 3, "z");
	expect_var("      allocate(u(nr), v(nv), r(nr))", 1, 2, NULL); /* 3 items, 2 calls */
	expect_var("      allocate(u(nr), v(nv), &", 1, 2, NULL);      /* continued */
	expect_var("      deallocate(u, v)", 1, 2, NULL);
	/* C and C++: one assignment of an allocation per call */
	expect_var("\tu = malloc(n), v = malloc(n), r = malloc(n);", 1, 3, "u");
	expect_var("\tu = malloc(n), v = malloc(n), r = malloc(n);", 3, 3, "r");
	expect_var("double *a = (double *)malloc(n), *b = calloc(n, 8);", 2, 2, "b");
	expect_var("p->x = new double[n]; q.y = std::malloc(4);", 1, 2, "p->x");
	expect_var("p->x = new double[n]; q.y = std::malloc(4);", 2, 2, "q.y");
	expect_var("a[i] = malloc(n), b = realloc(b, 2 * n);", 1, 2, "a[i]");
	expect_var("if (x == malloc(3) || y != malloc(4))", 1, 2, NULL);
	expect_var("a = f(n), b = malloc(n);", 1, 2, NULL); /* one allocation only */
	expect_var("u = malloc(n), v = malloc(n);", 3, 2, NULL);
}

static void ordinals(void)
{
	static const struct {
		int p, n;
		const char *var, *want;
	} cases[] = {{1, 3, "u", "u: 1st of 3"},
	             {2, 3, NULL, "2nd of 3"},
	             {3, 3, "r", "r: 3rd of 3"},
	             {4, 9, NULL, "4th of 9"},
	             {11, 13, NULL, "11th of 13"},
	             {12, 13, NULL, "12th of 13"},
	             {13, 30, NULL, "13th of 30"},
	             {21, 30, NULL, "21st of 30"},
	             {22, 30, NULL, "22nd of 30"},
	             {111, 120, NULL, "111th of 120"},
	             {1, 1, "x", ""}};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hmpt_sitesym_ordinal(buf, sizeof(buf), cases[i].p, cases[i].n, cases[i].var);
		if (strcmp(buf, cases[i].want)) {
			fprintf(stderr, "ordinal %d of %d: '%s', want '%s'\n", cases[i].p,
			        cases[i].n, buf, cases[i].want);
			failures++;
		}
	}
}

/* a plan site: frames x!0x<off0> x!0x<off1> libc x!0x<start>, the first in
 * `fn` at line l0 (the p-th of n calls, variable var), called from main at
 * line l1 */
static json_t *site(unsigned off0, const char *fn, int l0, int p, int n, const char *var, int l1,
                    const char *match)
{
	json_t *s = json_pack("{s:[s,s,s,s],s:[{s:s,s:s,s:i},{s:s,s:s,s:i},n,{s:s}]}", "frames",
	                      "x!0x1", "x!0x2000", "libc.so.6!0x2724a", "x!0x1181", "symbolic",
	                      "function", fn, "file", "a.c", "line", l0, "function", "main", "file",
	                      "a.c", "line", l1, "function", "_start");
	char f0[32];
	snprintf(f0, sizeof(f0), "x!0x%x", off0);
	json_array_set_new(json_object_get(s, "frames"), 0, json_string(f0));
	json_t *e = json_array_get(json_object_get(s, "symbolic"), 0);
	if (n > 1) {
		json_object_set_new(e, "position", json_integer(p));
		json_object_set_new(e, "positions", json_integer(n));
	}
	if (var)
		json_object_set_new(e, "variable", json_string(var));
	if (match)
		json_object_set_new(s, "match", json_string(match));
	return s;
}

static void compare(void)
{
	hmpt_rebase_score_t sc;
	char how[512];
	json_t *old = site(0x10, "alloc", 10, 2, 3, "v", 20, NULL);
	json_t *same = site(0x99, "alloc", 10, 2, 3, "v", 20, NULL);
	json_t *moved = site(0x99, "alloc", 13, 2, 3, "v", 23, NULL);
	json_t *other_pos = site(0x99, "alloc", 10, 1, 3, "u", 20, NULL);
	json_t *other_fn = site(0x99, "alloc2", 10, 2, 3, "v", 20, NULL);

	/* the same lines at other offsets: mapped, nothing said */
	CHECK_OP(hmpt_rebase_compare(old, same, &sc, how, sizeof(how)), ==, 0);
	CHECK(sc.exact && sc.lines == 0 && sc.positions == 0 && !*how);
	/* a column or a discriminator alone changes nothing */
	json_object_set_new(json_array_get(json_object_get(same, "symbolic"), 0), "column",
	                    json_integer(7));
	CHECK(hmpt_rebase_compare(old, same, &sc, how, sizeof(how)) == 0 && sc.exact);
	/* lines moved: approximately, each move said */
	CHECK_OP(hmpt_rebase_compare(old, moved, &sc, how, sizeof(how)), ==, 0);
	CHECK(!sc.exact && sc.lines == 6 && sc.positions == 0);
	CHECK(strstr(how, "a.c: alloc line 10 -> 13") && strstr(how, "a.c: main line 20 -> 23"));
	/* another call of the statement (another variable): approximately */
	CHECK_OP(hmpt_rebase_compare(old, other_pos, &sc, how, sizeof(how)), ==, 0);
	CHECK(!sc.exact && sc.positions == 1 && sc.variables == 1 &&
	      strstr(how, "v: 2nd of 3 -> u: 1st of 3"));
	/* another number of calls of the statement tracked: the same rank is
	 * at best approximate, and said so */
	json_t *fewer = site(0x99, "alloc", 10, 2, 2, NULL, 20, NULL);
	CHECK_OP(hmpt_rebase_compare(old, fewer, &sc, how, sizeof(how)), ==, 0);
	CHECK(!sc.exact && sc.shapes == 1 && strstr(how, "alloc: 2 of 3 calls seen, now 2 of 2"));
	/* the same id (the same build): exact whatever the symbols say */
	json_object_set_new(old, "id", json_string("0123456789abcdef"));
	json_object_set_new(fewer, "id", json_string("0123456789abcdef"));
	CHECK_OP(hmpt_rebase_compare(old, fewer, &sc, how, sizeof(how)), ==, 0);
	CHECK(sc.exact && sc.same_id && !*how);
	json_object_set_new(fewer, "id", json_string("0123456789abcdee"));
	CHECK(hmpt_rebase_compare(old, fewer, &sc, how, sizeof(how)) == 0 && !sc.exact &&
	      !sc.same_id);
	json_object_del(old, "id");
	json_decref(fewer);
	/* another function: no match */
	CHECK_OP(hmpt_rebase_compare(old, other_fn, &sc, how, sizeof(how)), ==, -1);
	/* another file: no match */
	json_object_set_new(json_array_get(json_object_get(moved, "symbolic"), 1), "file",
	                    json_string("b.c"));
	CHECK_OP(hmpt_rebase_compare(old, moved, &sc, how, sizeof(how)), ==, -1);
	/* no line on one side: by function, approximately */
	json_object_del(json_array_get(json_object_get(same, "symbolic"), 0), "line");
	CHECK_OP(hmpt_rebase_compare(old, same, &sc, how, sizeof(how)), ==, 0);
	CHECK(!sc.exact && sc.function_only == 1 && strstr(how, "no line in the new build"));
	/* a frame nothing is known of matches only itself */
	json_array_set_new(json_object_get(old, "symbolic"), 3, json_null());
	CHECK_OP(hmpt_rebase_compare(old, other_pos, &sc, how, sizeof(how)), ==, 0);
	json_array_set_new(json_object_get(other_pos, "frames"), 3, json_string("x!0x1182"));
	CHECK_OP(hmpt_rebase_compare(old, other_pos, &sc, how, sizeof(how)), ==, -1);
	/* a stack needs as many identity frames; a prefix at least as many */
	json_t *deeper = site(0x99, "alloc", 10, 2, 3, "v", 20, NULL);
	json_array_append_new(json_object_get(deeper, "frames"), json_string("y!0x5"));
	json_array_append_new(json_object_get(deeper, "symbolic"),
	                      json_pack("{s:s}", "function", "z"));
	json_t *old2 = site(0x10, "alloc", 10, 2, 3, "v", 20, NULL);
	CHECK_OP(hmpt_rebase_compare(old2, deeper, &sc, how, sizeof(how)), ==, -1);
	json_t *prefix =
	    json_pack("{s:[s,s],s:[{s:s,s:s,s:i},{s:s,s:s,s:i}],s:s}", "frames", "x!0x10",
	              "x!0x2000", "symbolic", "function", "alloc", "file", "a.c", "line", 10,
	              "function", "main", "file", "a.c", "line", 20, "match", "prefix");
	CHECK_OP(hmpt_rebase_compare(prefix, deeper, &sc, how, sizeof(how)), ==, 0);
	/* runtime frames are no part of the identity: a prefix of 2 keeps them */
	CHECK_OP(hmpt_rebase_identity(deeper), ==, 4);
	CHECK_OP(hmpt_rebase_cut(json_object_get(deeper, "frames"), 2), ==, 2);
	CHECK_OP(hmpt_rebase_cut(json_object_get(deeper, "frames"), 3), ==, 4);
	CHECK_OP(hmpt_rebase_cut(json_object_get(deeper, "frames"), 0), ==, 5);
	/* static data: by its symbol */
	json_t *st =
	    json_pack("{s:[s],s:[{s:s}]}", "frames", "x!0x4000", "symbolic", "variable", "grid_");
	json_t *st2 =
	    json_pack("{s:[s],s:[{s:s}]}", "frames", "x!0x4100", "symbolic", "variable", "grid_");
	json_t *st3 =
	    json_pack("{s:[s],s:[{s:s}]}", "frames", "x!0x4000", "symbolic", "variable", "other_");
	CHECK(hmpt_rebase_compare(st, st2, &sc, how, sizeof(how)) == 0 && sc.exact);
	CHECK_OP(hmpt_rebase_compare(st, st3, &sc, how, sizeof(how)), ==, -1);
	CHECK_OP(hmpt_rebase_compare(st, same, &sc, how, sizeof(how)), ==, -1);
	json_t *all[] = {old, same, moved, other_pos, other_fn, deeper, old2, prefix, st, st2, st3};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		json_decref(all[i]);
}

static void assign(void)
{
	/* u, v, r of one statement and w of another, every line moved by 3
	 * (and r's variable unknown): each finds its own */
	json_t *olds[] = {site(0x10, "alloc", 10, 1, 3, "u", 20, NULL),
	                  site(0x11, "alloc", 10, 2, 3, "v", 20, NULL),
	                  site(0x12, "alloc", 10, 3, 3, NULL, 20, NULL),
	                  site(0x13, "alloc", 14, 1, 1, "w", 20, NULL),
	                  site(0x14, "gone", 14, 1, 1, NULL, 20, NULL)};
	json_t *cands[] = {site(0x23, "alloc", 17, 1, 1, "w", 23, NULL),
	                   site(0x22, "alloc", 13, 3, 3, NULL, 23, NULL),
	                   site(0x20, "alloc", 13, 1, 3, "u", 23, NULL),
	                   site(0x21, "alloc", 13, 2, 3, "v", 23, NULL)};
	long match[5];

	hmpt_rebase_assign((const json_t *const *)olds, 5, (const json_t *const *)cands, 4, match);
	CHECK_OP(match[0], ==, 2);
	CHECK_OP(match[1], ==, 3);
	CHECK_OP(match[2], ==, 1);
	CHECK_OP(match[3], ==, 0);
	CHECK_OP(match[4], ==, -1);
	/* two plan sites, one new site: the better takes it, the other is not found */
	long m2[2];
	hmpt_rebase_assign((const json_t *const *)olds, 2, (const json_t *const *)cands + 1, 1, m2);
	CHECK_OP(m2[0], ==, -1);
	CHECK_OP(m2[1], ==, 0);
	/* the same build, v's call untracked (u, r seen as 1 and 2 of 2): r's
	 * id finds r; v's rank 2 would have taken it "exactly" */
	json_t *u = site(0x10, "alloc", 10, 1, 3, "u", 20, NULL);
	json_t *v = site(0x11, "alloc", 10, 2, 3, "v", 20, NULL);
	json_t *r = site(0x12, "alloc", 10, 3, 3, "r", 20, NULL);
	json_t *nu = site(0x10, "alloc", 10, 1, 2, NULL, 20, NULL);
	json_t *nr = site(0x12, "alloc", 10, 2, 2, NULL, 20, NULL);
	json_object_set_new(u, "id", json_string("00000000000000a0"));
	json_object_set_new(nu, "id", json_string("00000000000000a0"));
	json_object_set_new(r, "id", json_string("00000000000000aa"));
	json_object_set_new(nr, "id", json_string("00000000000000aa"));
	const json_t *vo[] = {u, v, r}, *vc[] = {nu, nr};
	long m3[3];
	hmpt_rebase_assign(vo, 3, vc, 2, m3);
	CHECK_OP(m3[0], ==, 0);
	CHECK_OP(m3[1], ==, -1);
	CHECK_OP(m3[2], ==, 1);
	json_decref(u);
	json_decref(v);
	json_decref(r);
	json_decref(nu);
	json_decref(nr);
	/* two prefix sites (of one frame) whose new sites share that frame: one
	 * of them gets it */
	json_t *p1 = json_pack("{s:[s],s:[{s:s,s:s,s:i}],s:s}", "frames", "x!0x10", "symbolic",
	                       "function", "alloc", "file", "a.c", "line", 10, "match", "prefix");
	json_t *p2 = json_pack("{s:[s],s:[{s:s,s:s,s:i}],s:s}", "frames", "x!0x11", "symbolic",
	                       "function", "alloc", "file", "a.c", "line", 11, "match", "prefix");
	json_t *c1 = site(0x30, "alloc", 10, 1, 1, NULL, 20, NULL);
	json_t *c2 = site(0x30, "alloc", 10, 1, 1, NULL, 20, NULL);
	json_array_set_new(json_object_get(c2, "frames"), 3, json_string("x!0x1190"));
	const json_t *po[] = {p1, p2}, *pc[] = {c1, c2};
	hmpt_rebase_assign(po, 2, pc, 2, m2);
	CHECK_OP(m2[0], ==, 0);
	CHECK_OP(m2[1], ==, -1);
	for (size_t i = 0; i < 5; i++)
		json_decref(olds[i]);
	for (size_t i = 0; i < 4; i++)
		json_decref(cands[i]);
	json_decref(p1);
	json_decref(p2);
	json_decref(c1);
	json_decref(c2);
}

int main(void)
{
	variables();
	ordinals();
	compare();
	assign();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
