/* decode.c — see decode.h. */
#include "decode.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

static const char *const reasons[HMPT_DECODE_REASONS] = {
    "ok",           "no memory operand", "bad bytes",  "segment", "vsib", "code unreadable",
    "no registers", "no decoder",        "overwritten"};

const char *hmpt_decode_reason(hmpt_decode_status_t s)
{
	return s < HMPT_DECODE_REASONS ? reasons[s] : "?";
}

uint64_t hmpt_decode_address(const hmpt_decode_mem_t *m, uint64_t next_ip, const uint64_t *regs)
{
	uint64_t a = (uint64_t)m->disp;

	if (m->base == HMPT_DECODE_RIP)
		a += next_ip;
	else if (m->base >= 0)
		a += regs[m->base];
	if (m->index >= 0)
		a += regs[m->index] * m->scale;
	return m->width == 32 ? (uint32_t)a : a;
}

static const char *const rules[HMPT_DECODE_RULES] = {"at", "previous", "recovered", "next"};

const char *hmpt_decode_rule_name(hmpt_decode_rule_t r)
{
	return r < HMPT_DECODE_RULES ? rules[r] : "?";
}

/* ------------------------------------------------------------ the chain */

/* The instruction boundaries before IP (offsets from IP, latest first) on
 * which every forward decoding from the first 16 bytes of the window that
 * lands on IP agrees: x86 decodings from different starts converge within
 * a few instructions, and those that do not land on IP are no reading of
 * the code that ran. */
static int boundaries(const uint8_t *win, size_t before, int16_t *off, int max)
{
	const int L = HMPT_DECODE_BEFORE;
	int16_t agreed[HMPT_DECODE_CHAIN], got[HMPT_DECODE_BEFORE];
	int nagreed = -1;

	for (int start = L - (int)before; start < L - (int)before + 16 && start < L; start++) {
		int pos = start, n = 0;
		hmpt_decode_insn_t d;
		while (pos < L && n < HMPT_DECODE_BEFORE) {
			got[n++] = (int16_t)(pos - L);
			if (hmpt_decode_insn(win + pos, (size_t)(L - pos), &d) ==
			        HMPT_DECODE_BAD_BYTES ||
			    !d.len)
				break;
			pos += d.len;
		}
		if (pos != L)
			continue;
		/* the last boundaries of this reading, latest first, as far as
		 * they agree with the readings before */
		int k = 0;
		for (int i = n - 1; i >= 0 && k < max; i--, k++) {
			if (nagreed >= 0 && (k >= nagreed || agreed[k] != got[i]))
				break;
			agreed[k] = got[i];
		}
		nagreed = k;
	}
	if (nagreed <= 0)
		return 0;
	memcpy(off, agreed, (size_t)nagreed * sizeof(*off));
	return nagreed;
}

void hmpt_decode_chain(const uint8_t *win, size_t before, size_t after, hmpt_decode_chain_t *c)
{
	const int L = HMPT_DECODE_BEFORE;
	int16_t off[HMPT_DECODE_CHAIN - 1];

	memset(c, 0, sizeof(*c));
	hmpt_decode_insn(win + L, after, &c->insn[0]);
	c->n = 1;
	int nb = boundaries(win, before, off, HMPT_DECODE_CHAIN - 1);
	for (int i = 0; i < nb; i++) {
		hmpt_decode_insn_t *d = &c->insn[c->n];
		int end = i ? off[i - 1] : 0;
		hmpt_decode_insn(win + L + off[i], (size_t)(end - off[i]), d);
		if (d->len != end - off[i])
			break;
		c->off[c->n++] = off[i];
		if (d->op == HMPT_DECODE_OP_STOP || d->op == HMPT_DECODE_OP_BACK)
			break; /* before a NOP or a jump, the code that ran is not known */
	}
	for (size_t pos = 0; pos < after && c->nahead < HMPT_DECODE_AHEAD;) {
		hmpt_decode_insn_t *d = &c->ahead[c->nahead];
		if (hmpt_decode_insn(win + L + pos, after - pos, d) == HMPT_DECODE_BAD_BYTES ||
		    !d->len)
			break;
		c->nahead++;
		if (d->op == HMPT_DECODE_OP_STOP || d->op == HMPT_DECODE_OP_BACK)
			break;
		pos += d->len;
	}
}

