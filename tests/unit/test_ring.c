/* test_ring.c — the perf ring reader and record parser on synthetic rings,
 * and the data-source decoder against a table of known values. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ring.h"

#define SIZE 4096u
static uint8_t data[SIZE];
static uint64_t wpos; /* the writer's position (a free-running counter) */

static void put_bytes(const void *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		data[(wpos + i) & (SIZE - 1)] = ((const uint8_t *)src)[i];
	wpos += n;
}

/* a record of `type` with the given u64 body words */
static void put_record(uint32_t type, const uint64_t *body, unsigned nwords)
{
	struct perf_event_header h = {type, 0, (uint16_t)(sizeof(h) + 8 * nwords)};
	put_bytes(&h, sizeof(h));
	put_bytes(body, 8 * nwords);
}

#define ST_PEBS                                                                                    \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |          \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC)

/* a PEBS-like sample: id, pid/tid, time, addr, weight struct, data_src */
static void put_sample(uint64_t id, uint32_t tid, uint64_t time, uint64_t addr, uint32_t lat,
                       uint16_t ins, uint64_t ds)
{
	uint64_t b[6] = {id, (uint64_t)tid << 32 | 100, time, addr, (uint64_t)ins << 32 | lat, ds};
	put_record(PERF_RECORD_SAMPLE, b, 6);
}

typedef struct {
	int n;
	hmpt_ring_sample_t s[64];
} got_t;

static void collect(const hmpt_ring_sample_t *s, void *ctx)
{
	got_t *g = ctx;
	if (g->n < 64)
		g->s[g->n++] = *s;
}

static void test_simple_and_wrap(void)
{
	hmpt_ring_counts_t c = {0};
	got_t g = {0};

	/* start 24 bytes before the end: the second record crosses it */
	wpos = SIZE * 3 - 24;
	uint64_t tail = wpos;
	put_sample(7, 11, 1000, 0x7f0000001000, 250, 12, 0x200100142);
	put_sample(8, 12, 1001, 0x7f0000002000, 40, 3, 0);
	put_sample(9, 13, 1002, 0x7f0000003000, 900, 0, 0);
	tail = hmpt_ring_read(data, SIZE, tail, wpos, ST_PEBS, collect, &g, &c);
	CHECK_OP(tail, ==, wpos);
	CHECK_OP(g.n, ==, 3);
	CHECK_OP(c.samples, ==, 3);
	CHECK_OP(c.malformed, ==, 0);
	CHECK_OP(g.s[0].id, ==, 7);
	CHECK_OP(g.s[0].tid, ==, 11);
	CHECK_OP(g.s[0].pid, ==, 100);
	CHECK_OP(g.s[0].time, ==, 1000);
	CHECK_OP(g.s[0].addr, ==, 0x7f0000001000);
	CHECK_OP(g.s[0].weight, ==, 250);
	CHECK_OP(g.s[0].ins_lat, ==, 12);
	CHECK_OP(g.s[0].data_src, ==, 0x200100142);
	CHECK_OP(g.s[1].addr, ==, 0x7f0000002000);
	CHECK_OP(g.s[1].weight, ==, 40);
	CHECK_OP(g.s[2].id, ==, 9);
	CHECK_OP(g.s[2].weight, ==, 900);
}

static void test_partial(void)
{
	hmpt_ring_counts_t c = {0};
	got_t g = {0};

	wpos = SIZE - 8; /* the header fits, the body wraps */
	uint64_t tail = wpos;
	put_sample(1, 1, 1, 0x1000, 1, 0, 0);
	uint64_t full = wpos;
	/* the kernel has published only part of the record */
	uint64_t t = hmpt_ring_read(data, SIZE, tail, tail + 20, ST_PEBS, collect, &g, &c);
	CHECK_OP(t, ==, tail);
	CHECK_OP(g.n, ==, 0);
	CHECK_OP(c.malformed, ==, 0);
	t = hmpt_ring_read(data, SIZE, tail, tail + 4, ST_PEBS, collect, &g, &c);
	CHECK_OP(t, ==, tail);
	CHECK_OP(g.n, ==, 0);
	t = hmpt_ring_read(data, SIZE, t, full, ST_PEBS, collect, &g, &c);
	CHECK_OP(t, ==, full);
	CHECK_OP(g.n, ==, 1);
	CHECK_OP(g.s[0].addr, ==, 0x1000);
}

