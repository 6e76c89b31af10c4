/* cli.c — see cli.h. */
#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "options.h"

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

int hmpt_cli_whole_option(const char *cmd, const char *name, const char *arg, int lo, int hi)
{
	uint64_t v;
	char msg[96];

	if (hmpt_options_parse_uint(arg, &v) == 0 && v >= (uint64_t)lo && v <= (uint64_t)hi)
		return (int)v;
	snprintf(msg, sizeof(msg), "%s: expected a whole number from %d to %d", name, lo, hi);
	hmpt_cli_usage_error(cmd, msg, arg);
}