/* ------------------------------------------------------------ the values */

typedef struct {
	const hmpt_decode_chain_t *c;
	const hmpt_ring_sample_t *s;
	hmpt_decode_read_fn read;
	bool recovered;
} eval_t;

static bool value(eval_t *e, int r, int j, int depth, uint64_t *v);

/* The address instruction j's operand had when it ran */
static bool address(eval_t *e, int j, int depth, uint64_t *a)
{
	const hmpt_decode_insn_t *d = &e->c->insn[j];
	const hmpt_decode_mem_t *m = &d->mem;
	uint64_t regs[HMPT_RING_REGS] = {0};

	if (m->base >= 0 && !value(e, m->base, j, depth, &regs[m->base]))
		return false;
	if (m->index >= 0 && !value(e, m->index, j, depth, &regs[m->index]))
		return false;
	uint64_t ip = e->s->ip + (uint64_t)(int64_t)e->c->off[j];
	*a = hmpt_decode_address(m, ip + d->len, regs);
	return true;
}

/* What instruction j (executed) left in its destination */
static bool result(eval_t *e, int j, int depth, uint64_t *v)
{
	const hmpt_decode_insn_t *d = &e->c->insn[j];
	uint64_t x = 0, a;

	if (depth > HMPT_DECODE_CHAIN || (d->dst_bits != 32 && d->dst_bits != 64))
		return false;
	switch (d->op) {
	case HMPT_DECODE_OP_LOAD:
		if (!e->read || !address(e, j, depth + 1, &a) || !e->read(a, d->load_bytes, &x))
			return false;
		if (d->sign && d->load_bytes < 8) {
			unsigned sh = 64 - 8 * d->load_bytes;
			x = (uint64_t)((int64_t)(x << sh) >> sh);
		}
		break;
	case HMPT_DECODE_OP_MOVREG:
		if (!value(e, d->src, j, depth + 1, &x))
			return false;
		break;
	case HMPT_DECODE_OP_LEA:
		if (!address(e, j, depth + 1, &x))
			return false;
		break;
	case HMPT_DECODE_OP_ADDIMM:
		if (!value(e, d->dst, j, depth + 1, &x))
			return false;
		x += (uint64_t)d->imm;
		break;
	case HMPT_DECODE_OP_CONST: x = (uint64_t)d->imm; break;
	default: return false;
	}
	*v = d->dst_bits == 32 ? (uint32_t)x : x;
	return true;
}

/* Register r's value before instruction j of the chain ran (j >= 1;
 * instructions j..1 ran since): as it is now where none of them wrote it,
 * with constants added since undone, or else from the instruction before
 * j that last wrote it. */
static bool value(eval_t *e, int r, int j, int depth, uint64_t *v)
{
	const hmpt_decode_chain_t *c = e->c;
	int64_t undo = 0;
	bool plain = true;

	for (int t = 1; t <= j; t++) {
		const hmpt_decode_insn_t *d = &c->insn[t];
		if (!(d->writes >> r & 1))
			continue;
		if (d->op == HMPT_DECODE_OP_ADDIMM && d->dst == r && d->dst_bits == 64)
			undo += d->imm;
		else
			plain = false;
	}
	if (plain) {
		*v = e->s->regs[r] - (uint64_t)undo;
		e->recovered |= undo != 0;
		return true;
	}
	for (int d = j + 1; d < c->n; d++)
		if (c->insn[d].writes >> r & 1) {
			if (c->insn[d].dst != r || !result(e, d, depth, v))
				return false;
			e->recovered = true;
			return true;
		}
	return false;
}

/* Rule 4: from IP the code runs to a jump back to at or before the load
 * (instruction 1), and neither that way nor the way from the jump's target
 * (within the chain) to the load writes the load's address registers. */
