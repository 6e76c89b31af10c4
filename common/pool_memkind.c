/* pool_memkind.c — memkind pools: hmpt_backend_memkind (backend.h).
 *
 * memkind is opened with dlopen, only when a plan names a memkind pool:
 * loading it into every program would start its allocator and read its
 * environment for nothing.  Its blocks do not live in hmpt's arena, so
 * hmpt records each one in a table of its own (open addressing by address,
 * in an anonymous mapping: no malloc); free, realloc and
 * malloc_usable_size look there for page-aligned pointers while any memkind
 * block is live.
 */
#include "backend.h"

#include <dlfcn.h>
#include <errno.h>
#include <numaif.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fmt.h"
#include "sys.h"

typedef void *memkind_t;

static struct {
	void *(*malloc_fn)(memkind_t, size_t);
	int (*posix_memalign_fn)(memkind_t, void **, size_t, size_t);
	void (*free_fn)(memkind_t, void *);
	size_t (*usable_fn)(memkind_t, void *);
	int (*check_fn)(memkind_t);
} mk_g;
static void *handle_g;
static int open_rc_g = 1; /* 1: not tried yet */
static pthread_mutex_t open_lock_g = PTHREAD_MUTEX_INITIALIZER;

/* the table of live memkind blocks */
#define TABLE_SLOTS (1u << 16)
typedef struct {
	uintptr_t addr; /* 0: empty, 1: deleted */
	hmpt_backend_block_t b;
} slot_t;
static slot_t *table_g;
uint64_t hmpt_backend_outside_g; /* live blocks; read without the lock by backend.h */
static pthread_mutex_t lock_g = PTHREAD_MUTEX_INITIALIZER;

/* fork: the loading lock too (held across dlopen: a child that found it
 * taken would block at its first memkind pool), then the table's */
static void memkind_lock(void)
{
	pthread_mutex_lock(&open_lock_g);
	pthread_mutex_lock(&lock_g);
}

static void memkind_unlock(void)
{
	pthread_mutex_unlock(&lock_g);
	pthread_mutex_unlock(&open_lock_g);
}

static void memkind_reset_lock(void)
{
	pthread_mutex_init(&lock_g, NULL);
	pthread_mutex_init(&open_lock_g, NULL);
}

static int do_open(char *err, size_t errlen)
{
	static const hmpt_sys_sym_t syms[] = {
	    {"memkind_malloc", (void **)&mk_g.malloc_fn},
	    {"memkind_posix_memalign", (void **)&mk_g.posix_memalign_fn},
	    {"memkind_free", (void **)&mk_g.free_fn},
	    {"memkind_malloc_usable_size", (void **)&mk_g.usable_fn},
	    {"memkind_check_available", (void **)&mk_g.check_fn},
	};
	const char *why = NULL;
	int rc = hmpt_sys_dlopen_syms("libmemkind.so.0", syms,
	                              (int)(sizeof(syms) / sizeof(syms[0])), &handle_g, &why);

	if (rc == -ENOENT) {
		hmpt_fmt_text(
		    err, errlen,
		    "cannot load memkind (libmemkind.so.0; Debian package libmemkind0): %s", why);
		return -ENOENT;
	}
	if (rc) {
		hmpt_fmt_text(err, errlen, "libmemkind.so.0 has no %s", why);
		return -ENOENT;
	}
	table_g = hmpt_sys_map(TABLE_SLOTS * sizeof(slot_t));
	if (!table_g) {
		hmpt_fmt_text(err, errlen, "no memory for the memkind table");
		return -ENOENT;
	}
	return 0;
}

static int memkind_open(char *err, size_t errlen)
{
	static char saved_g[256];

	pthread_mutex_lock(&open_lock_g);
	if (open_rc_g == 1)
		open_rc_g = do_open(saved_g, sizeof(saved_g));
	pthread_mutex_unlock(&open_lock_g);
	if (open_rc_g && err) {
		hmpt_fmt_text(err, errlen, "%s", saved_g);
	}
	return open_rc_g;
}

/* "hbw_preferred" -> the value of MEMKIND_HBW_PREFERRED */
static memkind_t kind_of(int kind)
{
	char sym[96];
	hmpt_fmt_t f;

	if (open_rc_g || kind < 0)
		return NULL;
	hmpt_fmt_init(&f, sym, sizeof(sym), -1);
	hmpt_fmt_str(&f, "MEMKIND_");
	for (const char *s = hmpt_plan_kinds_g[kind]; *s; s++)
		hmpt_fmt_char(&f, *s >= 'a' && *s <= 'z' ? (char)(*s - 'a' + 'A') : *s);
	memkind_t *p = dlsym(handle_g, hmpt_fmt_cstr(&f));
	return p ? *p : NULL;
}

static int memkind_check(int kind)
{
	memkind_t k = kind_of(kind);

	if (!k)
		return -ENOENT;
	return mk_g.check_fn(k) == 0 ? 0 : -ENODEV;
}

