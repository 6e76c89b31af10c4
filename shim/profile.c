/* profile.c — see profile.h. */
#include "profile.h"
#include "sample.h"
#include "sources.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fmt.h"
#include "job.h"
#include "placer.h"
#include "pool.h"
#include "siteid.h"
#include "sites.h"
#include "stale.h"
#include "sys.h"

#define HMPT_KERNEL_IP 0xffff800000000000ull /* x86-64, arm64: the kernel's half */

static char out_buf_g[1 << 16];
static char cmdline_g[1 << 16];
static uint32_t *order_g; /* site indices, sorted by bytes (HMPT_SITES_MAX) */

static ssize_t cmdline_len_g = -1; /* -1: not kept, read when written */

static const char *exe_base(char *buf, unsigned cap)
{
	if (hmpt_sys_readlink("/proc/self/exe", buf, cap) < 0)
		return "unknown";
	const char *s = strrchr(buf, '/');
	return s ? s + 1 : buf;
}

int hmpt_profile_path(const char *pattern, bool unique, char *buf, unsigned cap)
{
	hmpt_fmt_t f;
	struct utsname u;
	char exe[4096];
	bool has_pid = false, has_rank = false;
	unsigned base = 0;

	if (!pattern || !*pattern)
		return -EINVAL;
	hmpt_fmt_init(&f, buf, cap, -1);
	for (const char *p = pattern; *p; p++) {
		if (*p != '%' || !p[1]) {
			hmpt_fmt_char(&f, *p);
			continue;
		}
		switch (*++p) {
		case 'p':
			hmpt_fmt_i64(&f, getpid());
			has_pid = true;
			break;
		case 'h':
			if (uname(&u) == 0) {
				u.nodename[strcspn(u.nodename, ".")] = '\0';
				hmpt_fmt_str(&f, u.nodename);
			}
			break;
		case 'e': hmpt_fmt_str(&f, exe_base(exe, sizeof(exe))); break;
		case 'r':
			hmpt_fmt_i64(&f, hmpt_job_g.rank >= 0 ? hmpt_job_g.rank : 0);
			has_rank = true;
			break;
		case '%': hmpt_fmt_char(&f, '%'); break;
		default:
			hmpt_fmt_char(&f, '%');
			hmpt_fmt_char(&f, *p);
			break;
		}
	}
	if (unique && !has_pid) {
		hmpt_fmt_char(&f, '.');
		hmpt_fmt_i64(&f, getpid());
	}
	hmpt_fmt_cstr(&f);
	if (f.truncated)
		return -ENAMETOOLONG;
	/* an MPI rank's profile names its rank: "profile.json" becomes
	 * "profile.rank3.json" */
	if (hmpt_job_g.rank >= 0 && !has_rank) {
		char tail[4096], *dot;
		for (unsigned i = 0; buf[i]; i++)
			if (buf[i] == '/')
				base = i + 1;
		dot = strrchr(buf + base, '.');
		if (!dot || dot == buf + base)
			dot = buf + f.len;
		hmpt_fmt_text(tail, sizeof(tail), "%s", dot);
		hmpt_fmt_init(&f, buf, cap, -1);
		f.len = (size_t)(dot - buf);
		hmpt_fmt_printf(&f, ".rank%d%s", hmpt_job_g.rank, tail);
		hmpt_fmt_cstr(&f);
	}
	return f.truncated ? -ENAMETOOLONG : 0;
}

static void key(hmpt_fmt_t *f, const char *k)
{
	hmpt_fmt_json_str(f, k);
	hmpt_fmt_str(f, ": ");
}

static void kv_u64(hmpt_fmt_t *f, const char *k, uint64_t v, const char *sep)
{
	key(f, k);
	hmpt_fmt_u64(f, v);
	hmpt_fmt_str(f, sep);
}

static void kv_i64(hmpt_fmt_t *f, const char *k, int64_t v, const char *sep)
{
	key(f, k);
	hmpt_fmt_i64(f, v);
	hmpt_fmt_str(f, sep);
}

static void kv_str(hmpt_fmt_t *f, const char *k, const char *v, const char *sep)
{
	key(f, k);
	hmpt_fmt_json_str(f, v);
	hmpt_fmt_str(f, sep);
}

static void kv_sec(hmpt_fmt_t *f, const char *k, uint64_t ns, const char *sep)
{
	key(f, k);
	hmpt_fmt_fixed(f, (double)ns * 1e-9, 6);
	hmpt_fmt_str(f, sep);
}

void hmpt_profile_keep_cmdline(void)
{
	cmdline_len_g = hmpt_sys_read_file("/proc/self/cmdline", cmdline_g, sizeof(cmdline_g));
}

static void write_cmdline(hmpt_fmt_t *f)
{
	ssize_t n = cmdline_len_g >= 0
	                ? cmdline_len_g
	                : hmpt_sys_read_file("/proc/self/cmdline", cmdline_g, sizeof(cmdline_g));
	bool first = true;

	hmpt_fmt_char(f, '[');
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(cmdline_g + i) + 1) {
		if (!first)
			hmpt_fmt_str(f, ", ");
		hmpt_fmt_json_str(f, cmdline_g + i);
		first = false;
	}
	hmpt_fmt_char(f, ']');
}

