/* test_sys.c — hmpt_sys_newfile_* (common/sys.c), the way every file hmpt
 * writes is made: a new file, a regular file replaced, the refusals (a
 * link, a device, a directory), a temporary never left behind, and paths
 * without a directory or at the root.  Another user's files are
 * t_safe_files' (it needs root and a second user). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#include "sys.h"

static char dir_g[64];

static char *at(const char *name)
{
	static char buf[4][256];
	static int i;
	char *p = buf[i++ % 4];
	snprintf(p, 256, "%s/%s", dir_g, name);
	return p;
}

/* make path through the helper with text; returns its rc */
static int make(const char *path, const char *text, const char **why)
{
	hmpt_sys_newfile_t nf;
	int fd = hmpt_sys_newfile_open(&nf, path, 0600);
	*why = nf.why;
	if (fd < 0)
		return fd;
	CHECK_OP(write(fd, text, strlen(text)), ==, (ssize_t)strlen(text));
	close(fd);
	nf.fd = -1;
	int rc = hmpt_sys_newfile_commit(&nf);
	*why = nf.why;
	return rc;
}

static void read_back(const char *path, const char *want)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		CHECK(fgets(buf, sizeof(buf), f) != NULL || !*want);
		fclose(f);
	}
	CHECK_STREQ(buf, want);
}

/* nothing in the directory but the names listed (no temporary left) */
static int entries(void)
{
	char cmd[128], out[16] = "";
	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir_g);
	FILE *p = popen(cmd, "r");
	if (!p || !fgets(out, sizeof(out), p))
		out[0] = '\0';
	if (p)
		pclose(p);
	return atoi(out);
}

int main(void)
{
	const char *why;
	struct stat st;

	snprintf(dir_g, sizeof(dir_g), "/tmp/test_sys.XXXXXX");
	if (!mkdtemp(dir_g))
		return 1;

	/* a new file, then the same name replaced (a regular file of ours) */
	CHECK_OP(make(at("a.json"), "one\n", &why), ==, 0);
	read_back(at("a.json"), "one\n");
	CHECK_OP(make(at("a.json"), "two\n", &why), ==, 0);
	read_back(at("a.json"), "two\n");
	CHECK(stat(at("a.json"), &st) == 0 && (st.st_mode & 0777) == 0600);
	CHECK_OP(entries(), ==, 1);

	/* a link at the name: refused, neither followed nor replaced */
	CHECK(symlink(at("a.json"), at("link")) == 0);
	CHECK_OP(make(at("link"), "three\n", &why), ==, -ELOOP);
	CHECK(why && strstr(why, "symbolic link"));
	CHECK(lstat(at("link"), &st) == 0 && S_ISLNK(st.st_mode));
	read_back(at("a.json"), "two\n");

	/* a link made between open and commit: still refused at commit */
	hmpt_sys_newfile_t nf;
	int fd = hmpt_sys_newfile_open(&nf, at("late"), 0600);
	CHECK(fd >= 0);
	CHECK(symlink(at("a.json"), at("late")) == 0);
	CHECK_OP(hmpt_sys_newfile_commit(&nf), ==, -ELOOP);
	close(fd);
	read_back(at("a.json"), "two\n");

	/* a FIFO, a directory, a path ending in '/' */
	CHECK(mkfifo(at("fifo"), 0600) == 0);
	CHECK_OP(make(at("fifo"), "x", &why), ==, -EEXIST);
	CHECK(mkdir(at("sub"), 0700) == 0);
	CHECK_OP(make(at("sub"), "x", &why), ==, -EEXIST);
	CHECK_OP(make(at("sub/"), "x", &why), ==, -EISDIR);
	CHECK_OP(make(at("none/x"), "x", &why), ==, -ENOENT);

	/* a directory reached through our own link is followed */
	CHECK(symlink(at("sub"), at("sublink")) == 0);
	CHECK_OP(make(at("sublink/b"), "four\n", &why), ==, 0);
	read_back(at("sub/b"), "four\n");

	/* abort: the temporary is gone, the name untouched */
	int before = entries();
	fd = hmpt_sys_newfile_open(&nf, at("a.json"), 0600);
	CHECK(fd >= 0);
	CHECK_OP(entries(), ==, before + 1);
	hmpt_sys_newfile_abort(&nf);
	CHECK_OP(entries(), ==, before);
	read_back(at("a.json"), "two\n");

	/* a name without a directory: the current one */
	char cwd[256];
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK(chdir(dir_g) == 0);
	CHECK_OP(make("plain", "five\n", &why), ==, 0);
	read_back(at("plain"), "five\n");
	CHECK(chdir(cwd) == 0);

	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir_g);
	CHECK(system(cmd) == 0);
	if (failures)
		fprintf(stderr, "test_sys: %d failure(s)\n", failures);
	return failures != 0;
}
