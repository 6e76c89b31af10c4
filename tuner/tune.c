/* tune.c — hmpt-tune [options] -- COMMAND: the reference study's method.
 *
 * 1. profile the program under the shim (sizes, and access shares when it
 *    samples);
 * 2. rank: measure all-slow and each candidate site alone in the fast pool,
 *    to rank the sites by individual impact; group them: the top K-1 sites
 *    one group each, the rest one group (or --group's groups);
 * 3. search the combinations of groups in the fast pool, those the model
 *    asks for (--search exhaustive: every one), n times each, interleaved
 *    so that drift hits every configuration alike; choose (best, 90 % of
 *    best at the smallest fast footprint, best that fits --capacity);
 * 4. split (--split; by default where both pools have the same page size):
 *    plan-90 with a share of the group that crosses 90 %, plan-capacity's
 *    room filled; choose again;
 * 5. confirm: the choices measured again against all-slow in fresh paired
 *    rounds; only what is confirmed faster is chosen;
 * 6. write the plans and report.
 * Every run goes to DIR/journal.jsonl as it ends; rerunning the same command
 * resumes from it.  A configuration whose plan is the same as one measured
 * before (its key is the set of its sites in the fast pool) is not run twice.
 *
 * Here: the options and the top-level flow.  The stages are stages.h's, the
 * runs measure.c's, the statistics method.c's, the journal journal.c's, the
 * configurations and their plans config.c's, the reports results.c's, and
 * `compare` is compare.c's.
 */
#include "tune.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wordexp.h>

#include "cli.h"
#include "confirm.h"
#include "journal.h"
#include "measure.h"
#include "options.h"
#include "plan.h"
#include "pmu.h"
#include "plancmd.h"
#include "planout.h"
#include "poolspec.h"
#include "profrun.h"
#include "results.h"
#include "stages.h"
#include "topo.h"
#include "tuning.h"
#include "view.h"

