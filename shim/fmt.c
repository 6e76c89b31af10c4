/* fmt.c — see fmt.h.  No malloc, no stdio: usable inside malloc. */
#include "fmt.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void hmpt_fmt_init(hmpt_fmt_t *f, char *buf, size_t cap, int fd)
{
	f->buf = buf;
	f->cap = cap;
	f->len = 0;
	f->fd = fd;
	f->truncated = false;
	f->failed = false;
}

int hmpt_fmt_flush(hmpt_fmt_t *f)
{
	size_t off = 0;

	if (f->fd < 0)
		return 0;
	while (off < f->len) {
		ssize_t n = write(f->fd, f->buf + off, f->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			f->failed = true;
			f->len = 0;
			return n < 0 ? -errno : -EIO;
		}
		off += (size_t)n;
	}
	f->len = 0;
	return 0;
}

void hmpt_fmt_mem(hmpt_fmt_t *f, const char *s, size_t n)
{
	/* keep one byte free for hmpt_fmt_cstr */
	while (n > 0) {
		size_t room = f->cap - 1 - f->len;
		if (room == 0) {
			if (f->fd < 0) {
				f->truncated = true;
				return;
			}
			hmpt_fmt_flush(f);
			continue;
		}
		size_t k = n < room ? n : room;
		memcpy(f->buf + f->len, s, k);
		f->len += k;
		s += k;
		n -= k;
	}
}

void hmpt_fmt_str(hmpt_fmt_t *f, const char *s)
{
	hmpt_fmt_mem(f, s ? s : "(null)", strlen(s ? s : "(null)"));
}

void hmpt_fmt_char(hmpt_fmt_t *f, char c)
{
	hmpt_fmt_mem(f, &c, 1);
}

void hmpt_fmt_u64(hmpt_fmt_t *f, uint64_t v)
{
	char tmp[24];
	int i = (int)sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	hmpt_fmt_mem(f, tmp + i, sizeof(tmp) - (size_t)i);
}

void hmpt_fmt_i64(hmpt_fmt_t *f, int64_t v)
{
	if (v < 0) {
		hmpt_fmt_char(f, '-');
		hmpt_fmt_u64(f, (uint64_t)0 - (uint64_t)v);
	} else {
		hmpt_fmt_u64(f, (uint64_t)v);
	}
}

void hmpt_fmt_hex(hmpt_fmt_t *f, uint64_t v, int min_digits)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int i = (int)sizeof(tmp);

	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v || (int)sizeof(tmp) - i < min_digits);
	hmpt_fmt_mem(f, tmp + i, sizeof(tmp) - (size_t)i);
}

void hmpt_fmt_fixed(hmpt_fmt_t *f, double v, int decimals)
{
	uint64_t scale = 1;

	if (v != v) { /* NaN has no JSON spelling */
		hmpt_fmt_str(f, "0");
		return;
	}
	if (v < 0) {
		hmpt_fmt_char(f, '-');
		v = -v;
	}
	for (int i = 0; i < decimals; i++)
		scale *= 10;
	if (v > 1e18 / (double)scale) /* beyond what fits: print the integer part */
		v = 1e18 / (double)scale;
	uint64_t total = (uint64_t)(v * (double)scale + 0.5);
	hmpt_fmt_u64(f, total / scale);
	if (decimals > 0) {
		char tmp[20];
		uint64_t frac = total % scale;
		for (int i = decimals - 1; i >= 0; i--) {
			tmp[i] = (char)('0' + frac % 10);
			frac /= 10;
		}
		hmpt_fmt_char(f, '.');
		hmpt_fmt_mem(f, tmp, (size_t)decimals);
	}
}

void hmpt_fmt_json_str(hmpt_fmt_t *f, const char *s)
{
	hmpt_fmt_char(f, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			hmpt_fmt_char(f, '\\');
			hmpt_fmt_char(f, (char)c);
		} else if (c < 0x20) {
			hmpt_fmt_str(f, "\\u00");
			hmpt_fmt_hex(f, c, 2);
		} else {
			hmpt_fmt_char(f, (char)c);
		}
	}
	hmpt_fmt_char(f, '"');
}

void hmpt_fmt_size(hmpt_fmt_t *f, uint64_t bytes)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		hmpt_fmt_u64(f, bytes);
		hmpt_fmt_str(f, " B");
		return;
	}
	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	hmpt_fmt_fixed(f, v, v < 10.0 ? 2 : 1);
	hmpt_fmt_char(f, ' ');
	hmpt_fmt_str(f, units[u]);
}

const char *hmpt_fmt_size_text(char *buf, size_t cap, uint64_t bytes)
{
	hmpt_fmt_t f;

	hmpt_fmt_init(&f, buf, cap, -1);
	hmpt_fmt_size(&f, bytes);
	return hmpt_fmt_cstr(&f);
}

const char *hmpt_fmt_cstr(hmpt_fmt_t *f)
{
	f->buf[f->len < f->cap ? f->len : f->cap - 1] = '\0';
	return f->buf;
}

void hmpt_fmt_clause(hmpt_fmt_t *f, char *buf, size_t cap)
{
	size_t len = strnlen(buf, cap);

	hmpt_fmt_init(f, buf + len, cap - len, -1);
	if (len)
		hmpt_fmt_str(f, "; ");
}
