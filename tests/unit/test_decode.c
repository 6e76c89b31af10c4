/* test_decode.c — the data address of a timer sample: instructions
 * recorded as bytes with register sets (each expected address worked out
 * by hand from the instruction), the rule for the instruction before the
 * sampled IP, and records the kernel writes for the timer source of
 * pmu.c, opened by the shim's own perfev.c and read by ring.c, decoded
 * against the program's own arrays. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "decode.h"
#include "perfev.h"
#include "ring.h"

/* perf register numbers (arch/x86/include/uapi/asm/perf_regs.h) */
enum { AX, BX, CX, DX, SI, DI, BP, SP, IP, R8 = 16, R13 = 21 };

typedef struct {
	const char *text;
	uint8_t bytes[16];
	uint8_t len;
	hmpt_decode_status_t status;
	bool read, write;
	uint64_t addr; /* with the registers of regs_for() and the instruction at 0x1000 */
} row_t;

static void regs_for(uint64_t *r)
{
	memset(r, 0, HMPT_RING_REGS * sizeof(*r));
	r[AX] = 0x10000;
	r[BX] = 0x300;
	r[CX] = 3;
	r[DX] = 5;
	r[SI] = 0x20000;
	r[DI] = 0x30000;
	r[SP] = 0x7ff000;
	r[R13] = 0x40000;
}

static const row_t rows[] = {
    {"mov 0x10(%r13,%rcx,8),%rdx",
     {0x49, 0x8b, 0x54, 0xcd, 0x10},
     5,
     HMPT_DECODE_OK,
     true,
     false,
     0x40000 + 3 * 8 + 0x10},
    {"add 0x0(%r13,%rcx,8),%rdx",
     {0x49, 0x03, 0x54, 0xcd, 0x00},
     5,
     HMPT_DECODE_OK,
     true,
     false,
     0x40000 + 3 * 8},
    {"mov %rax,0x8(%rdi)", {0x48, 0x89, 0x47, 0x08}, 4, HMPT_DECODE_OK, false, true, 0x30008},
    {"addq $1,(%rsi,%rdx,4)",
     {0x48, 0x83, 0x04, 0x96, 0x01},
     5,
     HMPT_DECODE_OK,
     true,
     true,
     0x20000 + 5 * 4},
    {"mov 0x100(%rip),%rax",
     {0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00},
     7,
     HMPT_DECODE_OK,
     true,
     false,
     0x1000 + 7 + 0x100},
    {"lea 0x8(%rdi,%rsi,2),%rax",
     {0x48, 0x8d, 0x44, 0x77, 0x08},
     5,
     HMPT_DECODE_NO_MEMORY,
     false,
     false,
     0},
    {"push %rbx", {0x53}, 1, HMPT_DECODE_OK, false, true, 0x7ff000 - 8},
    {"movsq", {0x48, 0xa5}, 2, HMPT_DECODE_OK, true, false, 0x20000},
    {"rep stosq", {0xf3, 0x48, 0xab}, 3, HMPT_DECODE_OK, false, true, 0x30000},
    {"vpgatherdd %ymm2,(%rax,%ymm1,4),%ymm0",
     {0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x88},
     6,
     HMPT_DECODE_VSIB,
     false,
     false,
     0},
    {"mov %fs:0x28,%rax",
     {0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00},
     9,
     HMPT_DECODE_SEGMENT,
     false,
     false,
     0},
    {"nopl 0x0(%rax,%rax,1)", {0x0f, 0x1f, 0x04, 0x00}, 4, HMPT_DECODE_NO_MEMORY, false, false, 0},
    {"prefetcht0 (%rdi)", {0x0f, 0x18, 0x0f}, 3, HMPT_DECODE_NO_MEMORY, false, false, 0},
    {"add %rcx,%rdx", {0x48, 0x01, 0xca}, 3, HMPT_DECODE_NO_MEMORY, false, false, 0},
    {"mov (%eax,%ebx,2),%ecx",
     {0x67, 0x8b, 0x0c, 0x58},
     4,
     HMPT_DECODE_OK,
     true,
     false,
     0x10000 + 0x300 * 2},
    {"(bad) 0x06 in 64-bit mode", {0x06}, 1, HMPT_DECODE_BAD_BYTES, false, false, 0},
};

