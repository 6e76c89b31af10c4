/* sites.c — see sites.h. */
#include "sites.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "lockrank.h"
#include "log.h"
#include "siteid.h"
#include "sys.h"

#ifndef HMPT_UNWIND_SONAME
#define HMPT_UNWIND_SONAME "libunwind.so.8"
#endif

#define MAX_SITES   HMPT_SITES_MAX
#define SLOTS       (MAX_SITES * 2u) /* open addressing, load <= 1/2 */
#define MAX_MODULES 4096u
/* frames captured beyond the kept depth, for hmpt's and the runtime's */
#define SKIP_ROOM 16
/* frames captured at first: the depth counts identity frames (siteid.h),
 * and the frames between them (runtime, JIT code) are kept too */
#define RAW_MAX (HMPT_MAX_DEPTH + 2 * SKIP_ROOM)
/* frames that name no site (JIT code, runtime) passed over beyond those:
 * a deeper capture, when the first ran out before the depth, sees past a
 * JIT's tens of frames to the ones that name the site */
#define SKIP_MAX 256
#define RAW_DEEP (RAW_MAX + SKIP_MAX)

static pthread_mutex_t lock_g = PTHREAD_MUTEX_INITIALIZER;
static hmpt_site_t *sites_g;
static uint32_t nsites_g;
static uint32_t *slots_g; /* site index + 1, 0 = empty */
static hmpt_module_t *modules_g;
static uint32_t nmodules_g;
static unsigned long long dl_adds_g, dl_subs_g;
static unsigned depth_g = 16;
static uint64_t t0_g;
static hmpt_totals_t totals_g;
static char exe_path_g[4096];
static uintptr_t self_lo_g, self_hi_g; /* libhmpt's own code */
#ifdef __x86_64__                      /* aarch64's frame records lie elsewhere in the frame */
#define FP_WALK 1
/* the frame-pointer walk's verdicts on return addresses (below) */
enum { RA_UNKNOWN, RA_SOUND, RA_UNSOUND, RA_LAST };
typedef struct {
	uintptr_t ra;  /* claimed once (0: empty), never changed */
	uint64_t meta; /* generation << RA_GEN | step << 2 | RA_* */
} ra_slot_t;
/* A sound return address's step to the next one: 0, through the frame
 * pointer; else its frame's size (below RA_MAX_SP), and from bit
 * STEP_SAVED on, where the frame saved its caller's rbp (the slot's
 * offset from the frame's bottom / 8, plus 1; 0: rbp left alone). */
#define RA_GEN     32
#define RA_MAX_SP  ((uint64_t)1 << 16)
#define STEP_SAVED 16
#define RA_BITS    18 /* 4 MiB of table, touched as used: 10^5 sites' frames */
#define RA_SLOTS   (1u << RA_BITS)
#define RA_PROBES  32u
static ra_slot_t *ras_g;
static int learn_off_g; /* a verdict found no slot, or no frame matched: learn no more */
/* Whole chains the walk named a site by: a walk that meets a recorded
 * chain's return addresses, one by one, needs no verdict for them (each
 * was sound when recorded, in the same generation) and its site is the
 * chain's, with no lock taken.  Records are immutable once published and
 * never freed (readers hold no lock), from a fixed region; when it is
 * used up, walks go on without new records. */
typedef struct {
	uint64_t gen;    /* dlpi_adds + dlpi_subs when recorded: the modules then */
	uint32_t site;   /* the site the chain named */
	uint32_t n;      /* return addresses r_0 .. r_{n-1} */
	uint32_t *sizes; /* each one's step (RA_GEN's comment) */
	uintptr_t ras[];
} chain_t;
/* return addresses that choose the bucket: hmpt's two, then three of
 * the program's, so that the sites of one wrapper (operator new, xmalloc)
 * spread over buckets */
#define CHAIN_KEY    5
#define CHAIN_SLOTS  (1u << 14)
#define CHAIN_WAYS   4u
#define CHAIN_REGION ((size_t)32 << 20) /* mapped, touched as used */
/* under a finite RLIMIT_AS, where mapped room counts against the program's
 * (t_aslimit): a quarter of the verdicts, 2 MiB of chains */
#define RA_SLOTS_AS     (RA_SLOTS / 4)
#define CHAIN_REGION_AS ((size_t)2 << 20)
static uint32_t ra_mask_g = RA_SLOTS - 1;
static size_t chain_region_g = CHAIN_REGION;
static chain_t **chains_g;
static char *chain_mem_g;
static size_t chain_used_g;
#endif

/* ---------------------------------------------------------- libunwind
 * Opened (dlopen) at the first capture that needs it, not linked: a
 * process whose stacks the frame-pointer walk below names, or that tracks
 * nothing, never maps it (nor liblzma, which it pulls in).  No hmpt lock
 * is held while loading: another thread may hold the loader's lock and
 * allocate.  Threads that race here each load it and write the same
 * pointers. */
#define UNW_STR_(x) #x
#define UNW_STR(x)  UNW_STR_(x)
static struct {
	int (*backtrace)(void **, int);
	int (*getcontext)(unw_context_t *);
	int (*init_local)(unw_cursor_t *, unw_context_t *);
	int (*init_local2)(unw_cursor_t *, unw_context_t *, int);
	int (*step)(unw_cursor_t *);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
	int (*is_signal_frame)(unw_cursor_t *);
	int (*get_proc_info)(unw_cursor_t *, unw_proc_info_t *);
	int (*get_save_loc)(unw_cursor_t *, int, unw_save_loc_t *);
	int (*set_caching_policy)(unw_addr_space_t, unw_caching_policy_t);
	unw_addr_space_t *local_as;
} unw_g;
static int unw_state_g; /* 0: not tried, 1: loaded, -1: cannot be */

