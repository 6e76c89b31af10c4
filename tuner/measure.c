/* measure.c — runs of a tuning's configurations: the metric, one run here
 * or under Slurm, and the interleaved rounds of a phase. */
#include "measure.h"

#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "noise.h"
#include "profrun.h"
#include "runner.h"

/* ------------------------------------------------------------- signals */

/* the signal caught: set by the handler, so a global */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
	hmpt_run_kill_current();
}

void hmpt_measure_trap(int sig)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(sig, &sa, NULL);
}

int hmpt_measure_interrupted(void)
{
	return (int)interrupted;
}

/* ------------------------------------------------------------- metric */

int hmpt_measure_metric(hmpt_measure_t *x, const char *regex, char *why, size_t cap)
{
	hmpt_measure_free(x);
	int rc = regcomp(&x->metric, regex, REG_EXTENDED);
	if (rc) {
		regerror(rc, &x->metric, why, cap);
		return -1;
	}
	x->metric_set = true;
	return 0;
}

void hmpt_measure_free(hmpt_measure_t *x)
{
	if (x->metric_set)
		regfree(&x->metric);
	x->metric_set = false;
	free(x->hist);
	x->hist = NULL;
	x->nhist = 0;
	x->hist_read = false;
}

int hmpt_measure_metric_read(const hmpt_measure_t *x, const char *log, double *value)
{
	FILE *f = fopen(log, "r");
	char *line = NULL, last[256] = "";
	size_t cap = 0;
	bool found = false;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		regmatch_t m[2];
		char *p = line;
		while (regexec(&x->metric, p, 2, m, p == line ? 0 : REG_NOTBOL) == 0) {
			const char *from = m[1].rm_so >= 0 ? p + m[1].rm_so : p + m[0].rm_eo;
			size_t len =
			    m[1].rm_so >= 0 ? (size_t)(m[1].rm_eo - m[1].rm_so) : strlen(from);
			snprintf(last, sizeof(last), "%.*s", (int)(len < 255 ? len : 255), from);
			found = true;
			if (m[0].rm_eo == 0)
				break;
			p += m[0].rm_eo;
		}
	}
	free(line);
	fclose(f);
	if (!found)
		return -1;
	/* the first number in what the match gave */
	for (char *p = last; *p; p++) {
		char *end;
		if (!strchr("0123456789.+-", *p))
			continue;
		double v = strtod(p, &end);
		if (end != p && isfinite(v)) {
			*value = v;
			return 0;
		}
	}
	return -1;
}

/* ---------------------------------------------------------------- runs */

void hmpt_measure_progress(hmpt_measure_t *x, const char *label, int rep)
{
	if (!x->progress)
		return;
	char left[32] = "";
	if (x->done > 0) {
		double s = x->spent / x->done * (x->total - x->done);
		snprintf(left, sizeof(left), ", about %dm%02ds left", (int)s / 60, (int)s % 60);
	}
	fprintf(stderr, "\rhmpt-tune: run %d/%d (%.40s, run %d)%s\033[K", x->done + 1, x->total,
	        label, rep + 1, left);
}

/* One run under Slurm, and what happened to it (a retry on another node
 * when it failed on the first). */
typedef struct {
	hmpt_sjob_t job;
	int ci, rep, tries;
	bool done;
	char first_host[256], first_why[200];
	int first_status;
	char planvar[PATH_MAX + 16], minvar[64];
	char *set[5];
} sitem_t;

/* The environment of a measured run: its plan, no sampling, no profile. */
static void measured_set(sitem_t *it, const char *plan_path, const char *min_size)
{
	int n = 0;
	snprintf(it->planvar, sizeof(it->planvar), "HMPT_PLAN=%s", plan_path);
	it->set[n++] = it->planvar;
	it->set[n++] = "HMPT_SAMPLE=off";
	it->set[n++] = "HMPT_PROFILE"; /* removed: an empty value draws a warning */
	if (min_size) {
		snprintf(it->minvar, sizeof(it->minvar), "HMPT_MIN_SIZE=%s", min_size);
		it->set[n++] = it->minvar;
	}
	it->set[n] = NULL;
}

