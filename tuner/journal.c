/* journal.c — DIR/journal.jsonl: written as runs end, read back to resume. */
#include "journal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "order.h"
#include "runrec.h"
#include "outfile.h"

struct hmpt_journal_rec {
	char key[17];
	hmpt_trun_t run;
};

/* The program's file as found on PATH: size and modification time, so that
 * a rebuilt program is not resumed as if it were the one measured before. */
static json_t *program_identity(const char *prog)
{
	char path[PATH_MAX];
	struct stat st;
	const char *dirs = strchr(prog, '/') ? "" : getenv("PATH");

	snprintf(path, sizeof(path), "%s", prog);
	for (const char *d = dirs; d && *d;) {
		size_t n = strcspn(d, ":");
		snprintf(path, sizeof(path), "%.*s/%s", (int)n, n ? d : ".", prog);
		if (access(path, X_OK) == 0)
			break;
		d += n + (d[n] == ':');
	}
	if (stat(path, &st) != 0)
		return json_null();
	return json_pack("{s:I,s:I,s:I}", "size", (json_int_t)st.st_size, "mtime_s",
	                 (json_int_t)st.st_mtim.tv_sec, "mtime_ns", (json_int_t)st.st_mtim.tv_nsec);
}

/* What makes two tunings the same: the command and its program file, the
 * pools, the way it is measured and the sizes tracked.  Reps, output and
 * reporting options may change between a run and its resumption. */
json_t *hmpt_journal_key(const hmpt_tune_t *t, const char *min_size, const char *user_groups)
{
	json_t *cmd = json_array();
	for (char *const *a = t->opt->cmd; *a; a++)
		json_array_append_new(cmd, json_string(*a));
	return json_pack("{s:o,s:o,s:O,s:O,s:s?,s:b,s:s?,s:s?,s:i,s:i}", "command", cmd, "program",
	                 program_identity(t->opt->program), "fast", t->opt->fast_pool, "slow",
	                 t->opt->slow_pool, "metric", t->opt->metric, "higher", t->opt->maximize,
	                 "min_size", min_size, "groups", user_groups, "max_groups",
	                 t->opt->ngroups_max, "candidates", t->opt->candidates);
}

int hmpt_journal_open(hmpt_journal_t *j, const char *dir, json_t *key, bool restart)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/journal.jsonl", dir);
	FILE *old = restart ? NULL : fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;

	if (old) {
		while (getline(&line, &cap, old) > 0) {
			hmpt_runrec_t r;
			hmpt_runrec_journal_line(line, &r);
			lineno++;
			if (r.kind == HMPT_RUNREC_BAD)
				continue;
			if (lineno == 1) {
				if (r.seed && j->seed && r.seed != j->seed)
					fprintf(
					    stderr,
					    "hmpt-tune: resuming %s with its journal's order seed "
					    "%#llx, not --seed %#llx\n",
					    path, (unsigned long long)r.seed,
					    (unsigned long long)j->seed);
				j->seed = r.seed ? r.seed : j->seed;
				if (!json_equal(r.key, key)) {
					json_t *same = json_deep_copy(r.key);
					json_object_set(same, "program",
					                json_object_get(key, "program"));
					fprintf(
					    stderr,
					    "hmpt-tune: %s is the journal of another tuning "
					    "(%s): give another --output, or --restart to "
					    "discard it\n",
					    path,
					    json_equal(same, key)
					        ? "the program's file changed since: rebuilt?"
					        : "different command, pools, metric or grouping");
					json_decref(same);
					json_decref(r.key);
					free(line);
					fclose(old);
					return -1;
				}
			} else if (r.kind == HMPT_RUNREC_PROFILE) {
				j->profiled = true;
				j->profile_wall = r.wall;
			} else if (r.kind == HMPT_RUNREC_RUN) {
				if (j->n == j->cap) {
					j->cap = j->cap ? 2 * j->cap : 256;
					j->recs = realloc(j->recs, j->cap * sizeof(*j->recs));
				}
				hmpt_journal_rec_t *rec = &j->recs[j->n++];
				memcpy(rec->key, r.config, sizeof(rec->key));
				rec->run = r.run;
			}
			json_decref(r.key);
		}
		free(line);
		fclose(old);
	}
	if (!j->seed)
		j->seed = hmpt_order_seed_draw();
	j->f = hmpt_outfile_now(path, lineno > 0);
	if (!j->f)
		return -1; /* said */
	if (!lineno) {
		char seed[17];
		snprintf(seed, sizeof(seed), "%016llx", (unsigned long long)j->seed);
		json_t *head = json_pack("{s:s,s:i,s:O,s:s}", "journal", "hmpt-tune", "version", 1,
		                         "key", key, "seed", seed);
		json_dumpf(head, j->f, JSON_COMPACT);
		fputc('\n', j->f);
		fflush(j->f);
		json_decref(head);
	} else if (j->n) {
		fprintf(stderr, "hmpt-tune: resuming from %s: %zu run%s done\n", path, j->n,
		        j->n == 1 ? "" : "s");
	}
	return 0;
}

