/* source_timer.c — the timer source (sources.h): a data address for each
 * cpu-clock sample, from its instruction and user registers (decode.h).
 *
 * The instructions around an IP depend on the code only: they are decoded
 * once and kept in a direct-mapped table (a loop's few IPs carry most
 * samples), so that a sample costs a table look-up and a few register
 * sums, plus a memory read where rule 3 needs one.  Code unmapped and
 * mapped again at the same address (dlclose, dlopen) could meet a stale
 * entry; the entry is checked against the first bytes at IP again only
 * when it is made. */
#include <string.h>

#include "decode.h"
#include "sources.h"
#include "sys.h"

#define CACHE 1024 /* IPs kept: ~600 KiB, backed as used */

typedef struct {
	uint64_t ip; /* 0: empty */
	hmpt_decode_chain_t chain;
	uint8_t unreadable;
} entry_t;

static entry_t *cache_g;
static uint64_t status_g[HMPT_DECODE_REASONS], rule_g[HMPT_DECODE_RULES];
static uint64_t samples_g, memory_g, cache_misses_g;

bool hmpt_source_timer_start(char *why, size_t cap)
{
	if (!hmpt_decode_available()) {
		hmpt_fmt_text(
		    why, cap, "%s",
		    "hmpt was built without Zydis (libzydis-dev): timer samples cannot be "
		    "decoded");
		return false;
	}
	if (!cache_g)
		cache_g = hmpt_sys_map(CACHE * sizeof(entry_t));
	if (!cache_g) {
		hmpt_fmt_text(why, cap, "%s", "no memory for the timer's table of instructions");
		return false;
	}
	/* a fork child counts afresh; its code is its parent's */
	memset(status_g, 0, sizeof(status_g));
	memset(rule_g, 0, sizeof(rule_g));
	samples_g = memory_g = cache_misses_g = 0;
	return true;
}

static const entry_t *chain_at(uint64_t ip)
{
	entry_t *e = &cache_g[(ip ^ ip >> 12) % CACHE];
	uint8_t win[HMPT_DECODE_WINDOW];
	size_t before, after;

	if (e->ip == ip)
		return e;
	cache_misses_g++;
	e->ip = ip;
	e->unreadable = !hmpt_decode_read_code(ip, win, &before, &after);
	if (!e->unreadable)
		hmpt_decode_chain(win, before, after, &e->chain);
	return e;
}

void hmpt_source_timer_locate(hmpt_ring_sample_t *s, bool *store)
{
	hmpt_decode_access_t a;

	s->addr = 0;
	samples_g++;
	if (!cache_g || !s->ip)
		return;
	const entry_t *e = chain_at(s->ip);
	if (e->unreadable) {
		status_g[HMPT_DECODE_NO_CODE]++;
		return;
	}
	hmpt_decode_access(&e->chain, s, hmpt_decode_read_data, &a);
	status_g[a.status]++;
	memory_g += a.memory;
	if (a.status != HMPT_DECODE_OK)
		return;
	rule_g[a.rule]++;
	s->addr = a.addr;
	s->ip = a.insn_ip; /* the instruction the address is of */
	*store = a.store;
}

void hmpt_source_timer_describe(hmpt_fmt_t *f, const char *why)
{
	hmpt_fmt_str(f, "a CPU-time timer (cpu-clock) with the user registers, each sample's "
	                "instruction decoded to its data address, and page faults for the bytes "
	                "first touched");
	if (why && *why)
		hmpt_fmt_printf(f, " (%s)", why);
}

void hmpt_source_timer_write_totals(hmpt_fmt_t *f)
{
	uint64_t decoded = status_g[HMPT_DECODE_OK];

	hmpt_fmt_printf(f,
	                "\"decode\": {\"samples\": %llu, \"memory\": %llu, \"decoded\": %llu, "
	                "\"instructions_decoded\": %llu, \"undecoded\": {",
	                (unsigned long long)samples_g, (unsigned long long)memory_g,
	                (unsigned long long)decoded, (unsigned long long)cache_misses_g);
	for (int i = 1, k = 0; i < HMPT_DECODE_REASONS; i++)
		if (status_g[i])
			hmpt_fmt_printf(f, "%s\"%s\": %llu", k++ ? ", " : "",
			                hmpt_decode_reason((hmpt_decode_status_t)i),
			                (unsigned long long)status_g[i]);
	hmpt_fmt_str(f, "}, \"rules\": {");
	for (int i = 0; i < HMPT_DECODE_RULES; i++)
		hmpt_fmt_printf(f, "%s\"%s\": %llu", i ? ", " : "",
		                hmpt_decode_rule_name((hmpt_decode_rule_t)i),
		                (unsigned long long)rule_g[i]);
	hmpt_fmt_str(f, "},\n      \"rule\": \"the instruction at the sampled IP where it touches "
	                "memory, else the one that ended at IP (a CPU may report the instruction "
	                "after a stalled load), its address registers recovered from the "
	                "instructions before it where it overwrote them, else the address of its "
	                "next execution round its loop (shim/decode.h)\"},\n    ");
}
