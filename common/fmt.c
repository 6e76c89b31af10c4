/* fmt.c — see fmt.h.  No malloc, no stdio: usable inside malloc. */
#include "fmt.h"

#include <errno.h>
#include <limits.h>
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

/* v's digits in `base`, at least min_digits (<= 22) of them, written
 * backwards to end at `end`; returns where they start */
static char *to_digits(char *end, uint64_t v, unsigned base, bool upper, int min_digits)
{
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0;

	do {
		*--end = set[v % base];
		v /= base;
		n++;
	} while (v || n < min_digits);
	return end;
}

void hmpt_fmt_u64(hmpt_fmt_t *f, uint64_t v)
{
	char tmp[24], *s = to_digits(tmp + sizeof(tmp), v, 10, false, 1);

	hmpt_fmt_mem(f, s, (size_t)(tmp + sizeof(tmp) - s));
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
	char tmp[24],
	    *s = to_digits(tmp + sizeof(tmp), v, 16, false, min_digits < 16 ? min_digits : 16);

	hmpt_fmt_mem(f, s, (size_t)(tmp + sizeof(tmp) - s));
}

/* The digits of |v| with `decimals` places into out (>= 40 bytes); returns
 * their count.  Rounds half up on the scaled value; beyond 1e18 / 10^decimals
 * it prints that bound (no bignum arithmetic here). */
static size_t fixed_digits(char *out, double v, int decimals)
{
	char tmp[24];
	uint64_t scale = 1;

	for (int i = 0; i < decimals; i++)
		scale *= 10;
	if (v > 1e18 / (double)scale)
		v = 1e18 / (double)scale;
	uint64_t total = (uint64_t)(v * (double)scale + 0.5);
	char *s = to_digits(tmp + sizeof(tmp), total / scale, 10, false, 1);
	size_t n = (size_t)(tmp + sizeof(tmp) - s);
	memcpy(out, s, n);
	if (decimals > 0) {
		out[n++] = '.';
		to_digits(out + n + decimals, total % scale, 10, false, decimals);
		n += (size_t)decimals;
	}
	return n;
}