static void test_other_records(void)
{
	hmpt_ring_counts_t c = {0};
	got_t g = {0};
	uint64_t lost[2] = {5, 17};
	uint64_t lost_samples[1] = {4};
	uint64_t thr[3] = {1, 2, 3};
	uint64_t mmap_body[6] = {0};

	wpos = 100 * 8;
	uint64_t tail = wpos;
	put_record(PERF_RECORD_LOST, lost, 2);
	put_record(PERF_RECORD_THROTTLE, thr, 3);
	put_record(PERF_RECORD_UNTHROTTLE, thr, 3);
	put_record(PERF_RECORD_LOST_SAMPLES, lost_samples, 1);
	put_record(PERF_RECORD_MMAP, mmap_body, 6); /* a type hmpt ignores */
	put_record(99, mmap_body, 2);               /* a type no kernel writes yet */
	put_sample(3, 3, 3, 0x3000, 3, 0, 0);
	tail = hmpt_ring_read(data, SIZE, tail, wpos, ST_PEBS, collect, &g, &c);
	CHECK_OP(tail, ==, wpos);
	CHECK_OP(c.lost, ==, 17);
	CHECK_OP(c.lost_samples, ==, 4);
	CHECK_OP(c.throttled, ==, 1);
	CHECK_OP(c.unthrottled, ==, 1);
	CHECK_OP(c.unknown, ==, 2);
	CHECK_OP(c.malformed, ==, 0);
	CHECK_OP(g.n, ==, 1);
	CHECK_OP(g.s[0].addr, ==, 0x3000);
}

static void test_truncated(void)
{
	hmpt_ring_counts_t c = {0};
	got_t g = {0};
	uint64_t short_body[3] = {1, 2, 3};

	/* a sample shorter than its sample_type needs: skipped, the next read */
	wpos = 0;
	put_record(PERF_RECORD_SAMPLE, short_body, 3);
	put_sample(4, 4, 4, 0x4000, 4, 0, 0);
	uint64_t t = hmpt_ring_read(data, SIZE, 0, wpos, ST_PEBS, collect, &g, &c);
	CHECK_OP(t, ==, wpos);
	CHECK_OP(c.malformed, ==, 1);
	CHECK_OP(g.n, ==, 1);
	CHECK_OP(g.s[0].addr, ==, 0x4000);

	/* a header of size 0 (or not a multiple of 8): nothing after it can be
	 * trusted; the batch is skipped, not looped on */
	memset(&c, 0, sizeof(c));
	g.n = 0;
	wpos = 64;
	struct perf_event_header bad = {PERF_RECORD_SAMPLE, 0, 0};
	put_bytes(&bad, sizeof(bad));
	put_sample(5, 5, 5, 0x5000, 5, 0, 0);
	t = hmpt_ring_read(data, SIZE, 64, wpos, ST_PEBS, collect, &g, &c);
	CHECK_OP(t, ==, wpos);
	CHECK_OP(c.malformed, ==, 1);
	CHECK_OP(g.n, ==, 0);
	wpos = 64;
	bad.size = 12;
	put_bytes(&bad, sizeof(bad));
	t = hmpt_ring_read(data, SIZE, 64, wpos + 32, ST_PEBS, collect, &g, &c);
	CHECK_OP(t, ==, wpos + 32);
	CHECK_OP(c.malformed, ==, 2);

	/* positions further apart than the ring: skipped */
	t = hmpt_ring_read(data, SIZE, 0, SIZE + 8, ST_PEBS, collect, &g, &c);
	CHECK_OP(t, ==, SIZE + 8);
	CHECK_OP(c.malformed, ==, 3);
	/* a record bigger than the reader's buffer is skipped whole */
	memset(&c, 0, sizeof(c));
	uint64_t big[80] = {0}; /* 648 bytes: the reader holds 512 (REGS_USER's 144 fit) */
	wpos = 0;
	put_record(PERF_RECORD_SAMPLE, big, 80);
	put_sample(6, 6, 6, 0x6000, 6, 0, 0);
	g.n = 0;
	t = hmpt_ring_read(data, SIZE, 0, wpos, ST_PEBS, collect, &g, &c);
	CHECK_OP(t, ==, wpos);
	CHECK_OP(c.malformed, ==, 1);
	CHECK_OP(g.n, ==, 1);
	CHECK_OP(g.s[0].addr, ==, 0x6000);
}

