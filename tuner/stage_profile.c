/* stage_profile.c — the profile stage: run the program under the shim
 * once, then its sites (the largest first) and the runs' timeout. */
#include "stages.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiles.h"
#include "profrun.h"
#include "report.h"
#include "runner.h"

/* ------------------------------------------------------------- profile */

/* The profile run: DIR/profile/profile.json and sites.tsv, journaled. */
static int profile_run(hmpt_tune_t *t, hmpt_measure_t *x, const char *sample, const char *pdir,
                       const char *absdir)
{
	char pattern[PATH_MAX + 32], log[PATH_MAX], sv[64], mv[64];
	char *set[5] = {pattern, NULL, NULL, NULL, NULL}, **sp = set + 1;

	snprintf(pattern, sizeof(pattern), "HMPT_PROFILE=%s/profile.%%p.json", absdir);
	snprintf(sv, sizeof(sv), "HMPT_SAMPLE=%s", sample);
	*sp++ = sv;
	if (x->min_size && snprintf(mv, sizeof(mv), "HMPT_MIN_SIZE=%s", x->min_size))
		*sp++ = mv;
	size_t added;
	char **env = hmpt_child_env(x->lib, set, &added);
	hmpt_profiles_clear(absdir);
	snprintf(log, sizeof(log), "%s/runs/profile.log", t->opt->dir);
	if (!x->quiet)
		fprintf(stderr, "hmpt-tune: profiling %s (output in %s)\n", t->opt->program, log);
	hmpt_run_spec_t spec = {.argv = t->opt->cmd, .env = env, .log = log, .quiet = true};
	hmpt_run_result_t res = {0};
	if (x->slurm) { /* on a node, as the measured runs will be */
		hmpt_sjob_t job;
		if (hmpt_measure_slurm_job(x, t->opt->cmd, set, log, 0, &job) == 0 && job.status) {
			fprintf(stderr, "hmpt-tune: the profile run on %s %s\n",
			        *job.host ? job.host : "Slurm", job.why);
			return -1;
		}
		res.wall = job.wall;
	} else {
		hmpt_run(&spec, &res);
	}
	hmpt_child_env_free(env, added);
	if (hmpt_measure_interrupted())
		return -1;
	if (res.status) {
		char why[160];
		hmpt_run_describe(&res, 0, why, sizeof(why));
		fprintf(stderr,
		        "hmpt-tune: %s %s in the profile run, before any placement "
		        "change: fix that first (its output is in %s)\n",
		        t->opt->program, why, log);
		return -1;
	}
	double figure;
	if (t->opt->metric && hmpt_measure_metric_read(x, log, &figure) != 0) {
		fprintf(stderr,
		        "hmpt-tune: --metric '%s': no figure in the output of %s (see %s): "
		        "give a regular expression that matches the line with the figure\n",
		        t->opt->metric, t->opt->program, log);
		return -1;
	}
	if (t->timeout_s == 0)
		t->timeout_s = 30 + 5 * res.wall;
	int none;
	json_t *merged = hmpt_profiles_collect(absdir, (long)res.pid, &none);
	if (!merged) {
		if (none)
			fprintf(stderr,
			        "hmpt-tune: %s made no allocation of at least %s bytes: "
			        "nothing to place (--min-size lowers the threshold)\n",
			        t->opt->program, x->min_size ? x->min_size : "1M");
		return -1;
	}
	if (hmpt_profiles_write(pdir, merged, t->sym) != 0) {
		json_decref(merged);
		return -1;
	}
	json_decref(merged);
	hmpt_journal_add_profile(x->journal, res.wall);
	return 0;
}

static int cmp_bytes_desc(const void *a, const void *b)
{
	const hmpt_tsite_t *x = a, *y = b;
	return (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

/* t->profile from DIR/profile/profile.json, and its sites. */
static int load_sites(hmpt_tune_t *t, hmpt_measure_t *x, const char *pdir)
{
	char path[PATH_MAX + 16], err[1024];
	snprintf(path, sizeof(path), "%s/profile.json", pdir);
	t->profile = hmpt_prof_load(path, err, sizeof(err));
	if (!t->profile) {
		fprintf(stderr, "hmpt-tune: %s (--restart profiles again)\n", err);
		return -1;
	}
	if (t->timeout_s == 0) /* resumed: the journal has the profile run's time */
		t->timeout_s = 30 + 5 * x->journal->profile_wall;
	hmpt_prof_sort_sites(t->profile);
	const json_t *sites = json_object_get(t->profile, "sites"), *s;
	const json_t *sampling = json_object_get(t->profile, "sampling");
	hmpt_report_source_t src;
	hmpt_report_source(sampling, &src);
	t->access_kind = src.kind;
	t->access_density = src.density;
	t->access_time = src.time;
	snprintf(t->access_source, sizeof(t->access_source), "%s", src.source);
	size_t i;
	t->nsites = (int)json_array_size(sites);
	t->sites = calloc((size_t)t->nsites + 1, sizeof(*t->sites));
	json_array_foreach(sites, i, s)
	{
		hmpt_tsite_t *ts = &t->sites[i];
		const json_t *smp = json_object_get(s, "samples");
		ts->json = s;
		ts->id = hmpt_prof_str(s, "id");
		ts->bytes = hmpt_prof_u64(s, "peak_live_bytes");
		ts->access = smp && json_is_number(json_object_get(smp, "share"))
		                 ? json_number_value(json_object_get(smp, "share"))
		                 : -1;
		ts->group = -1;
		hmpt_site_loc_t loc;
		hmpt_report_locate(t->sym, t->profile, s, &loc);
		snprintf(ts->label, sizeof(ts->label), "%.70s (%.45s%s%.36s)", loc.function,
		         loc.location, *loc.detail ? ", " : "", loc.detail);
		t->total_bytes += ts->bytes;
	}
	qsort(t->sites, (size_t)t->nsites, sizeof(*t->sites), cmp_bytes_desc);
	if (!t->nsites) {
		fprintf(stderr, "hmpt-tune: the profile has no sites: nothing to place\n");
		return -1;
	}
	return 0;
}

int hmpt_stage_profile(hmpt_tune_t *t, hmpt_measure_t *x)
{
	char pdir[PATH_MAX], absdir[PATH_MAX];

	snprintf(pdir, sizeof(pdir), "%s/profile", t->opt->dir);
	if (hmpt_mkdir_p(pdir) != 0 || !realpath(pdir, absdir)) {
		fprintf(stderr, "hmpt-tune: cannot create %s: %s\n", pdir, strerror(errno));
		return -1;
	}
	if (!x->journal->profiled && profile_run(t, x, t->opt->sample, pdir, absdir) != 0)
		return -1;
	return load_sites(t, x, pdir);
}
