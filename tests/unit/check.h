/* check.h — the unit tests' assertions: report and count, go on.
 *
 *   CHECK(cond)            a predicate; prints the expression when false
 *   CHECK_OP(a, op, b)     a comparison (==, !=, <, <=, >, >=); when false
 *                          prints both expressions and both values
 *   CHECK_STREQ(a, b)      two C strings equal (NULL is a value of its own);
 *                          prints both strings when they differ
 *
 * Each operand is evaluated once.  Values print by type: integers in
 * decimal (and hex when large), floating point with %.17g, pointers with
 * %p, so that a failure says what was seen, not only what was expected. */
#ifndef HMPT_TEST_CHECK_H
#define HMPT_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static inline void check_put_s(long long v)
{
	fprintf(stderr, "%lld", v);
	if (v > 4095 || v < -4095)
		fprintf(stderr, " (%#llx)", (unsigned long long)v);
}
static inline void check_put_u(unsigned long long v)
{
	fprintf(stderr, "%llu", v);
	if (v > 4095)
		fprintf(stderr, " (%#llx)", v);
}
static inline void check_put_f(long double v)
{
	fprintf(stderr, "%.17Lg", v);
}
static inline void check_put_p(const volatile void *v)
{
	fprintf(stderr, "%p", (const void *)v);
}

/* the printer for an operand's type: integers by signedness, floating
 * point, anything else (pointers) as an address */
#define CHECK_PUT(v)                                                                               \
	_Generic((v), _Bool                                                                        \
	         : check_put_u, char                                                               \
	         : check_put_s, signed char                                                        \
	         : check_put_s, unsigned char                                                      \
	         : check_put_u, short                                                              \
	         : check_put_s, unsigned short                                                     \
	         : check_put_u, int                                                                \
	         : check_put_s, unsigned int                                                       \
	         : check_put_u, long                                                               \
	         : check_put_s, unsigned long                                                      \
	         : check_put_u, long long                                                          \
	         : check_put_s, unsigned long long                                                 \
	         : check_put_u, float                                                              \
	         : check_put_f, double                                                             \
	         : check_put_f, long double                                                        \
	         : check_put_f, default                                                            \
	         : check_put_p)(v)

#define CHECK_OP(a, op, b)                                                                         \
	do {                                                                                       \
		__auto_type check_a_ = (a);                                                        \
		__auto_type check_b_ = (b);                                                        \
		/* the same value as (a) op (b); but copies of constants lose their                \
		 * exemption from -Wsign-compare, so it is off here: a signed/unsigned             \
		 * mix in a CHECK_OP is not warned about (in a CHECK it is) */                     \
		_Pragma("GCC diagnostic push");                                                    \
		_Pragma("GCC diagnostic ignored \"-Wsign-compare\"");                              \
		int check_ok_ = check_a_ op check_b_;                                              \
		_Pragma("GCC diagnostic pop");                                                     \
		if (!check_ok_) {                                                                  \
			fprintf(stderr, "%s:%d: check failed: %s %s %s: ", __FILE__, __LINE__, #a, \
			        #op, #b);                                                          \
			CHECK_PUT(check_a_);                                                       \
			fprintf(stderr, " %s ", #op);                                              \
			CHECK_PUT(check_b_);                                                       \
			fputc('\n', stderr);                                                       \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

#define CHECK_STREQ(a, b)                                                                          \
	do {                                                                                       \
		const char *check_a_ = (a), *check_b_ = (b);                                       \
		if (check_a_ != check_b_ &&                                                        \
		    (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0)) {                 \
			fprintf(stderr,                                                            \
			        "%s:%d: check failed: %s equals %s: \"%s\" against \"%s\"\n",      \
			        __FILE__, __LINE__, #a, #b, check_a_ ? check_a_ : "(null)",        \
			        check_b_ ? check_b_ : "(null)");                                   \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

#endif