/* a sample at `ip` with the registers of regs_for() */
static void sample_at(hmpt_ring_sample_t *s, uint64_t ip)
{
	memset(s, 0, sizeof(*s));
	s->ip = ip;
	s->regs_abi = PERF_SAMPLE_REGS_ABI_64;
	regs_for(s->regs);
}

/* A window of code: `pre` (ending at IP, after NOP padding that stops the
 * walk back), then `at` from IP on. */
static void window(uint8_t *win, const uint8_t *pre, size_t npre, const uint8_t *at, size_t nat)
{
	memset(win, 0x90, HMPT_DECODE_WINDOW);
	if (npre)
		memcpy(win + HMPT_DECODE_BEFORE - npre, pre, npre);
	memcpy(win + HMPT_DECODE_BEFORE, at, nat);
}

/* memory for rule 3's re-reads: the program's word at 0x50000 + 8 i is i */
static bool fake_read(uint64_t addr, unsigned n, uint64_t *v)
{
	if (addr < 0x50000 || addr >= 0x60000)
		return false;
	uint64_t w = (addr - 0x50000) / 8;
	*v = n == 8 ? w : w & ((1ull << (8 * n)) - 1);
	return true;
}

static void decode_window(const uint8_t *win, uint64_t ip, hmpt_decode_access_t *a)
{
	hmpt_decode_chain_t c;
	hmpt_ring_sample_t s;

	hmpt_decode_chain(win, HMPT_DECODE_BEFORE, HMPT_DECODE_AFTER, &c);
	sample_at(&s, ip);
	hmpt_decode_access(&c, &s, fake_read, a);
}

static void test_table(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const row_t *r = &rows[i];
		hmpt_decode_insn_t d;
		hmpt_decode_access_t a;
		uint8_t win[HMPT_DECODE_WINDOW];

		hmpt_decode_status_t st = hmpt_decode_insn(r->bytes, r->len, &d);
		if (st != r->status)
			fprintf(stderr, "%s: %s, expected %s\n", r->text, hmpt_decode_reason(st),
			        hmpt_decode_reason(r->status));
		CHECK_OP(st, ==, r->status);
		if (r->status != HMPT_DECODE_BAD_BYTES)
			CHECK_OP(d.len, ==, r->len);
		if (r->status != HMPT_DECODE_OK)
			continue;
		window(win, NULL, 0, r->bytes, r->len);
		decode_window(win, 0x1000, &a);
		if (a.addr != r->addr)
			fprintf(stderr, "%s: address %#llx, expected %#llx\n", r->text,
			        (unsigned long long)a.addr, (unsigned long long)r->addr);
		CHECK_OP(a.addr, ==, r->addr);
		CHECK_OP(a.status, ==, HMPT_DECODE_OK);
		CHECK(a.rule == HMPT_DECODE_RULE_AT && a.insn_ip == 0x1000 && a.memory);
		CHECK_OP(d.mem.read, ==, r->read);
		CHECK_OP(d.mem.write, ==, r->write);
		CHECK_OP(a.store, ==, r->write && !r->read);
		/* a sample without user registers has no address */
		hmpt_decode_chain_t c;
		hmpt_ring_sample_t s;
		hmpt_decode_chain(win, HMPT_DECODE_BEFORE, HMPT_DECODE_AFTER, &c);
		sample_at(&s, 0x1000);
		s.regs_abi = 0;
		hmpt_decode_access(&c, &s, fake_read, &a);
		CHECK_OP(a.status, ==, HMPT_DECODE_NO_REGS);
	}
}

#define B(...) (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})

