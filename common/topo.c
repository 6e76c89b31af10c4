/* topo.c — see topo.h.  Everything comes from sysfs text files, read with
 * open/read and listed with getdents64: no malloc, usable inside malloc. */
#include "topo.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys.h"

#define NODE_DIR "/sys/devices/system/node"
#define TIER_DIR "/sys/devices/virtual/memory_tiering"

/* ------------------------------------------------------------ nodemasks */

bool hmpt_nodemask_empty(const hmpt_nodemask_t *m)
{
	for (unsigned i = 0; i < HMPT_MAX_NODES / 64; i++)
		if (m->w[i])
			return false;
	return true;
}

unsigned hmpt_nodemask_weight(const hmpt_nodemask_t *m)
{
	unsigned n = 0;

	for (unsigned i = 0; i < HMPT_MAX_NODES / 64; i++)
		n += (unsigned)__builtin_popcountll(m->w[i]);
	return n;
}

int hmpt_nodemask_next(const hmpt_nodemask_t *m, int n)
{
	for (int i = n + 1; i < HMPT_MAX_NODES; i++)
		if (hmpt_nodemask_has(m, (unsigned)i))
			return i;
	return -1;
}

int hmpt_nodemask_first(const hmpt_nodemask_t *m)
{
	return hmpt_nodemask_next(m, -1);
}

bool hmpt_nodemask_equal(const hmpt_nodemask_t *a, const hmpt_nodemask_t *b)
{
	return memcmp(a->w, b->w, sizeof(a->w)) == 0;
}

bool hmpt_nodemask_subset(const hmpt_nodemask_t *a, const hmpt_nodemask_t *b)
{
	for (unsigned i = 0; i < HMPT_MAX_NODES / 64; i++)
		if (a->w[i] & ~b->w[i])
			return false;
	return true;
}

