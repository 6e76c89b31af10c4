/* test_pmu.c — the sampling setup on sysfs trees of machines we lack, with
 * libpfm4 forced to the same model, against the kernel's own encodings
 * (arch/x86/events/intel/core.c: mem-loads "event=0xcd,umask=0x1,ldlat=3"
 * everywhere, mem-stores "event=0xd0,umask=0x82" on Skylake and
 * "event=0xcd,umask=0x2" on Sapphire Rapids, mem-loads-aux
 * "event=0x03,umask=0x82"). */
#include <errno.h>
#include <sys/wait.h>

#include "pmu.h"
#include "sysfs_fixture.h"

#define EV "sys/bus/event_source/devices/"

static const char *root_named(const char *name)
{
	static char root[300];
	snprintf(root, sizeof(root), "%s/%s", base, name);
	mkdir(root, 0755);
	return root;
}

/* an Intel core PMU as the kernel describes it */
static void intel_pmu(const char *root, const char *model, const char *stores, bool aux)
{
	put(root, EV "cpu/type", "4\n");
	put(root, EV "cpu/caps/pmu_name", model);
	put(root, EV "cpu/format/event", "config:0-7\n");
	put(root, EV "cpu/format/umask", "config:8-15\n");
	put(root, EV "cpu/format/ldlat", "config1:0-15\n");
	put(root, EV "cpu/format/inv", "config:23\n");
	put(root, EV "cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	if (stores)
		put(root, EV "cpu/events/mem-stores", stores);
	if (aux)
		put(root, EV "cpu/events/mem-loads-aux", "event=0x03,umask=0x82\n");
	put(root, EV "software/type", "1\n");
}

/* libpfm4 reads LIBPFM_FORCE_PMU once per process: each model's test
 * runs in a child of its own */
static void in_child(const char *pmu, void (*fn)(void))
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		fn();
		fflush(stdout);
		_exit(failures != 0);
	}
	int st = 0;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static hmpt_pmu_request_t request(const char *root)
{
	return (hmpt_pmu_request_t){.root = root,
	                            .want = HMPT_SAMPLER_AUTO,
	                            .stores = true,
	                            .privileged = false,
	                            .paranoid = 2};
}

static void test_skx(void)
{
	const char *root = root_named("skx");
	hmpt_pmu_setup_t s;
	hmpt_pfm_code_t pc;
	char err[160];

	intel_pmu(root, "skylake\n", "event=0xd0,umask=0x82\n", false);
	/* libpfm4 agrees with the kernel on Skylake-SP */
	CHECK(hmpt_pfm_encode("MEM_TRANS_RETIRED:LOAD_LATENCY", &pc, err, sizeof(err)) == 0);
	CHECK(pc.config == 0x1cd && pc.type == PERF_TYPE_RAW);
	CHECK(hmpt_pfm_encode("MEM_INST_RETIRED:ALL_STORES", &pc, err, sizeof(err)) == 0);
	CHECK(pc.config == 0x82d0);

	hmpt_pmu_request_t rq = request(root);
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.kind == HMPT_SAMPLER_PEBS && !strcmp(s.model, "skylake"));
	CHECK(s.nevents == 2);
	CHECK(s.ev[0].attr.config == 0x1cd && s.ev[0].attr.config1 == HMPT_PMU_LDLAT);
	CHECK(s.ev[0].attr.type == 4 && s.ev[0].attr.precise_ip >= 1 && s.ev[0].leader == -1);
	CHECK(s.ev[0].attr.sample_period == HMPT_PMU_PEBS_PERIOD && s.ev[0].attr.exclude_kernel);
	CHECK(s.ev[0].attr.sample_type & PERF_SAMPLE_DATA_SRC);
	CHECK(s.ev[1].store && s.ev[1].attr.config == 0x82d0);
	CHECK(s.ev[1].attr.sample_period == HMPT_PMU_PEBS_PERIOD * HMPT_PMU_STORE_FACTOR);
	CHECK(!strcmp(s.ev[0].source, "libpfm4+sysfs") && s.note[0] == 0);

	/* a threshold and period asked for */
	rq.ldlat = 64;
	rq.period = 1009;
	rq.stores = false;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.nevents == 1 && s.ev[0].attr.config1 == 64 && s.ev[0].attr.sample_period == 1009);
	CHECK(s.note[0] == 0);

	/* a threshold outside ldlat's config1 bits 0-15: clamped, never spilling
	 * into the bits above, and the note says so */
	rq.ldlat = 70000;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.ev[0].attr.config1 == 0xffff && s.ldlat == 0xffff);
	CHECK(strstr(s.note, "load-latency threshold 70000") != NULL);
	rq.ldlat = (1ull << 32) | 40; /* bit 32 is outside ldlat's valid mask */
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.ev[0].attr.config1 == 0xffff);
	/* below 3, the threshold the kernel's mem-loads description sets */
	rq.ldlat = 1;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.ev[0].attr.config1 == 3 && strstr(s.note, "threshold 1 ") != NULL);
}