/* REGS_USER: the abi, then the registers of HMPT_PMU_TIMER_REGS in bit
 * order, between PERIOD and WEIGHT; none with the abi NONE */
static void test_regs_user(void)
{
	const uint64_t st =
	    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_WEIGHT;
	uint64_t body[3 + 17 + 1], none[4];
	hmpt_ring_sample_t s;
	int k = 0;

	body[k++] = 0x401000;
	body[k++] = (uint64_t)7 << 32 | 3;
	body[k++] = PERF_SAMPLE_REGS_ABI_64;
	for (int r = 0; r < HMPT_RING_REGS; r++)
		if (HMPT_PMU_TIMER_REGS >> r & 1)
			body[k++] = 0x1000 + (uint64_t)r;
	body[k++] = 99;
	CHECK_OP(k, ==, 21);
	CHECK(hmpt_ring_sample_type_ok(st));
	CHECK_OP(hmpt_ring_parse_sample((uint8_t *)body, sizeof(body), st, &s), ==, 0);
	CHECK(s.ip == 0x401000 && s.tid == 7 && s.regs_abi == PERF_SAMPLE_REGS_ABI_64);
	CHECK(s.regs[0] == 0x1000 && s.regs[8] == 0x1008 && s.regs[16] == 0x1010 &&
	      s.regs[23] == 0x1017 && s.regs[9] == 0);
	CHECK_OP(s.weight, ==, 99);
	CHECK_OP(hmpt_ring_parse_sample((uint8_t *)body, sizeof(body) - 8, st, &s), ==, -EINVAL);
	none[0] = 0x401000;
	none[1] = 3;
	none[2] = PERF_SAMPLE_REGS_ABI_NONE;
	none[3] = 98;
	CHECK_OP(hmpt_ring_parse_sample((uint8_t *)none, sizeof(none), st, &s), ==, 0);
	CHECK(s.regs_abi == 0 && s.regs[0] == 0 && s.weight == 98);
}

static void test_sample_types(void)
{
	hmpt_ring_sample_t s;
	uint64_t body[8] = {0xaa, 0x0000000500000004ull, 77, 0xdead000, 4096, 0, 0, 0};

	CHECK(hmpt_ring_sample_type_ok(ST_PEBS));
	CHECK(!hmpt_ring_sample_type_ok(ST_PEBS | PERF_SAMPLE_CALLCHAIN));
	CHECK(!hmpt_ring_sample_type_ok(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT));
	/* the page-fault setup: identifier, tid, time, addr, data page size */
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	              PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE;
	CHECK_OP(hmpt_ring_parse_sample((uint8_t *)body, 40, st, &s), ==, 0);
	CHECK_OP(s.id, ==, 0xaa);
	CHECK_OP(s.pid, ==, 4);
	CHECK_OP(s.tid, ==, 5);
	CHECK_OP(s.time, ==, 77);
	CHECK_OP(s.addr, ==, 0xdead000);
	CHECK_OP(s.page_size, ==, 4096);
	CHECK_OP(hmpt_ring_parse_sample((uint8_t *)body, 32, st, &s), ==, -EINVAL);
	/* the old u64 weight */
	uint64_t w[2] = {123, 0x200100142};
	CHECK_OP(
	    hmpt_ring_parse_sample((uint8_t *)w, 16, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC, &s),
	    ==, 0);
	CHECK_OP(s.weight, ==, 123);
	CHECK_OP(s.ins_lat, ==, 0);
	CHECK_OP(s.data_src, ==, 0x200100142);
	/* cpu, period and the fields between */
	uint64_t all[6] = {1, 2, 3, 0x0000000700000003ull, 4001, 9};
	CHECK_OP(hmpt_ring_parse_sample((uint8_t *)all, 48,
	                                PERF_SAMPLE_IP | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
	                                    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
	                                    PERF_SAMPLE_PHYS_ADDR,
	                                &s),
	         ==, 0);
	CHECK_OP(s.ip, ==, 1);
	CHECK_OP(s.id, ==, 2);
	CHECK_OP(s.cpu, ==, 3);
	CHECK_OP(s.period, ==, 4001);
	CHECK_OP(s.phys_addr, ==, 9);
}

