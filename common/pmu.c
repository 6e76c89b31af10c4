/* pmu.c — see pmu.h. */
#include "pmu.h"

#include <errno.h>
#include <string.h>

#include "fmt.h"
#include "sys.h"

#define EVDIR "/sys/bus/event_source/devices/"

static const char *const sampler_names[] = {"auto", "pebs", "ibs", "faults", "timer", "off"};

const char *hmpt_sampler_name(hmpt_sampler_t k)
{
	return k <= HMPT_SAMPLER_OFF ? sampler_names[k] : "?";
}

int hmpt_sampler_parse(const char *s, hmpt_sampler_t *out)
{
	if (!strcmp(s, "1")) {
		*out = HMPT_SAMPLER_AUTO;
		return 0;
	}
	if (!strcmp(s, "0")) {
		*out = HMPT_SAMPLER_OFF;
		return 0;
	}
	for (int k = 0; k <= HMPT_SAMPLER_OFF; k++)
		if (!strcmp(s, sampler_names[k])) {
			*out = (hmpt_sampler_t)k;
			return 0;
		}
	return -EINVAL;
}

/* a | b | c into buf */
static const char *join(char *buf, size_t cap, const char *a, const char *b, const char *c)
{
	return hmpt_fmt_text(buf, cap, "%s%s%s", a, b, c ? c : "");
}

/* a sysfs file's first line, without the newline; false when absent */
static bool read_line(const char *path, char *buf, size_t cap)
{
	if (hmpt_sys_read_file(path, buf, cap) <= 0)
		return false;
	buf[strcspn(buf, "\n")] = 0;
	return true;
}

static bool exists(const char *path)
{
	char b[8];
	return hmpt_sys_read_file(path, b, sizeof(b)) >= 0;
}

static void say(char *dst, size_t cap, const char *a, const char *b, const char *c)
{
	join(dst, cap, a, b ? b : "", c);
}

/* ------------------------------------------------- sysfs event descriptions */

static bool parse_num(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	int base = 10;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		n -= 2;
	}
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		int d;
		char c = s[i];
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	*v = x;
	return true;
}

/* Put `value` into attr as the format line says ("config1:0-15",
 * "config:0-7,32-35", "config:19"): its low bits fill the ranges in order. */
static int apply_format(const char *fmt, uint64_t value, struct perf_event_attr *attr)
{
	uint64_t *dst;
	const char *colon = strchr(fmt, ':');

	if (!colon)
		return -EINVAL;
	size_t n = (size_t)(colon - fmt);
	if (n == 6 && !strncmp(fmt, "config", 6))
		dst = (uint64_t *)&attr->config;
	else if (n == 7 && !strncmp(fmt, "config1", 7))
		dst = (uint64_t *)&attr->config1;
	else if (n == 7 && !strncmp(fmt, "config2", 7))
		dst = (uint64_t *)&attr->config2;
	else
		return -EINVAL;
	const char *p = colon + 1;
	unsigned used = 0;
	while (*p) {
		uint64_t lo, hi;
		size_t len = strcspn(p, "-,");
		if (!parse_num(p, len, &lo))
			return -EINVAL;
		p += len;
		hi = lo;
		if (*p == '-') {
			p++;
			len = strcspn(p, ",");
			if (!parse_num(p, len, &hi))
				return -EINVAL;
			p += len;
		}
		if (hi < lo || hi > 63)
			return -EINVAL;
		for (uint64_t b = lo; b <= hi; b++, used++)
			if (used < 64 && (value >> used) & 1)
				*dst |= 1ull << b;
		if (*p == ',')
			p++;
	}
	if (used < 64 && (value >> used))
		return -ERANGE; /* the value does not fit the field */
	return 0;
}

