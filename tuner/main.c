/* hmpt-tune — tune where a program's allocations live, profile them, and
 * check and make plans.  Commands are a table; each has its own --help. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "options.h"
#include "pmu.h"
#include "plancmd.h"
#include "profiles.h"
#include "profrun.h"
#include "report.h"
#include "runner.h"
#include "slurm.h"
#include "symbolize.h"
#include "tune.h"

/* ------------------------------------------------------------- profile */

static const char profile_usage[] =
    "Usage: hmpt-tune profile [options] -- COMMAND [ARGS...]\n"
    "\n"
    "Run COMMAND with libhmpt.so preloaded, then list its allocation sites by size.\n"
    "Every process of COMMAND (fork children, programs it runs) that tracked an\n"
    "allocation writes DIR/profile.<pid>.json; hmpt-tune merges them into\n"
    "DIR/profile.json, writes DIR/sites.tsv and prints the table on standard error,\n"
    "so that COMMAND's own output stays as it is.\n"
    "\n"
    "Options:\n"
    "  -o, --output DIR     where the profiles go (default: hmpt-profile)\n"
    "  -m, --min-size SIZE  track allocations of at least SIZE bytes; K, M, G\n"
    "                       suffixes (default: 1M, or $HMPT_MIN_SIZE)\n"
    "  -d, --depth N        call-stack frames kept per site, 1-64 (default: 16)\n"
    "  -s, --sample MODE    sample memory accesses: auto (default: PEBS or IBS where\n"
    "                       the machine has them, else page faults, which show first\n"
    "                       touch only), pebs, ibs, faults, or off; default\n"
    "                       $HMPT_SAMPLE when set\n"
    "      --lib PATH       the libhmpt.so to preload (default: next to hmpt-tune,\n"
    "                       or ../lib/libhmpt.so)\n"
    "  -n, --rows N         show at most N sites (default: 20; 0: all)\n"
    "  -v, --verbose        show each site's whole call stack\n"
    "  -q, --quiet          print no table\n"
    "  -h, --help           this text\n"
    "\n"
    "Exit status: COMMAND's exit status; 128+N if it was killed by signal N;\n"
    "126 if it could not be run, 127 if it was not found; 2 for a usage error.\n"
    "\n"
    "Example:\n"
    "  hmpt-tune profile -o prof -- ./stream_c.exe\n"
    "  hmpt-tune show -v prof\n";

static int cmd_profile(int argc, char **argv)
{
	static const struct option longs[] = {
	    {"output", required_argument, 0, 'o'}, {"min-size", required_argument, 0, 'm'},
	    {"depth", required_argument, 0, 'd'},  {"lib", required_argument, 0, 'L'},
	    {"sample", required_argument, 0, 's'}, {"rows", required_argument, 0, 'n'},
	    {"verbose", no_argument, 0, 'v'},      {"quiet", no_argument, 0, 'q'},
	    {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
	const char *dir = "hmpt-profile", *min_size = NULL, *depth = NULL, *lib_opt = NULL;
	/* sampling is on unless HMPT_SAMPLE already says what to do */
	const char *sample = getenv("HMPT_SAMPLE") ? NULL : "auto";
	int verbose = 0, quiet = 0, rows = 20, c;
	hmpt_sampler_t kind;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "+o:m:d:n:s:vqh", longs, NULL)) != -1) {
		switch (c) {
		case 's':
			if (hmpt_sampler_parse(optarg, &kind))
				hmpt_cli_usage_error(
				    "profile",
				    "--sample: expected auto, pebs, ibs, faults, timer or off",
				    optarg);
			sample = optarg;
			break;
		case 'o': dir = optarg; break;
		case 'm':
			if (hmpt_options_parse_size(optarg, &v) || v < 1)
				hmpt_cli_usage_error(
				    "profile",
				    "--min-size: expected a size such as 4096, 64K or 1M", optarg);
			min_size = optarg;
			break;
		case 'd':
			if (hmpt_options_parse_uint(optarg, &v) || v < 1 || v > 64)
				hmpt_cli_usage_error(
				    "profile", "--depth: expected a whole number from 1 to 64",
				    optarg);
			depth = optarg;
			break;
		case 'n':
			if (hmpt_options_parse_uint(optarg, &v) || v > INT_MAX)
				hmpt_cli_usage_error("profile", "--rows: expected a whole number",
				                     optarg);
			rows = (int)v;
			break;
		case 'L': lib_opt = optarg; break;
		case 'v': verbose = 1; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(profile_usage, stdout); return 0;
		default: hmpt_cli_usage_error("profile", "unknown option", NULL);
		}
	}
	if (optind >= argc)
		hmpt_cli_usage_error("profile", "no command given (put it after --)", NULL);

	char lib[PATH_MAX];
	if (hmpt_lib_resolve(lib_opt, lib, sizeof(lib)) != 0)
		return EXIT_USAGE;
	hmpt_profrun_t run = {.dir = dir,
	                      .lib = lib,
	                      .min_size = min_size,
	                      .depth = depth,
	                      .sample = sample,
	                      .argv = argv + optind};
	hmpt_sym_t *sym = hmpt_sym_new();
	hmpt_run_result_t res;
	int none;
	json_t *merged = hmpt_profrun(&run, sym, &res, &none);
	int status = res.status;
	if (!merged) {
		if (none && !quiet)
			fprintf(
			    stderr,
			    "hmpt: no allocation of at least %s bytes was tracked (a statically "
			    "linked or set-user-ID program cannot be preloaded; --min-size "
			    "lowers the threshold)\n",
			    min_size                  ? min_size
			    : getenv("HMPT_MIN_SIZE") ? getenv("HMPT_MIN_SIZE")
			                              : "1M");
		hmpt_sym_free(sym);
		return status;
	}
	if (!quiet) {
		char more[PATH_MAX + 16];
		snprintf(more, sizeof(more), "%s/sites.tsv", dir);
		hmpt_report_opts_t o = {
		    .verbose = verbose, .max_rows = verbose ? 0 : rows, .more = more};
		hmpt_report_table(stderr, merged, sym, &o);
		fprintf(stderr, "hmpt: profile in %s/profile.json\n", dir);
	}
	hmpt_sym_free(sym);
	json_decref(merged);
	return status;
}

