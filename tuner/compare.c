/* compare.c — hmpt-tune compare: one plan's speedup over another. */
#include "compare.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plan.h"
#include "profrun.h"
#include "tune.h"

const char hmpt_compare_usage[] =
    "Usage: hmpt-tune compare [options] BASE.json PLAN.json -- COMMAND [ARGS...]\n"
    "\n"
    "Run COMMAND under BASE.json and under PLAN.json in N rounds, a run of each\n"
    "per round in alternating order, and print PLAN's speedup over BASE with its\n"
    "confidence interval: to check that a plan from hmpt-tune still holds, or to\n"
    "compare two plans.  The speedup is the Hodges-Lehmann estimate of the\n"
    "rounds' ratios and its interval Wilcoxon's signed-rank one, as in hmpt-tune's\n"
    "confirmation: a drift or a burst of other load in a few rounds moves neither\n"
    "much.\n"
    "\n"
    "Options (as for tuning):\n"
    "  -m, --metric REGEX    time by a figure the program prints (see hmpt-tune\n"
    "                        --help), not by wall clock\n"
    "      --higher-is-better  the metric is a rate\n"
    "  -r, --reps N          rounds (default: 10; at least 2, 6 for Wilcoxon's\n"
    "                        95 % interval)\n"
    "  -t, --timeout SEC     kill a run after SEC seconds (default: none)\n"
    "      --min-gain PCT    smallest speedup reported as one (default: 1)\n"
    "      --confidence PCT  of the interval (default: 95)\n"
    "      --lib PATH        the libhmpt.so to preload\n"
    "  -q, --quiet           print only the result line\n"
    "      --no-memory-probe do not time a pass over memory around each run\n"
    "      --launcher CMD    start COMMAND with CMD ('mpirun -np 4', 'srun')\n"
    "      --slurm           each run a Slurm batch job, with --partition, --nodes,\n"
    "                        --time and --parallel as for tuning\n"
    "A tuning's other options are a usage error here.\n"
    "\n"
    "COMMAND's output goes to a temporary directory, removed afterwards.  A plan\n"
    "that fails to load (here, or in COMMAND, where the shim says so) or places\n"
    "nothing (no site of it matched an allocation of COMMAND: a rebuilt program,\n"
    "updated libraries) is not compared: its runs would time default placement.\n"
    "Exit status: 0 when every run succeeded, 1 when one failed, 2 for a usage\n"
    "error, 3 when a plan failed to load or placed nothing.\n"
    "\n"
    "Example:\n"
    "  hmpt-tune compare -m 'Time in seconds' out/plan-slow.json out/plan-best.json \\\n"
    "      -- ./app args\n";

/* What the shim said of the plan in a run's output (log): 1 it could not
 * be used, 2 it placed nothing (plan.h's words), 0 neither; the line. */
