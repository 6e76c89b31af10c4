/* plan_load.c — the cost of reading a plan and of matching against it, at
 * 10^3, 10^4 and 10^5 sites, format 2 (frames inline, as hmpt-tune wrote
 * plans before format 4) against format 4 (a frames table) of the same
 * sites.
 *
 *   plan_load [DEPTH [ROUNDS]]
 *
 * The plans are made up (modelled on a generated program: each site's
 * allocating function its own, called through a chain of DEPTH - 4 frames
 * that sites share by halves, then main, libc's two start-up frames and
 * _start; a symbol and a symbolic frame for each, as plan make writes
 * them), written to a temporary directory, and loaded with
 * hmpt_plan_load, interleaved in a random order, ROUNDS times (default 7):
 * the median of each.  Matching: each site's identity frames looked up
 * once (hits), then as many stacks no site names (misses); the mean per
 * lookup. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "plan.h"
#include "siteid.h"

#define MAXD 16

/* this process's CPU time, user and system: less moved than the clock
 * by other work on a busy machine */
static double cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* frame k of site i: module and offset */
static void frame_of(uint32_t i, uint32_t k, uint32_t depth, const char **mod, uint64_t *off)
{
	if (k == depth - 3 || k == depth - 2) {
		*mod = "libc.so.6";
		*off = k == depth - 3 ? 0x2724a : 0x27305;
	} else if (k == depth - 1) {
		*mod = "gen";
		*off = 0x1141; /* _start */
	} else if (k == depth - 4) {
		*mod = "gen";
		*off = 0x1200; /* main */
	} else {
		*mod = "gen";
		/* frame 0 its own; deeper ones shared by 2, 4, 8... sites */
		*off = 0x10000 + (uint64_t)k * 0x1000000 + (uint64_t)(i >> k) * 16;
	}
}

static uint64_t site_id(uint32_t i, uint32_t depth)
{
	uint64_t h[MAXD], o[MAXD];
	uint32_t idx[MAXD], n = 0;
	hmpt_siteid_class_t cls[MAXD];

	for (uint32_t k = 0; k < depth; k++) {
		const char *m;
		frame_of(i, k, depth, &m, &o[k]);
		h[k] = hmpt_hash_module(m, strlen(m));
		cls[k] = hmpt_siteid_class(m);
	}
	n = hmpt_siteid_frames(cls, depth, HMPT_SITEID_OWNED, idx);
	return hmpt_siteid_hash(h, o, idx, n);
}

static void put_symbolic(FILE *f, uint32_t i, uint32_t k, uint32_t depth, const char *ind)
{
	const char *m;
	uint64_t off;

	frame_of(i, k, depth, &m, &off);
	if (strcmp(m, "gen") != 0)
		fprintf(f, "%snull", ind);
	else
		fprintf(f,
		        "%s{\n%s  \"function\": \"f%" PRIx64 "\",\n%s  \"file\": \"gen.c\",\n%s  "
		        "\"line\": %u,\n%s  \"column\": 3\n%s}",
		        ind, ind, off, ind, ind, (unsigned)(off % 100000), ind, ind);
}

static void symbol_text(char *buf, size_t cap, uint32_t i, uint32_t k, uint32_t depth)
{
	const char *m;
	uint64_t off;

	frame_of(i, k, depth, &m, &off);
	if (strcmp(m, "gen") != 0)
		snprintf(buf, cap, "__libc_start_%s", off == 0x2724a ? "call_main" : "main_impl");
	else
		snprintf(buf, cap, "f%" PRIx64 " (gen.c:%u)", off, (unsigned)(off % 100000));
}

static const char head[] = "{\n  \"format\": \"hmpt-plan\",\n  \"format_version\": %d,\n"
                           "  \"stack_depth\": 16,\n  \"pools\": {\n    \"fast\": {\n"
                           "      \"pages\": \"thp\"\n    },\n    \"slow\": {}\n  },\n"
                           "  \"default_pool\": \"slow\",\n  \"groups\": [\n    {\n"
                           "      \"name\": \"group1\",\n      \"pool\": \"fast\",\n"
                           "      \"sites\": [";