static void write_process(hmpt_fmt_t *f, const hmpt_profile_info_t *info)
{
	static const char *const ends[] = {"exit", "_exit", "request"};
	char exe[4096];
	struct utsname u;

	hmpt_fmt_str(f, "  \"process\": {\n    ");
	kv_u64(f, "pid", (uint64_t)getpid(), ", ");
	kv_u64(f, "ppid", (uint64_t)getppid(), ",\n    ");
	kv_str(f, "exe", hmpt_sys_readlink("/proc/self/exe", exe, sizeof(exe)) < 0 ? "" : exe,
	       ",\n    ");
	key(f, "cmdline");
	write_cmdline(f);
	hmpt_fmt_str(f, ",\n    ");
	kv_str(f, "hostname", uname(&u) == 0 ? u.nodename : "", ",\n    ");
	key(f, "start_unix");
	hmpt_fmt_fixed(f, info->start_unix, 6);
	hmpt_fmt_str(f, ", ");
	kv_sec(f, "duration_s", hmpt_sys_now_ns() - hmpt_sites_t0_ns(), ", ");
	kv_str(f, "end", ends[info->end], ", ");
	key(f, "forked");
	hmpt_fmt_str(f, info->forked ? "true" : "false");
	if (hmpt_job_g.rank >= 0) {
		hmpt_fmt_str(f, ",\n    \"mpi\": {");
		kv_i64(f, "rank", hmpt_job_g.rank, ", ");
		kv_i64(f, "size", hmpt_job_g.size, ", ");
		kv_i64(f, "local_rank", hmpt_job_g.local_rank, ", ");
		kv_str(f, "from", hmpt_job_g.rank_var, ", ");
		kv_str(f, "job", hmpt_job_g.key, "}");
	}
	hmpt_fmt_str(f, "\n  },\n");
}

static void write_frame(hmpt_fmt_t *f, const hmpt_site_t *s, uint32_t i)
{
	const hmpt_module_t *m =
	    s->mods[i] == HMPT_MODULE_UNKNOWN ? NULL : hmpt_modules_get(s->mods[i]);

	/* in no module: JIT code, its address no part of the id (siteid.h) */
	hmpt_fmt_printf(f, "\"%s!0x%" PRIx64 "\"", m ? m->name : HMPT_SITEID_NO_MODULE,
	                (uint64_t)s->offs[i]);
}

/* a build id in hex, "" for none */
static void json_build_id(hmpt_fmt_t *f, const uint8_t *id, uint8_t len)
{
	hmpt_fmt_char(f, '"');
	for (uint8_t i = 0; i < len; i++)
		hmpt_fmt_hex(f, id[i], 2);
	hmpt_fmt_char(f, '"');
}

static void write_modules(hmpt_fmt_t *f)
{
	bool first = true;

	hmpt_fmt_str(f, "  \"modules\": [");
	for (uint32_t i = 0; i < hmpt_modules_count(); i++) {
		const hmpt_module_t *m = hmpt_modules_get(i);
		if (!m->used)
			continue;
		hmpt_fmt_str(f, first ? "\n    {" : ",\n    {");
		kv_str(f, "name", m->name, ", ");
		kv_str(f, "path", m->path, ", ");
		key(f, "build_id");
		json_build_id(f, m->build_id, m->build_id_len);
		hmpt_fmt_char(f, '}');
		first = false;
	}
	hmpt_fmt_str(f, first ? "],\n" : "\n  ],\n");
}

static void write_totals(hmpt_fmt_t *f)
{
	const hmpt_totals_t *t = hmpt_sites_totals();
	struct rusage ru;
	uint64_t rss = getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;

	hmpt_fmt_str(f, "  \"totals\": {\n    ");
	kv_u64(f, "tracked_allocations", t->allocations, ", ");
	kv_u64(f, "tracked_bytes", t->bytes, ",\n    ");
	kv_u64(f, "peak_tracked_bytes", t->peak_live, ", ");
	kv_u64(f, "live_tracked_bytes", t->live, ",\n    ");
	kv_u64(f, "peak_rss_bytes", rss, ", ");
	kv_u64(f, "untracked_large", t->untracked_large, "\n  },\n");
}

/* a before b in the profile: more bytes first, then the site first seen */
static bool site_before(uint32_t a, uint32_t b)
{
	uint64_t x = hmpt_sites_get(a)->st.bytes, y = hmpt_sites_get(b)->st.bytes;
	return x != y ? x > y : a < b;
}

static void sift_down(uint32_t *v, uint32_t root, uint32_t n)
{
	for (uint32_t child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && site_before(v[child], v[child + 1]))
			child++;
		if (!site_before(v[root], v[child]))
			return;
		uint32_t t = v[root];
		v[root] = v[child];
		v[child] = t;
	}
}