static bool next_execution(const hmpt_decode_chain_t *c, uint32_t regs)
{
	int64_t pos = 0;

	for (int i = 0; i < c->nahead; i++) {
		const hmpt_decode_insn_t *d = &c->ahead[i];
		if (d->op == HMPT_DECODE_OP_BACK) {
			int64_t target = pos + d->len + d->imm;
			if (target > c->off[1] || target < c->off[c->n - 1])
				return false;
			for (int t = 2; t < c->n && c->off[t] >= target; t++)
				if (c->insn[t].writes & regs)
					return false;
			return true;
		}
		if (d->op == HMPT_DECODE_OP_STOP || (d->writes & regs))
			return false;
		pos += d->len;
	}
	return false;
}

static uint32_t address_regs(const hmpt_decode_mem_t *m)
{
	return (m->base >= 0 ? 1u << m->base : 0) | (m->index >= 0 ? 1u << m->index : 0);
}

void hmpt_decode_access(const hmpt_decode_chain_t *c, const hmpt_ring_sample_t *s,
                        hmpt_decode_read_fn read, hmpt_decode_access_t *out)
{
	const hmpt_decode_insn_t *d = &c->insn[0];
	int j = 0;

	memset(out, 0, sizeof(*out));
	if (d->status == HMPT_DECODE_NO_MEMORY && c->n > 1 &&
	    c->insn[1].status != HMPT_DECODE_NO_MEMORY &&
	    c->insn[1].status != HMPT_DECODE_BAD_BYTES)
		d = &c->insn[j = 1];
	out->status = d->status;
	out->memory = d->status != HMPT_DECODE_NO_MEMORY && d->status != HMPT_DECODE_BAD_BYTES;
	if (d->status != HMPT_DECODE_OK)
		return;
	if (!s->regs_abi) {
		out->status = HMPT_DECODE_NO_REGS;
		return;
	}
	out->insn_ip = s->ip + (uint64_t)(int64_t)c->off[j];
	out->store = d->mem.write && !d->mem.read;
	if (j == 0) {
		out->rule = HMPT_DECODE_RULE_AT;
		out->addr = hmpt_decode_address(&d->mem, s->ip + d->len, s->regs);
		return;
	}
	eval_t e = {c, s, read, false};
	if (address(&e, 1, 0, &out->addr)) {
		out->rule = e.recovered ? HMPT_DECODE_RULE_RECOVERED : HMPT_DECODE_RULE_PREVIOUS;
		return;
	}
	if (next_execution(c, address_regs(&d->mem))) {
		out->rule = HMPT_DECODE_RULE_NEXT;
		out->addr = hmpt_decode_address(&d->mem, s->ip, s->regs);
		return;
	}
	out->status = HMPT_DECODE_OVERWRITTEN;
}

/* Up to n bytes at addr, through the kernel (a page unmapped since the
 * sample is an error, not a crash): how many were read. */
static size_t read_code(uint64_t addr, uint8_t *dst, size_t n)
{
	struct iovec here = {dst, n}, there = {(void *)addr, n};
	ssize_t got = process_vm_readv(getpid(), &here, 1, &there, 1, 0);

	return got > 0 ? (size_t)got : 0;
}

bool hmpt_decode_read_data(uint64_t addr, unsigned n, uint64_t *v)
{
	unsigned char in = 0;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t p = (uintptr_t)addr & ~(uintptr_t)(page > 0 ? page - 1 : 4095);

	*v = 0;
	if (n > 8 || mincore((void *)p, 1, &in) != 0 || !(in & 1))
		return false;
	return read_code(addr, (uint8_t *)v, n) == n;
}

bool hmpt_decode_read_code(uint64_t ip, uint8_t *win, size_t *before, size_t *after)
{
	const size_t B = HMPT_DECODE_BEFORE;

	memset(win, 0, HMPT_DECODE_WINDOW);
	*after = read_code(ip, win + B, HMPT_DECODE_AFTER);
	if (!*after)
		return false;
	*before = ip >= B ? read_code(ip - B, win, B) : 0;
	if (*before < B) { /* the page before is not there: what ip's page holds */
		size_t k = ip - (ip & ~(uint64_t)4095);
		k = k < B ? k : B;
		*before = k ? read_code(ip - k, win + B - k, k) : 0;
	}
	return true;
}