/* format 2 as json_dumps(JSON_INDENT(2)) wrote it */
static void write_v2(FILE *f, uint32_t n, uint32_t depth)
{
	char sym[64];

	fprintf(f, head, 2);
	for (uint32_t i = 0; i < n; i++) {
		fprintf(f,
		        "%s\n        {\n          \"id\": \"%016" PRIx64
		        "\",\n          \"frames\": [",
		        i ? "," : "", site_id(i, depth));
		for (uint32_t k = 0; k < depth; k++) {
			const char *m;
			uint64_t off;
			frame_of(i, k, depth, &m, &off);
			fprintf(f, "%s\n            \"%s!0x%" PRIx64 "\"", k ? "," : "", m, off);
		}
		fputs("\n          ],\n          \"symbols\": [", f);
		for (uint32_t k = 0; k < depth; k++) {
			symbol_text(sym, sizeof(sym), i, k, depth);
			fprintf(f, "%s\n            \"%s\"", k ? "," : "", sym);
		}
		fputs("\n          ],\n          \"symbolic\": [", f);
		for (uint32_t k = 0; k < depth; k++) {
			fputs(k ? ",\n" : "\n", f);
			put_symbolic(f, i, k, depth, "            ");
		}
		fputs("\n          ],\n          \"bytes\": 1048576\n        }", f);
	}
	fputs("\n      ]\n    }\n  ]\n}\n", f);
}

/* format 4 as hmpt_plan_emit writes it: rows in the order sites first
 * name them */