static int memkind_probe_hbw(hmpt_nodemask_t *hbm, void *ctx)
{
	unsigned long mask[HMPT_MAX_NODES / 64];
	int mode = 0, kind = -1;
	void *p;

	(void)ctx;
	for (int i = 0; hmpt_plan_kinds_g[i]; i++)
		if (strcmp(hmpt_plan_kinds_g[i], "hbw_all") == 0)
			kind = i;
	if (memkind_open(NULL, 0) != 0 || memkind_check(kind) != 0)
		return -ENODEV;
	/* memkind binds the chunks of a kind to the kind's nodes when it maps
	 * them: the policy of one block's address is the node set memkind
	 * found (from HMAT through hwloc, or MEMKIND_HBW_NODES) */
	p = mk_g.malloc_fn(kind_of(kind), (size_t)2 << 20);
	if (!p)
		return -ENOMEM;
	memset(mask, 0, sizeof(mask));
	/* the system call itself, as pool.c's mbind (no libnuma) */
	int rc = (int)syscall(SYS_get_mempolicy, &mode, mask, (unsigned long)(HMPT_MAX_NODES + 1),
	                      p, (unsigned long)MPOL_F_ADDR);
	mk_g.free_fn(NULL, p);
	if (rc != 0)
		return -errno;
	memset(hbm, 0, sizeof(*hbm));
	memcpy(hbm->w, mask, sizeof(hbm->w));
	return hmpt_nodemask_empty(hbm) ? -ENODEV : 0;
}

static uint32_t slot_of(uintptr_t a)
{
	return (uint32_t)((a >> 12) * 0x9e3779b97f4a7c15ull >> 48) & (TABLE_SLOTS - 1);
}

/* with the lock: the slot holding a, or -1 (never for 0 or 1, the
 * addresses of empty and deleted slots) */
static int64_t find(uintptr_t a)
{
	if (a < 2)
		return -1;
	for (uint32_t i = slot_of(a), k = 0; k < TABLE_SLOTS;
	     i = (i + 1) & (TABLE_SLOTS - 1), k++) {
		if (table_g[i].addr == a)
			return i;
		if (table_g[i].addr == 0)
			return -1;
	}
	return -1;
}

static void *memkind_alloc(size_t size, size_t align, bool zero, uint32_t site, uint16_t tag,
                           int kind)
{
	memkind_t k = kind_of(kind);
	void *p = NULL;
	int rc;

	if (!k) {
		errno = ENOENT;
		return NULL;
	}
	/* page-aligned, so that free() looks only page-aligned pointers up */
	rc = mk_g.posix_memalign_fn(k, &p, align > 4096 ? align : 4096, size);
	if (rc != 0 || !p) {
		errno = rc ? rc : ENOMEM;
		return NULL;
	}
	if (zero) /* memkind may hand back memory it had before */
		memset(p, 0, size);
	pthread_mutex_lock(&lock_g);
	if (hmpt_backend_outside_g >= TABLE_SLOTS / 2) {
		pthread_mutex_unlock(&lock_g);
		mk_g.free_fn(NULL, p);
		errno = ENOSPC;
		return NULL;
	}
	uint32_t i = slot_of((uintptr_t)p);
	while (table_g[i].addr > 1)
		i = (i + 1) & (TABLE_SLOTS - 1);
	table_g[i].addr = (uintptr_t)p;
	table_g[i].b = (hmpt_backend_block_t){
	    .size = size, .usable = mk_g.usable_fn(NULL, p), .site = site, .tag = tag};
	__atomic_store_n(&hmpt_backend_outside_g, hmpt_backend_outside_g + 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&lock_g);
	return p;
}

static int memkind_lookup(const void *p, hmpt_backend_block_t *out)
{
	int rc = -ENOENT;

	if (((uintptr_t)p & 4095) || !hmpt_backend_outside_any())
		return rc;
	pthread_mutex_lock(&lock_g);
	int64_t i = find((uintptr_t)p);
	if (i >= 0) {
		*out = table_g[i].b;
		rc = 0;
	}
	pthread_mutex_unlock(&lock_g);
	return rc;
}

static int memkind_free(void *p, hmpt_backend_block_t *out)
{
	int64_t i;

	pthread_mutex_lock(&lock_g);
	i = find((uintptr_t)p);
	if (i >= 0) {
		*out = table_g[i].b;
		/* deleted (1) keeps later entries of the run findable; the end
		 * of a run can be emptied outright */
		table_g[i].addr = table_g[(i + 1) & (TABLE_SLOTS - 1)].addr ? 1 : 0;
		__atomic_store_n(&hmpt_backend_outside_g, hmpt_backend_outside_g - 1,
		                 __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&lock_g);
	if (i < 0)
		return -ENOENT;
	mk_g.free_fn(NULL, p);
	return 0;
}

bool hmpt_backend_outside_owns(const void *p)
{
	hmpt_backend_block_t b;

	return memkind_lookup(p, &b) == 0;
}

const hmpt_backend_ops_t hmpt_backend_memkind = {
    .name = "memkind",
    .open = memkind_open,
    .check = memkind_check,
    .alloc = memkind_alloc,
    .free = memkind_free,
    .lookup = memkind_lookup,
    .probe_hbw = memkind_probe_hbw,
    .lock = memkind_lock,
    .unlock = memkind_unlock,
    .reset_lock = memkind_reset_lock,
};