static __attribute__((noinline)) bool unwinder_load(void)
{
	static const hmpt_sys_sym_t syms[] = {
	    {"unw_backtrace", (void **)&unw_g.backtrace},
#ifdef __x86_64__ /* the walk's learning; elsewhere unw_getcontext is inline */
	    {UNW_STR(unw_tdep_getcontext), (void **)&unw_g.getcontext},
#endif
	    {UNW_STR(unw_init_local), (void **)&unw_g.init_local},
#ifdef __x86_64__
	    {UNW_STR(unw_init_local2), (void **)&unw_g.init_local2},
#endif
	    {UNW_STR(unw_step), (void **)&unw_g.step},
	    {UNW_STR(unw_get_reg), (void **)&unw_g.get_reg},
	    {UNW_STR(unw_is_signal_frame), (void **)&unw_g.is_signal_frame},
	    {UNW_STR(unw_get_proc_info), (void **)&unw_g.get_proc_info},
	    {UNW_STR(unw_get_save_loc), (void **)&unw_g.get_save_loc},
	    {UNW_STR(unw_set_caching_policy), (void **)&unw_g.set_caching_policy},
	    {UNW_STR(unw_local_addr_space), (void **)&unw_g.local_as},
	};
	static int said;
	const char *why = NULL;
	void *h;
	int rc = hmpt_sys_dlopen_syms(HMPT_UNWIND_SONAME, syms,
	                              (int)(sizeof(syms) / sizeof(syms[0])), &h, &why);
	if (rc == 0)
		unw_g.set_caching_policy(*unw_g.local_as, UNW_CACHE_PER_THREAD);
	__atomic_store_n(&unw_state_g, rc == 0 ? 1 : -1, __ATOMIC_RELEASE);
	if (rc && hmpt_log_first(&said))
		hmpt_log_printf(HMPT_LOG_WARN,
		                "%s %s: sites are named by the frames a frame-pointer walk reaches",
		                rc == -ENOENT ? "cannot load" : HMPT_UNWIND_SONAME " has no", why);
	return rc == 0;
}

static inline bool unwinder_ready(void)
{
	int st = __atomic_load_n(&unw_state_g, __ATOMIC_ACQUIRE);

	return st ? st > 0 : unwinder_load();
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static void read_build_id(const struct dl_phdr_info *info, hmpt_module_t *m)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*nh);
			const char *desc = name + ((nh->n_namesz + 3) & ~3u);
			const char *next = desc + ((nh->n_descsz + 3) & ~3u);
			if (next > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= sizeof(m->build_id)) {
				memcpy(m->build_id, desc, nh->n_descsz);
				m->build_id_len = (uint8_t)nh->n_descsz;
				return;
			}
			p = next;
		}
	}
}

static int refresh_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	const char *path = info->dlpi_name;
	uint32_t i;

	(void)ctx;
	if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		return 1;
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (lo >= hi)
		return 0;
	if (!path || !*path)
		path = exe_path_g[0] ? exe_path_g : "(main)";
	for (i = 0; i < nmodules_g; i++) {
		hmpt_module_t *m = &modules_g[i];
		if (m->base == info->dlpi_addr && m->lo == lo && strcmp(m->path, path) == 0) {
			m->alive = true;
			return 0;
		}
	}
	if (nmodules_g == MAX_MODULES)
		return 0;
	hmpt_module_t *m = &modules_g[nmodules_g];
	memset(m, 0, sizeof(*m));
	m->path = hmpt_sys_perm_strdup(path);
	if (!m->path)
		return 0;
	m->name = base_name(m->path);
	m->name_hash = hmpt_hash_module(m->name, strlen(m->name));
	m->base = info->dlpi_addr;
	m->lo = lo;
	m->hi = hi;
	m->alive = true;
	/* leading frames in them are the allocator's (operator new, a libc
	 * wrapper) and skipped; later ones are no part of a site's identity */
	m->runtime = hmpt_siteid_runtime(m->name);
	m->self = (uintptr_t)&hmpt_sites_capture >= lo && (uintptr_t)&hmpt_sites_capture < hi;
	if (m->self) {
		self_lo_g = lo;
		self_hi_g = hi;
	}
	read_build_id(info, m);
	nmodules_g++;
	return 0;
}

static int counters_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	unsigned long long *c = ctx;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		c[0] = info->dlpi_adds;
		c[1] = info->dlpi_subs;
	}
	return 1; /* the first object is enough */
}

/* The loader's counts of objects loaded and unloaded, c[0] and c[1]. */
static void dl_counters(unsigned long long c[2])
{
	c[0] = c[1] = 0;
	dl_iterate_phdr(counters_cb, c);
}

/* Re-read the module list when something was loaded or unloaded since;
 * c: dl_counters() read now. */
static void refresh_modules(const unsigned long long c[2])
{
	if (nmodules_g && c[0] == dl_adds_g && c[1] == dl_subs_g)
		return;
	for (uint32_t i = 0; i < nmodules_g; i++)
		modules_g[i].alive = false;
	dl_iterate_phdr(refresh_cb, NULL);
	dl_adds_g = c[0];
	dl_subs_g = c[1];
}

/* With lock_g held, or before any capture: refresh_modules() now. */
static void refresh_now(void)
{
	unsigned long long c[2];

	dl_counters(c);
	refresh_modules(c);
}

static uint32_t module_of(uintptr_t ip)
{
	for (uint32_t i = 0; i < nmodules_g; i++)
		if (modules_g[i].alive && ip >= modules_g[i].lo && ip < modules_g[i].hi)
			return i;
	return HMPT_MODULE_UNKNOWN;
}