/* the kernel's protocol on a mapped ring: head published, tail written */
static void test_drain(void)
{
	static uint8_t map[4096 + SIZE] __attribute__((aligned(4096)));
	struct perf_event_mmap_page *pc = (void *)map;
	hmpt_ring_counts_t c = {0};
	got_t g = {0};

	pc->data_offset = 4096;
	pc->data_size = SIZE;
	uint8_t *saved = malloc(SIZE);
	memcpy(saved, data, SIZE);
	wpos = 0;
	put_sample(1, 2, 3, 0x9000, 4, 0, 0);
	memcpy(map + 4096, data, SIZE);
	pc->data_head = wpos;
	pc->data_tail = 0;
	hmpt_ring_drain(pc, SIZE, ST_PEBS, collect, &g, &c);
	CHECK_OP(pc->data_tail, ==, wpos);
	CHECK_OP(g.n, ==, 1);
	CHECK_OP(g.s[0].addr, ==, 0x9000);
	hmpt_ring_drain(pc, SIZE, ST_PEBS, collect, &g, &c); /* nothing new */
	CHECK_OP(pc->data_tail, ==, wpos);
	CHECK_OP(g.n, ==, 1);
	free(saved);
}

#define DS(op, lvl, num, remote)                                                                   \
	(PERF_MEM_S(OP, op) | (uint64_t)(lvl) << PERF_MEM_LVL_SHIFT |                              \
	 (uint64_t)(num) << PERF_MEM_LVLNUM_SHIFT | (uint64_t)(remote) << PERF_MEM_REMOTE_SHIFT)

