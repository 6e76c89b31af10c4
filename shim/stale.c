/* stale.c — see stale.h. */
#include "stale.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hash.h"
#include "job.h"
#include "log.h"
#include "sys.h"

/* Shared with fork children (MAP_SHARED): what any process of the tree
 * matched reaches the one that says it. */
typedef struct {
	uint32_t decided;  /* some site was decided: the process allocates */
	uint8_t matched[]; /* per plan site: some site was decided to it */
} shared_t;

/* per module of the plan: the other build seen */
typedef struct {
	int said;
	int renamed_said; /* loaded as the same build under another name */
	uint8_t len;
	uint8_t id[32];
} build_t;

static const hmpt_plan_t *plan_g;
static shared_t *shared_g;
static pid_t owner_g; /* the process that read the plan */
static build_t *builds_g;
static int exit_said_g;

/* "81b52d8b..." or "none", into buf[16] */
static const char *short_id(char *buf, const uint8_t *id, uint8_t len)
{
	hmpt_fmt_t f;

	if (!len)
		return "none";
	hmpt_fmt_init(&f, buf, 16, -1);
	for (uint8_t i = 0; i < len && i < 4; i++)
		hmpt_fmt_printf(&f, "%02x", id[i]);
	if (len > 4)
		hmpt_fmt_str(&f, "...");
	return hmpt_fmt_cstr(&f);
}

void hmpt_stale_describe_build(hmpt_fmt_t *f, const hmpt_plan_t *plan, uint32_t j,
                               const uint8_t *id, uint8_t len)
{
	const hmpt_plan_module_t *pm = &plan->modules[j];
	char was[16], now[16];

	hmpt_fmt_printf(f,
	                "%s was made for %s with build id %s, this one has %s: its sites may not "
	                "match; 'hmpt-tune plan rebase %s -- CMD' moves the plan onto this build",
	                plan->path, pm->name, short_id(was, pm->build_id, pm->build_id_len),
	                short_id(now, id, len), plan->path);
}