static void say(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t errlen, const char *fmt, ...)
{
	hmpt_fmt_t f;
	va_list ap;

	if (!err || !errlen)
		return;
	hmpt_fmt_init(&f, err, errlen, -1);
	va_start(ap, fmt);
	hmpt_fmt_vprintf(&f, fmt, ap);
	va_end(ap);
	hmpt_fmt_cstr(&f);
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* one decimal number at *p; -1 if none, -2 if too large */
static long number(const char **p)
{
	long v = 0;

	if (**p < '0' || **p > '9')
		return -1;
	while (**p >= '0' && **p <= '9') {
		v = v * 10 + (**p - '0');
		if (v > 1000000)
			return -2;
		(*p)++;
	}
	return v;
}

int hmpt_nodemask_parse(const char *s, hmpt_nodemask_t *m, char *err, size_t errlen)
{
	const char *p = s;

	memset(m, 0, sizeof(*m));
	while (space(*p))
		p++;
	if (!*p)
		return 0;
	for (;;) {
		while (space(*p))
			p++;
		const char *item = p;
		long a = number(&p), b;
		if (a == -1) {
			char bad[2] = {*p, 0};
			say(err, errlen, "expected a node number at '%s'", *p ? bad : "the end");
			return -EINVAL;
		}
		b = a;
		while (space(*p))
			p++;
		if (*p == '-') {
			p++;
			while (space(*p))
				p++;
			b = number(&p);
			if (b == -1) {
				say(err, errlen, "a range needs an end, as in 0-3");
				return -EINVAL;
			}
			if (a >= 0 && b >= 0 && b < a) {
				say(err, errlen, "a range must go upwards, as in 1-3");
				return -EINVAL;
			}
		}
		if (a < 0 || b < 0 || b >= HMPT_MAX_NODES) {
			(void)item;
			say(err, errlen, "node numbers go up to 127");
			return -ERANGE;
		}
		for (long n = a; n <= b; n++)
			hmpt_nodemask_set(m, (unsigned)n);
		while (space(*p))
			p++;
		if (!*p)
			return 0;
		if (*p != ',') {
			char bad[2] = {*p, 0};
			say(err, errlen, "expected ',' or the end at '%s'", bad);
			return -EINVAL;
		}
		p++;
	}
}

void hmpt_nodemask_format(hmpt_fmt_t *f, const hmpt_nodemask_t *m)
{
	bool first = true;

	for (int n = hmpt_nodemask_first(m); n >= 0;) {
		int end = n;
		while (hmpt_nodemask_has(m, (unsigned)end + 1))
			end++;
		hmpt_fmt_printf(f, "%s%d", first ? "" : ",", n);
		if (end > n)
			hmpt_fmt_printf(f, "-%d", end);
		first = false;
		n = hmpt_nodemask_next(m, end);
	}
}

/* ------------------------------------------------------------- reading */

/* root + parts, into buf */
static const char *path(char *buf, size_t cap, const char *root, const char *a, long n,
                        const char *b)
{
	if (n < 0)
		return hmpt_fmt_text(buf, cap, "%s%s", root, a);
	return hmpt_fmt_text(buf, cap, "%s%s%ld%s", root, a, n, b);
}

static int read_text(const char *p, char *buf, size_t cap)
{
	ssize_t n = hmpt_sys_read_file(p, buf, cap);
	return n < 0 ? (int)n : 0;
}

static int read_mask(const char *p, hmpt_nodemask_t *m)
{
	char buf[4096];

	if (read_text(p, buf, sizeof(buf)) != 0)
		return -ENOENT;
	return hmpt_nodemask_parse(buf, m, NULL, 0);
}

/* A CPU list ("0-3,8") into cpu_node[] = node. */
static void read_cpulist(hmpt_topo_t *t, const char *p, int node)
{
	char buf[8192];
	const char *s = buf;

	if (read_text(p, buf, sizeof(buf)) != 0)
		return;
	while (*s) {
		while (space(*s) || *s == ',')
			s++;
		long a = number(&s), b;
		if (a < 0)
			break;
		b = a;
		if (*s == '-') {
			s++;
			b = number(&s);
			if (b < a)
				break;
		}
		for (long c = a; c <= b && c < HMPT_MAX_CPUS; c++) {
			t->cpu_node[c] = (int16_t)node;
			if (c + 1 > t->ncpus)
				t->ncpus = (int)c + 1;
		}
	}
}

/* The numbers K of the "<prefix>K" entries of a directory, for each(K). */
static void list_numbered(const char *dir, const char *prefix, void (*each)(long k, void *ctx),
                          void *ctx)
{
	char buf[4096];
	size_t plen = strlen(prefix);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			/* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			const char *name = buf + off + 19;
			if (strncmp(name, prefix, plen) == 0) {
				const char *d = name + plen;
				long k = number(&d);
				if (k >= 0 && !*d)
					each(k, ctx);
			}
			off += reclen;
		}
	}
	close(fd);
}

static void add_node(long k, void *ctx)
{
	if (k < HMPT_MAX_NODES)
		hmpt_nodemask_set(ctx, (unsigned)k);
}

/* The "nodeK" entries of a directory into m. */
static void list_nodes(const char *dir, hmpt_nodemask_t *m)
{
	list_numbered(dir, "node", add_node, m);
}

/* memory_tierN, kept in ascending N (the directory is not sorted) */
static void add_ktier(long k, void *ctx)
{
	hmpt_topo_t *t = ctx;
	int i = t->nktiers;

	if (i == HMPT_MAX_TIERS || k > 100000)
		return;
	for (; i > 0 && t->ktier_id[i - 1] > k; i--)
		t->ktier_id[i] = t->ktier_id[i - 1];
	t->ktier_id[i] = (int)k;
	t->nktiers++;
}

static void read_kernel_tiers(hmpt_topo_t *t, const char *root)
{
	char p[512];
	int n = 0;

	list_numbered(path(p, sizeof(p), root, TIER_DIR, -1, NULL), "memory_tier", add_ktier, t);
	/* keep the tiers that name online memory nodes */
	for (int i = 0; i < t->nktiers; i++) {
		hmpt_nodemask_t m;
		if (read_mask(path(p, sizeof(p), root, TIER_DIR "/memory_tier", t->ktier_id[i],
		                   "/nodelist"),
		              &m) != 0)
			continue;
		for (unsigned w = 0; w < HMPT_MAX_NODES / 64; w++)
			m.w[w] &= t->memory.w[w];
		if (hmpt_nodemask_empty(&m))
			continue;
		t->ktier_id[n] = t->ktier_id[i];
		t->ktier[n++] = m;
	}
	t->nktiers = n;
}

static void read_hmat(hmpt_topo_t *t, const char *root, int n)
{
	static const char *const access[] = {"/access1/initiators", "/access0/initiators"};
	hmpt_node_t *nd = &t->node[n];
	char p[512], d[512];
	uint64_t v;

	for (unsigned a = 0; a < 2; a++) {
		path(d, sizeof(d), root, NODE_DIR "/node", n, access[a]);
		if (hmpt_sys_read_u64(hmpt_fmt_text(p, sizeof(p), "%s/read_bandwidth", d), &v) != 0)
			continue;
		nd->read_bw = (uint32_t)v;
		if (hmpt_sys_read_u64(hmpt_fmt_text(p, sizeof(p), "%s/read_latency", d), &v) == 0)
			nd->read_lat = (uint32_t)v;
		list_nodes(d, &nd->initiators);
		return;
	}
}

static void read_distances(hmpt_topo_t *t, const char *root, int n)
{
	char p[512], buf[4096];
	const char *s = buf;
	int to = hmpt_nodemask_first(&t->online);

	if (read_text(path(p, sizeof(p), root, NODE_DIR "/node", n, "/distance"), buf,
	              sizeof(buf)) != 0)
		return;
	/* one number per online node, in the order of the node numbers */
	while (to >= 0) {
		while (space(*s))
			s++;
		long d = number(&s);
		if (d < 0)
			break;
		t->distance[n][to] = (uint8_t)(d > 255 ? 255 : d);
		to = hmpt_nodemask_next(&t->online, to);
	}
}

static void read_thp(hmpt_topo_t *t, const char *root)
{
	char p[512], buf[256];
	const char *l, *r;

	t->thp[0] = '\0';
	if (read_text(
	        path(p, sizeof(p), root, "/sys/kernel/mm/transparent_hugepage/enabled", -1, NULL),
	        buf, sizeof(buf)) != 0)
		return;
	l = strchr(buf, '[');
	r = l ? strchr(l, ']') : NULL;
	if (l && r && (size_t)(r - l - 1) < sizeof(t->thp)) {
		memcpy(t->thp, l + 1, (size_t)(r - l - 1));
		t->thp[r - l - 1] = '\0';
	}
}

/* No NUMA in the kernel: one node 0 with everything. */
static int read_flat(hmpt_topo_t *t, const char *root)
{
	char p[512], buf[8192];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (read_text(path(p, sizeof(p), root, "/proc/meminfo", -1, NULL), buf, sizeof(buf)) != 0)
		return -ENOENT;
	hmpt_nodemask_set(&t->online, 0);
	hmpt_nodemask_set(&t->cpu, 0);
	hmpt_nodemask_set(&t->memory, 0);
	t->max_node = 0;
	t->node[0].mem_total = hmpt_sys_meminfo_kb(buf, "MemTotal:") * 1024;
	t->node[0].mem_free = hmpt_sys_meminfo_kb(buf, "MemFree:") * 1024;
	t->distance[0][0] = 10;
	read_cpulist(t, path(p, sizeof(p), root, "/sys/devices/system/cpu/online", -1, NULL), 0);
	if (t->ncpus == 0 && ncpu > 0)
		for (long c = 0; c < ncpu && c < HMPT_MAX_CPUS; c++)
			t->cpu_node[c] = 0, t->ncpus = (int)c + 1;
	return 0;
}

int hmpt_topo_read(hmpt_topo_t *t, const char *root)
{
	char p[512], buf[8192];
	uint64_t v;

	memset(t, 0, sizeof(*t));
	t->max_node = -1;
	for (int c = 0; c < HMPT_MAX_CPUS; c++)
		t->cpu_node[c] = -1;
	read_thp(t, root);
	if (hmpt_sys_read_u64(path(p, sizeof(p), root,
	                           "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", -1,
	                           NULL),
	                      &v) == 0)
		t->huge_total = v;
	if (hmpt_sys_read_u64(path(p, sizeof(p), root,
	                           "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", -1,
	                           NULL),
	                      &v) == 0)
		t->huge_free_total = v;
	if (read_mask(path(p, sizeof(p), root, NODE_DIR "/online", -1, NULL), &t->online) != 0)
		return read_flat(t, root);
	if (read_mask(path(p, sizeof(p), root, NODE_DIR "/has_cpu", -1, NULL), &t->cpu) != 0)
		t->cpu = t->online;
	if (read_mask(path(p, sizeof(p), root, NODE_DIR "/has_memory", -1, NULL), &t->memory) != 0)
		t->memory = t->online;
	for (int n = hmpt_nodemask_first(&t->online); n >= 0;
	     n = hmpt_nodemask_next(&t->online, n)) {
		hmpt_node_t *nd = &t->node[n];
		t->max_node = n;
		if (read_text(path(p, sizeof(p), root, NODE_DIR "/node", n, "/meminfo"), buf,
		              sizeof(buf)) == 0) {
			nd->mem_total = hmpt_sys_meminfo_kb(buf, "MemTotal:") * 1024;
			nd->mem_free = hmpt_sys_meminfo_kb(buf, "MemFree:") * 1024;
		}
		if (hmpt_sys_read_u64(path(p, sizeof(p), root, NODE_DIR "/node", n,
		                           "/hugepages/hugepages-2048kB/nr_hugepages"),
		                      &v) == 0)
			nd->huge_total = v;
		if (hmpt_sys_read_u64(path(p, sizeof(p), root, NODE_DIR "/node", n,
		                           "/hugepages/hugepages-2048kB/free_hugepages"),
		                      &v) == 0)
			nd->huge_free = v;
		read_cpulist(t, path(p, sizeof(p), root, NODE_DIR "/node", n, "/cpulist"), n);
		read_distances(t, root, n);
		read_hmat(t, root, n);
	}
	/* has_memory may name nodes that are not online: keep only online ones */
	for (int n = hmpt_nodemask_first(&t->memory); n >= 0; n = hmpt_nodemask_next(&t->memory, n))
		if (!hmpt_nodemask_has(&t->online, (unsigned)n))
			t->memory.w[n / 64] &= ~(1ull << (n % 64));
	read_kernel_tiers(t, root);
	return 0;
}

/* ---------------------------------------------------------- classify */

const char *hmpt_topo_src_name(hmpt_topo_src_t s)
{
	static const char *const names[] = {"not found", "environment", "plan",
	                                    "HMAT",      "memkind",     "nodes with CPUs"};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* An explicit list: parsed (env) or given (plan), every node online with
 * memory. */
static int explicit_list(const hmpt_topo_t *t, const char *env, const char *env_name,
                         const hmpt_nodemask_t *plan, const char *plan_name, hmpt_nodemask_t *out,
                         char *err, size_t errlen)
{
	char why[160];
	hmpt_fmt_t f;

	if (env) {
		int bad = hmpt_nodemask_parse(env, out, why, sizeof(why));
		if (bad || hmpt_nodemask_empty(out)) {
			/* with !bad (white space only) `why` is not filled */
			hmpt_fmt_text(err, errlen, "%s=%s: expected a node list such as 2-3%s%s%s",
			              env_name, env, bad ? " (" : "", bad ? why : "",
			              bad ? ")" : "");
			return -EINVAL;
		}
	} else {
		*out = *plan;
	}
	for (int n = hmpt_nodemask_first(out); n >= 0; n = hmpt_nodemask_next(out, n))
		if (!hmpt_nodemask_has(&t->memory, (unsigned)n)) {
			hmpt_fmt_init(&f, err, errlen, -1);
			if (env)
				hmpt_fmt_printf(&f, "%s=%s", env_name, env);
			else
				hmpt_fmt_str(&f, plan_name);
			hmpt_fmt_printf(
			    &f,
			    ": node %d is not an online node with memory (online nodes with "
			    "memory: ",
			    n);
			hmpt_nodemask_format(&f, &t->memory);
			hmpt_fmt_char(&f, ')');
			hmpt_fmt_cstr(&f);
			return -EINVAL;
		}
	return 0;
}

void hmpt_topo_local_of(const hmpt_topo_t *t, int c, const hmpt_nodemask_t *cls,
                        hmpt_nodemask_t *out)
{
	unsigned best = 256;

	memset(out, 0, sizeof(*out));
	for (int n = hmpt_nodemask_first(cls); n >= 0; n = hmpt_nodemask_next(cls, n))
		if (hmpt_nodemask_has(&t->node[n].initiators, (unsigned)c))
			hmpt_nodemask_set(out, (unsigned)n);
	if (!hmpt_nodemask_empty(out))
		return;
	for (int n = hmpt_nodemask_first(cls); n >= 0; n = hmpt_nodemask_next(cls, n))
		if (t->distance[c][n] && t->distance[c][n] < best)
			best = t->distance[c][n];
	for (int n = hmpt_nodemask_first(cls); n >= 0; n = hmpt_nodemask_next(cls, n))
		if (best == 256 || t->distance[c][n] == best)
			hmpt_nodemask_set(out, (unsigned)n);
}

static void classify_tiers(hmpt_topo_t *t);
static bool faster(const hmpt_node_t *a, const hmpt_node_t *b);

/* The probe's HBM and every node that HMAT rates as fast as one of them:
 * memkind names one node of four equal ones on an A64FX-like machine
 * (memkind#765 is about such a machine); a node set that HMAT does not
 * tell apart is all HBM or none.  Only where HMAT covers every memory
 * node. */
static void hbm_like_hmat(hmpt_topo_t *t)
{
	hmpt_nodemask_t named = t->hbm;

	for (int n = hmpt_nodemask_first(&t->memory); n >= 0; n = hmpt_nodemask_next(&t->memory, n))
		if (!t->node[n].read_bw)
			return;
	for (int n = hmpt_nodemask_first(&t->memory); n >= 0; n = hmpt_nodemask_next(&t->memory, n))
		for (int k = hmpt_nodemask_first(&named); k >= 0; k = hmpt_nodemask_next(&named, k))
			if (!faster(&t->node[n], &t->node[k]) && !faster(&t->node[k], &t->node[n]))
				hmpt_nodemask_set(&t->hbm, (unsigned)n);
}

int hmpt_topo_classify(hmpt_topo_t *t, const hmpt_topo_hints_t *h, char *err, size_t errlen)
{
	int rc;

	memset(&t->hbm, 0, sizeof(t->hbm));
	memset(&t->ddr, 0, sizeof(t->ddr));
	t->hbm_src = t->ddr_src = HMPT_TOPO_SRC_NONE;
	if (h->hbm_env || h->hbm_plan) {
		rc = explicit_list(t, h->hbm_env, "HMPT_HBM_NODES", h->hbm_plan,
		                   "the plan's hbm_nodes", &t->hbm, err, errlen);
		if (rc)
			return rc;
		t->hbm_src = h->hbm_env ? HMPT_TOPO_SRC_ENV : HMPT_TOPO_SRC_PLAN;
	}
	if (t->hbm_src == HMPT_TOPO_SRC_NONE) {
		uint32_t ddr_bw = 0;
		for (int n = hmpt_nodemask_first(&t->memory); n >= 0;
		     n = hmpt_nodemask_next(&t->memory, n))
			if (hmpt_nodemask_has(&t->cpu, (unsigned)n) && t->node[n].read_bw > ddr_bw)
				ddr_bw = t->node[n].read_bw;
		for (int n = hmpt_nodemask_first(&t->memory); ddr_bw && n >= 0;
		     n = hmpt_nodemask_next(&t->memory, n))
			if (!hmpt_nodemask_has(&t->cpu, (unsigned)n) && t->node[n].read_bw > ddr_bw)
				hmpt_nodemask_set(&t->hbm, (unsigned)n);
		if (!hmpt_nodemask_empty(&t->hbm))
			t->hbm_src = HMPT_TOPO_SRC_HMAT;
	}
	if (t->hbm_src == HMPT_TOPO_SRC_NONE && h->probe) {
		hmpt_nodemask_t m = {{0}};
		if (h->probe(&m, h->probe_ctx) == 0 && hmpt_nodemask_subset(&m, &t->memory) &&
		    !hmpt_nodemask_empty(&m)) {
			t->hbm = m;
			t->hbm_src = HMPT_TOPO_SRC_PROBE;
			hbm_like_hmat(t);
		}
	}
	if (h->ddr_env || h->ddr_plan) {
		rc = explicit_list(t, h->ddr_env, "HMPT_DDR_NODES", h->ddr_plan,
		                   "the plan's ddr_nodes", &t->ddr, err, errlen);
		if (rc)
			return rc;
		t->ddr_src = h->ddr_env ? HMPT_TOPO_SRC_ENV : HMPT_TOPO_SRC_PLAN;
	} else {
		for (unsigned i = 0; i < HMPT_MAX_NODES / 64; i++)
			t->ddr.w[i] = t->memory.w[i] & t->cpu.w[i] & ~t->hbm.w[i];
		t->ddr_src = hmpt_nodemask_empty(&t->ddr) ? HMPT_TOPO_SRC_NONE : HMPT_TOPO_SRC_CPUS;
	}
	for (int c = hmpt_nodemask_first(&t->cpu); c >= 0; c = hmpt_nodemask_next(&t->cpu, c)) {
		hmpt_topo_local_of(t, c, &t->hbm, &t->local_hbm[c]);
		if (hmpt_nodemask_has(&t->ddr, (unsigned)c)) {
			memset(&t->local_ddr[c], 0, sizeof(t->local_ddr[c]));
			hmpt_nodemask_set(&t->local_ddr[c], (unsigned)c);
		} else {
			hmpt_topo_local_of(t, c, &t->ddr, &t->local_ddr[c]);
		}
	}
	classify_tiers(t);
	return 0;
}

/* ------------------------------------------------------------- tiers */

/* Append a tier (the last one takes the rest when the table is full). */
static void tier_add(hmpt_topo_t *t, const hmpt_nodemask_t *m, int kid)
{
	if (t->ntiers == HMPT_MAX_TIERS) {
		for (unsigned w = 0; w < HMPT_MAX_NODES / 64; w++)
			t->tier[HMPT_MAX_TIERS - 1].w[w] |= m->w[w];
		return;
	}
	t->tier[t->ntiers] = *m;
	t->tier_kid[t->ntiers++] = kid;
}

/* a is within an eighth of b: HMAT figures of one kind of memory differ a
 * little between nodes (SNC clusters, DIMM population) */
static bool near(uint32_t a, uint32_t b)
{
	uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
	return hi * 7 <= lo * 8;
}

/* Does node a come before node b: more bandwidth, else less latency. */
static bool faster(const hmpt_node_t *a, const hmpt_node_t *b)
{
	if (!near(a->read_bw, b->read_bw))
		return a->read_bw > b->read_bw;
	return a->read_lat && b->read_lat && !near(a->read_lat, b->read_lat) &&
	       a->read_lat < b->read_lat;
}

/* The nodes of m in HMAT groups, fastest first, as tiers: the number added
 * (0 when a node of m has no HMAT bandwidth: nothing is added) */
static int tiers_by_hmat(hmpt_topo_t *t, const hmpt_nodemask_t *m, int kid)
{
	int order[HMPT_MAX_NODES], n = 0, groups = 0;

	for (int k = hmpt_nodemask_first(m); k >= 0; k = hmpt_nodemask_next(m, k)) {
		if (!t->node[k].read_bw)
			return 0;
		int i = n++;
		for (; i > 0 && faster(&t->node[k], &t->node[order[i - 1]]); i--)
			order[i] = order[i - 1];
		order[i] = k;
	}
	for (int i = 0; i < n;) {
		hmpt_nodemask_t g = {{0}};
		int lead = order[i];
		for (; i < n && !faster(&t->node[lead], &t->node[order[i]]); i++)
			hmpt_nodemask_set(&g, (unsigned)order[i]);
		tier_add(t, &g, kid);
		groups++;
	}
	return groups;
}

/* SLIT: the nodes of m with CPUs (at their local distance), then the
 * CPU-less ones by their distance from the nearest CPU node, as tiers: the
 * number added */
static int tiers_by_slit(hmpt_topo_t *t, const hmpt_nodemask_t *m, int kid)
{
	hmpt_nodemask_t rest = {{0}}, near_cpus = {{0}};
	unsigned dist[HMPT_MAX_NODES];
	int groups = 0;

	for (unsigned w = 0; w < HMPT_MAX_NODES / 64; w++) {
		near_cpus.w[w] = m->w[w] & t->cpu.w[w];
		rest.w[w] = m->w[w] & ~t->cpu.w[w];
	}
	if (!hmpt_nodemask_empty(&near_cpus)) {
		tier_add(t, &near_cpus, kid);
		groups++;
	}
	for (int n = hmpt_nodemask_first(&rest); n >= 0; n = hmpt_nodemask_next(&rest, n)) {
		dist[n] = 256; /* unknown: last */
		for (int c = hmpt_nodemask_first(&t->cpu); c >= 0;
		     c = hmpt_nodemask_next(&t->cpu, c))
			if (t->distance[c][n] && t->distance[c][n] < dist[n])
				dist[n] = t->distance[c][n];
	}
	while (!hmpt_nodemask_empty(&rest)) {
		hmpt_nodemask_t g = {{0}};
		unsigned best = 257;
		for (int n = hmpt_nodemask_first(&rest); n >= 0; n = hmpt_nodemask_next(&rest, n))
			best = dist[n] < best ? dist[n] : best;
		for (int n = hmpt_nodemask_first(&rest); n >= 0; n = hmpt_nodemask_next(&rest, n))
			if (dist[n] == best)
				hmpt_nodemask_set(&g, (unsigned)n);
		for (unsigned w = 0; w < HMPT_MAX_NODES / 64; w++)
			rest.w[w] &= ~g.w[w];
		tier_add(t, &g, kid);
		groups++;
	}
	return groups;
}

/* HBM that the environment, the plan or the probe names goes first, out of
 * whatever tier held it, unless it is tier 0 already. */
static void tiers_hbm_first(hmpt_topo_t *t)
{
	int n = 0;

	if (t->hbm_src != HMPT_TOPO_SRC_ENV && t->hbm_src != HMPT_TOPO_SRC_PLAN &&
	    t->hbm_src != HMPT_TOPO_SRC_PROBE)
		return;
	if (hmpt_nodemask_empty(&t->hbm) || hmpt_nodemask_equal(&t->tier[0], &t->hbm))
		return;
	for (int i = 0; i < t->ntiers; i++) {
		for (unsigned w = 0; w < HMPT_MAX_NODES / 64; w++)
			t->tier[i].w[w] &= ~t->hbm.w[w];
		if (!hmpt_nodemask_empty(&t->tier[i])) {
			t->tier_kid[n] = t->tier_kid[i];
			t->tier[n++] = t->tier[i];
		}
	}
	if (n == HMPT_MAX_TIERS) { /* the last two become one */
		for (unsigned w = 0; w < HMPT_MAX_NODES / 64; w++)
			t->tier[n - 2].w[w] |= t->tier[n - 1].w[w];
		n--;
	}
	memmove(&t->tier[1], &t->tier[0], (size_t)n * sizeof(t->tier[0]));
	memmove(&t->tier_kid[1], &t->tier_kid[0], (size_t)n * sizeof(t->tier_kid[0]));
	t->tier[0] = t->hbm;
	t->tier_kid[0] = -1;
	t->ntiers = n + 1;
	t->tier_hbm_first = t->hbm_src;
}

/* The tiers of m, by HMAT where it covers every node of m, else by SLIT;
 * the source that split it in more than one, or NONE */
static hmpt_tier_src_t tiers_split(hmpt_topo_t *t, const hmpt_nodemask_t *m, int kid)
{
	int n = tiers_by_hmat(t, m, kid);

	if (n)
		return n > 1 ? HMPT_TIER_SRC_HMAT : HMPT_TIER_SRC_NONE;
	return tiers_by_slit(t, m, kid) > 1 ? HMPT_TIER_SRC_SLIT : HMPT_TIER_SRC_NONE;
}

static void classify_tiers(hmpt_topo_t *t)
{
	hmpt_nodemask_t seen = {{0}}, m;

	t->ntiers = 0;
	t->tier_src = HMPT_TIER_SRC_NONE;
	t->tier_hbm_first = HMPT_TOPO_SRC_NONE;
	if (hmpt_nodemask_empty(&t->memory))
		return;
	if (!t->nktiers) {
		/* HMAT where it covers every memory node, even in one tier */
		t->tier_src =
		    tiers_by_hmat(t, &t->memory, -1) ? HMPT_TIER_SRC_HMAT : HMPT_TIER_SRC_SLIT;
		if (t->tier_src == HMPT_TIER_SRC_SLIT)
			tiers_by_slit(t, &t->memory, -1);
		tiers_hbm_first(t);
		return;
	}
	t->tier_src = HMPT_TIER_SRC_KERNEL;
	for (int i = 0; i <= t->nktiers; i++) {
		/* after the kernel's: memory it has not tiered (yet) */
		for (unsigned w = 0; w < HMPT_MAX_NODES / 64; w++) {
			m.w[w] = (i < t->nktiers ? t->ktier[i].w[w] : t->memory.w[w]) & ~seen.w[w];
			seen.w[w] |= m.w[w];
		}
		if (hmpt_nodemask_empty(&m))
			continue;
		hmpt_tier_src_t by = tiers_split(t, &m, i < t->nktiers ? t->ktier_id[i] : -1);
		if (by == HMPT_TIER_SRC_HMAT)
			t->tier_src = HMPT_TIER_SRC_KERNEL_HMAT;
		else if (by == HMPT_TIER_SRC_SLIT && t->tier_src == HMPT_TIER_SRC_KERNEL)
			t->tier_src = HMPT_TIER_SRC_KERNEL_SLIT;
	}
	tiers_hbm_first(t);
}

int hmpt_topo_tier_index(const hmpt_topo_t *t, int want)
{
	if (want == -1 && t->ntiers)
		return t->ntiers - 1;
	return want >= 0 && want < t->ntiers ? want : -ERANGE;
}

const char *hmpt_topo_tier_src_name(hmpt_tier_src_t s)
{
	static const char *const names[] = {"none",
	                                    "kernel memory tiers",
	                                    "kernel memory tiers split by HMAT",
	                                    "kernel memory tiers split by SLIT distances",
	                                    "HMAT",
	                                    "SLIT distances"};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

void hmpt_topo_describe_tiers(hmpt_fmt_t *f, const hmpt_topo_t *t)
{
	if (!t->ntiers) {
		hmpt_fmt_str(f, "no memory tiers (no memory nodes)");
		return;
	}
	hmpt_fmt_printf(f, "memory tiers, fastest first (%s", hmpt_topo_tier_src_name(t->tier_src));
	if (t->tier_hbm_first != HMPT_TOPO_SRC_NONE)
		hmpt_fmt_printf(f, "; HBM first, named by %s",
		                hmpt_topo_src_name(t->tier_hbm_first));
	hmpt_fmt_str(f, "):");
	for (int i = 0; i < t->ntiers; i++) {
		uint32_t bw = UINT32_MAX;
		const hmpt_nodemask_t *m = &t->tier[i];
		hmpt_fmt_printf(f, "%s %d: nodes ", i ? "," : "", i);
		hmpt_nodemask_format(f, m);
		for (int n = hmpt_nodemask_first(m); n >= 0; n = hmpt_nodemask_next(m, n))
			bw = t->node[n].read_bw < bw ? t->node[n].read_bw : bw;
		if (t->tier_kid[i] >= 0 || (bw && bw != UINT32_MAX)) {
			hmpt_fmt_str(f, " (");
			if (t->tier_kid[i] >= 0)
				hmpt_fmt_printf(f, "memory_tier%d%s", t->tier_kid[i],
				                bw ? ", " : "");
			if (bw)
				hmpt_fmt_printf(f, "%u MB/s", bw);
			hmpt_fmt_char(f, ')');
		}
	}
	if ((t->tier_src == HMPT_TIER_SRC_SLIT || t->tier_src == HMPT_TIER_SRC_KERNEL_SLIT) &&
	    t->ntiers > 1 && t->tier_hbm_first == HMPT_TOPO_SRC_NONE)
		hmpt_fmt_str(f, "; without HMAT, CPU-less nodes rank by distance: HBM and CXL "
		                "look alike (name HBM with HMPT_HBM_NODES)");
}

int hmpt_topo_current_node(const hmpt_topo_t *t)
{
	int cpu = sched_getcpu();

	return cpu >= 0 && cpu < HMPT_MAX_CPUS ? t->cpu_node[cpu] : -1;
}

void hmpt_topo_describe(hmpt_fmt_t *f, const hmpt_topo_t *t)
{
	if (hmpt_nodemask_empty(&t->hbm)) {
		hmpt_fmt_str(
		    f, "no HBM nodes found (no HMAT bandwidth above DDR's, none from memkind; "
		       "set HMPT_HBM_NODES)");
	} else {
		hmpt_fmt_str(f, "HBM nodes ");
		hmpt_nodemask_format(f, &t->hbm);
		hmpt_fmt_printf(f, " (%s", hmpt_topo_src_name(t->hbm_src));
		if (t->hbm_src == HMPT_TOPO_SRC_HMAT) {
			uint32_t hbw = 0, dbw = 0;
			for (int n = 0; n < HMPT_MAX_NODES; n++) {
				uint32_t bw = t->node[n].read_bw;
				if (hmpt_nodemask_has(&t->hbm, (unsigned)n) && bw > hbw)
					hbw = bw;
				else if (hmpt_nodemask_has(&t->cpu, (unsigned)n) && bw > dbw)
					dbw = bw;
			}
			hmpt_fmt_printf(f, ": CPU-less, %u MB/s against %u MB/s", hbw, dbw);
		}
		hmpt_fmt_char(f, ')');
	}
	hmpt_fmt_str(f, ", DDR nodes ");
	if (hmpt_nodemask_empty(&t->ddr))
		hmpt_fmt_str(f, "none");
	else
		hmpt_nodemask_format(f, &t->ddr);
	hmpt_fmt_printf(f, " (%s)", hmpt_topo_src_name(t->ddr_src));
	if (!hmpt_nodemask_empty(&t->hbm)) {
		hmpt_fmt_str(f, "; local HBM:");
		for (int c = hmpt_nodemask_first(&t->cpu); c >= 0;
		     c = hmpt_nodemask_next(&t->cpu, c)) {
			hmpt_fmt_printf(f, " %d->", c);
			hmpt_nodemask_format(f, &t->local_hbm[c]);
		}
	}
}
