/* walk_lib.c — a library for test_walk, built twice: with frame pointers
 * (libwalk_fp.so) and without (libwalk_nofp.so), so that the test's stacks
 * hold frames of both kinds, in a module other than the test's own. */
#include <stdint.h>

typedef void (*walk_cb_t)(void *);

#define EXPORT __attribute__((visibility("default"), noinline))
#define LOCAL  __attribute__((noinline))

/* `depth` frames of this library, then cb(arg) */
EXPORT int walk_lib_call(walk_cb_t cb, void *arg, int depth)
{
	int r = 0;
	if (depth > 0)
		r = walk_lib_call(cb, arg, depth - 1) + 1;
	else
		cb(arg);
	__asm__ volatile("" ::: "memory"); /* keep the frame: no tail call */
	return r;
}

static LOCAL int even(walk_cb_t cb, void *arg, int depth);
static LOCAL int odd(walk_cb_t cb, void *arg, int depth)
{
	int r = depth > 0 ? even(cb, arg, depth - 1) : (cb(arg), 0);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}
static LOCAL int even(walk_cb_t cb, void *arg, int depth)
{
	int r = depth > 0 ? odd(cb, arg, depth - 1) : (cb(arg), 0);
	__asm__ volatile("" ::: "memory");
	return r + 2;
}

/* the same through function pointers, alternating */
EXPORT int walk_lib_pointers(walk_cb_t cb, void *arg, int depth)
{
	static int (*volatile const fns[2])(walk_cb_t, void *, int) = {even, odd};
	return fns[depth & 1](cb, arg, depth);
}

/* cb(arg) with a frame-pointer register that points nowhere (in the
 * library built without frame pointers, where rbp is just a register) */
EXPORT int walk_lib_wild(walk_cb_t cb, void *arg)
{
#if defined(__x86_64__) && defined(WALK_NOFP)
	register uintptr_t wild __asm__("rbp") = 16;
	__asm__ volatile("" : "+r"(wild));
	cb(arg);
	__asm__ volatile("" : : "r"(wild));
	return (int)wild;
#else
	cb(arg);
	__asm__ volatile("" ::: "memory");
	return 0;
#endif
}

#ifdef __x86_64__
/* cb(arg) from a frame whose size at the call is not fixed: it keeps its
 * frame's top in rbx (CFA = rbx + 16, said in its CFI) and moves rsp down
 * by `slots` words, filled with `fill`, the way glibc's
 * _dl_runtime_resolve_xsavec and _dl_runtime_profile, or alloca in hand
 * code, do; rbp is left alone.  walk_lib_dynamic_ra: its return address. */
__asm__(".text\n"
        ".globl walk_lib_dynamic\n"
        ".type walk_lib_dynamic,@function\n"
        "walk_lib_dynamic:\n"
        "	.cfi_startproc\n"
        "	pushq %rbx\n"
        "	.cfi_def_cfa_offset 16\n"
        "	.cfi_offset %rbx, -16\n"
        "	movq %rsp, %rbx\n"
        "	.cfi_def_cfa_register %rbx\n"
        "	leaq 0(,%rdx,8), %rax\n"
        "	subq %rax, %rsp\n"
        "	andq $-16, %rsp\n"
        "	movq %rsp, %r8\n"
        "1:	cmpq %rbx, %r8\n"
        "	jae 2f\n"
        "	movq %rcx, (%r8)\n"
        "	addq $8, %r8\n"
        "	jmp 1b\n"
        "2:	movq %rdi, %rax\n"
        "	movq %rsi, %rdi\n"
        "	call *%rax\n"
        ".globl walk_lib_dynamic_ra\n"
        "walk_lib_dynamic_ra:\n"
        "	movq %rbx, %rsp\n"
        "	.cfi_def_cfa_register %rsp\n"
        "	popq %rbx\n"
        "	.cfi_def_cfa_offset 8\n"
        "	.cfi_restore %rbx\n"
        "	ret\n"
        "	.cfi_endproc\n"
        ".size walk_lib_dynamic, .-walk_lib_dynamic\n");
#endif