const hmpt_module_t *hmpt_modules_at(uintptr_t addr, uint64_t *off)
{
	uint32_t m = module_of(addr);

	if (m == HMPT_MODULE_UNKNOWN)
		return NULL;
	modules_g[m].used = true;
	*off = addr - modules_g[m].base;
	return &modules_g[m];
}

/* module_of with a guess: the frames of one stack mostly share modules */
__attribute__((always_inline)) static inline uint32_t module_near(uintptr_t ip, uint32_t *hint)
{
	uint32_t h = *hint;

	if (h < nmodules_g && modules_g[h].alive && ip >= modules_g[h].lo && ip < modules_g[h].hi)
		return h;
	uint32_t m = module_of(ip);
	if (m != HMPT_MODULE_UNKNOWN)
		*hint = m;
	return m;
}

void hmpt_sites_set_depth(unsigned depth)
{
	depth_g = depth > HMPT_MAX_DEPTH ? HMPT_MAX_DEPTH : depth ? depth : 1;
}

int hmpt_sites_init(unsigned depth)
{
	hmpt_sites_set_depth(depth);
	t0_g = hmpt_sys_now_ns();
	sites_g = hmpt_sys_map(MAX_SITES * sizeof(hmpt_site_t));
	slots_g = hmpt_sys_map(SLOTS * sizeof(uint32_t));
	modules_g = hmpt_sys_map(MAX_MODULES * sizeof(hmpt_module_t));
	if (!sites_g || !slots_g || !modules_g)
		return -ENOMEM;
#ifdef FP_WALK
	struct rlimit as;
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
		ra_mask_g = RA_SLOTS_AS - 1;
		chain_region_g = CHAIN_REGION_AS;
	}
	ras_g = hmpt_sys_map(((size_t)ra_mask_g + 1) * sizeof(ra_slot_t));
	chains_g = hmpt_sys_map(CHAIN_SLOTS * sizeof(chain_t *));
	chain_mem_g = hmpt_sys_map(chain_region_g);
	if (!ras_g || !chains_g || !chain_mem_g)
		return -ENOMEM;
#endif
	if (hmpt_sys_readlink("/proc/self/exe", exe_path_g, sizeof(exe_path_g)) < 0)
		exe_path_g[0] = '\0';
	nsites_g = 1; /* index 0: the overflow site, no frames */
	hmpt_lock_take(&lock_g, HMPT_LOCK_SITES);
	refresh_now();
	hmpt_lock_drop(&lock_g);
	return 0;
}

void hmpt_sites_warmup(void)
{
	void *raw[8];

	if (unwinder_ready())
		unw_g.backtrace(raw, 8);
}

/* The in-process key of a raw stack: a word at a time (the stable id is
 * FNV-1a over module names and offsets, hash.h; this key never leaves the
 * process, and byte-wise FNV over 16-32 return addresses cost a third of a
 * tracked allocation). */
static uint64_t stack_key(const uintptr_t *ips, uint32_t n)
{
	uint64_t h = HMPT_HASH_SEED ^ n;

	/* each frame's product is independent of the others (they pipeline),
	 * its position mixed in; one final mix */
	for (uint32_t i = 0; i < n; i++)
		h ^= (ips[i] + i) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static bool same_frames(const hmpt_site_t *s, const uintptr_t *ips, uint32_t n)
{
	return s->nframes == n && memcmp(s->ips, ips, n * sizeof(*ips)) == 0;
}

static uint32_t new_site(uint64_t key, const uintptr_t *ips, uint32_t n)
{
	uint64_t hashes[HMPT_MAX_DEPTH];
	hmpt_siteid_class_t cls[HMPT_MAX_DEPTH];

	if (nsites_g == MAX_SITES)
		return HMPT_SITE_OVERFLOW;
	hmpt_site_t *s = &sites_g[nsites_g];
	s->ips =
	    hmpt_sys_perm_alloc(n * (sizeof(uintptr_t) + sizeof(uint64_t) + 2 * sizeof(uint32_t)));
	if (n && !s->ips)
		return HMPT_SITE_OVERFLOW;
	s->offs = (uint64_t *)(s->ips + n);
	s->mods = (uint32_t *)(s->offs + n);
	s->idx = s->mods + n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t m = module_of(ips[i]);
		s->ips[i] = ips[i];
		s->mods[i] = m;
		/* in no module (JIT code): the absolute address, for people;
		 * no part of the id */
		s->offs[i] = m == HMPT_MODULE_UNKNOWN ? ips[i] : ips[i] - modules_g[m].base;
		hashes[i] = m == HMPT_MODULE_UNKNOWN ? 0 : modules_g[m].name_hash;
		cls[i] = m == HMPT_MODULE_UNKNOWN ? HMPT_SITEID_FRAME_ANON
		         : modules_g[m].runtime   ? HMPT_SITEID_FRAME_RUNTIME
		                                  : HMPT_SITEID_FRAME_OWNED;
		if (m != HMPT_MODULE_UNKNOWN)
			modules_g[m].used = true;
	}
	s->nid = hmpt_siteid_frames(cls, n, HMPT_SITEID_OWNED, s->idx);
	s->nframes = n;
	s->key = key;
	s->id = hmpt_siteid_hash(hashes, s->offs, s->idx, s->nid);
	return nsites_g++;
}

/* Does frame module m name the site (siteid.h)?  A module not a runtime
 * one does; where the window holds none (owned == 0), a runtime one. */
static bool names_site(uint32_t m, uint32_t owned)
{
	return m != HMPT_MODULE_UNKNOWN && modules_g[m].runtime == !owned;
}

/* With lock_g held: the frames of a window longer than a site records
 * (JIT code), from `first` until depth_g of them name the site, into ips:
 * every one of those, and the others while room is left for those that
 * follow.  Sets *owned; returns how many. */
