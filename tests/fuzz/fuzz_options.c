/* fuzz_options.c — libFuzzer target for the HMPT_* parser: any bytes, cut
 * into NUL-separated environment entries, must parse without a crash, and
 * every value must end up in range or at its default. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

static void ignore(const char *msg, void *ctx)
{
	(void)ctx;
	if (!msg || !*msg)
		abort(); /* every report says something */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	char *env[65];
	size_t n = 0;
	hmpt_opt_value_t v[HMPT_OPT_COUNT];
	static char text[HMPT_OPT_COUNT][HMPT_OPT_TEXT_MAX];

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (char *p = buf; p < buf + size && n < 64; p += strlen(p) + 1)
		env[n++] = p;
	env[n] = NULL;
	hmpt_options_load(env, v, text, ignore, NULL);
	for (int i = 0; i < HMPT_OPT_COUNT; i++) {
		const hmpt_option_t *o = &hmpt_options_g[i];
		if (o->type != HMPT_OPT_TYPE_STRING && (v[i].num < o->min || v[i].num > o->max))
			abort();
		if (o->type == HMPT_OPT_TYPE_STRING && v[i].str && !*v[i].str)
			abort();
	}
	uint64_t out;
	hmpt_options_parse_size(buf, &out);
	free(buf);
	return 0;
}
