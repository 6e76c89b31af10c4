/* sites.h — allocation sites: call stacks named as module!offset.
 *
 * Why: ASLR moves every address between runs, so a site is named by
 * (module base name, offset from the module's load base) frames, which are
 * the same in every run of the same binaries; its id hashes those of them
 * outside the system runtime libraries (siteid.h), and the depth counts
 * those.  A frame in no module (JIT code) keeps its absolute address, which
 * no other run shares: it is recorded but neither hashed nor counted.
 * Within a process, sites are
 * found by their raw return addresses (fast); the module!offset form and the
 * stable id are computed once, when a site is first seen.
 *
 * Contract: hmpt_sites_init() once, before any other call.  capture() takes
 * the stack outside any lock (a chain it walked before needs no lock at
 * all), then looks a new one up under the sites lock.  No malloc: tables
 * live in mmap'ed memory of fixed capacity; when full, new stacks count
 * against the overflow site (index 0, no frames).  The caller must hold
 * its re-entrancy guard, because libunwind and dl_iterate_phdr may
 * allocate.  Accounting functions and the getters are called with the
 * sites lock held (hmpt_sites_lock()).
 */
#ifndef HMPT_SITES_H
#define HMPT_SITES_H

#include <stdbool.h>
#include <stdint.h>

#include "hash.h"

#define HMPT_MAX_DEPTH 64
/* sites per process; more count as the overflow site.  The tables of this
 * many are mapped (NORESERVE) and touched only as far as sites are used. */
#define HMPT_SITES_MAX      131072u
#define HMPT_SITE_OVERFLOW  0u
#define HMPT_MODULE_UNKNOWN UINT32_MAX

typedef struct {
	uintptr_t lo, hi; /* address range of the loaded segments */
	uintptr_t base;   /* load bias (dlpi_addr) */
	const char *path;
	const char *name; /* base name of path */
	uint64_t name_hash;
	uint8_t build_id[32];
	uint8_t build_id_len;
	bool self;    /* libhmpt itself */
	bool runtime; /* system runtime library (siteid.h) */
	bool alive;   /* still loaded */
	bool used;    /* named by some site's frame */
} hmpt_module_t;

typedef struct {
	uint64_t allocations;
	uint64_t bytes;
	uint64_t max_size;
	uint64_t live;
	uint64_t peak_live;
	uint64_t first_ns, last_ns; /* since hmpt_sites_t0 */
} hmpt_site_stats_t;

/* allocations and bytes a site put in one pool (placer.h) */
typedef struct {
	uint64_t allocations, bytes;
} hmpt_site_place_t;

typedef enum { HMPT_SITE_HEAP, HMPT_SITE_STATIC } hmpt_site_kind_t;

typedef struct {
	uint64_t key; /* hash of the raw return addresses */
	uint64_t id;  /* stable id: hash of the identity frames (siteid.h) */
	uint32_t nframes;
	uint32_t nid; /* identity frames: frames[idx[0..nid-1]] */
	uint32_t *idx;
	uintptr_t *ips;
	uint32_t *mods; /* module index per frame, or HMPT_MODULE_UNKNOWN */
	uint64_t *offs; /* offset from the module's load base; in none, the address */
	hmpt_site_stats_t st;
	/* HMPT_SITE_STATIC (statics.h): one frame, the object's own address */
	uint8_t kind;
	const char *symbol, *section;
} hmpt_site_t;

typedef struct {
	uint64_t allocations, bytes, live, peak_live;
	uint64_t untracked_large; /* large requests passed on untracked */
} hmpt_totals_t;

int hmpt_sites_init(unsigned depth);
/* Load libunwind and unwind once, so that it sets itself up outside any
 * malloc (when something is asked of the shim at start-up). */
void hmpt_sites_warmup(void);
/* Capture the caller's stack; the site index (HMPT_SITE_OVERFLOW if the
 * table is full).  The stack is walked along the frame pointers where
 * libunwind found each frame on the way sound (sites.c), else by
 * libunwind; both give the same frames, hence the same sites.  libunwind
 * is opened at the first capture that needs it (or by warmup); where it
 * cannot be, said once, sites are named by hmpt's frames and the first
 * frame beyond them. */
uint32_t hmpt_sites_capture(void);
/* Tests: every capture by libunwind's walk alone (true), or as above. */
void hmpt_sites_set_unwind_only(bool on);
/* The calling thread's captures named by the frame-pointer walk, and all
 * of its captures. */
void hmpt_sites_walk_counts(uint64_t *fp, uint64_t *all);

void hmpt_sites_lock(void);
/* The lock if it is free, never waiting: for what runs at _exit, which a
 * signal handler may call while its thread holds the lock (true: held). */
bool hmpt_sites_trylock(void);
void hmpt_sites_unlock(void);
void hmpt_sites_reset_lock(void);
/* fork child: counts start again from zero; live blocks stay live */
void hmpt_sites_reset_stats(uint64_t now_ns);

/* A static data object (statics.h) as a site of one frame, its address;
 * counted as one allocation of `size` bytes, live until exit, outside the
 * totals of tracked heap memory.  Returns the index, or HMPT_SITE_OVERFLOW. */
uint32_t hmpt_sites_add_static(uintptr_t addr, uint64_t size, const char *symbol,
                               const char *section);

/* with the lock held */
void hmpt_sites_note_alloc(uint32_t site, uint64_t size, uint64_t now_ns);
void hmpt_sites_note_free(uint32_t site, uint64_t size);
void hmpt_sites_note_untracked(void);
uint32_t hmpt_sites_count(void);
hmpt_site_t *hmpt_sites_get(uint32_t i);
uint32_t hmpt_modules_count(void);
const hmpt_module_t *hmpt_modules_get(uint32_t i);
/* The module that holds `addr` (the profile then lists it) and the offset
 * from its load base in *off; NULL in none known. */
const hmpt_module_t *hmpt_modules_at(uintptr_t addr, uint64_t *off);
const hmpt_totals_t *hmpt_sites_totals(void);
uint64_t hmpt_sites_t0_ns(void);
unsigned hmpt_sites_depth(void);
/* A plan read after hmpt_sites_init() sets its profile's depth: only
 * before any stack is captured (statics' one-frame sites do not count). */
void hmpt_sites_set_depth(unsigned depth);

#endif