static void write_v4(FILE *f, uint32_t n, uint32_t depth)
{
	uint64_t *keys = calloc((size_t)n * depth, sizeof(uint64_t));
	uint32_t *first = calloc((size_t)n * depth, sizeof(uint32_t)), nrows = 0;
	uint32_t mask = 1;
	while (mask < 4 * n * depth)
		mask <<= 1;
	uint64_t *slot = calloc(mask, sizeof(uint64_t));
	uint32_t *slot_row = calloc(mask, sizeof(uint32_t));
	char sym[64];

	fprintf(f, head, 4);
	for (uint32_t i = 0; i < n; i++) {
		fprintf(f, "%s\n        {\"id\": \"%016" PRIx64 "\", \"stack\": [", i ? "," : "",
		        site_id(i, depth));
		for (uint32_t k = 0; k < depth; k++) {
			const char *m;
			uint64_t off;
			frame_of(i, k, depth, &m, &off);
			uint64_t key = off * 64 + k + 1, s = (key * 0x9e3779b97f4a7c15ull) >> 20;
			while (slot[s & (mask - 1)] && slot[s & (mask - 1)] != key)
				s++;
			if (!slot[s & (mask - 1)]) {
				slot[s & (mask - 1)] = key;
				slot_row[s & (mask - 1)] = nrows;
				keys[nrows] = i;
				first[nrows++] = k;
			}
			fprintf(f, "%s%u", k ? ", " : "", slot_row[s & (mask - 1)]);
		}
		fputs("], \"bytes\": 1048576}", f);
	}
	fputs("\n      ]\n    }\n  ],\n  \"frames\": [", f);
	for (uint32_t r = 0; r < nrows; r++) {
		uint32_t i = (uint32_t)keys[r], k = first[r];
		const char *m;
		uint64_t off;
		frame_of(i, k, depth, &m, &off);
		symbol_text(sym, sizeof(sym), i, k, depth);
		fprintf(f,
		        "%s\n    {\"frame\": \"%s!0x%" PRIx64
		        "\", \"symbol\": \"%s\", \"symbolic\": ",
		        r ? "," : "", m, off, sym);
		if (strcmp(m, "gen") != 0)
			fputs("null}", f);
		else
			fprintf(f,
			        "{\"function\": \"f%" PRIx64
			        "\", \"file\": \"gen.c\", \"line\": %u, \"column\": 3}}",
			        off, (unsigned)(off % 100000));
	}
	fputs("\n  ]\n}\n", f);
	free(keys), free(first), free(slot), free(slot_row);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint32_t depth = argc > 1 ? (uint32_t)atoi(argv[1]) : 8;
	int rounds = argc > 2 ? atoi(argv[2]) : 7;
	static const uint32_t sizes[] = {1000, 10000, 100000};
	char dir[] = "/tmp/hmpt-plan-load.XXXXXX", path[6][128], err[1024], why[6][1024] = {""};
	double t[6][64], cpu[6][64];
	long bytes[6];
	static hmpt_plan_t plan;

	if (depth < 5 || depth > MAXD || rounds < 1 || rounds > 64 || !mkdtemp(dir)) {
		fprintf(stderr, "usage: plan_load [DEPTH 5-16 [ROUNDS 1-64]]\n");
		return 2;
	}
	for (int c = 0; c < 6; c++) {
		snprintf(path[c], sizeof(path[c]), "%s/plan-%u-v%d.json", dir, sizes[c / 2],
		         c % 2 ? 4 : 2);
		FILE *f = fopen(path[c], "w");
		(c % 2 ? write_v4 : write_v2)(f, sizes[c / 2], depth);
		bytes[c] = ftell(f);
		fclose(f);
	}
	srand(1);
	for (int r = 0; r < rounds; r++) {
		int order[6] = {0, 1, 2, 3, 4, 5};
		for (int i = 5; i > 0; i--) {
			int j = rand() % (i + 1), x = order[i];
			order[i] = order[j], order[j] = x;
		}
		for (int i = 0; i < 6; i++) {
			int c = order[i];
			if (bytes[c] > (long)HMPT_PLAN_MAX_BYTES)
				continue; /* refused unread */
			double t0 = now(), c0 = cpu_now();
			int rc = hmpt_plan_load(path[c], &plan, err, sizeof(err));
			t[c][r] = now() - t0;
			cpu[c][r] = cpu_now() - c0;
			if (rc) { /* an hmpt before format 4 */
				snprintf(why[c], sizeof(why[c]), "%s", err);
				continue;
			}
			hmpt_plan_free(&plan);
		}
	}
	printf("plan_load: %u frames a site (%u identity frames), %d rounds, medians\n", depth,
	       depth - 2, rounds);
	printf("%8s  %6s  %10s  %8s  %8s  %13s  %13s\n", "sites", "format", "bytes", "load ms",
	       "cpu ms", "match hit ns", "match miss ns");
	for (int c = 0; c < 6; c++) {
		if (bytes[c] > (long)HMPT_PLAN_MAX_BYTES) {
			printf("%8u  %6d  %10ld  (above the 64 MiB a plan may have: not loaded)\n",
			       sizes[c / 2], c % 2 ? 4 : 2, bytes[c]);
			unlink(path[c]);
			continue;
		}
		if (why[c][0]) {
			printf("%8u  %6d  %10ld  (not read: %s)\n", sizes[c / 2], c % 2 ? 4 : 2,
			       bytes[c], strrchr(why[c], ':') ? strrchr(why[c], ':') + 2 : why[c]);
			unlink(path[c]);
			continue;
		}
		qsort(t[c], (size_t)rounds, sizeof(double), cmp_double);
		qsort(cpu[c], (size_t)rounds, sizeof(double), cmp_double);
		/* matching: every site once, then misses */
		hmpt_plan_load(path[c], &plan, err, sizeof(err));
		uint64_t h[MAXD], o[MAXD];
		uint32_t n = plan.nsites, bad = 0;
		double t0 = now();
		for (uint32_t i = 0; i < n; i++)
			bad +=
			    hmpt_plan_match(&plan, plan.sites[i].id_hashes,
			                    plan.sites[i].id_offsets, plan.sites[i].nid) != (int)i;
		double hit = (now() - t0) / n;
		for (uint32_t k = 0; k < depth - 2; k++)
			h[k] = plan.sites[0].id_hashes[k], o[k] = plan.sites[0].id_offsets[k];
		t0 = now();
		for (uint32_t i = 0; i < n; i++) {
			o[0] = 0x7000000 + i; /* no site's */
			bad += hmpt_plan_match(&plan, h, o, depth - 2) != -1;
		}
		double miss = (now() - t0) / n;
		hmpt_plan_free(&plan);
		printf("%8u  %6d  %10ld  %8.1f  %8.1f  %13.0f  %13.0f%s\n", sizes[c / 2],
		       c % 2 ? 4 : 2, bytes[c], t[c][rounds / 2] * 1e3, cpu[c][rounds / 2] * 1e3,
		       hit * 1e9, miss * 1e9, bad ? "  WRONG MATCHES" : "");
		unlink(path[c]);
	}
	rmdir(dir);
	return 0;
}
