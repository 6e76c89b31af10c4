/* sites.c — see sites.h. */
#include "sites.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "lockrank.h"
#include "siteid.h"
#include "sys.h"

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

/* Re-read the module list when something was loaded or unloaded. */
static void refresh_modules(void)
{
	unsigned long long c[2] = {0, 0};

	dl_iterate_phdr(counters_cb, c);
	if (nmodules_g && c[0] == dl_adds_g && c[1] == dl_subs_g)
		return;
	for (uint32_t i = 0; i < nmodules_g; i++)
		modules_g[i].alive = false;
	dl_iterate_phdr(refresh_cb, NULL);
	dl_adds_g = c[0];
	dl_subs_g = c[1];
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
	if (hmpt_sys_readlink("/proc/self/exe", exe_path_g, sizeof(exe_path_g)) < 0)
		exe_path_g[0] = '\0';
	nsites_g = 1; /* index 0: the overflow site, no frames */
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	hmpt_lock_take(&lock_g, HMPT_LOCK_SITES);
	refresh_modules();
	hmpt_lock_drop(&lock_g);
	return 0;
}

void hmpt_sites_warmup(void)
{
	void *raw[8];

	unw_backtrace(raw, 8);
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
	int got = unw_backtrace(raw, (int)depth_g + 2 * SKIP_ROOM + SKIP_MAX);

	hmpt_lock_take(&lock_g, HMPT_LOCK_SITES);
	refresh_modules();
	site_of(raw, got < 0 ? 0 : got, mods, true, &site);
	hmpt_lock_drop(&lock_g);
	return site;
}

uint32_t hmpt_sites_capture(void)
{
	void *raw[RAW_MAX];
	uint32_t mods[RAW_MAX], site;
	int want = (int)depth_g + 2 * SKIP_ROOM; /* RAW_MAX at most */
	int got = unw_backtrace(raw, want);

	if (got < 0)
		got = 0;
	hmpt_lock_take(&lock_g, HMPT_LOCK_SITES);
	refresh_modules();
	/* a stack that goes on past a full buffer may hold its naming frames
	 * deeper */
	bool found = site_of(raw, got, mods, got < want, &site);
	hmpt_lock_drop(&lock_g);
	return found ? site : capture_deep();
}

uint32_t hmpt_sites_add_static(uintptr_t addr, uint64_t size, const char *symbol,
                               const char *section)
{
	hmpt_lock_take(&lock_g, HMPT_LOCK_SITES);
	refresh_modules();
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
