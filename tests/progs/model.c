/* model.c — a workload whose figure follows exactly from where its pages
 * are, for the tuner's tests (issue 16: tests are exact, benchmarks real).
 *
 * It allocates and touches up to six heap arrays (h0-h5, each from a call
 * site of its own) and two static ones (s0, s1: 8 MiB each in .bss), reads
 * back where the kernel really put each array's pages (page sizes from
 * PAGEMAP_SCAN, /proc/kpageflags or smaps; nodes from move_pages), and
 * prints a time computed from a declared cost model:
 *
 *   f_i   the share of array i's pages that are in the fast pool (huge
 *         pages with --fast huge, the default; pages on the listed nodes
 *         with --fast nodes=LIST)
 *   T  =  base + sum_i w_i (1 - f_i (1 - 1/r_i)) - interactions
 *
 * with w_i the array's weight (its seconds in the slow pool) and r_i its
 * fast/slow speed ratio.  --saturate C lets the saving S = sum_i w_i f_i
 * (1 - 1/r_i) saturate as S C / (S + C) (a shared bandwidth: more in the
 * fast pool gains less than the sum); --pair A,B,X adds X f_A f_B seconds.
 * --noise SD multiplies T by exp(SD z), z drawn from a normal distribution
 * seeded by --seed, the placement and, with --state FILE, a count of the
 * runs with that placement kept in FILE: the k-th run of a placement gets
 * the same noise in every tuning, in any order of runs.  Without --state
 * the noise is drawn afresh.  --node NAME:F multiplies T by F on the Slurm
 * node NAME (SLURMD_NODENAME): nodes of different speed, which a pair of
 * runs on one node cancels.
 *
 * --noise-model picks the noise's shape, for calibrating the tuner's
 * statistics against noise they do not assume (bench/calibrate.sh); each
 * is deterministic under --state like the default:
 *   lognormal  exp(SD z), as above (the default: the same figures as before)
 *   drift      the machine slows or speeds over the tuning: exp(SD z + D(n)),
 *              n the run's number among all runs of all placements (kept in
 *              FILE too, so drift needs --state), D(n) a trend of SD (2 + 2u)
 *              per 100 runs, its sign and u in [0, 1) from the seed, plus a
 *              random walk of step SD/5 from the seed; with SD 0.05: 10-20 %
 *              per 100 runs and the walk's sd 10 % after 100 runs: 5-30 %
 *              over a tuning of 100 runs (the walk may cancel the trend),
 *              as a busy shared node drifts
 *   burst      exp(SD z), and one run in 10 slower by a factor 1.3-3
 *              (uniform): another job's burst on the node
 *   heavy      exp(SD t), t Student's t with 3 degrees of freedom: heavy
 *              tails (t's sd is sqrt(3) SD)
 *   bimodal    exp(SD z), times 1.12 in half the runs: two modes 12 % apart
 *              (as a huge page granted or not to something else)
 * Those five draw their noise alike for every placement (D(n) depends on
 * when a run is, not on what it places): the noise is exchangeable between
 * placements, so the true speedup of a placement is the ratio of the
 * noise-free figures (what tests/integration/model_truth.py computes).
 * Five more hit placements unlike (issue 40: structures real machines have
 * that a paired interval does not assume); they need --state, which keeps
 * the placement of the run before and those of the round so far too:
 *   carry      exp(SD z), 3 % faster right after a run of all-slow
 *              (placement 0): page cache, free huge pages, the clock
 *   position   exp(SD z), 5 % slower for the first run of a round (a round
 *              ends where a placement comes again)
 *   load       exp(SD z), and a bandwidth co-tenant on in 30 % of the runs
 *              (a two-state chain over the run number n, from the seed) that
 *              slows all-slow by 10 %, any other placement by 4 %
 *   pages      exp(SD z), and 2 MiB pages refused in 30 % of the runs (the
 *              same chain): a run's arrays then gain nothing, as if all slow
 *   frequency  exp(SD z), and the clock at 0.7 in 30 % of the runs (the same
 *              chain): the time no pool changes (--base and the arrays of
 *              ratio 1) stretches by 1/0.7, so the speedup shrinks
 * Their truth (model_truth.py): carry, position and load are nuisances of
 * the measurement (the true speedup is the noise-free ratio); pages and
 * frequency are the machine's own states, met by a user too (the true
 * speedup is exp(E log speedup) over them).
 *
 * Usage: model [options] ARRAY...
 *   ARRAY = NAME:SIZE:WEIGHT[:RATIO], e.g. h0:8M:1.5:2 (static arrays take
 *   SIZE "-": they are 8 MiB)
 * --read-back scan|kpageflags|smaps picks how page sizes are read (default:
 * the first that works here, in that order).
 * Prints one line per array and "Time in seconds = T (modelled ...)".
 * Under MPI only rank 0 prints the figure.  Exit 0, or 2 on bad usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <numaif.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define STATIC_BYTES ((size_t)8 << 20)
#define MAX_ARRAYS   8
#define MAX_PAIRS    16
#define MAX_NODES    64

/* 2 MiB aligned, so that every 2 MiB of them can be a huge page */
static char s0[STATIC_BYTES] __attribute__((aligned(2 << 20)));
static char s1[STATIC_BYTES] __attribute__((aligned(2 << 20)));