__attribute__((noinline)) static uint32_t window_beyond(void *const *raw, const uint32_t *mods,
                                                        int first, int got, uintptr_t *ips,
                                                        uint32_t *owned)
{
	uint32_t n = 0, named = 0, left = 0;
	int end = first;

	for (; end < got && named < depth_g; end++)
		named += names_site(mods[end], 1);
	for (int i = first; i < end; i++)
		left += names_site(mods[i], named);
	for (int i = first; i < end && n < HMPT_MAX_DEPTH; i++) {
		bool names = names_site(mods[i], named);
		left -= names;
		if (names || n + left < HMPT_MAX_DEPTH)
			ips[n++] = (uintptr_t)raw[i];
	}
	*owned = named;
	return n;
}

/* With lock_g held: the site of the call stack raw[0, got), whose frames
 * lie in modules mods.  hmpt's own frames are skipped, then the allocator
 * runtime's; the window then ends at the depth_g-th frame that names the
 * site, so that a runtime, or JIT code, with more or fewer frames does not
 * move it.  `whole`: raw holds the whole stack, or as much as is taken;
 * else false is returned where raw ran out before the depth. */
__attribute__((always_inline)) static inline bool site_of(void *const *raw, int got, uint32_t *mods,
                                                          bool whole, uint32_t *site)
{
	uintptr_t ips[HMPT_MAX_DEPTH];
	uint32_t hint = 0, n = 0, owned = 0;
	int first = -1, first_foreign = -1;

	for (int i = 0; i < got; i++)
		mods[i] = module_near((uintptr_t)raw[i], &hint);
	/* skip hmpt's own frames, then the allocator runtime's */
	for (int i = 0; i < got; i++) {
		uint32_t m = mods[i];
		bool self = m != HMPT_MODULE_UNKNOWN && modules_g[m].self;
		bool runtime = m != HMPT_MODULE_UNKNOWN && modules_g[m].runtime;
		if (!self && first_foreign < 0)
			first_foreign = i;
		if (!self && !runtime) {
			first = i;
			break;
		}
	}
	if (first < 0) /* only runtime frames: keep them */
		first = first_foreign < 0 ? got : first_foreign;
	for (int i = first; i < got && n < HMPT_MAX_DEPTH && owned < depth_g; i++) {
		owned += names_site(mods[i], 1);
		ips[n++] = (uintptr_t)raw[i];
	}
	if (owned < depth_g && first + (int)n < got) /* ips full, the depth not reached */
		n = window_beyond(raw, mods, first, got, ips, &owned);
	if (owned < depth_g && !whole)
		return false;

	uint64_t key = stack_key(ips, n);
	uint32_t slot = (uint32_t)key & (SLOTS - 1);
	for (;;) {
		uint32_t v = slots_g[slot];
		if (v == 0) {
			*site = new_site(key, ips, n);
			if (*site != HMPT_SITE_OVERFLOW)
				slots_g[slot] = *site + 1;
			break;
		}
		if (sites_g[v - 1].key == key && same_frames(&sites_g[v - 1], ips, n)) {
			*site = v - 1;
			break;
		}
		slot = (slot + 1) & (SLOTS - 1);
	}
	return true;
}

/* The capture again, SKIP_MAX frames deeper: its own frame, off the common
 * path, holds the room. */
__attribute__((noinline)) static uint32_t capture_deep(void)
{
	void *raw[RAW_DEEP];
	uint32_t mods[RAW_DEEP], site;
	int got = unw_g.backtrace(raw, (int)depth_g + 2 * SKIP_ROOM + SKIP_MAX);

	hmpt_lock_take(&lock_g, HMPT_LOCK_SITES);
	refresh_now();
	site_of(raw, got < 0 ? 0 : got, mods, true, &site);
	hmpt_lock_drop(&lock_g);
	return site;
}

/* ------------------------------------------------ the frame-pointer walk
 * From the capture's own frame along the saved frame pointers: fp0 is
 * hmpt_sites_capture's, r_i = fp_i[1], fp_{i+1} = fp_i[0].  fp_{i+1} is a
 * true frame pointer exactly when the function holding return address r_i
 * keeps its frame base in the frame-pointer register at that call, which
 * the code at r_i decides once and for all.  Each return address is
 * therefore verified once, by libunwind, and its verdict kept (ra_state):
 * the walk reads through fp_{i+1} only after r_i was found sound, so it
 * never reads an address that is not a frame of this stack, and it yields
 * the very frames libunwind's walk gives, hence the same site ids.  A
 * stack with a frame before the depth that is not (code built without
 * frame pointers, a signal frame, JIT code) goes to unw_backtrace. */
#ifdef FP_WALK
static uint32_t ra_slot(uintptr_t ra)
{
	return (uint32_t)(((uint64_t)ra * 0x9e3779b97f4a7c15ull) >> (64 - RA_BITS)) & ra_mask_g;
}

/* The slot of ra in the verdict table, within RA_PROBES of its own; with
 * claim, an empty one is taken for it (*fresh: taken by this call).  -1:
 * not there, or no room, or ra 0 (an empty slot's mark: a stack's end may
 * read as 0).  Lock-free: a signal handler may walk. */
__attribute__((always_inline)) static inline int32_t ra_find(uintptr_t ra, bool claim, bool *fresh)
{
	uint32_t i = ra_slot(ra);

	if (ra == 0)
		return -1;

	for (uint32_t k = 0; k < RA_PROBES; k++, i = (i + 1) & ra_mask_g) {
		uintptr_t v = __atomic_load_n(&ras_g[i].ra, __ATOMIC_ACQUIRE);
		if (v == 0 && claim &&
		    __atomic_compare_exchange_n(&ras_g[i].ra, &v, ra, false, __ATOMIC_ACQ_REL,
		                                __ATOMIC_ACQUIRE)) {
			*fresh = true;
			return (int32_t)i;
		}
		if (v == ra) /* v: what the failed exchange found, too */
			return (int32_t)i;
		if (v == 0)
			return -1;
	}
	return -1;
}