#ifdef HMPT_NO_ZYDIS

bool hmpt_decode_available(void)
{
	return false;
}

hmpt_decode_status_t hmpt_decode_insn(const uint8_t *code, size_t n, hmpt_decode_insn_t *out)
{
	(void)code;
	(void)n;
	memset(out, 0, sizeof(*out));
	out->status = HMPT_DECODE_NO_DECODER;
	return HMPT_DECODE_NO_DECODER;
}

#else

#include <errno.h>

#include <Zydis/Zydis.h>

#include "log.h"
#include "sys.h"

#ifndef HMPT_ZYDIS_SONAME
#define HMPT_ZYDIS_SONAME "libZydis.so.4.0"
#endif

/* Zydis is opened at its first use, not linked: a process that never
 * decodes a timer sample does not map it.  Its types come from the
 * headers this was built with; the soname pins the same library. */
static struct {
	__typeof__(&ZydisDecoderInit) init;
	__typeof__(&ZydisDecoderDecodeFull) decode;
	__typeof__(&ZydisRegisterGetLargestEnclosing) enclosing;
} zy_g;
static int zy_state_g; /* 0: not tried, 1: loaded, -1: cannot be */

bool hmpt_decode_available(void)
{
	static const hmpt_sys_sym_t syms[] = {
	    {"ZydisDecoderInit", (void **)&zy_g.init},
	    {"ZydisDecoderDecodeFull", (void **)&zy_g.decode},
	    {"ZydisRegisterGetLargestEnclosing", (void **)&zy_g.enclosing},
	};
	static int said;
	int st = __atomic_load_n(&zy_state_g, __ATOMIC_ACQUIRE);
	const char *why = NULL;
	void *h;

	if (st)
		return st > 0;
	/* no lock: threads that race here each load it, and write the same
	 * pointers */
	int rc = hmpt_sys_dlopen_syms(HMPT_ZYDIS_SONAME, syms,
	                              (int)(sizeof(syms) / sizeof(syms[0])), &h, &why);
	__atomic_store_n(&zy_state_g, rc == 0 ? 1 : -1, __ATOMIC_RELEASE);
	if (rc && hmpt_log_first(&said))
		hmpt_log_printf(HMPT_LOG_WARN, "%s %s: timer samples cannot be decoded",
		                rc == -ENOENT ? "cannot load" : HMPT_ZYDIS_SONAME " has no", why);
	return rc == 0;
}

/* Zydis's register as perf's register number (the 64-bit register that
 * encloses it), or HMPT_DECODE_NONE */
static int perf_reg(ZydisRegister r)
{
	static const struct {
		ZydisRegister z;
		int8_t perf;
	} map[] = {{ZYDIS_REGISTER_RAX, 0},  {ZYDIS_REGISTER_RBX, 1},  {ZYDIS_REGISTER_RCX, 2},
	           {ZYDIS_REGISTER_RDX, 3},  {ZYDIS_REGISTER_RSI, 4},  {ZYDIS_REGISTER_RDI, 5},
	           {ZYDIS_REGISTER_RBP, 6},  {ZYDIS_REGISTER_RSP, 7},  {ZYDIS_REGISTER_RIP, 8},
	           {ZYDIS_REGISTER_R8, 16},  {ZYDIS_REGISTER_R9, 17},  {ZYDIS_REGISTER_R10, 18},
	           {ZYDIS_REGISTER_R11, 19}, {ZYDIS_REGISTER_R12, 20}, {ZYDIS_REGISTER_R13, 21},
	           {ZYDIS_REGISTER_R14, 22}, {ZYDIS_REGISTER_R15, 23}};

	if (r == ZYDIS_REGISTER_NONE)
		return HMPT_DECODE_NONE;
	if (r == ZYDIS_REGISTER_RIP || r == ZYDIS_REGISTER_EIP)
		return 8;
	ZydisRegister big = zy_g.enclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].z == big)
			return map[i].perf;
	return -3; /* not a general-purpose register */
}

/* The operand hmpt takes among several: one the program names (not a
 * hidden stack slot of push/call), then a read (movs reads before it
 * writes: the read is the one that waits) */