/* One call site per heap array: a site is known by its call stack. */
static __attribute__((noinline)) void *alloc_h0(size_t n)
{
	return malloc(n);
}
static __attribute__((noinline)) void *alloc_h1(size_t n)
{
	return malloc(n);
}
static __attribute__((noinline)) void *alloc_h2(size_t n)
{
	return calloc(1, n);
}
static __attribute__((noinline)) void *alloc_h3(size_t n)
{
	return malloc(n);
}
static __attribute__((noinline)) void *alloc_h4(size_t n)
{
	void *p = NULL;
	return posix_memalign(&p, 4096, n) == 0 ? p : NULL;
}
static __attribute__((noinline)) void *alloc_h5(size_t n)
{
	return malloc(n);
}

static void *(*const heap_alloc[])(size_t) = {alloc_h0, alloc_h1, alloc_h2,
                                              alloc_h3, alloc_h4, alloc_h5};

typedef struct {
	char name[4];
	char *p;
	size_t bytes;
	double weight, ratio;
	size_t pages, huge, on_fast_nodes; /* 4 KiB pages */
	long nodes[MAX_NODES + 1];         /* pages per node; [MAX_NODES]: none */
	double fast;
} array_t;

typedef struct {
	int a, b;
	double seconds;
} pair_t;

static const char *method_g = "none", *read_back_g = "auto";

static void usage_error(const char *what, const char *arg)
{
	fprintf(stderr,
	        "model: %s%s%s%s\nUsage: model [--fast huge|nodes=LIST] [--base S] "
	        "[--saturate S] [--pair A,B,S] [--noise SD] [--seed N] [--state FILE] "
	        "[--noise-model lognormal|drift|burst|heavy|bimodal|carry|position|load|pages|"
	        "frequency] [--read-back HOW] "
	        "[--node NAME:FACTOR] "
	        "NAME:SIZE:WEIGHT[:RATIO]...\n",
	        what, arg ? ": '" : "", arg ? arg : "", arg ? "'" : "");
	exit(2);
}

static double parse_double(const char *s, const char *what)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		usage_error(what, s);
	return v;
}

static size_t parse_size(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
	if (errno || end == s || s[0] == '-' || (shift && end[1]) || (!shift && *end) || v == 0)
		usage_error("expected a size such as 8M", s);
	return (size_t)v << shift;
}

/* "h0:8M:1.5:2" -> a; the array is allocated and touched here */
static void array_parse(const char *spec, array_t *a)
{
	char buf[128], *f[4] = {0};
	int n = 0;

	if (strlen(spec) >= sizeof(buf))
		usage_error("array spec too long", spec);
	strcpy(buf, spec);
	for (char *s = buf, *tok; n < 4 && (tok = strsep(&s, ":"));)
		f[n++] = tok;
	if (n < 3)
		usage_error("expected NAME:SIZE:WEIGHT[:RATIO]", spec);
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%s", f[0]);
	a->weight = parse_double(f[2], "WEIGHT: expected a number of seconds");
	a->ratio = f[3] ? parse_double(f[3], "RATIO: expected a number above 0") : 2.0;
	if (a->weight < 0 || a->ratio <= 0)
		usage_error("expected a weight of at least 0 and a ratio above 0", spec);
	if (strcmp(f[0], "s0") == 0 || strcmp(f[0], "s1") == 0) {
		if (strcmp(f[1], "-") != 0)
			usage_error("a static array's size is fixed: give '-'", spec);
		a->p = f[0][1] == '0' ? s0 : s1;
		a->bytes = STATIC_BYTES;
	} else if (f[0][0] == 'h' && f[0][1] >= '0' && f[0][1] <= '5' && !f[0][2]) {
		a->bytes = parse_size(f[1]);
		a->p = heap_alloc[f[0][1] - '0'](a->bytes);
		if (!a->p) {
			fprintf(stderr, "model: cannot allocate %zu bytes for %s\n", a->bytes,
			        a->name);
			exit(1);
		}
	} else {
		usage_error("NAME: expected h0-h5 or s0, s1", f[0]);
	}
}

