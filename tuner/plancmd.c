/* plancmd.c — `hmpt-tune plan check` and `hmpt-tune plan make`.
 *
 * Both go through the shim's own plan loader, topology and pool
 * resolution (common/plan.c, topo.c, pool.c), so that what `plan check`
 * accepts and says about this machine is exactly what libhmpt.so will do. */
#include "plancmd.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fmt.h"
#include "options.h"
#include "plan.h"
#include "planout.h"
#include "pool.h"
#include "poolspec.h"
#include "profiles.h"
#include "rebase.h"
#include "symbolize.h"
#include "topo.h"

const char hmpt_plan_usage[] =
    "Usage: hmpt-tune plan check [--no-machine] [-q] FILE...\n"
    "       hmpt-tune plan make [options] PROFILE|DIR\n"
    "       hmpt-tune plan rebase [options] PLAN PROFILE|DIR\n"
    "       hmpt-tune plan rebase [options] PLAN -- COMMAND [ARGS...]\n"
    "\n"
    "check  Validate plan files (docs/plan-format.md) and print them readably.\n"
    "       Unless --no-machine is given, also check them against this machine:\n"
    "       every node exists and has memory, HBM is found where a pool asks for\n"
    "       it, memkind is there for memkind pools; and show each pool's nodes and\n"
    "       budget as libhmpt.so would resolve them here (HMPT_HBM_NODES and\n"
    "       HMPT_DDR_NODES are honoured).  Conditions that only shrink a pool (no\n"
    "       huge pages reserved, THP disabled) are warnings.\n"
    "         --no-machine   check the format only\n"
    "         -q, --quiet    print errors and warnings only\n"
    "       Exit status: 0 when every file is valid (warnings allowed), 1 otherwise.\n"
    "\n"
    "make   Write a plan from a profile (hmpt-tune profile's DIR or a profile.json):\n"
    "         -o, --output FILE       where to write it (default: standard output)\n"
    "         -p, --pool NAME=JSON    define a pool, e.g. -p 'fast={\"nodes\":\"hbm\"}'\n"
    "                                 or -p 'huge={\"pages\":\"thp\"}' (repeatable)\n"
    "         -d, --default NAME      the default pool (default: system)\n"
    "         -s, --place SITES=POOL  put SITES in POOL: site ids (or unique id\n"
    "                                 prefixes), comma-separated; 'top:N' for the N\n"
    "                                 largest sites (of equal ones, those allocated\n"
    "                                 first); 'all' for every site\n"
    "                                 (repeatable: one group each)\n"
    "         -m, --match prefix:N    match only the first N frames of each stack\n"
    "                                 (default: the whole stack)\n"
    "       Sites named twice go to the group named first.  The plan is checked\n"
    "       with the same loader before it is written.\n"
    "\n"
    "rebase Move PLAN onto a rebuilt program: match each of its sites to a site of\n"
    "       a profile of the new build (a PROFILE or DIR, or one made here by\n"
    "       running COMMAND under the shim, as hmpt-tune profile does) by their\n"
    "       symbolic frames: function, file, line and which call of the statement.\n"
    "       Each site is mapped (the same lines and calls), mapped approximately\n"
    "       (lines moved or calls reordered: the same variable and number of\n"
    "       calls first, then the nearest line, then the nearest call; or the\n"
    "       function alone where one side has no line), or not found; one new\n"
    "       site goes to one plan site at most, best first.  The new plan keeps\n"
    "       the pools, groups and settings, takes the new sites' frames, and\n"
    "       drops a group left without sites.  A report per site goes to\n"
    "       standard error.\n"
    "         -o, --output FILE       where to write it (default: standard output)\n"
    "             --profile-dir DIR   with COMMAND: keep its profile in DIR\n"
    "                                 (default: a temporary directory, removed)\n"
    "             --lib PATH          with COMMAND: the libhmpt.so to preload\n"
    "       Exit status: 0 when every site was mapped, 3 when some were not found\n"
    "       (the plan is written with the others), 1 on errors (a plan of format\n"
    "       version 1 cannot be rebased: profile the program again).\n"
    "\n"
    "Examples:\n"
    "  hmpt-tune plan check plan.json\n"
    "  hmpt-tune plan make -p 'hbm={\"nodes\":\"hbm\",\"fallback\":\"ddr\"}' \\\n"
    "      -p 'ddr={\"nodes\":\"ddr\"}' -d ddr -s top:2=hbm -o plan.json prof\n"
    "  hmpt-tune plan rebase -o plan2.json plan.json -- ./app args\n";

