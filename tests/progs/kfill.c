/* kfill — arrays first touched in the ways page-fault sampling must tell
 * apart, for t_sample_kernel.  Each line marked "fill:" names its array,
 * how it is first touched, and the MiB touched.
 *
 * kfill FILE [MIDRUN_PROFILE]: FILE holds at least 8 MiB (read() fills R
 * from it); the profile is written once mid-run when a path is given. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)
#define N   (8 * MiB)

static void touch(char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4096)
		p[i] = (char)(i >> 12 | 1);
}

/* a second process writes v through process_vm_writev (get_user_pages:
 * no fault event is raised for those first touches) */
static int remote_fill(char *v)
{
	/* Yama's ptrace_scope 1 (Ubuntu's default) lets a process write into
	 * its descendants only: this one names its child (any) instead */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	pid_t c = fork();
	if (c < 0)
		return -1;
	if (c == 0) {
		char *src =
		    mmap(NULL, N, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (src == MAP_FAILED)
			_exit(2);
		memset(src, 7, N);
		struct iovec l = {src, N}, r = {v, N};
		_exit(process_vm_writev(getppid(), &l, 1, &r, 1, 0) == (ssize_t)N ? 0 : 3);
	}
	int st;
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* whether a read of fresh memory maps the kernel's shared zero page here
 * (move_pages says -EFAULT for it; some VM kernels never map it) */
static int zero_page_mapped(void)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	volatile char c = p[0];
	(void)c;
	void *pg = p;
	int st = 0;
	long rc = syscall(SYS_move_pages, 0, 1L, &pg, NULL, &st, 0);
	munmap(p, 4096);
	return rc == 0 && st == -EFAULT;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	printf("zeropage %d\n", zero_page_mapped());
	char *r = malloc(N);    /* fill: R read 8 */
	char *v = malloc(N);    /* fill: V vm_writev 8 */
	char *s = malloc(N);    /* fill: S touch 8 */
	char *z = calloc(1, N); /* fill: Z zero 8 */
	char *g = malloc(N);    /* fill: G vm_writev_freed 8 */
	if (!r || !v || !s || !z || !g)
		return 1;
	/* z's read faults page by page, where transparent huge pages are
	 * "always" too (RHEL's default; the arena's blocks are 2 MiB aligned) */
	uintptr_t za = ((uintptr_t)z + 4095) & ~(uintptr_t)4095;
	madvise((void *)za, N - (za - (uintptr_t)z), MADV_NOHUGEPAGE);
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	for (size_t got = 0; got < N;) {
		ssize_t k = read(fd, r + got, N - got);
		if (k <= 0)
			return 1;
		got += (size_t)k;
	}
	close(fd);
	int rc = remote_fill(v);
	if (rc == 0)
		rc = remote_fill(g);
	if (rc) {
		fprintf(stderr, "kfill: process_vm_writev failed (%d)\n", rc);
		return 3;
	}
	touch(s, N);
	/* every page of z read first (the kernel maps its zero page), a
	 * profile written meanwhile, then each page written after 0.5 s */
	long sum = 0;
	for (size_t i = 0; i < N; i += 4096)
		sum += z[i];
	int (*write_profile)(const char *) =
	    (int (*)(const char *))dlsym(RTLD_DEFAULT, "hmpt_profile_write");
	if (argc > 2 && write_profile && write_profile(argv[2]) != 0)
		return 4;
	struct timespec ts = {0, 800 * 1000 * 1000};
	nanosleep(&ts, NULL);
	touch(z, N);
	sum += r[4096] + v[4096] + s[4096] + z[4096] + g[4096];
	printf("sum %ld\n", sum);
	free(g); /* counted at its free; the others at the end */
	return 0;
}