/* The verdict on ra in generation gen (dlpi_subs: an unloaded module's
 * verdicts die with it), and for a sound one its step (RA_GEN's comment)
 * in *step. */
__attribute__((always_inline)) static inline unsigned ra_state(uintptr_t ra, uint64_t gen,
                                                               uint32_t *step)
{
	bool fresh = false;
	int32_t i = ra_find(ra, false, &fresh);

	if (i < 0)
		return RA_UNKNOWN;
	uint64_t m = __atomic_load_n(&ras_g[i].meta, __ATOMIC_ACQUIRE);
	*step = (uint32_t)(m >> 2 & ((1u << (RA_GEN - 2)) - 1));
	return m >> RA_GEN == gen ? (unsigned)(m & 3) : RA_UNKNOWN;
}

static void ra_learn(uintptr_t ra, uint64_t gen, unsigned state, uint32_t step)
{
	bool fresh = false;
	int32_t i = ra_find(ra, true, &fresh);

	if (i < 0)
		__atomic_store_n(&learn_off_g, 1, __ATOMIC_RELAXED);
	else
		__atomic_store_n(&ras_g[i].meta, gen << RA_GEN | (uint64_t)step << 2 | state,
		                 __ATOMIC_RELEASE);
}

/* Is ra, which has no verdict, met a second time in generation gen (the
 * first time it is noted)?  libunwind's cursor costs tens of us a stack,
 * more than its own walk: a stack met once (a program of 10,000 sites that
 * each allocate once: 0.09 s under the shim before, 0.42 s when each was
 * judged) is walked by libunwind alone; a return address that comes back
 * is judged.  A full table notes nothing, and learning goes on. */
static bool ra_seen_again(uintptr_t ra, uint64_t gen)
{
	bool fresh = false;
	int32_t i = ra_find(ra, true, &fresh);

	if (i < 0)
		return false;
	if (!fresh && __atomic_load_n(&ras_g[i].meta, __ATOMIC_ACQUIRE) >> RA_GEN == gen)
		return true;
	__atomic_store_n(&ras_g[i].meta, gen << RA_GEN | RA_UNKNOWN, __ATOMIC_RELEASE);
	return false;
}

static uint32_t chain_bucket(const uintptr_t *ras)
{
	uint64_t h = 0;

	for (int i = 0; i < CHAIN_KEY; i++)
		h = (h ^ ras[i]) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 40) & (CHAIN_SLOTS - CHAIN_WAYS);
}

/* A recorded chain of generation cgen that starts with ras[0, k] and goes
 * on no shorter. */
static const chain_t *chain_find(const uintptr_t *ras, int k, uint64_t cgen)
{
	chain_t **b = &chains_g[chain_bucket(ras)];

	for (uint32_t w = 0; w < CHAIN_WAYS; w++) {
		const chain_t *c = __atomic_load_n(&b[w], __ATOMIC_ACQUIRE);
		if (!c || c->gen != cgen || c->n <= (uint32_t)k)
			continue;
		int i = 0;
		while (i <= k && c->ras[i] == ras[i])
			i++;
		if (i > k)
			return c;
	}
	return NULL;
}

/* Record the chain ras[0, n), its steps sizes[0, n), of generation cgen
 * as naming `site`. */
static void chain_record(const uintptr_t *ras, const uint32_t *sizes, uint32_t n, uint64_t cgen,
                         uint32_t site)
{
	size_t len =
	    (sizeof(chain_t) + n * (sizeof(uintptr_t) + sizeof(uint32_t)) + 15) & ~(size_t)15;

	if (n <= CHAIN_KEY) /* before taking room it would not use */
		return;
	size_t at = __atomic_fetch_add(&chain_used_g, len, __ATOMIC_RELAXED);
	if (at + len > chain_region_g)
		return;
	chain_t *c = (chain_t *)(chain_mem_g + at);
	c->gen = cgen;
	c->site = site;
	c->n = n;
	memcpy(c->ras, ras, n * sizeof(*ras));
	c->sizes = (uint32_t *)(c->ras + n);
	memcpy(c->sizes, sizes, n * sizeof(*sizes));
	chain_t **b = &chains_g[chain_bucket(ras)];
	uint32_t w = 0;
	while (w < CHAIN_WAYS - 1) { /* a free or stale way, else the last */
		const chain_t *o = __atomic_load_n(&b[w], __ATOMIC_ACQUIRE);
		if (!o || o->gen != cgen)
			break;
		w++;
	}
	__atomic_store_n(&b[w], c, __ATOMIC_RELEASE);
}

/* One step of the walk from the frame of r_k (its bottom sp, the frame
 * pointer bp) by r_k's step: to its caller's frame, and r_{k+1} in *ra. */
__attribute__((always_inline)) static inline void fp_step(uint32_t step, uintptr_t *sp,
                                                          uintptr_t *bp, uintptr_t *ra)
{
	if (step == 0) {
		*sp = *bp + 2 * sizeof(uintptr_t);
		*ra = ((const uintptr_t *)*bp)[1];
		*bp = ((const uintptr_t *)*bp)[0];
		return;
	}
	if (step >> STEP_SAVED) /* the caller's rbp, where this frame saved it */
		*bp = ((const uintptr_t *)*sp)[(step >> STEP_SAVED) - 1];
	*sp += step & (RA_MAX_SP - 1);
	*ra = ((const uintptr_t *)*sp)[-1];
}