/* ---------------------------------------------------------------- check */

static void print_pool_spec(const hmpt_plan_t *pl, const hmpt_plan_pool_t *p)
{
	static const char *const nodes[] = {"",          "nodes all", "nodes hbm",
	                                    "nodes ddr", "nodes ",    "tier "};
	char buf[512];
	hmpt_fmt_t f;

	hmpt_fmt_init(&f, buf, sizeof(buf), -1);
	if (p->backend->describe) {
		p->backend->describe(&f, p);
	} else {
		hmpt_fmt_str(&f, p->nodes == HMPT_NODES_NONE ? "no node policy" : nodes[p->nodes]);
		if (p->nodes == HMPT_NODES_LIST)
			hmpt_nodemask_format(&f, &p->list);
		if (p->nodes == HMPT_NODES_TIER)
			hmpt_plan_tier_format(&f, p->tier);
		if (p->local)
			hmpt_fmt_str(&f, " (local)");
		if (p->nodes != HMPT_NODES_NONE)
			hmpt_fmt_printf(&f, ", %s", hmpt_plan_policy_name(p->policy));
		hmpt_fmt_printf(&f, ", pages %s", hmpt_plan_pages_name(p->pages));
	}
	if (p->capacity)
		hmpt_fmt_printf(&f, ", capacity %s", HMPT_SIZE(p->capacity));
	else if (p->capacity_pct)
		hmpt_fmt_printf(&f, ", capacity %u%%", (unsigned)p->capacity_pct);
	hmpt_fmt_printf(&f, ", falls back to %s", hmpt_plan_pool_name(pl, p->fallback));
	printf("  %-12s %s\n", p->name, hmpt_fmt_cstr(&f));
}

static void print_plan(const hmpt_plan_t *pl)
{
	printf("%s: plan format %u, %d pool%s, %u group%s, %u site%s; default pool %s\n", pl->path,
	       (unsigned)pl->version, pl->npools, pl->npools == 1 ? "" : "s", pl->ngroups,
	       pl->ngroups == 1 ? "" : "s", pl->nsites, pl->nsites == 1 ? "" : "s",
	       hmpt_plan_pool_name(pl, pl->default_pool));
	if (pl->provenance) {
		printf("provenance:\n");
		for (const hmpt_json_t *m = pl->provenance->child; m; m = m->next) {
			if (m->type == HMPT_JSON_STRING || m->type == HMPT_JSON_NUMBER)
				printf("  %-12s %s\n", m->key, m->str);
			else
				printf("  %-12s (%s)\n", m->key, hmpt_json_type_name(m->type));
		}
	}
	printf("pools:\n");
	for (int i = 0; i < pl->npools; i++)
		print_pool_spec(pl, &pl->pools[i]);
	printf("groups:\n");
	for (uint32_t g = 0; g < pl->ngroups; g++) {
		const hmpt_plan_group_t *gr = &pl->groups[g];
		if (gr->share < HMPT_PLAN_SHARE_ONE)
			printf("  %s -> %.4g %% of each block in %s (whole 2 MiB granules, the "
			       "first ones), the rest in %s: %u site%s\n",
			       gr->name, gr->share / 1e4, hmpt_plan_pool_name(pl, gr->pool),
			       hmpt_plan_pool_name(pl, gr->rest), gr->nsites,
			       gr->nsites == 1 ? "" : "s");
		else
			printf("  %s -> %s: %u site%s\n", gr->name,
			       hmpt_plan_pool_name(pl, gr->pool), gr->nsites,
			       gr->nsites == 1 ? "" : "s");
		for (uint32_t k = 0; k < gr->nsites; k++) {
			const hmpt_plan_site_t *s = &pl->sites[gr->first_site + k];
			const char *sym = s->symbol;
			printf("    %016llx  %-6s %2u frame%s  %s\n", (unsigned long long)s->id,
			       s->prefix ? "prefix" : "stack", s->nframes,
			       s->nframes == 1 ? " " : "s", sym ? sym : s->modules[0]);
		}
	}
}