static void slurm_item_init(sitem_t *it, char *const *cmd, const char *lib, const char *log,
                            double timeout)
{
	it->job.cmd = cmd;
	it->job.set = it->set;
	it->job.lib = lib;
	it->job.timeout = timeout;
	snprintf(it->job.log, sizeof(it->job.log), "%s", log);
	snprintf(it->job.result, sizeof(it->job.result), "%s.result", log);
	snprintf(it->job.script, sizeof(it->job.script), "%s.sbatch", log);
}

/* A run that ended: retry it once elsewhere when it failed (true: it goes
 * on), and say what the retry showed about the first node. */
static bool slurm_retry(hmpt_slurm_t *s, sitem_t *it)
{
	hmpt_sjob_t *j = &it->job;

	if (j->status == 0 && it->tries == 1) {
		fprintf(stderr,
		        "\rhmpt-tune: node %s failed a run (%s); it ran on %s without trouble: %s "
		        "is left out from now on\033[K\n",
		        it->first_host, it->first_why, j->host, it->first_host);
		size_t len = strlen(s->exclude);
		snprintf(s->exclude + len, sizeof(s->exclude) - len, "%s%s", len ? "," : "",
		         it->first_host);
		return false;
	}
	if (j->status == 0 || it->tries == 1 || !*j->host || j->status == 130)
		return false;
	it->tries = 1;
	it->first_status = j->status;
	snprintf(it->first_host, sizeof(it->first_host), "%s", j->host);
	snprintf(it->first_why, sizeof(it->first_why), "%s", j->why);
	j->avoid = it->first_host;
	if (hmpt_slurm_submit(s, j) == 0)
		return true;
	/* nowhere else to go: the first outcome stands */
	j->status = it->first_status;
	snprintf(j->why, sizeof(j->why), "%.100s (on %.40s; no other node to retry it on)",
	         it->first_why, it->first_host);
	snprintf(j->host, sizeof(j->host), "%s", it->first_host);
	return false;
}

/* Run items under Slurm, up to --parallel at a time; done(it) (when given)
 * as each ends. */
static int slurm_batch(hmpt_slurm_t *s, sitem_t *items, int n, void (*done)(sitem_t *, void *),
                       void *ctx)
{
	int next = 0, running = 0, parallel = s->parallel > 0 ? s->parallel : 1;

	while (next < n || running) {
		while (running < parallel && next < n) {
			sitem_t *it = &items[next++];
			if (hmpt_slurm_submit(s, &it->job) != 0) {
				it->job.status = 126;
				it->done = true;
				if (done)
					done(it, ctx);
				continue;
			}
			running++;
		}
		usleep(100000);
		for (int i = 0; i < next; i++) {
			sitem_t *it = &items[i];
			if (interrupted) {
				if (!it->done)
					hmpt_slurm_cancel(&it->job);
				continue;
			}
			if (it->done || !hmpt_slurm_poll(&it->job) || slurm_retry(s, it))
				continue;
			it->done = true;
			running--;
			if (done)
				done(it, ctx);
		}
		if (interrupted)
			return -1;
	}
	return 0;
}

int hmpt_measure_slurm_job(hmpt_measure_t *x, char *const *cmd, char *const *set, const char *log,
                           double timeout, hmpt_sjob_t *job)
{
	static sitem_t it;

	memset(&it, 0, sizeof(it));
	for (int i = 0; i < 4 && set[i]; i++)
		it.set[i] = set[i];
	slurm_item_init(&it, cmd, x->lib, log, timeout);
	int rc = slurm_batch(x->slurm, &it, 1, NULL, NULL);
	*job = it.job;
	return rc;
}