/* ---------------------------------------------------------------- show */

static const char show_usage[] =
    "Usage: hmpt-tune show [--format table|tsv|json] [-v] [-n N] PROFILE.json|DIR\n"
    "\n"
    "Print a saved profile: the table of sites (default), sites.tsv's format, or\n"
    "the JSON. DIR means DIR/profile.json (as written by 'hmpt-tune profile').\n"
    "\n"
    "Options:\n"
    "  -f, --format FMT   table, tsv or json (default: table)\n"
    "  -n, --rows N       show at most N sites in the table (default: all)\n"
    "  -v, --verbose      show each site's whole call stack\n"
    "  -h, --help         this text\n";

static int cmd_show(int argc, char **argv)
{
	static const struct option longs[] = {{"format", required_argument, 0, 'f'},
	                                      {"rows", required_argument, 0, 'n'},
	                                      {"verbose", no_argument, 0, 'v'},
	                                      {"help", no_argument, 0, 'h'},
	                                      {0, 0, 0, 0}};
	const char *format = "table";
	int verbose = 0, rows = 0, c;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "f:n:vh", longs, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "table") && strcmp(optarg, "tsv") &&
			    strcmp(optarg, "json"))
				hmpt_cli_usage_error(
				    "show", "--format: expected table, tsv or json", optarg);
			format = optarg;
			break;
		case 'n':
			if (hmpt_options_parse_uint(optarg, &v) || v > INT_MAX)
				hmpt_cli_usage_error("show", "--rows: expected a whole number",
				                     optarg);
			rows = (int)v;
			break;
		case 'v': verbose = 1; break;
		case 'h': fputs(show_usage, stdout); return 0;
		default: hmpt_cli_usage_error("show", "unknown option", NULL);
		}
	}
	if (optind != argc - 1)
		hmpt_cli_usage_error("show", "expected one PROFILE.json or DIR", NULL);

	char path[PATH_MAX], err[1024];
	struct stat st;
	snprintf(path, sizeof(path), "%s", argv[optind]);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(path, sizeof(path), "%s/profile.json", argv[optind]);
	json_t *p = hmpt_prof_load(path, err, sizeof(err));
	if (!p) {
		fprintf(stderr, "hmpt-tune: %s\n", err);
		return 1;
	}
	hmpt_prof_sort_sites(p);
	hmpt_sym_t *sym = hmpt_sym_new();
	int rc = 0;
	if (!strcmp(format, "json")) {
		rc = json_dumpf(p, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
	} else if (!strcmp(format, "tsv")) {
		rc = hmpt_report_tsv(stdout, p, sym);
	} else {
		hmpt_report_opts_t o = {.verbose = verbose, .max_rows = rows};
		rc = hmpt_report_table(stdout, p, sym, &o);
	}
	hmpt_sym_free(sym);
	json_decref(p);
	return rc ? 1 : 0;
}

/* ----------------------------------------------------------------- env */

static const char env_usage[] =
    "Usage: hmpt-tune env [--markdown]\n"
    "\n"
    "List every HMPT_* environment variable the shim reads, with its\n"
    "default and meaning; then those set in this environment, each\n"
    "marked: read by the shim, a tool's (the tests, the guest, Slurm),\n"
    "or not hmpt's. The shim ignores the last quietly, and warns only\n"
    "about a name within two edits of one it reads (HMPT_SAMPEL).\n";