/* Heap sort of the site indices that allocated, by site_before: no malloc,
 * and n log n at the most sites a process may have (a shell sort's steps
 * grew faster).  order_g is mapped at the first write: most processes
 * never write a profile.  Returns how many, 0 where no map. */
static uint32_t sort_sites(void)
{
	uint32_t n = 0;

	if (!order_g)
		order_g = hmpt_sys_map(HMPT_SITES_MAX * sizeof(*order_g));
	if (!order_g)
		return 0;
	for (uint32_t i = 0; i < hmpt_sites_count() && n < HMPT_SITES_MAX; i++)
		if (hmpt_sites_get(i)->st.allocations || hmpt_sites_get(i)->st.live)
			order_g[n++] = i;
	/* a heap with the last site (by site_before) on top, moved to the end */
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(order_g, i, n);
	for (uint32_t end = n; end > 1; end--) {
		uint32_t t = order_g[0];
		order_g[0] = order_g[end - 1];
		order_g[end - 1] = t;
		sift_down(order_g, 0, end - 1);
	}
	return n;
}

/* ,\n "placement": {...}: where the site's allocations went, per pool */
static void write_site_placement(hmpt_fmt_t *f, uint32_t site)
{
	const hmpt_plan_t *pl = hmpt_pools_plan(&hmpt_pools_g);
	const hmpt_placer_site_t *s = hmpt_placer_site(site);
	bool first = true;

	if (!hmpt_pools_active(&hmpt_pools_g) || !s)
		return;
	const hmpt_plan_group_t *g =
	    s->plan_site >= 0 ? &pl->groups[pl->sites[s->plan_site].group] : NULL;
	/* a split group's rest is planned too, not a fallback */
	int rest = g && g->share < HMPT_PLAN_SHARE_ONE ? g->rest : s->pool;
	hmpt_fmt_str(f, ",\n      \"placement\": {");
	kv_str(f, "pool", hmpt_plan_pool_name(pl, s->pool), ", ");
	if (rest != s->pool) {
		kv_str(f, "rest", hmpt_plan_pool_name(pl, rest), ", ");
		kv_u64(f, "share_ppm", g->share, ", ");
	}
	key(f, "group");
	if (g)
		hmpt_fmt_json_str(f, g->name);
	else
		hmpt_fmt_str(f, "null");
	hmpt_fmt_str(f, ", ");
	key(f, "pools");
	hmpt_fmt_char(f, '[');
	for (uint32_t i = 0; i < s->nplaced; i++) {
		const hmpt_site_place_t *pp = &s->placed[i];
		int pool = (int)i - 1;
		if (!pp->allocations)
			continue;
		hmpt_fmt_str(f, first ? "\n        {" : ",\n        {");
		kv_str(f, "pool", hmpt_plan_pool_name(pl, pool), ", ");
		kv_u64(f, "allocations", pp->allocations, ", ");
		kv_u64(f, "bytes", pp->bytes, ", ");
		key(f, "fallback");
		hmpt_fmt_str(f, pool != s->pool && pool != rest ? "true}" : "false}");
		first = false;
	}
	hmpt_fmt_str(f, "]}");
}

/* "plan": the plan in force, the nodes found, and each pool's figures */
/* a node list as a JSON string: "0-3,6" */
static void json_nodemask(hmpt_fmt_t *f, const hmpt_nodemask_t *m)
{
	hmpt_fmt_char(f, '"');
	hmpt_nodemask_format(f, m);
	hmpt_fmt_char(f, '"');
}

/* "KIND_nodes": "2-3", "KIND_from": "HMAT" */
static void kv_nodes(hmpt_fmt_t *f, const char *kind, const hmpt_nodemask_t *m, hmpt_topo_src_t src)
{
	hmpt_fmt_printf(f, "\"%s_nodes\": ", kind);
	json_nodemask(f, m);
	hmpt_fmt_printf(f, ", \"%s_from\": ", kind);
	hmpt_fmt_json_str(f, hmpt_topo_src_name(src));
}

/* ,\n "groups": what each group of the plan matched in this process (a
 * plan site counts when a site of this process that allocated since the
 * start, or the fork, was decided to it), and "build_mismatches" */
