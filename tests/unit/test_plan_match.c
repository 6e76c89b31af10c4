/* test_plan_match.c — plan.c's match index against the linear scan it
 * replaced, over random plans: "stack" and "prefix" sites, version-1 sites
 * cut at the depth (legacy prefixes), the same identity in several sites
 * (in one group, and across groups where version 1 lets the first win),
 * sites of one id with another match (one key, two classes) and a few
 * frames shared by all (slots that collide).  And: a plan written as
 * format 2 and as format 4 (a frames table) loads to the same sites.
 * Exact: a fixed seed, every result compared. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "fmt.h"
#include "hash.h"
#include "plan.h"
#include "siteid.h"

/* the scan hmpt_plan_match did before the index: every site, in order */
static int match_linear(const hmpt_plan_t *plan, const uint64_t *hs, const uint64_t *offs,
                        uint32_t n)
{
	int best = -1;
	uint32_t best_len = 0;

	for (uint32_t i = 0; i < plan->nsites; i++) {
		const hmpt_plan_site_t *s = &plan->sites[i];
		bool prefix = s->prefix || s->legacy_prefix;
		if (prefix ? s->nid > n : s->nid != n)
			continue;
		if (memcmp(s->id_hashes, hs, s->nid * sizeof(uint64_t)) != 0 ||
		    memcmp(s->id_offsets, offs, s->nid * sizeof(uint64_t)) != 0)
			continue;
		if (!prefix)
			return (int)i;
		if (s->nid > best_len) {
			best = (int)i;
			best_len = s->nid;
		}
	}
	return best;
}

static uint64_t rng_g = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng_g ^= rng_g << 13;
	rng_g ^= rng_g >> 7;
	rng_g ^= rng_g << 17;
	return (uint32_t)(rng_g % n);
}

/* a few frames, so that stacks share prefixes and sites repeat */
static const char *const mods_g[] = {"app", "app", "app", "libx.so", "libc.so.6"};
#define NMODS   5
#define NOFFS   4
#define MAXSITE 160
#define MAXF    6

typedef struct {
	uint32_t n, mod[MAXF], off[MAXF];
	bool prefix;
	uint32_t group;
} gsite_t;

static void frame_text(hmpt_fmt_t *f, uint32_t mod, uint32_t off)
{
	hmpt_fmt_printf(f, "\"%s!0x%x\"", mods_g[mod], 0x10 + off);
}

/* the plan as text: format 2 (frames inline) or 4 (a frames table) */
static char *plan_text(const gsite_t *s, uint32_t n, uint32_t version, uint32_t depth)
{
	size_t cap = 1 << 20;
	char *buf = malloc(cap);
	hmpt_fmt_t f;

	hmpt_fmt_init(&f, buf, cap, -1);
	hmpt_fmt_printf(&f,
	                "{\"format\": \"hmpt-plan\", \"format_version\": %u, \"stack_depth\": "
	                "%u, \"pools\": {\"p\": {}}, \"groups\": [",
	                version, depth);
	for (uint32_t g = 0; g < 3; g++) {
		hmpt_fmt_printf(&f, "%s{\"name\": \"g%u\", \"pool\": \"p\", \"sites\": [",
		                g ? ", " : "", g);
		bool first = true;
		for (uint32_t i = 0; i < n; i++) {
			if (s[i].group != g)
				continue;
			hmpt_fmt_printf(&f, "%s{%s\"%s\": [", first ? "" : ", ",
			                s[i].prefix ? "\"match\": \"prefix\", " : "",
			                version >= 4 ? "stack" : "frames");
			first = false;
			for (uint32_t k = 0; k < s[i].n; k++) {
				if (k)
					hmpt_fmt_str(&f, ", ");
				if (version >= 4)
					hmpt_fmt_printf(&f, "%u",
					                s[i].mod[k] * NOFFS + s[i].off[k]);
				else
					frame_text(&f, s[i].mod[k], s[i].off[k]);
			}
			if (version >= 4)
				hmpt_fmt_str(&f, "]}");
			else
				hmpt_fmt_printf(&f, "], \"symbols\": [\"f%u\"]}",
				                s[i].mod[0] * NOFFS + s[i].off[0]);
		}
		/* a group needs a site: one of its own, never matched */
		if (version >= 4)
			hmpt_fmt_printf(&f, "%s{\"stack\": [%u]}]}", first ? "" : ", ",
			                NMODS * NOFFS + g);
		else
			hmpt_fmt_printf(&f, "%s{\"frames\": [\"zz!0x%u\"]}]}", first ? "" : ", ",
			                g);
	}
	hmpt_fmt_str(&f, "]");
	if (version >= 4) {
		hmpt_fmt_str(&f, ", \"frames\": [");
		for (uint32_t m = 0; m < NMODS; m++)
			for (uint32_t o = 0; o < NOFFS; o++) {
				hmpt_fmt_str(&f, m || o ? ", {\"frame\": " : "{\"frame\": ");
				frame_text(&f, m, o);
				hmpt_fmt_printf(&f, ", \"symbol\": \"f%u\"}", m * NOFFS + o);
			}
		for (uint32_t g = 0; g < 3; g++)
			hmpt_fmt_printf(&f, ", {\"frame\": \"zz!0x%u\"}", g);
		hmpt_fmt_str(&f, "]");
	}
	hmpt_fmt_str(&f, "}");
	hmpt_fmt_cstr(&f);
	return buf;
}