/* The figure of a run that ended (from its log), or why there is none. */
static void run_figure(const hmpt_measure_t *x, hmpt_trun_t *run, const char *log, bool metric)
{
	run->value = run->wall;
	if (run->status == 0 && metric && hmpt_measure_metric_read(x, log, &run->value) != 0) {
		run->status = -1;
		snprintf(run->why, sizeof(run->why), "printed no figure matching --metric");
	}
}

static void sjob_to_run(const hmpt_sjob_t *j, hmpt_trun_t *run)
{
	run->status = j->status;
	run->wall = j->wall;
	snprintf(run->why, sizeof(run->why), "%.159s", j->why);
	snprintf(run->host, sizeof(run->host), "%.63s", j->host);
}

static void sitem_to_run(const sitem_t *it, hmpt_trun_t *run)
{
	sjob_to_run(&it->job, run);
}

/* ------------------------------------------------ the machine's load */

/* Busy and steal time so far of the CPUs we (and so the runs) may use,
 * from /proc/stat: 0, or -1 when it cannot be known. */
static int load_sample(hmpt_noise_cpu_t *out)
{
	static bool allowed[CPU_SETSIZE];
	cpu_set_t set;
	char buf[1 << 16];

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int i = 0; i < CPU_SETSIZE; i++)
		allowed[i] = CPU_ISSET(i, &set);
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return -1;
	/* the per-CPU lines come first: 64 KiB holds ~700 CPUs' */
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	long hz = sysconf(_SC_CLK_TCK);
	return hmpt_noise_cpustat(buf, allowed, CPU_SETSIZE, hz > 0 ? (double)hz : 100, out);
}

/* The memory bandwidth left to us: the CPU time (ns) per KiB of one read
 * pass over a buffer twice the last-level cache (64 to 512 MiB), so that it
 * comes from memory, one load per cache line.  Why: a co-tenant that
 * streams memory on other CPUs takes no CPU time on ours, and page faults
 * and PSI do not see it either (a steady stream faults nothing and stalls
 * no reclaim), but its bandwidth slows this pass (docs/internals.md has
 * the figures).  CPU time rather than wall: a stall on memory counts, a
 * time slice lost to a process on our CPU does not (that is `others`).
 * 0, or -1 when the buffer cannot be had. */
static int mem_probe(double *ns_per_kib)
{
	static double *buf;
	static size_t len;
	if (!buf) {
		long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
		size_t want = llc > 0 ? 2 * (size_t)llc : 0;
		len = want < (64u << 20) ? 64u << 20 : want > (512u << 20) ? 512u << 20 : want;
		void *p =
		    mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		memset(p, 1, len); /* faulted in once, not in a probe */
		buf = p;
	}
	struct timespec a, b;
	double s = 0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (size_t i = 0; i < len / sizeof(double); i += 64 / sizeof(double))
		s += buf[i];
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	__asm__ volatile("" : : "g"(s)); /* the sum is used: the loads stay */
	*ns_per_kib = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
	              (double)(len >> 10);
	return 0;
}

