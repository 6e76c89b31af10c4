/* test_results.c — what hmpt-tune writes for a tuning built by hand: three
 * groups, measured configurations (faster, same, slower, one with a failed
 * run), two the search model only predicted (one above the measured front,
 * one below it); results.json and .csv say which were measured, report.html
 * and summary.svg name every configuration, the summary table marks the
 * prediction that matters and leaves out the other.
 * TEST_RESULTS_KEEP=1 keeps the directory, to look at, and prints the table. */
#include <ftw.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "results.h"
#include "view.h"

static char dir[] = "/tmp/hmpt-test-results.XXXXXX";

/* mask: its groups; runs: its figures (seconds), 0 for a failed run;
 * predicted: the model's speedup, for one with no runs */
static const struct {
	const char *label;
	unsigned mask;
	int nruns;
	double runs[4], predicted;
} spec[] = {
    {"slow", 0, 4, {2.00, 2.02, 1.98, 2.01}, 0}, /* the reference */
    {"G1", 1, 3, {1.60, 1.62, 1.59}, 0},         /* faster, 1.249x: the 90 % plan */
    {"G2", 2, 3, {2.03, 1.975, 2.0025}, 0},      /* same */
    {"G1+G2", 3, 3, {1.50, 1.51, 1.49}, 0},      /* faster, 1.335x: the best */
    {"rest", 4, 3, {1.90, 0, 1.91}, 0},          /* failed */
    {"G1+rest", 5, 0, {0}, 1.30},                /* predicted under G1+G2 (as big) */
    {"G2+rest", 6, 3, {2.30, 2.32, 2.28}, 0},    /* slower */
    {"fast", 7, 0, {0}, 1.90},                   /* predicted above everything */
};
enum { NCONF = sizeof(spec) / sizeof(spec[0]) };

static hmpt_tsite_t sites[] = {
    {.id = "aaaa", .bytes = 16 << 20, .access = 0.5, .group = 0, .label = "alloc_a (a.c:10)"},
    {.id = "bbbb", .bytes = 8 << 20, .access = 0.3, .group = 1, .label = "alloc_b (a.c:20)"},
    {.id = "cccc", .bytes = 4 << 20, .access = 0.1, .group = 2, .label = "alloc_c (a.c:30)"},
    {.id = "dddd", .bytes = 4 << 20, .access = 0.1, .group = 2, .label = "s0 (static, .bss)"},
};

/* what was asked */
static hmpt_tune_opts_t opts;

