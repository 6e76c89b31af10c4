/* perfev.c — see perfev.h. */
#include "perfev.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"

void hmpt_perfev_opts_init(hmpt_perfev_opts_t *o, const hmpt_pmu_setup_t *s, size_t ring_pages,
                           size_t page)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < s->nevents; i++)
		if (s->ev[i].sampling)
			o->sample_type = s->ev[i].attr.sample_type;
	o->clock = true;
	o->ring_pages = ring_pages;
	o->page = page;
}

size_t hmpt_perfev_data_bytes(const hmpt_perfev_opts_t *o)
{
	return o->ring_pages * o->page;
}

static int perf_open(struct perf_event_attr *a, int group)
{
	return (int)syscall(SYS_perf_event_open, a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/* "CALL: ERROR", or "perf_event_open(EVENT): ERROR" when `call` is NULL */
static void describe_failure(char *err, size_t cap, const char *event, const char *call, int e)
{
	if (call)
		hmpt_fmt_text(err, cap, "%s: %s", call, strerrordesc_np(e));
	else
		hmpt_fmt_text(err, cap, "perf_event_open(%s): %s", event, strerrordesc_np(e));
}

static void release(hmpt_perfev_group_t *g, const hmpt_perfev_opts_t *o, bool unmap)
{
	if (g->ring && unmap)
		munmap(g->ring, (o->ring_pages + 1) * o->page);
	for (int i = 0; i < g->nfd; i++)
		close(g->fd[i]);
	g->ring = NULL;
	g->nfd = 0;
	g->ring_fd = -1;
}

void hmpt_perfev_close(hmpt_perfev_group_t *g, const hmpt_perfev_opts_t *o)
{
	release(g, o, true);
}

void hmpt_perfev_forget(hmpt_perfev_group_t *g)
{
	release(g, NULL, false);
}

int hmpt_perfev_open(const hmpt_pmu_setup_t *s, const hmpt_perfev_opts_t *o, hmpt_perfev_group_t *g,
                     char *err, size_t cap)
{
	int rc = 0;

	g->nfd = 0;
	g->ring_fd = -1;
	g->ring = NULL;
	for (int i = 0; i < s->nevents; i++) {
		const hmpt_pmu_event_t *e = &s->ev[i];
		struct perf_event_attr a = e->attr;
		a.size = sizeof(a);
		a.disabled = 0;
		a.inherit = 0;
		/* every event of a group, a counting leader too: core.c refuses
		 * a member whose clock is not its leader's */
		a.use_clockid = o->clock;
		a.clockid = o->clock ? CLOCK_MONOTONIC : 0;
		if (e->sampling) {
			a.sample_type = o->sample_type;
			a.watermark = 1;
			a.wakeup_watermark = (uint32_t)(hmpt_perfev_data_bytes(o) / 4);
		}
		int fd = perf_open(&a, e->leader >= 0 ? g->fd[e->leader] : -1);
		if (fd < 0) {
			rc = -errno;
			describe_failure(err, cap, e->name, NULL, errno);
			goto undo;
		}
		g->fd[g->nfd++] = fd;
		g->id[i] = 0;
		ioctl(fd, PERF_EVENT_IOC_ID, &g->id[i]);
		if (!e->sampling)
			continue;
		if (g->ring_fd < 0) {
			void *m = mmap(NULL, (o->ring_pages + 1) * o->page, PROT_READ | PROT_WRITE,
			               MAP_SHARED, fd, 0);
			if (m == MAP_FAILED) {
				rc = -errno;
				describe_failure(err, cap, NULL, "mmap of the ring", errno);
				goto undo;
			}
			g->ring = m;
			g->ring_fd = fd;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, g->ring_fd) != 0) {
			rc = -errno;
			describe_failure(err, cap, NULL, "ioctl(PERF_EVENT_IOC_SET_OUTPUT)", errno);
			goto undo;
		}
	}
	return 0;
undo:
	release(g, o, true);
	return rc;
}

static void add_fallback(hmpt_perfev_opts_t *o, const char *step)
{
	hmpt_fmt_clause(o->fallbacks, sizeof(o->fallbacks), "%s", step);
}

int hmpt_perfev_open_first(const hmpt_pmu_setup_t *s, hmpt_perfev_opts_t *o, hmpt_perfev_group_t *g,
                           char *err, size_t cap)
{
	for (;;) {
		int rc = hmpt_perfev_open(s, o, g, err, cap);
		if (rc != -EINVAL)
			return rc;
		if (o->sample_type & PERF_SAMPLE_WEIGHT_STRUCT) {
			o->sample_type = (o->sample_type & ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT) |
			                 PERF_SAMPLE_WEIGHT;
			add_fallback(o, "the kernel refused the weight struct (before Linux 5.12): "
			                "latency from the plain weight, no instruction latency");
		} else if (o->sample_type & PERF_SAMPLE_DATA_PAGE_SIZE) {
			o->sample_type &= ~(uint64_t)PERF_SAMPLE_DATA_PAGE_SIZE;
			add_fallback(o,
			             "the kernel refused the data page size (before Linux 5.11): "
			             "each first touch counts one base page, huge pages count low");
		} else if (o->clock) {
			o->clock = false;
			add_fallback(o,
			             "the kernel refused a CLOCK_MONOTONIC clock for the events: "
			             "no timestamps, so a sample in a block freed or moved since "
			             "counts for the block there when it is read");
		} else {
			return rc;
		}
	}
}

uint64_t hmpt_perfev_budget_threads(const hmpt_perfev_budget_t *b)
{
	if (b->unlimited || b->rlimit == UINT64_MAX || !b->ring_bytes || !b->page)
		return UINT64_MAX;
	/* in pages, as perf_mmap() counts: rings go to the user's locked_vm
	 * up to the shared limit; the one that crosses it puts its overflow on
	 * its process's pinned_vm, and after that each process holds only the
	 * whole rings its own RLIMIT_MEMLOCK takes (a ring is not split across
	 * processes) */
	uint64_t shared = b->mlock_kb * 1024 / b->page * b->cpus;
	uint64_t own = b->rlimit / b->page;
	uint64_t ring = b->ring_bytes / b->page;
	uint64_t n = shared / ring;
	uint64_t left = own;
	if (shared % ring && ring - shared % ring <= own) {
		n++; /* the crossing ring: its process has `left` pages after it */
		left = own - (ring - shared % ring);
	}
	uint64_t procs = b->processes ? b->processes : 1;
	return n + left / ring + (procs - 1) * (own / ring);
}

void hmpt_perfev_disable(const hmpt_perfev_group_t *g)
{
	for (int i = 0; i < g->nfd; i++)
		ioctl(g->fd[i], PERF_EVENT_IOC_DISABLE, 0);
}