const char hmpt_tune_usage[] =
    "Usage: hmpt-tune [tune] [options] -- COMMAND [ARGS...]\n"
    "\n"
    "Find which allocations of COMMAND deserve the fast memory pool: profile it,\n"
    "measure each large allocation site alone in the fast pool, group the sites\n"
    "(the K-1 with most impact one group each, the rest one group), measure the\n"
    "combinations of groups in the fast pool that a model of their speedups\n"
    "asks for (or all 2^K) against all in the slow pool, and write the plans.\n"
    "COMMAND's output goes to DIR/runs/; a summary goes to standard output,\n"
    "progress to standard error.\n"
    "\n"
    "Options:\n"
    "  -o, --output DIR      journal and results (default: hmpt-tune.out); rerun\n"
    "                        the same command to resume after an interruption\n"
    "  -p, --pools FAST,SLOW the two pools: hbm, ddr, fastest-tier, slowest-tier\n"
    "                        (the machine's memory tiers: the kernel's, else by\n"
    "                        HMAT, else by distance), thp, 4k, hugetlb, or a pool\n"
    "                        as JSON ('{\"nodes\":\"2\",\"pages\":\"thp\"}'); default\n"
    "                        hbm,ddr on a machine with HBM, else\n"
    "                        fastest-tier,slowest-tier where it has two tiers\n"
    "  -m, --metric REGEX    time by a figure the program prints (the last match\n"
    "                        of the POSIX extended REGEX in its output: its first\n"
    "                        group, or the first number after the match), not by\n"
    "                        wall clock; e.g. 'Time in seconds'\n"
    "      --higher-is-better  the metric is a rate (Mop/s, GB/s), not a time\n"
    "  -r, --reps N          runs of each configuration (default: 3; at least 2);\n"
    "                        all-slow runs about sqrt(configurations) times as\n"
    "                        often, since every comparison uses it\n"
    "  -g, --groups K        groups, 1-10: 2^K configurations (default: 8)\n"
    "      --search HOW      model: measure the configurations where a run can\n"
    "                        still change the best or the 90 % plan, at most\n"
    "                        2K+4, and up to 6K+4 where its model does not fit\n"
    "                        the runs (K >= 6; the default); exhaustive: all 2^K\n"
    "      --budget RUNS     the model search stops before the combination phase\n"
    "                        exceeds RUNS runs (all-slow's included, and the\n"
    "                        ranking's where it is the search's first design);\n"
    "                        it never exceeds exhaustive search's\n"
    "      --split, --no-split  after the search, a 90 % plan with a share: the\n"
    "                        groups by time saved alone per byte, whole, and the\n"
    "                        smallest measured share of the one that crosses 90 %\n"
    "                        of the fastest: each block split, its first share in\n"
    "                        the fast pool (plan format 3; pools of normal or\n"
    "                        transparent huge pages only; default: --split where\n"
    "                        both pools have the same page size, as hbm,ddr)\n"
    "      --confirm ROUNDS  measure the chosen plans again, each in up to ROUNDS\n"
    "                        fresh rounds beside an all-slow run (default: 20;\n"
    "                        at least the 8 an exact interval needs at 95 %);\n"
    "                        a plan not confirmed faster is replaced\n"
    "                        by the next choice or places nothing; 0: no\n"
    "                        confirmation, the search's figures stand\n"
    "      --precision PCT   confirm until the interval's half-width is within\n"
    "                        PCT percent (default: 3)\n"
    "  -G, --group IDS       a group of your own: site ids (or 4+ digit prefixes),\n"
    "                        comma-separated (repeatable); skips the ranking runs;\n"
    "                        the sites you do not name form one more group\n"
    "  -c, --capacity SIZE   also write the best plan whose fast footprint fits\n"
    "                        SIZE (K, M, G suffixes)\n"
    "      --bench DIR       hmpt-bench's output for this machine: report.html puts\n"
    "                        each pool's bandwidth and latency beside the groups\n"
    "      --candidates N    sites ranked by running each alone (default: 16);\n"
    "                        the others join the rest group\n"
    "  -t, --timeout SEC     a run taking longer is killed and recorded as timed\n"
    "                        out (default: 30 s plus 5 times the profile run)\n"
    "      --min-gain PCT    smallest speedup reported as one, in percent\n"
    "                        (default: 1)\n"
    "      --retakes N       a run that a change in other load on its CPUs\n"
    "                        disturbed is measured again, at most N times\n"
    "                        (default: 2; 0: never; at most a quarter of a\n"
    "                        phase's runs)\n"
    "      --confidence PCT  of the intervals, before the correction for the\n"
    "                        number of configurations compared (default: 95)\n"
    "      --min-size SIZE   track allocations of at least SIZE (default: 1M)\n"
    "  -s, --sample MODE     sampling in the profile run: auto, pebs, ibs, faults,\n"
    "                        off (default: auto)\n"
    "      --lib PATH        the libhmpt.so to preload\n"
    "      --restart         discard DIR's journal and start over\n"
    "      --seed N          of the runs' random order (default: drawn per\n"
    "                        tuning and kept in its journal; for tests)\n"
    "      --no-memory-probe do not time a pass over memory around each run\n"
    "                        (then no speedup is judged against memory load)\n"
    "  -q, --quiet           no progress, no summary table\n"
    "  -h, --help            this text\n"
    "\n"
    "MPI jobs and clusters:\n"
    "      --launcher CMD    start COMMAND with CMD ('mpirun -np 4', 'srun'): the\n"
    "                        job is measured as a whole, its ranks' profiles merged\n"
    "      --slurm           each run a Slurm batch job (sbatch --exclusive) on\n"
    "                        nodes of its own; DIR must be on a shared file system\n"
    "      --partition P     the Slurm partition (default: the cluster's)\n"
    "      --nodes N         nodes per run (default: 1)\n"
    "      --time T          each job's time limit, as sbatch --time takes it\n"
    "      --parallel N      runs (jobs) at a time (default: 1)\n"
    "\n"
    "Output in DIR: plan-best.json (the smallest fast footprint not measurably\n"
    "slower than the fastest), plan-90.json (the smallest reaching 90 % of the\n"
    "fastest's speedup), plan-capacity.json (with --capacity: the best by the\n"
    "same rule that fits), plan-slow.json (the reference), results.json, results.csv,\n"
    "detail.svg/.png, summary.svg/.png and report.html.  A speedup is reported\n"
    "only when its interval (corrected for the number of configurations) lies\n"
    "above 1 and it reaches --min-gain; when none does, hmpt-tune says that the\n"
    "fast pool does not help and the plans place nothing in it.\n"
    "\n"
    "Exit status: 0 when tuning finished (whether or not the fast pool helps);\n"
    "1 when it could not (the program fails without any placement, no metric in\n"
    "its output, no sites to place); 2 for a usage error; 130 when interrupted.\n"
    "\n"
    "Example:\n"
    "  hmpt-tune -o mg.tune --metric 'Time in seconds' -- ./mg.C.x\n"
    "  HMPT_PLAN=mg.tune/plan-90.json LD_PRELOAD=libhmpt.so ./mg.C.x\n";