hmpt_trun_t hmpt_measure_run(hmpt_measure_t *x, char *const *cmd, const char *plan_path,
                             const char *log, double timeout, bool metric)
{
	hmpt_trun_t run = {.status = 126};
	size_t added;
	static sitem_t it;

	memset(&it, 0, sizeof(it));
	measured_set(&it, plan_path, x->min_size);
	if (x->slurm) {
		slurm_item_init(&it, cmd, x->lib, log, timeout);
		if (slurm_batch(x->slurm, &it, 1, NULL, NULL) == 0)
			sitem_to_run(&it, &run);
		else
			run.status = 130;
		run_figure(x, &run, log, metric);
		return run;
	}
	char **set = it.set;
	char **env = hmpt_child_env(x->lib, set, &added);
	if (!env) {
		snprintf(run.why, sizeof(run.why), "out of memory");
		return run;
	}
	hmpt_run_spec_t spec = {
	    .argv = cmd, .env = env, .log = log, .timeout = timeout, .quiet = true};
	hmpt_run_result_t res;
	hmpt_noise_cpu_t before, after;
	double mem_before, mem_after;
	bool mem = !x->no_mem_probe && mem_probe(&mem_before) == 0;
	bool load = load_sample(&before) == 0;
	hmpt_run(&spec, &res);
	load = load && load_sample(&after) == 0 && after.ncpus == before.ncpus;
	mem = mem && mem_probe(&mem_after) == 0;
	hmpt_child_env_free(env, added);
	run.wall = res.wall;
	run.status = res.status;
	run.has_cpu = true;
	run.cpu = res.cpu;
	run.nivcsw = res.nivcsw;
	if (load) {
		/* what the CPUs did less what the program did: the rest of the
		 * machine (ticks against exact times: floored at 0) */
		run.has_load = true;
		run.ncpus = after.ncpus;
		run.others = fmax(0, after.busy - before.busy - res.cpu);
		run.steal = fmax(0, after.steal - before.steal);
	}
	if (mem) {
		/* the run's own: the probes just before and just after it */
		run.has_mem_load = true;
		run.mem_load = (mem_before + mem_after) / 2;
	}
	if (res.status)
		hmpt_run_describe(&res, timeout, run.why, sizeof(run.why));
	run_figure(x, &run, log, metric);
	return run;
}

/* ------------------------------------------------------ configurations */

bool hmpt_measure_has_rep(const hmpt_tconfig_t *c, int rep)
{
	for (int i = 0; i < c->nruns; i++)
		if (c->runs[i].rep == rep && hmpt_tune_run_counts(&c->runs[i]))
			return true;
	return false;
}

/* A run of configuration ci ended: keep it, journal it. */
static void record_run(hmpt_tune_t *t, hmpt_measure_t *x, int ci, int rep, hmpt_trun_t *run,
                       const char *log)
{
	hmpt_tconfig_t *c = &t->configs[ci];

	run->rep = rep;
	x->done++;
	x->spent += run->wall;
	c->runs = realloc(c->runs, (size_t)(c->nruns + 1) * sizeof(hmpt_trun_t));
	c->runs[c->nruns++] = *run;
	hmpt_journal_add_run(x->journal, c, run, log);
}

/* A run's load and steal shares into the history (runs that succeeded and
 * whose load is known). */
static void hist_add(hmpt_measure_t *x, const hmpt_trun_t *r)
{
	if (r->status || !r->has_load)
		return;
	double *h = realloc(x->hist, (size_t)(x->nhist + 1) * 2 * sizeof(double));
	if (!h)
		return;
	x->hist = h;
	h[2 * x->nhist] = hmpt_noise_share(r->others, r->wall, r->ncpus);
	h[2 * x->nhist + 1] = hmpt_noise_share(r->steal, r->wall, r->ncpus);
	x->nhist++;
}

/* Whether other load disturbed run r, against the runs of this tuning
 * before it (the journal's first): "load", "steal" or NULL. */
static const char *disturbed(hmpt_measure_t *x, const hmpt_trun_t *r)
{
	if (!x->hist_read) {
		x->hist_read = true;
		for (size_t i = 0; x->journal && i < x->journal->n; i++)
			hist_add(x, hmpt_journal_run(x->journal, i));
	}
	if (r->status || !r->has_load)
		return NULL;
	int n = x->nhist, w = n < HMPT_NOISE_WINDOW ? n : HMPT_NOISE_WINDOW;
	double load[HMPT_NOISE_WINDOW], steal[HMPT_NOISE_WINDOW];
	for (int i = 0; i < w; i++) {
		load[i] = x->hist[2 * (n - w + i)];
		steal[i] = x->hist[2 * (n - w + i) + 1];
	}
	return hmpt_noise_judge(load, steal, w, hmpt_noise_share(r->others, r->wall, r->ncpus),
	                        hmpt_noise_share(r->steal, r->wall, r->ncpus), NULL);
}

