/* plan.c — see plan.h.  Every rule here is a sentence of
 * docs/plan-format.md; keep the two in step (tests/unit/test_plan.c has a
 * case for each error). */
#include "plan.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt.h"
#include "hash.h"
#include "options.h"
#include "siteid.h"
#include "sys.h"

static const char *const policies_g[] = {"bind", "preferred", "interleave", NULL};
static const char *const pages_g[] = {"default", "4k", "thp", "hugetlb", NULL};

/* a version-4 plan's "frames" table, read once */
typedef struct {
	const char *module, *symbol;
	uint64_t name_hash, offset;
	hmpt_siteid_class_t cls;
} row_t;

typedef struct {
	const char *file;
	char *err;
	size_t errlen;
	hmpt_plan_t *plan;
	char *mem; /* bump storage for sites, frames and names: the last chunk */
	size_t used, cap;
	row_t *rows;
	uint32_t nrows;
	/* the module of the frame read last: frames mostly repeat it */
	const char *last_module;
	size_t last_len;
	uint64_t last_hash;
	hmpt_siteid_class_t last_cls;
} ctx_t;

/* Bump storage is a chain of mappings, each beginning with this: a plan's
 * sites may take more room than its text when they share frames. */
typedef struct chunk {
	struct chunk *next;
	size_t len;
} chunk_t;
#define CHUNK_HEAD 64

/* ------------------------------------------------------------ messages */

static void describe_value(hmpt_fmt_t *f, const hmpt_json_t *v)
{
	switch (v->type) {
	case HMPT_JSON_STRING:
		if (v->len > 40) {
			char cut[44];
			memcpy(cut, v->str, 37);
			memcpy(cut + 37, "...", 4);
			hmpt_fmt_json_str(f, cut);
		} else {
			hmpt_fmt_json_str(f, v->str);
		}
		break;
	case HMPT_JSON_NUMBER: hmpt_fmt_mem(f, v->str, v->len > 40 ? 40 : v->len); break;
	default: hmpt_fmt_str(f, hmpt_json_type_name(v->type)); break;
	}
}

/* "FILE:LINE:COL: FIELD: WHAT[, got VALUE]"; returns -EINVAL */
static int fail(ctx_t *c, const hmpt_json_t *at, const char *field, const char *what,
                const hmpt_json_t *got)
{
	hmpt_fmt_t f;

	hmpt_fmt_init(&f, c->err, c->errlen, -1);
	hmpt_fmt_str(&f, c->file);
	if (at)
		hmpt_fmt_printf(&f, ":%u:%u", (unsigned)at->line, (unsigned)at->col);
	if (field && *field)
		hmpt_fmt_printf(&f, ": %s", field);
	hmpt_fmt_printf(&f, ": %s", what);
	if (got) {
		hmpt_fmt_str(&f, ", got ");
		describe_value(&f, got);
	}
	hmpt_fmt_cstr(&f);
	return -EINVAL;
}

/* field paths: "pools.hbm.policy", "groups[2].sites[0]" */
typedef struct {
	char s[192];
} path_t;

static int plain_key(const char *k)
{
	if (!*k)
		return 0;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		      (*k >= '0' && *k <= '9') || *k == '_' || *k == '-'))
			return 0;
	return 1;
}

static void path_join(path_t *out, const char *base, const char *key, long index)
{
	hmpt_fmt_t f;

	hmpt_fmt_init(&f, out->s, sizeof(out->s), -1);
	hmpt_fmt_str(&f, base);
	if (key && plain_key(key)) {
		hmpt_fmt_printf(&f, "%s%s", *base ? "." : "", key);
	} else if (key) {
		/* pools["a b"]: a key from the file may hold anything, even a newline */
		hmpt_fmt_char(&f, '[');
		hmpt_fmt_json_str(&f, key);
		hmpt_fmt_char(&f, ']');
	}
	if (index >= 0)
		hmpt_fmt_printf(&f, "[%ld]", index);
	hmpt_fmt_cstr(&f);
}

/* "expected one of "a", "b" or "c"" into buf */
static const char *expected_one_of(char *buf, size_t cap, const char *const *names)
{
	hmpt_fmt_t f;
	int n = 0;

	while (names[n])
		n++;
	hmpt_fmt_init(&f, buf, cap, -1);
	hmpt_fmt_str(&f, "expected ");
	for (int i = 0; i < n; i++) {
		if (i)
			hmpt_fmt_str(&f, i == n - 1 ? " or " : ", ");
		hmpt_fmt_json_str(&f, names[i]);
	}
	return hmpt_fmt_cstr(&f);
}

static int index_of(const char *const *names, const char *s)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

/* ----------------------------------------------------------- structure */

/* Every member must be one of `allowed` (or "comment"). */
static int check_keys(ctx_t *c, const hmpt_json_t *obj, const char *base,
                      const char *const *allowed)
{
	for (const hmpt_json_t *m = obj->child; m; m = m->next) {
		if (strcmp(m->key, "comment") == 0 || index_of(allowed, m->key) >= 0)
			continue;
		char what[512], list[400];
		path_t p;
		hmpt_fmt_text(what, sizeof(what), "unknown field (%s)",
		              expected_one_of(list, sizeof(list), allowed));
		path_join(&p, base, m->key, -1);
		return fail(c, m, p.s, what, NULL);
	}
	return 0;
}

static const hmpt_json_t *member(const hmpt_json_t *obj, const char *key)
{
	return hmpt_json_get(obj, key);
}

static int want_type(ctx_t *c, const hmpt_json_t *v, const char *field, hmpt_json_type_t t)
{
	char what[64];

	if (v->type == t)
		return 0;
	return fail(c, v, field,
	            hmpt_fmt_text(what, sizeof(what), "expected %s", hmpt_json_type_name(t)), v);
}

static int want_enum(ctx_t *c, const hmpt_json_t *v, const char *field, const char *const *names,
                     int *out)
{
	char what[400];

	if (v->type == HMPT_JSON_STRING && (*out = index_of(names, v->str)) >= 0)
		return 0;
	return fail(c, v, field, expected_one_of(what, sizeof(what), names), v);
}

/* a new chunk of at least len bytes after c->mem (NULL: the first) */
static int chunk_add(ctx_t *c, size_t len)
{
	chunk_t *k = hmpt_sys_map(len);

	if (!k)
		return -ENOMEM;
	k->len = len;
	if (c->mem)
		((chunk_t *)c->mem)->next = k;
	else
		c->plan->mem = k, c->plan->mem_len = len;
	c->mem = (char *)k;
	c->cap = len;
	c->used = CHUNK_HEAD;
	return 0;
}

static void *bump(ctx_t *c, size_t n)
{
	size_t at = (c->used + 15) & ~(size_t)15;

	if (at + n > c->cap) {
		size_t len = CHUNK_HEAD + n > c->cap ? CHUNK_HEAD + n : c->cap;
		if (chunk_add(c, len) != 0)
			return NULL;
		at = c->used;
	}
	c->used = at + n;
	return c->mem + at;
}

static bool valid_pool_name(const char *s, size_t len)
{
	if (len == 0 || len >= HMPT_POOL_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-'))
			return false;
	}
	return true;
}

/* A pool name or "system": its index or HMPT_POOL_SYSTEM. */
static int want_pool_ref(ctx_t *c, const hmpt_json_t *v, const char *field, int *out)
{
	hmpt_plan_t *pl = c->plan;

	if (v->type != HMPT_JSON_STRING)
		return fail(c, v, field, "expected a pool name", v);
	if (strcmp(v->str, HMPT_POOL_SYSTEM_NAME) == 0) {
		*out = HMPT_POOL_SYSTEM;
		return 0;
	}
	for (int i = 0; i < pl->npools; i++)
		if (strcmp(pl->pools[i].name, v->str) == 0) {
			*out = i;
			return 0;
		}
	char what[64 + HMPT_PLAN_MAX_POOLS * (HMPT_POOL_NAME_MAX + 4)];
	hmpt_fmt_t f;
	hmpt_fmt_init(&f, what, sizeof(what), -1);
	hmpt_fmt_str(&f, "expected the name of a pool (");
	for (int i = 0; i < pl->npools; i++)
		hmpt_fmt_printf(&f, "%s, ", pl->pools[i].name);
	hmpt_fmt_str(&f, "or system)");
	return fail(c, v, field, hmpt_fmt_cstr(&f), v);
}