void hmpt_fmt_fixed(hmpt_fmt_t *f, double v, int decimals)
{
	char tmp[48];

	if (v != v) { /* NaN has no JSON spelling */
		hmpt_fmt_str(f, "0");
		return;
	}
	if (v < 0) {
		hmpt_fmt_char(f, '-');
		v = -v;
	}
	if (decimals > 18)
		decimals = 18;
	hmpt_fmt_mem(f, tmp, fixed_digits(tmp, v, decimals));
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

/* --- printf ---------------------------------------------------------- */

/* A parsed conversion: flags, width (-1 none), precision (-1 none). */
typedef struct {
	bool left, zero, plus, space, alt;
	int width, prec;
} spec_t;

static void pad(hmpt_fmt_t *f, char c, int n)
{
	static const char spaces[] = "                                ";
	static const char zeros[] = "00000000000000000000000000000000";
	const char *src = c == '0' ? zeros : spaces;

	while (n > 0) {
		int k = n < 32 ? n : 32;
		hmpt_fmt_mem(f, src, (size_t)k);
		n -= k;
		if (f->truncated)
			return;
	}
}

/* prefix (sign or "0x"), `zeros` leading zeros, then body, in the field */
static void emit_field(hmpt_fmt_t *f, const spec_t *sp, const char *prefix, int zeros,
                       const char *body, size_t n, int trail)
{
	int plen = (int)strlen(prefix);
	int total = plen + zeros + (int)n + trail;
	int fill = sp->width > total ? sp->width - total : 0;

	if (!sp->left && sp->zero) {
		zeros += fill;
		fill = 0;
	}
	if (!sp->left)
		pad(f, ' ', fill);
	hmpt_fmt_str(f, prefix);
	pad(f, '0', zeros);
	hmpt_fmt_mem(f, body, n);
	pad(f, '0', trail);
	if (sp->left)
		pad(f, ' ', fill);
}

static void emit_int(hmpt_fmt_t *f, spec_t sp, uint64_t v, bool neg, char conv)
{
	unsigned base = conv == 'x' || conv == 'X' || conv == 'p' ? 16 : conv == 'o' ? 8 : 10;
	char tmp[24], *s = tmp + sizeof(tmp);
	const char *prefix = "";
	bool nonzero = v != 0;

	if (!(v == 0 && sp.prec == 0)) /* C: zero at precision 0 has no digits */
		s = to_digits(s, v, base, conv == 'X', 1);
	int n = (int)(tmp + sizeof(tmp) - s);
	int zeros = sp.prec > n ? sp.prec - n : 0;

	if (sp.prec >= 0)
		sp.zero = false; /* C: a precision overrides the 0 flag */
	if (neg)
		prefix = "-";
	else if (sp.plus && (conv == 'd' || conv == 'i'))
		prefix = "+";
	else if (sp.space && (conv == 'd' || conv == 'i'))
		prefix = " ";
	else if ((sp.alt && base == 16 && nonzero) || conv == 'p')
		prefix = conv == 'X' ? "0X" : "0x";
	else if (sp.alt && base == 8 && zeros == 0 && (n == 0 || *s != '0'))
		zeros = 1;
	emit_field(f, &sp, prefix, zeros, s, (size_t)n, 0);
}

static void emit_double(hmpt_fmt_t *f, spec_t sp, double v)
{
	char tmp[48];
	const char *sign = "";

	if (__builtin_signbit(v)) {
		sign = "-";
		v = -v;
	} else if (sp.plus) {
		sign = "+";
	} else if (sp.space) {
		sign = " ";
	}
	if (v != v || v > 1.7976931348623157e308) {
		sp.zero = false;
		emit_field(f, &sp, sign, 0, v != v ? "nan" : "inf", 3, 0);
		return;
	}
	int prec = sp.prec < 0 ? 6 : sp.prec;
	int extra = 0;
	if (prec > 18) { /* past what 64 bits hold: zeros (see fixed_digits) */
		extra = prec - 18;
		prec = 18;
	}
	size_t n = fixed_digits(tmp, v, prec);
	if (sp.alt && prec == 0)
		tmp[n++] = '.';
	emit_field(f, &sp, sign, 0, tmp, n, extra);
}

static int parse_num(const char **p)
{
	int v = 0;

	while (**p >= '0' && **p <= '9') {
		if (v < 100000)
			v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v;
}

void hmpt_fmt_vprintf(hmpt_fmt_t *f, const char *fmt, va_list ap)
{
	/* copy: va_list may be an array type, and callers may pass theirs on */
	va_list args;

	va_copy(args, ap);
	while (*fmt) {
		const char *start = fmt;
		while (*fmt && *fmt != '%')
			fmt++;
		hmpt_fmt_mem(f, start, (size_t)(fmt - start));
		if (!*fmt)
			break;
		start = fmt++;

		spec_t sp = {.width = -1, .prec = -1};
		for (;; fmt++) {
			if (*fmt == '-')
				sp.left = true;
			else if (*fmt == '0')
				sp.zero = true;
			else if (*fmt == '+')
				sp.plus = true;
			else if (*fmt == ' ')
				sp.space = true;
			else if (*fmt == '#')
				sp.alt = true;
			else
				break;
		}
		if (*fmt == '*') {
			fmt++;
			sp.width = va_arg(args, int);
			if (sp.width < 0) {
				sp.left = true;
				sp.width = sp.width == INT_MIN ? INT_MAX : -sp.width;
			}
		} else if (*fmt >= '0' && *fmt <= '9') {
			sp.width = parse_num(&fmt);
		}
		if (*fmt == '.') {
			fmt++;
			if (*fmt == '*') {
				fmt++;
				sp.prec = va_arg(args, int);
				if (sp.prec < 0)
					sp.prec = -1;
			} else {
				sp.prec = parse_num(&fmt);
			}
		}
		/* length: h hh l ll z j t L, as a size in bytes of the argument */
		int len = 0; /* 0 int, 1 char, 2 short, 8 long/long long/size_t.. */
		bool longd = false;
		if (fmt[0] == 'h' && fmt[1] == 'h')
			len = 1, fmt += 2;
		else if (fmt[0] == 'h')
			len = 2, fmt++;
		else if (fmt[0] == 'l' && fmt[1] == 'l')
			len = 8, fmt += 2;
		else if (fmt[0] == 'l')
			len = (int)sizeof(long), fmt++;
		else if (fmt[0] == 'z')
			len = (int)sizeof(size_t), fmt++;
		else if (fmt[0] == 'j')
			len = (int)sizeof(intmax_t), fmt++;
		else if (fmt[0] == 't')
			len = (int)sizeof(ptrdiff_t), fmt++;
		else if (fmt[0] == 'L')
			longd = true, fmt++;
		if (len == 4)
			len = 0; /* an int-sized long (ILP32) */

		char conv = *fmt;
		if (conv)
			fmt++;
		switch (conv) {
		case 'd':
		case 'i': {
			int64_t v = len == 8   ? (int64_t)va_arg(args, long long)
			            : len == 2 ? (short)va_arg(args, int)
			            : len == 1 ? (signed char)va_arg(args, int)
			                       : va_arg(args, int);
			emit_int(f, sp, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0,
			         conv);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o': {
			uint64_t v = len == 8   ? (uint64_t)va_arg(args, unsigned long long)
			             : len == 2 ? (unsigned short)va_arg(args, unsigned)
			             : len == 1 ? (unsigned char)va_arg(args, unsigned)
			                        : va_arg(args, unsigned);
			emit_int(f, sp, v, false, conv);
			break;
		}
		case 'p': {
			void *p = va_arg(args, void *);
			if (!p) {
				spec_t s2 = {.left = sp.left, .width = sp.width, .prec = -1};
				emit_field(f, &s2, "", 0, "(nil)", 5, 0);
			} else {
				emit_int(f, sp, (uint64_t)(uintptr_t)p, false, 'p');
			}
			break;
		}
		case 'c': {
			if (len) { /* %lc: a wide character, not supported */
				(void)va_arg(args, unsigned);
				hmpt_fmt_mem(f, start, (size_t)(fmt - start));
				break;
			}
			char c = (char)va_arg(args, int);
			sp.zero = false;
			emit_field(f, &sp, "", 0, &c, 1, 0);
			break;
		}
		case 's': {
			if (len) { /* %ls: a wide string, not supported */
				(void)va_arg(args, void *);
				hmpt_fmt_mem(f, start, (size_t)(fmt - start));
				break;
			}
			const char *s = va_arg(args, const char *);
			if (!s)
				s = sp.prec < 0 || sp.prec >= 6 ? "(null)" : "";
			size_t n = sp.prec < 0 ? strlen(s) : strnlen(s, (size_t)sp.prec);
			sp.zero = false;
			emit_field(f, &sp, "", 0, s, n, 0);
			break;
		}
		case 'f':
		case 'F':
			emit_double(f, sp,
			            longd ? (double)va_arg(args, long double)
			                  : va_arg(args, double));
			break;
		case 'e':
		case 'E':
		case 'g':
		case 'G':
		case 'a':
		case 'A':
			/* not supported: take the argument so the rest line up */
			if (longd)
				(void)va_arg(args, long double);
			else
				(void)va_arg(args, double);
			hmpt_fmt_mem(f, start, (size_t)(fmt - start));
			break;
		case '%': hmpt_fmt_char(f, '%'); break;
		case 'n': /* never stored through: taken so the rest line up */
			(void)va_arg(args, void *);
			hmpt_fmt_mem(f, start, (size_t)(fmt - start));
			break;
		default:
			/* the unknown: written as it is, no argument read */
			hmpt_fmt_mem(f, start, (size_t)(fmt - start));
			break;
		}
	}
	va_end(args);
}

void hmpt_fmt_printf(hmpt_fmt_t *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hmpt_fmt_vprintf(f, fmt, ap);
	va_end(ap);
}

const char *hmpt_fmt_text(char *buf, size_t cap, const char *fmt, ...)
{
	hmpt_fmt_t f;
	va_list ap;

	if (!cap) /* no room even for the NUL */
		return buf;
	hmpt_fmt_init(&f, buf, cap, -1);
	va_start(ap, fmt);
	hmpt_fmt_vprintf(&f, fmt, ap);
	va_end(ap);
	return hmpt_fmt_cstr(&f);
}

void hmpt_fmt_clause(char *buf, size_t cap, const char *fmt, ...)
{
	size_t len = strnlen(buf, cap);
	hmpt_fmt_t f;
	va_list ap;

	hmpt_fmt_init(&f, buf + len, cap - len, -1);
	if (len)
		hmpt_fmt_str(&f, "; ");
	va_start(ap, fmt);
	hmpt_fmt_vprintf(&f, fmt, ap);
	va_end(ap);
	hmpt_fmt_cstr(&f);
}
