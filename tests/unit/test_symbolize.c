/* test_symbolize.c — module!offset frames to functions and source lines
 * (symbolize.c): a missing module gives "??"; this program's own frames
 * give their function, file and line, and an inlined call its inline chain. */
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#include "symbolize.h"

/* the load bias of the executable (the first object dl_iterate_phdr
 * reports): the shim's module!offset frames are addresses less it */
static int first_bias(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	*(uintptr_t *)out = info->dlpi_addr;
	return 1;
}

/* the return address into the caller, as the shim records a frame */
__attribute__((noinline)) static uintptr_t return_address(void)
{
	return (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
}

/* symbolizes a frame of this very program: must name this function, this
 * file and the line of the call (the call, not the instruction after it) */
__attribute__((noinline)) static void symbolize_self(void)
{
	uintptr_t bias = 0;
	dl_iterate_phdr(first_bias, &bias);
	const int line = __LINE__ + 1;
	uintptr_t ra = return_address();

	hmpt_sym_t *sym = hmpt_sym_new();
	hmpt_sym_frame_t fr[8];
	int n = hmpt_sym_resolve(sym, "/proc/self/exe", ra - bias, fr, 8);
	const char *file = n >= 1 && fr[0].file ? fr[0].file : "";
	size_t len = strlen(file);
	CHECK_OP(n, ==, 1);
	CHECK(n >= 1 && !strcmp(fr[0].function, "symbolize_self"));
	/* the compile unit names the file as the compiler saw it: only its end is sure */
	CHECK(len >= 16 && !strcmp(file + len - 16, "test_symbolize.c") &&
	      (len == 16 || file[len - 17] == '/'));
	CHECK(n >= 1 && fr[0].line == line);
	if (n < 1 || strcmp(fr[0].function, "symbolize_self") || fr[0].line != line)
		fprintf(stderr, "symbolized %#lx as %s at %s:%d, want symbolize_self at %d\n",
		        (unsigned long)(ra - bias), n >= 1 ? fr[0].function : "-", file,
		        n >= 1 ? fr[0].line : 0, line);
	hmpt_sym_free(sym);
}

/* a call made in code inlined into symbolize_inline: the chain is the
 * inlined function at the call, then the function it was inlined into at
 * the inlined call (not the scopes around the inlined function's abstract
 * definition, where dwarf_getscopes goes on) */
static const int inline_call_line = __LINE__ + 3;
static inline __attribute__((always_inline)) uintptr_t inlined_ra(void)
{
	return return_address();
}

__attribute__((noinline)) static void symbolize_inline(void)
{
	uintptr_t bias = 0;
	dl_iterate_phdr(first_bias, &bias);
	const int line = __LINE__ + 1;
	uintptr_t ra = inlined_ra();

	hmpt_sym_t *sym = hmpt_sym_new();
	hmpt_sym_frame_t fr[8];
	int n = hmpt_sym_resolve(sym, "/proc/self/exe", ra - bias, fr, 8);
	CHECK_OP(n, ==, 2);
	/* the frames only as far as resolved (fr[] is not written beyond n) */
	if (n >= 1) {
		CHECK_STREQ(fr[0].function, "inlined_ra");
		CHECK_OP(fr[0].line, ==, inline_call_line);
		CHECK_OP(fr[0].column, >, 0); /* the line table's column: gcc writes them */
	}
	if (n == 2) {
		CHECK_STREQ(fr[1].function, "symbolize_inline");
		CHECK_OP(fr[1].line, ==, line);
	}
	if (n != 2 || strcmp(fr[n - 1].function, "symbolize_inline"))
		for (int i = 0; i < n; i++)
			fprintf(stderr, "inline chain %d: %s at %d:%d\n", i, fr[i].function,
			        fr[i].line, fr[i].column);
	hmpt_sym_free(sym);
}

int main(void)
{
	hmpt_sym_t *sym = hmpt_sym_new();
	hmpt_sym_frame_t fr[8];
	int n = hmpt_sym_resolve(sym, "/nonexistent/module.so", 0x1234, fr, 8);
	CHECK_OP(n, ==, 1);
	if (n >= 1) {
		CHECK_STREQ(fr[0].function, "??");
		CHECK_OP(fr[0].file, ==, NULL);
	}
	hmpt_sym_free(sym);
	symbolize_self();
	symbolize_inline();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