int hmpt_pmu_parse_event(const char *pmu_dir, const char *desc, struct perf_event_attr *attr,
                         char *err, size_t errlen)
{
	const char *p = desc;
	char path[512], fmt[128], term[64];

	while (*p) {
		size_t len = strcspn(p, ",");
		size_t eq = strcspn(p, "=,");
		uint64_t value = 1;
		if (eq == 0 || eq >= sizeof(term)) {
			say(err, errlen, "bad term in '", desc, "'");
			return -EINVAL;
		}
		memcpy(term, p, eq);
		term[eq] = 0;
		if (eq < len && !parse_num(p + eq + 1, len - eq - 1, &value)) {
			say(err, errlen, "bad value in '", desc, "'");
			return -EINVAL;
		}
		join(path, sizeof(path), pmu_dir, "/format/", term);
		if (!read_line(path, fmt, sizeof(fmt))) {
			say(err, errlen, "no format for '", term,
			    "' (missing from the PMU's format/)");
			return -EINVAL;
		}
		if (apply_format(fmt, value, attr)) {
			say(err, errlen, "cannot apply '", term, "' with its format");
			return -EINVAL;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* ------------------------------------------------------------------ setup */

static void event_init(hmpt_pmu_event_t *e, const char *name, const char *source, uint32_t type)
{
	memset(e, 0, sizeof(*e));
	join(e->name, sizeof(e->name), name, "", NULL);
	join(e->source, sizeof(e->source), source, "", NULL);
	e->attr.size = sizeof(e->attr);
	e->attr.type = type;
	e->leader = -1;
	e->sampling = true;
}

/* The kernel's description of `event` on the PMU in `dir`, into attr's
 * config fields; false when the kernel has none. */
static bool kernel_event(const char *dir, const char *event, struct perf_event_attr *attr)
{
	char path[512], desc[256], err[160];

	join(path, sizeof(path), dir, "/events/", event);
	if (!read_line(path, desc, sizeof(desc)))
		return false;
	attr->config = attr->config1 = attr->config2 = 0;
	return hmpt_pmu_parse_event(dir, desc, attr, err, sizeof(err)) == 0;
}

/* Whether the store event is MEM_TRANS_RETIRED.STORE_SAMPLE (0x2cd) rather
 * than MEM_INST_RETIRED.ALL_STORES (0x82d0): only the fallback when sysfs has
 * no mem-stores uses this.  The names are the pmu_name strings that
 * arch/x86/events/intel/core.c intel_pmu_init() gives the Golden Cove and
 * later big cores, whose mem-stores is "event=0xcd,umask=0x2" (glc_events_attrs
 * for Sapphire/Emerald/Granite Rapids; the big-core entry of the hybrid
 * mem_st_adl / mem_st_arl_h strings).  Emerald Rapids shares the
 * INTEL_SAPPHIRERAPIDS_X case there and reports "sapphire_rapids"; the kernel
 * has no "emerald_rapids" name. */
static bool stores_are_2cd(const char *model)
{
	static const char *const names[] = {
	    "sapphire_rapids",  "granite_rapids",     "alderlake_hybrid",   "meteorlake_hybrid",
	    "lunarlake_hybrid", "pantherlake_hybrid", "arrowlake_h_hybrid",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(model, names[i]))
			return true;
	return false;
}

/* "<label>: libpfm4 encodes 0x3cd, <whose> 0x2cd (used)" added to the note */
static void note_differ(hmpt_pmu_setup_t *s, const char *label, uint64_t pfm, uint64_t used,
                        const char *whose)
{
	hmpt_fmt_clause(s->note, sizeof(s->note), "%s: libpfm4 encodes 0x%llx, %s 0x%llx (used)",
	                label, (unsigned long long)pfm, whose, (unsigned long long)used);
}

/* One PEBS event: libpfm4's encoding of `pfm_name`, checked against the
 * kernel's `sysfs_name`; the kernel wins when they differ, and `fallback`
 * (the kernel's documented encoding) serves when neither answers. */
static bool pebs_event(hmpt_pmu_setup_t *s, hmpt_pmu_event_t *e, const char *dir, uint32_t type,
                       const char *label, const char *pfm_name, const char *sysfs_name,
                       uint64_t fallback)
{
	hmpt_pfm_code_t pc;
	struct perf_event_attr k;
	char err[160];
	bool have_pfm = pfm_name && hmpt_pfm_encode(pfm_name, &pc, err, sizeof(err)) == 0;
	bool have_kernel;

	memset(&k, 0, sizeof(k));
	have_kernel = kernel_event(dir, sysfs_name, &k);
	if (have_kernel) {
		event_init(e, label, "sysfs", type);
		e->attr.config = k.config;
		if (have_pfm && pc.config != k.config)
			note_differ(s, label, pc.config, k.config, "the kernel's sysfs");
		else if (have_pfm)
			join(e->source, sizeof(e->source), "libpfm4+sysfs", "", NULL);
		return true;
	}
	if (have_pfm) {
		event_init(e, label, "libpfm4", type);
		e->attr.config = pc.config;
		if (fallback && pc.config != fallback) {
			/* a known libpfm4 error: the kernel's documented value */
			note_differ(s, label, pc.config, fallback, "the kernel's encoding is");
			e->attr.config = fallback;
			join(e->source, sizeof(e->source), "kernel", "", NULL);
		}
		return true;
	}
	if (fallback) {
		event_init(e, label, "kernel", type);
		e->attr.config = fallback;
		return true;
	}
	return false;
}

/* The load-latency threshold within what the kernel takes: config1 is
 * written whole to MSR_PEBS_LD_LAT_THRESHOLD, and x86_pmu_extra_regs()
 * (arch/x86/events/core.c) refuses config1 bits outside the ldlat extra reg's
 * valid mask, 0xffff (INTEL_UEVENT_PEBS_LDLAT_EXTRA_REG in
 * arch/x86/events/perf_event.h; format/ldlat is config1:0-15), so a larger
 * value would fail perf_event_open (or, masked, measure another threshold).
 * The low end is 3, the threshold the kernel's own mem-loads description
 * sets ("ldlat=3" in core.c); the kernel does not refuse less itself.
 * Clamped, and the note says so: options.c checks HMPT_SAMPLE_LDLAT already,
 * this guards the other callers. */
#define LDLAT_MIN 3u
#define LDLAT_MAX 0xffffu

static uint64_t ldlat_in_range(hmpt_pmu_setup_t *s, uint64_t want)
{
	uint64_t use = want < LDLAT_MIN ? LDLAT_MIN : want > LDLAT_MAX ? LDLAT_MAX : want;
	if (use != want)
		hmpt_fmt_clause(
		    s->note, sizeof(s->note),
		    "load-latency threshold %llu outside 3..65535 (config1 bits 0-15): %llu used",
		    (unsigned long long)want, (unsigned long long)use);
	return use;
}

static int setup_pebs(const hmpt_pmu_request_t *rq, const char *dir, hmpt_pmu_setup_t *s)
{
	char path[512], line[64];
	uint32_t type = PERF_TYPE_RAW;
	uint64_t v;

	/* hybrid parts and some kernels give the core PMU a dynamic type */
	if (read_line(join(path, sizeof(path), dir, "/type", NULL), line, sizeof(line)) &&
	    parse_num(line, strlen(line), &v))
		type = (uint32_t)v;
	s->ldlat = ldlat_in_range(s, rq->ldlat ? rq->ldlat : HMPT_PMU_LDLAT);
	s->period = rq->period ? rq->period : HMPT_PMU_PEBS_PERIOD;
	s->store_period = s->period * HMPT_PMU_STORE_FACTOR;

	int n = 0;
	int loads_leader = -1;
	/* The sysfs file alone says whether the loads need the aux leader:
	 * intel_pmu_init() (arch/x86/events/intel/core.c) sets
	 * PMU_FL_MEM_LOADS_AUX only for Sapphire/Emerald Rapids and Alder/Raptor
	 * Lake, not for Granite Rapids or Meteor Lake.  mem_is_visible() shows
	 * events/mem-loads-aux exactly when that flag is set (Granite Rapids
	 * shares glc_events_attrs with Sapphire Rapids and hides it); on hybrid
	 * parts adl_hybrid_mem_attrs lists it for cpu_core and
	 * mtl_hybrid_mem_attrs not at all.  The flag is what
	 * intel_pmu_hw_config() checks before requiring the aux event in the
	 * group, so a model list would add a leader the kernel has no event for. */
	if (exists(join(path, sizeof(path), dir, "/events/mem-loads-aux", NULL))) {
		/* loads sample their data source only in a group led by
		 * mem-loads-aux (a counting event here) */
		if (!pebs_event(s, &s->ev[n], dir, type, "mem-loads-aux", NULL, "mem-loads-aux",
		                0x8203))
			return -ENODEV;
		s->ev[n].sampling = false;
		loads_leader = n++;
	}
	if (!pebs_event(s, &s->ev[n], dir, type, "MEM_TRANS_RETIRED.LOAD_LATENCY",
	                "MEM_TRANS_RETIRED:LOAD_LATENCY", "mem-loads", 0x1cd)) {
		say(s->why, sizeof(s->why), "no load-latency event for ", s->model, NULL);
		return -ENODEV;
	}
	s->ev[n].leader = loads_leader;
	s->ev[n].attr.config1 = s->ldlat; /* ldlat: config1 bits 0-15, range-checked above */
	n++;
	if (rq->stores) {
		bool ok =
		    stores_are_2cd(s->model)
		        ? pebs_event(s, &s->ev[n], dir, type, "MEM_TRANS_RETIRED.STORE_SAMPLE",
		                     "MEM_TRANS_RETIRED:STORE_SAMPLE", "mem-stores", 0x2cd)
		        : pebs_event(s, &s->ev[n], dir, type, "MEM_INST_RETIRED.ALL_STORES",
		                     "MEM_INST_RETIRED:ALL_STORES", "mem-stores", 0x82d0);
		if (ok)
			s->ev[n++].store = true;
	}
	for (int i = 0; i < n; i++) {
		struct perf_event_attr *a = &s->ev[i].attr;
		a->precise_ip = s->ev[i].sampling ? 1 : 0;
		a->sample_period = !s->ev[i].sampling ? 0
		                   : s->ev[i].store   ? s->store_period
		                                      : s->period;
		a->exclude_kernel = 1; /* the program's own accesses; works unprivileged */
		a->exclude_hv = 1;
		a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		                 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT |
		                 PERF_SAMPLE_DATA_SRC;
	}
	s->nevents = n;
	s->kind = HMPT_SAMPLER_PEBS;
	return 0;
}

/* The IBS op period as the kernel takes it.  perf_ibs_init()
 * (arch/x86/events/amd/ibs.c) refuses a period below the PMU's min_period,
 * which is 0x90 for perf_ibs_op since the 2025 min_period change (0x10 for
 * fetch); before it, perf_ibs_init() refused low 4 bits set and only raised a
 * period of 0 to 0x10, so 0x90 is taken by both.  The low 4 bits are cleared
 * (the hardware's MaxCnt counts in units of 16; perf_ibs_init() refuses them
 * on some kernels and masks them off on others).  A period asked for that had to change is said
 * in the note. */
#define IBS_OP_MIN_PERIOD 0x90u

static uint64_t ibs_op_period(hmpt_pmu_setup_t *s, uint64_t want)
{
	uint64_t use = want & ~(uint64_t)0xf;

	if (use < IBS_OP_MIN_PERIOD)
		use = IBS_OP_MIN_PERIOD;
	if (use != want)
		hmpt_fmt_clause(s->note, sizeof(s->note), "IBS op period 0x%llx %s 0x%llx %s",
		                (unsigned long long)want,
		                use > want ? "raised to" : "rounded down to",
		                (unsigned long long)use,
		                use > want ? "(the kernel's minimum for ibs_op)"
		                           : "(IBS periods have the low 4 bits clear)");
	return use;
}

static int setup_ibs(const hmpt_pmu_request_t *rq, hmpt_pmu_setup_t *s)
{
	const char *dir_rel = EVDIR "ibs_op";
	char dir[512], path[512], line[64];
	uint64_t type;

	join(dir, sizeof(dir), rq->root, dir_rel, NULL);
	if (!read_line(join(path, sizeof(path), dir, "/type", NULL), line, sizeof(line)) ||
	    !parse_num(line, strlen(line), &type))
		return -ENODEV;
	hmpt_pmu_event_t *e = &s->ev[0];
	event_init(e, "ibs_op", "sysfs", (uint32_t)type);
	char err[160];
	/* count dispatched ops, not cycles, where the kernel offers it */
	if (exists(join(path, sizeof(path), dir, "/format/cnt_ctl", NULL)))
		hmpt_pmu_parse_event(dir, "cnt_ctl=1", &e->attr, err, sizeof(err));
	uint64_t period = ibs_op_period(s, rq->period ? rq->period : HMPT_PMU_IBS_PERIOD);
	s->period = period;
	e->attr.sample_period = period;
	e->attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	                      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT |
	                      PERF_SAMPLE_DATA_SRC;
	if (!rq->privileged && rq->paranoid >= 2) {
		/* IBS cannot exclude the kernel in hardware: an unprivileged user
		 * needs the kernel's software filter */
		if (!exists(join(path, sizeof(path), dir, "/format/swfilt", NULL))) {
			say(s->why, sizeof(s->why),
			    "IBS needs perf_event_paranoid <= 1 or CAP_PERFMON on this kernel "
			    "(it has no ibs_op swfilt, Linux 6.14)",
			    NULL, NULL);
			return -EPERM;
		}
		hmpt_pmu_parse_event(dir, "swfilt=1", &e->attr, err, sizeof(err));
		e->attr.exclude_kernel = 1;
		e->attr.exclude_hv = 1;
	}
	join(s->model, sizeof(s->model), "AMD IBS op", "", NULL);
	s->nevents = 1;
	s->kind = HMPT_SAMPLER_IBS;
	return 0;
}

static void setup_faults(const hmpt_pmu_request_t *rq, hmpt_pmu_setup_t *s)
{
	hmpt_pmu_event_t *e = &s->ev[0];

	/* minor faults, not page-faults: mm/memory.c counts them in
	 * mm_account_fault() once handle_mm_fault() has mapped the page, so
	 * the sample's data page size is the page the fault brought in (2 MiB
	 * for a transparent huge page); page-faults fires in the arch fault
	 * handler before anything is mapped, and its page size is always 0.
	 * A first touch of anonymous memory is never a major fault. */
	event_init(e, "minor-faults", "kernel", PERF_TYPE_SOFTWARE);
	e->touches = true;
	e->attr.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
	e->attr.sample_period = 1; /* every first touch */
	/* a page the kernel first touches for the program (read() into it:
	 * copy_to_user faults in kernel mode) is counted only with kernel
	 * samples, which need perf_event_paranoid <= 1 or CAP_PERFMON; faults
	 * made through get_user_pages (process_vm_writev from another process,
	 * O_DIRECT, RDMA pinning) raise no perf event at all (mm_account_fault
	 * without regs), whatever this says */
	e->attr.exclude_kernel = !(rq->privileged || rq->paranoid <= 1);
	e->attr.exclude_hv = 1;
	e->attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	                      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE;
	join(s->model, sizeof(s->model), "software", "", NULL);
	s->period = 1;
	s->nevents = 1;
	s->kind = HMPT_SAMPLER_FAULTS;
}

/* The timer: a CPU-time clock per thread, sampling the instruction that
 * has not retired yet and the user registers it will use, from which the
 * shim decodes a data address (shim/decode.h); and the page-fault event
 * of setup_faults beside it, for the bytes first touched.  cpu-clock, not
 * task-clock: both count this thread's CPU time when opened per thread
 * (kernel/events/core.c), and cpu-clock's hrtimer is the one
 * perf_event_paranoid 2 allows with exclude_kernel on every kernel since
 * 2.6.31.  Both events share one sample layout (perfev.h: one ring). */
static void setup_timer(const hmpt_pmu_request_t *rq, hmpt_pmu_setup_t *s)
{
	setup_faults(rq, s);
	hmpt_pmu_event_t *f = &s->ev[0], *e = &s->ev[1];
	event_init(e, "cpu-clock", "kernel", PERF_TYPE_SOFTWARE);
	e->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	e->attr.sample_period = rq->period ? rq->period : HMPT_PMU_TIMER_PERIOD;
	e->attr.exclude_kernel = 1; /* the registers are the user's */
	e->attr.exclude_hv = 1;
	e->attr.exclude_idle = 1;
	uint64_t st = f->attr.sample_type | PERF_SAMPLE_REGS_USER;
	f->attr.sample_type = e->attr.sample_type = st;
	f->attr.sample_regs_user = e->attr.sample_regs_user = HMPT_PMU_TIMER_REGS;
	s->period = e->attr.sample_period;
	s->nevents = 2;
	s->kind = HMPT_SAMPLER_TIMER;
}

int hmpt_pmu_setup(const hmpt_pmu_request_t *rq, hmpt_pmu_setup_t *s)
{
	char cpu[512], path[512];

	memset(s, 0, sizeof(*s));
	s->kind = HMPT_SAMPLER_OFF;
	if (rq->want == HMPT_SAMPLER_OFF)
		return 0;
	if (!rq->privileged && rq->paranoid > 2) {
		hmpt_fmt_text(s->why, sizeof(s->why),
		              "perf_event_paranoid is %d: perf events are closed to users without "
		              "CAP_PERFMON",
		              rq->paranoid);
		return -EPERM;
	}
	/* the core PMU: "cpu", or "cpu_core" on hybrid parts */
	join(cpu, sizeof(cpu), rq->root, EVDIR "cpu", NULL);
	if (!exists(join(path, sizeof(path), cpu, "/type", NULL)))
		join(cpu, sizeof(cpu), rq->root, EVDIR "cpu_core", NULL);
	bool have_cpu = exists(join(path, sizeof(path), cpu, "/type", NULL));
	bool have_ibs = exists(join(path, sizeof(path), rq->root, EVDIR "ibs_op/type", NULL));
	bool intel = have_cpu && read_line(join(path, sizeof(path), cpu, "/caps/pmu_name", NULL),
	                                   s->model, sizeof(s->model));
	int rc = -ENODEV;

	if (rq->want == HMPT_SAMPLER_AUTO || rq->want == HMPT_SAMPLER_IBS) {
		if (have_ibs)
			rc = setup_ibs(rq, s);
		else if (rq->want == HMPT_SAMPLER_IBS)
			say(s->why, sizeof(s->why),
			    "no IBS: the kernel has no ibs_op PMU (not an AMD CPU, or a virtual "
			    "machine without IBS)",
			    NULL, NULL);
	}
	if (rc && (rq->want == HMPT_SAMPLER_AUTO || rq->want == HMPT_SAMPLER_PEBS)) {
		if (intel)
			rc = setup_pebs(rq, cpu, s);
		else if (!s->why[0] || rq->want == HMPT_SAMPLER_PEBS)
			say(s->why, sizeof(s->why),
			    have_cpu
			        ? "no PEBS: the CPU PMU is not an Intel core PMU with "
			          "load-latency sampling"
			        : "no hardware PMU: the kernel exposes none (a virtual machine "
			          "without PMU passthrough, or a container)",
			    NULL, NULL);
	}
	if (rc == 0)
		return 0;
	if (!s->why[0])
		say(s->why, sizeof(s->why),
		    rq->want == HMPT_SAMPLER_FAULTS  ? "page faults asked for"
		    : rq->want == HMPT_SAMPLER_TIMER ? "the timer asked for"
		                                     : "no hardware sampling",
		    NULL, NULL);
	memset(s->ev, 0, sizeof(s->ev));
	s->nevents = 0;
	s->note[0] = 0;
	/* a hardware kind asked for by name and missing: the timer still
	 * gives access density */
	if (rq->want == HMPT_SAMPLER_TIMER || (rq->want != HMPT_SAMPLER_FAULTS && rq->timer))
		setup_timer(rq, s);
	else
		setup_faults(rq, s);
	return 0;
}