static void build(hmpt_tune_t *t, hmpt_tconfig_t *configs)
{
	static char *const cmd[] = {"./app", "--size", "3", NULL};
	hmpt_pooled_t pool = {0};

	opts.cmd = cmd;
	opts.program = "./app";
	opts.dir = dir;
	opts.metric = "Time in seconds";
	opts.reps = 3;
	opts.alpha = 0.05;
	opts.min_gain = 0.01;
	opts.capacity = 24 << 20;
	opts.fast_pool = json_string("thp");
	opts.slow_pool = json_string("4k");
	opts.fast_name = "thp";
	opts.slow_name = "4k";
	t->opt = &opts;
	t->alpha_used = 0.05 / 5;
	t->access_kind = "accesses"; /* timer samples, as the profile stage reads them */
	t->access_density = t->access_time = true;
	snprintf(t->access_source, sizeof(t->access_source),
	         "timer samples: where the CPU time went");
	/* how two of the sites are walked (their profile's pattern counts):
	 * a's samples go one way, b's either way */
	sites[0].json = json_pack("{s:{s:{s:s,s:i,s:i,s:i,s:[{s:i,s:i}]}}}", "samples", "pattern",
	                          "order", "samples", "steps", 100, "forward", 100, "backward", 0,
	                          "steps_by_value", "step", 8, "n", 60);
	sites[1].json = json_pack("{s:{s:{s:s,s:i,s:i,s:i}}}", "samples", "pattern", "order",
	                          "samples", "steps", 100, "forward", 52, "backward", 48);
	t->sites = sites;
	t->nsites = 4;
	t->total_bytes = 32 << 20;
	t->ngroups = 3;
	for (int g = 0; g < 3; g++) {
		snprintf(t->groups[g].name, sizeof(t->groups[g].name), "%s",
		         (const char *[]){"G1", "G2", "rest"}[g]);
		for (int s = 0; s < 4; s++)
			if (sites[s].group == g) {
				t->groups[g].nsites++;
				t->groups[g].bytes += sites[s].bytes;
				t->groups[g].access += sites[s].access;
			}
	}
	t->configs = configs;
	t->nconfigs = t->ncombos = NCONF;
	for (int i = 0; i < NCONF; i++) {
		hmpt_tconfig_t *c = &configs[i];
		double v[4];
		int n = 0;
		snprintf(c->key, sizeof(c->key), "%016x", 0xc0ffee00 + i);
		snprintf(c->label, sizeof(c->label), "%s", spec[i].label);
		c->mask = spec[i].mask;
		c->in_combos = true;
		c->fast = calloc(4, 1);
		c->access_fraction = 0;
		for (int s = 0; s < 4; s++)
			if (c->mask >> sites[s].group & 1) {
				c->fast[s] = 1;
				c->nfast++;
				c->fast_bytes += sites[s].bytes;
				c->access_fraction += sites[s].access;
			}
		c->fast_fraction = (double)c->fast_bytes / (double)t->total_bytes;
		c->predicted = spec[i].predicted;
		c->runs = calloc(4, sizeof(*c->runs));
		for (int r = 0; r < spec[i].nruns; r++) {
			hmpt_trun_t *run = &c->runs[c->nruns++];
			run->rep = r;
			run->value = run->wall = spec[i].runs[r];
			if (i == 0 && r == 0) /* the one run whose machine's load is known */
				*run = (hmpt_trun_t){.value = run->value,
				                     .wall = run->wall,
				                     .has_cpu = true,
				                     .cpu = 1.5,
				                     .nivcsw = 7,
				                     .has_load = true,
				                     .others = 0.25,
				                     .ncpus = 2};
			if (spec[i].runs[r] == 0) {
				run->status = 134;
				snprintf(run->why, sizeof(run->why),
				         "killed by signal 6 (SIGABRT)");
				c->nfailed++;
			} else {
				v[n++] = spec[i].runs[r];
			}
		}
		if (n)
			hmpt_stats_summary(v, n, &c->sum);
		hmpt_stats_pool(&pool, &c->sum);
	}
	t->ref = 0;
	for (int i = 0; i < NCONF; i++)
		if (i == 0)
			configs[i].sp = (hmpt_speedup_t){.speedup = 1, .lo = 1, .hi = 1};
		else
			hmpt_stats_speedup(&configs[0].sum, &configs[i].sum, &pool, t->alpha_used,
			                   t->opt->min_gain, false, &configs[i].sp);
	for (int g = 0; g < 3; g++)
		t->groups[g].alone = configs[1 << g].sp.speedup;
	configs[3].estimate = 1.4;
	/* a run set aside as a slow outlier (method.c decides; here only how
	 * it is reported) */
	configs[1].runs[2].outlier = true;
	t->noise.outliers = 1;
	t->noise.outliers_of = 19;
	t->best = 3;   /* G1+G2, 1.335x */
	t->best90 = 1; /* G1, 1.249x */
	t->fit = 3;    /* 24 MiB */
}

