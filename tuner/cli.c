/* cli.c — see cli.h. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

void hmpt_cli_usage_error(const char *cmd, const char *msg, const char *arg)
{
	fprintf(stderr, "hmpt-tune%s%s: %s%s%s\n", cmd ? " " : "", cmd ? cmd : "", msg,
	        arg ? ": " : "", arg ? arg : "");
	if (cmd)
		fprintf(stderr, "Try 'hmpt-tune help %s'.\n", cmd);
	else
		fprintf(stderr, "Try 'hmpt-tune --help'.\n");
	exit(EXIT_USAGE);
}