static void test_spr(void)
{
	const char *root = root_named("spr");
	hmpt_pmu_setup_t s;
	hmpt_pfm_code_t pc;
	char err[160];

	intel_pmu(root, "sapphire_rapids\n", "event=0xcd,umask=0x2\n", true);
	CHECK(hmpt_pfm_encode("MEM_TRANS_RETIRED:LOAD_LATENCY", &pc, err, sizeof(err)) == 0);
	CHECK(pc.config == 0x1cd);
	CHECK(hmpt_pfm_encode("MEM_TRANS_RETIRED:STORE_SAMPLE", &pc, err, sizeof(err)) == 0);
	uint64_t pfm_store = pc.config;
	printf("libpfm4 encodes SPR MEM_TRANS_RETIRED.STORE_SAMPLE as 0x%llx (the kernel: 0x2cd)\n",
	       (unsigned long long)pfm_store);

	hmpt_pmu_request_t rq = request(root);
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.kind == HMPT_SAMPLER_PEBS && s.nevents == 3);
	/* the aux leader counts, the loads sample inside its group */
	CHECK(!strcmp(s.ev[0].name, "mem-loads-aux") && s.ev[0].attr.config == 0x8203);
	CHECK(!s.ev[0].sampling && s.ev[0].attr.sample_period == 0 && s.ev[0].leader == -1);
	CHECK(s.ev[1].attr.config == 0x1cd && s.ev[1].leader == 0 && s.ev[1].sampling);
	CHECK(s.ev[2].store && s.ev[2].attr.config == 0x2cd);
	if (pfm_store != 0x2cd)
		CHECK(strstr(s.note, "STORE_SAMPLE: libpfm4 encodes 0x3cd") != NULL);

	/* pmu_name sapphire_rapids without events/mem-loads-aux (and without
	 * mem-stores): no aux leader, since the sysfs file alone says the kernel
	 * wants one; the stores take the kernel's documented encoding for the
	 * model, not libpfm4's */
	const char *old = root_named("spr-old");
	intel_pmu(old, "sapphire_rapids\n", NULL, false);
	rq = request(old);
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.nevents == 2);
	CHECK(s.ev[0].attr.config == 0x1cd && s.ev[0].leader == -1 && s.ev[0].sampling);
	CHECK(s.ev[1].store && s.ev[1].attr.config == 0x2cd);
	CHECK(!strcmp(s.ev[1].source, pfm_store == 0x2cd ? "libpfm4" : "kernel"));
	for (int i = 0; i < s.nevents; i++)
		CHECK(strcmp(s.ev[i].name, "mem-loads-aux") != 0);
}

/* Granite Rapids: the kernel sets no PMU_FL_MEM_LOADS_AUX and shows no
 * mem-loads-aux; its stores are 0x2cd as on Sapphire Rapids (libpfm4 is
 * forced to spr: the same core events) */
static void test_gnr(void)
{
	const char *root = root_named("gnr");
	hmpt_pmu_setup_t s;

	intel_pmu(root, "granite_rapids\n", "event=0xcd,umask=0x2\n", false);
	hmpt_pmu_request_t rq = request(root);
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.kind == HMPT_SAMPLER_PEBS && s.nevents == 2);
	CHECK(s.ev[0].attr.config == 0x1cd && s.ev[0].leader == -1 && s.ev[0].sampling);
	CHECK(s.ev[1].store && s.ev[1].attr.config == 0x2cd);
	for (int i = 0; i < s.nevents; i++)
		CHECK(strcmp(s.ev[i].name, "mem-loads-aux") != 0);

	/* without mem-stores in sysfs: the model's encoding, still no leader */
	const char *bare = root_named("gnr-bare");
	intel_pmu(bare, "granite_rapids\n", NULL, false);
	rq = request(bare);
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.nevents == 2 && s.ev[0].leader == -1 && s.ev[1].attr.config == 0x2cd);
}