void hmpt_stale_init(const hmpt_plan_t *plan)
{
	uint64_t h = HMPT_HASH_SEED;

	plan_g = plan;
	owner_g = getpid();
	if (plan->nmodules)
		builds_g = hmpt_sys_perm_alloc(plan->nmodules * sizeof(*builds_g));
	if (!plan->nsites)
		return;
	void *p = mmap(NULL, sizeof(shared_t) + plan->nsites, PROT_READ | PROT_WRITE,
	               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return; /* nothing to say at exit: better than a wrong line */
	shared_g = p;
	/* the ranks of a job share only with ranks of the same plan's sites */
	for (uint32_t i = 0; i < plan->nsites; i++)
		h = hmpt_hash_bytes(h, &plan->sites[i].id, sizeof(plan->sites[i].id));
	hmpt_job_plan_join(h, plan->nsites);
}

void hmpt_stale_describe_renamed(hmpt_fmt_t *f, const hmpt_plan_t *plan, uint32_t j,
                                 const char *loaded_as)
{
	const char *name = plan->modules[j].name;

	hmpt_fmt_printf(
	    f,
	    "%s names %s, loaded here as %s (the same build): its sites name %s; rename "
	    "it back, or make the plan again",
	    plan->path, name, loaded_as, name);
}

/* Is the loaded module the build the plan names? */
static bool same_build(const hmpt_plan_module_t *pm, const hmpt_module_t *m)
{
	return m->build_id_len == pm->build_id_len &&
	       memcmp(m->build_id, pm->build_id, pm->build_id_len) == 0;
}

/* Is h one of list[0..n-1]? */
static bool in_list(uint64_t h, const uint64_t *list, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (list[i] == h)
			return true;
	return false;
}

/* Is a module of this name hash loaded (sites lock held)? */
static bool loaded_name(uint64_t name_hash)
{
	for (uint32_t i = 0; i < hmpt_modules_count(); i++)
		if (hmpt_modules_get(i)->name_hash == name_hash)
			return true;
	return false;
}

/* A module the plan does not name, with the build id of one it names that
 * is not loaded here: the same file renamed (cp app app2), whose sites the
 * plan names by the old name and so can never match. */
static void check_renamed(const hmpt_module_t *m)
{
	char buf[1024];
	hmpt_fmt_t f;

	if (!m->build_id_len)
		return;
	for (uint32_t j = 0; j < plan_g->nmodules; j++) {
		const hmpt_plan_module_t *pm = &plan_g->modules[j];
		if (!same_build(pm, m) || loaded_name(pm->name_hash) ||
		    !hmpt_log_first(&builds_g[j].renamed_said))
			continue;
		hmpt_log_begin(&f, buf, sizeof(buf));
		hmpt_stale_describe_renamed(&f, plan_g, j, m->name);
		hmpt_log_end(&f, HMPT_LOG_WARN);
	}
}

void hmpt_stale_check_module(const hmpt_module_t *m)
{
	int j;

	if (!plan_g || !builds_g || m->self)
		return;
	if ((j = hmpt_plan_module(plan_g, m->name_hash)) < 0) {
		check_renamed(m);
		return;
	}
	const hmpt_plan_module_t *pm = &plan_g->modules[j];
	if (!pm->build_id_len || same_build(pm, m))
		return;
	build_t *b = &builds_g[j];
	if (!hmpt_log_first(&b->said))
		return;
	b->len = m->build_id_len;
	memcpy(b->id, m->build_id, m->build_id_len);
	char buf[1024];
	hmpt_fmt_t f;
	hmpt_log_begin(&f, buf, sizeof(buf));
	hmpt_stale_describe_build(&f, plan_g, (uint32_t)j, b->id, b->len);
	hmpt_log_end(&f, HMPT_LOG_WARN);
}

void hmpt_stale_note_site(int plan_site)
{
	if (!shared_g)
		return;
	if (!__atomic_load_n(&shared_g->decided, __ATOMIC_RELAXED))
		__atomic_store_n(&shared_g->decided, 1, __ATOMIC_RELAXED);
	if (plan_site >= 0 && (uint32_t)plan_site < plan_g->nsites)
		__atomic_store_n(&shared_g->matched[plan_site], 1, __ATOMIC_RELAXED);
}

bool hmpt_stale_build(uint32_t j, const uint8_t **id, uint8_t *len)
{
	if (!plan_g || !builds_g || j >= plan_g->nmodules || !builds_g[j].said)
		return false;
	*id = builds_g[j].id;
	*len = builds_g[j].len;
	return true;
}

/* "group G1 (2 sites)" or "1 of 3 sites of group G2" */
static void group_item(hmpt_fmt_t *f, const hmpt_plan_group_t *g, uint32_t unmatched)
{
	const char *s = g->nsites == 1 ? "" : "s";

	if (unmatched == g->nsites)
		hmpt_fmt_printf(f, "group %s (%u site%s)", g->name, (unsigned)g->nsites, s);
	else
		hmpt_fmt_printf(f, "%u of %u site%s of group %s", (unsigned)unmatched,
		                (unsigned)g->nsites, s, g->name);
}

#define MAX_ITEMS 6 /* groups named in the line; the rest counted */

/* the group's sites that count here and matched nothing */
static uint32_t unmatched_in(const hmpt_plan_group_t *g, const uint8_t *matched,
                             const uint8_t *relevant)
{
	uint32_t n = 0;

	for (uint32_t i = g->first_site; i < g->first_site + g->nsites; i++)
		n += relevant[i] && !matched[i];
	return n;
}

uint32_t hmpt_stale_describe(hmpt_fmt_t *f, const hmpt_plan_t *plan, const uint8_t *matched,
                             const uint8_t *relevant)
{
	uint32_t total = 0, any_matched = 0, groups = 0;

	for (uint32_t i = 0; i < plan->nsites; i++) {
		any_matched += matched[i] != 0;
		total += relevant[i] && !matched[i];
	}
	if (!total)
		return 0;
	for (uint32_t g = 0; g < plan->ngroups; g++)
		groups += unmatched_in(&plan->groups[g], matched, relevant) != 0;
	/* "placed nothing": no group took an allocation, only the default pool did */
	hmpt_fmt_printf(f, "%s%s", plan->path,
	                any_matched ? ": " : " " HMPT_PLAN_SAID_NOTHING ": ");
	uint32_t k = 0;
	for (uint32_t g = 0; g < plan->ngroups && k < MAX_ITEMS; g++) {
		const hmpt_plan_group_t *gr = &plan->groups[g];
		uint32_t n = unmatched_in(gr, matched, relevant);
		if (!n)
			continue;
		k++;
		if (k > 1)
			hmpt_fmt_str(f, k == groups && groups <= MAX_ITEMS ? " and " : ", ");
		group_item(f, gr, n);
	}
	if (groups > MAX_ITEMS) {
		hmpt_fmt_printf(f, " and %u more groups", (unsigned)(groups - MAX_ITEMS));
	}
	hmpt_fmt_str(f, " matched no allocation: was the program rebuilt or its libraries "
	                "updated?");
	return total;
}

/* Were all the modules of plan site s's identity frames loaded here (the
 * name hashes of the modules loaded: loaded[0..nloaded-1])? */
static bool site_relevant(const hmpt_plan_site_t *s, const uint64_t *loaded, uint32_t nloaded)
{
	for (uint32_t k = 0; k < s->nid; k++)
		if (!in_list(s->id_hashes[k], loaded, nloaded))
			return false;
	return true;
}

/* The name of the plan's module of this hash, from some site's frames. */
static const char *module_name(const hmpt_plan_t *plan, uint64_t h)
{
	for (uint32_t i = 0; i < plan->nsites; i++)
		for (uint32_t k = 0; k < plan->sites[i].nframes; k++)
			if (plan->sites[i].name_hashes[k] == h)
				return plan->sites[i].modules[k];
	return "?";
}

#define MAX_MODULES 6     /* modules named in the line; the rest said as "more" */
#define MAX_LOADED  4096u /* loaded modules' names read at exit (sites.c's table) */

uint32_t hmpt_stale_describe_unloaded(hmpt_fmt_t *f, const hmpt_plan_t *plan,
                                      const uint64_t *loaded, uint32_t nloaded)
{
	uint64_t named[MAX_MODULES];
	uint32_t n = 0, more = 0;

	/* the modules of the sites' identity frames not loaded, in plan order */
	for (uint32_t i = 0; i < plan->nsites; i++)
		for (uint32_t k = 0; k < plan->sites[i].nid; k++) {
			uint64_t h = plan->sites[i].id_hashes[k];
			if (in_list(h, loaded, nloaded) || in_list(h, named, n))
				continue;
			if (n < MAX_MODULES)
				named[n++] = h;
			else
				more++; /* may count a module twice: only said as "more" */
		}
	if (!n)
		return 0;
	hmpt_fmt_printf(f, "%s " HMPT_PLAN_SAID_NOTHING ": its sites name ", plan->path);
	for (uint32_t m = 0; m < n; m++) {
		if (m)
			hmpt_fmt_str(f, m == n - 1 && !more ? " and " : ", ");
		hmpt_fmt_str(f, module_name(plan, named[m]));
	}
	if (more)
		hmpt_fmt_str(f, " and more modules");
	hmpt_fmt_str(f, ", which this program did not load: was it renamed, or is this another "
	                "program?");
	return n;
}

void hmpt_stale_at_exit(void)
{
	if (!shared_g || getpid() != owner_g || !hmpt_log_first(&exit_said_g))
		return;
	uint32_t n = plan_g->nsites;
	/* matched and relevant per plan site, then the loaded modules' names */
	size_t len = 2 * (size_t)n + 8 + MAX_LOADED * sizeof(uint64_t);
	uint8_t *matched = hmpt_sys_map(len);
	if (!matched)
		return;
	uint8_t *relevant = matched + n;
	uint64_t *loaded = (uint64_t *)(((uintptr_t)(relevant + n) + 7) & ~(uintptr_t)7);
	uint32_t nloaded = 0;
	bool decided = __atomic_load_n(&shared_g->decided, __ATOMIC_RELAXED) != 0;
	for (uint32_t i = 0; i < n; i++)
		matched[i] = __atomic_load_n(&shared_g->matched[i], __ATOMIC_RELAXED);
	/* Never wait for the sites lock here: _exit calls this, and a signal
	 * handler may call _exit while its own thread holds the lock (in
	 * hmpt_sites_capture): waiting would hang the program at its end.
	 * Without the lock this process knows no site's relevance: it adds
	 * its matches to its node's but says nothing of its own. */
	bool known = hmpt_sites_trylock();
	if (known) {
		nloaded = hmpt_modules_count();
		if (nloaded > MAX_LOADED)
			nloaded = MAX_LOADED;
		for (uint32_t m = 0; m < nloaded; m++)
			loaded[m] = hmpt_modules_get(m)->name_hash;
		hmpt_sites_unlock();
		for (uint32_t i = 0; i < n; i++)
			relevant[i] = site_relevant(&plan_g->sites[i], loaded, nloaded);
	}
	hmpt_job_say_t say = hmpt_job_plan_leave(matched, relevant, n, &decided);
	if (!known && say == HMPT_JOB_SAY_OWN)
		say = HMPT_JOB_SAY_NONE;
	char buf[2048];
	hmpt_fmt_t f;
	if (say != HMPT_JOB_SAY_NONE && decided) {
		bool any_relevant = false;
		for (uint32_t i = 0; i < n && !any_relevant; i++)
			any_relevant = relevant[i] != 0;
		/* the node's line is the job's: no rank's prefix, never filtered */
		if (say == HMPT_JOB_SAY_NODE)
			hmpt_log_begin_plain(&f, buf, sizeof(buf));
		else
			hmpt_log_begin(&f, buf, sizeof(buf));
		/* no site relevant: none of the plan's modules (as named) ran here */
		uint32_t said = any_relevant ? hmpt_stale_describe(&f, plan_g, matched, relevant)
		                : known ? hmpt_stale_describe_unloaded(&f, plan_g, loaded, nloaded)
		                        : 0;
		if (said) {
			if (say == HMPT_JOB_SAY_NODE)
				hmpt_log_end_unfiltered(&f, HMPT_LOG_WARN);
			else
				hmpt_log_end(&f, HMPT_LOG_WARN);
		}
	}
	hmpt_sys_unmap(matched, len);
}