/* ------------------------------------------------------------- options */

/* An option that tune and compare both take (HMPT_TUNE_SHARED_OPTIONS)
 * into opt, x or o: true when c is one; a bad argument is a usage error. */
bool hmpt_tune_take_shared(int c, char *arg, hmpt_tune_opts_t *opt, hmpt_measure_t *x,
                           hmpt_tune_cli_t *o)
{
	const char *cmd = o->cmd;
	char *end;

	switch (c) {
	case 'm': {
		char why[256];
		if (hmpt_measure_metric(x, arg, why, sizeof(why)) != 0) {
			fprintf(stderr, "hmpt-tune: --metric '%s': %s\n", arg, why);
			hmpt_cli_usage_error(
			    cmd, "--metric: expected a POSIX extended regular expression", arg);
		}
		opt->metric = arg;
		break;
	}
	case 'H': opt->maximize = true; break;
	case 'r': opt->reps = hmpt_cli_whole_option(cmd, "--reps", arg, 2, 100); break;
	case 't':
		opt->timeout = strtod(arg, &end);
		if (end == arg || *end || !(opt->timeout > 0))
			hmpt_cli_usage_error(cmd, "--timeout: expected seconds, a number above 0",
			                     arg);
		break;
	case 'Q': x->no_mem_probe = true; break;
	case 'M':
		opt->min_gain = strtod(arg, &end) / 100;
		if (end == arg || *end || !(opt->min_gain >= 0) || opt->min_gain >= 1)
			hmpt_cli_usage_error(cmd, "--min-gain: expected a percentage from 0 to 99",
			                     arg);
		break;
	case 'A': {
		double pct = strtod(arg, &end);
		if (end == arg || *end || !(pct >= 50 && pct < 100))
			hmpt_cli_usage_error(
			    cmd, "--confidence: expected a percentage from 50 to 99.9", arg);
		opt->alpha = 1 - pct / 100;
		break;
	}
	case 'L': o->lib = arg; break;
	case 'q': x->quiet = true; break;
	case 'l': o->launcher = arg; break;
	case 'S': opt->slurm.on = true; break;
	case 'P': opt->slurm.partition = arg; break;
	case 'N': opt->slurm.nodes = hmpt_cli_whole_option(cmd, "--nodes", arg, 1, 100000); break;
	case 'T': opt->slurm.time_limit = arg; break;
	case 'j':
		opt->slurm.parallel = hmpt_cli_whole_option(cmd, "--parallel", arg, 1, 4096);
		break;
	default: return false;
	}
	return true;
}

/* A tuning's option c with its argument into opt, x or o; a bad one is a
 * usage error.  true for --help, which it printed. */