/* Rules 2-4 on the code gcc -O2 emits for gathers and chases (the offsets
 * of the samples are those the AMD EPYC VMs reported: the instruction after
 * the load). */
static void test_rules(void)
{
	uint8_t win[HMPT_DECODE_WINDOW];
	hmpt_decode_access_t a;

	/* rule 2: add (%rdi,%r8,8),%rax | add $1,%rcx: intact */
	window(win, B(0x4a, 0x03, 0x04, 0xc7), B(0x48, 0x83, 0xc1, 0x01));
	decode_window(win, 0x1004, &a);
	CHECK(a.status == HMPT_DECODE_OK && a.rule == HMPT_DECODE_RULE_PREVIOUS);
	CHECK(a.insn_ip == 0x1000 && a.addr == 0x30000 && a.memory && !a.store);

	/* rule 2 with a RIP-relative operand: relative to its end, i.e. IP */
	window(win, B(0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00), B(0x48, 0x01, 0xca));
	decode_window(win, 0x1007, &a);
	CHECK(a.status == HMPT_DECODE_OK && a.rule == HMPT_DECODE_RULE_PREVIOUS);
	CHECK(a.insn_ip == 0x1000 && a.addr == 0x1007 + 0x100);

	/* rule 3: mov (%rsi,%rax,4),%ecx | mov (%rdi,%rcx,8),%rcx | add $1,%rax:
	 * rcx is worked out by reading idx[rax] again (fake_read's memory) */
	window(win, B(0x8b, 0x0c, 0x86, 0x48, 0x8b, 0x0c, 0xcf), B(0x48, 0x83, 0xc0, 0x01));
	{
		hmpt_decode_chain_t c;
		hmpt_ring_sample_t s;
		hmpt_decode_chain(win, HMPT_DECODE_BEFORE, HMPT_DECODE_AFTER, &c);
		sample_at(&s, 0x1007);
		s.regs[SI] = 0x50000;
		s.regs[AX] = 6; /* idx at 0x50000 + 24: the word at 0x50018 is 3 */
		s.regs[DI] = 0x90000;
		s.regs[CX] = 12345; /* what the load left: no address */
		hmpt_decode_access(&c, &s, fake_read, &a);
		CHECK(a.status == HMPT_DECODE_OK && a.rule == HMPT_DECODE_RULE_RECOVERED);
		CHECK_OP(a.addr, ==, 0x90000 + 3 * 8);
		/* without memory to read again: overwritten */
		hmpt_decode_access(&c, &s, NULL, &a);
		CHECK_OP(a.status, ==, HMPT_DECODE_OVERWRITTEN);
		CHECK(a.memory);
	}

	/* rule 3 through lea and an add undone: mov (%rsi),%edx | add $4,%rsi |
	 * lea (%rdi,%rdx,8),%rdx | mov (%rdx),%rdx | add %rdx,%rax */
	window(win, B(0x8b, 0x16, 0x48, 0x83, 0xc6, 0x04, 0x48, 0x8d, 0x14, 0xd7, 0x48, 0x8b, 0x12),
	       B(0x48, 0x01, 0xd0));
	{
		hmpt_decode_chain_t c;
		hmpt_ring_sample_t s;
		hmpt_decode_chain(win, HMPT_DECODE_BEFORE, HMPT_DECODE_AFTER, &c);
		sample_at(&s, 0x100d);
		s.regs[SI] = 0x50000 + 5 * 8 + 4; /* read at 0x50028: the word is 5 */
		s.regs[DI] = 0x90000;
		hmpt_decode_access(&c, &s, fake_read, &a);
		CHECK(a.status == HMPT_DECODE_OK && a.rule == HMPT_DECODE_RULE_RECOVERED);
		CHECK_OP(a.addr, ==, 0x90000 + 5 * 8);
	}

	/* rule 4: a chase, add $1,%rax | mov (%rdi,%rdx,8),%rdx | cmp %rax,%rsi
	 * | jne back to the add: the load's next address from rdx now */
	window(win, B(0x48, 0x83, 0xc0, 0x01, 0x48, 0x8b, 0x14, 0xd7),
	       B(0x48, 0x39, 0xc6, 0x75, 0xf3));
	decode_window(win, 0x1008, &a);
	CHECK(a.status == HMPT_DECODE_OK && a.rule == HMPT_DECODE_RULE_NEXT);
	CHECK_OP(a.addr, ==, 0x30000 + 5 * 8); /* rdi, rdx of regs_for() */

	/* mov (%rax),%rax | add %rcx,%rdx, no loop: overwritten, not decoded */
	window(win, B(0x48, 0x8b, 0x00), B(0x48, 0x01, 0xca, 0xc3));
	decode_window(win, 0x1003, &a);
	CHECK(a.status == HMPT_DECODE_OVERWRITTEN && a.memory);

	/* the instruction at IP accesses memory: rule 1, whatever precedes */
	window(win, B(0x48, 0x8b, 0x16), rows[0].bytes, rows[0].len);
	decode_window(win, 0x1003, &a);
	CHECK(a.status == HMPT_DECODE_OK && a.rule == HMPT_DECODE_RULE_AT);
}

