/* afterfree.c — what a program did to a freed block is not inherited.
 *
 * usage: afterfree MODE
 * On a block of 8 MiB from malloc, MODE sets one kind of state on 1 MiB
 * inside it (or one page): mprotect, pkey, dontfork, wipeonfork, guard,
 * dontdump, mergeable, hugepage, nohugepage, free, mlock, mremap, munmap;
 * "none" sets nothing and frees and allocates 64 times (a loop).  Then the
 * block is freed and the same size allocated again, by calloc and by
 * malloc; each new block is written whole, described (the mappings it
 * spans, their flags of interest, VmLck), forked (the child prints a
 * checksum of what it reads) and realloc'ed larger.  Under glibc every new
 * block is a fresh mapping: the output is the same with any allocator that
 * keeps nothing of the old block.  Exit 77 (reason on the last line): the
 * kernel refuses the state itself (no protection keys, no guard regions).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

#define SZ  ((size_t)8 << 20)
#define MIB ((size_t)1 << 20)

static char *page_in(char *p, size_t off)
{
	long ps = sysconf(_SC_PAGESIZE);
	return (char *)(((uintptr_t)p + off + (uintptr_t)ps - 1) & ~((uintptr_t)ps - 1));
}

static unsigned long long checksum(const unsigned char *p, size_t n)
{
	unsigned long long s = 1469598103934665603ull;
	for (size_t i = 0; i < n; i += 512)
		s = (s ^ p[i]) * 1099511628211ull;
	return s;
}

static void skip(const char *what)
{
	printf("skip: %s: %s\n", what, strerror(errno));
	exit(77);
}

/* The mappings that [p, p+n) spans, and the flags of interest among theirs:
 * dd dontdump, mg mergeable, hg/nh huge pages, wf wipeonfork, dc dontfork,
 * lo locked; then the process's VmLck. */
static void describe(const char *label, const char *p, size_t n)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	static const char *const want[] = {"dd", "mg", "hg", "nh", "wf", "dc", "lo"};
	char line[512], flags[64] = "";
	int vmas = 0, inside = 0;
	unsigned long lo, hi;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			inside = lo < (uintptr_t)p + n && hi > (uintptr_t)p;
			vmas += inside;
		} else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
			for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
				char tok[8];
				snprintf(tok, sizeof(tok), " %s", want[i]);
				if (strstr(line, tok) && !strstr(flags, want[i])) {
					strcat(flags, " ");
					strcat(flags, want[i]);
				}
			}
		}
	}
	if (f)
		fclose(f);
	long lck = -1;
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld", &lck) == 1)
			break;
	if (f)
		fclose(f);
	printf("%s: %d mapping(s), flags [%s ], VmLck %ld kB\n", label, vmas, flags, lck);
}

/* The child reads the block and prints what it saw; the parent says how it
 * ended. */
static void fork_and_read(const char *label, const unsigned char *p, size_t n)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		printf("%s: child reads %016llx\n", label, checksum(p, n));
		fflush(stdout);
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st))
		printf("%s: child killed by signal %d\n", label, WTERMSIG(st));
	else
		printf("%s: child exit %d\n", label, WEXITSTATUS(st));
}

static void use(const char *label, unsigned char *p, int fill)
{
	if (!p) {
		printf("%s: no block\n", label);
		return;
	}
	memset(p, fill, SZ);
	for (size_t i = 0; i < SZ; i += 4096)
		p[i] = (unsigned char)(i >> 12);
	printf("%s: parent wrote %016llx\n", label, checksum(p, SZ));
	describe(label, (char *)p, SZ);
	fork_and_read(label, p, SZ);
}

static void set_state(const char *mode, char *p)
{
	char *in = page_in(p, 2 * MIB); /* 1 MiB inside the block */
	int rc = 0;

	if (!strcmp(mode, "mprotect")) {
		rc = mprotect(in, 4096, PROT_NONE);
	} else if (!strcmp(mode, "pkey")) {
		int k = pkey_alloc(0, PKEY_DISABLE_ACCESS);
		if (k < 0)
			skip("pkey_alloc");
		rc = pkey_mprotect(in, MIB, PROT_READ | PROT_WRITE, k);
	} else if (!strcmp(mode, "dontfork")) {
		rc = madvise(in, MIB, MADV_DONTFORK);
	} else if (!strcmp(mode, "wipeonfork")) {
		rc = madvise(in, MIB, MADV_WIPEONFORK);
	} else if (!strcmp(mode, "guard")) {
		if (madvise(in, 4096, MADV_GUARD_INSTALL) != 0)
			skip("madvise(MADV_GUARD_INSTALL)");
	} else if (!strcmp(mode, "dontdump")) {
		rc = madvise(in, MIB, MADV_DONTDUMP);
	} else if (!strcmp(mode, "mergeable")) {
		if (madvise(in, MIB, MADV_MERGEABLE) != 0)
			skip("madvise(MADV_MERGEABLE)");
	} else if (!strcmp(mode, "hugepage")) {
		rc = madvise(in, MIB, MADV_HUGEPAGE);
	} else if (!strcmp(mode, "nohugepage")) {
		rc = madvise(in, MIB, MADV_NOHUGEPAGE);
	} else if (!strcmp(mode, "free")) {
		rc = madvise(in, MIB, MADV_FREE);
	} else if (!strcmp(mode, "mlock")) {
		if (mlock(in, MIB) != 0)
			skip("mlock");
	} else if (!strcmp(mode, "mremap")) {
		/* 1 MiB moved out (it cannot grow in place): its data goes with it */
		unsigned long long before = checksum((unsigned char *)in, MIB);
		void *q = mremap(in, MIB, 2 * MIB, MREMAP_MAYMOVE);
		if (q == MAP_FAILED)
			skip("mremap");
		printf("moved: %s\n", checksum(q, MIB) == before ? "same data" : "data changed");
		munmap(q, 2 * MIB);
	} else if (!strcmp(mode, "munmap")) {
		rc = munmap(in, MIB);
	} else if (strcmp(mode, "none") != 0) {
		fprintf(stderr, "afterfree: unknown mode %s\n", mode);
		exit(2);
	}
	if (rc != 0) {
		printf("%s: %s\n", mode, strerror(errno));
		exit(3);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "none";
	char *p = malloc(SZ);

	if (!p)
		return 4;
	memset(p, 0x5a, SZ);
	set_state(mode, p);
	printf("%s: set\n", mode);
	free(p);
	for (int i = 0; !strcmp(mode, "none") && i < 64; i++) {
		char *q = malloc(SZ);
		memset(q, i, SZ);
		free(q);
	}
	unsigned char *c = calloc(1, SZ);
	size_t nonzero = 0;
	for (size_t i = 0; c && i < SZ; i++)
		nonzero += c[i] != 0;
	printf("calloc: %zu nonzero bytes\n", nonzero);
	use("calloc", c, 0x11);
	free(c);
	unsigned char *m = malloc(SZ);
	use("malloc", m, 0x22);
	unsigned char *r = realloc(m, 2 * SZ);
	if (r) {
		memset(r + SZ, 0x33, SZ);
		printf("realloc: kept %016llx\n", checksum(r, SZ));
		describe("realloc", (char *)r, 2 * SZ);
	}
	free(r);
	printf("%s: done\n", mode);
	return 0;
}