static bool take_option(int c, char *arg, hmpt_tune_opts_t *opt, hmpt_measure_t *x,
                        hmpt_tune_cli_t *o)
{
	const char *cmd = o->cmd;
	uint64_t v;
	char *end;

	if (hmpt_tune_take_shared(c, arg, opt, x, o))
		return false;
	switch (c) {
	case 'o': opt->dir = arg; break;
	case 'p': o->pools = arg; break;
	case 'g': opt->ngroups_max = hmpt_cli_whole_option(cmd, "--groups", arg, 1, 10); break;
	case 'G':
		if (opt->nuser == 9)
			hmpt_cli_usage_error(cmd, "--group: at most 9 groups", arg);
		opt->user[opt->nuser++] = arg;
		break;
	case 'c':
		if (hmpt_options_parse_size(arg, &v) || v < 1)
			hmpt_cli_usage_error(cmd, "--capacity: expected a size such as 512M or 16G",
			                     arg);
		opt->capacity = v;
		break;
	case 'b': {
		char err[1024];
		json_t *doc = hmpt_view_bench_open(arg, err, sizeof(err));
		if (!doc)
			hmpt_cli_usage_error(cmd,
			                     "--bench: expected the directory hmpt-bench wrote "
			                     "(-o DIR), with a readable results.json",
			                     arg);
		json_decref(doc);
		opt->bench_dir = arg;
		break;
	}
	case 'C': opt->candidates = hmpt_cli_whole_option(cmd, "--candidates", arg, 1, 1024); break;
	case 'Y':
		if (strcmp(arg, "model") && strcmp(arg, "exhaustive"))
			hmpt_cli_usage_error(cmd, "--search: expected model or exhaustive", arg);
		opt->exhaustive = !strcmp(arg, "exhaustive");
		break;
	case 'B': opt->budget = hmpt_cli_whole_option(cmd, "--budget", arg, 1, 1000000); break;
	case 'W': opt->split = 1; break;
	case 'w': opt->split = 0; break;
	case 'F':
		opt->confirm_rounds = hmpt_cli_whole_option(cmd, "--confirm", arg, 0, 1000);
		break;
	case 'X':
		opt->precision = strtod(arg, &end) / 100;
		if (end == arg || *end || !(opt->precision > 0) || opt->precision >= 1)
			hmpt_cli_usage_error(
			    cmd, "--precision: expected a percentage above 0 and below 100", arg);
		break;
	case 'K': opt->retakes = hmpt_cli_whole_option(cmd, "--retakes", arg, 0, 10); break;
	case 'z':
		if (hmpt_options_parse_size(arg, &v) || v < 1)
			hmpt_cli_usage_error(
			    cmd, "--min-size: expected a size such as 4096, 64K or 1M", arg);
		x->min_size = arg;
		break;
	case 's': {
		hmpt_sampler_t kind;
		if (hmpt_sampler_parse(arg, &kind))
			hmpt_cli_usage_error(
			    cmd, "--sample: expected auto, pebs, ibs, faults, timer or off", arg);
		opt->sample = arg;
		break;
	}
	case 'R': o->restart = true; break;
	case 'E':
		errno = 0;
		opt->seed = strtoull(arg, &end, 0);
		if (end == arg || *end || errno || !opt->seed || !isdigit((unsigned char)*arg))
			hmpt_cli_usage_error(cmd, "--seed: expected a whole number above 0", arg);
		break;
	case 'h': fputs(hmpt_tune_usage, stdout); return true;
	default: hmpt_cli_usage_error(cmd, "unknown option", NULL);
	}
	return false;
}