/* The walk, inlined into hmpt_sites_capture (fp0 is its frame): raw[0] an
 * address of this function, which site_of skips as hmpt's as it skips
 * libunwind's first frame, then r_0, r_1, ... while sound: by their
 * verdicts, or by a recorded chain they follow (then *hit is the chain,
 * matched whole).  Each sound r_k says how to reach r_{k+1}: through the
 * frame pointer bp of its function (bp[1], and bp[0] is the caller's), or
 * past a frame of known size (the return address just below the frame's
 * top, sp + size) that leaves bp alone or saved the caller's at a known
 * place in the frame (fp_step).  Without libunwind (`learned`
 * false), hmpt's own frames are taken as sound (it is built with frame
 * pointers), no other.  sizes[k]: r_k's step; *stop: the state of the
 * last frame taken. */
__attribute__((always_inline)) static inline int fp_walk(void **raw, uint32_t *sizes, int want,
                                                         uint64_t gen, uint64_t cgen, bool learned,
                                                         unsigned *stop, const chain_t **hit)
{
	const uintptr_t *fp0 = __builtin_frame_address(0);
	const uintptr_t *ras = (const uintptr_t *)raw + 1;
	uintptr_t ra = fp0[1], bp = fp0[0], sp = (uintptr_t)(fp0 + 2);
	const chain_t *c = NULL;
	int n = 0;

	raw[n++] = (void *)(uintptr_t)&hmpt_sites_capture;
	for (;;) {
		int k = n - 1; /* ra is r_k */
		uint32_t step = 0;
		unsigned st;
		raw[n++] = (void *)ra;
		if (c && (ra == c->ras[k] || (c = chain_find(ras, k, cgen)))) {
			st = RA_SOUND; /* it was, in this generation */
			step = c->sizes[k];
		} else {
			st = learned                             ? ra_state(ra, gen, &step)
			     : ra >= self_lo_g && ra < self_hi_g ? RA_SOUND
			                                         : RA_UNSOUND;
			if (k == CHAIN_KEY - 1 && learned)
				c = chain_find(ras, k, cgen);
		}
		sizes[k] = step;
		if (c && (uint32_t)n - 1 == c->n) { /* the whole chain: its site */
			*hit = c;
			return n;
		}
		if (st != RA_SOUND || n == want) {
			*stop = st;
			return n;
		}
		if (c) { /* along the chain while it matches: its steps are known */
			const uint32_t *cs = c->sizes;
			const uintptr_t *cr = c->ras;
			uint32_t j = (uint32_t)k, last = c->n - 1;
			for (;;) {
				fp_step(cs[j], &sp, &bp, &ra);
				raw[++j + 1] = (void *)ra; /* r_j */
				if (ra != cr[j])
					break;
				if (j == last) {
					*hit = c;
					return (int)j + 2;
				}
			}
			/* r_j differs: the frames before it as the chain has them
			 * (chains are shorter than `want`), r_j as any */
			memcpy(&sizes[k + 1], &cs[k + 1], (j - (uint32_t)k - 1) * sizeof(*sizes));
			n = (int)j + 1;
			continue;
		}
		fp_step(step, &sp, &bp, &ra);
	}
}

/* Is the top of the frame at cursor `at` (stack pointer sp, its caller's
 * sp2) its stack pointer plus a size fixed at that call?  Not where its
 * CFA lives in another register (glibc's _dl_runtime_resolve_xsavec keeps
 * it in rbx and aligns rsp down): libunwind steps again from the frame's
 * registers with the stack pointer moved by 16 bytes; the caller's must
 * move with it, and so must the slot `saved` where the frame saved its
 * caller's rbp (unless 0).  Reads the stack a little above sp2. */
__attribute__((noinline)) static bool frame_follows_sp(unw_cursor_t *at, unw_word_t sp,
                                                       unw_word_t sp2, unw_word_t saved)
{
	static const struct {
		int unw, greg;
	} regs[] = {{UNW_X86_64_RBX, REG_RBX}, {UNW_X86_64_RBP, REG_RBP}, {UNW_X86_64_R12, REG_R12},
	            {UNW_X86_64_R13, REG_R13}, {UNW_X86_64_R14, REG_R14}, {UNW_X86_64_R15, REG_R15},
	            {UNW_REG_IP, REG_RIP}};
	unw_context_t uc;
	unw_cursor_t c;
	unw_word_t v;

	if (unw_g.getcontext(&uc) != 0)
		return false;
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		if (unw_g.get_reg(at, regs[i].unw, &v) < 0)
			return false;
		uc.uc_mcontext.gregs[regs[i].greg] = (greg_t)v;
	}
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(sp + 16);
	unw_save_loc_t loc;
	return unw_g.init_local2(&c, &uc, 0) == 0 && unw_g.step(&c) > 0 &&
	       unw_g.get_reg(&c, UNW_REG_SP, &v) == 0 && v == sp2 + 16 &&
	       (!saved || (unw_g.get_save_loc(&c, UNW_X86_64_RBP, &loc) == 0 &&
	                   loc.type == UNW_SLT_MEMORY && loc.u.addr == saved + 16));
}

/* Verdicts on the return addresses of the stack above frame fp0 (the
 * capture's), from libunwind's cursor.  Frame k's return address r_k is
 * sound, with a frame pointer, when the rbp libunwind recovers for r_k's
 * function lies 16 bytes below the frame's top (its canonical frame
 * address: the stack pointer of the frame above), and the pair there is
 * the caller's rbp and return address as libunwind found them; sound, with
 * a frame of fixed size, when its frame's top moves with its stack pointer
 * (frame_follows_sp), so that the size is fixed at that call, and the
 * function either does not save rbp (libunwind finds the caller's rbp
 * where it found this frame's: the unwind information says the function
 * never changes it) or saved the caller's in a slot of this frame that
 * moves with it too (the step then reloads rbp from there).  Reads only
 * this stack's own frames.  Frames libunwind has no unwind information for
 * are unsound; so is a signal frame, where learning stops. */