/* ---------------------------------------------------- where pages are */

/* PAGEMAP_SCAN (Linux 6.7): the kernel's own page-table walk, no privilege
 * needed; declared here as include/uapi/linux/fs.h has it, for older
 * headers. */
struct hmpt_page_region {
	uint64_t start, end, categories;
};
struct hmpt_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define HMPT_PAGEMAP_SCAN    _IOWR('f', 16, struct hmpt_pm_scan_arg)
#define HMPT_PAGE_IS_HUGE    (1u << 6)
#define HMPT_PAGE_IS_PRESENT (1u << 3)

/* Huge-page bytes of [p, p+len) by PAGEMAP_SCAN; -1 where the kernel lacks it */
static long long huge_by_scan(int fd, const char *p, size_t len)
{
	struct hmpt_page_region r[64];
	uint64_t start = (uintptr_t)p, end = start + len;
	long long huge = 0;

	while (start < end) {
		struct hmpt_pm_scan_arg arg = {
		    .size = sizeof(arg),
		    .start = start,
		    .end = end,
		    .vec = (uintptr_t)r,
		    .vec_len = 64,
		    .category_anyof_mask = HMPT_PAGE_IS_PRESENT,
		    .return_mask = HMPT_PAGE_IS_HUGE | HMPT_PAGE_IS_PRESENT,
		};
		long n = ioctl(fd, HMPT_PAGEMAP_SCAN, &arg);
		if (n < 0)
			return -1;
		for (long i = 0; i < n; i++)
			if (r[i].categories & HMPT_PAGE_IS_HUGE)
				huge += (long long)(r[i].end - r[i].start);
		if (arg.walk_end <= start)
			break;
		start = arg.walk_end;
	}
	return huge;
}

/* Huge-page bytes by the page frames' flags (root only): KPF_HUGE (17) for
 * hugetlb, KPF_THP (22); -1 where they cannot be read */
static long long huge_by_kpageflags(int pm, const char *p, size_t len)
{
	int kf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	long long huge = 0;

	if (kf < 0)
		return -1;
	for (size_t off = 0; off < len; off += 4096) {
		uint64_t e, flags;
		uint64_t vpn = ((uintptr_t)p + off) / 4096;
		if (pread(pm, &e, 8, (off_t)(vpn * 8)) != 8) {
			huge = -1;
			break;
		}
		uint64_t pfn = e & ((1ull << 55) - 1);
		if (!(e >> 63 & 1))
			continue; /* not present */
		if (pfn == 0) {   /* PFNs hidden: not privileged */
			huge = -1;
			break;
		}
		if (pread(kf, &flags, 8, (off_t)(pfn * 8)) != 8) {
			huge = -1;
			break;
		}
		if (flags >> 17 & 1 || flags >> 22 & 1)
			huge += 4096;
	}
	close(kf);
	return huge;
}

/* Huge-page bytes from smaps: the VMAs' AnonHugePages and Private_Hugetlb,
 * shared out by how much of each VMA the range covers (approximate where a
 * VMA holds more than this array) */
static long long huge_by_smaps(const char *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len;
	double huge = 0, share = 0;
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b, v;
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			uintptr_t x = a > lo ? a : lo, y = b < hi ? b : hi;
			share = y > x ? (double)(y - x) / (double)(b - a) : 0;
			continue;
		}
		if (sscanf(line, "AnonHugePages: %lu kB", &v) == 1 ||
		    sscanf(line, "Private_Hugetlb: %lu kB", &v) == 1)
			huge += share * (double)v * 1024;
	}
	fclose(f);
	return (long long)huge;
}