static void write_plan_matches(hmpt_fmt_t *f, const hmpt_plan_t *pl)
{
	uint64_t *sums = NULL; /* allocations, bytes per group */
	uint8_t *matched = NULL;
	size_t len = pl->ngroups * 2 * sizeof(uint64_t) + pl->nsites;

	if (len) {
		sums = hmpt_sys_map(len);
		if (!sums)
			return; /* the profile is still whole without them */
		matched = (uint8_t *)(sums + 2 * pl->ngroups);
	}
	for (uint32_t i = 0; i < hmpt_sites_count(); i++) {
		const hmpt_site_t *s = hmpt_sites_get(i);
		const hmpt_placer_site_t *d = hmpt_placer_site(i);
		if (!d || d->plan_site < 0 || !s->st.allocations)
			continue;
		uint32_t g = pl->sites[d->plan_site].group;
		matched[d->plan_site] = 1;
		sums[2 * g] += s->st.allocations;
		sums[2 * g + 1] += s->st.bytes;
	}
	hmpt_fmt_str(f, ",\n    \"groups\": [");
	for (uint32_t g = 0; g < pl->ngroups; g++) {
		const hmpt_plan_group_t *gr = &pl->groups[g];
		uint32_t n = 0;
		for (uint32_t i = gr->first_site; i < gr->first_site + gr->nsites; i++)
			n += matched[i];
		hmpt_fmt_str(f, g ? ",\n      {" : "\n      {");
		kv_str(f, "name", gr->name, ", ");
		kv_str(f, "pool", hmpt_plan_pool_name(pl, gr->pool), ", ");
		kv_u64(f, "sites", gr->nsites, ", ");
		kv_u64(f, "sites_matched", n, ", ");
		kv_u64(f, "allocations", sums[2 * g], ", ");
		kv_u64(f, "bytes", sums[2 * g + 1], ",\n       ");
		key(f, "unmatched_sites");
		hmpt_fmt_char(f, '[');
		for (uint32_t i = gr->first_site, k = 0; i < gr->first_site + gr->nsites; i++) {
			if (matched[i])
				continue;
			hmpt_fmt_printf(f, "%s\"%016" PRIx64 "\"", k++ ? ", " : "",
			                pl->sites[i].id);
		}
		hmpt_fmt_str(f, "]}");
	}
	hmpt_fmt_str(f, pl->ngroups ? "\n    ],\n    \"build_mismatches\": ["
	                            : "],\n    \"build_mismatches\": [");
	for (uint32_t j = 0, k = 0; j < pl->nmodules; j++) {
		const uint8_t *id;
		uint8_t idlen;
		if (!hmpt_stale_build(j, &id, &idlen))
			continue;
		hmpt_fmt_str(f, k++ ? ",\n      {" : "\n      {");
		kv_str(f, "module", pl->modules[j].name, ", ");
		key(f, "plan_build_id");
		json_build_id(f, pl->modules[j].build_id, pl->modules[j].build_id_len);
		hmpt_fmt_str(f, ", ");
		key(f, "build_id");
		json_build_id(f, id, idlen);
		hmpt_fmt_char(f, '}');
	}
	hmpt_fmt_char(f, ']');
	hmpt_sys_unmap(sums, len);
}

static void write_plan(hmpt_fmt_t *f)
{
	const hmpt_plan_t *pl = hmpt_pools_plan(&hmpt_pools_g);
	const hmpt_topo_t *t = hmpt_pools_topo(&hmpt_pools_g);

	if (!hmpt_pools_active(&hmpt_pools_g))
		return;
	hmpt_fmt_str(f, "  \"plan\": {\n    ");
	kv_str(f, "path", pl->path, ", ");
	kv_str(f, "default_pool", hmpt_plan_pool_name(pl, pl->default_pool), ",\n    ");
	kv_nodes(f, "hbm", &t->hbm, t->hbm_src);
	hmpt_fmt_str(f, ", ");
	kv_nodes(f, "ddr", &t->ddr, t->ddr_src);
	hmpt_fmt_str(f, ",\n    \"pools\": [");
	for (int i = 0; i < pl->npools; i++) {
		const hmpt_plan_pool_t *p = &pl->pools[i];
		hmpt_pool_stats_t st;
		hmpt_pools_stats(&hmpt_pools_g, i, &st);
		hmpt_fmt_str(f, i ? ",\n      {" : "\n      {");
		kv_str(f, "name", p->name, ", ");
		key(f, "nodes");
		json_nodemask(f, &st.nodes);
		hmpt_fmt_str(f, ", ");
		kv_str(f, "policy",
		       p->nodes == HMPT_NODES_NONE ? "none" : hmpt_plan_policy_name(p->policy),
		       ", ");
		kv_str(f, "pages", hmpt_plan_pages_name(p->pages), ", ");
		key(f, "kind");
		if (p->kind >= 0)
			hmpt_fmt_json_str(f, p->backend->kinds[p->kind].name);
		else
			hmpt_fmt_str(f, "null");
		hmpt_fmt_str(f, ", ");
		kv_str(f, "backend", p->backend->name, ", ");
		key(f, "file");
		if (p->file)
			hmpt_fmt_json_str(f, p->file);
		else
			hmpt_fmt_str(f, "null");
		hmpt_fmt_str(f, ", ");
		kv_str(f, "fallback", hmpt_plan_pool_name(pl, p->fallback), ",\n       ");
		key(f, "budget_bytes");
		if (st.budget == UINT64_MAX)
			hmpt_fmt_str(f, "null");
		else
			hmpt_fmt_u64(f, st.budget);
		hmpt_fmt_str(f, ", ");
		kv_str(f, "budget_from", st.budget_from, ", ");
		kv_u64(f, "peak_bytes", st.peak, ",\n       ");
		kv_u64(f, "allocations", st.allocations, ", ");
		kv_u64(f, "bytes", st.bytes, ", ");
		kv_u64(f, "refused", st.refused, ", ");
		kv_u64(f, "refused_bytes", st.refused_bytes, "}");
	}
	hmpt_fmt_str(f, "\n    ]");
	write_plan_matches(f, pl);
	hmpt_fmt_str(f, "\n  },\n");
}

