/* log.h — the shim's messages: "hmpt: ..." on stderr, via write(2).
 *
 * Contract: no malloc, no stdio, no locks; callable from any thread, inside
 * malloc, in a fork child.  Each message is built in a stack buffer and sent
 * with one write(2) so lines from threads do not interleave.  Warnings that
 * could repeat take a `once` flag and are printed only the first time.
 */
#ifndef HMPT_LOG_H
#define HMPT_LOG_H

#include <stdbool.h>

#include "fmt.h"

enum { HMPT_LOG_ERROR = 0, HMPT_LOG_WARN = 0, HMPT_LOG_INFO = 1, HMPT_LOG_DEBUG = 2 };

extern int hmpt_log_level_g; /* HMPT_VERBOSE */
/* "hmpt: ", or in an MPI rank "hmpt[rank 3]: " (job.c) */
extern const char *hmpt_log_prefix_g;
/* When set, a message it returns false for is not written (job.c: once per
 * node among the ranks of a job); `msg` is the text after the prefix. */
extern bool (*hmpt_log_filter_g)(int level, const char *msg, unsigned len);

/* Start a message: fills `f` over `buf` with the "hmpt: " prefix. */
void hmpt_log_begin(hmpt_fmt_t *f, char *buf, unsigned cap);
/* Finish it: adds the newline and writes it if `level` is enabled. */
void hmpt_log_end(hmpt_fmt_t *f, int level);
/* A job's line (job.c: said by one rank for all): "hmpt: ", whatever the
 * rank's prefix, and never filtered. */
void hmpt_log_begin_plain(hmpt_fmt_t *f, char *buf, unsigned cap);
void hmpt_log_end_unfiltered(hmpt_fmt_t *f, int level);
/* A whole message from one string. */
void hmpt_log_msg(int level, const char *msg);
/* A whole message, printf-style (hmpt_fmt_printf's conversions), built in a
 * 1 KiB stack buffer: begin, format, end in one call. */
void hmpt_log_printf(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hmpt_log_vprintf(int level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* True the first time it is called on `flag` (atomic), false after. */
bool hmpt_log_first(int *flag);

#endif