static void test_ibs(void)
{
	const char *root = root_named("ibs");
	hmpt_pmu_setup_t s;

	put(root, EV "cpu/type", "4\n");
	put(root, EV "ibs_op/type", "11\n");
	put(root, EV "ibs_op/format/cnt_ctl", "config:19\n");
	hmpt_pmu_request_t rq = request(root);
	rq.privileged = true;
	rq.period = 1000; /* low 4 bits cleared */
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.kind == HMPT_SAMPLER_IBS && s.nevents == 1);
	CHECK(s.ev[0].attr.type == 11 && s.ev[0].attr.config == (1u << 19));
	CHECK(s.ev[0].attr.sample_period == 992 && !s.ev[0].attr.exclude_kernel);
	CHECK(s.period == 992 && strstr(s.note, "rounded down to 0x3e0") != NULL);
	/* below the op PMU's minimum (arch/x86/events/amd/ibs.c: 0x90) */
	rq.period = 0x20;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.kind == HMPT_SAMPLER_IBS && s.period == 0x90 && s.ev[0].attr.sample_period == 0x90);
	CHECK(strstr(s.note, "0x20 raised to 0x90") != NULL);
	rq.period = 0x90; /* taken as it is: nothing to say */
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.ev[0].attr.sample_period == 0x90 && s.note[0] == 0);

	/* unprivileged without the software filter: no IBS, and why */
	rq.privileged = false;
	rq.period = 0;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.kind == HMPT_SAMPLER_FAULTS && strstr(s.why, "swfilt") != NULL);
	/* with it */
	put(root, EV "ibs_op/format/swfilt", "config2:0\n");
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.kind == HMPT_SAMPLER_IBS && s.ev[0].attr.config2 == 1 &&
	      s.ev[0].attr.exclude_kernel && s.ev[0].attr.sample_period == HMPT_PMU_IBS_PERIOD);
	CHECK(s.note[0] == 0); /* the default period needs no word */
	/* PEBS asked for on an AMD machine */
	rq.want = HMPT_SAMPLER_PEBS;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.kind == HMPT_SAMPLER_FAULTS && strstr(s.why, "no PEBS") != NULL);
}

static void test_no_pmu(void)
{
	const char *root = root_named("vm");
	hmpt_pmu_setup_t s;

	put(root, EV "software/type", "1\n");
	hmpt_pmu_request_t rq = request(root);
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.kind == HMPT_SAMPLER_FAULTS && strstr(s.why, "no hardware PMU") != NULL);
	CHECK(s.ev[0].attr.type == PERF_TYPE_SOFTWARE &&
	      s.ev[0].attr.config == PERF_COUNT_SW_PAGE_FAULTS_MIN &&
	      s.ev[0].attr.sample_period == 1);
	CHECK(s.ev[0].attr.sample_type & PERF_SAMPLE_ADDR);
	rq.want = HMPT_SAMPLER_IBS;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0);
	CHECK(s.kind == HMPT_SAMPLER_FAULTS && strstr(s.why, "no IBS") != NULL);
	rq.want = HMPT_SAMPLER_OFF;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0 && s.kind == HMPT_SAMPLER_OFF);
	/* Debian's paranoid level 3 closes perf to ordinary users */
	rq.want = HMPT_SAMPLER_AUTO;
	rq.paranoid = 3;
	CHECK(hmpt_pmu_setup(&rq, &s) == -EPERM && strstr(s.why, "perf_event_paranoid is 3"));
	rq.privileged = true;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0 && s.kind == HMPT_SAMPLER_FAULTS);
	/* kernel-made first touches (read() into a buffer) are counted where
	 * kernel samples are allowed: privileged, or paranoid <= 1 */
	CHECK(!s.ev[0].attr.exclude_kernel);
	rq.privileged = false;
	rq.paranoid = 2;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0 && s.ev[0].attr.exclude_kernel);
	rq.paranoid = 1;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0 && !s.ev[0].attr.exclude_kernel);

	/* a caller that decodes timer samples: AUTO picks the timer where there
	 * is no hardware sampling, with the page faults beside it for the
	 * bytes, both with the user registers in one layout */
	rq.timer = true;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0 && s.kind == HMPT_SAMPLER_TIMER);
	CHECK(strstr(s.why, "no hardware PMU") != NULL && s.nevents == 2);
	CHECK(s.ev[0].touches && s.ev[0].attr.config == PERF_COUNT_SW_PAGE_FAULTS_MIN);
	CHECK(!s.ev[1].touches && s.ev[1].attr.config == PERF_COUNT_SW_CPU_CLOCK &&
	      s.ev[1].attr.exclude_kernel && s.ev[1].leader < 0);
	CHECK(s.ev[1].attr.sample_period == HMPT_PMU_TIMER_PERIOD &&
	      s.period == HMPT_PMU_TIMER_PERIOD);
	CHECK(s.ev[0].attr.sample_type == s.ev[1].attr.sample_type &&
	      (s.ev[1].attr.sample_type & PERF_SAMPLE_REGS_USER) &&
	      s.ev[1].attr.sample_regs_user == HMPT_PMU_TIMER_REGS);
	rq.period = 250000;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0 && s.ev[1].attr.sample_period == 250000);
	rq.want = HMPT_SAMPLER_IBS; /* missing: the timer, saying why */
	CHECK(hmpt_pmu_setup(&rq, &s) == 0 && s.kind == HMPT_SAMPLER_TIMER &&
	      strstr(s.why, "no IBS") != NULL);
	/* asked for by name, without a decoder too (the shim says why) */
	rq.timer = false;
	rq.want = HMPT_SAMPLER_TIMER;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0 && s.kind == HMPT_SAMPLER_TIMER);
	rq.want = HMPT_SAMPLER_FAULTS;
	rq.timer = true;
	CHECK(hmpt_pmu_setup(&rq, &s) == 0 && s.kind == HMPT_SAMPLER_FAULTS);
}

