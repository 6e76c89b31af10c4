/* test_rank.c — what the tuner makes of a profile's sampling source: the
 * source read from its capability record (report.c), the profile stage's
 * access shares over a profile written here (stage_profile.c), the site
 * table's note of where the shares come from, and the ranking's candidates
 * (stage_rank.c): with timer samples, sites whose time and bytes cannot give
 * --min-gain are not timed alone; with PEBS samples, page faults, too few
 * samples or --min-gain 0, every site is. */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#include "report.h"
#include "stages.h"

static char dir[] = "/tmp/hmpt-test-rank.XXXXXX";

#define MIB 1048576LL

/* A program of eight arrays: the demo's four (table, counts, stream, and
 * once, written at start and never read again), three small ones and a
 * medium one barely used.  n: timer samples of its accesses. */
static const struct {
	const char *id;
	long long bytes;
	int n;
} sites_g[] = {
    {"aaaaaaaaaaaaaaaa", 512 * MIB, 6000}, /* table: random gathers */
    {"bbbbbbbbbbbbbbbb", 256 * MIB, 3000}, /* counts */
    {"cccccccccccccccc", 128 * MIB, 950},  /* stream */
    {"dddddddddddddddd", 128 * MIB, 0},    /* once: no time, 12 % of the bytes */
    {"eeeeeeeeeeeeeeee", 1 * MIB, 20},     /* 0.2 % of the time: skipped */
    {"ffffffffffffffff", 2 * MIB, 30},     /* 0.3 %: skipped */
    {"1111111111111111", 1 * MIB, 80},     /* 0.8 %: its upper bound is not under 1 % */
    {"2222222222222222", 16 * MIB, 10},    /* 0.1 % of the time, 1.5 % of the bytes */
};
enum { NSITES = sizeof(sites_g) / sizeof(sites_g[0]) };

/* the profile, its samples divided by `scale`, from a source with these
 * caps ("" for a profile before the capability record) */
static void write_profile(const char *mode, const char *caps, int scale)
{
	char path[256];
	long long bytes = 0, n = 0;

	for (int i = 0; i < NSITES; i++)
		bytes += sites_g[i].bytes, n += sites_g[i].n / scale;
	snprintf(path, sizeof(path), "%s/profile/profile.json", dir);
	FILE *f = fopen(path, "w");
	fprintf(f,
	        "{\"format\": \"hmpt-profile\", \"format_version\": 2,"
	        " \"process\": {\"pid\": 7, \"exe\": \"/bin/x\"},"
	        " \"totals\": {\"tracked_allocations\": %d, \"tracked_bytes\": %lld,"
	        " \"peak_tracked_bytes\": %lld, \"live_tracked_bytes\": 0,"
	        " \"peak_rss_bytes\": %lld, \"untracked_large\": 0},"
	        " \"modules\": [{\"name\": \"x\", \"path\": \"/bin/x\", \"build_id\": \"\"}],"
	        " \"sampling\": {\"mode\": \"%s\", \"source\": \"%s\", %s%s"
	        " \"period\": 1000000, \"share_of\": %lld, \"touched_of\": %lld},"
	        " \"sites\": [",
	        NSITES, bytes, bytes, bytes, mode, mode, caps, *caps ? "," : "", n, bytes);
	for (int i = 0; i < NSITES; i++)
		fprintf(f,
		        "%s{\"id\": \"%s\", \"frames\": [\"x!0x%x\"], \"allocations\": 1,"
		        " \"bytes\": %lld, \"max_size\": %lld, \"peak_live_bytes\": %lld,"
		        " \"live_bytes\": 0, \"first_s\": 0, \"last_s\": 0,"
		        " \"samples\": {\"n\": %d, \"share\": %.6f, \"first_touch_bytes\": %lld}}",
		        i ? "," : "", sites_g[i].id, 0x1000 + i, sites_g[i].bytes, sites_g[i].bytes,
		        sites_g[i].bytes, sites_g[i].n / scale,
		        n ? (double)(sites_g[i].n / scale) / (double)n : 0.0, sites_g[i].bytes);
	fprintf(f, "]}\n");
	fclose(f);
}

