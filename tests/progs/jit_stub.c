/* jit_stub.c — large allocations made through code in anonymous memory, as
 * a JIT's (a JVM's, V8's) are: their stacks hold a frame in no module.
 *
 *   jit_stub [FRAMES]  arrays A and B (8 MiB each), malloc'ed from two
 *                      call sites through FRAMES frames of stub code (1
 *                      unless said, at most 300; 0: the stub jumps to
 *                      malloc, leaving no frame); touched, then reported
 *
 * The stub (x86-64: push rbp; mov rbp,rsp; call rsi; pop rbp; ret — a
 * frame-pointer frame, which libunwind steps through without unwind
 * information) is copied to an anonymous PROT_EXEC mapping at a random
 * address, so that it lies elsewhere in every run even with ASLR off;
 * each further frame is a copy that calls the one before it.
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

#define MiB        (1024ul * 1024)
#define MAX_FRAMES 300
#define NEST       8

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

typedef char *(*site_fn)(stub_fn, size_t);

/* `levels` frames of the program's own between main and a call site, as
 * a real program has: frames that name the site beyond the JIT's */
__attribute__((noinline)) static char *nest(int levels, site_fn site, stub_fn stub, size_t n)
{
	return levels ? nest(levels - 1, site, stub, n) : site(stub, n);
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	static const unsigned char code[] = {
	    0x55,             /* push %rbp */
	    0x48, 0x89, 0xe5, /* mov %rsp,%rbp */
	    0xff, 0xd6,       /* call *%rsi: the allocator, n still in %rdi */
	    0x5d,             /* pop %rbp */
	    0xc3,             /* ret */
	};
	/* a further frame: the same, calling the stub before it */
	static const unsigned char outer[] = {0x55, 0x48, 0x89, 0xe5, 0xe8,
	                                      0,    0,    0,    0, /* call rel32 */
	                                      0x5d, 0xc3};
	static const unsigned char jump[] = {0xff, 0xe6}; /* jmp *%rsi: no frame */
	uint64_t r = 0;
	size_t n = 8 * MiB;
	char *end;
	long frames = argc > 1 ? strtol(argv[1], &end, 10) : 1;

	if (argc > 2 || (argc > 1 && (*end || end == argv[1])) || frames < 0 ||
	    frames > MAX_FRAMES) {
		fprintf(stderr, "usage: jit_stub [FRAMES], 0 to %d\n", MAX_FRAMES);
		return 2;
	}

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
	char *entry = page;
	if (frames == 0) {
		memcpy(page, jump, sizeof(jump));
	} else {
		memcpy(page, code, sizeof(code));
		for (long i = 1; i < frames; i++) {
			char *at = (char *)page + sizeof(code) + (i - 1) * sizeof(outer);
			int32_t rel = (int32_t)(entry - (at + 9)); /* from after the call */
			memcpy(at, outer, sizeof(outer));
			memcpy(at + 5, &rel, sizeof(rel));
			entry = at;
		}
	}
	stub_fn stub = (stub_fn)(void *)entry;
	printf("stub=%p\n", page);

	char *a = nest(NEST, alloc_a, stub, n), *b = nest(NEST, alloc_b, stub, n);
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
	(void)argc;
	(void)argv;
	(void)nest;
	(void)alloc_a;
	(void)alloc_b;
	printf("jit_stub: its stub is x86-64 machine code, and this is another architecture\n");
	return 77;
#endif
}
