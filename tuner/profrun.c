/* profrun.c — the library, environment and profile files of a run under
 * the shim, shared by `hmpt-tune profile` and the tuner. */
#include "profrun.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profiles.h"
#include "report.h"
#include "runner.h"
#include "outfile.h"

extern char **environ;

static int find_lib(char *out, size_t cap)
{
	static const char *const rel[] = {"libhmpt.so", "../lib/libhmpt.so",
	                                  "../lib/hmpt/libhmpt.so",
	                                  "../lib/x86_64-linux-gnu/libhmpt.so"};
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return -errno;
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char cand[PATH_MAX + 64];
		snprintf(cand, sizeof(cand), "%s/%s", self, rel[i]);
		if (access(cand, R_OK) == 0 && realpath(cand, out) && strlen(out) < cap)
			return 0;
	}
	return -ENOENT;
}

int hmpt_mkdir_p(const char *dir)
{
	char buf[PATH_MAX];

	if (strlen(dir) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0777) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int is_profile_file(const char *name)
{
	size_t n = strlen(name);
	return strncmp(name, "profile.", 8) == 0 && n > 13 && strcmp(name + n - 5, ".json") == 0 &&
	       strcmp(name, "profile.json") != 0 && !strstr(name, ".tmp.");
}

/* Why a file in the output directory is not this run's, or NULL: another
 * user's (a link too) in a sticky, shared directory, which the kernel keeps
 * others from removing; with `regular`, also anything but a regular file. */
static const char *foreign(int dfd, const char *name, bool regular)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return strerror(errno);
	if (hmpt_sys_others_in_sticky(dfd, st.st_uid))
		return "another user's file in a shared directory";
	return regular && !S_ISREG(st.st_mode) ? "not a regular file" : NULL;
}

