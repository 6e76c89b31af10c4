/* jit_stub.c — large allocations made through code in anonymous memory, as
 * a JIT's (a JVM's, V8's) are: their stacks hold a frame in no module.
 *
 *   jit_stub   arrays A and B (8 MiB each), malloc'ed from two call sites
 *              through one stub; touched, then reported
 *
 * The stub (x86-64: push rbp; mov rbp,rsp; call rsi; pop rbp; ret — a
 * frame-pointer frame, which libunwind steps through without unwind
 * information) is copied to an anonymous PROT_EXEC mapping at a random
 * address, so that it lies elsewhere in every run even with ASLR off.
 * Prints "stub=0xADDR" (its address), then one line per array (report.h).
 * Exits 77, saying why, on another architecture or where no executable
 * anonymous memory can be had. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>

#include "report.h"

#define MiB (1024ul * 1024)

typedef void *(*alloc_fn)(size_t);
typedef void *(*stub_fn)(size_t, alloc_fn);

/* one call site each: the test plans one of them */
__attribute__((noinline)) static char *alloc_a(stub_fn stub, size_t n)
{
	return stub(n, malloc); /* hmpt-expect: allocations=1 bytes=8388608 */
}

__attribute__((noinline)) static char *alloc_b(stub_fn stub, size_t n)
{
	return stub(n, malloc); /* hmpt-expect: allocations=1 bytes=8388608 */
}

int main(void)
{
#if defined(__x86_64__)
	static const unsigned char code[] = {
	    0x55,             /* push %rbp */
	    0x48, 0x89, 0xe5, /* mov %rsp,%rbp */
	    0xff, 0xd6,       /* call *%rsi: the allocator, n still in %rdi */
	    0x5d,             /* pop %rbp */
	    0xc3,             /* ret */
	};
	uint64_t r = 0;
	size_t n = 8 * MiB;

	/* a page in 4 TiB above 16 TiB: free in any process this small */
	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint64_t)(uintptr_t)&r;
	void *hint = (void *)(uintptr_t)(0x100000000000ull + (r % (1ull << 30)) * 4096);
	void *page = mmap(hint, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("jit_stub: no executable anonymous memory here: mmap(PROT_EXEC)");
		return 77;
	}
	memcpy(page, code, sizeof(code));
	stub_fn stub = (stub_fn)page;
	printf("stub=%p\n", page);

	char *a = alloc_a(stub, n), *b = alloc_b(stub, n);
	if (!a || !b) {
		fprintf(stderr, "jit_stub: allocation failed\n");
		return 1;
	}
	memset(a, 1, n);
	memset(b, 2, n);
	report_range("A", a, n);
	report_range("B", b, n);
	free(a);
	free(b);
	return 0;
#else
	(void)alloc_a;
	(void)alloc_b;
	printf("jit_stub: its stub is x86-64 machine code, and this is another architecture\n");
	return 77;
#endif
}