int hmpt_measure_config_run(hmpt_tune_t *t, hmpt_measure_t *x, int ci, int rep)
{
	hmpt_tconfig_t *c = &t->configs[ci];
	char plan_path[PATH_MAX], log[PATH_MAX];

	if (hmpt_config_plan_path(t, c, plan_path, sizeof(plan_path)) != 0)
		return -1;
	for (int tries = 0;; tries++) {
		snprintf(log, sizeof(log), "%s/runs/%s.%d.log", t->opt->dir, c->key, rep + 1);
		hmpt_measure_progress(x, c->label, rep);
		hmpt_trun_t run = hmpt_measure_run(x, t->opt->cmd, plan_path, log, t->timeout_s,
		                                   t->opt->metric != NULL);
		if (interrupted)
			return -1;
		run.has_prev = x->ran;
		run.prev_slow = x->last_slow;
		x->ran = true;
		x->last_slow = c->nfast == 0;
		const char *why = disturbed(x, &run);
		hist_add(x, &run);
		/* bounded: a machine that stays disturbed must not stall the
		 * tuning; then the run is kept and counted as disturbed */
		if (why && tries < t->opt->retakes &&
		    x->retaken < (x->total - x->retaken + 3) / 4) {
			char kept[PATH_MAX];
			snprintf(run.retaken, sizeof(run.retaken), "%s", why);
			snprintf(kept, sizeof(kept), "%s/runs/%s.%d.retaken-%d.log", t->opt->dir,
			         c->key, rep + 1, tries + 1);
			if (rename(log, kept) == 0)
				snprintf(log, sizeof(log), "%s", kept);
			x->retaken++;
			x->total++; /* for the progress line */
			record_run(t, x, ci, rep, &run, log);
			continue;
		}
		if (why)
			snprintf(run.disturbed, sizeof(run.disturbed), "%s", why);
		record_run(t, x, ci, rep, &run, log);
		return 0;
	}
}

typedef struct {
	hmpt_tune_t *t;
	hmpt_measure_t *x;
} batch_ctx_t;

static void batch_done(sitem_t *it, void *ctx)
{
	batch_ctx_t *b = ctx;
	hmpt_trun_t run = {0};

	sitem_to_run(it, &run);
	run_figure(b->x, &run, it->job.log, b->t->opt->metric != NULL);
	record_run(b->t, b->x, it->ci, it->rep, &run, it->job.log);
	hmpt_measure_progress(b->x, b->t->configs[it->ci].label, it->rep);
}

/* --slurm: the runs of `order` (configuration, rep) as batch jobs, up to
 * --parallel at a time; the journal takes each as it ends. */
static int measure_slurm(hmpt_tune_t *t, hmpt_measure_t *x, const int (*order)[2], int n)
{
	sitem_t *items = calloc((size_t)n + 1, sizeof(*items));
	batch_ctx_t b = {t, x};
	int rc = 0;

	for (int k = 0; k < n && rc == 0; k++) {
		sitem_t *it = &items[k];
		char plan_path[PATH_MAX], log[PATH_MAX];
		const hmpt_tconfig_t *c = &t->configs[order[k][0]];
		it->ci = order[k][0];
		it->rep = order[k][1];
		rc = hmpt_config_plan_path(t, c, plan_path, sizeof(plan_path));
		snprintf(log, sizeof(log), "%s/runs/%s.%d.log", t->opt->dir, c->key, it->rep + 1);
		measured_set(it, plan_path, x->min_size);
		slurm_item_init(it, t->opt->cmd, x->lib, log, t->timeout_s);
	}
	if (rc == 0)
		rc = slurm_batch(x->slurm, items, n, batch_done, &b);
	free(items);
	return rc;
}

/* Runs of the reference per round when k configurations are compared with
 * it: every comparison uses its mean, and about sqrt(k) runs of it to one of
 * each of the others give the narrowest intervals for the runs spent
 * (Dunnett's allocation); a slow outlier among its runs also weighs less. */