/* A node list: "0-3,5" or [0, 1, 2]. */
static int want_nodelist(ctx_t *c, const hmpt_json_t *v, const char *field, hmpt_nodemask_t *m)
{
	memset(m, 0, sizeof(*m));
	if (v->type == HMPT_JSON_STRING) {
		char why[160], what[220];
		if (hmpt_nodemask_parse(v->str, m, why, sizeof(why)) == 0 &&
		    !hmpt_nodemask_empty(m))
			return 0;
		bool say = !hmpt_nodemask_empty(m) || v->len; /* else `why` is not filled */
		hmpt_fmt_text(what, sizeof(what),
		              "expected a node list such as \"2-3\" or [2, 3]%s%s%s",
		              say ? " (" : "", say ? why : "", say ? ")" : "");
		return fail(c, v, field, what, v);
	}
	if (v->type != HMPT_JSON_ARRAY || v->count == 0)
		return fail(c, v, field, "expected a node list such as \"2-3\" or [2, 3]", v);
	for (const hmpt_json_t *e = v->child; e; e = e->next) {
		uint64_t n;
		if (!hmpt_json_u64(e, &n) || n >= HMPT_MAX_NODES) {
			char what[96];
			return fail(c, e, field,
			            hmpt_fmt_text(what, sizeof(what),
			                          "expected node numbers from 0 to %d",
			                          HMPT_MAX_NODES - 1),
			            e);
		}
		hmpt_nodemask_set(m, (unsigned)n);
	}
	return 0;
}

static int want_bool(ctx_t *c, const hmpt_json_t *v, const char *field, bool *out)
{
	if (v->type == HMPT_JSON_TRUE || v->type == HMPT_JSON_FALSE) {
		*out = v->type == HMPT_JSON_TRUE;
		return 0;
	}
	return fail(c, v, field, "expected true or false", v);
}

/* capacity: bytes, "60G" or "50%" */
static int want_capacity(ctx_t *c, const hmpt_json_t *v, const char *field, hmpt_plan_pool_t *p)
{
	static const char what[] =
	    "expected a size in bytes (a number, or a string such as \"512M\" "
	    "or \"60G\") or a share such as \"50%\"";
	uint64_t n;

	if (v->type == HMPT_JSON_NUMBER) {
		if (!hmpt_json_u64(v, &n) || n == 0)
			return fail(c, v, field, what, v);
		p->capacity = n;
		return 0;
	}
	if (v->type != HMPT_JSON_STRING || v->len == 0 || v->len > 30)
		return fail(c, v, field, what, v);
	if (v->str[v->len - 1] == '%') {
		char digits[32];
		memcpy(digits, v->str, v->len - 1);
		digits[v->len - 1] = '\0';
		if (hmpt_options_parse_uint(digits, &n) != 0 || n < 1 || n > 100)
			return fail(c, v, field, "expected a share from \"1%\" to \"100%\"", v);
		p->capacity_pct = (uint32_t)n;
		return 0;
	}
	if (hmpt_options_parse_size(v->str, &n) != 0 || n == 0)
		return fail(c, v, field, what, v);
	p->capacity = n;
	return 0;
}

/* share: a number from 0 to 1 ("0.6"), to parts per million, by hand (no
 * strtod: the program's locale may say "0,6") */
static int want_share(ctx_t *c, const hmpt_json_t *v, const char *field, uint32_t *out)
{
	static const char what[] =
	    "expected a share of the bytes above 0 and at most 1, such as 0.6";
	uint64_t ppm = 0, scale = HMPT_PLAN_SHARE_ONE;
	size_t i = 0;

	if (v->type != HMPT_JSON_NUMBER)
		return fail(c, v, field, what, v);
	if (i < v->len && (v->str[i] == '0' || v->str[i] == '1'))
		ppm = (uint64_t)(v->str[i++] - '0') * HMPT_PLAN_SHARE_ONE;
	if (i < v->len && v->str[i] == '.')
		for (int d = 0; ++i < v->len && v->str[i] >= '0' && v->str[i] <= '9'; d++) {
			unsigned digit = (unsigned)(v->str[i] - '0');
			if (d < 6) /* to the millionth; the next digit rounds */
				ppm += digit * (scale /= 10);
			else if (d == 6 && digit >= 5)
				ppm++;
		}
	if (i != v->len || ppm == 0 || ppm > HMPT_PLAN_SHARE_ONE)
		return fail(c, v, field, what, v);
	*out = (uint32_t)ppm;
	return 0;
}

/* -------------------------------------------------------------- pools */

/* Is `key` one of the backend's own fields? */
static bool backend_takes(const hmpt_backend_t *be, const char *key)
{
	return index_of(be->fields, key) >= 0;
}

/* The pool's backend and the fields only some backends take: each must be
 * one of its backend's (the registry's rows say which). */
static int parse_backend(ctx_t *c, const hmpt_json_t *v, const char *base, hmpt_plan_pool_t *p)
{
	const char *names[16];
	const hmpt_json_t *m;
	path_t f;
	int n = 0, rc, e;

	for (; hmpt_backends_g[n] && n < 15; n++)
		names[n] = hmpt_backends_g[n]->name;
	names[n] = NULL;
	p->backend = hmpt_backend_nodes();
	if ((m = member(v, "backend"))) {
		path_join(&f, base, "backend", -1);
		if ((rc = want_enum(c, m, f.s, names, &e)))
			return rc;
		p->backend = hmpt_backends_g[e];
	}
	for (m = v->child; m; m = m->next) {
		const hmpt_backend_t *owner = NULL;
		for (int i = 0; hmpt_backends_g[i]; i++)
			if (backend_takes(hmpt_backends_g[i], m->key))
				owner = owner ? owner : hmpt_backends_g[i];
		if (!owner || backend_takes(p->backend, m->key))
			continue;
		char what[160];
		path_join(&f, base, m->key, -1);
		if (!owner->caps.node_fields)
			hmpt_fmt_text(what, sizeof(what),
			              "only %s pools have a %s (add \"backend\": \"%s\")",
			              owner->name, m->key, owner->name);
		else if (p->backend->required)
			hmpt_fmt_text(what, sizeof(what),
			              "not allowed in a %s pool: its %s decides nodes and pages",
			              p->backend->name, p->backend->required);
		else
			hmpt_fmt_text(what, sizeof(what),
			              "not allowed in a %s pool: it decides nodes and pages itself",
			              p->backend->name);
		return fail(c, m, f.s, what, NULL);
	}
	if (p->backend->required && !member(v, p->backend->required)) {
		char what[160];
		path_join(&f, base, p->backend->required, -1);
		return fail(c, v, f.s,
		            hmpt_fmt_text(what, sizeof(what), "missing: %s", p->backend->hint),
		            NULL);
	}
	if (p->backend->kinds && (m = member(v, "kind"))) {
		const char *kinds[64];
		int k = 0;
		for (; p->backend->kinds[k].name && k < 63; k++)
			kinds[k] = p->backend->kinds[k].name;
		kinds[k] = NULL;
		path_join(&f, base, "kind", -1);
		if ((rc = want_enum(c, m, f.s, kinds, &p->kind)))
			return rc;
	}
	if (backend_takes(p->backend, "file") && (m = member(v, "file"))) {
		path_join(&f, base, "file", -1);
		if (m->type != HMPT_JSON_STRING || m->len == 0 || m->str[0] != '/')
			return fail(c, m, f.s,
			            "expected an absolute path: a device-DAX device such as "
			            "\"/dev/dax0.0\", a file, or a directory to make one in",
			            m);
		p->file = m->str;
	}
	return 0;
}

/* "tier": "fastest", "slowest" or a tier number (0 the fastest); not with
 * "nodes" */
