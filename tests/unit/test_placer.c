/* test_placer.c — site -> pool (placer.h) under plans read from JSON text:
 * the most specific plan site wins, heap sites no plan site names go to
 * the default pool, static data no plan site names stays in "system", and
 * the per-site counts of what went where. */
#include <stdio.h>
#include <string.h>

#include "check.h"

#include "hash.h"
#include "placer.h"
#include "plan.h"
#include "sites.h"

static const char plan_text[] =
    "{\"format\": \"hmpt-plan\", \"format_version\": 2,\n"
    " \"pools\": {\"fast\": {\"pages\": \"thp\"}, \"mid\": {\"pages\": \"4k\"},\n"
    "           \"slow\": {\"pages\": \"4k\"}, \"other\": {\"pages\": \"4k\"}},\n"
    " \"default_pool\": \"slow\",\n"
    " \"groups\": [\n"
    "  {\"name\": \"exact\", \"pool\": \"fast\",\n"
    "   \"sites\": [{\"frames\": [\"app!0x10\", \"app!0x20\", \"app!0x30\"]}]},\n"
    "  {\"name\": \"short\", \"pool\": \"mid\",\n"
    "   \"sites\": [{\"frames\": [\"app!0x10\"], \"match\": \"prefix\"}]},\n"
    "  {\"name\": \"long\", \"pool\": \"other\",\n"
    "   \"sites\": [{\"frames\": [\"app!0x10\", \"app!0x20\"], \"match\": \"prefix\"}]},\n"
    "  {\"name\": \"data\", \"pool\": \"fast\",\n"
    "   \"sites\": [{\"frames\": [\"app!0x500\"]}]}\n"
    " ]}\n";

static int pool_index(const hmpt_plan_t *pl, const char *name)
{
	for (int i = 0; i < pl->npools; i++)
		if (!strcmp(pl->pools[i].name, name))
			return i;
	return -2;
}

static int decide(const hmpt_plan_t *pl, const uint64_t *offs, uint32_t n, bool is_static,
                  int32_t *plan_site)
{
	uint64_t app = hmpt_hash_module("app", 3), hashes[8];

	for (uint32_t i = 0; i < n; i++)
		hashes[i] = app;
	return hmpt_placer_decide(pl, hashes, offs, n, is_static, plan_site);
}

static void test_decide(void)
{
	hmpt_plan_t pl;
	char err[512];
	int32_t ps;

	if (hmpt_plan_parse(plan_text, strlen(plan_text), "t.json", &pl, err, sizeof(err)) != 0) {
		fprintf(stderr, "plan: %s\n", err);
		failures++;
		return;
	}
	int fast = pool_index(&pl, "fast"), mid = pool_index(&pl, "mid");
	int slow = pool_index(&pl, "slow"), other = pool_index(&pl, "other");
	/* a "stack" match wins over any prefix */
	CHECK_OP(decide(&pl, (uint64_t[]){0x10, 0x20, 0x30}, 3, false, &ps), ==, fast);
	CHECK_OP(ps, >=, 0);
	if (ps >= 0)
		CHECK_STREQ(pl.groups[pl.sites[ps].group].name, "exact");
	/* the longer prefix over the shorter */
	CHECK_OP(decide(&pl, (uint64_t[]){0x10, 0x20, 0x99}, 3, false, &ps), ==, other);
	CHECK_OP(decide(&pl, (uint64_t[]){0x10, 0x99}, 2, false, &ps), ==, mid);
	CHECK_OP(ps, >=, 0);
	if (ps >= 0)
		CHECK_STREQ(pl.groups[pl.sites[ps].group].name, "short");
	/* named by no plan site: heap to the default pool, static data stays */
	CHECK_OP(decide(&pl, (uint64_t[]){0x77}, 1, false, &ps), ==, slow);
	CHECK_OP(ps, ==, -1);
	CHECK_OP(decide(&pl, (uint64_t[]){0x77}, 1, true, &ps), ==, HMPT_POOL_SYSTEM);
	CHECK_OP(ps, ==, -1);
	/* static data a plan site names goes to its pool */
	CHECK_OP(decide(&pl, (uint64_t[]){0x500}, 1, true, &ps), ==, fast);
	hmpt_plan_free(&pl);
}

static char named_g[1 << 16], unnamed_g[1 << 16];

/* Through the placer's own table: static sites of this program, one named
 * by the plan, and a heap site; what each put where. */