static void random_site(gsite_t *s)
{
	s->n = 1 + rnd(MAXF);
	for (uint32_t k = 0; k < s->n; k++) {
		s->mod[k] = rnd(NMODS);
		s->off[k] = rnd(NOFFS);
	}
	s->prefix = rnd(3) == 0;
	s->group = rnd(3);
}

/* One random plan: sites added while the loader takes them (a site that
 * would be ambiguous across groups is left out). */
static uint32_t random_plan(gsite_t *s, uint32_t version, uint32_t depth, hmpt_plan_t *plan)
{
	char err[512];
	uint32_t n = 0;

	for (uint32_t tries = 0; tries < 3 * MAXSITE && n < MAXSITE; tries++) {
		random_site(&s[n]);
		/* a site repeated now and then: the same frames, another match
		 * or group */
		if (n && rnd(4) == 0) {
			gsite_t again = s[rnd(n)];
			again.prefix = rnd(2);
			again.group = rnd(3);
			s[n] = again;
		}
		char *text = plan_text(s, n + 1, version, depth);
		int rc = hmpt_plan_parse(text, strlen(text), "r.json", plan, err, sizeof(err));
		free(text);
		if (rc == 0) {
			hmpt_plan_free(plan);
			n++;
		}
	}
	char *text = plan_text(s, n, version, depth);
	int rc = hmpt_plan_parse(text, strlen(text), "r.json", plan, err, sizeof(err));
	free(text);
	CHECK_OP(rc, ==, 0);
	return rc == 0 ? n : 0;
}

/* every stack made of the frames (as identity frames: runtime ones are
 * never given to hmpt_plan_match) up to a length, and the plan's own */
static uint32_t compare_all(const hmpt_plan_t *plan)
{
	uint64_t hs[MAXF + 2], offs[MAXF + 2];
	uint32_t checked = 0, matched = 0;

	for (uint32_t t = 0; t < 4000; t++) {
		uint32_t n = rnd(MAXF + 2);
		const hmpt_plan_site_t *base =
		    plan->nsites ? &plan->sites[rnd(plan->nsites)] : NULL;
		for (uint32_t k = 0; k < n; k++) {
			/* mostly a plan site's frames, cut or extended */
			if (base && k < base->nid && rnd(8)) {
				hs[k] = base->id_hashes[k];
				offs[k] = base->id_offsets[k];
			} else {
				uint32_t m = rnd(NMODS - 1); /* not libc: an identity frame */
				hs[k] = hmpt_hash_module(mods_g[m], strlen(mods_g[m]));
				offs[k] = 0x10 + rnd(NOFFS);
			}
		}
		int want = match_linear(plan, hs, offs, n),
		    got = hmpt_plan_match(plan, hs, offs, n);
		if (got != want) {
			fprintf(stderr, "stack of %u frames: index %d, scan %d\n", n, got, want);
			failures++;
		}
		checked++;
		matched += want >= 0;
	}
	/* each site's own identity frames */
	for (uint32_t i = 0; i < plan->nsites; i++) {
		const hmpt_plan_site_t *s = &plan->sites[i];
		CHECK_OP(hmpt_plan_match(plan, s->id_hashes, s->id_offsets, s->nid), ==,
		         match_linear(plan, s->id_hashes, s->id_offsets, s->nid));
	}
	CHECK_OP(matched, >, checked / 4);
	return checked;
}