static int want_tier(ctx_t *c, const hmpt_json_t *pool, const hmpt_json_t *m, const char *base,
                     hmpt_plan_pool_t *p)
{
	static const char *const expected =
	    "expected \"fastest\", \"slowest\" or a tier number (0 is the fastest)";
	uint64_t n;
	path_t f;

	path_join(&f, base, "tier", -1);
	if (member(pool, "nodes"))
		return fail(c, m, f.s, "a pool names either \"nodes\" or a \"tier\", not both",
		            NULL);
	if (m->type == HMPT_JSON_STRING && strcmp(m->str, "fastest") == 0)
		p->tier = 0;
	else if (m->type == HMPT_JSON_STRING && strcmp(m->str, "slowest") == 0)
		p->tier = HMPT_TIER_SLOWEST;
	else if (m->type == HMPT_JSON_NUMBER && hmpt_json_u64(m, &n) && n < HMPT_MAX_TIERS)
		p->tier = (int)n;
	else
		return fail(c, m, f.s, expected, m);
	p->nodes = HMPT_NODES_TIER;
	return 0;
}

static int parse_pool(ctx_t *c, const hmpt_json_t *v, hmpt_plan_pool_t *p, int *given_fallback,
                      const hmpt_json_t **fallback_node)
{
	static const char *const common_keys[] = {"backend", "capacity", "fallback", NULL};
	const char *keys[32];
	path_t base, f;
	const hmpt_json_t *m;
	int rc, e, n = 0;

	for (int i = 0; common_keys[i]; i++)
		keys[n++] = common_keys[i];
	for (int i = 0; hmpt_backends_g[i]; i++)
		for (int j = 0; hmpt_backends_g[i]->fields[j] && n < 31; j++)
			keys[n++] = hmpt_backends_g[i]->fields[j];
	keys[n] = NULL;
	path_join(&base, "pools", v->key, -1);
	if ((rc = want_type(c, v, base.s, HMPT_JSON_OBJECT)) ||
	    (rc = check_keys(c, v, base.s, keys)))
		return rc;
	p->line = v->line;
	p->local = true;
	p->kind = -1;
	if ((rc = parse_backend(c, v, base.s, p)))
		return rc;
	if ((m = member(v, "nodes"))) {
		path_join(&f, base.s, "nodes", -1);
		if (m->type == HMPT_JSON_STRING && strcmp(m->str, "hbm") == 0)
			p->nodes = HMPT_NODES_HBM;
		else if (m->type == HMPT_JSON_STRING && strcmp(m->str, "ddr") == 0)
			p->nodes = HMPT_NODES_DDR;
		else if (m->type == HMPT_JSON_STRING && strcmp(m->str, "all") == 0)
			p->nodes = HMPT_NODES_ALL;
		else if (m->type == HMPT_JSON_STRING && m->len &&
		         !(m->str[0] >= '0' && m->str[0] <= '9'))
			return fail(
			    c, m, f.s,
			    "expected \"hbm\", \"ddr\", \"all\" or a node list such as \"2-3\" "
			    "or [2, 3]",
			    m);
		else if ((rc = want_nodelist(c, m, f.s, &p->list)))
			return rc;
		else
			p->nodes = HMPT_NODES_LIST;
	}
	if ((m = member(v, "tier")) && (rc = want_tier(c, v, m, base.s, p)))
		return rc;
	bool localizable =
	    p->nodes == HMPT_NODES_HBM || p->nodes == HMPT_NODES_DDR || p->nodes == HMPT_NODES_TIER;
	if ((m = member(v, "local"))) {
		path_join(&f, base.s, "local", -1);
		if ((rc = want_bool(c, m, f.s, &p->local)))
			return rc;
		if (!localizable)
			return fail(
			    c, m, f.s,
			    "only applies to \"nodes\": \"hbm\" or \"ddr\", or to a \"tier\"",
			    NULL);
	}
	if (!localizable)
		p->local = false;
	if ((m = member(v, "policy"))) {
		path_join(&f, base.s, "policy", -1);
		if ((rc = want_enum(c, m, f.s, policies_g, &e)))
			return rc;
		p->policy = (hmpt_policy_t)e;
		if (p->nodes == HMPT_NODES_NONE)
			return fail(c, m, f.s, "a policy needs \"nodes\" to apply to", NULL);
	}
	if ((m = member(v, "pages"))) {
		path_join(&f, base.s, "pages", -1);
		if ((rc = want_enum(c, m, f.s, pages_g, &e)))
			return rc;
		p->pages = (hmpt_pages_t)e;
	}
	if ((m = member(v, "capacity"))) {
		path_join(&f, base.s, "capacity", -1);
		if ((rc = want_capacity(c, m, f.s, p)))
			return rc;
	}
	*fallback_node = member(v, "fallback");
	*given_fallback = *fallback_node != NULL;
	return 0;
}

/* Every fallback chain must end in "system". */
static int check_fallback_cycles(ctx_t *c, const hmpt_json_t *const *nodes)
{
	hmpt_plan_t *pl = c->plan;

	for (int i = 0; i < pl->npools; i++) {
		int at = i, steps = 0;
		while (at != HMPT_POOL_SYSTEM && steps <= pl->npools) {
			at = pl->pools[at].fallback;
			steps++;
		}
		if (at == HMPT_POOL_SYSTEM)
			continue;
		char what[64 + (HMPT_PLAN_MAX_POOLS + 1) * (HMPT_POOL_NAME_MAX + 4)];
		hmpt_fmt_t f;
		path_t p;
		hmpt_fmt_init(&f, what, sizeof(what), -1);
		hmpt_fmt_str(&f, "the fallback chain is a cycle: ");
		at = i;
		for (int k = 0; k <= pl->npools; k++) {
			hmpt_fmt_printf(&f, "%s -> ", pl->pools[at].name);
			at = pl->pools[at].fallback;
			if (at == i) {
				hmpt_fmt_str(&f, pl->pools[at].name);
				break;
			}
		}
		hmpt_fmt_str(&f, " (a chain must end in \"system\")");
		path_join(&p, "pools", pl->pools[i].name, -1);
		path_join(&p, p.s, "fallback", -1);
		return fail(c, nodes[i] ? nodes[i] : NULL, p.s, hmpt_fmt_cstr(&f), NULL);
	}
	return 0;
}

/* the fallback chain from `from` reaches `to` */
static bool leads_to(const hmpt_plan_t *pl, int from, int to)
{
	for (int steps = 0; from != HMPT_POOL_SYSTEM && steps <= pl->npools; steps++) {
		if (from == to)
			return true;
		from = pl->pools[from].fallback;
	}
	return false;
}

static int parse_pools(ctx_t *c, const hmpt_json_t *pools, const hmpt_json_t *def)
{
	hmpt_plan_t *pl = c->plan;
	const hmpt_json_t *fb_node[HMPT_PLAN_MAX_POOLS], *pool_node[HMPT_PLAN_MAX_POOLS];
	int given[HMPT_PLAN_MAX_POOLS];
	int rc, i = 0;

	if ((rc = want_type(c, pools, "pools", HMPT_JSON_OBJECT)))
		return rc;
	if (pools->count == 0)
		return fail(c, pools, "pools", "expected at least one pool", NULL);
	if (pools->count > HMPT_PLAN_MAX_POOLS) {
		char what[64];
		return fail(c, pools, "pools",
		            hmpt_fmt_text(what, sizeof(what), "expected at most %d pools",
		                          HMPT_PLAN_MAX_POOLS),
		            NULL);
	}
	/* names first, so that fallbacks may name pools defined later */
	for (const hmpt_json_t *v = pools->child; v; v = v->next, i++) {
		size_t len = strlen(v->key);
		path_t p;
		path_join(&p, "pools", v->key, -1);
		if (!valid_pool_name(v->key, len))
			return fail(c, v, p.s,
			            "a pool name has 1 to 31 characters from A-Z a-z 0-9 _ . -",
			            NULL);
		if (strcmp(v->key, HMPT_POOL_SYSTEM_NAME) == 0)
			return fail(c, v, p.s,
			            "\"system\" is reserved (the normal allocator's placement)",
			            NULL);
		memcpy(pl->pools[i].name, v->key, len + 1);
		pool_node[i] = v;
	}
	pl->npools = (int)pools->count;
	i = 0;
	for (const hmpt_json_t *v = pools->child; v; v = v->next, i++)
		if ((rc = parse_pool(c, v, &pl->pools[i], &given[i], &fb_node[i])))
			return rc;
	pl->default_pool = HMPT_POOL_SYSTEM;
	if (def && (rc = want_pool_ref(c, def, "default_pool", &pl->default_pool)))
		return rc;
	for (i = 0; i < pl->npools; i++) {
		hmpt_plan_pool_t *p = &pl->pools[i];
		p->fallback = HMPT_POOL_SYSTEM;
		if (given[i]) {
			path_t f;
			path_join(&f, "pools", p->name, -1);
			path_join(&f, f.s, "fallback", -1);
			if ((rc = want_pool_ref(c, fb_node[i], f.s, &p->fallback)))
				return rc;
			if (p->fallback == i)
				return fail(c, fb_node[i], f.s, "a pool cannot fall back to itself",
				            NULL);
		} else {
			fb_node[i] = pool_node[i];
		}
	}
	/* only the fallbacks written in the plan can make a cycle */
	if ((rc = check_fallback_cycles(c, fb_node)))
		return rc;
	/* an unwritten fallback is the default pool, unless that would lead
	 * back to this pool: then "system" */
	for (i = 0; i < pl->npools; i++)
		if (!given[i] && i != pl->default_pool && !leads_to(pl, pl->default_pool, i))
			pl->pools[i].fallback = pl->default_pool;
	return 0;
}

