/* exits.c — leave through the way argv[1] names, with status argv[2]:
 * exit, _exit, _Exit, return, signal (raise SIGTERM), abort. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "return";
	int status = argc > 2 ? atoi(argv[2]) : 0;
	char *p = malloc(4 << 20); /* tracked, so a profile is due */

	p[0] = 1;
	printf("exits: %s %d\n", how, status); /* buffered: exit flushes, _exit does not */
	if (!strcmp(how, "exit"))
		exit(status);
	if (!strcmp(how, "_exit"))
		_exit(status);
	if (!strcmp(how, "_Exit"))
		_Exit(status);
	if (!strcmp(how, "signal"))
		raise(SIGTERM);
	if (!strcmp(how, "abort"))
		abort();
	return status;
}