static void print_warning(const char *msg, void *ctx)
{
	(*(int *)ctx)++;
	fprintf(stderr, "hmpt-tune: warning: %s\n", msg);
}

int hmpt_plan_check_file(const char *file, bool machine, bool quiet)
{
	static hmpt_plan_t plan;
	static hmpt_topo_t topo;
	char err[1024], line[1024];
	int warnings = 0, rc;
	hmpt_fmt_t f;
	hmpt_pools_t *pools = NULL;

	rc = hmpt_plan_load(file, &plan, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "hmpt-tune: %s\n", err);
		return 1;
	}
	if (!quiet)
		print_plan(&plan);
	if (machine) {
		pools = hmpt_pools_create();
		if (!pools) {
			fprintf(stderr, "hmpt-tune: no memory for the pools\n");
			goto bad;
		}
		rc = hmpt_poolspec_topo(&topo, &plan, err, sizeof(err));
		if (rc == 0)
			rc = hmpt_pools_resolve(pools, &plan, &topo, print_warning, &warnings, err,
			                        sizeof(err));
		if (rc) {
			fprintf(stderr, "hmpt-tune: %s\n", err);
			fprintf(stderr, "hmpt-tune: %s does not fit this machine\n", file);
			goto bad;
		}
		if (!quiet) {
			hmpt_fmt_init(&f, line, sizeof(line), -1);
			hmpt_topo_describe(&f, &topo);
			printf("on this machine: %s\n", hmpt_fmt_cstr(&f));
			hmpt_fmt_init(&f, line, sizeof(line), -1);
			hmpt_topo_describe_tiers(&f, &topo);
			printf("  %s\n", hmpt_fmt_cstr(&f));
			if (topo.thp[0])
				printf("  transparent huge pages: %s; 2 MiB huge pages: %llu "
				       "reserved, %llu free\n",
				       topo.thp, (unsigned long long)topo.huge_total,
				       (unsigned long long)topo.huge_free_total);
			for (int i = 0; i < plan.npools; i++) {
				hmpt_fmt_init(&f, line, sizeof(line), -1);
				hmpt_pools_describe(pools, &f, i);
				printf("  %s\n", hmpt_fmt_cstr(&f));
			}
		}
	}
	if (!quiet || warnings)
		printf("%s: valid%s%s", file, machine ? ", fits this machine" : " (format only)",
		       warnings ? "" : "\n");
	if (warnings)
		printf(" (%d warning%s)\n", warnings, warnings == 1 ? "" : "s");
	hmpt_pools_destroy(pools);
	hmpt_plan_free(&plan);
	return 0;
bad:
	hmpt_pools_destroy(pools);
	hmpt_plan_free(&plan);
	return 1;
}

static int cmd_check(int argc, char **argv)
{
	static const struct option longs[] = {{"no-machine", no_argument, 0, 'N'},
	                                      {"quiet", no_argument, 0, 'q'},
	                                      {"help", no_argument, 0, 'h'},
	                                      {0, 0, 0, 0}};
	bool machine = true, quiet = false;
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "qh", longs, NULL)) != -1) {
		switch (c) {
		case 'N': machine = false; break;
		case 'q': quiet = true; break;
		case 'h': fputs(hmpt_plan_usage, stdout); return 0;
		default: hmpt_cli_usage_error("plan", "unknown option", NULL);
		}
	}
	if (optind >= argc)
		hmpt_cli_usage_error("plan", "check: expected a plan FILE", NULL);
	for (int i = optind; i < argc; i++)
		bad |= hmpt_plan_check_file(argv[i], machine, quiet);
	return bad;
}