static void kv_hex(hmpt_fmt_t *f, const char *k, uint64_t v, const char *sep)
{
	key(f, k);
	hmpt_fmt_printf(f, "\"0x%" PRIx64 "\"%s", v, sep);
}

/* the sampled totals that shares are taken of: samples with an address
 * (hardware), or bytes first touched (page faults) */
static uint64_t sample_whole_g;

/* what the source in use reports (sources.h) */
static hmpt_sample_caps_t sampled_caps(void)
{
	const hmpt_pmu_setup_t *su = hmpt_sample_setup_used();
	return su ? hmpt_sample_source(su->kind)->caps : (hmpt_sample_caps_t){0};
}

static void write_caps(hmpt_fmt_t *f, const hmpt_sample_caps_t *c)
{
	hmpt_fmt_printf(f,
	                "\"caps\": {\"access_density\": %s, \"first_touch\": %s, \"latency\": %s, "
	                "\"weight\": %s, \"stores\": %s, \"regions\": %s},\n    ",
	                c->access_density ? "true" : "false", c->first_touch ? "true" : "false",
	                c->latency ? "true" : "false", c->weight ? "true" : "false",
	                c->stores ? "true" : "false", c->regions ? "true" : "false");
}

/* Page faults: a site's bytes first touched (faults, and resident pages no
 * fault counted), its observed blocks' scaled by its blocks / observed
 * (sample.h: Horvitz-Thompson; exact while all were observed). */
static uint64_t site_touch_bytes(uint32_t site, const hmpt_sample_site_t *ss)
{
	uint64_t allocs, observed, b = ss->bytes + ss->unseen_bytes;

	hmpt_sample_observed(site, &allocs, &observed);
	if (!observed || allocs <= observed)
		return b;
	return (uint64_t)((unsigned __int128)b * allocs / observed);
}