/* ------------------------------------------------------------- groups */

/* 0-15, or -1 for a character that is no hexadecimal digit */
static int hex_digit(char h)
{
	return h >= '0' && h <= '9'   ? h - '0'
	       : h >= 'a' && h <= 'f' ? h - 'a' + 10
	       : h >= 'A' && h <= 'F' ? h - 'A' + 10
	                              : -1;
}

/* "module!0x1a2b" -> module (copied), its hash, offset and class; 0,
 * -EINVAL (not a frame), -E2BIG (the offset overflows) or -ENOMEM */
static int parse_frame(ctx_t *c, const hmpt_json_t *v, const char **module, uint64_t *hash,
                       uint64_t *off, hmpt_siteid_class_t *cls)
{
	const char *bang;
	uint64_t o = 0;

	if (v->type != HMPT_JSON_STRING || !(bang = strrchr(v->str, '!')) || bang == v->str ||
	    bang[1] != '0' || (bang[2] != 'x' && bang[2] != 'X') || !bang[3])
		return -EINVAL;
	for (const char *h = bang + 3; *h; h++) {
		int d = hex_digit(*h);
		if (d < 0)
			return -EINVAL;
		if (o >> 60)
			return -E2BIG;
		o = o << 4 | (unsigned)d;
	}
	size_t len = (size_t)(bang - v->str);
	*off = o;
	if (c->last_module && len == c->last_len && memcmp(v->str, c->last_module, len) == 0) {
		*module = c->last_module;
		*hash = c->last_hash;
		*cls = c->last_cls;
		return 0;
	}
	char *m = bump(c, len + 1);
	if (!m)
		return -ENOMEM;
	memcpy(m, v->str, len);
	m[len] = '\0';
	*module = c->last_module = m;
	c->last_len = len;
	/* profiles write "??" for a frame in no known module (JIT code), whose
	 * module hash the shim takes as 0 (no part of today's ids, siteid.h) */
	*hash = c->last_hash = strcmp(m, HMPT_SITEID_NO_MODULE) == 0 ? 0 : hmpt_hash_module(m, len);
	*cls = c->last_cls = hmpt_siteid_class(m);
	return 0;
}

/* parse_frame's refusal as the message for `field` */
static int frame_fail(ctx_t *c, const hmpt_json_t *v, const char *field, int rc)
{
	if (rc == -E2BIG)
		return fail(c, v, field, "the offset does not fit in 64 bits", v);
	if (rc == -EINVAL)
		return fail(c, v, field,
		            "expected a frame \"module!0xoffset\" as profiles write it", v);
	return rc;
}

static bool same_site(const hmpt_plan_site_t *a, const hmpt_plan_site_t *b)
{
	return a->prefix == b->prefix && a->legacy_prefix == b->legacy_prefix && a->nid == b->nid &&
	       memcmp(a->id_hashes, b->id_hashes, a->nid * sizeof(uint64_t)) == 0 &&
	       memcmp(a->id_offsets, b->id_offsets, a->nid * sizeof(uint64_t)) == 0;
}

/* every frame the same, runtime ones too */
static bool same_frames(const hmpt_plan_site_t *a, const hmpt_plan_site_t *b)
{
	return a->nframes == b->nframes &&
	       memcmp(a->name_hashes, b->name_hashes, a->nframes * sizeof(uint64_t)) == 0 &&
	       memcmp(a->offsets, b->offsets, a->nframes * sizeof(uint64_t)) == 0;
}

static int parse_hex_id(const hmpt_json_t *v, uint64_t *out)
{
	uint64_t id = 0;

	if (v->type != HMPT_JSON_STRING || v->len != 16)
		return -1;
	for (size_t i = 0; i < 16; i++) {
		int d = hex_digit(v->str[i]);
		if (d < 0)
			return -1;
		id = id << 4 | (unsigned)d;
	}
	*out = id;
	return 0;
}

/* ------------------------------------------------------- match index */

static uint32_t site_kind(const hmpt_plan_site_t *s)
{
	return s->prefix ? 1 : s->legacy_prefix ? 2 : 0;
}

static uint32_t slot_of(uint64_t key, uint32_t mask)
{
	return (uint32_t)((key ^ key >> 29 ^ key >> 47) * 0x9e3779b97f4a7c15ull >> 32) & mask;
}

/* The class of sites of this id, kind and identity frames: its first
 * site, or -1. */
static int index_find(const hmpt_plan_t *pl, uint64_t key, uint32_t kind, const uint64_t *hashes,
                      const uint64_t *offsets, uint32_t n)
{
	for (uint32_t i = slot_of(key, pl->index_mask);; i = (i + 1) & pl->index_mask) {
		const hmpt_plan_slot_t *e = &pl->index[i];
		if (!e->head)
			return -1;
		const hmpt_plan_site_t *s = &pl->sites[e->head - 1];
		if (e->key == key && e->kind == kind && s->nid == n &&
		    memcmp(s->id_hashes, hashes, n * sizeof(uint64_t)) == 0 &&
		    memcmp(s->id_offsets, offsets, n * sizeof(uint64_t)) == 0)
			return (int)e->head - 1;
	}
}

/* Site i into the index, last of its class: the class's first site (i
 * when it is the first). */
static uint32_t index_add(hmpt_plan_t *pl, uint32_t i)
{
	const hmpt_plan_site_t *s = &pl->sites[i];
	uint32_t kind = site_kind(s), at = slot_of(s->id, pl->index_mask);

	pl->same_next[i] = UINT32_MAX;
	if (kind)
		pl->prefix_lens |= 1ull << (s->nid - 1);
	for (;; at = (at + 1) & pl->index_mask) {
		hmpt_plan_slot_t *e = &pl->index[at];
		if (!e->head) {
			*e = (hmpt_plan_slot_t){
			    .key = s->id, .head = i + 1, .tail = i, .kind = kind};
			return i;
		}
		if (e->key == s->id && e->kind == kind && same_site(&pl->sites[e->head - 1], s)) {
			pl->same_next[e->tail] = i;
			e->tail = i;
			return e->head - 1;
		}
	}
}

int hmpt_plan_match(const hmpt_plan_t *plan, const uint64_t *name_hashes, const uint64_t *offsets,
                    uint32_t n)
{
	uint64_t prefix[65], id = HMPT_HASH_SEED;
	uint32_t upto = n < 64 ? n : 64; /* no site has more frames */
	int best = -1;

	if (!plan->nsites || !plan->index)
		return -1;
	/* the id is a chain: the hash of each prefix comes on the way */
	prefix[0] = id;
	for (uint32_t k = 0; k < upto; k++)
		prefix[k + 1] = id = hmpt_hash_frame(id, name_hashes[k], offsets[k]);
	if (n <= 64 && (best = index_find(plan, id, 0, name_hashes, offsets, n)) >= 0)
		return best; /* a whole-stack match is the most specific */
	for (uint32_t len = upto; len > 0 && best < 0; len--) {
		if (!(plan->prefix_lens >> (len - 1) & 1))
			continue;
		int a = index_find(plan, prefix[len], 1, name_hashes, offsets, len);
		int b = index_find(plan, prefix[len], 2, name_hashes, offsets, len);
		best = a < 0 ? b : b < 0 || a < b ? a : b;
	}
	return best;
}

