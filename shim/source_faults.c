/* source_faults.c — the page-fault source (sources.h): the bytes each
 * site first touched, from minor-fault samples, alone (HMPT_SAMPLE=faults)
 * or beside an access source (the timer).
 *
 * Why a file of its own: a fault names a page, not an access; what it
 * brought in (a base page, a huge page, an mTHP folio counted from the page
 * table), which blocks are observed (arena.h reuses freed pages for the
 * others), which pages wait for a write (the zero page) and what no fault
 * saw (unseen at the free) are this source's alone.  The core (sample.c)
 * resolves each sample to its block and calls hmpt_source_faults_touch. */
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arena.h"
#include "sample.h"
#include "sites.h"
#include "sources.h"
#include "sys.h"
#include "touched.h"

/* page-fault mode: a site's blocks decided on, and those observed */
typedef struct {
	uint64_t allocs, observed;
} observe_t;

static observe_t *observe_g;
/* mTHP: the largest enabled size below the PMD size, and the page table */
#define MTHP_MAX_PAGES 256 /* 1 MiB of 4 KiB pages */
static uint64_t mthp_g;
static int pagemap_fd_g = -1;

bool hmpt_source_faults_map(void)
{
	if (!observe_g)
		observe_g = hmpt_sys_map(HMPT_SITES_MAX * sizeof(observe_t));
	/* a reservation, backed only where it is used */
	return observe_g && hmpt_touched_init(hmpt_sample_page());
}

bool hmpt_sample_observe(uint32_t site)
{
	if (!observe_g || site >= HMPT_SITES_MAX)
		return true;
	uint64_t k = __atomic_fetch_add(&observe_g[site].allocs, 1, __ATOMIC_RELAXED);
	bool o = k < HMPT_SAMPLE_OBSERVE_FIRST ||
	         (k - HMPT_SAMPLE_OBSERVE_FIRST) % HMPT_SAMPLE_OBSERVE_EVERY == 0;
	if (o)
		__atomic_fetch_add(&observe_g[site].observed, 1, __ATOMIC_RELAXED);
	return o;
}

void hmpt_sample_observed(uint32_t site, uint64_t *allocs, uint64_t *observed)
{
	*allocs = *observed = 0;
	if (observe_g && site < HMPT_SITES_MAX && hmpt_sample_active_caps().first_touch) {
		*allocs = __atomic_load_n(&observe_g[site].allocs, __ATOMIC_RELAXED);
		*observed = __atomic_load_n(&observe_g[site].observed, __ATOMIC_RELAXED);
	}
}

uint64_t hmpt_sample_mthp(void)
{
	return pagemap_fd_g >= 0 ? mthp_g : 0;
}

/* x86 reports a base page for a fault that mapped a multi-size THP folio
 * (pte_leaf_size is PAGE_SIZE): the pages present in the naturally aligned
 * block of the largest enabled mTHP size around the fault, within the
 * block's range [lo, hi), are counted now.  touched.h counts each base page
 * once, so a neighbour counted early (its own fault still in a ring, or a
 * base page the kernel mapped alone) is not counted again; the page table
 * is read only while one of them is not counted yet. */
static uint64_t mthp_bytes(uintptr_t addr, uintptr_t lo, uintptr_t hi, uint64_t born)
{
	uint64_t ent[MTHP_MAX_PAGES];
	uintptr_t a = addr & ~(uintptr_t)(mthp_g - 1), b = a + mthp_g;

	a = a > lo ? a : lo;
	b = b < hi ? b : hi;
	if (b <= a || !hmpt_touched_missing(a, b, born))
		return 0;
	size_t n = (b - a) / hmpt_sample_page();
	n = n < MTHP_MAX_PAGES ? n : MTHP_MAX_PAGES;
	ssize_t got =
	    pread(pagemap_fd_g, ent, n * sizeof(ent[0]), (off_t)(a / hmpt_sample_page() * 8));
	uint64_t bytes = 0;
	for (ssize_t i = 0; i < got / 8; i++)
		if (ent[i] >> 63) /* present: the zero page too (a read) */
			bytes +=
			    hmpt_touched_add(a + (uintptr_t)i * hmpt_sample_page(),
			                     a + (uintptr_t)(i + 1) * hmpt_sample_page(), born);
	hmpt_sample_counts()->mthp_bytes += bytes;
	return bytes;
}

