/* test_perfev.c — perf event groups opened by the shim's own code
 * (perfev.c), and the records the kernel writes for them read by ring.c.
 *
 * No PMU is needed: software events take the places of the hardware ones.
 * A counting leader with a sampling member is the shape of Sapphire Rapids'
 * mem-loads-aux group, and the member asks for the very fields PEBS does, so
 * the kernel lays the records out as it would for PEBS.  Every expected value
 * comes from the kernel or the program (the thread, the addresses touched,
 * the clock around the touches), never from ring.c's own idea of the layout.
 * What only hardware settles (the erratum workaround, interrupt rates,
 * E-cores, PEBS in VMs) is listed in docs/evidence.md, "Sampling without a
 * PMU". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "perfev.h"
#include "ring.h"

#define ST_PEBS                                                                                    \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |          \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC)

/* the kernel's PERF_MEM_NA (include/linux/perf_event.h, not uapi): what
 * perf_prepare_sample() writes for an event that has no data source */
#define MEM_NA                                                                                     \
	(PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA) | \
	 PERF_MEM_S(TLB, NA))

static size_t page;

static void event(hmpt_pmu_event_t *e, const char *name, uint64_t config, bool sampling, int leader,
                  uint64_t sample_type)
{
	memset(e, 0, sizeof(*e));
	strcpy(e->name, name);
	e->attr.size = sizeof(e->attr);
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = config;
	e->attr.exclude_kernel = 1;
	e->attr.exclude_hv = 1;
	e->leader = leader;
	e->sampling = sampling;
	if (sampling) {
		e->attr.sample_period = 1;
		e->attr.sample_type = sample_type;
	}
}

/* mem-loads-aux's place: a counting leader; the loads' place: minor faults
 * with the PEBS fields (+ `extra`) */