/* ------------------------------------------------------------- sites */

/* Fields of an object read by people and hmpt-tune, not by the shim: each
 * a string ('s') or a whole number ('u'); any may be missing. */
typedef struct {
	const char *name;
	char type;
} field_t;

static int want_fields(ctx_t *c, const hmpt_json_t *v, const char *base, const field_t *fields)
{
	const char *keys[16];
	uint64_t u;
	unsigned n = 0;
	int rc;

	for (; fields[n].name && n < 15; n++)
		keys[n] = fields[n].name;
	keys[n] = NULL;
	if ((rc = want_type(c, v, base, HMPT_JSON_OBJECT)) || (rc = check_keys(c, v, base, keys)))
		return rc;
	/* each member once (a plan has many of these): the path only for a
	 * message */
	for (const hmpt_json_t *m = v->child; m; m = m->next) {
		int i = index_of(keys, m->key);
		path_t f;
		if (i < 0) /* "comment" */
			continue;
		if (fields[i].type == 's' && m->type != HMPT_JSON_STRING) {
			path_join(&f, base, fields[i].name, -1);
			return want_type(c, m, f.s, HMPT_JSON_STRING);
		}
		if (fields[i].type == 'u' && !hmpt_json_u64(m, &u)) {
			path_join(&f, base, fields[i].name, -1);
			return fail(c, m, f.s, "expected a whole number", m);
		}
	}
	return 0;
}

/* want_fields' test without a message: callers format the path only
 * when it fails */
static bool fields_ok(const hmpt_json_t *v, const field_t *fields)
{
	uint64_t u;

	if (v->type != HMPT_JSON_OBJECT)
		return false;
	for (const hmpt_json_t *m = v->child; m; m = m->next) {
		int i = 0;
		while (fields[i].name && strcmp(fields[i].name, m->key) != 0)
			i++;
		if (!fields[i].name         ? strcmp(m->key, "comment") != 0
		    : fields[i].type == 's' ? m->type != HMPT_JSON_STRING
		                            : !hmpt_json_u64(m, &u))
			return false;
	}
	return true;
}

static const field_t symbolic_fields_g[] = {{"function", 's'},      {"file", 's'},
                                            {"line", 'u'},          {"column", 'u'},
                                            {"discriminator", 'u'}, {"inlined_into", 's'},
                                            {"position", 'u'},      {"positions", 'u'},
                                            {"variable", 's'},      {NULL, 0}};

/* Where a site is, formatted only for a message: "groups[G].sites[K]",
 * then `field` and `index` as path_join adds them. */
typedef struct {
	uint32_t group, k;
} site_at_t;

static const char *site_path(path_t *out, site_at_t at, const char *field, long index)
{
	path_t g, s;

	path_join(&g, "groups", NULL, at.group);
	path_join(&s, g.s, "sites", at.k);
	if (!field && index < 0)
		*out = s;
	else
		path_join(out, s.s, field, index);
	return out->s;
}

/* A whole number below `limit` */
static bool small_index(const hmpt_json_t *v, uint32_t limit, uint32_t *out)
{
	uint64_t u;

	if (!hmpt_json_u64(v, &u) || u >= limit)
		return false;
	*out = (uint32_t)u;
	return true;
}

/* A site's members, found in one pass (a plan may have 10^5 sites) */
typedef struct {
	const hmpt_json_t *frames, *stack, *match, *id, *symbols, *symbolic, *bytes;
} site_members_t;

/* false when a member is none of the site's fields in this version */
static bool site_members(const hmpt_json_t *v, bool table, site_members_t *sm)
{
	memset(sm, 0, sizeof(*sm));
	for (const hmpt_json_t *m = v->child; m; m = m->next) {
		const char *k = m->key;
		const hmpt_json_t **at = NULL;
		switch (k[0]) {
		case 's':
			at = !strcmp(k, "stack")      ? &sm->stack
			     : !strcmp(k, "symbols")  ? &sm->symbols
			     : !strcmp(k, "symbolic") ? &sm->symbolic
			                              : NULL;
			break;
		case 'f': at = !strcmp(k, "frames") ? &sm->frames : NULL; break;
		case 'm': at = !strcmp(k, "match") ? &sm->match : NULL; break;
		case 'i': at = !strcmp(k, "id") ? &sm->id : NULL; break;
		case 'b': at = !strcmp(k, "bytes") ? &sm->bytes : NULL; break;
		case 'c':
			if (!strcmp(k, "comment"))
				continue;
			break;
		}
		if (!at || (table ? at == &sm->frames || at == &sm->symbols || at == &sm->symbolic
		                  : at == &sm->stack))
			return false;
		*at = m;
	}
	return true;
}

/* A site's frame arrays, n frames: modules, their name hashes, offsets. */
static int site_arrays(ctx_t *c, hmpt_plan_site_t *s, uint32_t n)
{
	s->nframes = n;
	s->modules = bump(c, n * sizeof(char *));
	s->name_hashes = bump(c, n * sizeof(uint64_t));
	s->offsets = bump(c, n * sizeof(uint64_t));
	return s->modules && s->name_hashes && s->offsets ? 0 : -ENOMEM;
}

/* The site's frames, versions 1-3: "frames" strings, "symbols" and
 * "symbolic" beside them; cls gets each frame's class. */
static int site_frames_inline(ctx_t *c, const hmpt_json_t *v, const site_members_t *sm,
                              site_at_t at, hmpt_plan_site_t *s, hmpt_siteid_class_t *cls)
{
	const hmpt_json_t *fr = sm->frames, *m;
	path_t f;
	uint32_t k = 0;
	int rc;

	if (!fr)
		return fail(c, v, site_path(&f, at, "frames", -1),
		            "missing: a site needs its frames", NULL);
	if (fr->type != HMPT_JSON_ARRAY || fr->count == 0 || fr->count > 64)
		return fail(c, fr, site_path(&f, at, "frames", -1),
		            "expected an array of 1 to 64 frames \"module!0xoffset\"",
		            fr->type == HMPT_JSON_ARRAY ? NULL : fr);
	if (site_arrays(c, s, fr->count))
		return -ENOMEM;
	for (const hmpt_json_t *x = fr->child; x; x = x->next, k++) {
		if ((rc = parse_frame(c, x, &s->modules[k], &s->name_hashes[k], &s->offsets[k],
		                      &cls[k])))
			return frame_fail(c, x, site_path(&f, at, "frames", k), rc);
	}
	if ((m = sm->symbols)) {
		if (m->type != HMPT_JSON_ARRAY)
			return want_type(c, m, site_path(&f, at, "symbols", -1), HMPT_JSON_ARRAY);
		k = 0;
		for (const hmpt_json_t *x = m->child; x; x = x->next, k++)
			if (x->type != HMPT_JSON_STRING)
				return want_type(c, x, site_path(&f, at, "symbols", k),
				                 HMPT_JSON_STRING);
		s->symbol = m->child ? m->child->str : NULL;
	}
	if ((m = sm->symbolic)) {
		if (m->type != HMPT_JSON_ARRAY)
			return want_type(c, m, site_path(&f, at, "symbolic", -1), HMPT_JSON_ARRAY);
		k = 0;
		for (const hmpt_json_t *x = m->child; x; x = x->next, k++)
			if (x->type != HMPT_JSON_NULL && !fields_ok(x, symbolic_fields_g) &&
			    (rc = want_fields(c, x, site_path(&f, at, "symbolic", k),
			                      symbolic_fields_g)))
				return rc;
	}
	return 0;
}