static void array_read_back(array_t *a, const bool *fast_node, bool fast_huge)
{
	size_t n = a->bytes / 4096;
	void **pages = malloc(n * sizeof(*pages));
	int *status = malloc(n * sizeof(*status));
	long long huge = -1;

	if (!pages || !status) {
		fprintf(stderr, "model: out of memory\n");
		exit(1);
	}
	a->pages = n;
	for (size_t i = 0; i < n; i++)
		pages[i] = a->p + i * 4096;
	if (move_pages(0, n, pages, NULL, status, 0) != 0)
		for (size_t i = 0; i < n; i++)
			status[i] = -errno;
	for (size_t i = 0; i < n; i++) {
		int nd = status[i] >= 0 && status[i] < MAX_NODES ? status[i] : MAX_NODES;
		a->nodes[nd]++;
		a->on_fast_nodes += nd < MAX_NODES && fast_node[nd];
	}
	free(pages);
	free(status);

	/* the first method that works, or the one --read-back asks for */
	bool any = strcmp(read_back_g, "auto") == 0;
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pm >= 0) {
		if ((any || strcmp(read_back_g, "scan") == 0) &&
		    (huge = huge_by_scan(pm, a->p, n * 4096)) >= 0)
			method_g = "pagemap-scan";
		else if ((any || strcmp(read_back_g, "kpageflags") == 0) &&
		         (huge = huge_by_kpageflags(pm, a->p, n * 4096)) >= 0)
			method_g = "kpageflags";
		close(pm);
	}
	if (huge < 0 && (any || strcmp(read_back_g, "smaps") == 0) &&
	    (huge = huge_by_smaps(a->p, n * 4096)) >= 0)
		method_g = "smaps (approximate: per VMA)";
	if (huge < 0) {
		fprintf(stderr, "model: page sizes cannot be read back by %s here\n", read_back_g);
		exit(1);
	}
	a->huge = huge > 0 ? (size_t)huge / 4096 : 0;
	a->fast = n ? (double)(fast_huge ? a->huge : a->on_fast_nodes) / (double)n : 0;
}