/* ----------------------------------------------- records of the kernel */

typedef struct {
	uint64_t timer_id;
	uintptr_t lo, hi; /* the program's data: the table and its indices */
	uint64_t timer, memory, decoded, inside;
	uint64_t rule[HMPT_DECODE_RULES];
	uint64_t why[HMPT_DECODE_REASONS];
} tally_t;

static bool read_mem(uint64_t addr, unsigned n, uint64_t *v)
{
	*v = 0;
	memcpy(v, (const void *)addr, n);
	return true;
}

/* the loop keeps its samples; they are decoded after it, so that the
 * decoding's own time is not sampled */
typedef struct {
	int n;
	hmpt_ring_sample_t s[8192];
} kept_t;

static void keep(const hmpt_ring_sample_t *s, void *ctx)
{
	kept_t *k = ctx;
	if (k->n < 8192)
		k->s[k->n++] = *s;
}

static void on_sample(const hmpt_ring_sample_t *s, void *ctx)
{
	tally_t *t = ctx;
	uint8_t win[HMPT_DECODE_WINDOW];
	size_t before, after;
	hmpt_decode_chain_t ch;
	hmpt_decode_access_t a;

	if (s->id != t->timer_id)
		return;
	t->timer++;
	if (!hmpt_decode_read_code(s->ip, win, &before, &after)) {
		t->why[HMPT_DECODE_NO_CODE]++;
		return;
	}
	hmpt_decode_chain(win, before, after, &ch);
	hmpt_decode_access(&ch, s, read_mem, &a);
	t->why[a.status]++;
	if (getenv("DEBUG_IPS"))
		fprintf(stderr, "ip %#llx st %d rule %d in %d\n", (unsigned long long)s->ip,
		        a.status, a.rule, a.addr >= t->lo && a.addr < t->hi);
	if (!a.memory)
		return;
	t->memory++;
	if (a.status != HMPT_DECODE_OK)
		return;
	t->decoded++;
	t->rule[a.rule]++;
	t->inside += a.addr >= t->lo && a.addr < t->hi;
}

/* without the sanitizers: their shadow checks beside each load would be
 * sampled too, and their addresses are no data of the program */
__attribute__((noinline, no_sanitize("address", "undefined"))) static uint64_t
gather(const uint64_t *table, const uint32_t *idx, size_t m)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < m; i++)
		sum += ((const volatile uint64_t *)table)[idx[i]];
	return sum;
}

static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A random gather over 64 MiB for 0.4 s of this thread's CPU time under
 * the timer source: the samples that name a memory instruction decode, and
 * their addresses are the program's own data (by construction: the loop
 * reads nothing else; not a statement about speed). */