__attribute__((noinline)) static void learn(const uintptr_t *fp0, uint64_t gen)
{
	unw_context_t uc;
	unw_cursor_t c;
	unw_proc_info_t pi;
	unw_save_loc_t loc, loc2;
	unw_word_t ip = 0, sp = 0, fp = 0, ip2, sp2, fp2;
	int k = 0;

	/* to the frame of r_0: the one whose stack pointer is fp0's CFA */
	bool at = unw_g.getcontext(&uc) == 0 && unw_g.init_local(&c, &uc) == 0;
	while (at && unw_g.step(&c) > 0 && unw_g.get_reg(&c, UNW_REG_SP, &sp) == 0 &&
	       sp != (uintptr_t)(fp0 + 2) && ++k < SKIP_ROOM)
		;
	if (!at || sp != (uintptr_t)(fp0 + 2) || unw_g.get_reg(&c, UNW_REG_IP, &ip) < 0 ||
	    ip != fp0[1] || unw_g.get_reg(&c, UNW_X86_64_RBP, &fp) < 0 ||
	    unw_g.get_save_loc(&c, UNW_X86_64_RBP, &loc) < 0) {
		/* this libunwind cannot find the capture's frame: every capture
		 * would come here again */
		__atomic_store_n(&learn_off_g, 1, __ATOMIC_RELAXED);
		return;
	}
	for (k = 0; k < RAW_DEEP; k++) {
		/* past a signal frame the next ip is the interrupted pc, which
		 * libunwind reads at ip, not ip - 1 as a return address: a
		 * verdict kept under it could describe another function's
		 * frame where the same address is a return address (a call
		 * that never returns, last in its function) */
		if (unw_g.is_signal_frame(&c) > 0) {
			ra_learn(ip, gen, RA_UNSOUND, 0);
			return;
		}
		bool frame = unw_g.get_proc_info(&c, &pi) == 0;
		unw_cursor_t at = c;
		int r = unw_g.step(&c);
		if (r <= 0) {
			ra_learn(ip, gen, r == 0 && frame ? RA_LAST : RA_UNSOUND, 0);
			return;
		}
		if (unw_g.get_reg(&c, UNW_REG_IP, &ip2) < 0 ||
		    unw_g.get_reg(&c, UNW_REG_SP, &sp2) < 0 ||
		    unw_g.get_reg(&c, UNW_X86_64_RBP, &fp2) < 0 ||
		    unw_g.get_save_loc(&c, UNW_X86_64_RBP, &loc2) < 0) {
			ra_learn(ip, gen, RA_UNSOUND, 0);
			return;
		}
		bool by_fp = fp + 2 * sizeof(uintptr_t) == sp2 &&
		             ((const uintptr_t *)fp)[0] == fp2 && ((const uintptr_t *)fp)[1] == ip2;
		bool rbp_kept = loc.type == loc2.type &&
		                (loc.type != UNW_SLT_MEMORY || loc.u.addr == loc2.u.addr) &&
		                (loc.type != UNW_SLT_REG || loc.u.regnum == loc2.u.regnum);
		uint64_t size = sp2 - sp;
		bool sized = !by_fp && frame && sp2 > sp && size < RA_MAX_SP &&
		             size % sizeof(uintptr_t) == 0 && ((const uintptr_t *)sp2)[-1] == ip2;
		/* rbp left alone, or the caller's saved in this frame (glibc's
		 * start-up frames, which use rbp as a register) */
		bool kept = sized && rbp_kept && fp == fp2;
		bool saved = sized && !kept && loc2.type == UNW_SLT_MEMORY && loc2.u.addr >= sp &&
		             loc2.u.addr < sp2 && (loc2.u.addr - sp) % sizeof(uintptr_t) == 0 &&
		             *(const uintptr_t *)loc2.u.addr == fp2;
		bool by_size =
		    (kept || saved) && frame_follows_sp(&at, sp, sp2, saved ? loc2.u.addr : 0);
		uint32_t step = !by_size ? 0
		                : saved  ? (uint32_t)size | (uint32_t)((loc2.u.addr - sp) / 8 + 1)
		                                               << STEP_SAVED
		                        : (uint32_t)size;
		ra_learn(ip, gen, frame && (by_fp || by_size) ? RA_SOUND : RA_UNSOUND, step);
		ip = ip2;
		sp = sp2;
		fp = fp2;
		loc = loc2;
	}
}
#endif

/* libunwind's walk into raw and mods (RAW_MAX each), inlined into
 * hmpt_sites_capture (libunwind walks one frame less); without libunwind,
 * the overflow site.  c: the loader's counts (dl_counters) read by the
 * caller, or NULL. */
__attribute__((always_inline)) static inline uint32_t capture_unwind(void **raw, uint32_t *mods,
                                                                     const unsigned long long *c)
{
	uint32_t site;
	int want = (int)depth_g + 2 * SKIP_ROOM; /* RAW_MAX at most */

	if (!unwinder_ready())
		return HMPT_SITE_OVERFLOW;
	int got = unw_g.backtrace(raw, want);
	if (got < 0)
		got = 0;
	hmpt_lock_take(&lock_g, HMPT_LOCK_SITES);
	if (c)
		refresh_modules(c);
	else
		refresh_now();
	/* a stack that goes on past a full buffer may hold its naming frames
	 * deeper */
	bool found = site_of(raw, got, mods, got < want, &site);
	hmpt_lock_drop(&lock_g);
	return found ? site : capture_deep();
}

static __thread bool unwind_only_tl;
static __thread uint64_t fp_named_tl, captures_tl;

void hmpt_sites_set_unwind_only(bool on)
{
	unwind_only_tl = on;
}

