/* slurm.c — see slurm.h. */
#include "slurm.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"
#include "profrun.h"
#include "runner.h"
#include "runrec.h"
#include "outfile.h"

extern char **environ;

/* a word for sh, single-quoted */
static void sh_word(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* Run a Slurm client; its output (both streams) into `out`: its status. */
static int client(char *const *argv, const char *out, size_t cap, char *text)
{
	hmpt_run_spec_t spec = {
	    .argv = argv, .env = environ, .log = out, .timeout = 60, .quiet = true};
	hmpt_run_result_t res;
	int status = hmpt_run(&spec, &res);
	FILE *f = fopen(out, "r");
	size_t n = f ? fread(text, 1, cap - 1, f) : 0;
	text[n] = '\0';
	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		text[--n] = '\0';
	if (f)
		fclose(f);
	unlink(out);
	if (res.exec_errno)
		snprintf(text, cap, "%s: %s", argv[0], strerror(res.exec_errno));
	return status;
}

/* One run-on-node line of a job's script (`last`: the job's own run, exec'd). */
static void script_step(FILE *f, const hmpt_slurm_t *s, const hmpt_sjob_t *j, bool last)
{
	if (last)
		fputs("exec ", f);
	sh_word(f, s->self);
	fputs(" run-on-node --lib ", f);
	sh_word(f, j->lib);
	fprintf(f, " --timeout %g --log ", j->timeout);
	sh_word(f, j->log);
	fputs(" --result ", f);
	sh_word(f, j->result);
	for (char *const *v = j->set; v && *v; v++) {
		fputs(" \\\n    --set ", f);
		sh_word(f, *v);
	}
	fputs(" \\\n    --", f);
	for (char *const *a = j->cmd; *a; a++) {
		fputc(' ', f);
		sh_word(f, *a);
	}
	fputc('\n', f);
}

/* --time for a job of `runs` runs: sbatch's forms (M, M:S, H:M:S, D-H,
 * D-H:M, D-H:M:S) times runs, as D-HH:MM:SS: 0, or -1 when it is none of
 * them (then it goes as given). */
static int time_times(const char *limit, int runs, char *out, size_t cap)
{
	long f[4] = {0}, days = 0;
	int n = 0, used = 0;
	const char *p = limit, *dash = strchr(limit, '-');

	if (dash && sscanf(limit, "%ld-%n", &days, &used) == 1 && used == dash - limit + 1)
		p = dash + 1;
	else if (dash)
		return -1;
	while (n < 3 && sscanf(p, "%ld%n", &f[n], &used) == 1 && f[n] >= 0) {
		n++;
		p += used;
		if (*p != ':')
			break;
		p++;
	}
	if (*p || n == 0 || days < 0 || p[-1] == ':')
		return -1;
	long sec = dash     ? f[0] * 3600 + (n > 1 ? f[1] * 60 : 0) + (n > 2 ? f[2] : 0)
	           : n == 1 ? f[0] * 60
	           : n == 2 ? f[0] * 60 + f[1]
	                    : f[0] * 3600 + f[1] * 60 + f[2];
	sec = (sec + days * 86400) * runs;
	snprintf(out, cap, "%ld-%02ld:%02ld:%02ld", sec / 86400, sec / 3600 % 24, sec / 60 % 60,
	         sec % 60);
	return 0;
}

int hmpt_slurm_submit(const hmpt_slurm_t *s, hmpt_sjob_t *j)
{
	hmpt_outfile_t script;
	FILE *f = hmpt_outfile_open(&script, j->script);
	char nodes[16], out[PATH_MAX + 32], text[1024], exclude[1100] = "";
	char *argv[32];
	int n = 0;

	j->job = 0;
	j->gone = j->polled = 0;
	j->nodes[0] = j->host[0] = '\0';
	unlink(j->result);
	if (!f) {
		snprintf(j->why, sizeof(j->why), "%.120s: not written", j->script);
		return -1;
	}
	fprintf(f, "#!/bin/sh\n# written by hmpt-tune: %s, on a node of its own\n",
	        j->nbefore ? "a round of measured runs" : "one measured run");
	for (int i = 0; i < j->nbefore; i++) {
		unlink(j->before[i]->result);
		script_step(f, s, j->before[i], false);
	}
	script_step(f, s, j, true);
	if (hmpt_outfile_close(&script) != 0) {
		snprintf(j->why, sizeof(j->why), "%.120s: not written", j->script);
		return -1;
	}
	snprintf(nodes, sizeof(nodes), "%d", s->nodes > 0 ? s->nodes : 1);
	snprintf(out, sizeof(out), "%s.slurm.out", j->script);
	argv[n++] = "sbatch";
	argv[n++] = "--parsable";
	argv[n++] = "--exclusive";
	argv[n++] = "--job-name=hmpt-tune";
	argv[n++] = "--nodes";
	argv[n++] = nodes;
	argv[n++] = "--output";
	argv[n++] = out;
	if (s->partition) {
		argv[n++] = "--partition";
		argv[n++] = (char *)s->partition;
	}
	char limit[64];
	if (s->time_limit) {
		/* --time is a run's: a round's job runs several */
		argv[n++] = "--time";
		argv[n++] = j->nbefore && time_times(s->time_limit, j->nbefore + 1, limit,
		                                     sizeof(limit)) == 0
		                ? limit
		                : (char *)s->time_limit;
	}
	if (*s->exclude || j->avoid) {
		snprintf(exclude, sizeof(exclude), "--exclude=%s%s%s", s->exclude,
		         *s->exclude && j->avoid ? "," : "", j->avoid ? j->avoid : "");
		argv[n++] = exclude;
	}
	if (s->extra)
		argv[n++] = (char *)s->extra;
	argv[n++] = j->script;
	argv[n] = NULL;
	char tmp[PATH_MAX + 32];
	snprintf(tmp, sizeof(tmp), "%s.sbatch.txt", j->script);
	int rc = client(argv, tmp, sizeof(text), text);
	char *end;
	long id = strtol(text, &end, 10);
	if (rc || id <= 0 || (*end && *end != ';')) {
		snprintf(j->why, sizeof(j->why), "sbatch refused the run: %.150s",
		         *text ? text : "no job id");
		return -1;
	}
	j->job = id;
	return 0;
}

static int read_result(hmpt_sjob_t *j)
{
	FILE *f = fopen(j->result, "rb");
	int got = f ? hmpt_runrec_slurm_result(f, j) : 0;

	if (f)
		fclose(f);
	return got;
}

int hmpt_slurm_poll(hmpt_sjob_t *j)
{
	if (read_result(j))
		return 1;
	double t = hmpt_run_now();
	if (j->gone) { /* the job has left the queue: the file may lag behind */
		if (t - j->gone < 5)
			return 0;
		j->status = 125;
		snprintf(j->why, sizeof(j->why),
		         "its Slurm job %ld ended without a result (node failure, or the job "
		         "was cancelled or hit its time limit)",
		         j->job);
		snprintf(j->host, sizeof(j->host), "%s", j->nodes);
		return 1;
	}
	if (t - j->polled < 2)
		return 0;
	j->polled = t;
	char id[32], tmp[PATH_MAX + 32], text[512];
	snprintf(id, sizeof(id), "%ld", j->job);
	snprintf(tmp, sizeof(tmp), "%s.squeue.txt", j->script);
	char *argv[] = {"squeue", "-h", "-j", id, "-o", "%T %N", NULL};
	int rc = client(argv, tmp, sizeof(text), text);
	char state[64] = "", nodes[256] = "";
	if (rc == 0)
		sscanf(text, "%63s %255s", state, nodes);
	if (*nodes)
		snprintf(j->nodes, sizeof(j->nodes), "%s", nodes);
	/* gone from the queue, or in a state it leaves without running on */
	if ((rc == 0 && !*state) || strstr(text, "Invalid job id") || !strcmp(state, "FAILED") ||
	    !strcmp(state, "NODE_FAIL") || !strcmp(state, "BOOT_FAIL") ||
	    !strcmp(state, "CANCELLED") || !strcmp(state, "TIMEOUT") ||
	    !strcmp(state, "COMPLETED") || !strcmp(state, "OUT_OF_MEMORY"))
		j->gone = t;
	return 0;
}

void hmpt_slurm_steps_read(hmpt_sjob_t *j)
{
	for (int i = 0; i < j->nbefore; i++) {
		hmpt_sjob_t *b = j->before[i];
		if (read_result(b))
			continue;
		b->status = j->status ? j->status : 125;
		b->wall = 0;
		snprintf(b->why, sizeof(b->why), "%s",
		         j->status ? j->why : "its round's job ended without its result");
		snprintf(b->host, sizeof(b->host), "%s", j->host);
	}
}

void hmpt_slurm_cancel(const hmpt_sjob_t *j)
{
	char id[32], tmp[PATH_MAX + 32], text[256];
	if (j->job <= 0)
		return;
	snprintf(id, sizeof(id), "%ld", j->job);
	snprintf(tmp, sizeof(tmp), "%s.scancel.txt", j->script);
	char *argv[] = {"scancel", id, NULL};
	client(argv, tmp, sizeof(text), text);
}

/* ------------------------------------------------------ run-on-node */

int hmpt_cmd_run_on_node(int argc, char **argv)
{
	static const struct option longs[] = {
	    {"lib", required_argument, 0, 'L'},     {"set", required_argument, 0, 's'},
	    {"log", required_argument, 0, 'l'},     {"result", required_argument, 0, 'r'},
	    {"timeout", required_argument, 0, 't'}, {0, 0, 0, 0}};
	const char *lib = NULL, *log = NULL, *result = NULL;
	char *set[64];
	int nset = 0, c;
	double timeout = 0;

	while ((c = getopt_long(argc, argv, "+", longs, NULL)) != -1) {
		switch (c) {
		case 'L': lib = optarg; break;
		case 's':
			if (nset < 63)
				set[nset++] = optarg;
			break;
		case 'l': log = optarg; break;
		case 'r': result = optarg; break;
		case 't': timeout = strtod(optarg, NULL); break;
		default: hmpt_cli_usage_error("run-on-node", "unknown option", NULL);
		}
	}
	set[nset] = NULL;
	if (!lib || !log || !result || optind >= argc)
		hmpt_cli_usage_error("run-on-node", "expected --lib, --log, --result and a command",
		                     NULL);
	size_t added;
	char **env = hmpt_child_env(lib, set, &added);
	hmpt_run_spec_t spec = {
	    .argv = argv + optind, .env = env, .log = log, .timeout = timeout, .quiet = true};
	hmpt_run_result_t res;
	hmpt_run(&spec, &res);
	hmpt_child_env_free(env, added);
	char why[200] = "";
	if (res.status)
		hmpt_run_describe(&res, timeout, why, sizeof(why));
	/* the node as Slurm names it (what --exclude takes; several nodes may
	 * share a machine), else the machine's short name */
	struct utsname u;
	const char *node = getenv("SLURMD_NODENAME");
	if (uname(&u) != 0)
		u.nodename[0] = '\0';
	u.nodename[strcspn(u.nodename, ".")] = '\0';
	json_t *r = json_pack("{s:i,s:f,s:s,s:s}", "status", res.status, "wall", res.wall, "why",
	                      why, "host", node && *node ? node : u.nodename);
	hmpt_outfile_t out;
	int rc = 1;
	if (hmpt_outfile_open(&out, result)) {
		json_dumpf(r, out.f, JSON_COMPACT);
		rc = hmpt_outfile_close(&out) ? 1 : 0;
	}
	json_decref(r);
	return rc;
}
