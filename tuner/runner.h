/* runner.h — run a program and say how it ended.
 *
 * Contract: hmpt_run() forks and execs spec->argv with spec->env, waits for
 * it (at most spec->timeout seconds when > 0) and fills *res.  With
 * spec->log, the program's standard output and error go to that file and its
 * standard input is /dev/null, and it runs in a process group of its own that
 * is killed whole on a timeout or when hmpt_run_kill_current() is called (from
 * a signal handler).  Without it, the program shares our terminal and
 * SIGINT/SIGQUIT are ignored here while it runs, as a shell does.
 * Returns the status to exit with: the program's exit status, 128+N when
 * killed by signal N, 124 on a timeout, 126/127 when it could not be run.
 */
#ifndef HMPT_TUNER_RUNNER_H
#define HMPT_TUNER_RUNNER_H

#include <stdbool.h>
#include <sys/types.h>

typedef struct {
	char *const *argv;
	char **env;
	const char *log; /* NULL: inherit our stdio */
	double timeout;  /* seconds; 0: none */
	bool quiet;      /* no message on failure */
} hmpt_run_spec_t;

typedef struct {
	int status;     /* as returned */
	int exit_code;  /* when it exited */
	int signal;     /* when a signal killed it */
	bool timed_out; /* killed after spec->timeout */
	int exec_errno; /* it could not be run */
	double wall;    /* seconds from fork to its end */
	double cpu;     /* user + system seconds of it and the children it waited for */
	long nivcsw;    /* its (and those children's) involuntary context switches */
	pid_t pid;
} hmpt_run_result_t;

int hmpt_run(const hmpt_run_spec_t *spec, hmpt_run_result_t *res);
/* CLOCK_MONOTONIC, in seconds */
double hmpt_run_now(void);
/* Async-signal-safe: kill the process group of the run in progress. */
void hmpt_run_kill_current(void);
/* "exited with status 3", "killed by signal 11 (SIGSEGV)", "timed out after
 * 60 s", "could not be run: No such file or directory" */
void hmpt_run_describe(const hmpt_run_result_t *res, double timeout, char *buf, size_t cap);

#endif
