/* pool_memkind.c — memkind pools: hmpt_backend_memkind_ops (backend.h).
 *
 * memkind is opened with dlopen, only when a plan names a memkind pool:
 * loading it into every program would start its allocator and read its
 * environment for nothing.  Its blocks do not live in hmpt's arena: they
 * are recorded in the table of blocks outside it (backend.h).
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
#include "lockrank.h"
#include "plan.h"
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

/* fork: the loading lock (held across dlopen: a child that found it
 * taken would block at its first memkind pool) */
static void memkind_lock(void)
{
	hmpt_lock_take(&open_lock_g, HMPT_LOCK_MEMKIND);
}

static void memkind_unlock(void)
{
	hmpt_lock_drop(&open_lock_g);
}

static void memkind_reset_lock(void)
{
	hmpt_lock_reset(&open_lock_g);
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
	return 0;
}

static int memkind_load(char *err, size_t errlen)
{
	static char saved_g[256];

	hmpt_lock_take(&open_lock_g, HMPT_LOCK_MEMKIND);
	if (open_rc_g == 1)
		open_rc_g = do_open(saved_g, sizeof(saved_g));
	hmpt_lock_drop(&open_lock_g);
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
	for (const char *s = hmpt_backend_kinds_g[kind].name; *s; s++)
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

int hmpt_backend_memkind_probe_hbw(hmpt_nodemask_t *hbm, void *ctx)
{
	unsigned long mask[HMPT_MAX_NODES / 64];
	int mode = 0, kind = -1;
	void *p;

	(void)ctx;
	for (int i = 0; hmpt_backend_kinds_g[i].name; i++)
		if (strcmp(hmpt_backend_kinds_g[i].name, "hbw_all") == 0)
			kind = i;
	if (memkind_load(NULL, 0) != 0 || memkind_check(kind) != 0)
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

/* memkind's blocks, in the table of blocks outside the arena; the kind
 * was found when the pool was opened (no dlsym here) */
static void *memkind_alloc(hmpt_backend_pool_t *bp, size_t size, size_t align, bool zero,
                           uint32_t site, uint16_t tag)
{
	memkind_t k = bp->state;
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
	hmpt_backend_block_t b = {
	    .size = size, .usable = mk_g.usable_fn(NULL, p), .site = site, .tag = tag};
	if ((rc = hmpt_outside_add(p, &b, bp)) != 0) {
		mk_g.free_fn(NULL, p);
		errno = -rc;
		return NULL;
	}
	return p;
}

static int memkind_free(hmpt_backend_pool_t *bp, void *p, hmpt_backend_block_t *out)
{
	int rc = hmpt_outside_take(p, out, NULL);

	(void)bp;
	if (rc == 0)
		mk_g.free_fn(NULL, p);
	return rc;
}

void hmpt_backend_memkind_describe(hmpt_fmt_t *f, const struct hmpt_plan_pool *p)
{
	hmpt_fmt_printf(f, "memkind kind %s",
	                p->kind >= 0 ? hmpt_backend_kinds_g[p->kind].name : "?");
}

/* Load memkind, check that the pool's kind is available here, and keep
 * the kind in the instance. */
static int memkind_open_pool(hmpt_backend_pool_t *bp, const char **field, char *err, size_t errlen)
{
	int rc = memkind_load(err, errlen);

	*field = "backend";
	if (rc)
		return rc;
	if (memkind_check(bp->plan->kind) != 0) {
		/* kind names are plain words: no JSON escaping needed */
		*field = "kind";
		hmpt_fmt_text(err, errlen,
		              "memkind says kind \"%s\" is not available on this machine",
		              hmpt_backend_kinds_g[bp->plan->kind].name);
		return -ENODEV;
	}
	bp->state = kind_of(bp->plan->kind);
	return 0;
}

const hmpt_backend_ops_t hmpt_backend_memkind_ops = {
    .open = memkind_open_pool,
    .alloc = memkind_alloc,
    .free = memkind_free,
    .lookup = hmpt_outside_lookup_op,
    .fork_prepare = memkind_lock,
    .fork_parent = memkind_unlock,
    .fork_child = memkind_reset_lock,
};