static void test_kernel_timer(void)
{
	hmpt_pmu_request_t rq = {.root = "",
	                         .want = HMPT_SAMPLER_TIMER,
	                         .period = 250000,
	                         .privileged = geteuid() == 0,
	                         .paranoid = 2,
	                         .timer = true};
	hmpt_pmu_setup_t su;
	hmpt_perfev_opts_t o;
	hmpt_perfev_group_t g;
	char err[160];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const size_t n = (64u << 20) / sizeof(uint64_t), m = 1u << 16;

	CHECK_OP(hmpt_pmu_setup(&rq, &su), ==, 0);
	CHECK_OP(su.kind, ==, HMPT_SAMPLER_TIMER);
	CHECK(su.nevents == 2 && su.ev[0].touches && !su.ev[1].touches);
	hmpt_perfev_opts_init(&o, &su, 64, page);
	CHECK(o.sample_type & PERF_SAMPLE_REGS_USER);
	int rc = hmpt_perfev_open_first(&su, &o, &g, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "the timer source cannot open here: %s\n", err);
		failures++;
		return;
	}
	/* one buffer: the table, then the indices */
	uint64_t *buf = malloc((n + m) * sizeof(uint64_t));
	uint32_t *idx = (uint32_t *)(buf + n);
	tally_t t = {.timer_id = g.id[1], .lo = (uintptr_t)buf, .hi = (uintptr_t)(buf + n + m)};
	hmpt_ring_counts_t c = {0};
	uint64_t x = 88172645463325252ull, sum = 0;

	for (size_t i = 0; i < n; i++)
		buf[i] = i;
	for (size_t i = 0; i < m; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		idx[i] = (uint32_t)(x % n);
	}
	kept_t *kept = calloc(1, sizeof(*kept));
	hmpt_ring_drain(g.ring, hmpt_perfev_data_bytes(&o), o.sample_type, keep, kept, &c);
	kept->n = 0;
	double t0 = thread_cpu_s();
	while (thread_cpu_s() - t0 < 0.4) {
		sum += gather(buf, idx, m);
		/* a ring of 256 KiB holds ~1,400 samples: read it as it fills */
		hmpt_ring_drain(g.ring, hmpt_perfev_data_bytes(&o), o.sample_type, keep, kept, &c);
	}
	hmpt_perfev_close(&g, &o);
	for (int i = 0; i < kept->n; i++)
		on_sample(&kept->s[i], &t);
	free(kept);
	printf("kernel timer samples: %llu, on a memory instruction %llu, decoded %llu, "
	       "in the program's data %llu (sum %llu); rules:",
	       (unsigned long long)t.timer, (unsigned long long)t.memory,
	       (unsigned long long)t.decoded, (unsigned long long)t.inside,
	       (unsigned long long)(sum & 1));
	for (int i = 0; i < HMPT_DECODE_RULES; i++)
		printf(" %s %llu", hmpt_decode_rule_name((hmpt_decode_rule_t)i),
		       (unsigned long long)t.rule[i]);
	printf("\n");
	for (int i = 0; i < HMPT_DECODE_REASONS; i++)
		if (t.why[i])
			printf("  %s: %llu\n", hmpt_decode_reason((hmpt_decode_status_t)i),
			       (unsigned long long)t.why[i]);
	CHECK_OP(c.malformed, ==, 0);
	/* 0.4 s at 4 kHz: ~1,600 samples; 200 leaves room for a busy machine's
	 * timer slack */
	CHECK_OP(t.timer, >=, 200);
	CHECK_OP(t.memory * 2, >=, t.timer);
	CHECK_OP(t.decoded * 10, >=, t.memory * 9);
	CHECK_OP(t.inside * 10, >=, t.decoded * 9);
	free(buf);
}

int main(void)
{
	if (!hmpt_decode_available()) {
		printf("SKIP: built without Zydis (libzydis-dev): no decoder to test\n");
		return 77;
	}
	test_table();
	test_rules();
	test_kernel_timer();
	if (failures)
		fprintf(stderr, "test_decode: %d failures\n", failures);
	return failures ? 1 : 0;
}