/* Every option of a tuning (compare takes HMPT_TUNE_SHARED_OPTIONS of them). */
const char hmpt_tune_shortopts[] = "+o:p:m:r:g:G:c:t:s:qh";
const struct option hmpt_tune_longs[] = {{"output", required_argument, 0, 'o'},
                                         {"pools", required_argument, 0, 'p'},
                                         {"metric", required_argument, 0, 'm'},
                                         {"higher-is-better", no_argument, 0, 'H'},
                                         {"reps", required_argument, 0, 'r'},
                                         {"groups", required_argument, 0, 'g'},
                                         {"group", required_argument, 0, 'G'},
                                         {"capacity", required_argument, 0, 'c'},
                                         {"bench", required_argument, 0, 'b'},
                                         {"candidates", required_argument, 0, 'C'},
                                         {"search", required_argument, 0, 'Y'},
                                         {"budget", required_argument, 0, 'B'},
                                         {"split", no_argument, 0, 'W'},
                                         {"no-split", no_argument, 0, 'w'},
                                         {"confirm", required_argument, 0, 'F'},
                                         {"precision", required_argument, 0, 'X'},
                                         {"timeout", required_argument, 0, 't'},
                                         {"min-gain", required_argument, 0, 'M'},
                                         {"retakes", required_argument, 0, 'K'},
                                         {"confidence", required_argument, 0, 'A'},
                                         {"min-size", required_argument, 0, 'z'},
                                         {"sample", required_argument, 0, 's'},
                                         {"lib", required_argument, 0, 'L'},
                                         {"restart", no_argument, 0, 'R'},
                                         {"seed", required_argument, 0, 'E'},
                                         {"no-memory-probe", no_argument, 0, 'Q'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {"launcher", required_argument, 0, 'l'},
                                         {"slurm", no_argument, 0, 'S'},
                                         {"partition", required_argument, 0, 'P'},
                                         {"nodes", required_argument, 0, 'N'},
                                         {"time", required_argument, 0, 'T'},
                                         {"parallel", required_argument, 0, 'j'},
                                         {0, 0, 0, 0}};

void hmpt_tune_check_options(hmpt_tune_opts_t *opt, hmpt_measure_t *x, const hmpt_tune_cli_t *o)
{
	if (opt->budget && opt->exhaustive)
		hmpt_cli_usage_error(
		    o->cmd, "--budget goes with the model search, not --search exhaustive", NULL);
	if ((opt->slurm.partition || opt->slurm.nodes || opt->slurm.time_limit ||
	     opt->slurm.parallel) &&
	    !opt->slurm.on)
		hmpt_cli_usage_error(
		    o->cmd, "--partition, --nodes, --time and --parallel go with --slurm", NULL);
	if (opt->slurm.on) {
		if (!realpath("/proc/self/exe", opt->slurm.self))
			snprintf(opt->slurm.self, sizeof(opt->slurm.self), "hmpt-tune");
		x->slurm = &opt->slurm;
	}
}

/* The options: 0, or 1 after --help.  A usage error exits. */
static int parse_options(int argc, char **argv, hmpt_tune_opts_t *opt, hmpt_measure_t *x,
                         hmpt_tune_cli_t *o)
{
	int c;

	while ((c = getopt_long(argc, argv, hmpt_tune_shortopts, hmpt_tune_longs, NULL)) != -1)
		if (take_option(c, optarg, opt, x, o))
			return 1;
	hmpt_tune_check_options(opt, x, o);
	return 0;
}

/* --launcher 'mpirun -np 4': its words (split as the shell would, without
 * running anything) before the program's */
static int with_launcher(hmpt_tune_opts_t *opt, const char *launcher)
{
	static wordexp_t we;
	size_t n = 0;

	if (wordexp(launcher, &we, WRDE_NOCMD) != 0 || we.we_wordc == 0)
		return -1;
	while (opt->cmd[n])
		n++;
	char **argv = calloc(we.we_wordc + n + 1, sizeof(char *));
	memcpy(argv, we.we_wordv, we.we_wordc * sizeof(char *));
	memcpy(argv + we.we_wordc, opt->cmd, n * sizeof(char *));
	opt->cmd = argv;
	return 0;
}

/* The command: `words`, after --launcher's words when given. */
void hmpt_tune_set_command(hmpt_tune_opts_t *opt, char **words, const hmpt_tune_cli_t *o)
{
	opt->cmd = words;
	opt->program = opt->cmd[0];
	if (o->launcher && with_launcher(opt, o->launcher) != 0)
		hmpt_cli_usage_error(
		    o->cmd, "--launcher: expected a command such as 'mpirun -np 4'", o->launcher);
}

/* ----------------------------------------------------------- the pools */

/* "FAST,SLOW": each a preset or a JSON pool (poolspec.h). */
static int parse_pools(const char *arg, hmpt_tune_opts_t *opt)
{
	char *item[2];

	if (hmpt_poolspec_split(arg, item, 2) != 2)
		return -1;
	opt->fast_pool = hmpt_poolspec_parse(item[0]);
	opt->slow_pool = hmpt_poolspec_parse(item[1]);
	opt->fast_name = item[0];
	opt->slow_name = item[1];
	return opt->fast_pool && opt->slow_pool ? 0 : -1;
}

/* a plan with the two pools and nothing placed */
static json_t *pools_plan(const hmpt_tune_opts_t *opt)
{
	json_t *pools = json_pack("{s:O,s:O}", "fast", opt->fast_pool, "slow", opt->slow_pool);
	json_t *plan = hmpt_poolspec_plan(pools, "slow");
	json_decref(pools);
	return plan;
}

/* The two pools: --pools, else hbm,ddr where there is HBM, else the
 * fastest and slowest memory tiers where there are two; both must make a
 * valid plan before anything runs.  0, or the exit status. */
static int set_pools(hmpt_tune_opts_t *opt, const char *pools)
{
	if (pools) {
		if (parse_pools(pools, opt) != 0)
			hmpt_cli_usage_error(
			    "tune", "--pools: expected FAST,SLOW, each " HMPT_POOLSPEC_HELP, pools);
	} else {
		static hmpt_topo_t topo;
		char err[256];
		bool known = hmpt_poolspec_topo(&topo, NULL, err, sizeof(err)) == 0;
		if (known && !hmpt_nodemask_empty(&topo.hbm)) {
			parse_pools("hbm,ddr", opt);
		} else if (known && topo.ntiers > 1) {
			parse_pools("fastest-tier,slowest-tier", opt);
		} else {
			fprintf(stderr,
			        "hmpt-tune: this machine has no HBM nodes that hmpt can find (nor "
			        "HMPT_HBM_NODES) and one memory tier: name the two pools with "
			        "--pools FAST,SLOW, e.g. --pools thp,4k to compare page sizes\n");
			return EXIT_USAGE;
		}
	}
	json_t *plan = pools_plan(opt);
	char *text = json_dumps(plan, 0), err[1024];
	static hmpt_plan_t check;
	int bad = hmpt_plan_parse(text, strlen(text), "--pools", &check, err, sizeof(err));
	if (!bad)
		hmpt_plan_free(&check);
	free(text);
	json_decref(plan);
	if (bad) {
		fprintf(stderr, "hmpt-tune: --pools %s: %s\n", pools, err);
		return EXIT_USAGE;
	}
	return 0;
}

/* DIR/plans and DIR/runs, and DIR/plans/pools.json, checked against this
 * machine: pools it cannot give would be measured as noise.  0, or 1. */
static int prepare_dir(const hmpt_tune_opts_t *opt)
{
	char sub[PATH_MAX];
	snprintf(sub, sizeof(sub), "%s/plans", opt->dir);
	int rc = hmpt_mkdir_p(sub);
	snprintf(sub, sizeof(sub), "%s/runs", opt->dir);
	rc = rc ? rc : hmpt_mkdir_p(sub);
	if (rc) {
		fprintf(stderr, "hmpt-tune: cannot create %s: %s\n", sub, strerror(-rc));
		return 1;
	}
	json_t *plan = pools_plan(opt);
	snprintf(sub, sizeof(sub), "%s/plans/pools.json", opt->dir);
	rc = hmpt_plan_emit(plan, sub);
	json_decref(plan);
	if (rc == 0 && hmpt_plan_check_file(sub, true, true) != 0) {
		fprintf(stderr, "hmpt-tune: --pools %s,%s: this machine cannot give these pools\n",
		        opt->fast_name, opt->slow_name);
		return 1;
	}
	return rc ? 1 : 0;
}

/* --------------------------------------------------------- the command */

void hmpt_tune_opts_free(hmpt_tune_opts_t *opt)
{
	if (opt->cmd && opt->cmd[0] != opt->program) /* the launcher's words came first */
		free((void *)opt->cmd);
	json_decref(opt->fast_pool);
	json_decref(opt->slow_pool);
	free((char *)opt->fast_name);
	free((char *)opt->slow_name);
}

/* what t owns */
static void tune_free(hmpt_tune_t *t)
{
	for (int i = 0; i < t->nconfigs; i++) {
		free(t->configs[i].fast);
		free(t->configs[i].runs);
	}
	free(t->configs);
	free(t->sites);
	json_decref(t->profile);
	hmpt_sym_free(t->sym);
	hmpt_order_free(&t->order);
}

/* DIR/journal.jsonl, opened (or resumed) for x: 0, or 1. */
static int open_journal(hmpt_tune_t *t, const hmpt_tune_cli_t *o, hmpt_measure_t *x,
                        hmpt_journal_t *j)
{
	char groups_text[4096] = "";
	for (int g = 0; g < t->opt->nuser; g++)
		snprintf(groups_text + strlen(groups_text),
		         sizeof(groups_text) - strlen(groups_text), "%s%s", g ? ";" : "",
		         t->opt->user[g]);
	json_t *key = hmpt_journal_key(t, x->min_size, t->opt->nuser ? groups_text : NULL);
	int rc = hmpt_journal_open(j, t->opt->dir, key, o->restart);
	json_decref(key);
	if (rc)
		return 1;
	x->journal = j;
	t->seed = j->seed;
	return 0;
}

/* The stages of a tuning, in order: each fills in the tuning for the next
 * (stages.h). */
static const struct {
	const char *name;
	hmpt_stage_fn *run;
	const char *fills; /* what it fills in */
} stages[] = {
    {"profile", hmpt_stage_profile, "the profile, its sites (the largest first), the timeout"},
    {"rank", hmpt_stage_rank, "the groups: --group's, or the sites ranked alone, and the rest"},
    {"search", hmpt_stage_search, "the combinations measured or predicted; the choices"},
    {"split", hmpt_stage_split, "shares of a group measured (--split); the choices again"},
    {"confirm", hmpt_stage_confirm, "the choices measured again; those confirmed chosen"},
    {"plans", hmpt_stage_plans, "DIR/plan-*.json"},
    {"report", hmpt_stage_report, "results.json, .csv, the figures, report.html; the summary"},
};

/* The stages, one after the other: 0, or 1 (128+N on signal N, the
 * journal kept for the next run). */
static int run_stages(hmpt_tune_t *t, hmpt_measure_t *x)
{
	size_t done = 0, n = sizeof(stages) / sizeof(stages[0]);
	int rc;

	hmpt_measure_trap(SIGINT);
	hmpt_measure_trap(SIGTERM);
	hmpt_measure_trap(SIGHUP);
	t->sym = hmpt_sym_new();
	while (done < n && stages[done].run(t, x) == 0)
		done++;
	rc = done == n ? 0 : 1;
	if (hmpt_measure_interrupted()) {
		fprintf(stderr,
		        "\nhmpt-tune: interrupted; the runs so far are in %s/journal.jsonl: run "
		        "the same command again to go on\n",
		        t->opt->dir);
		rc = 128 + hmpt_measure_interrupted();
	}
	return rc;
}

/* hmpt-tune [tune] [options] -- COMMAND (args: what follows the options) */
static int tune_command(hmpt_tune_t *t, hmpt_tune_opts_t *opt, hmpt_measure_t *x,
                        const hmpt_tune_cli_t *o, char **args, int nargs)
{
	if (nargs < 1)
		hmpt_cli_usage_error("tune", "no command given (put it after --)", NULL);
	hmpt_tune_set_command(opt, args, o);
	x->progress = x->progress && !x->quiet;
	int rc = set_pools(opt, o->pools);
	if (rc)
		return rc;
	if (hmpt_lib_resolve(o->lib, x->lib, sizeof(x->lib)) != 0)
		return EXIT_USAGE;
	if (prepare_dir(opt) != 0)
		return 1;
	hmpt_journal_t journal = {.seed = opt->seed};
	rc = open_journal(t, o, x, &journal);
	if (rc == 0)
		rc = run_stages(t, x);
	hmpt_journal_close(&journal);
	return rc;
}

hmpt_tune_opts_t hmpt_tune_opts_default(void)
{
	return (hmpt_tune_opts_t){.dir = "hmpt-tune.out",
	                          .reps = 3,
	                          .ngroups_max = 8,
	                          .candidates = 16,
	                          .alpha = 0.05,
	                          .min_gain = 0.01,
	                          .confirm_rounds = 20,
	                          .split = -1, /* where the pools' pages are alike (--help) */
	                          .retakes = 2,
	                          .precision = 0.03,
	                          .sample = "auto"};
}

void hmpt_tune_start(hmpt_tune_t *t, const hmpt_tune_opts_t *opt)
{
	*t = (hmpt_tune_t){.opt = opt,
	                   .timeout_s = opt->timeout, /* the profile stage's, unless given */
	                   .confirm_rounds_max = opt->confirm_rounds,
	                   .best = -1,
	                   .best90 = -1,
	                   .fit = -1,
	                   .search_best = -1,
	                   .search_best90 = -1,
	                   .search_fit = -1,
	                   .confirm_ref = -1,
	                   .order_ref = -1};
}

int hmpt_cmd_tune(int argc, char **argv)
{
	hmpt_tune_opts_t opt = hmpt_tune_opts_default();
	hmpt_tune_t t;
	hmpt_measure_t x = {.progress = isatty(2)};
	hmpt_tune_cli_t o = {.cmd = "tune"};
	int rc = 0;

	hmpt_tune_start(&t, &opt); /* empty, for tune_free after --help */
	if (parse_options(argc, argv, &opt, &x, &o) == 0) {
		hmpt_tune_start(&t, &opt); /* with the options parsed */
		rc = tune_command(&t, &opt, &x, &o, argv + optind, argc - optind);
	}
	hmpt_measure_free(&x);
	tune_free(&t);
	hmpt_tune_opts_free(&opt);
	return rc;
}
