/* decode.h — the data address of a timer sample, from its instruction and
 * the user registers.
 *
 * Why: without a PMU, a CPU-time timer still says which instruction a
 * thread was at and what its registers held.  On a program stalled on
 * memory that instruction is mostly the load waiting for its data: an
 * interrupt is taken at an instruction boundary, and the oldest
 * instruction not yet retired (the one reported) is the one holding up
 * retirement.  Its memory operand, computed from the registers, is a data
 * address (DCPI's value sampling, Sun's data-address profiling).
 *
 * The rules, in order (each counted apart in the profile):
 * 1. "at": the instruction at the sampled IP reads or writes memory (not
 *    LEA, NOP, prefetches): its operand's address, from the registers, which
 *    still hold its inputs as it has not executed.
 * 2. "previous": the instruction that ended at IP, where IP accesses no
 *    memory.  A CPU may take the interrupt only once the stalled load has
 *    retired and report the next instruction: the 2-core AMD EPYC VMs did
 *    so for 96-98 % of the samples of `mov`/`add` gathers and a pointer
 *    chase (test_decode prints it).  x86 cannot be decoded backwards for
 *    certain: the 15 byte offsets before an instruction are decoded forward
 *    and a reading is taken where every one that ends there and touches
 *    memory names the same address (the bytes of one may end another:
 *    8b 16 inside 48 8b 16).  Its address registers are used as they are
 *    now where neither it nor anything after it wrote them.
 * 3. "recovered": it wrote them (`mov (%rdi,%rcx,8),%rcx`, the commonest
 *    form compilers emit): their values before it are worked out from the
 *    instructions before it, walked back in a straight line (up to
 *    HMPT_DECODE_CHAIN instructions, never past a NOP, which pads branch
 *    targets, nor a jump): mov/movzx/movsxd from memory (the memory is read
 *    again, if still resident), mov between registers, lea, add/sub/inc/dec
 *    of a constant (also undone when they came after), xor of a register
 *    with itself, mov of a constant.
 * 4. "next": otherwise, where the code after IP runs straight to a jump
 *    back to at or before the load, and nothing on that way round writes
 *    its address registers (a pointer chase `mov (%rdi,%rdx,8),%rdx`): the
 *    address of the load's next execution, from the registers now.  It is
 *    the next access of the same walk, not the one that waited.
 *
 * Not decoded (counted by reason): FS/GS-based operands (the sample has the
 * selectors' values, not the segment bases), VSIB gathers and scatters (the
 * index is a vector register, which REGS_USER does not carry on x86),
 * bytes that are no instruction, code that cannot be read.  String
 * instructions (movs, stos, lods, cmps, scas) are decoded: RSI and RDI hold
 * the current element's address.
 *
 * Contract: no malloc, no locks, no system calls except the reads of
 * hmpt_decode_read_code and hmpt_decode_read_data; Zydis's decoder allocates
 * nothing.  Zydis is opened (dlopen) by the first hmpt_decode_available()
 * or hmpt_decode_insn(): the sampler's set-up calls the first, with the
 * re-entrancy guard held.  Built without Zydis (HMPT_NO_ZYDIS), or where it
 * cannot be loaded (said once), hmpt_decode_available() is false and
 * everything reports HMPT_DECODE_NO_DECODER.
 */
#ifndef HMPT_DECODE_H
#define HMPT_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h"

#define HMPT_DECODE_MAX_LEN 15 /* the longest x86 instruction */
#define HMPT_DECODE_RIP     (-2)
#define HMPT_DECODE_NONE    (-1)

typedef enum {
	HMPT_DECODE_OK,          /* an address */
	HMPT_DECODE_NO_MEMORY,   /* the instruction accesses no memory */
	HMPT_DECODE_BAD_BYTES,   /* no instruction decodes there */
	HMPT_DECODE_SEGMENT,     /* FS/GS-based: the segment's base is not sampled */
	HMPT_DECODE_VSIB,        /* a gather or scatter: vector index registers */
	HMPT_DECODE_NO_CODE,     /* the code could not be read (unmapped) */
	HMPT_DECODE_NO_REGS,     /* the sample has no user registers */
	HMPT_DECODE_NO_DECODER,  /* built without Zydis */
	HMPT_DECODE_OVERWRITTEN, /* rule 2's load wrote its address registers and
	                          * rules 3 and 4 could not work them out */
	HMPT_DECODE_REASONS,
} hmpt_decode_status_t;

/* One memory operand, as register numbers of perf (ring.h) */
typedef struct {
	int8_t base, index; /* HMPT_DECODE_NONE, HMPT_DECODE_RIP, or a register */
	uint8_t scale;
	uint8_t width; /* address width in bits: 64, or 32 (an addr32 prefix) */
	bool read, write;
	int64_t disp;
} hmpt_decode_mem_t;

/* What an instruction does, as far as the rules need: its memory
 * operand (status OK), the registers it writes (a mask of perf register
 * numbers), and for the instructions rule 3 evaluates, how. */
