/* outfile.h — the files hmpt-tune and hmpt-bench write, made as the shim
 * makes its profile (hmpt_sys_newfile_open, sys.h): written to a temporary
 * of unpredictable name created O_EXCL | O_NOFOLLOW beside the name, then
 * renamed over it in the same directory; no link is followed or replaced.
 *
 * Contract: every function says what went wrong once on stderr, as
 * "PROGRAM: PATH: WHY", and returns NULL or -1; the caller adds nothing.
 */
#ifndef HMPT_TOOLS_OUTFILE_H
#define HMPT_TOOLS_OUTFILE_H

#include <stdio.h>

#include "sys.h"

typedef struct {
	FILE *f;
	hmpt_sys_newfile_t nf;
	char path[4096];
} hmpt_outfile_t;

/* A stream on a new temporary for path; NULL after saying why. */
FILE *hmpt_outfile_open(hmpt_outfile_t *o, const char *path);
/* Close the stream and put the file in place; 0, or -1 after saying why
 * (the temporary removed, what the name held before left as it was). */
int hmpt_outfile_close(hmpt_outfile_t *o);
/* Give up: close the stream, remove the temporary, leave the name as it was. */
void hmpt_outfile_discard(hmpt_outfile_t *o);
/* A file written as it goes (a journal): created and put in place at once,
 * or, with `append`, an existing regular file of the caller's opened
 * without following a link.  fclose() it; NULL after saying why. */
FILE *hmpt_outfile_now(const char *path, int append);

#endif