/* ----------------------------------------------------------------- make */

typedef struct {
	const char *sites; /* "id,id", "top:N", "all" */
	const char *pool;
} placement_t;

/* the sites that `spec` names, marked in `chosen` (index into sites) */
static int select_sites(const json_t *sites, const char *spec, char *chosen)
{
	size_t n = json_array_size(sites), i;
	uint64_t top;

	if (strcmp(spec, "all") == 0) {
		memset(chosen, 1, n);
		return 0;
	}
	if (strncmp(spec, "top:", 4) == 0) {
		if (hmpt_options_parse_uint(spec + 4, &top) != 0 || top == 0) {
			fprintf(stderr,
			        "hmpt-tune plan make: --place %s: expected top:N with N >= 1\n",
			        spec);
			return -1;
		}
		/* sites are sorted by bytes, then by first allocation */
		for (i = 0; i < n && i < top; i++)
			chosen[i] = 1;
		return 0;
	}
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *save, *id = strtok_r(buf, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
		size_t len = strlen(id), hit = n;
		int matches = 0;
		json_t *s;
		json_array_foreach(sites, i, s)
		{
			if (len >= 4 && strncmp(hmpt_prof_str(s, "id"), id, len) == 0) {
				hit = i;
				matches++;
			}
		}
		if (matches != 1) {
			fprintf(
			    stderr,
			    "hmpt-tune plan make: --place: '%s' %s (give at least 4 hex digits of "
			    "an id from 'hmpt-tune show')\n",
			    id, matches ? "names several sites" : "names no site of the profile");
			return -1;
		}
		chosen[hit] = 1;
	}
	return 0;
}

static json_t *provenance(const json_t *prof, const char *profile_arg)
{
	char when[32];

	hmpt_plan_created_now(when);
	return json_pack("{s:s,s:s,s:s,s:s,s:s}", "program",
	                 hmpt_prof_str(json_object_get(prof, "process"), "exe") ?: "", "created",
	                 when, "tool", "hmpt-tune " HMPT_VERSION, "profile", profile_arg,
	                 "measurement", "none: written by hmpt-tune plan make");
}