static int shim_said(const char *log, char *said, size_t cap)
{
	FILE *f = fopen(log, "r");
	char *line = NULL;
	size_t len = 0;
	int what = 0;

	if (!f)
		return 0;
	while (!what && getline(&line, &len, f) > 0) {
		/* "hmpt: ..." or, in a rank of an MPI job, "hmpt[rank 3]: ..." */
		if (strncmp(line, "hmpt:", 5) != 0 && strncmp(line, "hmpt[", 5) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		size_t n = strlen(line), u = strlen("; " HMPT_PLAN_SAID_UNUSED);
		if (n >= u && strcmp(line + n - u, "; " HMPT_PLAN_SAID_UNUSED) == 0)
			what = 1;
		else if (strstr(line, " " HMPT_PLAN_SAID_NOTHING ": "))
			what = 2;
		if (what)
			snprintf(said, cap, "%s", line);
	}
	free(line);
	fclose(f);
	return what;
}

/* The runs: reps times each plan, alternately, the figures in v[plan]
 * (n[plan] of them); 0, 1 after the output of a run that failed, or 3 when
 * the shim said a plan could not be used or placed nothing. */
static int run_plans(const hmpt_tune_t *t, hmpt_measure_t *x, char **plans, const char *tmp,
                     double (*v)[100], int *n)
{
	char log[PATH_MAX];
	int rc = 0;

	x->total = 2 * t->opt->reps;
	for (int r = 0; r < t->opt->reps && !hmpt_measure_interrupted() && !rc; r++)
		for (int k = 0; k < 2 && !hmpt_measure_interrupted(); k++) {
			/* alternate which goes first, so that order effects cancel */
			int which = (r & 1) ? 1 - k : k;
			hmpt_measure_progress(x, plans[which], r);
			snprintf(log, sizeof(log), "%s/%d.%d.log", tmp, which, r);
			hmpt_trun_t run = hmpt_measure_run(x, t->opt->cmd, plans[which], log,
			                                   t->timeout_s, t->opt->metric != NULL);
			x->done++;
			x->spent += run.wall;
			if (hmpt_measure_interrupted())
				break;
			if (run.status) {
				fprintf(stderr,
				        "%shmpt-tune compare: %s under %s %s; its output:\n",
				        x->progress ? "\r\033[K" : "", t->opt->program,
				        plans[which], run.why);
				FILE *f = fopen(log, "r");
				int ch;
				while (f && (ch = fgetc(f)) != EOF)
					fputc(ch, stderr);
				if (f)
					fclose(f);
				rc = 1;
				break;
			}
			char said[4096];
			int what = shim_said(log, said, sizeof(said));
			if (what) {
				printf(
				    "%s%s: %s in %s: %s (the shim: \"%s\"); not compared: its runs "
				    "would time default placement\n",
				    x->progress ? "\r\033[K" : "", plans[which],
				    what == 1 ? "failed to load" : HMPT_PLAN_SAID_NOTHING,
				    t->opt->program,
				    what == 1 ? "the shim could not use it"
				              : "no site of it matched an allocation",
				    said);
				rc = 3;
				break;
			}
			v[which][n[which]++] = run.value;
			unlink(log);
		}
	if (x->progress)
		fprintf(stderr, "\r\033[K");
	for (int r = 0; r < t->opt->reps; r++)
		for (int k = 0; k < 2; k++) {
			snprintf(log, sizeof(log), "%s/%d.%d.log", tmp, k, r);
			unlink(log);
		}
	return rc;
}

int hmpt_compare_plans(const hmpt_tune_t *t, hmpt_measure_t *x, char **plans)
{
	char tmp[] = "/tmp/hmpt-compare.XXXXXX";
	double v[2][100];
	int n[2] = {0, 0};

	for (int k = 0; k < 2; k++) {
		char err[1024];
		static hmpt_plan_t check;
		if (hmpt_plan_load(plans[k], &check, err, sizeof(err)) != 0) {
			printf("%s: failed to load: %s; not compared\n", plans[k], err);
			return 3;
		}
		hmpt_plan_free(&check);
	}
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "hmpt-tune compare: %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	hmpt_measure_trap(SIGINT);
	hmpt_measure_trap(SIGTERM);
	int rc = run_plans(t, x, plans, tmp, v, n);
	rmdir(tmp);
	if (hmpt_measure_interrupted())
		return 128 + hmpt_measure_interrupted();
	if (rc)
		return rc;
	hmpt_summary_t base, plan;
	hmpt_speedup_t sp;
	bool exact;
	/* a round's two runs side by side: their ratio cancels drift and slow
	 * changes of load, as in the tuner's confirmation */
	double d[100];
	int pairs = n[0] < n[1] ? n[0] : n[1];
	for (int r = 0; r < pairs; r++)
		d[r] = t->opt->maximize ? log(v[1][r] / v[0][r]) : log(v[0][r] / v[1][r]);
	hmpt_stats_summary(v[0], n[0], &base);
	hmpt_stats_summary(v[1], n[1], &plan);
	hmpt_stats_paired(d, pairs, t->opt->alpha, t->opt->min_gain, &sp, &exact);
	if (!x->quiet)
		printf("%s: mean %.4g (sd %.2g); %s: mean %.4g (sd %.2g); %d rounds, a run of each "
		       "(%s)\n",
		       plans[0], base.mean, base.sd, plans[1], plan.mean, plan.sd, pairs,
		       exact ? "Hodges-Lehmann estimate, Wilcoxon signed-rank interval"
		             : "too few rounds for Wilcoxon's interval: the paired t interval");
	printf("%s: %.3fx over %s (%.0f %% interval %.3f-%.3f): %s\n", plans[1], sp.speedup,
	       plans[0], 100 * (1 - t->opt->alpha), sp.lo, sp.hi,
	       sp.faster   ? "faster"
	       : sp.slower ? "slower"
	                   : "no measurable difference");
	return 0;
}

/* compare's options: those of HMPT_TUNE_SHARED_OPTIONS, and --help; a
 * tuning's other options are named in a usage error.  0, or 1 after
 * --help. */
static int parse_options(int argc, char **argv, hmpt_tune_opts_t *opt, hmpt_measure_t *x,
                         hmpt_tune_cli_t *o)
{
	int c;

	while ((c = getopt_long(argc, argv, hmpt_tune_shortopts, hmpt_tune_longs, NULL)) != -1) {
		if (c == 'h') {
			fputs(hmpt_compare_usage, stdout);
			return 1;
		}
		if (c != '?' && strchr(HMPT_TUNE_SHARED_OPTIONS, c) &&
		    hmpt_tune_take_shared(c, optarg, opt, x, o))
			continue;
		for (const struct option *l = hmpt_tune_longs; c != '?' && l->name; l++)
			if (l->val == c)
				hmpt_cli_usage_error(
				    o->cmd, "this option is for tuning, not for compare", l->name);
		hmpt_cli_usage_error(o->cmd, "unknown option", NULL);
	}
	hmpt_tune_check_options(opt, x, o);
	return 0;
}

/* hmpt-tune compare [options] BASE.json PLAN.json -- COMMAND */
int hmpt_cmd_compare(int argc, char **argv)
{
	hmpt_tune_opts_t opt = hmpt_tune_opts_default();
	hmpt_tune_t t;
	hmpt_measure_t x = {.progress = isatty(2)};
	hmpt_tune_cli_t o = {.cmd = "compare"};
	int rc = 0;

	opt.reps = 10; /* rounds for an exact interval */
	if (parse_options(argc, argv, &opt, &x, &o) == 0) {
		char **args = argv + optind;
		if (argc - optind < 4 || strcmp(args[2], "--") != 0)
			hmpt_cli_usage_error("compare", "expected BASE.json PLAN.json -- COMMAND",
			                     NULL);
		hmpt_tune_set_command(&opt, args + 3, &o);
		hmpt_tune_start(&t, &opt);
		if (hmpt_lib_resolve(o.lib, x.lib, sizeof(x.lib)) != 0)
			rc = EXIT_USAGE;
		else
			rc = hmpt_compare_plans(&t, &x, args);
	}
	hmpt_measure_free(&x);
	hmpt_tune_opts_free(&opt);
	return rc;
}
