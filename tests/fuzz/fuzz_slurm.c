/* fuzz_slurm.c — libFuzzer target for the reader of the result file a
 * Slurm batch job leaves (runrec.c, as slurm.c's poll reads it): any bytes
 * are a result or not, and what a result holds fits the job's buffers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "runrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static hmpt_sjob_t j;

	if (size == 0) /* fmemopen refuses an empty buffer */
		return 0;
	/* a stream over the bytes: the same reader the file gets */
	FILE *f = fmemopen((void *)data, size, "rb");
	if (!f)
		return 0;
	memset(&j, 0, sizeof(j));
	int got = hmpt_runrec_slurm_result(f, &j);
	fclose(f);
	fuzz_check(got == 0 || got == 1, "result");
	fuzz_check(strnlen(j.why, sizeof(j.why)) < sizeof(j.why), "why unterminated");
	fuzz_check(strnlen(j.host, sizeof(j.host)) < sizeof(j.host), "host unterminated");
	return 0;
}