static void test_table(void)
{
	char text[2048], err[512];

	CHECK_OP(hmpt_sites_init(16), ==, 0);
	uint32_t named =
	    hmpt_sites_add_static((uintptr_t)named_g, sizeof(named_g), "named_g", ".bss");
	uint32_t unnamed =
	    hmpt_sites_add_static((uintptr_t)unnamed_g, sizeof(unnamed_g), "unnamed_g", ".bss");
	CHECK_OP(named, !=, HMPT_SITE_OVERFLOW);
	CHECK_OP(unnamed, !=, HMPT_SITE_OVERFLOW);
	hmpt_sites_lock();
	const hmpt_site_t *s = hmpt_sites_get(named);
	CHECK_OP(s->nid, ==, 1);
	CHECK_OP(s->mods[0], !=, HMPT_MODULE_UNKNOWN);
	snprintf(text, sizeof(text),
	         "{\"format\": \"hmpt-plan\", \"format_version\": 2,\n"
	         " \"pools\": {\"fast\": {\"pages\": \"thp\"}, \"slow\": {\"pages\": \"4k\"}},\n"
	         " \"default_pool\": \"slow\",\n"
	         " \"groups\": [{\"name\": \"data\", \"pool\": \"fast\",\n"
	         "   \"sites\": [{\"frames\": [\"%s!0x%llx\"]}]}]}\n",
	         hmpt_modules_get(s->mods[0])->name, (unsigned long long)s->offs[0]);
	CHECK_OP(hmpt_placer_site(named), ==, NULL); /* not decided yet */
	hmpt_sites_unlock();
	if (hmpt_plan_parse(text, strlen(text), "t.json", &hmpt_plan_g, err, sizeof(err)) != 0) {
		fprintf(stderr, "plan: %s\n%s", err, text);
		failures++;
		return;
	}
	hmpt_placing_g = true;
	int fast = pool_index(&hmpt_plan_g, "fast"), slow = pool_index(&hmpt_plan_g, "slow");
	uint32_t heap = hmpt_sites_capture();

	CHECK_OP(hmpt_placer_site_pool(named), ==, fast);
	CHECK_OP(hmpt_placer_site_pool(unnamed), ==, HMPT_POOL_SYSTEM);
	CHECK_OP(hmpt_placer_site_pool(heap), ==, slow);
	CHECK_OP(hmpt_placer_site_pool(named), ==, fast); /* decided once */

	hmpt_sites_lock();
	hmpt_placer_count(named, fast, 100);
	hmpt_placer_count(named, fast, 50);
	hmpt_placer_count(named, HMPT_POOL_SYSTEM, 7); /* a fallback */
	hmpt_placer_count(heap, slow, 4096);
	const hmpt_placer_site_t *d = hmpt_placer_site(named);
	CHECK_OP(d, !=, NULL);
	if (d) {
		CHECK(d->decided && d->pool == fast && d->plan_site == 0);
		CHECK_OP(d->nplaced, ==, (uint32_t)hmpt_plan_g.npools + 1);
		CHECK_OP(d->placed[fast + 1].allocations, ==, 2);
		CHECK_OP(d->placed[fast + 1].bytes, ==, 150);
		CHECK_OP(d->placed[0].allocations, ==, 1);
		CHECK_OP(d->placed[0].bytes, ==, 7);
		CHECK_OP(d->placed[slow + 1].allocations, ==, 0);
	}
	d = hmpt_placer_site(unnamed);
	CHECK(d && d->pool == HMPT_POOL_SYSTEM && d->plan_site == -1);
	CHECK(d && d->placed[0].allocations == 0);
	d = hmpt_placer_site(heap);
	CHECK(d && d->pool == slow && d->plan_site == -1);
	CHECK(d && d->placed[slow + 1].allocations == 1 && d->placed[slow + 1].bytes == 4096);
	/* a fork child counts heap sites from zero; static data stays placed */
	hmpt_placer_reset_counts();
	CHECK(d && d->placed[slow + 1].allocations == 0 && d->placed[slow + 1].bytes == 0);
	d = hmpt_placer_site(named);
	CHECK(d && d->placed[fast + 1].allocations == 2);
	hmpt_sites_unlock();
}

int main(void)
{
	test_decide();
	test_table();
	if (failures)
		fprintf(stderr, "test_placer: %d failures\n", failures);
	return failures != 0;
}
