/* ring.h — reading perf_event ring buffers, and decoding what they hold.
 *
 * Why a module of its own: the record layout and the ring protocol are
 * where sampling code goes wrong silently (a record split by the end of the
 * ring, a head read before the data it covers, a record size of zero that
 * loops for ever).  Here they are pure functions over memory, unit-tested
 * on synthetic buffers; sample.c only maps rings and calls them.
 *
 * Contract: no system calls, no malloc, no locks.  The caller owns the ring
 * and reads each ring from one thread at a time.  Counts accumulate into
 * the caller's hmpt_ring_counts_t.
 */
#ifndef HMPT_RING_H
#define HMPT_RING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu.h"

/* The registers a sample can carry, by perf register number (x86-64:
 * arch/x86/include/uapi/asm/perf_regs.h); only those in
 * HMPT_PMU_TIMER_REGS are read. */
#define HMPT_RING_REGS 24

/* One sample as far as hmpt reads it; fields the sample_type lacks are 0. */
typedef struct {
	uint64_t id; /* PERF_SAMPLE_IDENTIFIER or _ID: which event */
	uint64_t ip;
	uint64_t time; /* the event's clock (hmpt asks for CLOCK_MONOTONIC) */
	uint64_t addr; /* data address */
	uint64_t period;
	uint64_t weight;   /* latency in cycles (WEIGHT, or WEIGHT_STRUCT var1) */
	uint64_t ins_lat;  /* WEIGHT_STRUCT var2: instruction latency */
	uint64_t data_src; /* union perf_mem_data_src */
	uint64_t phys_addr;
	uint64_t page_size; /* PERF_SAMPLE_DATA_PAGE_SIZE */
	uint32_t pid, tid, cpu;
	uint32_t regs_abi;             /* PERF_SAMPLE_REGS_ABI_*: 0 when no user registers */
	uint64_t regs[HMPT_RING_REGS]; /* REGS_USER, by register number */
} hmpt_ring_sample_t;

typedef struct {
	uint64_t samples;      /* PERF_RECORD_SAMPLE parsed */
	uint64_t lost;         /* samples the kernel dropped (PERF_RECORD_LOST) */
	uint64_t lost_samples; /* PERF_RECORD_LOST_SAMPLES (PEBS) */
	uint64_t throttled;    /* PERF_RECORD_THROTTLE */
	uint64_t unthrottled;
	uint64_t unknown;   /* records of other types, skipped */
	uint64_t malformed; /* records or rings that made no sense, skipped */
} hmpt_ring_counts_t;

typedef void (*hmpt_ring_fn)(const hmpt_ring_sample_t *s, void *ctx);

/* The sample types this reader understands: the fields in the order the
 * kernel writes them, up to DATA_PAGE_SIZE, without READ, CALLCHAIN, RAW,
 * BRANCH_STACK, STACK_USER, TRANSACTION, REGS_INTR or CGROUP; REGS_USER
 * only with the registers of HMPT_PMU_TIMER_REGS asked for. */
bool hmpt_ring_sample_type_ok(uint64_t sample_type);

/* Parse the body of a PERF_RECORD_SAMPLE (after its header) of `len`
 * bytes: 0, or -EINVAL when it is shorter than sample_type requires. */
int hmpt_ring_parse_sample(const uint8_t *body, size_t len, uint64_t sample_type,
                           hmpt_ring_sample_t *out);

/* Read the records in [tail, head) of the data area `data` of `size`
 * bytes (a power of two), calling fn for each sample.  Stops before a record
 * that [tail, head) does not wholly hold (it is read next time).  A ring
 * whose positions or record sizes make no sense is skipped to head and
 * counted malformed.  Returns the new tail. */
uint64_t hmpt_ring_read(const uint8_t *data, uint64_t size, uint64_t tail, uint64_t head,
                        uint64_t sample_type, hmpt_ring_fn fn, void *ctx, hmpt_ring_counts_t *c);

/* The same on a mapped ring: reads data_head (acquire), the records, then
 * publishes data_tail (release), as the kernel's perf_event.h prescribes.
 * `data_size` is the data area's size (the mapping less its first page). */
void hmpt_ring_drain(struct perf_event_mmap_page *pc, uint64_t data_size, uint64_t sample_type,
                     hmpt_ring_fn fn, void *ctx, hmpt_ring_counts_t *c);

/* Data-source fields and level numbers newer than some installed uapi
 * headers (values from the kernel's include/uapi/linux/perf_event.h). */
#ifndef PERF_MEM_REMOTE_SHIFT
#define PERF_MEM_REMOTE_SHIFT 37
#endif
#ifndef PERF_MEM_SNOOPX_SHIFT
#define PERF_MEM_SNOOPX_FWD   0x01
#define PERF_MEM_SNOOPX_SHIFT 38
#endif
#ifndef PERF_MEM_SNOOPX_PEER
#define PERF_MEM_SNOOPX_PEER 0x02
#endif
#ifndef PERF_MEM_HOPS_SHIFT
#define PERF_MEM_HOPS_0     0x01
#define PERF_MEM_HOPS_SHIFT 43
#endif
#ifndef PERF_MEM_LVLNUM_CXL
#define PERF_MEM_LVLNUM_CXL 0x09
#endif
#ifndef PERF_MEM_LVLNUM_L2_MHB
#define PERF_MEM_LVLNUM_L2_MHB 0x05
#endif
#ifndef PERF_MEM_LVLNUM_MSC
#define PERF_MEM_LVLNUM_MSC 0x06
#endif
#ifndef PERF_MEM_LVLNUM_L0
#define PERF_MEM_LVLNUM_L0 0x07
#endif
#ifndef PERF_MEM_LVLNUM_UNC
#define PERF_MEM_LVLNUM_UNC 0x08
#endif

/* Where a sampled access was served from, as the profile reports it. */
typedef enum {
	HMPT_LEVEL_L1,
	HMPT_LEVEL_L2,
	HMPT_LEVEL_L3,     /* last-level cache, or a peer core's cache on this node */
	HMPT_LEVEL_DRAM,   /* local memory: DRAM, HBM (flat mode); a last-level
	                    * cache miss whose source is not said */
	HMPT_LEVEL_REMOTE, /* another node's or socket's cache or DRAM */
	HMPT_LEVEL_FAR,    /* far memory: CXL, PMEM, on this node or another */
	HMPT_LEVEL_OTHER,  /* fill buffers, L4 or memory-side cache, I/O, uncached,
	                    * an L1 or L2 miss with nothing said beyond */
	HMPT_LEVEL_COUNT,
	HMPT_LEVEL_NONE = HMPT_LEVEL_COUNT /* no data source in the sample */
} hmpt_level_t;

/* Decode union perf_mem_data_src: the newer mem_lvl_num field when the
 * kernel filled it, else the older mem_lvl bits; a MISS in mem_lvl means
 * the level named missed, so the access counts where it went beyond. */
hmpt_level_t hmpt_datasrc_level(uint64_t data_src);
/* "l1" "l2" "l3" "dram" "remote" "far" "other" */
const char *hmpt_datasrc_level_name(hmpt_level_t l);
/* A load, a store, or neither said. */
bool hmpt_datasrc_is_store(uint64_t data_src);

#endif
