/* fmt.h — text formatting with no malloc and no stdio.
 *
 * Contract: every function appends to a caller-owned buffer.  With an fd
 * (>= 0) a full buffer is flushed with write(2) and formatting goes on; with
 * fd < 0 the text is truncated and `truncated` is set.  Nothing here
 * allocates, locks or calls stdio, so it is safe on the interposition path
 * and in a fork child.  The tuner uses it too (human sizes).
 */
#ifndef HMPT_FMT_H
#define HMPT_FMT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	char *buf;
	size_t cap;
	size_t len;
	int fd;         /* flush target, or -1 */
	bool truncated; /* fd < 0 and text did not fit */
	bool failed;    /* a write(2) failed */
} hmpt_fmt_t;

void hmpt_fmt_init(hmpt_fmt_t *f, char *buf, size_t cap, int fd);
void hmpt_fmt_mem(hmpt_fmt_t *f, const char *s, size_t n);
void hmpt_fmt_str(hmpt_fmt_t *f, const char *s);
void hmpt_fmt_char(hmpt_fmt_t *f, char c);
void hmpt_fmt_u64(hmpt_fmt_t *f, uint64_t v);
void hmpt_fmt_i64(hmpt_fmt_t *f, int64_t v);
/* lower-case hex with at least min_digits digits, no prefix */
void hmpt_fmt_hex(hmpt_fmt_t *f, uint64_t v, int min_digits);
/* fixed-point decimal of a non-negative or negative double */
void hmpt_fmt_fixed(hmpt_fmt_t *f, double v, int decimals);
/* a JSON string literal, quotes included, control bytes escaped */
void hmpt_fmt_json_str(hmpt_fmt_t *f, const char *s);
/* "512 B", "1.0 KiB", "64.0 MiB", "1.50 GiB" */
void hmpt_fmt_size(hmpt_fmt_t *f, uint64_t bytes);
/* The same into buf (NUL-terminated), for callers outside the shim: buf */
const char *hmpt_fmt_size_text(char *buf, size_t cap, uint64_t bytes);
/* write what is buffered (fd >= 0); returns 0 or -errno */
int hmpt_fmt_flush(hmpt_fmt_t *f);
/* NUL-terminate in place (fd < 0 use); returns buf */
const char *hmpt_fmt_cstr(hmpt_fmt_t *f);

/* printf into f, checked by -Wformat.  Supported: %s %c %d %i %u %x %X %o
 * with flags "-0+ #", width and precision (also "*"), lengths hh h l ll z j
 * t; %p; %%; %f (fixed point, as hmpt_fmt_fixed: rounds half up, at most 18
 * exact decimals).  No locale.  %e %g %a %n %lc %ls take their argument and
 * are written literally, as is any other conversion (which takes none).  Sizes ("8.00 MiB") go
 * through hmpt_fmt_size_text or HMPT_SIZE into %s. */
void hmpt_fmt_printf(hmpt_fmt_t *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hmpt_fmt_vprintf(hmpt_fmt_t *f, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* printf into buf (cap bytes, truncated, NUL-terminated); returns buf */
const char *hmpt_fmt_text(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Add a clause, printf-style, to the NUL-terminated text in buf (cap
 * bytes), after a "; " when it is not empty. */
void hmpt_fmt_clause(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A size as text in a stack buffer (a compound literal: it lives to the end
 * of the enclosing block): hmpt_fmt_printf(f, "%s", HMPT_SIZE(n)). */
#define HMPT_SIZE(bytes) hmpt_fmt_size_text((char[24]){0}, 24, (bytes))

#endif