static int cmd_make(int argc, char **argv)
{
	static const struct option longs[] = {{"output", required_argument, 0, 'o'},
	                                      {"pool", required_argument, 0, 'p'},
	                                      {"default", required_argument, 0, 'd'},
	                                      {"place", required_argument, 0, 's'},
	                                      {"match", required_argument, 0, 'm'},
	                                      {"help", no_argument, 0, 'h'},
	                                      {0, 0, 0, 0}};
	placement_t place[64];
	int nplace = 0, c, rc = 1;
	const char *out = NULL, *def = NULL;
	unsigned prefix = 0;
	json_t *pools = json_object(), *plan = NULL, *prof = NULL;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "o:p:d:s:m:h", longs, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'p': {
			char *eq = strchr(optarg, '=');
			json_error_t je;
			json_t *spec;
			if (!eq || eq == optarg)
				hmpt_cli_usage_error("plan", "--pool: expected NAME=JSON", optarg);
			*eq = '\0';
			spec = json_loads(eq + 1, 0, &je);
			if (!json_is_object(spec))
				hmpt_cli_usage_error(
				    "plan",
				    "--pool: expected NAME={...} with a JSON object "
				    "as in a plan's pools",
				    eq + 1);
			json_object_set_new(pools, optarg, spec);
			break;
		}
		case 'd': def = optarg; break;
		case 's': {
			char *eq = strrchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1])
				hmpt_cli_usage_error("plan", "--place: expected SITES=POOL",
				                     optarg);
			if (nplace == (int)(sizeof(place) / sizeof(place[0])))
				hmpt_cli_usage_error("plan", "--place: too many", optarg);
			*eq = '\0';
			place[nplace++] = (placement_t){optarg, eq + 1};
			break;
		}
		case 'm':
			if (strncmp(optarg, "prefix:", 7) != 0 ||
			    hmpt_options_parse_uint(optarg + 7, &v) != 0 || v < 1 || v > 64)
				hmpt_cli_usage_error(
				    "plan", "--match: expected prefix:N with N from 1 to 64",
				    optarg);
			prefix = (unsigned)v;
			break;
		case 'h': fputs(hmpt_plan_usage, stdout); return 0;
		default: hmpt_cli_usage_error("plan", "unknown option", NULL);
		}
	}
	if (optind != argc - 1)
		hmpt_cli_usage_error("plan", "make: expected one PROFILE or DIR", NULL);
	if (json_object_size(pools) == 0)
		hmpt_cli_usage_error("plan", "make: define at least one pool with --pool", NULL);
	prof = hmpt_plan_profile_load(argv[optind]);
	if (!prof)
		goto out;

	const json_t *sites = json_object_get(prof, "sites");
	size_t n = json_array_size(sites);
	char *taken = calloc(n + 1, 1), *chosen = calloc(n + 1, 1);
	json_t *groups = json_array();
	hmpt_sym_t *sym = hmpt_sym_new();
	for (int k = 0; k < nplace && taken && chosen; k++) {
		json_t *list = json_array(), *s;
		size_t i;
		memset(chosen, 0, n + 1);
		if (select_sites(sites, place[k].sites, chosen) != 0) {
			json_decref(list);
			goto free_make;
		}
		json_array_foreach(sites, i, s) if (chosen[i] && !taken[i])
		{
			taken[i] = 1;
			json_array_append_new(list, hmpt_plan_site_entry(prof, s, prefix, sym));
		}
		if (json_array_size(list) == 0) {
			json_decref(list);
			continue;
		}
		char name[32];
		snprintf(name, sizeof(name), "group%d", k + 1);
		json_array_append_new(groups, json_pack("{s:s,s:s,s:o}", "name", name, "pool",
		                                        place[k].pool, "sites", list));
	}
	plan =
	    json_pack("{s:s,s:i}", "format", HMPT_PLAN_FORMAT, "format_version", HMPT_PLAN_VERSION);
	uint64_t depth = hmpt_prof_u64(json_object_get(prof, "settings"), "stack_depth");
	if (depth && !prefix)
		json_object_set_new(plan, "stack_depth", json_integer((json_int_t)depth));
	json_object_set(plan, "pools", pools);
	if (def)
		json_object_set_new(plan, "default_pool", json_string(def));
	json_object_set(plan, "groups", groups);
	hmpt_plan_add_modules(plan, prof);
	json_object_set_new(plan, "provenance", provenance(prof, argv[optind]));

	if (hmpt_plan_emit(plan, out) == 0) {
		rc = 0;
		if (out)
			fprintf(stderr, "hmpt-tune: wrote %s: %zu group%s, %d pool%s\n", out,
			        json_array_size(groups), json_array_size(groups) == 1 ? "" : "s",
			        (int)json_object_size(pools),
			        json_object_size(pools) == 1 ? "" : "s");
	}
free_make:
	hmpt_sym_free(sym);
	json_decref(groups);
	free(taken);
	free(chosen);
out:
	json_decref(plan);
	json_decref(prof);
	json_decref(pools);
	return rc;
}

int hmpt_cmd_plan(int argc, char **argv)
{
	if (argc < 2)
		hmpt_cli_usage_error("plan", "expected check, make or rebase", NULL);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		fputs(hmpt_plan_usage, stdout);
		return 0;
	}
	optind = 1;
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "make"))
		return cmd_make(argc - 1, argv + 1);
	if (!strcmp(argv[1], "rebase"))
		return hmpt_rebase_cmd(argc - 1, argv + 1, hmpt_plan_usage);
	hmpt_cli_usage_error("plan", "expected check, make or rebase", argv[1]);
}