void hmpt_profiles_clear(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	/* another user's file is left for the writer to refuse */
	while ((e = readdir(d)))
		if ((is_profile_file(e->d_name) || strcmp(e->d_name, "profile.json") == 0 ||
		     strcmp(e->d_name, "sites.tsv") == 0) &&
		    !foreign(dirfd(d), e->d_name, false))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

char **hmpt_child_env(const char *lib, char *const *set, size_t *added)
{
	size_t n = 0, nset = 0, k = 0;
	const char *old_preload = getenv("LD_PRELOAD");

	while (environ[n])
		n++;
	while (set[nset])
		nset++;
	char **env = calloc(n + nset + 2, sizeof(char *));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int replaced = !strncmp(environ[i], "LD_PRELOAD=", 11);
		for (size_t j = 0; j < nset && !replaced; j++) {
			size_t len = strcspn(set[j], "=");
			replaced = !strncmp(environ[i], set[j], len) && environ[i][len] == '=';
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	*added = k;
	if (asprintf(&env[k++], "LD_PRELOAD=%s%s%s", lib, old_preload && *old_preload ? " " : "",
	             old_preload ? old_preload : "") < 0) {
		free(env);
		return NULL;
	}
	for (size_t j = 0; j < nset; j++)
		if (strchr(set[j], '=') && !(env[k++] = strdup(set[j]))) {
			hmpt_child_env_free(env, *added);
			return NULL;
		}
	return env;
}

void hmpt_child_env_free(char **env, size_t added)
{
	for (size_t i = added; env && env[i]; i++)
		free(env[i]);
	free(env);
}

int hmpt_lib_resolve(const char *opt, char *out, size_t cap)
{
	if (opt) {
		if (!realpath(opt, out) || strlen(out) >= cap) {
			fprintf(stderr, "hmpt-tune: --lib %s: %s\n", opt, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (find_lib(out, cap) != 0) {
		fprintf(stderr, "hmpt-tune: cannot find libhmpt.so next to hmpt-tune or in "
		                "../lib; give it with --lib PATH\n");
		return -1;
	}
	return 0;
}

/* Load and merge DIR's per-process profiles; NULL with a message if bad,
 * NULL and *none set if there were none. */
json_t *hmpt_profiles_collect(const char *dir, long main_pid, int *none)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	json_t **profs = NULL;
	char **files = NULL;
	size_t n = 0;
	json_t *merged = NULL;
	int bad = 0;

	*none = 0;
	if (!d) {
		fprintf(stderr, "hmpt-tune: %s: %s\n", dir, strerror(errno));
		return NULL;
	}
	while ((e = readdir(d))) {
		char path[PATH_MAX + 256], err[1024];
		if (!is_profile_file(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		const char *why = foreign(dirfd(d), e->d_name, true);
		if (why) {
			fprintf(stderr, "hmpt-tune: %s: not merged: %s\n", path, why);
			continue;
		}
		json_t *p = hmpt_prof_load(path, err, sizeof(err));
		if (!p) {
			fprintf(stderr, "hmpt-tune: %s\n", err);
			bad = 1;
			continue;
		}
		profs = realloc(profs, (n + 1) * sizeof(*profs));
		files = realloc(files, (n + 1) * sizeof(*files));
		profs[n] = p;
		files[n] = strdup(e->d_name);
		n++;
	}
	closedir(d);
	if (n)
		merged = hmpt_prof_merge(profs, (const char *const *)files, n, main_pid);
	else
		*none = !bad;
	for (size_t i = 0; i < n; i++) {
		json_decref(profs[i]);
		free(files[i]);
	}
	free(profs);
	free(files);
	return merged;
}

int hmpt_profiles_write(const char *dir, json_t *merged, hmpt_sym_t *sym)
{
	char path[PATH_MAX];
	int rc;

	snprintf(path, sizeof(path), "%s/profile.json", dir);
	rc = hmpt_prof_write(merged, path);
	if (rc)
		return -EIO;
	snprintf(path, sizeof(path), "%s/sites.tsv", dir);
	hmpt_outfile_t out;
	if (!hmpt_outfile_open(&out, path))
		return -EIO;
	hmpt_report_tsv(out.f, merged, sym); /* a write error: the close says it */
	return hmpt_outfile_close(&out) ? -EIO : 0;
}

json_t *hmpt_profrun(const hmpt_profrun_t *r, hmpt_sym_t *sym, hmpt_run_result_t *res, int *none)
{
	char absdir[PATH_MAX], pv[PATH_MAX + 48], mv[64], dv[64], sv[64];
	char *set[5] = {NULL}, **sp = set;
	int rc = hmpt_mkdir_p(r->dir);

	*none = 0;
	*res = (hmpt_run_result_t){.status = 2}; /* a bad -o is the user's, as a usage error is */
	if (rc || !realpath(r->dir, absdir)) {
		fprintf(stderr, "hmpt-tune: cannot create %s: %s\n", r->dir,
		        strerror(rc ? -rc : errno));
		return NULL;
	}
	res->status = 126;
	hmpt_profiles_clear(absdir);
	/* every process its own file: fork children and exec'd programs too */
	snprintf(pv, sizeof(pv), "HMPT_PROFILE=%s/profile.%%p.json", absdir);
	*sp++ = pv;
	if (r->min_size && snprintf(mv, sizeof(mv), "HMPT_MIN_SIZE=%s", r->min_size))
		*sp++ = mv;
	if (r->depth && snprintf(dv, sizeof(dv), "HMPT_STACK_DEPTH=%s", r->depth))
		*sp++ = dv;
	if (r->sample && snprintf(sv, sizeof(sv), "HMPT_SAMPLE=%s", r->sample))
		*sp++ = sv;
	size_t added = 0;
	char **env = hmpt_child_env(r->lib, set, &added);
	if (!env) {
		fprintf(stderr, "hmpt-tune: out of memory\n");
		return NULL;
	}
	hmpt_run_spec_t spec = {.argv = r->argv, .env = env, .log = r->log, .quiet = r->quiet};
	hmpt_run(&spec, res);
	hmpt_child_env_free(env, added);

	json_t *merged = hmpt_profiles_collect(absdir, (long)res->pid, none);
	if (merged && hmpt_profiles_write(r->dir, merged, sym) != 0) {
		json_decref(merged);
		return NULL;
	}
	return merged;
}