static void write_sampling(hmpt_fmt_t *f)
{
	const hmpt_pmu_setup_t *su = hmpt_sample_setup_used();
	const hmpt_sample_totals_t *t = hmpt_sample_totals();

	sample_whole_g = 0;
	hmpt_fmt_str(f, "  \"sampling\": ");
	if (!su) {
		hmpt_fmt_str(f, "null,\n");
		return;
	}
	const hmpt_sample_source_t *src = hmpt_sample_source(su->kind);
	hmpt_sample_caps_t caps = src->caps;
	/* the shares are of bytes where the source sees no accesses */
	bool faults = !caps.access_density && caps.first_touch;
	hmpt_fmt_str(f, "{\n    ");
	kv_str(f, "mode", hmpt_sampler_name(su->kind), ", ");
	kv_str(f, "source", hmpt_sampler_name(su->kind), ", ");
	key(f, "access_density");
	hmpt_fmt_str(f, caps.access_density ? "true" : "false");
	hmpt_fmt_str(f, ",\n    ");
	write_caps(f, &caps);
	kv_str(f, "why", hmpt_sample_why(), ",\n    ");
	kv_str(f, "unit", faults ? "bytes first touched" : "sampled accesses", ", ");
	kv_str(f, "model", su->model, ", ");
	kv_u64(f, "period", su->period, ", ");
	kv_u64(f, "ldlat", su->ldlat, ",\n    ");
	kv_str(f, "note", su->note, ",\n    ");
	kv_hex(f, "sample_type", hmpt_sample_type_used(), ",\n    ");
	kv_str(f, "fallbacks", hmpt_sample_fallbacks(), ",\n    ");
	key(f, "ring_room_threads");
	if (hmpt_sample_ring_room() == UINT64_MAX)
		hmpt_fmt_str(f, "null");
	else
		hmpt_fmt_u64(f, hmpt_sample_ring_room());
	hmpt_fmt_str(f, ",\n    ");
	hmpt_fmt_str(f, "\"events\": [");
	for (int i = 0; i < su->nevents; i++) {
		const hmpt_pmu_event_t *e = &su->ev[i];
		hmpt_fmt_str(f, i ? ",\n      {" : "\n      {");
		kv_str(f, "name", e->name, ", ");
		kv_str(f, "source", e->source, ", ");
		kv_u64(f, "type", e->attr.type, ", ");
		kv_hex(f, "config", e->attr.config, ", ");
		kv_hex(f, "config1", e->attr.config1, ", ");
		kv_u64(f, "period", e->attr.sample_period, ", ");
		kv_u64(f, "precise_ip", e->attr.precise_ip, ", ");
		key(f, "leader");
		if (e->leader >= 0)
			hmpt_fmt_i64(f, e->leader);
		else
			hmpt_fmt_str(f, "null");
		hmpt_fmt_str(f, ", ");
		key(f, "samples");
		hmpt_fmt_str(f, !e->sampling ? "false"
		                : e->touches ? "\"first touches\""
		                : e->store   ? "\"stores\""
		                             : "\"loads\"");
		hmpt_fmt_char(f, '}');
	}
	hmpt_fmt_str(f, "],\n    ");
	if (t) {
		uint64_t with_addr =
		    t->attributed + t->attributed_gone + t->untracked + t->gone_unknown;
		uint64_t touched = 0;
		if (caps.first_touch) {
			touched = t->untracked_bytes;
			for (uint32_t i = 0; i < hmpt_sites_count(); i++) {
				const hmpt_sample_site_t *ss = hmpt_sample_site(i);
				if (ss)
					touched += site_touch_bytes(i, ss);
			}
		}
		sample_whole_g = faults ? touched : with_addr;
		kv_u64(f, "threads", t->threads, ", ");
		kv_u64(f, "threads_failed", t->threads_failed, ", ");
		kv_u64(f, "threads_unsampled", t->threads_unsampled, ",\n    ");
		kv_u64(f, "samples", t->ring.samples, ", ");
		kv_u64(f, "attributed", t->attributed, ", ");
		kv_u64(f, "attributed_after_free", t->attributed_gone, ", ");
		kv_u64(f, "untracked", t->untracked, ",\n    ");
		kv_u64(f, "unattributable", t->gone_unknown, ", ");
		kv_u64(f, "no_address", t->no_address, ", ");
		kv_u64(f, "untracked_bytes", t->untracked_bytes, ", ");
		kv_u64(f, "refaults", t->refaults, ", ");
		kv_u64(f, "share_of", sample_whole_g, ",\n    ");
		if (caps.first_touch)
			kv_u64(f, "touched_of", touched, ",\n    ");
		if (src->write_totals)
			src->write_totals(f);
		if (caps.first_touch) {
			key(f, "kernel_touches");
			hmpt_fmt_str(f, hmpt_sample_kernel_touches() ? "true, " : "false, ");
			kv_str(f, "never_counted",
			       "first touches through get_user_pages (process_vm_writev from "
			       "another process, O_DIRECT, RDMA pinning) raise no fault event: "
			       "a block's resident pages that no fault counted are added at its "
			       "free as unseen_bytes",
			       ",\n    ");
			kv_u64(f, "observe_first", HMPT_SAMPLE_OBSERVE_FIRST, ", ");
			kv_u64(f, "observe_every", HMPT_SAMPLE_OBSERVE_EVERY, ", ");
			kv_u64(f, "unobserved_faults", t->unobserved, ", ");
			kv_u64(f, "mthp_size", hmpt_sample_mthp(), ", ");
			kv_u64(f, "mthp_bytes", t->mthp_bytes, ",\n    ");
		}
		kv_u64(f, "lost", t->ring.lost, ", ");
		kv_u64(f, "lost_samples", t->ring.lost_samples, ", ");
		kv_u64(f, "throttled", t->ring.throttled, ", ");
		kv_u64(f, "unthrottled", t->ring.unthrottled, ", ");
		kv_u64(f, "malformed", t->ring.malformed, ", ");
		kv_u64(f, "unknown_records", t->ring.unknown, "\n  },\n");
	} else {
		hmpt_fmt_str(f, "\"samples\": 0\n  },\n");
	}
}

/* the class and the counts it was taken from: they add up across
 * processes, and hmpt-tune classes the sum again (pattern.h) */
static void write_pattern(hmpt_fmt_t *f, const hmpt_pattern_t *p)
{
	hmpt_pattern_class_t c;

	hmpt_pattern_classify(p, &c);
	hmpt_fmt_str(f, "\"pattern\": {");
	kv_str(f, "kind", hmpt_pattern_name(c.kind), ", ");
	kv_u64(f, "stride", c.stride, ", ");
	key(f, "confidence");
	hmpt_fmt_fixed(f, c.confidence, 3);
	hmpt_fmt_str(f, ", ");
	kv_str(f, "order", p->faults ? "first touch" : "samples", ", ");
	kv_u64(f, "steps", p->steps, ", ");
	kv_u64(f, "forward", p->forward, ", ");
	kv_u64(f, "backward", p->backward, ", ");
	kv_u64(f, "adjacent", p->adjacent, ", ");
	kv_u64(f, "checked", p->checked, ", ");
	kv_u64(f, "pointers", p->pointers, ", ");
	hmpt_fmt_str(f, "\"steps_by_value\": [");
	for (int i = 0, k = 0; i < HMPT_PATTERN_CANDS; i++) {
		if (!p->cand.n[i])
			continue;
		hmpt_fmt_str(f, k++ ? ", {" : "{");
		kv_i64(f, "step", p->cand.v[i], ", ");
		kv_u64(f, "n", p->cand.n[i], "}");
	}
	hmpt_fmt_str(f, "]},\n        ");
}

/* the instructions that issued most of a site's samples, as module!offset
 * (hmpt-tune names their function and line); "[kernel]" for the kernel's
 * (a first touch it made for the program: read() into the block) */
