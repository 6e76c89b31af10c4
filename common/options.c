/* options.c — the HMPT_* table and its strict parser (see options.h). */
#include "options.h"

#include <errno.h>
#include <string.h>

#include "fmt.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)
#define TiB (UINT64_C(1) << 40)

const hmpt_option_t hmpt_options_g[HMPT_OPT_COUNT] = {
    [HMPT_OPT_MIN_SIZE] = {"HMPT_MIN_SIZE", HMPT_OPT_TYPE_SIZE, MiB, 1, TiB, "1M",
                           "Allocations of at least this many bytes are tracked (named by call "
                           "site, profiled, placed); smaller ones go straight to the normal "
                           "allocator."},
    [HMPT_OPT_PROFILE] = {"HMPT_PROFILE", HMPT_OPT_TYPE_STRING, 0, 0, 0, "(none)",
                          "Write a profile to this path when the process ends; %p is the pid, "
                          "%h the host name, %e the program name, %r the MPI rank, %% a "
                          "percent sign (an MPI rank without %r gets .rankN before the "
                          "extension)."},
    [HMPT_OPT_STACK_DEPTH] = {"HMPT_STACK_DEPTH", HMPT_OPT_TYPE_UINT, 16, 1, 64, "16",
                              "Call-stack frames kept per allocation site (1 to 64)."},
    [HMPT_OPT_VERBOSE] = {"HMPT_VERBOSE", HMPT_OPT_TYPE_UINT, 0, 0, 2, "0",
                          "0: errors and warnings only; 1: also what hmpt set up and wrote; "
                          "2: also every tracked allocation."},
    [HMPT_OPT_ARENA_SIZE] =
        {"HMPT_ARENA_SIZE", HMPT_OPT_TYPE_SIZE, 16 * TiB, 1 * GiB, 64 * TiB, "16T",
         "Virtual address range reserved for tracked blocks (reserved, not "
         "used: memory is taken only as blocks are allocated). Under ulimit -v, at "
         "most the limit, reserved as blocks need it."},
    [HMPT_OPT_PLAN] = {"HMPT_PLAN", HMPT_OPT_TYPE_STRING, 0, 0, 0, "(none)",
                       "Place tracked allocations as this plan file says (docs/plan-format.md); "
                       "a plan that cannot be used leaves default placement, with one error "
                       "line."},
    [HMPT_OPT_STRICT] = {"HMPT_STRICT", HMPT_OPT_TYPE_UINT, 0, 0, 1, "0",
                         "1: when the plan cannot be read or does not fit the machine, stop the "
                         "program at once with exit status 125 instead of running it with "
                         "default placement."},
    [HMPT_OPT_HBM_NODES] = {"HMPT_HBM_NODES", HMPT_OPT_TYPE_STRING, 0, 0, 0, "(detected)",
                            "The HBM nodes, as a node list such as 2-3; overrides the plan's "
                            "hbm_nodes and the detection from HMAT or memkind."},
    [HMPT_OPT_DDR_NODES] = {"HMPT_DDR_NODES", HMPT_OPT_TYPE_STRING, 0, 0, 0, "(detected)",
                            "The DDR nodes, as a node list such as 0-1; default: the nodes with "
                            "CPUs and memory that are not HBM."},
    [HMPT_OPT_SAMPLE] = {"HMPT_SAMPLE", HMPT_OPT_TYPE_STRING, 0, 0, 0, "off",
                         "Sample memory accesses and attribute them to tracked allocations: "
                         "auto (or 1) takes the best this machine has, or name one of pebs "
                         "(Intel), ibs (AMD), timer (a CPU-time timer whose samples are "
                         "decoded to data addresses, with page faults for the bytes: what "
                         "auto takes without a PMU), faults (software page faults: first "
                         "touch only); off (or 0) does not sample."},
    [HMPT_OPT_SAMPLE_PERIOD] = {"HMPT_SAMPLE_PERIOD", HMPT_OPT_TYPE_UINT, 0, 0, UINT64_C(1) << 32,
                                "(per kind)",
                                "One sample every this many events: PEBS loads 4001 (stores "
                                "25 times that), IBS ops 524288 (a multiple of 16, at least "
                                "0x90), the timer every this many ns of a thread's CPU time "
                                "(1000000: 1 kHz); page faults are always all sampled."},
    [HMPT_OPT_SAMPLE_LDLAT] = {"HMPT_SAMPLE_LDLAT", HMPT_OPT_TYPE_UINT, 30, 3, 65535, "30",
                               "PEBS: sample loads that take at least this many cycles."},
    [HMPT_OPT_RANKS] = {"HMPT_RANKS", HMPT_OPT_TYPE_STRING, 0, 0, 0, "one",
                        "In an MPI job: one says each warning once per node (from the first "
                        "rank that has it) and ends with one summary line for the job; all "
                        "lets every rank say its own, marked hmpt[rank N]."},
    [HMPT_OPT_STATIC] = {"HMPT_STATIC", HMPT_OPT_TYPE_UINT, 1, 0, 1, "1",
                         "1: static data objects of at least HMPT_MIN_SIZE (arrays in .bss "
                         "and .data, Fortran COMMON blocks) are sites too, profiled and placed "
                         "when a plan names them (read at start when a plan, a profile or "
                         "sampling is asked for); 0: static data is left alone."},
};