/* -------------------------------------------------------------- noise */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double normal(uint64_t *s)
{
	double u1 = ((double)(splitmix(s) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = (double)(splitmix(s) >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* This placement's run count so far, counted up in FILE under a lock:
 * lines "PLACEMENT COUNT", and "runs COUNT" for all placements together
 * (returned in *all_runs: drift's clock); "last PLACEMENT", the run before
 * (*prev, -1: none), and "round PLACEMENT...", those of the round so far
 * (*first: this run starts a round) */
static uint64_t state_next(const char *path, unsigned placement, uint64_t *all_runs, int *prev,
                           bool *first)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	char buf[8192] = "", out[8192 + 128];
	uint64_t count = 0;
	unsigned long long runs = 0;
	size_t o = 0;
	unsigned last = 0, seen[256], nseen = 0;
	bool has_last = false;

	if (fd < 0 || flock(fd, LOCK_EX) != 0) {
		fprintf(stderr, "model: --state %s: %s\n", path, strerror(errno));
		exit(1);
	}
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	for (char *s = buf, *line; (line = strsep(&s, "\n"));) {
		unsigned pl;
		unsigned long long c;
		int used = 0;
		if (sscanf(line, "runs %llu", &c) == 1)
			runs = c;
		else if (sscanf(line, "last %x", &last) == 1)
			has_last = true;
		else if (strncmp(line, "round", 5) == 0)
			for (char *p = line + 5; nseen < 256 && sscanf(p, " %x%n", &pl, &used) == 1;
			     p += used)
				seen[nseen++] = pl;
		else if (sscanf(line, "%x %llu", &pl, &c) != 2)
			continue;
		else if (pl == placement)
			count = c;
		else
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%x %llu\n", pl, c);
	}
	o += (size_t)snprintf(out + o, sizeof(out) - o, "%x %llu\nruns %llu\nlast %x\n", placement,
	                      (unsigned long long)count + 1, runs + 1, placement);
	/* the round so far: it starts again where a placement comes again */
	*first = nseen == 0;
	for (unsigned i = 0; i < nseen; i++)
		*first |= seen[i] == placement;
	if (*first)
		nseen = 0;
	o += (size_t)snprintf(out + o, sizeof(out) - o, "round");
	for (unsigned i = 0; i < nseen && o < sizeof(out) - 16; i++)
		o += (size_t)snprintf(out + o, sizeof(out) - o, " %x", seen[i]);
	o += (size_t)snprintf(out + o, sizeof(out) - o, " %x\n", placement);
	if (ftruncate(fd, 0) != 0 || pwrite(fd, out, o, 0) != (ssize_t)o) {
		fprintf(stderr, "model: --state %s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd); /* drops the lock */
	*all_runs = runs;
	*prev = has_last ? (int)last : -1;
	return count;
}

static double uniform(uint64_t *s)
{
	return (double)(splitmix(s) >> 11) / 9007199254740992.0;
}

typedef enum {
	NOISE_LOGNORMAL,
	NOISE_DRIFT,
	NOISE_BURST,
	NOISE_HEAVY,
	NOISE_BIMODAL,
	NOISE_CARRY,
	NOISE_POSITION,
	NOISE_LOAD,
	NOISE_PAGES,
	NOISE_FREQUENCY
} noise_model_t;
static const char *const noise_model_names[] = {"lognormal", "drift",    "burst",    "heavy",
                                                "bimodal",   "carry",    "position", "load",
                                                "pages",     "frequency"};

#define OTHER_SHARE 0.3 /* the runs in the other state: loaded, refused, slow clock */
#define CLOCK_LOW   0.7

/* Whether run n (of all runs) is in the other state of a two-state chain
 * drawn from the seed alone: it stays put 80 % of the time in that state,
 * and is there OTHER_SHARE of the runs on average. */
static bool other_state(uint64_t seed, uint64_t n)
{
	uint64_t s = seed * 0x8cb92ba72f3d8dd7ull ^ 0x2127599bf4325c37ull;
	bool on = uniform(&s) < OTHER_SHARE;
	for (uint64_t i = 0; i < n; i++)
		if (uniform(&s) < (on ? 0.2 : 0.2 * OTHER_SHARE / (1 - OTHER_SHARE)))
			on = !on;
	return on;
}

/* The log of drift's factor at run n of all runs: a trend and a random walk,
 * both drawn from the seed alone, so every placement sees the same drift */
static double drift_log(double sd, uint64_t seed, uint64_t n)
{
	uint64_t s = seed * 0xd6e8feb86659fd93ull ^ 0x5851f42d4c957f2dull;
	double sign = uniform(&s) < 0.5 ? -1 : 1;
	double trend = sign * sd * (2 + 2 * uniform(&s)) / 100; /* per run */
	double walk = 0;
	for (uint64_t i = 0; i < n; i++)
		walk += sd / 5 * normal(&s);
	return trend * (double)n + walk;
}

/* The factor a run's figure is multiplied by; s: the run's own stream
 * (seed, placement, count), n: its number among all runs */
static double noise_factor(noise_model_t m, double sd, uint64_t *s, uint64_t seed, uint64_t n)
{
	double z = normal(s); /* the first draw: lognormal's, as before */
	switch (m) {
	case NOISE_LOGNORMAL:
	case NOISE_CARRY:
	case NOISE_POSITION:
	case NOISE_LOAD:
	case NOISE_PAGES:
	case NOISE_FREQUENCY: break;
	case NOISE_DRIFT: return exp(sd * z + drift_log(sd, seed, n));
	case NOISE_BURST:
		if (uniform(s) < 0.1)
			return exp(sd * z) * (1.3 + 1.7 * uniform(s));
		break;
	case NOISE_HEAVY: {
		double chi2 = 0;
		for (int i = 0; i < 3; i++) {
			double x = normal(s);
			chi2 += x * x;
		}
		return exp(sd * z / sqrt(chi2 / 3));
	}
	case NOISE_BIMODAL: return exp(sd * z) * (uniform(s) < 0.5 ? 1.12 : 1);
	}
	return exp(sd * z);
}

static int mpi_rank(void)
{
	static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
	                             "SLURM_PROCID"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(*vars); i++)
		if (getenv(vars[i]))
			return atoi(getenv(vars[i]));
	return 0;
}

int main(int argc, char **argv)
{
	array_t arrays[MAX_ARRAYS];
	pair_t pairs[MAX_PAIRS];
	bool fast_node[MAX_NODES] = {false}, fast_huge = true;
	double base = 0, saturate = 0, noise = 0;
	uint64_t seed = 1;
	const char *state = NULL;
	double node_factor = 1;
	noise_model_t noise_model = NOISE_LOGNORMAL;
	int narrays = 0, npairs = 0;

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = strncmp(o, "--", 2) == 0 && strcmp(o, "--help") != 0;
		if (takes && !v)
			usage_error("option needs a value", o);
		if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
			fputs("model: a workload whose figure follows exactly from where its "
			      "pages are; see the head of tests/progs/model.c\n",
			      stdout);
			return 0;
		} else if (strcmp(o, "--fast") == 0) {
			if (strcmp(v, "huge") == 0) {
				fast_huge = true;
			} else if (strncmp(v, "nodes=", 6) == 0) {
				fast_huge = false;
				char buf[256];
				snprintf(buf, sizeof(buf), "%s", v + 6);
				for (char *s = buf, *tok; (tok = strsep(&s, ","));) {
					char *end;
					long nd = strtol(tok, &end, 10);
					if (end == tok || *end || nd < 0 || nd >= MAX_NODES)
						usage_error("--fast nodes=LIST: expected node "
						            "numbers, comma-separated",
						            v);
					fast_node[nd] = true;
				}
			} else {
				usage_error("--fast: expected huge or nodes=LIST", v);
			}
		} else if (strcmp(o, "--base") == 0) {
			base = parse_double(v, "--base: expected seconds");
		} else if (strcmp(o, "--saturate") == 0) {
			saturate = parse_double(v, "--saturate: expected seconds");
			if (saturate <= 0)
				usage_error("--saturate: expected seconds above 0", v);
		} else if (strcmp(o, "--noise") == 0) {
			noise = parse_double(v, "--noise: expected a relative sd such as 0.05");
			if (noise < 0)
				usage_error("--noise: expected a relative sd of at least 0", v);
		} else if (strcmp(o, "--noise-model") == 0) {
			size_t k = 0, n = sizeof(noise_model_names) / sizeof(*noise_model_names);
			while (k < n && strcmp(v, noise_model_names[k]) != 0)
				k++;
			if (k == n)
				usage_error(
				    "--noise-model: expected lognormal, drift, burst, heavy, "
				    "bimodal, carry, position, load, pages or frequency",
				    v);
			noise_model = (noise_model_t)k;
		} else if (strcmp(o, "--seed") == 0) {
			seed = (uint64_t)parse_double(v, "--seed: expected a number");
		} else if (strcmp(o, "--read-back") == 0) {
			if (strcmp(v, "auto") && strcmp(v, "scan") && strcmp(v, "kpageflags") &&
			    strcmp(v, "smaps"))
				usage_error("--read-back: expected auto, scan, kpageflags or smaps",
				            v);
			read_back_g = v;
		} else if (strcmp(o, "--state") == 0) {
			state = v;
		} else if (strcmp(o, "--node") == 0) {
			/* a slower Slurm node: every run on it takes FACTOR times as
			 * long, as a node of another make or speed would */
			const char *here = getenv("SLURMD_NODENAME"), *colon = strchr(v, ':');
			if (!colon || colon == v)
				usage_error("--node: expected NAME:FACTOR", v);
			double f = parse_double(colon + 1, "--node: expected NAME:FACTOR");
			if (here && strlen(here) == (size_t)(colon - v) &&
			    !strncmp(here, v, (size_t)(colon - v)))
				node_factor = f;
		} else if (strcmp(o, "--pair") == 0) {
			char a[4], b[4];
			double x;
			int used = 0;
			if (npairs == MAX_PAIRS ||
			    sscanf(v, "%3[a-z0-9],%3[a-z0-9],%lf%n", a, b, &x, &used) != 3 ||
			    v[used])
				usage_error("--pair: expected A,B,SECONDS", v);
			pairs[npairs].a = pairs[npairs].b = -1;
			for (int k = 0; k < narrays; k++) {
				pairs[npairs].a = strcmp(arrays[k].name, a) ? pairs[npairs].a : k;
				pairs[npairs].b = strcmp(arrays[k].name, b) ? pairs[npairs].b : k;
			}
			if (pairs[npairs].a < 0 || pairs[npairs].b < 0)
				usage_error("--pair: name arrays given before it", v);
			pairs[npairs++].seconds = x;
		} else if (strncmp(o, "--", 2) == 0) {
			usage_error("unknown option", o);
		} else {
			if (narrays == MAX_ARRAYS)
				usage_error("at most 8 arrays", o);
			for (int k = 0; k < narrays; k++)
				if (strncmp(arrays[k].name, o, strlen(arrays[k].name)) == 0 &&
				    o[strlen(arrays[k].name)] == ':')
					usage_error("an array named twice", o);
			array_parse(o, &arrays[narrays++]);
			continue;
		}
		i++;
	}
	if (narrays == 0)
		usage_error("no arrays given", NULL);
	if (noise_model != NOISE_LOGNORMAL && noise_model != NOISE_BURST &&
	    noise_model != NOISE_HEAVY && noise_model != NOISE_BIMODAL && noise > 0 && !state)
		usage_error(
		    "--noise-model: this one needs --state FILE (its clock, the runs before)",
		    NULL);

	/* first touch, after the shim has placed the arrays */
	for (int k = 0; k < narrays; k++)
		memset(arrays[k].p, 1 + k, arrays[k].bytes);

	double slow = base, saved = 0, unchanged = base; /* the time no pool changes */
	unsigned placement = 0;
	bool quiet = mpi_rank() != 0;
	for (int k = 0; k < narrays; k++) {
		array_t *a = &arrays[k];
		array_read_back(a, fast_node, fast_huge);
		slow += a->weight;
		unchanged += a->ratio == 1 ? a->weight : 0;
		saved += a->weight * a->fast * (1 - 1 / a->ratio);
		placement |= (a->fast >= 0.5) << k;
		if (quiet)
			continue;
		printf("model: %s %zu bytes fast %.4f huge %zu/%zu nodes", a->name, a->bytes,
		       a->fast, a->huge, a->pages);
		const char *sep = " ";
		for (int nd = 0; nd <= MAX_NODES; nd++)
			if (a->nodes[nd]) {
				if (nd == MAX_NODES)
					printf("%snone:%ld", sep, a->nodes[nd]);
				else
					printf("%s%d:%ld", sep, nd, a->nodes[nd]);
				sep = ",";
			}
		printf(" weight %g ratio %g\n", a->weight, a->ratio);
	}
	if (saturate > 0)
		saved = saved * saturate / (saved + saturate);
	double t = slow - saved;
	for (int k = 0; k < npairs; k++)
		t += pairs[k].seconds * arrays[pairs[k].a].fast * arrays[pairs[k].b].fast;
	if (noise > 0 && !quiet) {
		uint64_t s = seed * 0x9e3779b97f4a7c15ull ^ (uint64_t)placement << 40, all_runs = 0;
		int prev = -1;
		bool first = false;
		s ^= state ? state_next(state, placement, &all_runs, &prev, &first) *
		                 0xd1b54a32d192ed03ull
		           : (uint64_t)getpid() << 20 ^ (uint64_t)time(NULL);
		bool other = other_state(seed, all_runs);
		if (noise_model == NOISE_PAGES && other)
			t = slow; /* 2 MiB pages refused: the arrays gain nothing */
		if (noise_model == NOISE_FREQUENCY && other)
			t += unchanged * (1 / CLOCK_LOW - 1);
		t *= noise_factor(noise_model, noise, &s, seed, all_runs);
		if (noise_model == NOISE_CARRY && prev == 0)
			t *= 0.97;
		if (noise_model == NOISE_POSITION && first)
			t *= 1.05;
		if (noise_model == NOISE_LOAD && other)
			t *= placement ? 1.04 : 1.10;
	}
	t *= node_factor;
	if (!quiet)
		printf("model: pages read back by %s and move_pages; placement %x\n"
		       "Time in seconds = %.6f (modelled: a cost model of where the pages are, "
		       "not a measured time; %s noise, sd %g)\n",
		       method_g, placement, t, noise > 0 ? noise_model_names[noise_model] : "no",
		       noise);
	return 0;
}