static void test_index_against_scan(void)
{
	static gsite_t sites[MAXSITE];
	hmpt_plan_t plan;
	uint32_t stacks = 0, nsites = 0, legacy = 0, prefix = 0, repeated = 0;

	for (uint32_t round = 0; round < 24; round++) {
		/* version 1 with a depth that its stacks reach: legacy prefixes */
		uint32_t version = round % 3 == 0 ? 1 : 2, depth = 2 + rnd(4);
		uint32_t n = random_plan(sites, version, depth, &plan);
		if (!n)
			continue;
		nsites += plan.nsites;
		for (uint32_t i = 0; i < plan.nsites; i++) {
			legacy += plan.sites[i].legacy_prefix;
			prefix += plan.sites[i].prefix;
			repeated += plan.same_next[i] != UINT32_MAX;
		}
		stacks += compare_all(&plan);
		hmpt_plan_free(&plan);
	}
	fprintf(stderr,
	        "index against scan: %u sites (%u prefix, %u legacy prefix, %u repeated), %u "
	        "stacks\n",
	        nsites, prefix, legacy, repeated, stacks);
	CHECK_OP(legacy, >, 20u);
	CHECK_OP(prefix, >, 100u);
	CHECK_OP(repeated, >, 50u);
}

/* the same plan as format 2 and as format 4: the same sites */
static void test_compact_same(void)
{
	static gsite_t sites[MAXSITE];
	hmpt_plan_t two, four;
	char err[512];
	uint32_t compared = 0;

	for (uint32_t round = 0; round < 8; round++) {
		uint32_t n = random_plan(sites, 2, 4, &two);
		char *text = plan_text(sites, n, 4, 4);
		int rc = hmpt_plan_parse(text, strlen(text), "r4.json", &four, err, sizeof(err));
		free(text);
		if (rc != 0)
			fprintf(stderr, "format 4: %s\n", err);
		CHECK_OP(rc, ==, 0);
		if (rc != 0) {
			hmpt_plan_free(&two);
			continue;
		}
		CHECK_OP(four.version, ==, 4u);
		CHECK_OP(four.nsites, ==, two.nsites);
		CHECK_OP(four.ngroups, ==, two.ngroups);
		for (uint32_t i = 0; i < two.nsites && i < four.nsites; i++, compared++) {
			const hmpt_plan_site_t *a = &two.sites[i], *b = &four.sites[i];
			CHECK_OP(a->id, ==, b->id);
			CHECK_OP(a->nframes, ==, b->nframes);
			CHECK_OP(a->nid, ==, b->nid);
			CHECK_OP(a->group, ==, b->group);
			CHECK_OP(a->prefix, ==, b->prefix);
			CHECK_OP(a->legacy_prefix, ==, b->legacy_prefix);
			CHECK(a->symbol == NULL
			          ? b->symbol == NULL || strncmp(b->symbol, "f", 1) == 0
			          : b->symbol && strcmp(a->symbol, b->symbol) == 0);
			for (uint32_t k = 0; k < a->nframes && k < b->nframes; k++) {
				CHECK_STREQ(a->modules[k], b->modules[k]);
				CHECK_OP(a->name_hashes[k], ==, b->name_hashes[k]);
				CHECK_OP(a->offsets[k], ==, b->offsets[k]);
			}
			for (uint32_t k = 0; k < a->nid && k < b->nid; k++) {
				CHECK_OP(a->id_hashes[k], ==, b->id_hashes[k]);
				CHECK_OP(a->id_offsets[k], ==, b->id_offsets[k]);
			}
			CHECK_OP(hmpt_plan_match(&four, b->id_hashes, b->id_offsets, b->nid), ==,
			         hmpt_plan_match(&two, a->id_hashes, a->id_offsets, a->nid));
		}
		hmpt_plan_free(&two);
		hmpt_plan_free(&four);
	}
	fprintf(stderr, "format 2 and 4: %u sites the same\n", compared);
	CHECK_OP(compared, >, 500u);
}

int main(void)
{
	test_index_against_scan();
	test_compact_same();
	return failures != 0;
}