int hmpt_options_parse_uint(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v))
			return -ERANGE;
	}
	if (*s)
		return -EINVAL;
	*out = v;
	return 0;
}

int hmpt_options_parse_size(const char *s, uint64_t *out)
{
	char digits[32];
	size_t n = s ? strlen(s) : 0;
	uint64_t mult = 1, v;
	int rc;

	if (n == 0 || n >= sizeof(digits))
		return n ? -ERANGE : -EINVAL;
	memcpy(digits, s, n + 1);
	/* accept K, KB, KiB (any case) for each binary multiple */
	if (n > 1 && (digits[n - 1] == 'b' || digits[n - 1] == 'B')) {
		digits[--n] = '\0';
		if (n > 1 && (digits[n - 1] == 'i' || digits[n - 1] == 'I'))
			digits[--n] = '\0';
	}
	switch (n ? digits[n - 1] : 0) {
	case 'k':
	case 'K': mult = KiB; break;
	case 'm':
	case 'M': mult = MiB; break;
	case 'g':
	case 'G': mult = GiB; break;
	case 't':
	case 'T': mult = TiB; break;
	default: break;
	}
	if (mult != 1)
		digits[--n] = '\0';
	rc = hmpt_options_parse_uint(digits, &v);
	if (rc)
		return rc;
	if (__builtin_mul_overflow(v, mult, out))
		return -ERANGE;
	return 0;
}

