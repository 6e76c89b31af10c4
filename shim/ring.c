/* ring.c — see ring.h. */
#include "ring.h"

#include <errno.h>
#include <string.h>

/* fields hmpt can skip or read, in the kernel's order */
#define ST_KNOWN                                                                                   \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_WEIGHT |                         \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR |                \
	 PERF_SAMPLE_DATA_PAGE_SIZE)

bool hmpt_ring_sample_type_ok(uint64_t st)
{
	/* WEIGHT and WEIGHT_STRUCT are one field; the kernel refuses both */
	return !(st & ~(uint64_t)ST_KNOWN) &&
	       (st & PERF_SAMPLE_WEIGHT_TYPE) != PERF_SAMPLE_WEIGHT_TYPE;
}

typedef struct {
	const uint8_t *p, *end;
	bool short_;
} cursor_t;

static uint64_t take(cursor_t *c)
{
	uint64_t v;

	if (c->end - c->p < 8) {
		c->short_ = true;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

int hmpt_ring_parse_sample(const uint8_t *body, size_t len, uint64_t st, hmpt_ring_sample_t *s)
{
	cursor_t c = {body, body + len, false};
	uint64_t v;

	memset(s, 0, sizeof(*s));
	if (!hmpt_ring_sample_type_ok(st))
		return -EINVAL;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->id = take(&c);
	if (st & PERF_SAMPLE_IP)
		s->ip = take(&c);
	if (st & PERF_SAMPLE_TID) {
		v = take(&c);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = take(&c);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = take(&c);
	if (st & PERF_SAMPLE_ID)
		s->id = take(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		take(&c);
	if (st & PERF_SAMPLE_CPU)
		s->cpu = (uint32_t)take(&c); /* u32 cpu, u32 res */
	if (st & PERF_SAMPLE_PERIOD)
		s->period = take(&c);
	if (st & PERF_SAMPLE_REGS_USER) {
		/* u64 abi, then one u64 per register asked for, in bit order;
		 * none when the abi is NONE (a kernel thread) */
		s->regs_abi = (uint32_t)take(&c);
		for (int r = 0; s->regs_abi && r < HMPT_RING_REGS; r++)
			if (HMPT_PMU_TIMER_REGS >> r & 1)
				s->regs[r] = take(&c);
	}
	if (st & PERF_SAMPLE_WEIGHT)
		s->weight = take(&c);
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		/* u32 var1 (cache latency), u16 var2 (instruction latency), u16 var3 */
		v = take(&c);
		s->weight = (uint32_t)v;
		s->ins_lat = (uint16_t)(v >> 32);
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = take(&c);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = take(&c);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->page_size = take(&c);
	return c.short_ ? -EINVAL : 0;
}

/* Copy n bytes at ring offset `pos`, across the end of the ring. */
static void ring_copy(void *dst, const uint8_t *data, uint64_t size, uint64_t pos, size_t n)
{
	uint64_t off = pos & (size - 1);
	size_t first = n < size - off ? n : (size_t)(size - off);

	memcpy(dst, data + off, first);
	memcpy((uint8_t *)dst + first, data, n - first);
}

/* the largest record hmpt reads whole: a sample of every known field */
#define REC_MAX 512

uint64_t hmpt_ring_read(const uint8_t *data, uint64_t size, uint64_t tail, uint64_t head,
                        uint64_t st, hmpt_ring_fn fn, void *ctx, hmpt_ring_counts_t *c)
{
	uint64_t rec[REC_MAX / 8];
	struct perf_event_header h;

	if (size < 64 || (size & (size - 1)) || head - tail > size) {
		c->malformed++;
		return head;
	}
	while (head - tail >= sizeof(h)) {
		ring_copy(&h, data, size, tail, sizeof(h));
		if (h.size < sizeof(h) || (h.size & 7)) {
			/* no way to find the next record: give up on this batch */
			c->malformed++;
			return head;
		}
		if (head - tail < h.size)
			break; /* partial: the rest is not written yet */
		size_t body = h.size - sizeof(h);
		if (h.type == PERF_RECORD_SAMPLE || h.type == PERF_RECORD_LOST ||
		    h.type == PERF_RECORD_LOST_SAMPLES || h.type == PERF_RECORD_THROTTLE ||
		    h.type == PERF_RECORD_UNTHROTTLE) {
			size_t n = body < sizeof(rec) ? body : sizeof(rec);
			ring_copy(rec, data, size, tail + sizeof(h), n);
			switch (h.type) {
			case PERF_RECORD_SAMPLE: {
				hmpt_ring_sample_t s;
				if (body > sizeof(rec) ||
				    hmpt_ring_parse_sample((const uint8_t *)rec, n, st, &s)) {
					c->malformed++;
					break;
				}
				c->samples++;
				if (fn)
					fn(&s, ctx);
				break;
			}
			case PERF_RECORD_LOST: /* u64 id, u64 lost */
				if (n >= 16)
					c->lost += rec[1];
				else
					c->malformed++;
				break;
			case PERF_RECORD_LOST_SAMPLES: /* u64 lost */
				if (n >= 8)
					c->lost_samples += rec[0];
				else
					c->malformed++;
				break;
			case PERF_RECORD_THROTTLE: c->throttled++; break;
			default: c->unthrottled++; break;
			}
		} else {
			c->unknown++;
		}
		tail += h.size;
	}
	return tail;
}

void hmpt_ring_drain(struct perf_event_mmap_page *pc, uint64_t data_size, uint64_t st,
                     hmpt_ring_fn fn, void *ctx, hmpt_ring_counts_t *c)
{
	const uint8_t *data = (const uint8_t *)pc + (pc->data_offset ? pc->data_offset : 4096);
	/* the records up to data_head are written before data_head is */
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail;
	uint64_t next = hmpt_ring_read(data, data_size, tail, head, st, fn, ctx, c);

	/* our reads of the records finish before the kernel may reuse them */
	__atomic_store_n(&pc->data_tail, next, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ data source */

#define DS_FIELD(v, shift, bits) (((v) >> (shift)) & ((1ull << (bits)) - 1))

/* A load that missed the last cache: where it was served from.  Intel's
 * "unknown L3 miss" (ds.c pebs_data_source[0x00]) says no more than the
 * miss: it went to memory, which one unsaid, so it counts as memory (dram,
 * or remote with the remote bit); the page's node is in the profile's
 * `nodes`.  A snoop that hit says a peer core's cache served it instead
 * (ds.c lnc_pebs_data_source[0x0f], "L3 Miss Snoop HitM"). */
static hmpt_level_t llc_miss(uint64_t ds, bool remote)
{
	uint64_t snoop = DS_FIELD(ds, PERF_MEM_SNOOP_SHIFT, 5);
	uint64_t snoopx = DS_FIELD(ds, PERF_MEM_SNOOPX_SHIFT, 2);

	if (remote)
		return HMPT_LEVEL_REMOTE;
	if ((snoop & (PERF_MEM_SNOOP_HIT | PERF_MEM_SNOOP_HITM)) ||
	    (snoopx & (PERF_MEM_SNOOPX_FWD | PERF_MEM_SNOOPX_PEER)))
		return HMPT_LEVEL_L3;
	return HMPT_LEVEL_DRAM;
}

hmpt_level_t hmpt_datasrc_level(uint64_t ds)
{
	uint64_t lvl = DS_FIELD(ds, PERF_MEM_LVL_SHIFT, 14);
	uint64_t num = DS_FIELD(ds, PERF_MEM_LVLNUM_SHIFT, 4);
	uint64_t hops = DS_FIELD(ds, PERF_MEM_HOPS_SHIFT, 3);
	uint64_t where = lvl & ~(uint64_t)(PERF_MEM_LVL_NA | PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS);
	bool hit = lvl & PERF_MEM_LVL_HIT;
	bool miss = (lvl & PERF_MEM_LVL_MISS) && !hit;
	bool has_num = num && num != PERF_MEM_LVLNUM_NA;
	/* Remote means another node: HOPS_0 is "remote core, same node" (the
	 * uapi; amd/ibs.c g_zen4_data_src NEAR_CCX_CACHE, and perf's
	 * c2c_decode_stats in tools/perf/util/mem-events.c counts the remote
	 * bit as remote only without hops).  AMD says HOPS_1 for any remote
	 * node, another socket included (ibs.c perf_ibs_get_mem_lvl). */
	bool remote = DS_FIELD(ds, PERF_MEM_REMOTE_SHIFT, 1) && hops != PERF_MEM_HOPS_0;

	/* Nothing said about the level: software events (PERF_MEM_NA with
	 * LVLNUM_NA), IBS ops without a DataSrc (ibs.c "Don't set HIT with
	 * NA"), reserved PEBS encodings (ds.c lnl_latency_data: LEVEL(NA)). */
	if (!where && !has_num)
		return HMPT_LEVEL_NONE;
	if (has_num) {
		switch (num) {
		case PERF_MEM_LVLNUM_L0:
		case PERF_MEM_LVLNUM_L1:
		case PERF_MEM_LVLNUM_L2:
			/* a miss here says nothing of the level that served it */
			if (miss)
				return HMPT_LEVEL_OTHER;
			if (remote)
				return HMPT_LEVEL_REMOTE;
			return num == PERF_MEM_LVLNUM_L2 ? HMPT_LEVEL_L2 : HMPT_LEVEL_L1;
		case PERF_MEM_LVLNUM_L3:
			/* Intel puts MISS in mem_lvl and L3 in mem_lvl_num for
			 * an L3 miss (ds.c pebs_data_source[0x00]) */
			if (miss)
				return llc_miss(ds, remote);
			return remote ? HMPT_LEVEL_REMOTE : HMPT_LEVEL_L3;
		case PERF_MEM_LVLNUM_ANY_CACHE:
			if (remote)
				return HMPT_LEVEL_REMOTE;
			/* AMD: after an L2 miss, the L3 or a peer CCX on this
			 * node (ibs.c g_data_src LOC_CACHE, g_zen4_data_src
			 * NEAR_CCX_CACHE) */
			if (hit && (lvl & PERF_MEM_LVL_L1))
				return HMPT_LEVEL_L1;
			if (hit && (lvl & PERF_MEM_LVL_L2))
				return HMPT_LEVEL_L2;
			return HMPT_LEVEL_L3;
		case PERF_MEM_LVLNUM_L4:
		case PERF_MEM_LVLNUM_MSC:
			if (miss)
				return llc_miss(ds, remote);
			return remote ? HMPT_LEVEL_REMOTE : HMPT_LEVEL_OTHER;
		case PERF_MEM_LVLNUM_RAM: return remote ? HMPT_LEVEL_REMOTE : HMPT_LEVEL_DRAM;
		/* Far memory stays far when on another node: the slower link
		 * is what the sample shows, and the node is in `nodes` (ibs.c
		 * sets REM and HOPS_1 for a remote EXT_MEM or PMEM). */
		case PERF_MEM_LVLNUM_CXL:
		case PERF_MEM_LVLNUM_PMEM: return HMPT_LEVEL_FAR;
		default: /* LFB, L2_MHB (a line already on its way), I/O, uncached */
			return HMPT_LEVEL_OTHER;
		}
	}
	/* Older kernels: only the mem_lvl bits. */
	if (miss) {
		/* the pre-lvl_num encoding of the unknown L3 miss */
		if (lvl & PERF_MEM_LVL_L3)
			return llc_miss(ds, remote);
		return HMPT_LEVEL_OTHER;
	}
	if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2))
		return HMPT_LEVEL_REMOTE;
	if (lvl & PERF_MEM_LVL_LOC_RAM)
		return HMPT_LEVEL_DRAM;
	if (hit && (lvl & PERF_MEM_LVL_L1))
		return HMPT_LEVEL_L1;
	if (hit && (lvl & PERF_MEM_LVL_L2))
		return HMPT_LEVEL_L2;
	/* before REM_CCE1: AMD before Zen 4 said "L3 or a peer CCX" for its
	 * node-local cache (ibs.c perf_ibs_get_mem_lvl, LOC_CACHE) */
	if (hit && (lvl & PERF_MEM_LVL_L3))
		return HMPT_LEVEL_L3;
	if (lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2))
		return HMPT_LEVEL_REMOTE;
	return HMPT_LEVEL_OTHER;
}

const char *hmpt_datasrc_level_name(hmpt_level_t l)
{
	static const char *const names[] = {"l1", "l2", "l3", "dram", "remote", "far", "other"};

	_Static_assert(sizeof(names) / sizeof(names[0]) == HMPT_LEVEL_COUNT, "a name per level");
	return l < HMPT_LEVEL_COUNT ? names[l] : "none";
}

bool hmpt_datasrc_is_store(uint64_t ds)
{
	return DS_FIELD(ds, PERF_MEM_OP_SHIFT, 5) & PERF_MEM_OP_STORE;
}