static void test_parse_event(void)
{
	const char *root = root_named("fmt");
	char dir[400], err[160];
	struct perf_event_attr a;

	put(root, EV "x/format/event", "config:0-7,32-35\n");
	put(root, EV "x/format/umask", "config:8-15\n");
	put(root, EV "x/format/edge", "config:18\n");
	put(root, EV "x/format/th", "config1:0-15\n");
	put(root, EV "x/format/odd", "config9:0-3\n");
	snprintf(dir, sizeof(dir), "%s/" EV "x", root);
	memset(&a, 0, sizeof(a));
	CHECK(hmpt_pmu_parse_event(dir, "event=0x1cd,umask=0x2,edge,th=300", &a, err,
	                           sizeof(err)) == 0);
	CHECK(a.config == (0xcdull | 1ull << 32 | 0x200 | 1u << 18) && a.config1 == 300);
	memset(&a, 0, sizeof(a));
	CHECK(hmpt_pmu_parse_event(dir, "nosuch=1", &a, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "nosuch") != NULL);
	CHECK(hmpt_pmu_parse_event(dir, "umask=0x100", &a, err, sizeof(err)) == -EINVAL);
	CHECK(hmpt_pmu_parse_event(dir, "umask=zz", &a, err, sizeof(err)) == -EINVAL);
	CHECK(hmpt_pmu_parse_event(dir, "odd=1", &a, err, sizeof(err)) == -EINVAL);
	CHECK(hmpt_pmu_parse_event(dir, "=1", &a, err, sizeof(err)) == -EINVAL);
}

static void test_names(void)
{
	hmpt_sampler_t k;

	CHECK(hmpt_sampler_parse("faults", &k) == 0 && k == HMPT_SAMPLER_FAULTS);
	CHECK(hmpt_sampler_parse("1", &k) == 0 && k == HMPT_SAMPLER_AUTO);
	CHECK(hmpt_sampler_parse("0", &k) == 0 && k == HMPT_SAMPLER_OFF);
	CHECK(hmpt_sampler_parse("PEBS", &k) == -EINVAL);
	CHECK(!strcmp(hmpt_sampler_name(HMPT_SAMPLER_IBS), "ibs"));
	CHECK(hmpt_sampler_parse("timer", &k) == 0 && k == HMPT_SAMPLER_TIMER);
	CHECK(!strcmp(hmpt_sampler_name(HMPT_SAMPLER_OFF), "off"));
}

int main(void)
{
	if (fixture_begin())
		return 1;
	in_child("skx", test_skx);
	in_child("spr", test_spr);
	in_child("spr", test_gnr);
	test_ibs();
	test_no_pmu();
	test_parse_event();
	test_names();
	fixture_end();
	if (failures)
		fprintf(stderr, "test_pmu: %d failures\n", failures);
	return failures != 0;
}
