/* outfile.c — see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void say(const char *path, const char *why, int err)
{
	fprintf(stderr, "%s: %s: not written: %s\n", program_invocation_short_name, path,
	        why ? why : strerror(err));
}

FILE *hmpt_outfile_open(hmpt_outfile_t *o, const char *path)
{
	int fd = hmpt_sys_newfile_open(&o->nf, path, 0644);

	snprintf(o->path, sizeof(o->path), "%s", path);
	o->f = NULL;
	if (fd < 0) {
		say(path, o->nf.why, -fd);
		return NULL;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		say(path, NULL, errno);
		hmpt_sys_newfile_abort(&o->nf);
	}
	return o->f;
}

int hmpt_outfile_close(hmpt_outfile_t *o)
{
	int bad = ferror(o->f);
	int rc = fclose(o->f) != 0 ? -errno : bad ? -EIO : 0;

	o->f = NULL;
	o->nf.fd = -1;
	if (rc) {
		hmpt_sys_newfile_abort(&o->nf);
		say(o->path, NULL, -rc);
		return -1;
	}
	rc = hmpt_sys_newfile_commit(&o->nf);
	if (rc) {
		say(o->path, o->nf.why, -rc);
		return -1;
	}
	return 0;
}

void hmpt_outfile_discard(hmpt_outfile_t *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	o->nf.fd = -1;
	hmpt_sys_newfile_abort(&o->nf);
}

FILE *hmpt_outfile_now(const char *path, int append)
{
	hmpt_outfile_t o;
	struct stat st;
	FILE *f;

	if (!append) {
		if (!hmpt_outfile_open(&o, path))
			return NULL;
		int rc = hmpt_sys_newfile_commit(&o.nf);
		if (rc) {
			say(path, o.nf.why, -rc);
			fclose(o.f);
			return NULL;
		}
		return o.f;
	}
	int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		say(path,
		    errno == ELOOP ? "it is a symbolic link, which hmpt does not follow" : NULL,
		    errno);
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		say(path, "not a regular file of this user's", 0);
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "a");
	if (!f) {
		say(path, NULL, errno);
		close(fd);
	}
	return f;
}