/* The site's frames, version 4: "stack", indices into the "frames" table. */
static int site_frames_table(ctx_t *c, const hmpt_json_t *v, const hmpt_json_t *st, site_at_t at,
                             hmpt_plan_site_t *s, hmpt_siteid_class_t *cls)
{
	path_t f;
	uint32_t k = 0, r;

	if (!st)
		return fail(c, v, site_path(&f, at, "stack", -1),
		            member(v, "frames")
		                ? "format 4 names a site's frames by \"stack\": their indices in "
		                  "the top-level \"frames\""
		                : "missing: a site needs its \"stack\" (indices in the top-level "
		                  "\"frames\")",
		            NULL);
	if (st->type != HMPT_JSON_ARRAY || st->count == 0 || st->count > 64)
		return fail(c, st, site_path(&f, at, "stack", -1),
		            "expected an array of 1 to 64 indices in the top-level \"frames\"",
		            st->type == HMPT_JSON_ARRAY ? NULL : st);
	if (site_arrays(c, s, st->count))
		return -ENOMEM;
	for (const hmpt_json_t *x = st->child; x; x = x->next, k++) {
		if (!small_index(x, c->nrows, &r)) {
			char what[96];
			hmpt_fmt_text(what, sizeof(what),
			              "expected an index in the top-level \"frames\" (0 to %ld)",
			              (long)c->nrows - 1);
			return fail(c, x, site_path(&f, at, "stack", k), what, x);
		}
		const row_t *row = &c->rows[r];
		s->modules[k] = row->module;
		s->name_hashes[k] = row->name_hash;
		s->offsets[k] = row->offset;
		cls[k] = row->cls;
		if (k == 0)
			s->symbol = row->symbol;
	}
	return 0;
}

static int parse_site(ctx_t *c, const hmpt_json_t *v, site_at_t at, uint32_t group,
                      hmpt_plan_site_t *s)
{
	static const char *const keys[] = {"frames", "match",    "id", "symbols",
	                                   "bytes",  "symbolic", NULL};
	static const char *const keys4[] = {"stack", "match", "id", "bytes", NULL};
	static const char *const matches[] = {"stack", "prefix", NULL};
	bool table = c->plan->version >= HMPT_PLAN_VERSION_COMPACT;
	hmpt_siteid_class_t cls[64];
	uint32_t idx[64], nold, k;
	const hmpt_json_t *m;
	site_members_t sm;
	path_t f, b;
	int rc, e;
	uint64_t u;

	if (v->type != HMPT_JSON_OBJECT)
		return want_type(c, v, site_path(&b, at, NULL, -1), HMPT_JSON_OBJECT);
	if (!site_members(v, table, &sm)) {
		if (table && member(v, "frames") && !member(v, "stack"))
			return site_frames_table(c, v, NULL, at, s, cls);
		return check_keys(c, v, site_path(&b, at, NULL, -1), table ? keys4 : keys);
	}
	s->group = group;
	s->line = v->line;
	if ((rc = table ? site_frames_table(c, v, sm.stack, at, s, cls)
	                : site_frames_inline(c, v, &sm, at, s, cls)))
		return rc;
	/* version 1 hashed every frame; matching uses the identity frames */
	s->nid = hmpt_siteid_frames(cls, s->nframes, HMPT_SITEID_OWNED, idx);
	s->id = hmpt_siteid_hash(s->name_hashes, s->offsets, idx, s->nid);
	/* where the identity frames come first (runtime frames only after
	 * them, as at a stack's bottom), they are the frames' own arrays */
	for (k = 0; k < s->nid && idx[k] == k; k++)
		;
	if (k == s->nid) {
		s->id_hashes = s->name_hashes;
		s->id_offsets = s->offsets;
	} else {
		s->id_hashes = bump(c, s->nid * sizeof(uint64_t));
		s->id_offsets = bump(c, s->nid * sizeof(uint64_t));
		if (!s->id_hashes || !s->id_offsets)
			return -ENOMEM;
		for (k = 0; k < s->nid; k++) {
			s->id_hashes[k] = s->name_hashes[idx[k]];
			s->id_offsets[k] = s->offsets[idx[k]];
		}
	}
	/* the id version 1 gave (every frame), or version 2 before frames in
	 * no module were left out (siteid.h); where those are the same as
	 * today's, old_id is given_id */
	uint64_t given_id = s->id, old_id;
	if (c->plan->version == 1) {
		uint32_t all = hmpt_siteid_frames(cls, s->nframes, HMPT_SITEID_ALL, idx);
		given_id = hmpt_siteid_hash(s->name_hashes, s->offsets, idx, all);
	}
	/* without frames in no module, that is today's rule */
	bool anon = false;
	for (k = 0; k < s->nframes; k++)
		anon |= cls[k] == HMPT_SITEID_FRAME_ANON;
	nold = anon ? hmpt_siteid_frames(cls, s->nframes, HMPT_SITEID_OWNED_ANON, idx) : s->nid;
	old_id = c->plan->version == 1 ? given_id
	         : anon                ? hmpt_siteid_hash(s->name_hashes, s->offsets, idx, nold)
	                               : s->id;
	if ((m = sm.match)) {
		if ((rc = want_enum(c, m, site_path(&f, at, "match", -1), matches, &e)))
			return rc;
		s->prefix = e == 1;
	}
	/* an empty prefix would match every stack */
	if (s->prefix && s->nid == 0)
		return fail(c, member(v, table ? "stack" : "frames"),
		            site_path(&f, at, table ? "stack" : "frames", -1),
		            "a prefix of frames in no module (\"??\": JIT code, at other "
		            "addresses in every run) names no site",
		            NULL);
	/* a version-1 stack cut at the depth counted runtime frames too: it
	 * names the first frames of a stack the shim now takes deeper */
	uint32_t depth = c->plan->stack_depth ? c->plan->stack_depth : 16;
	s->legacy_prefix = c->plan->version == 1 && !s->prefix && s->nid > 0 &&
	                   s->nid < s->nframes && s->nframes == depth;
	if ((m = sm.id)) {
		uint64_t id;
		if (parse_hex_id(m, &id) != 0)
			return fail(c, m, site_path(&f, at, "id", -1),
			            "expected a site id of 16 hexadecimal digits", m);
		/* an old version-2 id, frames in no module hashed: the depth
		 * counted those too, as version 1's counted runtime frames */
		if (!s->prefix && id == old_id && id != given_id) {
			s->legacy_anon = true;
			s->legacy_prefix = s->nid > 0 && nold == depth;
		} else if (!s->prefix && id != given_id) {
			char what[96];
			hmpt_fmt_text(what, sizeof(what),
			              "does not match the frames (their id is %016" PRIx64
			              "): the frames or the id were edited",
			              given_id);
			return fail(c, m, site_path(&f, at, "id", -1), what, NULL);
		}
	}
	if ((m = sm.bytes) && !hmpt_json_u64(m, &u))
		return fail(c, m, site_path(&f, at, "bytes", -1),
		            "expected a whole number of bytes", m);
	return 0;
}

/* Version 4's top-level "frames": [{"frame": "module!0xoffset", "symbol":
 * "...", "symbolic": {...} or null}], each read once. */
static int parse_frames_table(ctx_t *c, const hmpt_json_t *v)
{
	static const char *const keys[] = {"frame", "symbol", "symbolic", NULL};
	const hmpt_json_t *x, *m;
	path_t b, f;
	uint32_t k = 0;
	int rc;

	if (c->plan->version < HMPT_PLAN_VERSION_COMPACT)
		return fail(c, v, "frames", "needs \"format_version\": 4", NULL);
	if ((rc = want_type(c, v, "frames", HMPT_JSON_ARRAY)))
		return rc;
	c->rows = bump(c, (v->count + 1) * sizeof(row_t));
	if (!c->rows)
		return -ENOMEM;
	for (x = v->child; x; x = x->next, k++) {
		row_t *r = &c->rows[k];
		const hmpt_json_t *frame = NULL, *symbol = NULL, *symbolic = NULL;
		bool known = x->type == HMPT_JSON_OBJECT;
		/* one pass over the members: a plan may have 10^5 rows */
		for (m = known ? x->child : NULL; m && known; m = m->next) {
			const hmpt_json_t **at = !strcmp(m->key, "frame")      ? &frame
			                         : !strcmp(m->key, "symbol")   ? &symbol
			                         : !strcmp(m->key, "symbolic") ? &symbolic
			                                                       : NULL;
			if (at)
				*at = m;
			else
				known = !strcmp(m->key, "comment");
		}
		if (!known) {
			path_join(&b, "frames", NULL, k);
			if ((rc = want_type(c, x, b.s, HMPT_JSON_OBJECT)))
				return rc;
			return check_keys(c, x, b.s, keys);
		}
		if (!(m = frame)) {
			path_join(&b, "frames", NULL, k);
			path_join(&f, b.s, "frame", -1);
			return fail(c, x, f.s, "missing: expected \"module!0xoffset\"", NULL);
		}
		if ((rc = parse_frame(c, m, &r->module, &r->name_hash, &r->offset, &r->cls))) {
			path_join(&b, "frames", NULL, k);
			path_join(&f, b.s, "frame", -1);
			return frame_fail(c, m, f.s, rc);
		}
		if ((m = symbol)) {
			if (m->type != HMPT_JSON_STRING) {
				path_join(&b, "frames", NULL, k);
				path_join(&f, b.s, "symbol", -1);
				return want_type(c, m, f.s, HMPT_JSON_STRING);
			}
			r->symbol = m->str;
		}
		if ((m = symbolic) && m->type != HMPT_JSON_NULL &&
		    !fields_ok(m, symbolic_fields_g)) {
			path_join(&b, "frames", NULL, k);
			path_join(&f, b.s, "symbolic", -1);
			if ((rc = want_fields(c, m, f.s, symbolic_fields_g)))
				return rc;
		}
	}
	c->nrows = k;
	return 0;
}

