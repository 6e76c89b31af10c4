/* runner.c — fork, exec, wait with a timeout, and say how it ended. */
#include "runner.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile sig_atomic_t current_group;

void hmpt_run_kill_current(void)
{
	pid_t g = (pid_t)current_group;
	if (g > 0)
		kill(-g, SIGKILL);
}

double hmpt_run_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void child(const hmpt_run_spec_t *spec, int err_fd, const struct sigaction *old_int,
                  const struct sigaction *old_quit)
{
	sigaction(SIGINT, old_int, NULL);
	sigaction(SIGQUIT, old_quit, NULL);
	if (spec->log) {
		/* the log made as every output is (sys.h): no link followed */
		hmpt_sys_newfile_t nf;
		int in = open("/dev/null", O_RDONLY);
		int out = hmpt_sys_newfile_open(&nf, spec->log, 0644);
		int rc = out < 0 ? out : hmpt_sys_newfile_commit(&nf);
		if (rc) {
			errno = -rc;
			goto fail;
		}
		if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
			goto fail;
		close(in);
		close(out);
		setpgid(0, 0);
		/* an interrupted tuner must not leave a measurement running */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	}
	environ = spec->env;
	execvp(spec->argv[0], spec->argv);
fail:;
	int e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0) {
		/* nothing more to say */
	}
	_exit(e == ENOENT ? 127 : 126);
}

/* wait for pid, at most `timeout` seconds (0: forever); 1 if it timed out.
 * wait4: its rusage counts the descendants it waited for, the program's
 * whole process tree when it waits for its own children. */
static int wait_for(pid_t pid, double timeout, int *status, struct rusage *ru)
{
	if (timeout > 0) {
		int fd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (fd >= 0) {
			struct pollfd p = {.fd = fd, .events = POLLIN};
			double end = hmpt_run_now() + timeout;
			int r;
			do {
				double left = end - hmpt_run_now();
				r = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;
			} while (r < 0 && errno == EINTR);
			close(fd);
			if (r == 0 && wait4(pid, status, WNOHANG, ru) == 0) {
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				while (wait4(pid, status, 0, ru) < 0 && errno == EINTR)
					;
				return 1;
			}
		}
	}
	while (wait4(pid, status, 0, ru) < 0 && errno == EINTR)
		;
	return 0;
}

int hmpt_run(const hmpt_run_spec_t *spec, hmpt_run_result_t *res)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
	int status = 0, err_pipe[2];

	memset(res, 0, sizeof(*res));
	if (pipe2(err_pipe, O_CLOEXEC) != 0) {
		res->exec_errno = errno;
		fprintf(stderr, "hmpt-tune: pipe: %s\n", strerror(errno));
		return res->status = 126;
	}
	if (!spec->log) {
		sigaction(SIGINT, &ign, &old_int);
		sigaction(SIGQUIT, &ign, &old_quit);
	} else {
		sigaction(SIGINT, NULL, &old_int);
		sigaction(SIGQUIT, NULL, &old_quit);
	}
	fflush(NULL);
	double t0 = hmpt_run_now();
	pid_t pid = fork();
	if (pid == 0)
		child(spec, err_pipe[1], &old_int, &old_quit);
	res->pid = pid;
	close(err_pipe[1]);
	if (pid < 0) {
		res->exec_errno = errno;
		fprintf(stderr, "hmpt-tune: fork: %s\n", strerror(errno));
		close(err_pipe[0]);
		return res->status = 126;
	}
	if (spec->log) {
		setpgid(pid, pid); /* both sides, so that no kill can miss it */
		current_group = pid;
	}
	if (read(err_pipe[0], &res->exec_errno, sizeof(int)) != sizeof(int))
		res->exec_errno = 0;
	close(err_pipe[0]);
	struct rusage ru = {0};
	res->timed_out = wait_for(pid, spec->timeout, &status, &ru);
	res->wall = hmpt_run_now() - t0;
	res->cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
	res->nivcsw = ru.ru_nivcsw;
	current_group = 0;
	if (!spec->log) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
	}
	if (res->exec_errno)
		res->status = res->exec_errno == ENOENT ? 127 : 126;
	else if (res->timed_out)
		res->status = 124;
	else if (WIFSIGNALED(status))
		res->status = 128 + (res->signal = WTERMSIG(status));
	else
		res->status = res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 126;
	if (!spec->quiet && res->status) {
		char why[256];
		hmpt_run_describe(res, spec->timeout, why, sizeof(why));
		fprintf(stderr, "hmpt-tune: %s %s\n", spec->argv[0], why);
	}
	return res->status;
}

void hmpt_run_describe(const hmpt_run_result_t *res, double timeout, char *buf, size_t cap)
{
	if (res->exec_errno)
		snprintf(buf, cap, "could not be run: %s", strerror(res->exec_errno));
	else if (res->timed_out)
		snprintf(buf, cap, "timed out after %.0f s", timeout);
	else if (res->signal)
		snprintf(buf, cap, "killed by signal %d (SIG%s)", res->signal,
		         sigabbrev_np(res->signal) ?: "?");
	else if (res->exit_code)
		snprintf(buf, cap, "exited with status %d", res->exit_code);
	else
		snprintf(buf, cap, "succeeded");
}
