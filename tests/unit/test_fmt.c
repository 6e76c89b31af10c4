/* test_fmt.c — hmpt_fmt_printf against the C library's snprintf: a table of
 * formats and values, each at full size and cut at small capacities; the
 * helpers it is built on (numbers, JSON strings, sizes). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "fmt.h"

/* Format with both into buffers of `cap` bytes and compare. */
#define SAME_AT(cap, ...)                                                                          \
	do {                                                                                       \
		char want_[512], got_[512];                                                        \
		hmpt_fmt_t f_;                                                                     \
		int n_ = snprintf(want_, (cap), __VA_ARGS__);                                      \
		hmpt_fmt_init(&f_, got_, (cap), -1);                                               \
		hmpt_fmt_printf(&f_, __VA_ARGS__);                                                 \
		hmpt_fmt_cstr(&f_);                                                                \
		if (strcmp(want_, got_) != 0 || f_.truncated != (n_ >= (int)(cap))) {              \
			fprintf(stderr, "%s:%d: cap %d [%s]: want \"%s\" got \"%s\"%s\n",          \
			        __FILE__, __LINE__, (int)(cap), #__VA_ARGS__, want_, got_,         \
			        f_.truncated ? " (truncated)" : "");                               \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

/* every capacity from 1 to past the full text */
#define SAME(...)                                                                                  \
	do {                                                                                       \
		for (size_t c_ = 1; c_ < 80; c_++)                                                 \
			SAME_AT(c_, __VA_ARGS__);                                                  \
		SAME_AT(512, __VA_ARGS__);                                                         \
	} while (0)

static void test_strings(void)
{
	const char *volatile null = NULL; /* out of the compiler's sight */

	SAME("plain text, no conversions");
	SAME("%s", "");
	SAME("%s", "hello");
	SAME("[%10s]", "right");
	SAME("[%-10s]", "left");
	SAME("[%.3s]", "truncate");
	SAME("[%.*s]", 4, "abcdefgh");
	SAME("[%.*s]", 0, "abc");
	SAME("[%.*s]", -1, "abc");
	SAME("[%*s]", 6, "ab");
	SAME("[%*s]", -6, "ab");
	SAME("[%-*.*s]", 8, 2, "xyz");
	SAME("%s", null);
	SAME("%c%c%c", 'a', 'b', 'c');
	SAME("[%3c][%-3c]", 'x', 'y');
	SAME("100%% done %s", "now");
	SAME("%s=%s; %s", "key", "value", "a longer tail that will be cut at small caps");
}

static void test_ints(void)
{
	SAME("%d %i", 0, -0);
	SAME("%d", 42);
	SAME("%d", -42);
	SAME("%d %d", INT32_MAX, INT32_MIN);
	SAME("%u", 4294967295u);
	SAME("%ld %lu", -1234567890123L, 1234567890123UL);
	SAME("%lld %llu", (long long)INT64_MIN, (unsigned long long)UINT64_MAX);
	SAME("%hd %hu", (short)-300, (unsigned short)65535);
	SAME("%hhd %hhu", (signed char)-5, (unsigned char)250);
	SAME("%hhd", 300); /* narrowed like the library */
	SAME("%zu %zd", (size_t)123456789, (ptrdiff_t)-5);
	SAME("%jd %ju", (intmax_t)-77, (uintmax_t)77);
	SAME("%td", (ptrdiff_t)-99);
	SAME("[%5d][%-5d][%05d]", 42, 42, 42);
	SAME("[%05d][%+d][% d][%+d]", -42, 7, 7, -7);
	SAME("[%.3d][%8.3d][%-8.3d]", 5, 5, -5);
	SAME("[%.0d][%.0u][%5.0x]", 0, 0u, 0u);
	SAME("%x %X", 0xdeadbeefu, 0xdeadbeefu);
	SAME("%#x %#X %#x", 0x1fu, 0x1fu, 0u);
	SAME("%016llx", (unsigned long long)0xabcULL);
	SAME("%016llx", (unsigned long long)0x123456789abcdef0ULL);
	SAME("0x%08lx", 0x1234UL);
	SAME("%#010x", 0xbeefu);
	SAME("%o %#o %#o", 8u, 8u, 0u);
	SAME("%*d|%-*d", 6, 12, 6, 12);
	SAME("%lx", (unsigned long)-1L);
}

static void test_pointers_and_floats(void)
{
	int x;
	void *p = &x;

	SAME("%p", p);
	SAME("%p", (void *)0);
	SAME("[%20p]", p);
	SAME("[%-20p]", p);
	SAME("%f", 3.5);
	SAME("%.2f", 3.14159);
	SAME("%.1f", 99.94);
	SAME("%.0f", 2.4);
	SAME("%.3f", -0.0004);
	SAME("%.1f", -1.25e-1);
	SAME("%8.2f|%-8.2f|%08.2f", 1.5, 1.5, -1.5);
	SAME("%+.1f % .1f", 2.0, 2.0);
	SAME("%.2f", 12345678.901);
	SAME("%.1f%%", 87.66);
	SAME("%.6f", 0.000001);
	SAME("%#.0f", 3.0);
	SAME("%f %f", 1.0 / 0.0, -1.0 / 0.0);
	SAME("%Lf", (long double)2.25);
	SAME("%.*f", 3, 1.0006);
	SAME("[%-30.20f][%30.20f]", 0.5, -0.25); /* past 18 places: zeros, exact here */
	SAME("%.2f %.0f", -0.0, 0.0);
}

/* past -Wformat: formats it would refuse */
static void unchecked(hmpt_fmt_t *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hmpt_fmt_vprintf(f, fmt, ap);
	va_end(ap);
}

static void test_unsupported(void)
{
	char buf[64];
	hmpt_fmt_t f;

	/* %e takes its double, so %d after it still gets its int */
	hmpt_fmt_init(&f, buf, sizeof(buf), -1);
	hmpt_fmt_printf(&f, "%e|%d", 1.5, 7);
	CHECK_STREQ(hmpt_fmt_cstr(&f), "%e|7");
	/* an unknown conversion reads nothing */
	hmpt_fmt_init(&f, buf, sizeof(buf), -1);
	unchecked(&f, "%q|%y|%");
	CHECK_STREQ(hmpt_fmt_cstr(&f), "%q|%y|%");
	/* %n stores nothing; %ls takes its pointer */
	int n = -1;
	hmpt_fmt_init(&f, buf, sizeof(buf), -1);
	hmpt_fmt_printf(&f, "ab%n|%ls|%s", &n, L"wide", "s");
	CHECK_OP(n, ==, -1);
	CHECK_STREQ(hmpt_fmt_cstr(&f), "ab%n|%ls|s");
}

/* with an fd, a full buffer is written out and formatting goes on */
static void test_flush(void)
{
	char small[8], got[256], want[256];
	int fds[2];
	hmpt_fmt_t f;

	CHECK_OP(pipe(fds), ==, 0);
	hmpt_fmt_init(&f, small, sizeof(small), fds[1]);
	hmpt_fmt_printf(&f, "%-40s|%032llx|%.3f|%s", "padded", 0x1234ULL, 2.5, "end");
	CHECK(hmpt_fmt_flush(&f) == 0 && !f.truncated);
	close(fds[1]);
	ssize_t n = read(fds[0], got, sizeof(got) - 1);
	close(fds[0]);
	got[n > 0 ? n : 0] = '\0';
	snprintf(want, sizeof(want), "%-40s|%032llx|%.3f|%s", "padded", 0x1234ULL, 2.5, "end");
	CHECK_STREQ(got, want);
}

static void test_size_macro(void)
{
	char buf[64];
	hmpt_fmt_t f;

	hmpt_fmt_init(&f, buf, sizeof(buf), -1);
	hmpt_fmt_printf(&f, "%s and %s", HMPT_SIZE(8u << 20), HMPT_SIZE(512));
	CHECK_STREQ(hmpt_fmt_cstr(&f), "8.00 MiB and 512 B");
}

/* the helpers under hmpt_fmt_printf: numbers, JSON strings, sizes, and a
 * cut that never overruns */
static void test_helpers(void)
{
	char buf[64];
	hmpt_fmt_t f;

	hmpt_fmt_init(&f, buf, sizeof(buf), -1);
	hmpt_fmt_u64(&f, 0);
	hmpt_fmt_char(&f, ' ');
	hmpt_fmt_i64(&f, -42);
	hmpt_fmt_char(&f, ' ');
	hmpt_fmt_hex(&f, 0xbeef, 8);
	hmpt_fmt_char(&f, ' ');
	hmpt_fmt_fixed(&f, 1.5, 3);
	CHECK_STREQ(hmpt_fmt_cstr(&f), "0 -42 0000beef 1.500");

	hmpt_fmt_init(&f, buf, sizeof(buf), -1);
	hmpt_fmt_json_str(&f, "a\"b\\c\n");
	CHECK_STREQ(hmpt_fmt_cstr(&f), "\"a\\\"b\\\\c\\u000a\"");

	hmpt_fmt_init(&f, buf, sizeof(buf), -1);
	hmpt_fmt_size(&f, 512);
	hmpt_fmt_char(&f, '|');
	hmpt_fmt_size(&f, 1536);
	hmpt_fmt_char(&f, '|');
	hmpt_fmt_size(&f, 64ull << 20);
	CHECK_STREQ(hmpt_fmt_cstr(&f), "512 B|1.50 KiB|64.0 MiB");

	/* truncation never overruns */
	char small[8];
	hmpt_fmt_init(&f, small, sizeof(small), -1);
	hmpt_fmt_str(&f, "0123456789");
	CHECK(f.truncated && strcmp(hmpt_fmt_cstr(&f), "0123456") == 0);
}

int main(void)
{
	test_strings();
	test_ints();
	test_pointers_and_floats();
	test_unsupported();
	test_flush();
	test_size_macro();
	test_helpers();
	if (failures)
		fprintf(stderr, "test_fmt: %d failure(s)\n", failures);
	return failures != 0;
}