/* one line per event, flushed and synced: a kill loses at most the run in
 * progress */
static void append(hmpt_journal_t *j, json_t *rec)
{
	json_dumpf(rec, j->f, JSON_COMPACT);
	fputc('\n', j->f);
	fflush(j->f);
	fsync(fileno(j->f));
	json_decref(rec);
}

void hmpt_journal_add_profile(hmpt_journal_t *j, double wall)
{
	append(j, json_pack("{s:s,s:f}", "profile", "done", "wall", wall));
}

void hmpt_journal_add_run(hmpt_journal_t *j, const hmpt_tconfig_t *c, const hmpt_trun_t *run,
                          const char *log)
{
	json_t *rec = json_pack("{s:s,s:s,s:i,s:i,s:f,s:f,s:s,s:s}", "config", c->key, "label",
	                        c->label, "rep", run->rep, "status", run->status, "wall", run->wall,
	                        "value", run->value, "why", run->why, "log", log);
	if (*run->host)
		json_object_set_new(rec, "host", json_string(run->host));
	if (run->has_cpu) {
		json_object_set_new(rec, "cpu_s", json_real(run->cpu));
		json_object_set_new(rec, "nivcsw", json_integer(run->nivcsw));
	}
	if (run->has_load) {
		json_object_set_new(rec, "others_s", json_real(run->others));
		json_object_set_new(rec, "steal_s", json_real(run->steal));
		json_object_set_new(rec, "ncpus", json_integer(run->ncpus));
	}
	if (run->has_prev)
		json_object_set_new(rec, "after_slow", json_boolean(run->prev_slow));
	if (run->has_mem_load)
		json_object_set_new(rec, "mem_load", json_real(run->mem_load));
	/* a resumed tuning replays the same runs: a superseded one stays
	 * superseded */
	if (*run->retaken)
		json_object_set_new(rec, "retaken", json_string(run->retaken));
	if (*run->disturbed)
		json_object_set_new(rec, "disturbed", json_string(run->disturbed));
	append(j, rec);
}

void hmpt_journal_runs(const hmpt_journal_t *j, const char *key, hmpt_trun_t **runs, int *nruns)
{
	for (size_t r = 0; r < j->n; r++)
		if (!strcmp(j->recs[r].key, key)) {
			*runs = realloc(*runs, (size_t)(*nruns + 1) * sizeof(hmpt_trun_t));
			(*runs)[(*nruns)++] = j->recs[r].run;
		}
}

const hmpt_trun_t *hmpt_journal_run(const hmpt_journal_t *j, size_t i)
{
	return i < j->n ? &j->recs[i].run : NULL;
}

void hmpt_journal_close(hmpt_journal_t *j)
{
	free(j->recs);
	if (j->f)
		fclose(j->f);
	memset(j, 0, sizeof(*j));
}