static char *slurp(const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = getdelim(&buf, &cap, '\0', f);
	fclose(f);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int count(const char *text, const char *what)
{
	int n = 0;
	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void check_json(void)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/results.json", dir);
	json_t *r = json_load_file(path, 0, NULL);
	CHECK_OP(r, !=, NULL);
	json_t *configs = json_object_get(r, "configs");
	CHECK_OP(json_array_size(configs), ==, NCONF);
	json_t *runs = json_object_get(json_array_get(configs, 0), "runs");
	CHECK(json_real_value(json_object_get(json_array_get(runs, 0), "cpu_s")) == 1.5);
	CHECK(json_integer_value(json_object_get(json_array_get(runs, 0), "nivcsw")) == 7);
	CHECK(json_real_value(json_object_get(json_array_get(runs, 0), "others_s")) == 0.25);
	CHECK(json_is_null(json_object_get(json_array_get(runs, 1), "cpu_s")));
	CHECK(json_is_null(json_object_get(json_array_get(runs, 1), "others_s")));
	CHECK(!json_object_get(json_array_get(runs, 0), "retaken"));
	CHECK(!json_object_get(json_array_get(runs, 0), "outlier"));
	json_t *g1 = json_object_get(json_array_get(configs, 1), "runs");
	CHECK(json_is_true(json_object_get(json_array_get(g1, 2), "outlier")));
	CHECK(json_is_object(json_object_get(r, "noise")));
	CHECK(json_integer_value(json_object_get(json_object_get(r, "noise"), "outliers")) == 1);
	for (size_t i = 0; i < json_array_size(configs) && i < NCONF; i++) {
		json_t *c = json_array_get(configs, i);
		json_t *m = json_object_get(c, "measured"), *p = json_object_get(c, "predicted");
		CHECK_STREQ(json_string_value(json_object_get(c, "label")), spec[i].label);
		if (spec[i].predicted) {
			CHECK(json_is_false(m));
			CHECK(json_is_real(p) && json_real_value(p) == spec[i].predicted);
			CHECK(json_is_null(json_object_get(c, "speedup")));
			CHECK_STREQ(json_string_value(json_object_get(c, "verdict")), "predicted");
		} else {
			CHECK(json_is_true(m) && json_is_null(p));
			CHECK(json_is_real(json_object_get(c, "speedup")));
		}
	}
	const char *want[NCONF] = {"reference", "faster",    "same",   "faster",
	                           "failed",    "predicted", "slower", "predicted"};
	for (int i = 0; i < NCONF; i++)
		CHECK_STREQ(json_string_value(
		                json_object_get(json_array_get(configs, (size_t)i), "verdict")),
		            want[i]);
	json_decref(r);
}

static void check_csv(void)
{
	char *csv = slurp("results.csv");
	CHECK_OP(csv, !=, NULL);
	if (!csv)
		return;
	/* a row per run (4 + 5 x 3) and per prediction (2), and the header */
	CHECK_OP(count(csv, "\n"), ==, 1 + 4 + 5 * 3 + 2);
	const char *head = "config,label,rep,status,why,wall_s,value,fast_bytes,fast_fraction,"
	                   "access_fraction,config_speedup,config_verdict,phase,measured,"
	                   "predicted,cpu_s,nivcsw,others_s,steal_s,retaken,outlier\n";
	CHECK(!strncmp(csv, head, strlen(head)));
	/* the machine's load: known for one run, empty for the others */
	CHECK_OP(count(csv, ",true,,,,,,,\n"), ==, 4 + 5 * 3 - 2);
	CHECK_OP(count(csv, ",true,,1.500000,7,0.250000,0.000000,,\n"), ==, 1);
	CHECK_OP(count(csv, ",true,,,,,,,1\n"), ==, 1); /* the outlier */
	CHECK_OP(count(csv, ",false,"), ==, 2);
	/* the prediction: no run fields, no measured speedup */
	CHECK_OP(strstr(csv, "00000000c0ffee07,\"fast\",,,,,,33554432,1.000000,1.000000,,predicted,"
	                     "combinations,false,1.900000,,,,,,\n"),
	         !=, NULL);
	CHECK_OP(strstr(csv, ",134,\"killed by signal 6 (SIGABRT)\","), !=, NULL);
	free(csv);
}

static void check_html(void)
{
	char *html = slurp("report.html");
	char cell[64];
	CHECK_OP(html, !=, NULL);
	if (!html)
		return;
	/* the groups, coloured by their gain alone: G1 the most, G2 nothing */
	CHECK_OP(strstr(html, "<tr style=\"background:#66bd63\"><td class=l>G1</td>"), !=, NULL);
	CHECK_OP(strstr(html, "<tr style=\"background:#ffffff\"><td class=l>G2</td>"), !=, NULL);
	CHECK_OP(strstr(html, "display:flex"), !=, NULL);
	CHECK_OP(strstr(html, "alloc_c (a.c:30)<br>s0 (static, .bss)"), !=, NULL);
	for (int i = 0; i < NCONF; i++) {
		snprintf(cell, sizeof(cell), "<td class=l>%s</td>", spec[i].label);
		CHECK_OP(strstr(html, cell), !=, NULL);
	}
	CHECK_OP(strstr(html, "<tr class=p><td class=l>fast</td>"), !=, NULL);
	CHECK_OP(strstr(html, "<td>~1.900</td>"), !=, NULL);
	/* the bottleneck view: each group coloured by where its time goes */
	CHECK_OP(strstr(html, "<section id=bottleneck>"), !=, NULL);
	CHECK_OP(strstr(html, "data-group=\"G1\" data-pattern=\"sequential\" "
	                      "data-where=\"bandwidth\""),
	         !=, NULL);
	CHECK_OP(strstr(html, "data-group=\"G2\" data-pattern=\"random\" data-where=\"latency\""),
	         !=, NULL);
	CHECK_OP(strstr(html, "<b>G1</b> (alloc_a (a.c:10)) carries 50 % of the accesses, "
	                      "sequential: bandwidth-bound"),
	         !=, NULL);
	CHECK_OP(strstr(html, "<table id=sites>"), !=, NULL);
	/* where every share comes from: the bars, the sites, the groups, the
	 * configurations; the first-touch warning only without sampled accesses */
	CHECK_OP(strstr(html, "Bars: each group's share of the accesses (timer samples: where the "
	                      "CPU time went);"),
	         !=, NULL);
	CHECK_OP(strstr(html, "Each site's share of the accesses (timer samples: "), !=, NULL);
	CHECK_OP(strstr(html, "accesses: each group's share of the accesses (timer samples: "), !=,
	         NULL);
	CHECK_OP(strstr(html, "Each configuration's share of the accesses (timer samples: where "
	                      "the CPU time went) in the fast pool."),
	         !=, NULL);
	CHECK(!strstr(html, "first touches</b>"));
	/* offline: nothing fetched from elsewhere */
	CHECK(!strstr(html, "http://") && !strstr(html, "https://"));
	free(html);
}

static void check_svg(void)
{
	char hover[128];
	if (access("/usr/bin/gnuplot", X_OK) != 0) {
		fprintf(stderr, "test_results: no /usr/bin/gnuplot: summary.svg not checked\n");
		return;
	}
	char *svg = slurp("summary.svg");
	CHECK_OP(svg, !=, NULL);
	if (!svg)
		return;
	for (int i = 0; i < NCONF; i++) {
		snprintf(hover, sizeof(hover), "showHypertext(evt,'%s\\n", spec[i].label);
		CHECK_OP(count(svg, hover), ==, 1);
	}
	CHECK_OP(strstr(svg, "G1+G2\\n1.335x (interval "), !=,
	         NULL); /* its speedup, then interval */
	CHECK_OP(strstr(svg, "fast\\n~1.900x predicted by the search model"), !=, NULL);
	CHECK_OP(strstr(svg, "rest\\nfailed: 1 of 3 runs"), !=, NULL);
	CHECK_OP(strstr(svg, "\\nplan-best.json: best plan"), !=, NULL);
	/* named on the plot itself: the front, the plans, the prediction above
	 * the front; not the one below it */
	CHECK_OP(strstr(svg, ">G1+G2 1.335x (best, capacity)<"), !=, NULL);
	CHECK_OP(strstr(svg, ">G1 1.249x (90 %)<"), !=, NULL);
	CHECK_OP(strstr(svg, ">fast ~1.900x<"), !=, NULL);
	CHECK(!strstr(svg, ">G1+rest ") && !strstr(svg, ">G2 "));
	CHECK(strstr(svg, "<script") != NULL && !strstr(svg, "src=\"http"));
	free(svg);
}

static void check_summary(const hmpt_tune_t *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	hmpt_tune_print_summary(t, f);
	fclose(f);
	/* measured rows first, the prediction above the front after them,
	 * marked; the one below the front left out */
	char *g2rest = strstr(text, "\nG2+rest "), *fast = strstr(text, "\nfast ");
	CHECK(g2rest && fast && g2rest < fast);
	CHECK(fast && strstr(fast, "~1.900x") && strstr(fast, "predicted\n"));
	CHECK(!strstr(text, "\nG1+rest "));
	CHECK_OP(strstr(text, "1 of 2 predicted shown"), !=, NULL);
	CHECK(strstr(text, "rest") && strstr(text, "failed: killed by signal 6 (SIGABRT)"));
	/* each table's shares named: of what, and from which source */
	CHECK_OP(strstr(text, "\n(access: each group's share of the accesses (timer samples: "
	                      "where the CPU time went))\n"),
	         !=, NULL);
	CHECK_OP(strstr(text, "\n(access: the share of the accesses (timer samples: where the "
	                      "CPU time went) in the fast pool)\n"),
	         !=, NULL);
	CHECK_OP(strstr(text, "\n1 run set aside as slow outliers (slower than their "
	                      "configuration's median by more than 4 robust sd, 5.3 %).\n"),
	         !=, NULL);
	if (failures || getenv("TEST_RESULTS_KEEP"))
		fputs(text, stderr);
	free(text);
}

/* A profile of 10,000 sites: the view shows the top 10, folds up to 990
 * more away, and points to sites.tsv for the rest. */
static void check_many_sites(hmpt_tune_t *t)
{
	enum { N = 10000 };
	hmpt_tune_t many = *t;
	hmpt_tsite_t *ms = calloc(N, sizeof(*ms));
	char *text = NULL;
	size_t len = 0;

	for (int i = 0; i < N; i++) {
		ms[i] = (hmpt_tsite_t){.bytes = 1u << 20, .access = 1.0 / N, .group = i % 3};
		snprintf(ms[i].label, sizeof(ms[i].label), "site_%d (m.c:%d)", i, i);
	}
	ms[1234].access = 0.5; /* the first row */
	many.sites = ms;
	many.nsites = N;
	many.best = -1;
	FILE *f = open_memstream(&text, &len);
	hmpt_view_write(f, &many);
	fclose(f);
	char *top = strstr(text, "<table id=sites>"),
	     *fold = strstr(text, "<details id=sites-more>");
	CHECK(top && fold && top < fold);
	if (top && fold) {
		*fold = 0;
		CHECK_OP(count(top, "<tr><td class=l>"), ==, 10);
		CHECK_OP(strstr(top, "<tr><td class=l>site_1234 (m.c:1234)</td>"), ==,
		         strstr(top, "<tr><td class=l>"));
		*fold = '<';
		CHECK_OP(count(fold, "<tr><td class=l>"), ==, 990);
		CHECK_OP(strstr(fold, "<summary>9990 more sites</summary>"), !=, NULL);
		CHECK_OP(strstr(fold, "9000 more in <a href=\"profile/sites.tsv\">"), !=, NULL);
	}
	/* a page of a few hundred KiB, not of every site */
	CHECK_OP(len, <, 400000);
	free(text);
	free(ms);
}

/* The same tuning from other sources: PEBS samples name theirs; page
 * faults say first touches, and the view warns (in bold) that its patterns
 * are the order of first touches; unsampled, bytes. */
static void check_sources(const hmpt_tune_t *t)
{
	static const struct {
		const char *kind, *source, *bars, *group, *bold;
		bool density;
	} src[] = {
	    {"accesses", "PEBS load samples",
	     "Bars: each group's share of the accesses (PEBS load samples);",
	     "\n(access: each group's share of the accesses (PEBS load samples))\n", NULL, true},
	    {"first touches", "page faults",
	     "Bars: each group's share of the first touches (page faults);",
	     "\n(touches: each group's share of the first touches (page faults))\n",
	     "<b>Without sampled accesses, patterns and colours here come from the order of "
	     "first touches</b>",
	     false},
	    {NULL, "", "Bars: each group's share of the bytes (no access sampling);", NULL, NULL,
	     false},
	};
	for (size_t k = 0; k < sizeof(src) / sizeof(src[0]); k++) {
		hmpt_tune_t u = *t;
		char *html = NULL, *text = NULL;
		size_t hl = 0, tl = 0;
		u.access_kind = src[k].kind;
		u.access_density = src[k].density;
		u.access_time = false;
		snprintf(u.access_source, sizeof(u.access_source), "%s", src[k].source);
		FILE *f = open_memstream(&html, &hl);
		hmpt_view_write(f, &u);
		fclose(f);
		f = open_memstream(&text, &tl);
		hmpt_tune_print_summary(&u, f);
		fclose(f);
		CHECK_OP(strstr(html, src[k].bars), !=, NULL);
		CHECK((strstr(html, "first touches</b>") != NULL) == (src[k].bold != NULL));
		if (src[k].bold)
			CHECK_OP(strstr(html, src[k].bold), !=, NULL);
		if (src[k].group)
			CHECK_OP(strstr(text, src[k].group), !=, NULL);
		else
			CHECK(!strstr(text, "share of the"));
		free(html);
		free(text);
	}
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

int main(void)
{
	hmpt_tune_t t = {0};
	hmpt_tconfig_t configs[NCONF] = {0};

	if (!mkdtemp(dir))
		return 77;
	build(&t, configs);
	CHECK_OP(hmpt_tune_write_results(&t), ==, 0);
	check_json();
	check_csv();
	check_html();
	check_svg();
	check_summary(&t);
	check_many_sites(&t);
	check_sources(&t);

	for (int i = 0; i < NCONF; i++) {
		free(configs[i].fast);
		free(configs[i].runs);
	}
	json_decref((json_t *)sites[0].json);
	json_decref((json_t *)sites[1].json);
	json_decref(opts.fast_pool);
	json_decref(opts.slow_pool);
	if (getenv("TEST_RESULTS_KEEP"))
		fprintf(stderr, "test_results: kept %s\n", dir);
	else
		nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return failures != 0;
}
