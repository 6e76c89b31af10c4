/* sample.c — see sample.h. */
#include "sample.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "decode.h"
#include "lockrank.h"
#include "log.h"
#include "perfev.h"
#include "sites.h"
#include "sources.h"
#include "statics.h"
#include "touched.h"
#include "sys.h"

#define MAX_THREADS 1024
#define GONE_MAX    4096
#define BATCH       256

enum { SLOT_FREE, SLOT_OPENING, SLOT_ACTIVE, SLOT_CLOSING };

typedef struct {
	int state;
	pid_t tid;
	hmpt_perfev_group_t ev;
} slot_t;

/* a block that left its address range: samples older than `died` found
 * there belong to it */
typedef struct {
	uintptr_t start, end;
	uint64_t born, died;
	uint32_t site;
	bool unobserved;
} gone_t;

typedef struct {
	uint32_t site;
	uintptr_t page;
	uint64_t born; /* of the block the page was counted for */
} pending_t;

static pthread_mutex_t lock_g = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t gone_lock_g = PTHREAD_MUTEX_INITIALIZER;
static slot_t *slots_g;
static hmpt_sample_site_t *sites_g;
static gone_t *gone_g;
static uint64_t gone_n_g;
static hmpt_sample_totals_t totals_g;
static hmpt_pmu_setup_t setup_g = {.kind = HMPT_SAMPLER_OFF}; /* never started */
static const hmpt_sample_source_t *src_g;                     /* setup_g.kind's row (sources.h) */
static hmpt_sample_config_t cfg_g;
static hmpt_perfev_opts_t opts_g;    /* how every thread opens its events */
static uint64_t room_g = UINT64_MAX; /* threads' rings the kernel's budget holds */
static int active_g;
static int stopping_g;
static int wake_fd_g = -1;
static pthread_key_t key_g;
static size_t page_g = 4096;
static char why_g[256];
/* pages waiting for the node lookup: looked up BATCH at a time at the end
 * of each drain (or when full) */
#define PENDING_MAX 8192
static pending_t pending_g[PENDING_MAX];
static unsigned npending_g;
static hmpt_sample_tramp_t tramps_g[MAX_THREADS];
/* a fork child's blocks born before the fork hold its parent's pages: no
 * fault of its own counted them, and they are not unseen */
static uint64_t fork_ns_g;
static hmpt_pthread_create_fn create_g;

/* what the source in use reports (none before it starts) */
static hmpt_sample_caps_t caps(void)
{
	return src_g ? src_g->caps : (hmpt_sample_caps_t){0};
}

hmpt_sample_caps_t hmpt_sample_active_caps(void)
{
	return caps();
}

hmpt_sample_site_t *hmpt_sample_acc(uint32_t site)
{
	return &sites_g[site];
}

hmpt_sample_totals_t *hmpt_sample_counts(void)
{
	return &totals_g;
}

size_t hmpt_sample_page(void)
{
	return page_g;
}

uint64_t hmpt_sample_fork_ns(void)
{
	return fork_ns_g;
}

/* the index of the event that samples first touches, or -1 */
static int touch_event(void)
{
	for (int i = 0; i < setup_g.nevents; i++)
		if (setup_g.ev[i].touches)
			return i;
	return -1;
}

void hmpt_sample_lock(void)
{
	hmpt_lock_take(&lock_g, HMPT_LOCK_SAMPLE);
}

void hmpt_sample_unlock(void)
{
	hmpt_lock_drop(&lock_g);
}

void hmpt_sample_reset_lock(void)
{
	hmpt_lock_reset(&lock_g);
}

void hmpt_sample_gone_lock(void)
{
	hmpt_lock_take(&gone_lock_g, HMPT_LOCK_SAMPLE_GONE);
}

void hmpt_sample_gone_unlock(void)
{
	hmpt_lock_drop(&gone_lock_g);
}

void hmpt_sample_gone_reset_lock(void)
{
	hmpt_lock_reset(&gone_lock_g);
}

bool hmpt_sample_active(void)
{
	return __atomic_load_n(&active_g, __ATOMIC_ACQUIRE);
}

const hmpt_pmu_setup_t *hmpt_sample_setup_used(void)
{
	return setup_g.kind == HMPT_SAMPLER_OFF && !why_g[0] ? NULL : &setup_g;
}

const hmpt_sample_totals_t *hmpt_sample_totals(void)
{
	return sites_g ? &totals_g : NULL;
}