static void write_ips(hmpt_fmt_t *f, const hmpt_sample_site_t *ss)
{
	hmpt_fmt_str(f, "\"ips\": [");
	for (int i = 0, k = 0; i < HMPT_PATTERN_CANDS; i++) {
		if (!ss->ips.n[i])
			continue;
		uint64_t ip = (uint64_t)ss->ips.v[i], off;
		const hmpt_module_t *m = hmpt_modules_at((uintptr_t)ip, &off);
		hmpt_fmt_str(f, k++ ? ", {\"at\": \"" : "{\"at\": \"");
		if (ip >= HMPT_KERNEL_IP)
			hmpt_fmt_str(f, "[kernel]");
		else
			hmpt_fmt_printf(f, "%s!0x%" PRIx64, m ? m->name : HMPT_SITEID_NO_MODULE,
			                m ? off : ip);
		hmpt_fmt_str(f, "\", ");
		kv_u64(f, "n", ss->ips.n[i], "}");
	}
	hmpt_fmt_str(f, "], ");
	kv_u64(f, "ips_of", ss->ips_of, "");
}

/* the modules the sampled instructions lie in: listed with the sites' */
static void mark_ip_modules(void)
{
	uint64_t off;

	for (uint32_t i = 0; i < hmpt_sites_count(); i++) {
		const hmpt_sample_site_t *ss = hmpt_sample_site(i);
		for (int k = 0; ss && k < HMPT_PATTERN_CANDS; k++)
			if (ss->ips.n[k])
				hmpt_modules_at((uintptr_t)ss->ips.v[k], &off);
	}
}

static void write_site_samples(hmpt_fmt_t *f, uint32_t site, const hmpt_site_t *s)
{
	const hmpt_sample_site_t *ss = hmpt_sample_site(site);
	hmpt_sample_caps_t c = sampled_caps();
	bool faults = !c.access_density; /* the share is of bytes first touched */

	if (!hmpt_sample_totals())
		return;
	hmpt_fmt_str(f, ",\n      \"samples\": {");
	if (!ss) {
		hmpt_fmt_str(f, "\"n\": 0, \"share\": 0}");
		return;
	}
	kv_u64(f, "n", ss->samples, ", ");
	key(f, "share");
	uint64_t touched = c.first_touch ? site_touch_bytes(site, ss) : 0;
	uint64_t part = faults ? touched : ss->samples;
	hmpt_fmt_fixed(f, sample_whole_g ? (double)part / (double)sample_whole_g : 0.0, 6);
	hmpt_fmt_str(f, ", ");
	key(f, "per_mib");
	uint64_t size = s->st.peak_live ? s->st.peak_live : s->st.max_size;
	if (faults || !size)
		hmpt_fmt_str(f, "null");
	else
		hmpt_fmt_fixed(f, (double)ss->samples / ((double)size / 1048576.0), 3);
	hmpt_fmt_str(f, ", ");
	if (c.first_touch) {
		uint64_t allocs, observed;
		hmpt_sample_observed(site, &allocs, &observed);
		kv_u64(f, "first_touch_bytes", touched, ", ");
		kv_u64(f, "fault_bytes", ss->bytes, ", ");
		kv_u64(f, "unseen_bytes", ss->unseen_bytes, ",\n        ");
		kv_u64(f, "bytes_observed_allocs", observed, ", ");
		kv_u64(f, "bytes_of_allocs", allocs, ", ");
		key(f, "bytes_estimated");
		hmpt_fmt_str(f, allocs > observed ? "true, " : "false, ");
		kv_u64(f, "pages_waiting", ss->node_wait, ",\n        ");
	}
	if (c.access_density) {
		kv_u64(f, "stores", ss->stores, ", ");
		kv_u64(f, "latency_n", ss->lat_n, ", ");
		key(f, "latency_mean");
		if (ss->lat_n)
			hmpt_fmt_fixed(f, (double)ss->lat_sum / (double)ss->lat_n, 1);
		else
			hmpt_fmt_str(f, "null");
		hmpt_fmt_str(f, ",\n        \"latency_hist\": [");
		for (int i = 0; i < HMPT_SAMPLE_LAT_BUCKETS; i++) {
			if (i)
				hmpt_fmt_str(f, ", ");
			hmpt_fmt_u64(f, ss->lat_hist[i]);
		}
		hmpt_fmt_str(f, "], \"levels\": {");
		for (int i = 0; i < HMPT_LEVEL_COUNT; i++)
			kv_u64(f, hmpt_datasrc_level_name((hmpt_level_t)i), ss->level[i],
			       i + 1 < HMPT_LEVEL_COUNT ? ", " : "},\n        ");
	}
	hmpt_fmt_str(f, "\"nodes\": {");
	bool first = true;
	for (int i = 0; i <= HMPT_SAMPLE_NODES + 1; i++) {
		if (!ss->node[i])
			continue;
		hmpt_fmt_str(f, first ? "\"" : ", \"");
		if (i < HMPT_SAMPLE_NODES)
			hmpt_fmt_u64(f, (uint64_t)i);
		else
			hmpt_fmt_str(f, i == HMPT_SAMPLE_NODES ? "other" : "unknown");
		hmpt_fmt_str(f, "\": ");
		hmpt_fmt_u64(f, ss->node[i]);
		first = false;
	}
	hmpt_fmt_str(f, "}, \"threads\": [");
	for (int i = 0; i < HMPT_SAMPLE_TIDS && ss->tid[i]; i++) {
		hmpt_fmt_str(f, i ? ", {" : "{");
		kv_u64(f, "tid", ss->tid[i], ", ");
		kv_u64(f, "n", ss->tid_n[i], "}");
	}
	hmpt_fmt_str(f, "], ");
	kv_u64(f, "other_threads", ss->tid_other, ",\n        ");
	write_pattern(f, &ss->pattern);
	write_ips(f, ss);
	hmpt_fmt_char(f, '}');
}