void hmpt_sites_walk_counts(uint64_t *fp, uint64_t *all)
{
	*fp = fp_named_tl;
	*all = captures_tl;
}

uint32_t hmpt_sites_capture(void)
{
	captures_tl++;
#ifdef FP_WALK
	void *raw[RAW_MAX];
	uint32_t mods[RAW_MAX], sizes[RAW_MAX], site;
	unsigned long long c[2];
	unsigned stop = RA_UNKNOWN;
	const chain_t *hit = NULL;
	/* outside any lock: it may load libunwind */
	bool learned = unwinder_ready();

	if (unwind_only_tl)
		return capture_unwind(raw, mods, NULL);
	dl_counters(c);
	int got = fp_walk(raw, sizes, (int)depth_g + 2 * SKIP_ROOM, c[1], c[0] + c[1], learned,
	                  &stop, &hit);
	if (hit) {
		fp_named_tl++;
		return hit->site;
	}
	/* fewer frames than the depth, and more beyond: libunwind's walk
	 * (the frames runtime libraries and hmpt have count for nothing) */
	if (learned && stop != RA_LAST && got - 1 < (int)depth_g)
		goto unwind;
	hmpt_lock_take(&lock_g, HMPT_LOCK_SITES);
	refresh_modules(c);
	/* a prefix that reaches the depth names the site as the whole stack
	 * would; without libunwind, what the walk reached is all there is */
	bool found = site_of(raw, got, mods, stop == RA_LAST || !learned, &site);
	hmpt_lock_drop(&lock_g);
	if (found) {
		fp_named_tl++;
		if (learned)
			chain_record((const uintptr_t *)raw + 1, sizes, (uint32_t)got - 1,
			             c[0] + c[1], site);
		return site;
	}
unwind:
	if (stop == RA_UNKNOWN && !__atomic_load_n(&learn_off_g, __ATOMIC_RELAXED) &&
	    ra_seen_again((uintptr_t)raw[got - 1], c[1]))
		learn(__builtin_frame_address(0), c[1]);
	return capture_unwind(raw, mods, c);
#else
	void *raw[RAW_MAX];
	uint32_t mods[RAW_MAX];

	return capture_unwind(raw, mods, NULL);
#endif
}

uint32_t hmpt_sites_add_static(uintptr_t addr, uint64_t size, const char *symbol,
                               const char *section)
{
	hmpt_lock_take(&lock_g, HMPT_LOCK_SITES);
	refresh_now();
	/* not in the stack table: no call stack can name a data address */
	uint32_t i = new_site(0, &addr, 1);
	if (i != HMPT_SITE_OVERFLOW) {
		hmpt_site_t *s = &sites_g[i];
		s->kind = HMPT_SITE_STATIC;
		s->symbol = symbol;
		s->section = section;
		s->st = (hmpt_site_stats_t){.allocations = 1,
		                            .bytes = size,
		                            .max_size = size,
		                            .live = size,
		                            .peak_live = size};
	}
	hmpt_lock_drop(&lock_g);
	return i;
}

void hmpt_sites_lock(void)
{
	hmpt_lock_take(&lock_g, HMPT_LOCK_SITES);
}

bool hmpt_sites_trylock(void)
{
	return hmpt_lock_try(&lock_g, HMPT_LOCK_SITES) == 0;
}

void hmpt_sites_unlock(void)
{
	hmpt_lock_drop(&lock_g);
}

void hmpt_sites_reset_lock(void)
{
	hmpt_lock_reset(&lock_g);
}

void hmpt_sites_reset_stats(uint64_t now_ns)
{
	for (uint32_t i = 0; i < nsites_g; i++) {
		hmpt_site_stats_t *st = &sites_g[i].st;
		uint64_t live = st->live;
		if (sites_g[i].kind == HMPT_SITE_STATIC) /* the child has them too */
			continue;
		memset(st, 0, sizeof(*st));
		st->live = st->peak_live = live;
	}
	totals_g.allocations = totals_g.bytes = totals_g.untracked_large = 0;
	totals_g.peak_live = totals_g.live;
	t0_g = now_ns;
}

void hmpt_sites_note_alloc(uint32_t site, uint64_t size, uint64_t now_ns)
{
	hmpt_site_stats_t *st = &sites_g[site].st;
	uint64_t t = now_ns - t0_g;

	if (st->allocations == 0)
		st->first_ns = t;
	st->last_ns = t;
	st->allocations++;
	st->bytes += size;
	if (size > st->max_size)
		st->max_size = size;
	st->live += size;
	if (st->live > st->peak_live)
		st->peak_live = st->live;
	totals_g.allocations++;
	totals_g.bytes += size;
	totals_g.live += size;
	if (totals_g.live > totals_g.peak_live)
		totals_g.peak_live = totals_g.live;
}

void hmpt_sites_note_free(uint32_t site, uint64_t size)
{
	hmpt_site_stats_t *st = &sites_g[site].st;

	st->live -= size < st->live ? size : st->live;
	totals_g.live -= size < totals_g.live ? size : totals_g.live;
}

void hmpt_sites_note_untracked(void)
{
	totals_g.untracked_large++;
}

uint32_t hmpt_sites_count(void)
{
	return nsites_g;
}

hmpt_site_t *hmpt_sites_get(uint32_t i)
{
	return &sites_g[i];
}

uint32_t hmpt_modules_count(void)
{
	return nmodules_g;
}

const hmpt_module_t *hmpt_modules_get(uint32_t i)
{
	return &modules_g[i];
}

const hmpt_totals_t *hmpt_sites_totals(void)
{
	return &totals_g;
}

uint64_t hmpt_sites_t0_ns(void)
{
	return t0_g;
}

unsigned hmpt_sites_depth(void)
{
	return depth_g;
}