static int parse_groups(ctx_t *c, const hmpt_json_t *groups)
{
	static const char *const keys[] = {"name", "pool", "share", "rest", "sites", NULL};
	hmpt_plan_t *pl = c->plan;
	uint32_t nsites = 0, g = 0, slots = 16;
	int rc;

	if ((rc = want_type(c, groups, "groups", HMPT_JSON_ARRAY)))
		return rc;
	for (const hmpt_json_t *v = groups->child; v; v = v->next) {
		const hmpt_json_t *s = member(v, "sites");
		if (s && s->type == HMPT_JSON_ARRAY)
			nsites += s->count;
	}
	while (slots < 2 * nsites)
		slots *= 2;
	pl->groups = bump(c, (groups->count + 1) * sizeof(hmpt_plan_group_t));
	pl->sites = bump(c, (nsites + 1) * sizeof(hmpt_plan_site_t));
	pl->same_next = bump(c, (nsites + 1) * sizeof(uint32_t));
	pl->index = bump(c, slots * sizeof(hmpt_plan_slot_t));
	if (!pl->groups || !pl->sites || !pl->same_next || !pl->index)
		return -ENOMEM;
	pl->index_mask = slots - 1;
	for (const hmpt_json_t *v = groups->child; v; v = v->next, g++) {
		hmpt_plan_group_t *gr = &pl->groups[g];
		const hmpt_json_t *m;
		path_t base, f;

		path_join(&base, "groups", NULL, g);
		if ((rc = want_type(c, v, base.s, HMPT_JSON_OBJECT)) ||
		    (rc = check_keys(c, v, base.s, keys)))
			return rc;
		gr->line = v->line;
		if ((m = member(v, "name"))) {
			path_join(&f, base.s, "name", -1);
			if (m->type != HMPT_JSON_STRING || m->len == 0)
				return fail(c, m, f.s, "expected a non-empty string", m);
			gr->name = m->str;
		} else {
			char *name = bump(c, 24);
			if (!name)
				return -ENOMEM;
			gr->name = hmpt_fmt_text(name, 24, "group%u", (unsigned)(g + 1));
		}
		for (uint32_t k = 0; k < g; k++)
			if (strcmp(pl->groups[k].name, gr->name) == 0) {
				char what[80];
				hmpt_fmt_text(what, sizeof(what),
				              "the name is already used by groups[%u]",
				              (unsigned)k);
				path_join(&f, base.s, "name", -1);
				return fail(c, m ? m : v, f.s, what, NULL);
			}
		path_join(&f, base.s, "pool", -1);
		if (!(m = member(v, "pool")))
			return fail(c, v, f.s, "missing: a group needs a pool", NULL);
		if ((rc = want_pool_ref(c, m, f.s, &gr->pool)))
			return rc;
		gr->share = HMPT_PLAN_SHARE_ONE;
		gr->rest = pl->default_pool;
		if ((m = member(v, "share"))) {
			path_join(&f, base.s, "share", -1);
			if (pl->version < HMPT_PLAN_VERSION_SPLIT)
				return fail(c, m, f.s, "needs \"format_version\": 3", NULL);
			if ((rc = want_share(c, m, f.s, &gr->share)))
				return rc;
		}
		if ((m = member(v, "rest"))) {
			path_join(&f, base.s, "rest", -1);
			if (!member(v, "share"))
				return fail(c, m, f.s, "only applies with \"share\"", NULL);
			if ((rc = want_pool_ref(c, m, f.s, &gr->rest)))
				return rc;
		}
		path_join(&f, base.s, "sites", -1);
		if (!(m = member(v, "sites")))
			return fail(c, v, f.s, "missing: a group needs its sites", NULL);
		if (m->type != HMPT_JSON_ARRAY || m->count == 0)
			return fail(c, m, f.s, "expected a non-empty array of sites",
			            m->type == HMPT_JSON_ARRAY ? NULL : m);
		gr->first_site = pl->nsites;
		uint32_t k = 0;
		for (const hmpt_json_t *x = m->child; x; x = x->next, k++) {
			hmpt_plan_site_t *s = &pl->sites[pl->nsites];
			if ((rc = parse_site(c, x, (site_at_t){g, k}, g, s)))
				return rc;
			/* one identity twice: harmless in one group (stacks that
			 * differ only in runtime frames, as two hosts' profiles
			 * give); in two groups, ambiguous, except in a plan that
			 * loaded before identity left those frames out (version
			 * 1: runtime frames; a version-2 id that hashed frames in
			 * no module): there the first one wins, as matching has it */
			uint32_t first = index_add(pl, pl->nsites);
			for (uint32_t o = first; o != pl->nsites; o = pl->same_next[o])
				if (pl->sites[o].group != g &&
				    ((pl->version > 1 && !pl->sites[o].legacy_anon &&
				      !s->legacy_anon) ||
				     same_frames(&pl->sites[o], s))) {
					char what[240];
					hmpt_fmt_t w;
					hmpt_fmt_init(&w, what, sizeof(what), -1);
					hmpt_fmt_str(&w, "the same site (the same frames, those in "
					                 "runtime libraries or in no module aside, "
					                 "and match) is already in group ");
					hmpt_fmt_json_str(&w, pl->groups[pl->sites[o].group].name);
					hmpt_fmt_printf(&w, " at line %u",
					                (unsigned)pl->sites[o].line);
					path_t sf;
					return fail(c, x,
					            site_path(&sf, (site_at_t){g, k}, NULL, -1),
					            hmpt_fmt_cstr(&w), NULL);
				}
			pl->nsites++;
		}
		gr->nsites = pl->nsites - gr->first_site;
	}
	pl->ngroups = g;
	return 0;
}

/* "modules": {"name": {"build_id": "hex", "path": "..."}} */
static int parse_modules(ctx_t *c, const hmpt_json_t *v)
{
	static const field_t fields[] = {{"build_id", 's'}, {"path", 's'}, {NULL, 0}};
	hmpt_plan_t *pl = c->plan;
	int rc;

	if ((rc = want_type(c, v, "modules", HMPT_JSON_OBJECT)))
		return rc;
	pl->modules = bump(c, (v->count + 1) * sizeof(hmpt_plan_module_t));
	if (!pl->modules)
		return -ENOMEM;
	for (const hmpt_json_t *m = v->child; m; m = m->next) {
		hmpt_plan_module_t *pm = &pl->modules[pl->nmodules];
		const hmpt_json_t *b;
		path_t f;
		path_join(&f, "modules", m->key, -1);
		if ((rc = want_fields(c, m, f.s, fields)))
			return rc;
		pm->name = m->key;
		pm->name_hash = hmpt_hash_module(m->key, strlen(m->key));
		b = member(m, "build_id");
		for (size_t i = 0; b && i < b->len; i++) {
			int d = hex_digit(b->str[i]);
			if (d < 0 || b->len % 2 || b->len > 2 * sizeof(pm->build_id)) {
				path_t bf;
				path_join(&bf, f.s, "build_id", -1);
				return fail(
				    c, b, bf.s,
				    "expected a GNU build id: an even number of hexadecimal "
				    "digits, at most 64",
				    b);
			}
			pm->build_id[i / 2] = (uint8_t)(pm->build_id[i / 2] << 4 | d);
		}
		pm->build_id_len = b ? (uint8_t)(b->len / 2) : 0;
		pm->line = m->line;
		pl->nmodules++;
	}
	return 0;
}