static void wrap(const char *text, int indent, int width)
{
	int col = indent;
	const char *p = text;

	printf("%*s", indent, "");
	while (*p) {
		int w = (int)strcspn(p, " ");
		if (col > indent && col + 1 + w > width) {
			printf("\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		printf("%.*s", w, p);
		col += w;
		p += w;
		while (*p == ' ')
			p++;
	}
	putchar('\n');
}

/* The HMPT_* variables of this environment, and what the shim makes of
 * each: an unknown one is said here, where it is asked for, rather than
 * on every process's stderr. */
static void list_set_vars(void)
{
	bool any = false;

	for (char **e = environ; *e; e++) {
		int n = (int)strcspn(*e, "=");
		const char *what = "not hmpt's: the shim ignores it";
		int near = -1;
		if (strncmp(*e, "HMPT_", 5) != 0)
			continue;
		if (!any)
			printf("\nSet in this environment:\n");
		any = true;
		bool known = false;
		for (int i = 0; i < HMPT_OPT_COUNT; i++)
			known |= (int)strlen(hmpt_options_g[i].name) == n &&
			         !strncmp(*e, hmpt_options_g[i].name, (size_t)n);
		if (known)
			what = "read by the shim";
		else if (hmpt_options_tool_var(*e))
			what = "hmpt's build and test tools'; not the shim's";
		else if ((near = hmpt_options_nearest(*e)) >= 0)
			what = "not known: the shim warns, did you mean";
		printf("  %-24.*s %s%s%s\n", n, *e, what, near >= 0 ? " " : "",
		       near >= 0 ? hmpt_options_g[near].name : "");
	}
	if (!any)
		printf("\nNo HMPT_* variable is set in this environment.\n");
}

static int cmd_env(int argc, char **argv)
{
	int markdown = argc > 1 && !strcmp(argv[1], "--markdown");

	if (argc > 1 && !markdown) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			fputs(env_usage, stdout);
			return 0;
		}
		hmpt_cli_usage_error("env", "unknown option", argv[1]);
	}
	if (markdown)
		printf("| variable | default | meaning |\n|---|---|---|\n");
	for (int i = 0; i < HMPT_OPT_COUNT; i++) {
		const hmpt_option_t *o = &hmpt_options_g[i];
		if (markdown) {
			printf("| `%s` | `%s` | %s |\n", o->name, o->def_text, o->meaning);
		} else {
			printf("%s (default %s)\n", o->name, o->def_text);
			wrap(o->meaning, 4, 78);
		}
	}
	if (!markdown)
		list_set_vars();
	return 0;
}

/* ---------------------------------------------------------------- main */

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

static const struct command commands[] = {
    {"tune", hmpt_cmd_tune, hmpt_tune_usage, "find the best placement (the default command)"},
    {"profile", cmd_profile, profile_usage, "run a command under the shim and list its sites"},
    {"compare", hmpt_cmd_compare, hmpt_compare_usage, "measure one plan's speedup over another"},
    {"show", cmd_show, show_usage, "print a saved profile (table, tsv or json)"},
    {"plan", hmpt_cmd_plan, hmpt_plan_usage, "check a placement plan, or make one from a profile"},
    {"env", cmd_env, env_usage, "list the HMPT_* environment variables"},
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: hmpt-tune [tune] [options] -- PROGRAM [ARGS...]\n"
	             "       hmpt-tune COMMAND [ARGS...]\n"
	             "\n"
	             "hmpt, the heterogeneous memory pool tuner: find which of a program's\n"
	             "allocations deserve the fast memory.\n"
	             "\n"
	             "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "  help CMD  the options of CMD\n"
	             "\n"
	             "Example:\n"
	             "  hmpt-tune -o app.tune --metric 'Time in seconds' -- ./app args\n"
	             "  hmpt-tune profile -- ./app args\n"
	             "\n"
	             "See hmpt-tune(1) and hmpt(7).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("hmpt-tune %s\n", HMPT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		for (size_t i = 0; argc > 2 && i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name)) {
				fputs(commands[i].usage, stdout);
				return 0;
			}
		if (argc > 2)
			hmpt_cli_usage_error(NULL, "unknown command", argv[2]);
		usage(stdout);
		return 0;
	}
	/* internal: what a batch job of --slurm runs on its node */
	if (!strcmp(argv[1], "run-on-node")) {
		optind = 1;
		return hmpt_cmd_run_on_node(argc - 1, argv + 1);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			optind = 1;
			return commands[i].run(argc - 1, argv + 1);
		}
	/* hmpt-tune [options] -- PROGRAM: the main job needs no command name */
	if (argv[1][0] == '-') {
		optind = 0;
		return hmpt_cmd_tune(argc, argv);
	}
	hmpt_cli_usage_error(NULL, "unknown command", argv[1]);
	return EXIT_USAGE;
}