/* Bytes a page fault at `addr` brought in: the page the kernel mapped (its
 * size is read once the fault is handled: pmu.c samples minor faults), cut
 * to the block's range [lo, hi) where a huge page reaches past the block,
 * less what the block's earlier faults counted (touched.h) when `once`;
 * with `near`, an mTHP folio's other pages (mthp_bytes). */
static uint64_t fault_bytes(const hmpt_ring_sample_t *s, uintptr_t lo, uintptr_t hi, uint64_t born,
                            bool once, bool near)
{
	uint64_t ps = s->page_size ? s->page_size : hmpt_sample_page();
	uintptr_t from = s->addr & ~(uintptr_t)(ps - 1), to = from + ps;

	if (lo < hi) {
		from = from > lo ? from : lo;
		to = to < hi ? to : hi;
	}
	if (to <= from)
		return 0;
	if (!once)
		return to - from;
	uint64_t n = hmpt_touched_add(from, to, born);
	if (near && ps < mthp_g && pagemap_fd_g >= 0 && lo < hi)
		n += mthp_bytes(s->addr, lo, hi, born);
	return n;
}

/* The largest multi-size THP size enabled below the PMD size (0: none).
 * Sizes are tried by name (no directory listing: it would allocate). */
static uint64_t mthp_enabled(void)
{
	const char *dir = "/sys/kernel/mm/transparent_hugepage";
	char path[128], buf[64], top[64];
	uint64_t best = 0;

	hmpt_fmt_text(path, sizeof(path), "%s/enabled", dir);
	bool top_on = hmpt_sys_read_file(path, top, sizeof(top)) > 0 && !strstr(top, "[never]");
	hmpt_fmt_text(path, sizeof(path), "%s/hpage_pmd_size", dir);
	int64_t pmd = hmpt_sample_read_sysctl(path, 2 << 20);
	for (uint64_t kb = 8; kb * 1024 < (uint64_t)pmd; kb <<= 1) {
		hmpt_fmt_text(path, sizeof(path), "%s/hugepages-%" PRIu64 "kB/enabled", dir, kb);
		if (hmpt_sys_read_file(path, buf, sizeof(buf)) <= 0)
			continue;
		if (strstr(buf, "[always]") || strstr(buf, "[madvise]") ||
		    (strstr(buf, "[inherit]") && top_on))
			best = kb * 1024;
	}
	return best > hmpt_sample_page() ? best : 0;
}

/* page-fault mode reads present bits around mTHP faults (no privilege
 * needed for those); a fork child opens its own */
static void open_pagemap(void)
{
	if (pagemap_fd_g >= 0)
		close(pagemap_fd_g);
	pagemap_fd_g = -1;
	mthp_g = mthp_enabled();
	if (mthp_g && mthp_g / hmpt_sample_page() <= MTHP_MAX_PAGES)
		pagemap_fd_g = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
}

void hmpt_source_faults_go_live(void)
{
	open_pagemap();
	hmpt_arena_observe_by(hmpt_sample_observe);
}

void hmpt_source_faults_fork_child(void)
{
	madvise(observe_g, HMPT_SITES_MAX * sizeof(observe_t), MADV_DONTNEED);
	hmpt_touched_reset();
}

