/* test_walk.c — the frame-pointer walk names every stack as libunwind's
 * walk does (shim/sites.c): the same site, hence the same id, for each
 * capture taken both ways from one call instruction, over stacks of deep
 * recursion, of calls through function pointers, with a library built
 * without frame pointers in the middle (and one whose frame-pointer
 * register points nowhere), through signal handlers, in threads, and
 * after the libraries were closed and opened again.  The libraries are
 * libwalk_fp.so and libwalk_nofp.so (walk_lib.c), beside this program:
 * this program's own frames count as hmpt's (sites.o is linked in), which
 * a site skips. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sites.h"

typedef void (*walk_cb_t)(void *);
typedef int (*walk_fn_t)(walk_cb_t, void *, int);
typedef int (*wild_fn_t)(walk_cb_t, void *);
typedef void (*dyn_fn_t)(walk_cb_t, void *, long, uintptr_t);

enum { FP, NOFP, NLIBS };
static const char *const names[NLIBS] = {"libwalk_fp.so", "libwalk_nofp.so"};
static void *handles[NLIBS];
static walk_fn_t calls[NLIBS], pointers[NLIBS];
static wild_fn_t wilds[NLIBS];
static uintptr_t bases[NLIBS];
static dyn_fn_t dyns[NLIBS];
static uintptr_t dyn_ras[NLIBS];
static long dyn_slots = 2;

/* A stack to build: steps taken in turn, the last one captures. */
enum { CALL, POINTERS, WILD, SIGNAL, DYNAMIC };
typedef struct {
	int kind, lib, depth;
} step_t;
typedef struct {
	const step_t *steps;
	int n, at;
	uint32_t site[2]; /* frame-pointer walk (where it can), libunwind's */
} walk_stack_t;

static __thread walk_stack_t *in_signal;

/* One call instruction for both captures: the same return addresses. */
static __attribute__((noinline)) void capture_both(walk_stack_t *s)
{
	for (int i = 0; i < 2; i++) {
		hmpt_sites_set_unwind_only(i == 1);
		s->site[i] = hmpt_sites_capture();
	}
	hmpt_sites_set_unwind_only(false);
}

static void step(void *arg);

static void on_signal(int sig)
{
	(void)sig;
	step(in_signal);
}

static void step(void *arg)
{
	walk_stack_t *s = arg;
	if (s->at == s->n) {
		capture_both(s);
		return;
	}
	const step_t *t = &s->steps[s->at++];
	switch (t->kind) {
	case CALL: calls[t->lib](step, s, t->depth); break;
	case POINTERS: pointers[t->lib](step, s, t->depth); break;
	case WILD: wilds[t->lib](step, s); break;
	case DYNAMIC: dyns[t->lib](step, s, dyn_slots, dyn_ras[t->lib]); break;
	case SIGNAL:
		in_signal = s;
		raise(SIGUSR1);
		break;
	}
}

/* Build the stack twice (the first time may teach the walk), checking
 * that both walks name the same site each time; the second capture's
 * walk, in *fp_named. */
static void check_stack(const char *what, const step_t *steps, int n, int *fp_named)
{
	for (int round = 0; round < 2; round++) {
		walk_stack_t s = {.steps = steps, .n = n};
		uint64_t fp0, all0, fp1, all1;
		hmpt_sites_walk_counts(&fp0, &all0);
		step(&s);
		hmpt_sites_walk_counts(&fp1, &all1);
		CHECK_OP(all1 - all0, ==, 2);
		if (s.site[0] != s.site[1]) {
			fprintf(
			    stderr,
			    "%s (round %d): the frame-pointer walk named site %u, libunwind %u\n",
			    what, round, s.site[0], s.site[1]);
			failures++;
		}
		CHECK_OP(s.site[0], !=, HMPT_SITE_OVERFLOW);
		if (round == 1 && fp_named)
			*fp_named = (int)(fp1 - fp0);
	}
}