#define TIMER_CAPS                                                                                 \
	"\"caps\": {\"access_density\": true, \"first_touch\": true, \"latency\": false,"          \
	" \"weight\": false, \"stores\": true, \"regions\": false}"
#define PEBS_CAPS                                                                                  \
	"\"caps\": {\"access_density\": true, \"first_touch\": false, \"latency\": true,"          \
	" \"weight\": true, \"stores\": true, \"regions\": false}"
#define FAULT_CAPS                                                                                 \
	"\"caps\": {\"access_density\": false, \"first_touch\": true, \"latency\": false,"         \
	" \"weight\": false, \"stores\": false, \"regions\": false}"

static hmpt_tune_opts_t opts;

/* the profile stage over the written profile (its run journaled as done) */
static int load(hmpt_tune_t *t, hmpt_sym_t *sym)
{
	hmpt_journal_t j = {.profiled = true};
	hmpt_measure_t x = {.journal = &j, .quiet = true};

	*t = (hmpt_tune_t){.opt = &opts, .timeout_s = 1, .sym = sym};
	return hmpt_stage_profile(t, &x);
}

static void unload(hmpt_tune_t *t)
{
	free(t->sites);
	json_decref(t->profile);
}

/* the candidates as their ids' first letters, and how many were skipped */
static void ranked(const hmpt_tune_t *t, char *ids, int *skipped)
{
	int cand[NSITES + 1], n = hmpt_rank_candidates(t, cand, skipped);
	for (int k = 0; k < n; k++)
		ids[k] = t->sites[cand[k]].id[0];
	ids[n] = 0;
}

/* runs of the ranking phase: each candidate and the reference's share,
 * --reps each (stage_rank.c's count) */
static int ranking_runs(const char *ids)
{
	int k = (int)strlen(ids);
	return (k + hmpt_measure_ref_share(k)) * opts.reps;
}

static void check_source(const char *sampling, bool density, bool first_touch, bool time,
                         const char *kind, const char *text)
{
	json_t *sm = json_loads(sampling, JSON_DECODE_ANY, NULL);
	hmpt_report_source_t src;

	CHECK_OP(sm, !=, NULL);
	hmpt_report_source(sm, &src);
	CHECK_OP(src.density, ==, density);
	CHECK_OP(src.first_touch, ==, first_touch);
	CHECK_OP(src.time, ==, time);
	CHECK_STREQ(src.kind, kind);
	CHECK_STREQ(src.source, text);
	json_decref(sm);
}