int hmpt_measure_ref_share(int k)
{
	int m = (int)lround(sqrt(k > 0 ? k : 0));
	return m < 1 ? 1 : m;
}

void hmpt_measure_shuffle(void *items, int n, size_t size, uint64_t seed)
{
	unsigned char *p = items, tmp[size > 0 ? size : 1];
	for (int i = n - 1; i > 0; i--) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		int j = (int)(seed % (uint64_t)(i + 1));
		memcpy(tmp, p + (size_t)i * size, size);
		memcpy(p + (size_t)i * size, p + (size_t)j * size, size);
		memcpy(p + (size_t)j * size, tmp, size);
	}
}

/* Puts round[0..m-1] (configuration, rep) in the tuning's balanced order
 * (order.h) with all-slow `ref`, the same on every resumption; a new
 * all-slow configuration starts a phase's orders afresh. */
static void order_round(hmpt_tune_t *t, int ref, int (*round)[2], int m)
{
	int items[m > 0 ? m : 1];
	for (int i = 0; i < m; i++)
		items[i] = round[i][0];
	if (ref != t->order_ref) {
		hmpt_order_init(&t->order, t->seed + (uint64_t)ref, ref);
		t->order_ref = ref;
	}
	if (hmpt_order_round(&t->order, items, m) != 0) {
		hmpt_measure_shuffle(round, m, sizeof(round[0]), t->seed + (uint64_t)m);
		return;
	}
	/* each configuration's reps in the order they were in */
	int next[m > 0 ? m : 1], placed[m > 0 ? m : 1][2];
	for (int i = 0; i < m; i++)
		next[i] = 0;
	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++)
			if (round[j][0] == items[i] && !next[j]) {
				next[j] = 1;
				placed[i][0] = round[j][0];
				placed[i][1] = round[j][1];
				break;
			}
	memcpy(round, placed, sizeof(placed));
}

/* The runs still to do, in order, into seq: each configuration's missing
 * reps (below hmpt_tune_config_want) one per round, round-robin in the
 * tuning's balanced random order (order_round); the reference's (list[0]) spread evenly over
 * the rounds, `share` per round when nothing ran yet.  Their number. */
static int schedule(hmpt_tune_t *t, const int *list, int n, int (*seq)[2])
{
	int rounds = 1, k = 0;
	const hmpt_tconfig_t *ref = &t->configs[list[0]];
	int want_ref = hmpt_tune_config_want(t, ref), missing_ref = 0;

	for (int i = 1; i < n; i++) {
		const hmpt_tconfig_t *c = &t->configs[list[i]];
		int missing = 0;
		for (int r = 0; r < hmpt_tune_config_want(t, c); r++)
			missing += !hmpt_measure_has_rep(c, r);
		rounds = missing > rounds ? missing : rounds;
	}
	for (int r = 0; r < want_ref; r++)
		missing_ref += !hmpt_measure_has_rep(ref, r);
	for (int r = 0, done_ref = 0; r < rounds; r++) {
		int(*round)[2] = seq + k, m = 0;
		/* the reference's missing runs up to this round's share of them */
		int upto = (int)((long)missing_ref * (r + 1) / rounds);
		for (int rep = 0, seen = 0; rep < want_ref && done_ref < upto; rep++)
			if (!hmpt_measure_has_rep(ref, rep) && seen++ >= done_ref) {
				round[m][0] = list[0];
				round[m++][1] = rep;
				done_ref++;
			}
		for (int i = 1; i < n; i++) {
			const hmpt_tconfig_t *c = &t->configs[list[i]];
			for (int rep = 0, seen = 0; rep < hmpt_tune_config_want(t, c); rep++)
				if (!hmpt_measure_has_rep(c, rep) && seen++ == r) {
					round[m][0] = list[i];
					round[m++][1] = rep;
				}
		}
		order_round(t, list[0], round, m);
		k += m;
	}
	return k;
}