typedef enum {
	HMPT_DECODE_OP_OTHER,
	HMPT_DECODE_OP_LOAD,   /* dst <- memory, zero- or sign-extended */
	HMPT_DECODE_OP_MOVREG, /* dst <- src */
	HMPT_DECODE_OP_LEA,    /* dst <- the address of mem */
	HMPT_DECODE_OP_ADDIMM, /* dst <- dst + imm (add, sub, inc, dec) */
	HMPT_DECODE_OP_CONST,  /* dst <- imm (mov $imm, xor r, r) */
	HMPT_DECODE_OP_STOP,   /* a NOP or a jump: the straight line ends */
	HMPT_DECODE_OP_BACK,   /* a jump to a lower address (a loop's back edge) */
} hmpt_decode_op_t;

typedef struct {
	uint8_t len;
	uint8_t status; /* hmpt_decode_status_t */
	uint8_t op;     /* hmpt_decode_op_t */
	int8_t dst, src;
	uint8_t dst_bits, load_bytes;
	bool sign; /* the load sign-extends */
	uint32_t writes;
	int64_t imm;           /* OP_ADDIMM, OP_CONST; OP_BACK: the jump's displacement */
	hmpt_decode_mem_t mem; /* also LEA's operand (status NO_MEMORY) */
} hmpt_decode_insn_t;

/* The instructions around a sampled IP: insn[0] at IP (not executed), then
 * those before it, latest first, with their offsets from IP; ahead[] the
 * instructions from IP on, up to and including a jump (rule 4).  Depends
 * on the code only: a cache keeps it per IP. */
#define HMPT_DECODE_CHAIN 6
#define HMPT_DECODE_AHEAD 8
typedef struct {
	uint8_t n, nahead;
	int16_t off[HMPT_DECODE_CHAIN];
	hmpt_decode_insn_t insn[HMPT_DECODE_CHAIN];
	hmpt_decode_insn_t ahead[HMPT_DECODE_AHEAD];
} hmpt_decode_chain_t;

typedef enum {
	HMPT_DECODE_RULE_AT,
	HMPT_DECODE_RULE_PREVIOUS,
	HMPT_DECODE_RULE_RECOVERED,
	HMPT_DECODE_RULE_NEXT,
	HMPT_DECODE_RULES,
} hmpt_decode_rule_t;

/* What a sample decodes to. */
typedef struct {
	uint8_t status; /* hmpt_decode_status_t */
	uint8_t rule;   /* hmpt_decode_rule_t, where status is OK */
	bool memory;    /* the instruction it names touches memory (decoded or not) */
	bool store;     /* the operand is written, not read */
	uint64_t insn_ip;
	uint64_t addr;
} hmpt_decode_access_t;

bool hmpt_decode_available(void);

/* Decode the instruction in code[0, n): its length and memory operand. */
hmpt_decode_status_t hmpt_decode_insn(const uint8_t *code, size_t n, hmpt_decode_insn_t *out);

/* The operand's address, with `next_ip` the address after the instruction
 * (RIP-relative operands) and regs[] by perf register number. */
uint64_t hmpt_decode_address(const hmpt_decode_mem_t *m, uint64_t next_ip, const uint64_t *regs);

/* The window of code around IP: HMPT_DECODE_BEFORE bytes before it and
 * HMPT_DECODE_AFTER from it on, IP at win + HMPT_DECODE_BEFORE; `before` and
 * `after` say how many of them are the code's. */
#define HMPT_DECODE_BEFORE 64
#define HMPT_DECODE_AFTER  64
#define HMPT_DECODE_WINDOW (HMPT_DECODE_BEFORE + HMPT_DECODE_AFTER)

/* Decode the chain of instructions around IP from a window. */
void hmpt_decode_chain(const uint8_t *win, size_t before, size_t after, hmpt_decode_chain_t *c);

/* Reads `n` (1, 2, 4 or 8) bytes of the program's memory at addr, for rule
 * 3; false where it is not resident or not there. */
typedef bool (*hmpt_decode_read_fn)(uint64_t addr, unsigned n, uint64_t *v);

/* The sample's access by the rules above. */
void hmpt_decode_access(const hmpt_decode_chain_t *c, const hmpt_ring_sample_t *s,
                        hmpt_decode_read_fn read, hmpt_decode_access_t *out);

/* Read this process's code around ip into such a window: *before and
 * *after say how much could be read (a page
 * unmapped on either side shortens it); false when nothing at ip. */
bool hmpt_decode_read_code(uint64_t ip, uint8_t *win, size_t *before, size_t *after);

/* Read n (1, 2, 4 or 8) bytes of this process at addr, only from a page
 * still resident (a read of a page freed meanwhile would fault one in)
 * and through the kernel (a range unmapped meanwhile is an error, not a
 * crash): an hmpt_decode_read_fn. */
bool hmpt_decode_read_data(uint64_t addr, unsigned n, uint64_t *v);

/* "ok" "no memory operand" "bad bytes" "segment" "vsib" "code unreadable"
 * "no registers" "no decoder" "overwritten" */
const char *hmpt_decode_reason(hmpt_decode_status_t s);
/* "at" "previous" "recovered" "next" */
const char *hmpt_decode_rule_name(hmpt_decode_rule_t r);

#endif