static void spr_shaped(hmpt_pmu_setup_t *s, uint64_t extra)
{
	memset(s, 0, sizeof(*s));
	s->kind = HMPT_SAMPLER_PEBS;
	event(&s->ev[0], "context-switches (as mem-loads-aux)", PERF_COUNT_SW_CONTEXT_SWITCHES,
	      false, -1, 0);
	event(&s->ev[1], "minor-faults (as loads)", PERF_COUNT_SW_PAGE_FAULTS_MIN, true, 0,
	      ST_PEBS | extra);
	s->nevents = 2;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct {
	int n;
	hmpt_ring_sample_t s[4096];
} got_t;

static void collect(const hmpt_ring_sample_t *s, void *ctx)
{
	got_t *g = ctx;
	if (g->n < 4096)
		g->s[g->n++] = *s;
}

static bool perf_usable(void)
{
	hmpt_pmu_setup_t s;
	hmpt_perfev_opts_t o;
	hmpt_perfev_group_t g;
	char err[160];

	memset(&s, 0, sizeof(s));
	event(&s.ev[0], "task-clock", PERF_COUNT_SW_TASK_CLOCK, false, -1, 0);
	s.nevents = 1;
	hmpt_perfev_opts_init(&o, &s, 8, page);
	if (hmpt_perfev_open(&s, &o, &g, err, sizeof(err)) != 0) {
		printf("SKIP: software perf events cannot be opened here: %s\n", err);
		return false;
	}
	hmpt_perfev_close(&g, &o);
	return true;
}

/* The group opens whole, timestamps on, nothing refused; and the kernel
 * does refuse a member whose clock is not its leader's (what the shim did
 * before: the clock on the sampling events only). */
static void test_group_clock(void)
{
	hmpt_pmu_setup_t s;
	hmpt_perfev_opts_t o;
	hmpt_perfev_group_t g;
	char err[160] = "";

	spr_shaped(&s, 0);
	hmpt_perfev_opts_init(&o, &s, 8, page);
	CHECK(o.clock && o.sample_type == ST_PEBS && !o.fallbacks[0]);
	int rc = hmpt_perfev_open_first(&s, &o, &g, err, sizeof(err));
	if (rc)
		fprintf(stderr, "open_first: %s\n", err);
	CHECK_OP(rc, ==, 0);
	CHECK(o.clock && o.sample_type == ST_PEBS);
	if (o.fallbacks[0])
		fprintf(stderr, "fallbacks taken: %s\n", o.fallbacks);
	CHECK_OP(o.fallbacks[0], ==, 0);
	CHECK(g.nfd == 2 && g.ring && g.ring_fd == g.fd[1] && g.id[0] != g.id[1]);
	if (rc == 0)
		hmpt_perfev_close(&g, &o);

	/* the old opener: leader on the default clock, member on CLOCK_MONOTONIC */
	struct perf_event_attr lead = s.ev[0].attr, mem = s.ev[1].attr;
	mem.use_clockid = 1;
	mem.clockid = CLOCK_MONOTONIC;
	int lfd = (int)syscall(SYS_perf_event_open, &lead, 0, -1, -1, 0);
	CHECK_OP(lfd, >=, 0);
	errno = 0;
	int mfd = (int)syscall(SYS_perf_event_open, &mem, 0, -1, lfd, 0);
	CHECK_OP(mfd, <, 0);
	CHECK_OP(errno, ==, EINVAL);
	if (mfd >= 0)
		close(mfd);
	close(lfd);
}

/* Each refusal is one step, said once, in order; the options start afresh
 * for a new setup. */
static void test_fallback_steps(void)
{
	hmpt_pmu_setup_t s;
	hmpt_perfev_opts_t o;
	hmpt_perfev_group_t g;
	char err[160];

	spr_shaped(&s, PERF_SAMPLE_DATA_PAGE_SIZE);
	/* a sampling frequency above the kernel's maximum: EINVAL whatever is
	 * dropped, so every step is taken */
	s.ev[1].attr.freq = 1;
	s.ev[1].attr.sample_freq = UINT64_MAX >> 1;
	hmpt_perfev_opts_init(&o, &s, 8, page);
	CHECK_OP(hmpt_perfev_open_first(&s, &o, &g, err, sizeof(err)), ==, -EINVAL);
	CHECK_OP(strstr(err, "minor-faults (as loads)"), !=, NULL);
	const char *w = strstr(o.fallbacks, "weight struct");
	const char *p = strstr(o.fallbacks, "data page size");
	const char *c = strstr(o.fallbacks, "CLOCK_MONOTONIC");
	CHECK(w && p && c && w < p && p < c);
	CHECK(w && !strstr(w + 1, "weight struct"));
	CHECK(!o.clock && o.sample_type == ((ST_PEBS & ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT) |
	                                    PERF_SAMPLE_WEIGHT));
	hmpt_perfev_opts_init(&o, &s, 8, page);
	CHECK(o.clock && !o.fallbacks[0] && (o.sample_type & PERF_SAMPLE_WEIGHT_STRUCT));
}

/* Touch `n` pages of `mem` (one byte each, `step` apart) under the group
 * and read its ring with ring.c. */
static void touch_and_read(hmpt_perfev_group_t *g, const hmpt_perfev_opts_t *o, char *mem, size_t n,
                           size_t step, got_t *got, uint64_t *t0, uint64_t *t1)
{
	hmpt_ring_counts_t c = {0};

	*t0 = now_ns();
	for (size_t i = 0; i < n; i++)
		((volatile char *)mem)[i * step] = 1;
	*t1 = now_ns();
	got->n = 0;
	hmpt_ring_drain(g->ring, hmpt_perfev_data_bytes(o), o->sample_type, collect, got, &c);
	CHECK_OP(c.malformed, ==, 0);
	CHECK_OP(c.lost, ==, 0);
}

/* Records the kernel wrote with the PEBS field set, parsed by ring.c. */
static void test_kernel_records(void)
{
	hmpt_pmu_setup_t s;
	hmpt_perfev_opts_t o;
	hmpt_perfev_group_t g;
	char err[160];
	got_t *got = calloc(1, sizeof(*got));
	const size_t n = 64;

	spr_shaped(&s, PERF_SAMPLE_DATA_PAGE_SIZE);
	hmpt_perfev_opts_init(&o, &s, 64, page); /* room for 4096 records */
	if (hmpt_perfev_open_first(&s, &o, &g, err, sizeof(err)) != 0) {
		fprintf(stderr, "open: %s\n", err);
		CHECK(0);
		free(got);
		return;
	}
	CHECK(!o.fallbacks[0]);
	char *mem =
	    mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK_OP(mem, !=, MAP_FAILED);
	madvise(mem, n * page, MADV_NOHUGEPAGE);
	uint64_t t0, t1;
	touch_and_read(&g, &o, mem, n, page, got, &t0, &t1);
	int ours = 0;
	uint64_t last = 0;
	for (int i = 0; i < got->n; i++) {
		const hmpt_ring_sample_t *x = &got->s[i];
		if (x->addr < (uintptr_t)mem || x->addr >= (uintptr_t)mem + n * page)
			continue; /* the test's own other faults (stack, the ring's reader) */
		CHECK_OP(x->addr, ==, (uintptr_t)mem + (uint64_t)ours * page);
		CHECK_OP(x->pid, ==, (uint32_t)getpid());
		CHECK_OP(x->tid, ==, (uint32_t)syscall(SYS_gettid));
		CHECK_OP(x->time, >=, t0);
		CHECK_OP(x->time, <=, t1);
		CHECK_OP(x->time, >=, last);
		CHECK_OP(x->id, ==, g.id[1]);
		CHECK_OP(x->weight, ==, 0);
		CHECK_OP(x->ins_lat, ==, 0);
		/* what the kernel writes for an event with no data source */
		CHECK_OP((x->data_src & MEM_NA), ==, MEM_NA);
		CHECK_OP(hmpt_datasrc_level(x->data_src), ==, HMPT_LEVEL_NONE);
		CHECK_OP(x->page_size, ==, page);
		last = x->time;
		ours++;
	}
	if (ours != (int)n)
		fprintf(stderr, "%d of %zu first touches sampled (%d records)\n", ours, n, got->n);
	CHECK_OP(ours, ==, (int)n);
	munmap(mem, n * page);

	/* a transparent huge page: one fault, the kernel's size is 2 MiB */
	char buf[64] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	if (!buf[0] || strstr(buf, "[never]")) {
		printf(
		    "note: no transparent huge pages here; the 2 MiB first touch is not checked\n");
	} else {
		const size_t huge = 2u << 20, len = 4 * huge;
		char *raw = mmap(NULL, len + huge, PROT_READ | PROT_WRITE,
		                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *h = (char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
		madvise(h, len, MADV_HUGEPAGE);
		touch_and_read(&g, &o, h, len / page, page, got, &t0, &t1);
		uint64_t bytes = 0, huge_faults = 0;
		for (int i = 0; i < got->n; i++)
			if (got->s[i].addr >= (uintptr_t)h && got->s[i].addr < (uintptr_t)h + len) {
				bytes += got->s[i].page_size;
				huge_faults += got->s[i].page_size == huge;
			}
		printf("THP first touch: %llu of 4 faults mapped a 2 MiB page\n",
		       (unsigned long long)huge_faults);
		/* the kernel may fall back to small pages (no free huge page): every
		 * byte is counted either way, exactly once */
		if (bytes != len)
			fprintf(stderr, "THP first touch: %llu bytes counted, %zu touched\n",
			        (unsigned long long)bytes, len);
		CHECK_OP(bytes, ==, len);
		munmap(raw, len + huge);
	}
	hmpt_perfev_close(&g, &o);
	free(got);
}

/* perf_mmap()'s arithmetic: the user's share per CPU, then each process's
 * RLIMIT_MEMLOCK; CAP_IPC_LOCK or no limit lifts it */
static void test_budget(void)
{
	hmpt_perfev_budget_t b = {.mlock_kb = 516,
	                          .cpus = 2,
	                          .rlimit = 64 * 1024,
	                          .ring_bytes = 65 * 4096,
	                          .processes = 1,
	                          .page = 4096};

	/* 129 pages x 2 + 16 = 274 pages, 65 a ring */
	CHECK_OP(hmpt_perfev_budget_threads(&b), ==, 4);
	/* 8 processes: 3 rings fill 195 of the 258 shared pages, the 4th puts
	 * its last 2 pages on its process's 16; no process holds a whole ring
	 * more */
	b.processes = 8;
	CHECK_OP(hmpt_perfev_budget_threads(&b), ==, 4);
	b.rlimit = 8u << 20; /* systemd's default: 2048 pages, 31 rings each */
	CHECK_OP(hmpt_perfev_budget_threads(&b), ==, 4 + (2048 - 2) / 65 + 7 * (2048 / 65));
	b.rlimit = 64 * 1024;
	b.cpus = 112, b.processes = 112, b.ring_bytes = 17 * 4096; /* a Xeon Max node, PEBS rings */
	/* 14448 shared pages: 849 rings and 15 pages, the 850th takes 2 of
	 * its process's 16; each process's 16 holds no whole ring */
	CHECK_OP(hmpt_perfev_budget_threads(&b), ==, 850);
	b.rlimit = UINT64_MAX;
	CHECK_OP(hmpt_perfev_budget_threads(&b), ==, UINT64_MAX);
	b.rlimit = 0, b.unlimited = true;
	CHECK_OP(hmpt_perfev_budget_threads(&b), ==, UINT64_MAX);
}

int main(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	test_budget();
	if (!perf_usable())
		return 77;
	test_group_clock();
	test_fallback_steps();
	test_kernel_records();
	if (failures)
		fprintf(stderr, "test_perfev: %d failures\n", failures);
	return failures != 0;
}