static int better(const ZydisDecodedOperand *a, const ZydisDecodedOperand *b)
{
	int va = a->visibility != ZYDIS_OPERAND_VISIBILITY_HIDDEN;
	int vb = b->visibility != ZYDIS_OPERAND_VISIBILITY_HIDDEN;
	if (va != vb)
		return va > vb;
	return (a->actions & ZYDIS_OPERAND_ACTION_MASK_READ) &&
	       !(b->actions & ZYDIS_OPERAND_ACTION_MASK_READ);
}

/* An operand's address as registers: OK, or why it cannot be worked out */
static hmpt_decode_status_t fill_mem(hmpt_decode_mem_t *m, const ZydisDecodedInstruction *in,
                                     const ZydisDecodedOperand *o, uint32_t writes)
{
	m->read = o->actions & ZYDIS_OPERAND_ACTION_MASK_READ;
	m->write = o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;
	m->scale = o->mem.scale ? o->mem.scale : 1;
	m->width = in->address_width == 32 ? 32 : 64;
	m->disp = o->mem.disp.has_displacement ? o->mem.disp.value : 0;
	if (o->mem.type == ZYDIS_MEMOP_TYPE_VSIB)
		return HMPT_DECODE_VSIB;
	if (o->mem.segment == ZYDIS_REGISTER_FS || o->mem.segment == ZYDIS_REGISTER_GS)
		return HMPT_DECODE_SEGMENT;
	int b = perf_reg(o->mem.base), x = perf_reg(o->mem.index);
	if (b == 8) /* RIP */
		b = HMPT_DECODE_RIP;
	if (b < HMPT_DECODE_RIP || x < HMPT_DECODE_NONE)
		return HMPT_DECODE_BAD_BYTES; /* an address of other registers */
	m->base = (int8_t)b;
	m->index = (int8_t)x;
	/* push and call write below the stack pointer they are given: Zydis
	 * names [rsp], the slot is [rsp - size] */
	if (o->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN && b == 7 && m->write && !m->read &&
	    (writes >> 7 & 1))
		m->disp -= o->size / 8;
	return HMPT_DECODE_OK;
}

static bool gpr(const ZydisDecodedOperand *o)
{
	return o->type == ZYDIS_OPERAND_TYPE_REGISTER && perf_reg(o->reg.value) >= 0 &&
	       perf_reg(o->reg.value) != 8;
}

/* What rule 3 and 4 need of the instruction: how its destination register
 * is computed, or whether the straight line ends here */