bool hmpt_source_faults_touch(const hmpt_ring_sample_t *s, int64_t site, uintptr_t lo, uintptr_t hi,
                              uint64_t born, bool gone, bool unobserved, bool beside)
{
	hmpt_sample_totals_t *t = hmpt_sample_counts();

	if (site < 0 || site >= HMPT_SITES_MAX) {
		if (site == -1)
			t->untracked_bytes += fault_bytes(s, 0, 0, 0, false, false);
		return !beside; /* the core counts it untracked */
	}
	if (unobserved) { /* its pages may be another block's (arena.h) */
		t->unobserved++;
		return false;
	}
	uint64_t bytes = fault_bytes(s, lo, hi, born, true, !gone);
	hmpt_sample_site_t *acc = hmpt_sample_acc((uint32_t)site);
	if (!bytes) {
		/* still a step of its walk: a page counted early from the page
		 * table (mTHP) faults later; a refault of the same page is no
		 * step (pattern.h) */
		if (!beside)
			hmpt_sample_note_pattern(acc, s, true, born, lo, hi, gone);
		/* no page first touched: the copy after a zero-page read (whose
		 * node is known now), a NUMA-balancing hint, two threads racing
		 * on one page */
		t->refaults++;
		if (hmpt_touched_unwait(s->addr & ~(uintptr_t)(hmpt_sample_page() - 1), born)) {
			/* the block may have changed sites (realloc in place)
			 * since its wait was counted */
			if (acc->node_wait)
				acc->node_wait--;
			hmpt_sample_pend((uint32_t)site, s->addr, born);
		}
		return false;
	}
	acc->bytes += bytes;
	return !beside;
}

void hmpt_source_faults_describe(hmpt_fmt_t *f, const char *why)
{
	hmpt_fmt_printf(f,
	                "software page faults (first touch only: access density is not "
	                "available: %s); " HMPT_SOURCE_KERNEL_TOUCHES " are %s",
	                why,
	                hmpt_sample_kernel_touches()
	                    ? "counted"
	                    : "not counted (kernel samples need perf_event_paranoid <= 1 or "
	                      "CAP_PERFMON)");
	hmpt_fmt_str(f, "; pages filled through get_user_pages (process_vm_writev, "
	                "O_DIRECT, RDMA) never raise a fault event: counted at their "
	                "block's free as unseen");
	if (mthp_g)
		hmpt_fmt_printf(f, "; mTHP up to %s counted from the page table",
		                HMPT_SIZE(mthp_g));
}

/* Bytes of [start, start+len) resident that no fault counted for the
 * block born at `born` (mincore, a granule's pages at a time) */
static uint64_t unseen_bytes(uintptr_t start, uint64_t len, uint64_t born)
{
	unsigned char vec[512];
	uint64_t n = 0;

	for (uintptr_t p = start; p < start + len;) {
		size_t k = (start + len - p + hmpt_sample_page() - 1) / hmpt_sample_page();
		k = k < sizeof(vec) ? k : sizeof(vec);
		if (mincore((void *)p, k * hmpt_sample_page(), vec) != 0)
			break;
		n += hmpt_touched_unseen(p, vec, k, born);
		p += k * hmpt_sample_page();
	}
	return n;
}

/* The core's hmpt_sample_before_release, after its drain, with the sample
 * lock held: a freed block's pages still waiting for a write count as not
 * found, and its resident pages no fault counted as unseen. */
void hmpt_source_faults_release(uintptr_t start, uint64_t len, uint32_t site, uint64_t born,
                                bool freeing)
{
	if (!freeing || site >= HMPT_SITES_MAX)
		return;
	hmpt_sample_site_t *acc = hmpt_sample_acc(site);
	uint64_t w = hmpt_touched_unwait_range(start, start + len, born);
	w = w < acc->node_wait ? w : acc->node_wait;
	acc->node_wait -= w;
	acc->node[HMPT_SAMPLE_NODES + 1] += w;
	if (born >= hmpt_sample_fork_ns())
		acc->unseen_bytes += unseen_bytes(start, len, born);
}

/* At the end, with the sample lock held after the last drain: the unseen bytes of
 * every observed block still live (arrays an HPC program never frees). */
void hmpt_source_faults_stop(void)
{
	uintptr_t at = 0, start;
	hmpt_block_t b;

	while (hmpt_arena_next(at, &start, &b) == 0) {
		at = start + ((uintptr_t)b.ngran << HMPT_GRANULE_SHIFT);
		if (!b.unobserved && b.born >= hmpt_sample_fork_ns() && b.site < HMPT_SITES_MAX)
			hmpt_sample_acc(b.site)->unseen_bytes +=
			    unseen_bytes(start, b.mapped, b.born);
	}
}
