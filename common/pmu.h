/* pmu.h — which sampling this machine offers, and the perf events for it.
 *
 * Why: the events that sample memory accesses differ by vendor and model,
 * and the sources disagree.  Intel PEBS load latency is
 * MEM_TRANS_RETIRED.LOAD_LATENCY (0x1cd, threshold in config1) everywhere
 * since Sandy Bridge; stores are MEM_INST_RETIRED.ALL_STORES (0x82d0) on
 * Skylake-SP/Ice Lake and MEM_TRANS_RETIRED.STORE_SAMPLE (0x2cd) on Sapphire
 * Rapids, which also needs the mem-loads-aux event (0x8203) as the loads'
 * group leader when the data source is sampled.  libpfm4 names the events;
 * the kernel's own descriptions in sysfs (<pmu>/events/mem-loads,
 * mem-stores, mem-loads-aux, with <pmu>/format/ saying where each field
 * goes) are what the running kernel accepts, so they win where the two
 * differ (libpfm4 4.13 encodes Sapphire Rapids' store event as 0x3cd).
 * Whether the loads need that leader is the kernel's to say: the sysfs file
 * is there exactly when it does (Granite Rapids and Meteor Lake do not).
 * AMD IBS op sampling uses the dynamic ibs_op PMU: its type comes from
 * sysfs, its period must have the low 4 bits clear and be at least 0x90
 * (a period asked for is adjusted and the note says so), one IBS op event per
 * thread (the hardware has one per CPU), and an unprivileged user needs the
 * kernel's software filter ("swfilt", Linux 6.14) to exclude kernel samples.
 * Without any of these, software page-fault events give first-touch data.
 *
 * Contract: hmpt_pmu_setup() reads files under `root` (a test's fixture
 * tree, or "" for the machine), calls libpfm4 (which allocates: hold the
 * shim's guard), opens nothing, and returns 0 with a setup, or -ENODEV /
 * -EPERM with out->why saying why no sampling at all is possible.
 */
#ifndef HMPT_PMU_H
#define HMPT_PMU_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu_pfm.h"

typedef enum {
	HMPT_SAMPLER_AUTO,   /* the best this machine has */
	HMPT_SAMPLER_PEBS,   /* Intel PEBS load latency (+ stores) */
	HMPT_SAMPLER_IBS,    /* AMD IBS op */
	HMPT_SAMPLER_FAULTS, /* software page faults: first touch only */
	HMPT_SAMPLER_TIMER,  /* a CPU-time timer: the instruction waiting and its
	                      * registers, decoded to a data address; plus page
	                      * faults for the bytes first touched */
	HMPT_SAMPLER_OFF,
} hmpt_sampler_t;

#define HMPT_PMU_MAX_EVENTS 3

typedef struct {
	char name[40];   /* "mem-loads-aux", "MEM_TRANS_RETIRED.LOAD_LATENCY", ... */
	char source[16]; /* where the encoding came from: "sysfs", "libpfm4", "kernel" */
	struct perf_event_attr attr;
	int leader;    /* index of this event's group leader, or -1 */
	bool sampling; /* false: a counting group leader (mem-loads-aux) */
	bool store;    /* samples stores */
	bool touches;  /* samples first touches (page faults), not accesses */
} hmpt_pmu_event_t;

typedef struct {
	hmpt_sampler_t kind;
	char model[48]; /* "sapphire_rapids", "skylake", "AMD IBS", "software" */
	int nevents;
	hmpt_pmu_event_t ev[HMPT_PMU_MAX_EVENTS];
	uint64_t period;       /* loads, IBS ops, or faults */
	uint64_t store_period; /* PEBS stores */
	uint64_t ldlat;        /* PEBS load-latency threshold, cycles */
	char note[256];        /* how the encodings were chosen, when sources differ */
	char why[256];         /* why not hardware sampling (FAULTS), or none at all */
} hmpt_pmu_setup_t;

typedef struct {
	const char *root;    /* prefix for /sys and /proc: "" on the machine */
	hmpt_sampler_t want; /* AUTO, or a kind asked for by name */
	uint64_t period;     /* 0: the default for the kind */
	uint64_t ldlat;      /* 0: the default (30 cycles); else 3..65535, clamped with a note */
	bool stores;         /* sample stores too (PEBS) */
	bool privileged;     /* root, CAP_PERFMON or CAP_SYS_ADMIN */
	bool timer;          /* the caller can decode timer samples: AUTO, PEBS or IBS
	                      * get the timer where there is no hardware sampling */
	int paranoid;        /* /proc/sys/kernel/perf_event_paranoid */
} hmpt_pmu_request_t;

#define HMPT_PMU_PEBS_PERIOD  4001u
#define HMPT_PMU_STORE_FACTOR 25u /* stores: every (period x this)th store */
#define HMPT_PMU_IBS_PERIOD   0x80000u
#define HMPT_PMU_LDLAT        30u
#define HMPT_PMU_TIMER_PERIOD 1000000u /* ns of CPU time: 1 kHz per thread */
/* The user registers a timer sample carries (arch/x86/include/uapi/asm/
 * perf_regs.h): AX BX CX DX SI DI BP SP IP (bits 0-8) and R8-R15 (16-23);
 * the flags, segment selectors (not their bases) and vector registers are
 * not asked for. */
#define HMPT_PMU_TIMER_REGS 0xff01ffull

int hmpt_pmu_setup(const hmpt_pmu_request_t *rq, hmpt_pmu_setup_t *out);

/* Parse a kernel event description ("event=0xcd,umask=0x1,ldlat=3") into
 * attr's config fields, with the layout read from <pmu_dir>/format/.
 * 0, or -EINVAL with a message in err. */
int hmpt_pmu_parse_event(const char *pmu_dir, const char *desc, struct perf_event_attr *attr,
                         char *err, size_t errlen);

/* "auto" "pebs" "ibs" "faults" "timer" "off" */
const char *hmpt_sampler_name(hmpt_sampler_t k);
/* parse HMPT_SAMPLE's value (also "1" = auto, "0" = off); -EINVAL */
int hmpt_sampler_parse(const char *s, hmpt_sampler_t *out);

#endif