static void classify(hmpt_decode_insn_t *out, const ZydisDecodedInstruction *in,
                     const ZydisDecodedOperand *ops)
{
	const ZydisDecodedOperand *d = &ops[0], *s = &ops[1];
	ZydisInstructionCategory cat = in->meta.category;
	ZydisMnemonic mn = in->mnemonic;

	if (cat == ZYDIS_CATEGORY_NOP || cat == ZYDIS_CATEGORY_WIDENOP ||
	    cat == ZYDIS_CATEGORY_CALL || cat == ZYDIS_CATEGORY_RET ||
	    cat == ZYDIS_CATEGORY_SYSCALL || cat == ZYDIS_CATEGORY_INTERRUPT) {
		out->op = HMPT_DECODE_OP_STOP;
		return;
	}
	if (cat == ZYDIS_CATEGORY_COND_BR || cat == ZYDIS_CATEGORY_UNCOND_BR) {
		out->op = HMPT_DECODE_OP_STOP;
		if (in->operand_count_visible && d->type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    d->imm.is_relative && (int64_t)in->length + d->imm.value.s <= 0) {
			out->op = HMPT_DECODE_OP_BACK;
			out->imm = d->imm.value.s;
		}
		return;
	}
	if (in->operand_count_visible < 2 && mn != ZYDIS_MNEMONIC_INC && mn != ZYDIS_MNEMONIC_DEC)
		return;
	if (!gpr(d))
		return;
	out->dst = (int8_t)perf_reg(d->reg.value);
	out->dst_bits = (uint8_t)d->size;
	switch (mn) {
	case ZYDIS_MNEMONIC_MOV:
	case ZYDIS_MNEMONIC_MOVZX:
	case ZYDIS_MNEMONIC_MOVSX:
	case ZYDIS_MNEMONIC_MOVSXD:
		if (s->type == ZYDIS_OPERAND_TYPE_MEMORY && out->status == HMPT_DECODE_OK) {
			out->op = HMPT_DECODE_OP_LOAD;
			out->load_bytes = (uint8_t)(s->size / 8);
			out->sign = mn == ZYDIS_MNEMONIC_MOVSX || mn == ZYDIS_MNEMONIC_MOVSXD;
		} else if (gpr(s) && mn == ZYDIS_MNEMONIC_MOV) {
			out->op = HMPT_DECODE_OP_MOVREG;
			out->src = (int8_t)perf_reg(s->reg.value);
		} else if (s->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && mn == ZYDIS_MNEMONIC_MOV) {
			out->op = HMPT_DECODE_OP_CONST;
			out->imm = s->imm.value.s;
		}
		break;
	case ZYDIS_MNEMONIC_LEA:
		if (fill_mem(&out->mem, in, s, out->writes) == HMPT_DECODE_OK)
			out->op = HMPT_DECODE_OP_LEA;
		break;
	case ZYDIS_MNEMONIC_ADD:
	case ZYDIS_MNEMONIC_SUB:
		if (s->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			out->op = HMPT_DECODE_OP_ADDIMM;
			out->imm = mn == ZYDIS_MNEMONIC_SUB ? -s->imm.value.s : s->imm.value.s;
		}
		break;
	case ZYDIS_MNEMONIC_INC:
	case ZYDIS_MNEMONIC_DEC:
		out->op = HMPT_DECODE_OP_ADDIMM;
		out->imm = mn == ZYDIS_MNEMONIC_INC ? 1 : -1;
		break;
	case ZYDIS_MNEMONIC_XOR:
		if (gpr(s) && s->reg.value == d->reg.value) {
			out->op = HMPT_DECODE_OP_CONST;
			out->imm = 0;
		}
		break;
	default: break;
	}
}

hmpt_decode_status_t hmpt_decode_insn(const uint8_t *code, size_t n, hmpt_decode_insn_t *out)
{
	static ZydisDecoder dec;
	static int ready;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	memset(out, 0, sizeof(*out));
	out->mem.base = out->mem.index = out->dst = out->src = HMPT_DECODE_NONE;
	if (!hmpt_decode_available()) {
		out->status = HMPT_DECODE_NO_DECODER;
		return HMPT_DECODE_NO_DECODER;
	}
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		/* the same bytes every time: a race writes the same values */
		zy_g.init(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	if (!ZYAN_SUCCESS(zy_g.decode(&dec, code, n, &in, ops))) {
		out->status = HMPT_DECODE_BAD_BYTES;
		return HMPT_DECODE_BAD_BYTES;
	}
	out->len = in.length;
	const ZydisDecodedOperand *pick = NULL;
	for (int i = 0; i < in.operand_count; i++) {
		const ZydisDecodedOperand *o = &ops[i];
		if (o->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)) {
			int r = perf_reg(o->reg.value);
			if (r >= 0)
				out->writes |= 1u << r;
		}
		if (o->type != ZYDIS_OPERAND_TYPE_MEMORY ||
		    (o->mem.type != ZYDIS_MEMOP_TYPE_MEM && o->mem.type != ZYDIS_MEMOP_TYPE_VSIB))
			continue; /* LEA's AGEN, MPX's MIB: no access */
		if (!pick || better(o, pick))
			pick = o;
	}
	ZydisInstructionCategory cat = in.meta.category;
	if (!pick || cat == ZYDIS_CATEGORY_NOP || cat == ZYDIS_CATEGORY_WIDENOP ||
	    cat == ZYDIS_CATEGORY_PREFETCH || cat == ZYDIS_CATEGORY_PREFETCHWT1)
		out->status = HMPT_DECODE_NO_MEMORY;
	else
		out->status = (uint8_t)fill_mem(&out->mem, &in, pick, out->writes);
	classify(out, &in, ops);
	return (hmpt_decode_status_t)out->status;
}

#endif
