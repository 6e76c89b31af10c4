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

/* The digits of |v| with `decimals` places into out (>= 40 bytes); returns
 * their count.  Rounds half up on the scaled value; beyond 1e18 / 10^decimals
 * it prints that bound (no bignum arithmetic here). */
static size_t fixed_digits(char *out, double v, int decimals)
{
	char tmp[24];
	uint64_t scale = 1;
	size_t n = 0;

	for (int i = 0; i < decimals; i++)
		scale *= 10;
	if (v > 1e18 / (double)scale)
		v = 1e18 / (double)scale;
	uint64_t total = (uint64_t)(v * (double)scale + 0.5);
	uint64_t whole = total / scale, frac = total % scale;
	int i = (int)sizeof(tmp);
	do {
		tmp[--i] = (char)('0' + whole % 10);
		whole /= 10;
	} while (whole);
	memcpy(out, tmp + i, sizeof(tmp) - (size_t)i);
	n = sizeof(tmp) - (size_t)i;
	if (decimals > 0) {
		out[n++] = '.';
		for (int k = decimals - 1; k >= 0; k--) {
			out[n + (size_t)k] = (char)('0' + frac % 10);
			frac /= 10;
		}
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
                       const char *body, size_t n)
{
	int plen = (int)strlen(prefix);
	int total = plen + zeros + (int)n;
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
	if (sp->left)
		pad(f, ' ', fill);
}

static void emit_int(hmpt_fmt_t *f, spec_t sp, uint64_t v, bool neg, char conv)
{
	const char *digits = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned base = conv == 'x' || conv == 'X' || conv == 'p' ? 16 : conv == 'o' ? 8 : 10;
	char tmp[24];
	int i = (int)sizeof(tmp);
	const char *prefix = "";
	bool nonzero = v != 0;

	if (!(v == 0 && sp.prec == 0))
		do {
			tmp[--i] = digits[v % base];
			v /= base;
		} while (v);
	int n = (int)sizeof(tmp) - i;
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
	else if (sp.alt && base == 8 && zeros == 0 && (n == 0 || tmp[i] != '0'))
		zeros = 1;
	emit_field(f, &sp, prefix, zeros, tmp + i, (size_t)n);
}

static void emit_double(hmpt_fmt_t *f, spec_t sp, double v)
{
	char tmp[48];
	const char *sign = "";

	if (v < 0 || (v == 0 && 1 / v < 0)) {
		sign = "-";
		v = -v;
	} else if (sp.plus) {
		sign = "+";
	} else if (sp.space) {
		sign = " ";
	}
	if (v != v || v > 1.7976931348623157e308) {
		sp.zero = false;
		emit_field(f, &sp, sign, 0, v != v ? "nan" : "inf", 3);
		return;
	}
	int prec = sp.prec < 0 ? 6 : sp.prec;
	int extra = 0;
	if (prec > 18) { /* past what fits in 64 bits: zeros (see fixed_digits) */
		extra = prec - 18;
		prec = 18;
	}
	size_t n = fixed_digits(tmp, v, prec);
	if (sp.alt && prec == 0)
		tmp[n++] = '.';
	if (extra) {
		/* rare: the trailing zeros go into the field after the body */
		int w = sp.width;
		sp.width = w > extra ? w - extra : 0;
		if (sp.left) {
			spec_t s2 = sp;
			s2.width = 0;
			emit_field(f, &s2, sign, 0, tmp, n);
			pad(f, '0', extra);
			int used = (int)strlen(sign) + (int)n + extra;
			pad(f, ' ', w - used);
		} else {
			emit_field(f, &sp, sign, 0, tmp, n);
			pad(f, '0', extra);
		}
		return;
	}
	emit_field(f, &sp, sign, 0, tmp, n);
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
				emit_field(f, &s2, "", 0, "(nil)", 5);
			} else {
				emit_int(f, sp, (uint64_t)(uintptr_t)p, false, 'p');
			}
			break;
		}
		case 'c': {
			char c = (char)va_arg(args, int);
			sp.zero = false;
			emit_field(f, &sp, "", 0, &c, 1);
			break;
		}
		case 's': {
			const char *s = va_arg(args, const char *);
			if (!s)
				s = sp.prec < 0 || sp.prec >= 6 ? "(null)" : "";
			size_t n = sp.prec < 0 ? strlen(s) : strnlen(s, (size_t)sp.prec);
			sp.zero = false;
			emit_field(f, &sp, "", 0, s, n);
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
		default:
			/* %n and the unknown: written as they are, no argument read */
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