static void open_libs(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	ssize_t len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (len < 0) {
		perror("/proc/self/exe");
		exit(1);
	}
	dir[len] = '\0';
	*strrchr(dir, '/') = '\0';
	for (int i = 0; i < NLIBS; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		handles[i] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!handles[i]) {
			fprintf(stderr, "%s\n", dlerror());
			exit(1);
		}
		calls[i] = (walk_fn_t)dlsym(handles[i], "walk_lib_call");
		pointers[i] = (walk_fn_t)dlsym(handles[i], "walk_lib_pointers");
		wilds[i] = (wild_fn_t)dlsym(handles[i], "walk_lib_wild");
		Dl_info info;
		if (!calls[i] || !pointers[i] || !wilds[i] || !dladdr((void *)calls[i], &info)) {
			fprintf(stderr, "%s: its functions are missing\n", path);
			exit(1);
		}
		bases[i] = (uintptr_t)info.dli_fbase;
		dyns[i] = (dyn_fn_t)dlsym(handles[i], "walk_lib_dynamic");
		dyn_ras[i] = (uintptr_t)dlsym(handles[i], "walk_lib_dynamic_ra");
	}
}

static void close_libs(void)
{
	for (int i = 0; i < NLIBS; i++)
		dlclose(handles[i]);
}

static int check_all(void)
{
	int fp_named, fp_total = 0;
	char what[64];

	/* deep recursion, every depth: frame pointers all the way */
	for (int d = 0; d <= 40; d++) {
		step_t s[] = {{CALL, FP, d}};
		snprintf(what, sizeof(what), "recursion %d deep", d);
		check_stack(what, s, 1, &fp_named);
		fp_total += fp_named;
		/* the depth is in frames that have them; or, below it, the
		 * stack's start-up frames (the C library's, which save rbp
		 * and use it as a register) have a known size */
		if (d >= 4)
			CHECK_OP(fp_named, ==, 1);
	}
	/* through function pointers */
	for (int d = 0; d <= 24; d += 3) {
		step_t s[] = {{POINTERS, FP, d}, {CALL, FP, 2}, {POINTERS, FP, d + 1}};
		check_stack("function pointers", s, 3, NULL);
	}
	/* a library without frame pointers in the middle, below and above
	 * the depth; its frame-pointer register pointing nowhere */
	for (int d = 0; d <= 20; d += 4) {
		step_t mid[] = {{CALL, FP, 6}, {CALL, NOFP, 3}, {CALL, FP, d}};
		check_stack("no frame pointers in the middle", mid, 3, NULL);
		step_t wild[] = {{CALL, FP, 6}, {WILD, NOFP, 0}, {POINTERS, FP, d}};
		check_stack("a wild frame pointer", wild, 3, &fp_named);
		if (d >= 16)
			CHECK_OP(fp_named, ==, 1);
		step_t nofp[] = {{POINTERS, NOFP, d}};
		check_stack("no frame pointers", nofp, 1, NULL);
	}
	/* a frame whose size at its call is not fixed (its CFA in rbx): taught
	 * with one size, walked with others, its unused stack holding a
	 * return address the walk knows (stale frames hold them) */
	for (long slots = 2; slots <= 8; slots += 2) {
		dyn_slots = slots;
		step_t s[] = {{CALL, FP, 4}, {DYNAMIC, NOFP, 0}, {CALL, FP, 4}};
		check_stack("a frame of varying size", s, 3, NULL);
	}
	dyn_slots = 2;
	/* signal handlers: above the handler the depth is reached, or not */
	for (int d = 2; d <= 20; d += 6) {
		step_t s[] = {{CALL, FP, 4}, {SIGNAL, 0, 0}, {CALL, FP, d}};
		check_stack("a signal handler", s, 3, NULL);
		step_t w[] = {{WILD, NOFP, 0}, {SIGNAL, 0, 0}, {WILD, NOFP, 0}, {CALL, FP, d}};
		check_stack("a signal handler between wild frames", w, 4, NULL);
	}
	return fp_total;
}

static void *thread_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		check_all();
	return NULL;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	CHECK_OP(hmpt_sites_init(16), ==, 0);
	open_libs();
	CHECK_OP(check_all(), >, 0);

	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		CHECK_OP(pthread_create(&t[i], NULL, thread_main, NULL), ==, 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);

	/* closed and opened again, mostly at the same addresses: the walk
	 * learns them again */
	uintptr_t before[NLIBS];
	memcpy(before, bases, sizeof(before));
	close_libs();
	open_libs();
	int same = 0;
	for (int i = 0; i < NLIBS; i++)
		same += bases[i] == before[i];
	CHECK_OP(check_all(), >, 0);
	close_libs();
	printf("test_walk: %d of %d libraries opened again at the same address\n", same, NLIBS);
	printf("test_walk: %d failures\n", failures);
	return failures != 0;
}