int hmpt_measure_warm_up(hmpt_tune_t *t, hmpt_measure_t *x, int ci)
{
	char plan_path[PATH_MAX], log[PATH_MAX];

	if (x->warm)
		return 0;
	int rc = hmpt_config_plan_path(t, &t->configs[ci], plan_path, sizeof(plan_path));
	snprintf(log, sizeof(log), "%s/runs/warm-up.log", t->opt->dir);
	if (rc == 0 && x->progress)
		fprintf(stderr, "\rhmpt-tune: a warm-up run, not counted\033[K");
	if (rc == 0) {
		hmpt_measure_run(x, t->opt->cmd, plan_path, log, t->timeout_s, false);
		x->ran = true;
		x->last_slow = t->configs[ci].nfast == 0;
	}
	x->warm = true;
	return rc;
}

/* A confirmation round as one Slurm job: a warm-up run of all-slow, not
 * counted, then its runs in the round's order, all on one node. */
typedef struct {
	sitem_t step[HMPT_CONFIRM_MAX + 2]; /* [0] the warm-up */
	hmpt_sjob_t *before[HMPT_CONFIRM_MAX + 1];
	int n; /* steps */
} round_job_t;

typedef struct {
	hmpt_tune_t *t;
	hmpt_measure_t *x;
	round_job_t *rounds;
	sitem_t *jobs;
} rounds_ctx_t;

/* Round job it ended: record its runs in the round's order. */
static void round_done(sitem_t *it, void *ctx)
{
	rounds_ctx_t *b = ctx;
	round_job_t *rj = &b->rounds[it - b->jobs];

	hmpt_slurm_steps_read(&it->job);
	for (int i = 1; i < rj->n; i++) {
		const hmpt_sjob_t *j = i < rj->n - 1 ? rj->before[i] : &it->job;
		const sitem_t *st = &rj->step[i];
		hmpt_trun_t run = {0};
		sjob_to_run(j, &run);
		/* the step before it ran right before it on the node (step 0: the
		 * warm-up, all-slow): the carry-over's regressor */
		run.has_prev = true;
		run.prev_slow = b->t->configs[rj->step[i - 1].ci].nfast == 0;
		run_figure(b->x, &run, j->log, b->t->opt->metric != NULL);
		record_run(b->t, b->x, st->ci, st->rep, &run, j->log);
		hmpt_measure_progress(b->x, b->t->configs[st->ci].label, st->rep);
	}
}

/* The next step of round r's job rj: configuration ci's run as repetition
 * rep (the warm-up: rep -1, its log the round's own, as rounds run at once). */
static int round_step(hmpt_tune_t *t, hmpt_measure_t *x, round_job_t *rj, int ci, int rep, int r)
{
	sitem_t *it = &rj->step[rj->n++];
	char plan_path[PATH_MAX], log[PATH_MAX];
	const hmpt_tconfig_t *c = &t->configs[ci];

	it->ci = ci;
	it->rep = rep;
	if (hmpt_config_plan_path(t, c, plan_path, sizeof(plan_path)) != 0)
		return -1;
	if (rep < 0)
		snprintf(log, sizeof(log), "%s/runs/warm-up.round-%d.log", t->opt->dir, r + 1);
	else
		snprintf(log, sizeof(log), "%s/runs/%s.%d.log", t->opt->dir, c->key, rep + 1);
	measured_set(it, plan_path, x->min_size);
	slurm_item_init(it, t->opt->cmd, x->lib, log, t->timeout_s);
	return 0;
}