const hmpt_sample_site_t *hmpt_sample_site(uint32_t site)
{
	if (!sites_g || site >= HMPT_SITES_MAX)
		return NULL;
	const hmpt_sample_site_t *s = &sites_g[site];
	return s->samples || s->bytes || s->unseen_bytes || s->node_wait ? s : NULL;
}

bool hmpt_sample_kernel_touches(void)
{
	int t = touch_event();
	return caps().first_touch && t >= 0 && !setup_g.ev[t].attr.exclude_kernel;
}

uint64_t hmpt_sample_type_used(void)
{
	return opts_g.sample_type;
}

const char *hmpt_sample_fallbacks(void)
{
	return opts_g.fallbacks;
}

uint64_t hmpt_sample_ring_room(void)
{
	return room_g;
}

const char *hmpt_sample_why(void)
{
	return why_g;
}

static void count(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static void wake_reader(void)
{
	uint64_t one = 1;

	if (wake_fd_g >= 0 && write(wake_fd_g, &one, sizeof(one)) < 0) {
		/* the counter is full: the reader is awake anyway */
	}
}

/* ------------------------------------------------------------ attribution */

static unsigned lat_bucket(uint64_t w)
{
	unsigned b = 0;

	for (uint64_t lim = 16; b < HMPT_SAMPLE_LAT_BUCKETS - 1 && w >= lim; lim <<= 1)
		b++;
	return b;
}

/* The site whose block held `addr` at time t (0: time unknown, the current
 * owner), with the block's range in [*lo, *hi) and its birth in *born (left
 * as they are for static data); -1: not tracked memory; -2: tracked memory
 * whose block left no trace. */
static int64_t resolve(uint64_t addr, uint64_t t, bool *gone, uintptr_t *lo, uintptr_t *hi,
                       uint64_t *born, bool *unobserved)
{
	hmpt_block_t b;
	uintptr_t start;
	int64_t site = -2;

	*gone = false;
	*unobserved = false;
	if (!hmpt_arena_owns((void *)addr)) {
		const hmpt_static_t *o = hmpt_statics_at((uintptr_t)addr);
		/* static data lives as long as the process: born 0, and a fault
		 * counts its whole page, as the page serves the object */
		return o && o->site != HMPT_SITE_OVERFLOW ? (int64_t)o->site : -1;
	}
	if (hmpt_arena_find((void *)addr, &start, &b) == 0 && (t == 0 || b.born <= t)) {
		*lo = start;
		*hi = start + b.mapped;
		*born = b.born;
		*unobserved = b.unobserved;
		return b.site;
	}
	hmpt_lock_take(&gone_lock_g, HMPT_LOCK_SAMPLE_GONE);
	uint64_t n = gone_n_g < GONE_MAX ? gone_n_g : GONE_MAX;
	for (uint64_t k = 0; k < n; k++) {
		const gone_t *e = &gone_g[(gone_n_g - 1 - k) % GONE_MAX];
		if (addr >= e->start && addr < e->end &&
		    (t == 0 || (e->born <= t && t < e->died))) {
			site = e->site;
			*lo = e->start;
			*hi = e->end;
			*born = e->born;
			*unobserved = e->unobserved;
			*gone = true;
			break;
		}
	}
	hmpt_lock_drop(&gone_lock_g);
	return site;
}

/* A page that maps the kernel's shared zero page (-EFAULT: a read of
 * calloc'd or fresh memory) has no node yet: the write that gives it its
 * real page faults again (a refault), and its node is looked up then.  It
 * waits, marked in touched.h, for as long as that takes: until the write,
 * the free of its block (then it counts as not found), or the end of the
 * process (`last`; a profile written mid-run leaves it waiting). */
static void wait_zero(const pending_t *e, bool last)
{
	if (!last && hmpt_touched_wait(e->page, e->born))
		sites_g[e->site].node_wait++;
	else
		sites_g[e->site].node[HMPT_SAMPLE_NODES + 1]++;
}

/* The node of each pending page, BATCH pages per system call; with
 * `last`, every page is counted, found or not, and so is every page that
 * waits for a write. */
static void flush_pending(bool last)
{
	for (unsigned base = 0; base < npending_g; base += BATCH) {
		unsigned n = npending_g - base < BATCH ? npending_g - base : BATCH;
		void *pages[BATCH];
		int status[BATCH];
		for (unsigned i = 0; i < n; i++) {
			pages[i] = (void *)pending_g[base + i].page;
			status[i] = -1;
		}
		if (syscall(SYS_move_pages, 0, (unsigned long)n, pages, NULL, status, 0) != 0)
			for (unsigned i = 0; i < n; i++)
				status[i] = -1;
		for (unsigned i = 0; i < n; i++) {
			const pending_t *e = &pending_g[base + i];
			int node = status[i];
			if (node == -EFAULT) {
				wait_zero(e, last);
				continue;
			}
			/* a page already gone (freed since) has no node */
			unsigned slot = node < 0                   ? HMPT_SAMPLE_NODES + 1
			                : node < HMPT_SAMPLE_NODES ? (unsigned)node
			                                           : HMPT_SAMPLE_NODES;
			sites_g[e->site].node[slot]++;
		}
	}
	npending_g = 0;
	if (!last)
		return;
	for (uint32_t i = 0; i < HMPT_SITES_MAX && i < hmpt_sites_count(); i++) {
		sites_g[i].node[HMPT_SAMPLE_NODES + 1] += sites_g[i].node_wait;
		sites_g[i].node_wait = 0;
	}
}

void hmpt_sample_pend(uint32_t site, uintptr_t addr, uint64_t born)
{
	pending_g[npending_g++] = (pending_t){site, addr & ~(uintptr_t)(page_g - 1), born};
	if (npending_g == PENDING_MAX)
		flush_pending(false);
}

static void note_tid(hmpt_sample_site_t *acc, uint32_t tid)
{
	for (unsigned i = 0; i < HMPT_SAMPLE_TIDS; i++) {
		if (acc->tid[i] == tid || acc->tid[i] == 0) {
			acc->tid[i] = tid;
			acc->tid_n[i]++;
			return;
		}
	}
	acc->tid_other++;
}

/* The 8-byte word at `addr`: only from a page still resident (a read of a
 * page freed meanwhile would fault one in, which no fault sample counts),
 * and through the kernel, so that a range unmapped meanwhile is an error,
 * not a crash. */
static bool read_word(uintptr_t addr, uint64_t *w)
{
	return hmpt_decode_read_data(addr & ~(uintptr_t)7, sizeof(*w), w);
}

/* The sample's place in its site's access pattern (pattern.h), whether the
 * word it names points into its own block, and the instruction that
 * issued it. */
void hmpt_sample_note_pattern(hmpt_sample_site_t *acc, const hmpt_ring_sample_t *s, bool faults,
                              uint64_t born, uintptr_t lo, uintptr_t hi, bool gone)
{
	uint64_t w, unit = s->page_size ? s->page_size : page_g, mthp = hmpt_sample_mthp();

	/* with mTHP a fault maps a folio the sample calls a base page: walks
	 * are followed in folios (a stride under one is not seen) */
	if (faults && mthp > unit)
		unit = mthp;
	acc->pattern.faults = faults;
	hmpt_pattern_note(&acc->pattern, s->tid, born, hi - lo, s->addr, faults ? unit : 0);
	if (lo < hi && !gone && hmpt_pattern_wants_word(&acc->pattern) && read_word(s->addr, &w))
		hmpt_pattern_note_word(&acc->pattern, w >= lo && w < hi);
	if (opts_g.sample_type & PERF_SAMPLE_IP && s->ip) {
		hmpt_pattern_top_add(&acc->ips, (int64_t)s->ip, 1);
		acc->ips_of++;
	}
}

/* the index in setup_g of the event a sample came from, or -1 */
static int event_of(const slot_t *sl, uint64_t id)
{
	for (int i = 0; i < sl->ev.nfd; i++)
		if (sl->ev.id[i] == id)
			return i;
	return -1;
}

/* A sample: an access (PEBS, IBS, the timer once located) or a first touch
 * (a page fault).  First touches beside an access source (the timer's)
 * count bytes only: the accesses make the site's samples, pattern and
 * threads. */
static void on_sample(const hmpt_ring_sample_t *in, void *ctx)
{
	const slot_t *sl = ctx;
	int ev = event_of(sl, in->id);
	bool faults = ev >= 0 ? setup_g.ev[ev].touches : caps().first_touch;
	bool beside = faults && caps().access_density;
	bool store = false, gone, unobserved;
	uintptr_t lo = 0, hi = 0;
	uint64_t born = 0;
	hmpt_ring_sample_t located;
	const hmpt_ring_sample_t *s = in;

	if (!faults && !in->addr && src_g && src_g->locate) {
		located = *in;
		src_g->locate(&located, &store);
		s = &located;
	}
	if (!s->addr) {
		if (!beside)
			totals_g.no_address++;
		return;
	}
	int64_t site =
	    resolve(s->addr, opts_g.clock ? s->time : 0, &gone, &lo, &hi, &born, &unobserved);
	/* a first touch: the bytes are the source's to count */
	if (faults && src_g && src_g->touch &&
	    !src_g->touch(s, site, lo, hi, born, gone, unobserved, beside))
		return;
	if (site < 0 || site >= HMPT_SITES_MAX) {
		if (site == -1)
			totals_g.untracked++;
		else
			totals_g.gone_unknown++;
		return;
	}
	hmpt_sample_site_t *acc = &sites_g[site];
	if (gone)
		totals_g.attributed_gone++;
	else
		totals_g.attributed++;
	acc->samples++;
	if (hmpt_datasrc_is_store(s->data_src) || (ev >= 0 && setup_g.ev[ev].store))
		store = true;
	if (store)
		acc->stores++;
	/* a weight of 0 is no latency: IBS gives one only for a load that
	 * missed the data cache (amd/ibs.c) */
	if (opts_g.sample_type & PERF_SAMPLE_WEIGHT_TYPE && !store && s->weight) {
		acc->lat_sum += s->weight;
		acc->lat_n++;
		acc->lat_hist[lat_bucket(s->weight)]++;
	}
	hmpt_level_t lvl = hmpt_datasrc_level(s->data_src);
	if (lvl < HMPT_LEVEL_COUNT)
		acc->level[lvl]++;
	note_tid(acc, s->tid);
	hmpt_sample_note_pattern(acc, s, faults, born, lo, hi, gone);
	hmpt_sample_pend((uint32_t)site, s->addr, born);
}

void hmpt_sample_note_gone(uintptr_t start, uint64_t len, uint32_t site, uint64_t born,
                           bool unobserved)
{
	if (!hmpt_sample_active())
		return;
	uint64_t died = hmpt_sys_now_ns();
	hmpt_lock_take(&gone_lock_g, HMPT_LOCK_SAMPLE_GONE);
	gone_g[gone_n_g % GONE_MAX] = (gone_t){start, start + len, born, died, site, unobserved};
	gone_n_g++;
	hmpt_lock_drop(&gone_lock_g);
}

/* -------------------------------------------------------------- the rings */

static void close_slot(slot_t *sl)
{
	hmpt_perfev_close(&sl->ev, &opts_g);
	__atomic_store_n(&sl->state, SLOT_FREE, __ATOMIC_RELEASE);
}

/* with lock_g held; `last`: pages not there yet are counted now */
static void drain_all(bool last)
{
	if (!slots_g)
		return;
	for (int i = 0; i < MAX_THREADS; i++) {
		slot_t *sl = &slots_g[i];
		int st = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
		if (st != SLOT_ACTIVE && st != SLOT_CLOSING)
			continue;
		if (sl->ev.ring)
			hmpt_ring_drain(sl->ev.ring, hmpt_perfev_data_bytes(&opts_g),
			                opts_g.sample_type, on_sample, sl, &totals_g.ring);
		if (st == SLOT_CLOSING)
			close_slot(sl);
	}
	flush_pending(last);
}

static void *reader(void *unused)
{
	static struct pollfd pfd[MAX_THREADS + 1];

	(void)unused;
	while (!__atomic_load_n(&stopping_g, __ATOMIC_ACQUIRE)) {
		nfds_t n = 0;
		pfd[n++] = (struct pollfd){.fd = wake_fd_g, .events = POLLIN};
		for (int i = 0; i < MAX_THREADS; i++)
			if (__atomic_load_n(&slots_g[i].state, __ATOMIC_ACQUIRE) == SLOT_ACTIVE &&
			    slots_g[i].ev.ring_fd >= 0)
				pfd[n++] =
				    (struct pollfd){.fd = slots_g[i].ev.ring_fd, .events = POLLIN};
		/* a ring's watermark wakes us; the timeout bounds how stale a
		 * slowly filling ring gets */
		poll(pfd, n, 200);
		if (pfd[0].revents & POLLIN) {
			uint64_t v;
			if (read(wake_fd_g, &v, sizeof(v)) < 0) {
				/* nothing to clear */
			}
		}
		if (__atomic_load_n(&stopping_g, __ATOMIC_ACQUIRE))
			break;
		hmpt_lock_take(&lock_g, HMPT_LOCK_SAMPLE);
		drain_all(false);
		hmpt_lock_drop(&lock_g);
	}
	return NULL;
}

static slot_t *claim_slot(void)
{
	for (int i = 0; i < MAX_THREADS; i++) {
		int expected = SLOT_FREE;
		if (__atomic_compare_exchange_n(&slots_g[i].state, &expected, SLOT_OPENING, false,
		                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return &slots_g[i];
	}
	return NULL;
}

static void activate(slot_t *sl)
{
	sl->tid = (pid_t)syscall(SYS_gettid);
	pthread_setspecific(key_g, (void *)(uintptr_t)(sl - slots_g + 1));
	__atomic_store_n(&sl->state, SLOT_ACTIVE, __ATOMIC_RELEASE);
	count(&totals_g.threads);
	wake_reader();
}

void hmpt_sample_thread_begin(void)
{
	char err[160];

	if (!hmpt_sample_active())
		return;
	slot_t *sl = claim_slot();
	if (!sl) {
		count(&totals_g.threads_unsampled);
		return;
	}
	int rc = hmpt_perfev_open(&setup_g, &opts_g, &sl->ev, err, sizeof(err));
	if (rc != 0) {
		static int said;
		if (hmpt_log_first(&said)) {
			char buf[320];
			hmpt_fmt_t f;
			hmpt_log_begin(&f, buf, sizeof(buf));
			hmpt_fmt_printf(&f, "sampling: a thread runs unsampled: %s", err);
			if (rc == -EPERM && room_g != UINT64_MAX)
				hmpt_fmt_printf(
				    &f,
				    "; the kernel's budget for perf rings holds about %" PRIu64
				    " threads' rings here (raise kernel.perf_event_mlock_kb or "
				    "'ulimit -l')",
				    room_g);
			hmpt_fmt_str(&f, " (said once; the profile counts threads_failed)");
			hmpt_log_end(&f, HMPT_LOG_WARN);
		}
		count(&totals_g.threads_failed);
		__atomic_store_n(&sl->state, SLOT_FREE, __ATOMIC_RELEASE);
		return;
	}
	activate(sl);
}

/* a sampled thread ends: stop its events; the reader reads what is left */
static void thread_end(void *v)
{
	slot_t *sl = &slots_g[(uintptr_t)v - 1];

	hmpt_perfev_disable(&sl->ev);
	__atomic_store_n(&sl->state, SLOT_CLOSING, __ATOMIC_RELEASE);
	wake_reader();
}

hmpt_sample_tramp_t *hmpt_sample_tramp_get(void)
{
	for (int i = 0; i < MAX_THREADS; i++) {
		int expected = 0;
		if (__atomic_compare_exchange_n(&tramps_g[i].used, &expected, 1, false,
		                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return &tramps_g[i];
	}
	count(&totals_g.threads_unsampled);
	return NULL;
}

void hmpt_sample_tramp_put(hmpt_sample_tramp_t *t)
{
	__atomic_store_n(&t->used, 0, __ATOMIC_RELEASE);
}

/* ----------------------------------------------------------------- set-up */

/* the effective capabilities (CapEff in /proc/self/status) */
static uint64_t effective_caps(void)
{
	char buf[2048];
	uint64_t caps = 0;

	if (hmpt_sys_read_file("/proc/self/status", buf, sizeof(buf)) <= 0)
		return 0;
	const char *p = strstr(buf, "CapEff:");
	if (!p)
		return 0;
	for (p += 7; *p == '\t' || *p == ' '; p++)
		;
	for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
		caps = caps << 4 | (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	return caps;
}

static bool privileged(void)
{
	/* CAP_PERFMON, CAP_SYS_ADMIN */
	return geteuid() == 0 || (effective_caps() & (1ull << 38 | 1ull << 21));
}

/* a sysctl's integer value, or `dflt` when it cannot be read */
int64_t hmpt_sample_read_sysctl(const char *path, int64_t dflt)
{
	char buf[24];

	if (hmpt_sys_read_file(path, buf, sizeof(buf)) <= 0)
		return dflt;
	int64_t v = 0, sign = 1;
	const char *p = buf;
	if (*p == '-') {
		sign = -1;
		p++;
	}
	for (; *p >= '0' && *p <= '9' && v < INT64_MAX / 10 - 9; p++)
		v = v * 10 + (*p - '0');
	return sign * v;
}

static int paranoid_level(void)
{
	/* 2: the kernel's default */
	return (int)hmpt_sample_read_sysctl("/proc/sys/kernel/perf_event_paranoid", 2);
}

/* The ring budget, checked before sampling starts: said when the job may
 * want more rings than it holds (those threads would run unsampled). */
static void check_budget(void)
{
	struct rlimit rl;
	hmpt_perfev_budget_t b = {
	    .cpus =
	        (uint64_t)(sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1),
	    .rlimit = 64 * 1024,
	    .unlimited = (effective_caps() & (1ull << 14)) || paranoid_level() == -1,
	    .ring_bytes = (opts_g.ring_pages + 1) * opts_g.page,
	    .processes = cfg_g.processes ? cfg_g.processes : 1,
	    .page = opts_g.page};

	int64_t kb =
	    hmpt_sample_read_sysctl("/proc/sys/kernel/perf_event_mlock_kb", 516); /* the default */
	b.mlock_kb = kb > 0 ? (uint64_t)kb : 0;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0)
		b.rlimit = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
	room_g = hmpt_perfev_budget_threads(&b);
	uint64_t want = b.processes * (cfg_g.threads ? cfg_g.threads : 1);
	if (room_g == UINT64_MAX || want <= room_g)
		return;
	hmpt_log_printf(HMPT_LOG_WARN,
	                "sampling: the kernel's budget for perf rings holds about %" PRIu64
	                " threads on this node (perf_event_mlock_kb %" PRIu64 " KiB x %" PRIu64
	                " CPUs for all of this user's processes, then RLIMIT_MEMLOCK %s each; %s a "
	                "thread), and this run may sample %" PRIu64 " (%" PRIu64 " %s x %" PRIu64
	                " threads): the others run unsampled; raise kernel.perf_event_mlock_kb or "
	                "'ulimit -l', or grant CAP_IPC_LOCK",
	                room_g, b.mlock_kb, b.cpus, HMPT_SIZE(b.rlimit), HMPT_SIZE(b.ring_bytes),
	                want, b.processes, b.processes == 1 ? "process" : "ranks",
	                cfg_g.threads ? cfg_g.threads : 1);
}

static void set_why(const char *a, const char *b)
{
	hmpt_fmt_text(why_g, sizeof(why_g), "%s%s%s", a, b ? "; " : "", b ? b : "");
}

static int choose(hmpt_sampler_t want)
{
	hmpt_pmu_request_t rq = {.root = "",
	                         .want = want,
	                         .period = cfg_g.period,
	                         .ldlat = cfg_g.ldlat,
	                         .stores = true,
	                         .privileged = privileged(),
	                         .paranoid = paranoid_level(),
	                         .timer = hmpt_decode_available()};
	int rc = hmpt_pmu_setup(&rq, &setup_g);

	src_g = hmpt_sample_source(setup_g.kind);
	/* each attempt starts with nothing refused */
	if (rc == 0 && setup_g.nevents)
		hmpt_perfev_opts_init(&opts_g, &setup_g, src_g->ring_pages, page_g);
	return rc;
}

static void log_started(void)
{
	char buf[1024];
	hmpt_fmt_t f;
	hmpt_log_begin(&f, buf, sizeof(buf));
	if (src_g && src_g->describe) {
		hmpt_fmt_str(&f, "sampling: ");
		src_g->describe(&f, why_g);
		if (src_g->locate)
			hmpt_fmt_printf(&f, "; period %" PRIu64 " ns of CPU time", setup_g.period);
	} else {
		hmpt_fmt_printf(&f, "sampling: %s on %s", hmpt_sampler_name(setup_g.kind),
		                setup_g.model);
		for (int i = 0; i < setup_g.nevents; i++)
			hmpt_fmt_printf(&f, "%s%s", i ? ", " : ": ", setup_g.ev[i].name);
		hmpt_fmt_printf(&f, ", period %" PRIu64, setup_g.period);
		if (setup_g.note[0])
			hmpt_fmt_printf(&f, " (%s)", setup_g.note);
	}
	if (opts_g.fallbacks[0])
		hmpt_fmt_printf(&f, "; %s", opts_g.fallbacks);
	/* falling back from a kind asked for by name is news the user should
	 * see; under "auto" the profile and hmpt-tune say it */
	hmpt_log_end(&f, cfg_g.want != HMPT_SAMPLER_AUTO && cfg_g.want != setup_g.kind
	                     ? HMPT_LOG_WARN
	                     : HMPT_LOG_INFO);
}

static bool map_tables(void)
{
	if (!slots_g)
		slots_g = hmpt_sys_map(MAX_THREADS * sizeof(slot_t));
	if (!sites_g)
		sites_g = hmpt_sys_map(HMPT_SITES_MAX * sizeof(hmpt_sample_site_t));
	if (!gone_g)
		gone_g = hmpt_sys_map(GONE_MAX * sizeof(gone_t));
	return slots_g && sites_g && gone_g && (!src_g->map || src_g->map());
}

static int start_reader(void)
{
	sigset_t all, old;
	pthread_t t;

	wake_fd_g = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wake_fd_g < 0)
		return -errno;
	/* the reader never takes the program's signals */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = create_g(&t, NULL, reader, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		close(wake_fd_g);
		wake_fd_g = -1;
		return -rc;
	}
	pthread_detach(t);
	return 0;
}

/* Sampling runs: the reader starts, then the slot `sl` (this thread's
 * events, open) goes live; on failure the slot is closed. */
static int go_live(slot_t *sl)
{
	__atomic_store_n(&active_g, 1, __ATOMIC_RELEASE);
	int rc = start_reader();
	if (rc) {
		__atomic_store_n(&active_g, 0, __ATOMIC_RELEASE);
		close_slot(sl);
		return rc;
	}
	hmpt_arena_stamp_births();
	if (src_g->go_live)
		src_g->go_live();
	activate(sl);
	return 0;
}

/* The first open; page-fault mode asks for kernel samples where the
 * request says they are allowed, and does without them if refused. */
static int open_first(slot_t *sl, char *err, size_t cap)
{
	int rc = hmpt_perfev_open_first(&setup_g, &opts_g, &sl->ev, err, cap);
	int t = touch_event();

	if (rc != 0 && t >= 0 && !setup_g.ev[t].attr.exclude_kernel) {
		setup_g.ev[t].attr.exclude_kernel = 1;
		rc = hmpt_perfev_open_first(&setup_g, &opts_g, &sl->ev, err, cap);
		if (rc == 0)
			hmpt_fmt_clause(
			    opts_g.fallbacks, sizeof(opts_g.fallbacks), "%s",
			    "the kernel refused kernel samples: " HMPT_SOURCE_KERNEL_TOUCHES
			    " are not counted");
	}
	return rc;
}

static int start(void)
{
	char err[160];
	slot_t *sl = claim_slot();

	bool started = !src_g->start || src_g->start(err, sizeof(err));
	if (!started || open_first(sl, err, sizeof(err)) != 0) {
		if (!caps().access_density) { /* first touches: nothing below them */
			set_why(err, NULL);
			goto fail;
		}
		/* hardware described but refused (a hypervisor, a policy): the
		 * timer where it decodes, else (or where it cannot run either)
		 * first touch is still worth having */
		char hw[160];
		memcpy(hw, err, sizeof(hw));
		if (!src_g->locate && hmpt_decode_available() && choose(HMPT_SAMPLER_TIMER) == 0 &&
		    src_g->start(err, sizeof(err)) && open_first(sl, err, sizeof(err)) == 0) {
			set_why(hw, NULL);
		} else if (choose(HMPT_SAMPLER_FAULTS) != 0 ||
		           open_first(sl, err, sizeof(err)) != 0) {
			set_why(hw, err);
			goto fail;
		} else {
			set_why(hw, NULL);
		}
	} else if (setup_g.why[0]) { /* why not hardware sampling */
		set_why(setup_g.why, NULL);
	}
	check_budget();
	int rc = go_live(sl);
	if (rc)
		set_why("cannot start the reader thread", strerrordesc_np(-rc));
	return rc;
fail:
	__atomic_store_n(&sl->state, SLOT_FREE, __ATOMIC_RELEASE);
	return -EPERM;
}

int hmpt_sample_start(const hmpt_sample_config_t *cfg)
{
	long ps = sysconf(_SC_PAGESIZE);

	if (ps > 0)
		page_g = (size_t)ps;
	cfg_g = *cfg;
	if (cfg->want == HMPT_SAMPLER_OFF)
		return -ENOTSUP;
	create_g = cfg->create;
	int rc = choose(cfg->want);
	if (rc) {
		set_why(setup_g.why, NULL);
		setup_g.kind = HMPT_SAMPLER_OFF;
	} else if (!map_tables() || pthread_key_create(&key_g, thread_end) != 0) {
		set_why("no memory for the sampler's tables", NULL);
		setup_g.kind = HMPT_SAMPLER_OFF;
		rc = -ENOMEM;
	} else {
		rc = start();
	}
	if (rc) {
		hmpt_log_printf(cfg->want == HMPT_SAMPLER_AUTO ? HMPT_LOG_INFO : HMPT_LOG_WARN,
		                "sampling is off: %s", why_g);
		setup_g.kind = HMPT_SAMPLER_OFF;
		return rc;
	}
	log_started();
	return 0;
}

static void flush(bool last)
{
	if (!slots_g)
		return;
	hmpt_lock_take(&lock_g, HMPT_LOCK_SAMPLE);
	drain_all(last);
	hmpt_lock_drop(&lock_g);
}

void hmpt_sample_flush(void)
{
	flush(false);
}

void hmpt_sample_add_region(uintptr_t lo, uintptr_t hi, uint64_t count)
{
	uintptr_t at = lo, start;
	hmpt_block_t b;
	uint64_t given = 0;

	if (hi <= lo || !count)
		return;
	if (!sites_g)
		sites_g = hmpt_sys_map(HMPT_SITES_MAX * sizeof(hmpt_sample_site_t));
	if (!sites_g)
		return;
	hmpt_lock_take(&lock_g, HMPT_LOCK_SAMPLE);
	/* the block that holds lo, then those that start after it */
	if (hmpt_arena_find((void *)lo, &start, &b) != 0 && hmpt_arena_next(lo, &start, &b) != 0)
		start = hi;
	while (start < hi) {
		uintptr_t a = start > lo ? start : lo, end = start + b.mapped;
		uintptr_t z = end < hi ? end : hi;
		if (z > a && b.site < HMPT_SITES_MAX) {
			uint64_t n = (uint64_t)((unsigned __int128)count * (z - a) / (hi - lo));
			sites_g[b.site].samples += n;
			given += n;
		}
		at = start + ((uintptr_t)b.ngran << HMPT_GRANULE_SHIFT);
		if (hmpt_arena_next(at, &start, &b) != 0)
			break;
	}
	totals_g.attributed += given;
	totals_g.untracked += count - given;
	hmpt_lock_drop(&lock_g);
}

void hmpt_sample_before_release(uintptr_t start, uint64_t len, uint32_t site, uint64_t born,
                                bool unobserved, bool freeing)
{
	if (!hmpt_sample_active() || !src_g->release || unobserved)
		return;
	hmpt_lock_take(&lock_g, HMPT_LOCK_SAMPLE);
	drain_all(false);
	src_g->release(start, len, site, born, freeing);
	hmpt_lock_drop(&lock_g);
}

void hmpt_sample_stop(void)
{
	if (!hmpt_sample_active())
		return;
	__atomic_store_n(&active_g, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < MAX_THREADS; i++) {
		slot_t *sl = &slots_g[i];
		if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) == SLOT_ACTIVE)
			hmpt_perfev_disable(&sl->ev);
	}
	flush(true);
	if (src_g->stop) {
		hmpt_lock_take(&lock_g, HMPT_LOCK_SAMPLE);
		src_g->stop();
		hmpt_lock_drop(&lock_g);
	}
	__atomic_store_n(&stopping_g, 1, __ATOMIC_RELEASE);
	wake_reader();
}

void hmpt_sample_fork_child(void)
{
	if (!slots_g)
		return;
	bool was = hmpt_sample_active();
	/* the parent's events: drop our references, never read them */
	for (int i = 0; i < MAX_THREADS; i++) {
		slot_t *sl = &slots_g[i];
		if (sl->state != SLOT_FREE) {
			hmpt_perfev_forget(&sl->ev);
			sl->state = SLOT_FREE;
		}
	}
	for (int i = 0; i < MAX_THREADS; i++)
		tramps_g[i].used = 0;
	/* this thread's key names its parent slot: its end must not close
	 * whichever slot has that index now */
	pthread_setspecific(key_g, NULL);
	/* the child's profile counts from the fork, as its sites do */
	madvise(sites_g, HMPT_SITES_MAX * sizeof(hmpt_sample_site_t), MADV_DONTNEED);
	if (src_g->fork_child)
		src_g->fork_child();
	fork_ns_g = hmpt_sys_now_ns();
	memset(&totals_g, 0, sizeof(totals_g));
	gone_n_g = 0;
	npending_g = 0;
	if (wake_fd_g >= 0)
		close(wake_fd_g);
	wake_fd_g = -1;
	__atomic_store_n(&active_g, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&stopping_g, 0, __ATOMIC_RELEASE);
	if (!was)
		return;
	char err[160];
	slot_t *sl = claim_slot();
	if (src_g->start && !src_g->start(err, sizeof(err)))
		return;
	if (hmpt_perfev_open(&setup_g, &opts_g, &sl->ev, err, sizeof(err)) != 0) {
		__atomic_store_n(&sl->state, SLOT_FREE, __ATOMIC_RELEASE);
		return;
	}
	go_live(sl);
}