static void write_sites(hmpt_fmt_t *f, uint32_t n)
{
	hmpt_fmt_str(f, "  \"sites\": [");
	for (uint32_t k = 0; k < n; k++) {
		const hmpt_site_t *s = hmpt_sites_get(order_g[k]);
		hmpt_fmt_str(f, k ? ",\n    {" : "\n    {");
		key(f, "id");
		hmpt_fmt_printf(f, "\"%016" PRIx64 "\",\n      ", s->id);
		key(f, "frames");
		hmpt_fmt_char(f, '[');
		for (uint32_t i = 0; i < s->nframes; i++) {
			if (i)
				hmpt_fmt_str(f, ", ");
			write_frame(f, s, i);
		}
		hmpt_fmt_str(f, "],\n      ");
		if (s->kind == HMPT_SITE_STATIC) {
			kv_str(f, "kind", "static", ", ");
			kv_str(f, "symbol", s->symbol, ", ");
			kv_str(f, "section", s->section, ",\n      ");
		} else {
			kv_str(f, "kind", "heap", ",\n      ");
		}
		kv_u64(f, "allocations", s->st.allocations, ", ");
		kv_u64(f, "bytes", s->st.bytes, ", ");
		kv_u64(f, "max_size", s->st.max_size, ",\n      ");
		kv_u64(f, "peak_live_bytes", s->st.peak_live, ", ");
		kv_u64(f, "live_bytes", s->st.live, ",\n      ");
		kv_sec(f, "first_s", s->st.first_ns, ", ");
		kv_sec(f, "last_s", s->st.last_ns, ", ");
		/* the order the shim first saw the stacks in: a heap site's
		 * is its first allocation's, the tie-break of top:N */
		kv_u64(f, "seq", order_g[k], "");
		write_site_placement(f, order_g[k]);
		write_site_samples(f, order_g[k], s);
		hmpt_fmt_char(f, '}');
	}
	hmpt_fmt_str(f, n ? "\n  ]\n" : "]\n");
}

int hmpt_profile_write_file(const hmpt_profile_info_t *info, char *path, unsigned cap,
                            const char **why)
{
	hmpt_sys_newfile_t nf;
	hmpt_fmt_t f;
	int rc, fd;

	*why = NULL;
	rc = hmpt_profile_path(info->pattern, info->forked, path, cap);
	if (rc)
		return rc;
	fd = hmpt_sys_newfile_open(&nf, path, 0644);
	if (fd < 0) {
		*why = nf.why;
		return fd;
	}

	hmpt_fmt_init(&f, out_buf_g, sizeof(out_buf_g), fd);
	hmpt_fmt_str(&f, "{\n  \"format\": \"" HMPT_PROFILE_FORMAT "\",\n  \"format_version\": ");
	hmpt_fmt_u64(&f, HMPT_PROFILE_VERSION);
	hmpt_fmt_str(&f, ",\n  ");
	key(&f, "hmpt_version");
	hmpt_fmt_json_str(&f, HMPT_VERSION);
	hmpt_fmt_str(&f, ",\n");
	write_process(&f, info);
	hmpt_fmt_str(&f, "  \"settings\": {");
	kv_u64(&f, "min_size", info->min_size, ", ");
	kv_u64(&f, "stack_depth", hmpt_sites_depth(), ", ");
	kv_u64(&f, "arena_bytes", info->arena_bytes, "},\n");
	write_plan(&f);
	hmpt_sample_lock();
	mark_ip_modules();
	hmpt_sample_unlock();
	write_modules(&f);
	write_totals(&f);
	hmpt_sample_lock();
	write_sampling(&f);
	write_sites(&f, sort_sites());
	hmpt_sample_unlock();
	hmpt_fmt_str(&f, "}\n");
	rc = hmpt_fmt_flush(&f);
	if (rc == 0 && f.failed)
		rc = -EIO;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	nf.fd = -1;
	if (rc) {
		hmpt_sys_newfile_abort(&nf);
		return rc;
	}
	rc = hmpt_sys_newfile_commit(&nf);
	*why = nf.why;
	return rc;
}