static void check_sources(void)
{
	check_source("{\"mode\": \"timer\", \"source\": \"timer\", " TIMER_CAPS "}", true, true,
	             true, "accesses", "timer samples: where the CPU time went");
	check_source("{\"mode\": \"pebs\", \"source\": \"pebs\", " PEBS_CAPS "}", true, false,
	             false, "accesses", "PEBS load samples");
	check_source("{\"mode\": \"faults\", \"source\": \"faults\", " FAULT_CAPS "}", false, true,
	             false, "first touches", "page faults");
	/* profiles before the capability record */
	check_source("{\"mode\": \"ibs\"}", true, false, false, "accesses", "IBS op samples");
	check_source("{\"mode\": \"faults\"}", false, true, false, "first touches", "page faults");
	check_source("{\"mode\": \"off\"}", false, false, false, NULL, "");
	check_source("null", false, false, false, NULL, "");
	/* a source the tuner has no words for: its name; counts of regions
	 * are accesses, not time */
	check_source("{\"mode\": \"damon\", \"caps\": {\"access_density\": true,"
	             " \"regions\": true}}",
	             true, false, false, "accesses", "damon samples");
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

int main(void)
{
	char path[256], ids[NSITES + 1];
	int skipped;
	hmpt_tune_t t;
	hmpt_sym_t *sym = hmpt_sym_new();
	static char *const cmd[] = {"./x", NULL};

	if (!mkdtemp(dir))
		return 77;
	snprintf(path, sizeof(path), "%s/profile", dir);
	mkdir(path, 0700);
	opts = (hmpt_tune_opts_t){.cmd = cmd,
	                          .program = "./x",
	                          .dir = dir,
	                          .reps = 3,
	                          .candidates = 16,
	                          .min_gain = 0.01};
	check_sources();
	CHECK(hmpt_rank_skip_below(0.01) > 0.0099 && hmpt_rank_skip_below(0.01) < 0.0100);
	CHECK(hmpt_rank_skip_below(0) == 0);

	/* timer samples: shares of the accesses, ranked by them; the two small
	 * sites whose time and bytes are under 0.99 % are not timed alone
	 * (once, with no samples, is: its bytes' page faults are kernel time
	 * the samples miss) */
	write_profile("timer", TIMER_CAPS, 1);
	CHECK_OP(load(&t, sym), ==, 0);
	CHECK_STREQ(t.access_kind, "accesses");
	CHECK(t.access_density && t.access_time);
	CHECK_STREQ(t.access_source, "timer samples: where the CPU time went");
	CHECK_OP(t.nsites, ==, NSITES);
	ranked(&t, ids, &skipped);
	CHECK_STREQ(ids, "abc12d");
	CHECK_OP(skipped, ==, 2);
	CHECK_OP(ranking_runs(ids), ==, 24); /* instead of 33 */
	opts.candidates = 4;                 /* the cap counts the sites timed */
	ranked(&t, ids, &skipped);
	CHECK_STREQ(ids, "abc1");
	CHECK_OP(skipped, ==, 0);
	opts.candidates = 16;
	opts.min_gain = 0; /* any gain counts: every site is timed */
	ranked(&t, ids, &skipped);
	CHECK_STREQ(ids, "abc1fe2d");
	CHECK_OP(skipped, ==, 0);
	opts.min_gain = 0.01;
	/* the site table says where its shares come from */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	hmpt_report_opts_t ro = {0};
	CHECK_OP(hmpt_report_table(f, t.profile, sym, &ro), ==, 0);
	fclose(f);
	CHECK_OP(strstr(text, "\nhmpt: access: each site's share of the accesses (timer samples: "
	                      "where the CPU time went); per MiB: "),
	         !=, NULL);
	free(text);
	unload(&t);

	/* a hundredth of the samples (99): a share seen in so few is
	 * uncertain, and no site is skipped */
	write_profile("timer", TIMER_CAPS, 100);
	CHECK_OP(load(&t, sym), ==, 0);
	ranked(&t, ids, &skipped);
	CHECK_OP(strlen(ids), ==, NSITES);
	CHECK_OP(skipped, ==, 0);
	unload(&t);

	/* PEBS samples: loads, not time: ranked by them, none skipped */
	write_profile("pebs", PEBS_CAPS, 1);
	CHECK_OP(load(&t, sym), ==, 0);
	CHECK_STREQ(t.access_kind, "accesses");
	CHECK(t.access_density && !t.access_time);
	CHECK_STREQ(t.access_source, "PEBS load samples");
	ranked(&t, ids, &skipped);
	CHECK_STREQ(ids, "abc1fe2d");
	CHECK_OP(ranking_runs(ids), ==, 33);
	unload(&t);

	/* page faults: first touches, the largest first, none skipped */
	write_profile("faults", FAULT_CAPS, 1);
	CHECK_OP(load(&t, sym), ==, 0);
	CHECK_STREQ(t.access_kind, "first touches");
	CHECK(!t.access_density && !t.access_time);
	CHECK_STREQ(t.access_source, "page faults");
	ranked(&t, ids, &skipped);
	CHECK_OP(strlen(ids), ==, NSITES); /* c and d, e and 1 are as large */
	CHECK(ids[0] == 'a' && ids[1] == 'b' && ids[4] == '2' && ids[5] == 'f');
	CHECK_OP(skipped, ==, 0);
	unload(&t);

	hmpt_sym_free(sym);
	if (!getenv("TEST_RANK_KEEP"))
		nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return failures != 0;
}
