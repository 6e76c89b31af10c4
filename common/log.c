/* log.c — see log.h. */
#include "log.h"

#include <unistd.h>

#include <string.h>

int hmpt_log_level_g;
const char *hmpt_log_prefix_g = "hmpt: ";
bool (*hmpt_log_filter_g)(int level, const char *msg, unsigned len);

void hmpt_log_begin(hmpt_fmt_t *f, char *buf, unsigned cap)
{
	hmpt_fmt_init(f, buf, cap, -1);
	hmpt_fmt_str(f, hmpt_log_prefix_g);
}

void hmpt_log_begin_plain(hmpt_fmt_t *f, char *buf, unsigned cap)
{
	hmpt_fmt_init(f, buf, cap, -1);
	hmpt_fmt_str(f, "hmpt: ");
}

void hmpt_log_end_unfiltered(hmpt_fmt_t *f, int level)
{
	if (level > hmpt_log_level_g)
		return;
	if (f->truncated && f->len >= 4)
		f->len -= 4, hmpt_fmt_str(f, "...");
	/* the buffer always keeps room for one more byte */
	f->buf[f->len++] = '\n';
	for (size_t off = 0; off < f->len;) {
		ssize_t n = write(2, f->buf + off, f->len - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
}

void hmpt_log_end(hmpt_fmt_t *f, int level)
{
	if (level > hmpt_log_level_g)
		return;
	if (hmpt_log_filter_g) {
		size_t skip = strlen(hmpt_log_prefix_g);
		if (f->len >= skip &&
		    !hmpt_log_filter_g(level, f->buf + skip, (unsigned)(f->len - skip)))
			return;
	}
	hmpt_log_end_unfiltered(f, level);
}

void hmpt_log_msg(int level, const char *msg)
{
	char buf[512];
	hmpt_fmt_t f;

	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_fmt_str(&f, msg);
	hmpt_log_end(&f, level);
}

void hmpt_log_vprintf(int level, const char *fmt, va_list ap)
{
	char buf[1024];
	hmpt_fmt_t f;

	if (level > hmpt_log_level_g)
		return;
	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_fmt_vprintf(&f, fmt, ap);
	hmpt_log_end(&f, level);
}

void hmpt_log_printf(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hmpt_log_vprintf(level, fmt, ap);
	va_end(ap);
}

bool hmpt_log_first(int *flag)
{
	return __atomic_exchange_n(flag, 1, __ATOMIC_RELAXED) == 0;
}
