/* forker.c — fork without exec (parent and child both allocate; one child
 * leaves with _exit(5), one with exit(6)), then fork+exec of argv[1]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int wait_status(pid_t pid)
{
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	char *before = malloc(2 << 20); /* live across the fork */
	memset(before, 1, 2 << 20);

	pid_t a = fork();
	if (a == 0) {
		char *c = malloc(3 << 20);
		memset(c, 2, 3 << 20);
		free(before); /* the child frees the parent's block: its own copy */
		free(c);
		_exit(5);
	}
	pid_t b = fork();
	if (b == 0) {
		char *c = malloc(5 << 20);
		c[0] = 1;
		exit(6);
	}
	char *p = malloc(4 << 20);
	memset(p, 3, 4 << 20);
	int sa = wait_status(a), sb = wait_status(b);
	if (sa != 5 || sb != 6) {
		fprintf(stderr, "forker: children exited with %d and %d, expected 5 and 6\n", sa,
		        sb);
		return 1;
	}
	if (before[12345] != 1) {
		fprintf(stderr, "forker: parent's block changed\n");
		return 1;
	}
	if (argc > 1) {
		pid_t c = fork();
		if (c == 0) {
			execv(argv[1], argv + 1);
			_exit(127);
		}
		int sc = wait_status(c);
		if (sc != 0) {
			fprintf(stderr, "forker: %s exited with %d\n", argv[1], sc);
			return 1;
		}
	}
	free(p);
	free(before);
	puts("forker: ok");
	return 0;
}