/* --slurm: each round one batch job, up to --parallel at a time. */
static int rounds_slurm(hmpt_tune_t *t, hmpt_measure_t *x, const int (*items)[HMPT_CONFIRM_MAX + 1],
                        const int *n, int r0, int nrounds)
{
	round_job_t *rounds = calloc((size_t)nrounds, sizeof(*rounds));
	sitem_t *jobs = calloc((size_t)nrounds, sizeof(*jobs));
	rounds_ctx_t b = {t, x, rounds, jobs};
	int rc = rounds && jobs ? 0 : -1, njobs = 0;

	for (int j = 0; j < nrounds && rc == 0; j++) {
		round_job_t *rj = &rounds[njobs];
		rc = round_step(t, x, rj, t->confirm_ref, -1, r0 + j);
		for (int i = 0; i < n[j] && rc == 0; i++)
			if (!hmpt_measure_has_rep(&t->configs[items[j][i]], r0 + j))
				rc = round_step(t, x, rj, items[j][i], r0 + j, r0 + j);
		if (rj->n < 2) { /* all recorded already */
			memset(rj, 0, sizeof(*rj));
			continue;
		}
		for (int i = 0; i < rj->n - 1; i++)
			rj->before[i] = &rj->step[i].job;
		/* the job is its last run, the others run before it */
		jobs[njobs] = rj->step[rj->n - 1];
		jobs[njobs].job.before = rj->before;
		jobs[njobs].job.nbefore = rj->n - 1;
		njobs++;
	}
	if (rc == 0)
		rc = slurm_batch(x->slurm, jobs, njobs, round_done, &b);
	free(rounds);
	free(jobs);
	return rc;
}

int hmpt_measure_rounds(hmpt_tune_t *t, hmpt_measure_t *x, const int (*items)[HMPT_CONFIRM_MAX + 1],
                        const int *n, int r0, int nrounds)
{
	int rc = 0;
	if (x->slurm)
		return rounds_slurm(t, x, items, n, r0, nrounds);
	for (int j = 0; j < nrounds && rc == 0; j++)
		rc = hmpt_measure_round(t, x, items[j], n[j], r0 + j);
	return rc;
}

int hmpt_measure_round(hmpt_tune_t *t, hmpt_measure_t *x, const int *items, int n, int r)
{
	int rc = 0;
	if (x->slurm) {
		int one[1][HMPT_CONFIRM_MAX + 1];
		memcpy(one[0], items, (size_t)n * sizeof(int));
		return rounds_slurm(t, x, (const int(*)[HMPT_CONFIRM_MAX + 1]) one, &n, r, 1);
	}
	for (int i = 0; i < n && rc == 0; i++) {
		if (hmpt_measure_has_rep(&t->configs[items[i]], r))
			continue;
		rc = hmpt_measure_warm_up(t, x, t->confirm_ref);
		if (rc == 0)
			rc = hmpt_measure_config_run(t, x, items[i], r);
	}
	return rc;
}

/* Runs here start with one of the reference that is not counted: the first
 * run after a pause meets cold caches and files. */
int hmpt_measure_configs(hmpt_tune_t *t, hmpt_measure_t *x, const int *list, int n)
{
	hmpt_tconfig_t *ref = &t->configs[list[0]];
	int share = hmpt_measure_ref_share(n - 1), rc = 0;

	if (ref->share > share)
		share = ref->share;
	ref->share = share;
	size_t cap = (size_t)hmpt_tune_config_want(t, ref) + 1;
	for (int i = 1; i < n; i++)
		cap += (size_t)hmpt_tune_config_want(t, &t->configs[list[i]]);
	int(*seq)[2] = calloc(cap, sizeof(*seq));
	if (!seq)
		return -1;
	int k = schedule(t, list, n, seq);
	x->done = 0;
	x->spent = 0;
	x->total = k;
	x->retaken = 0;
	if (x->slurm) {
		rc = measure_slurm(t, x, (const int(*)[2])seq, k);
	} else if (k) {
		rc = hmpt_measure_warm_up(t, x, list[0]);
		for (int i = 0; i < k && rc == 0 && !interrupted; i++)
			rc = hmpt_measure_config_run(t, x, seq[i][0], seq[i][1]);
		rc = interrupted ? -1 : rc;
	}
	free(seq);
	if (x->progress && x->total)
		fprintf(stderr, "\r\033[K");
	return rc;
}