static void test_datasrc(void)
{
	struct {
		uint64_t ds;
		hmpt_level_t want;
		const char *what;
	} t[] = {
	    /* a literal from a real Intel load: L1 hit, snoop none, lvl_num L1 */
	    {0x200100142ull, HMPT_LEVEL_L1, "L1 hit (literal)"},
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1, PERF_MEM_LVLNUM_L1, 0) |
	         PERF_MEM_S(SNOOP, NONE),
	     HMPT_LEVEL_L1, "L1 hit"},
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L2, PERF_MEM_LVLNUM_L2, 0), HMPT_LEVEL_L2,
	     "L2 hit"},
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3, PERF_MEM_LVLNUM_L3, 0), HMPT_LEVEL_L3,
	     "L3 hit"},
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_LOC_RAM, PERF_MEM_LVLNUM_RAM, 0) |
	         PERF_MEM_S(SNOOP, MISS),
	     HMPT_LEVEL_DRAM, "local DRAM"},
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_RAM1, PERF_MEM_LVLNUM_RAM, 1),
	     HMPT_LEVEL_REMOTE, "remote DRAM"},
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_CCE1, PERF_MEM_LVLNUM_ANY_CACHE, 1) |
	         PERF_MEM_S(SNOOP, HITM),
	     HMPT_LEVEL_REMOTE, "remote cache, modified"},
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_LFB, PERF_MEM_LVLNUM_LFB, 0),
	     HMPT_LEVEL_OTHER, "fill buffer"},
	    {DS(LOAD, PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_PMEM, 0), HMPT_LEVEL_FAR, "PMEM"},
	    {DS(LOAD, PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_CXL, 0), HMPT_LEVEL_FAR, "CXL"},
	    {DS(LOAD, PERF_MEM_LVL_UNC, PERF_MEM_LVLNUM_IO, 0), HMPT_LEVEL_OTHER, "I/O"},
	    /* kernels that fill only mem_lvl */
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L2, 0, 0), HMPT_LEVEL_L2, "old L2 hit"},
	    /* the unknown L3 miss before mem_lvl_num: memory, source unsaid */
	    {DS(LOAD, PERF_MEM_LVL_MISS | PERF_MEM_LVL_L3, 0, 0), HMPT_LEVEL_DRAM, "old L3 miss"},
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_LOC_RAM, 0, 0), HMPT_LEVEL_DRAM, "old DRAM"},
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_RAM2, 0, 0), HMPT_LEVEL_REMOTE,
	     "old remote DRAM"},
	    /* AMD IBS before Zen 4, kernels without mem_lvl_num (ibs.c
	       perf_ibs_get_mem_lvl): LOC_CACHE is "L3 or a peer CCX" */
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1, 0, 0),
	     HMPT_LEVEL_L3, "old AMD local cache"},

	    /* Intel, arch/x86/events/intel/ds.c */
	    /* pebs_data_source[0x00]: "ukn L3", MISS with LEVEL(L3) */
	    {DS(LOAD, PERF_MEM_LVL_MISS, PERF_MEM_LVLNUM_L3, 0) | PERF_MEM_S(SNOOP, NA),
	     HMPT_LEVEL_DRAM, "Intel unknown L3 miss"},
	    /* lnc_pebs_data_source[0x0f]: L3 miss, snoop HitM: a peer cache */
	    {DS(LOAD, PERF_MEM_LVL_MISS | PERF_MEM_LVL_L3, PERF_MEM_LVLNUM_L3, 0) |
	         PERF_MEM_S(SNOOP, HITM),
	     HMPT_LEVEL_L3, "Intel L3 miss, snoop HitM"},
	    /* pebs_data_source[0x0b] (SNB): REM_RAM1, REM, LEVEL(L3) */
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_RAM1, PERF_MEM_LVLNUM_L3, 1) |
	         PERF_MEM_S(SNOOP, HIT),
	     HMPT_LEVEL_REMOTE, "Intel remote DRAM, shared"},
	    /* __intel_pmu_pebs_data_source_skl(pmem) [0x08], [0x09] */
	    {DS(LOAD, PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_PMEM, 0) | PERF_MEM_S(SNOOP, HIT),
	     HMPT_LEVEL_FAR, "Intel PMEM"},
	    {DS(LOAD, PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_PMEM, 1) | PERF_MEM_S(SNOOP, HIT),
	     HMPT_LEVEL_FAR, "Intel remote PMEM"},
	    /* __intel_pmu_pebs_data_source_skl [0x0c]: remote cache, forward */
	    {DS(LOAD, PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_ANY_CACHE, 1) | PERF_MEM_S(SNOOPX, FWD),
	     HMPT_LEVEL_REMOTE, "Intel remote cache, forward"},
	    /* lnc_pebs_data_source[0x06], [0x10]: L2 miss buffer, memory-side cache */
	    {DS(LOAD, PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_L2_MHB, 0), HMPT_LEVEL_OTHER,
	     "Intel L2 MHB"},
	    {DS(LOAD, PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_MSC, 0), HMPT_LEVEL_OTHER,
	     "Intel memory-side cache"},
	    /* lnl_latency_data: a reserved encoding is LEVEL(NA) */
	    {DS(LOAD, 0, PERF_MEM_LVLNUM_NA, 0) | PERF_MEM_S(SNOOP, NA), HMPT_LEVEL_NONE,
	     "Intel reserved"},
	    /* precise_store_data: L1 miss says nothing beyond */
	    {PERF_MEM_S(OP, STORE) | PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LVL, L1) |
	         PERF_MEM_S(LVL, MISS) | PERF_MEM_S(TLB, L2) | PERF_MEM_S(TLB, HIT),
	     HMPT_LEVEL_OTHER, "Intel store, L1 miss"},
	    {PERF_MEM_S(OP, STORE) | PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LVL, L1) |
	         PERF_MEM_S(LVL, HIT) | PERF_MEM_S(TLB, L2) | PERF_MEM_S(TLB, HIT),
	     HMPT_LEVEL_L1, "Intel store, L1 hit"},

	    /* AMD, arch/x86/events/amd/ibs.c perf_ibs_get_mem_lvl: g_zen4_data_src,
	       and REM | HOPS(1) (or REM_RAM1 for DRAM) when rmt_node is set */
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_LOC_RAM, PERF_MEM_LVLNUM_RAM, 0),
	     HMPT_LEVEL_DRAM, "AMD DRAM"},
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_RAM1, PERF_MEM_LVLNUM_RAM, 1) |
	         PERF_MEM_S(HOPS, 1),
	     HMPT_LEVEL_REMOTE, "AMD remote DRAM"},
	    /* FAR_CCX_CACHE: another node's cache */
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_CCE2, PERF_MEM_LVLNUM_ANY_CACHE, 1) |
	         PERF_MEM_S(HOPS, 1),
	     HMPT_LEVEL_REMOTE, "AMD far CCX cache"},
	    /* NEAR_CCX_CACHE: HOPS_0 is "remote core, same node" */
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_CCE1, PERF_MEM_LVLNUM_ANY_CACHE, 1) |
	         PERF_MEM_S(HOPS, 0),
	     HMPT_LEVEL_L3, "AMD near CCX cache"},
	    /* g_data_src LOC_CACHE (before Zen 4) */
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1,
	        PERF_MEM_LVLNUM_ANY_CACHE, 0) |
	         PERF_MEM_S(HOPS, 0),
	     HMPT_LEVEL_L3, "AMD local cache"},
	    /* EXT_MEM: extension memory (CXL), here and on another node */
	    {DS(LOAD, 0, PERF_MEM_LVLNUM_CXL, 0), HMPT_LEVEL_FAR, "AMD CXL"},
	    {DS(LOAD, 0, PERF_MEM_LVLNUM_CXL, 1) | PERF_MEM_S(HOPS, 1), HMPT_LEVEL_FAR,
	     "AMD remote CXL"},
	    {DS(LOAD, 0, PERF_MEM_LVLNUM_PMEM, 0), HMPT_LEVEL_FAR, "AMD PMEM"},
	    /* dc_uc_mem_acc: L(UNC) | LN(UNC) */
	    {DS(LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_UNC, PERF_MEM_LVLNUM_UNC, 0),
	     HMPT_LEVEL_OTHER, "AMD uncached"},
	    /* no DataSrc, no MAB: "Don't set HIT with NA" */
	    {DS(LOAD, PERF_MEM_LVL_NA, PERF_MEM_LVLNUM_NA, 0), HMPT_LEVEL_NONE, "AMD no source"},

	    /* nothing said */
	    {0, HMPT_LEVEL_NONE, "zero"},
	    {PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) |
	         PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA),
	     HMPT_LEVEL_NONE, "PERF_MEM_NA"},
	    /* a software page-fault sample on a 6.18 kernel: PERF_MEM_NA with
	       LVLNUM_NA, checked below against the macros */
	    {0x1e05080021ull, HMPT_LEVEL_NONE, "software event (literal)"},
	};
	size_t n = sizeof(t) / sizeof(t[0]);
	for (size_t i = 0; i < n; i++) {
		hmpt_level_t got = hmpt_datasrc_level(t[i].ds);
		if (got != t[i].want)
			fprintf(stderr, "data source %s (0x%llx): got %s, want %s\n", t[i].what,
			        (unsigned long long)t[i].ds, hmpt_datasrc_level_name(got),
			        hmpt_datasrc_level_name(t[i].want));
		CHECK_OP(got, ==, t[i].want);
	}
	/* the literal is what the kernel's macros build */
	CHECK_OP(t[0].ds, ==, t[1].ds);
	CHECK_OP(t[n - 1].ds, ==, (t[n - 2].ds | PERF_MEM_S(LVLNUM, NA)));
	CHECK(hmpt_datasrc_is_store(PERF_MEM_S(OP, STORE) | PERF_MEM_S(LVL, L1)));
	CHECK(!hmpt_datasrc_is_store(t[0].ds));
	CHECK_STREQ(hmpt_datasrc_level_name(HMPT_LEVEL_DRAM), "dram");
	CHECK_STREQ(hmpt_datasrc_level_name(HMPT_LEVEL_FAR), "far");
	CHECK_STREQ(hmpt_datasrc_level_name(HMPT_LEVEL_COUNT - 1), "other");
	CHECK_STREQ(hmpt_datasrc_level_name(HMPT_LEVEL_NONE), "none");
}

int main(void)
{
	test_simple_and_wrap();
	test_partial();
	test_other_records();
	test_truncated();
	test_sample_types();
	test_regs_user();
	test_drain();
	test_datasrc();
	if (failures)
		fprintf(stderr, "test_ring: %d failures\n", failures);
	return failures != 0;
}