/* ---------------------------------------------------------- top level */

static int parse_top(ctx_t *c, const hmpt_json_t *root)
{
	static const char *const keys[] = {
	    "format",    "format_version", "pools",      "default_pool", "groups", "hbm_nodes",
	    "ddr_nodes", "stack_depth",    "provenance", "modules",      "frames", NULL};
	hmpt_plan_t *pl = c->plan;
	const hmpt_json_t *m;
	uint64_t u;
	int rc;

	if (root->type != HMPT_JSON_OBJECT)
		return fail(c, root, "(top level)", "expected an object", root);
	if ((rc = check_keys(c, root, "", keys)))
		return rc;
	if (!(m = member(root, "format")))
		return fail(c, root, "format", "missing: expected \"" HMPT_PLAN_FORMAT "\"", NULL);
	if (m->type != HMPT_JSON_STRING || strcmp(m->str, HMPT_PLAN_FORMAT) != 0)
		return fail(c, m, "format", "expected \"" HMPT_PLAN_FORMAT "\"", m);
	if (!(m = member(root, "format_version")))
		return fail(c, root, "format_version", "missing: expected 4 (1 to 3 are read too)",
		            NULL);
	if (!hmpt_json_u64(m, &u) || u < 1 || u > HMPT_PLAN_VERSION_COMPACT)
		return fail(c, m, "format_version",
		            "expected 1, 2, 3 or 4 (this hmpt reads plans of versions 1 to 4; a "
		            "newer hmpt wrote this?)",
		            m);
	pl->version = (uint32_t)u;
	if ((m = member(root, "stack_depth"))) {
		if (!hmpt_json_u64(m, &u) || u < 1 || u > 64)
			return fail(c, m, "stack_depth", "expected a whole number from 1 to 64", m);
		pl->stack_depth = (uint32_t)u;
	}
	if ((m = member(root, "hbm_nodes"))) {
		if ((rc = want_nodelist(c, m, "hbm_nodes", &pl->hbm_nodes)))
			return rc;
		pl->has_hbm_nodes = true;
	}
	if ((m = member(root, "ddr_nodes"))) {
		if ((rc = want_nodelist(c, m, "ddr_nodes", &pl->ddr_nodes)))
			return rc;
		pl->has_ddr_nodes = true;
	}
	if ((m = member(root, "provenance"))) {
		if ((rc = want_type(c, m, "provenance", HMPT_JSON_OBJECT)))
			return rc;
		pl->provenance = m;
	}
	if ((m = member(root, "modules")) && (rc = parse_modules(c, m)))
		return rc;
	if ((m = member(root, "frames")) && (rc = parse_frames_table(c, m)))
		return rc;
	if (!(m = member(root, "pools")))
		return fail(c, root, "pools", "missing: a plan needs at least one pool", NULL);
	if ((rc = parse_pools(c, m, member(root, "default_pool"))))
		return rc;
	if (!(m = member(root, "groups")))
		return fail(c, root, "groups",
		            "missing: expected an array of groups (may be empty)", NULL);
	return parse_groups(c, m);
}

int hmpt_plan_parse(const char *text, size_t len, const char *path, hmpt_plan_t *plan, char *err,
                    size_t errlen)
{
	hmpt_json_error_t je;
	ctx_t c = {.file = path, .err = err, .errlen = errlen, .plan = plan};
	int rc;

	memset(plan, 0, sizeof(*plan));
	hmpt_fmt_text(plan->path, sizeof(plan->path), "%s", path);
	if (errlen)
		err[0] = '\0';
	rc = hmpt_json_parse(text, len, &plan->doc, &je);
	if (rc == -EINVAL)
		hmpt_fmt_text(err, errlen, "%s:%u:%u: not valid JSON: %s", path, (unsigned)je.line,
		              (unsigned)je.col, je.msg);
	else if (rc)
		hmpt_fmt_text(err, errlen, "%s: %s", path, strerrordesc_np(-rc));
	if (rc)
		return rc;
	/* sites, frames and names: mostly less than the text; more in
	 * further chunks */
	if (chunk_add(&c, len + 4096) != 0) {
		hmpt_json_free(&plan->doc);
		return -ENOMEM;
	}
	rc = parse_top(&c, plan->doc.root);
	if (rc == -ENOMEM)
		hmpt_fmt_text(err, errlen, "%s: out of memory while reading the plan", path);
	if (rc)
		hmpt_plan_free(plan);
	return rc;
}

/* "PATH: WHY" into err; returns rc */
static int fail_file(const char *path, const char *why, int rc, hmpt_plan_t *plan, char *err,
                     size_t errlen)
{
	hmpt_fmt_text(err, errlen, "%s: %s", path, why);
	memset(plan, 0, sizeof(*plan));
	return rc;
}

int hmpt_plan_load(const char *path, hmpt_plan_t *plan, char *err, size_t errlen)
{
	struct stat st;
	void *text;
	int fd, rc;

	/* O_NONBLOCK: a FIFO named as the plan must not wait for a writer;
	 * anything but a regular file is refused below */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return fail_file(path, strerrordesc_np(errno), -errno, plan, err, errlen);
	if (fstat(fd, &st) != 0) {
		rc = -errno;
		close(fd);
		return fail_file(path, strerrordesc_np(-rc), rc, plan, err, errlen);
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > HMPT_PLAN_MAX_BYTES) {
		close(fd);
		return fail_file(path,
		                 S_ISREG(st.st_mode) ? "larger than 64 MiB: not a plan"
		                                     : "not a regular file",
		                 -EINVAL, plan, err, errlen);
	}
	if (st.st_size == 0) {
		close(fd);
		return hmpt_plan_parse("", 0, path, plan, err, errlen);
	}
	/* read, not mapped: a file cut short while the shim reads it (its
	 * owner rewriting it in place) must not raise SIGBUS in the program */
	size_t len = 0, cap = (size_t)st.st_size;
	text = hmpt_sys_map(cap);
	rc = text ? 0 : -ENOMEM;
	while (rc == 0 && len < cap) {
		ssize_t n = read(fd, (char *)text + len, cap - len);
		if (n < 0 && errno != EINTR)
			rc = -errno;
		else if (n == 0)
			cap = len; /* shorter now: what was there */
		else if (n > 0)
			len += (size_t)n;
	}
	close(fd);
	if (rc == 0)
		rc = hmpt_plan_parse(text, len, path, plan, err, errlen);
	else
		fail_file(path, strerrordesc_np(-rc), rc, plan, err, errlen);
	hmpt_sys_unmap(text, (size_t)st.st_size);
	return rc;
}

void hmpt_plan_free(hmpt_plan_t *plan)
{
	hmpt_json_free(&plan->doc);
	for (chunk_t *k = plan->mem, *next; k; k = next) {
		next = k->next;
		hmpt_sys_unmap(k, k->len);
	}
	plan->mem = NULL;
	plan->index = NULL;
	plan->same_next = NULL;
	plan->prefix_lens = 0;
	plan->groups = NULL;
	plan->sites = NULL;
	plan->ngroups = plan->nsites = 0;
	plan->modules = NULL;
	plan->nmodules = 0;
	plan->npools = 0;
}

int hmpt_plan_module(const hmpt_plan_t *plan, uint64_t name_hash)
{
	for (uint32_t i = 0; i < plan->nmodules; i++)
		if (plan->modules[i].name_hash == name_hash)
			return (int)i;
	return -1;
}

const char *hmpt_plan_pool_name(const hmpt_plan_t *plan, int pool)
{
	if (pool < 0 || pool >= plan->npools)
		return HMPT_POOL_SYSTEM_NAME;
	return plan->pools[pool].name;
}

const char *hmpt_plan_policy_name(hmpt_policy_t p)
{
	return policies_g[p];
}

void hmpt_plan_tier_format(hmpt_fmt_t *f, int tier)
{
	if (tier == 0 || tier == HMPT_TIER_SLOWEST)
		hmpt_fmt_str(f, tier ? "slowest" : "fastest");
	else
		hmpt_fmt_printf(f, "%d", tier);
}

const char *hmpt_plan_pages_name(hmpt_pages_t p)
{
	return pages_g[p];
}
