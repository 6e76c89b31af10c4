/* fuzz_journal.c — libFuzzer target for the tuner's journal reader
 * (runrec.c): the input is a journal.jsonl, read line by line as
 * journal.c's hmpt_journal_open() reads it; every line parses or is
 * skipped, and what a run record holds fits its buffers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "runrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;

	while (p < end) {
		/* a line as getline() gives it: up to and with its newline */
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		char *line = malloc(n + 1);
		hmpt_runrec_t r;

		if (!line)
			return 0;
		memcpy(line, p, n);
		line[n] = '\0';
		hmpt_runrec_journal_line(line, &r);
		fuzz_check(r.kind >= HMPT_RUNREC_BAD && r.kind <= HMPT_RUNREC_RUN, "kind");
		fuzz_check(r.kind != HMPT_RUNREC_BAD || !r.key,
		           "a key from a line that is not JSON");
		fuzz_check(strnlen(r.config, sizeof(r.config)) < sizeof(r.config),
		           "config unterminated");
		fuzz_check(strnlen(r.run.why, sizeof(r.run.why)) < sizeof(r.run.why),
		           "why unterminated");
		fuzz_check(strnlen(r.run.host, sizeof(r.run.host)) < sizeof(r.run.host),
		           "host unterminated");
		fuzz_check(strnlen(r.run.retaken, sizeof(r.run.retaken)) < sizeof(r.run.retaken),
		           "retaken unterminated");
		fuzz_check(strnlen(r.run.disturbed, sizeof(r.run.disturbed)) <
		               sizeof(r.run.disturbed),
		           "disturbed unterminated");
		json_decref(r.key);
		free(line);
		p += n;
	}
	return 0;
}