static void report_bad(const hmpt_option_t *o, const char *value, const char *why,
                       hmpt_opt_report_fn report, void *ctx)
{
	char buf[512], range[64] = "";

	if (!report)
		return;
	if (o->type == HMPT_OPT_TYPE_SIZE)
		hmpt_fmt_text(range, sizeof(range), " from %s to %s", HMPT_SIZE(o->min),
		              HMPT_SIZE(o->max));
	else if (o->type != HMPT_OPT_TYPE_STRING)
		hmpt_fmt_text(range, sizeof(range), " from %llu to %llu",
		              (unsigned long long)o->min, (unsigned long long)o->max);
	report(hmpt_fmt_text(buf, sizeof(buf), "%s='%s': %s%s; using the default %s", o->name,
	                     value, why, range, o->def_text),
	       ctx);
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The edits that make a into b, or more than `most` when there are more:
 * the optimal string alignment distance, case ignored, on three rows */
static unsigned edits(const char *a, size_t na, const char *b, size_t nb, unsigned most)
{
	enum { ROW = 64 };
	unsigned rows[3][ROW + 1], *two = rows[0], *one = rows[1], *cur = rows[2];

	if (na > ROW || nb > ROW || (na > nb ? na - nb : nb - na) > most)
		return most + 1;
	for (size_t j = 0; j <= nb; j++)
		one[j] = (unsigned)j;
	for (size_t i = 1; i <= na; i++) {
		cur[0] = (unsigned)i;
		for (size_t j = 1; j <= nb; j++) {
			unsigned cost = lower(a[i - 1]) != lower(b[j - 1]);
			unsigned d = one[j - 1] + cost;
			if (one[j] + 1 < d)
				d = one[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
			    lower(a[i - 2]) == lower(b[j - 1]) && two[j - 2] + 1 < d)
				d = two[j - 2] + 1;
			cur[j] = d;
		}
		unsigned *t = two;
		two = one;
		one = cur;
		cur = t;
	}
	return one[nb];
}

int hmpt_options_nearest(const char *entry)
{
	size_t n = strcspn(entry, "=");
	unsigned best = HMPT_OPT_NEAR + 1;
	int near = -1;

	for (int i = 0; i < HMPT_OPT_COUNT; i++) {
		const char *name = hmpt_options_g[i].name;
		unsigned d = edits(entry, n, name, strlen(name), HMPT_OPT_NEAR);
		if (d < best) {
			best = d;
			near = i;
		}
	}
	return near;
}

static void report_unknown(const char *entry, int near, hmpt_opt_report_fn report, void *ctx)
{
	char buf[512];

	report(hmpt_fmt_text(buf, sizeof(buf),
	                     "unknown variable %.*s ignored: did you mean %s? (hmpt-tune env "
	                     "lists the variables hmpt reads)",
	                     (int)strcspn(entry, "="), entry, hmpt_options_g[near].name),
	       ctx);
}

static void parse_one(const hmpt_option_t *o, const char *value, hmpt_opt_value_t *v,
                      char text[HMPT_OPT_TEXT_MAX], hmpt_opt_report_fn report, void *ctx)
{
	uint64_t num;
	int rc;

	if (o->type == HMPT_OPT_TYPE_STRING) {
		size_t n = strlen(value);
		char buf[512];
		if (!n) {
			report_bad(o, value, "expected a non-empty value", report, ctx);
			return;
		}
		if (n >= HMPT_OPT_TEXT_MAX) {
			/* the value itself would fill the message: its start only */
			if (report)
				report(hmpt_fmt_text(
				           buf, sizeof(buf),
				           "%s='%.40s...': %zu bytes, longer than the %d hmpt "
				           "keeps; using the default %s",
				           o->name, value, n, HMPT_OPT_TEXT_MAX - 1, o->def_text),
				       ctx);
			return;
		}
		memcpy(text, value, n + 1);
		v->str = text;
		v->set = true;
		return;
	}
	rc = o->type == HMPT_OPT_TYPE_SIZE ? hmpt_options_parse_size(value, &num)
	                                   : hmpt_options_parse_uint(value, &num);
	if (rc == 0 && (num < o->min || num > o->max))
		rc = -ERANGE;
	if (rc) {
		report_bad(o, value,
		           o->type == HMPT_OPT_TYPE_SIZE
		               ? "expected a size in bytes, with an optional K, M, G or T suffix,"
		               : "expected a whole number",
		           report, ctx);
		return;
	}
	v->num = num;
	v->set = true;
}

/* Variables of hmpt's build and test tools, not the shim's: the test suite
 * (HMPT_TEST_*), the QEMU guest (HMPT_VM_*), the tests' Slurm cluster
 * (HMPT_SLURM_*), the dependency step (HMPT_DEPS, HMPT_DEPS_KEYS,
 * HMPT_OS_RELEASE).  `make check HMPT_DEPS=build` puts HMPT_DEPS in every
 * test's environment: calling it unknown would break every test that
 * expects a quiet shim. */
bool hmpt_options_tool_var(const char *entry)
{
	static const char *const prefixes[] = {"HMPT_TEST_", "HMPT_VM_",   "HMPT_SLURM_",
	                                       "HMPT_DEPS=", "HMPT_DEPS_", "HMPT_OS_RELEASE="};

	for (unsigned i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(entry, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

void hmpt_options_load(char *const *envp, hmpt_opt_value_t values[HMPT_OPT_COUNT],
                       char text[HMPT_OPT_COUNT][HMPT_OPT_TEXT_MAX], hmpt_opt_report_fn report,
                       void *ctx)
{
	for (int i = 0; i < HMPT_OPT_COUNT; i++) {
		values[i].num = hmpt_options_g[i].def;
		values[i].str = NULL;
		values[i].set = false;
	}
	for (; envp && *envp; envp++) {
		const char *e = *envp;
		bool known = false;

		if (strncmp(e, "HMPT_", 5) != 0 || hmpt_options_tool_var(e))
			continue;
		for (int i = 0; i < HMPT_OPT_COUNT; i++) {
			size_t n = strlen(hmpt_options_g[i].name);
			if (strncmp(e, hmpt_options_g[i].name, n) == 0 && e[n] == '=') {
				known = true;
				parse_one(&hmpt_options_g[i], e + n + 1, &values[i], text[i],
				          report, ctx);
				break;
			}
		}
		int near = known || !report ? -1 : hmpt_options_nearest(e);
		if (near >= 0)
			report_unknown(e, near, report, ctx);
	}
}
