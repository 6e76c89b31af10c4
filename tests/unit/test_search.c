/* test_search.c — the model search against exhaustive search and against the
 * truth, without running programs: each landscape gives every
 * configuration's true time, and runs are drawn from it with noise.
 *
 * Landscapes (K = 8; each fitted to a row of the study's Table II: the
 * maximum speedup and the footprint reaching 90 % of it of MG, BT, LU, SP,
 * UA, IS and k-Wave), 140 of each generator:
 * - Table II: programs of 1-3 phases whose memory time combines the traffic
 *   left in the slow pool with the traffic in the fast one (r times the
 *   bandwidth) by a p-norm, p from 1 (savings add) to 4 (both pools at
 *   once); a quarter of the groups carry no traffic.  Savings that add and
 *   saturate: the search model's own family.
 * - Outside it (issue 28): random signed pair terms; pairs that only help
 *   together; pairs that hurt together; a bandwidth ceiling with
 *   latency-bound groups; rugged NK landscapes (N = 8, K = 2).
 * - Null and flat: nothing helps, or at most 1 %.
 * Run-to-run noise is lognormal, 1-10 %.  And every recorded exhaustive
 * tuning in tests/data/landscapes/ (results.json of real tunings: their
 * measured means are taken as the truth, their runs are what a measurement
 * draws).  A synthetic landscape is a cost model, not a measurement.
 *
 * Three searches start from a simulated ranking phase (all-slow and groups
 * 1 to K-1 alone, as the tuner's ranking measures the top sites alone) and
 * choose by the same rules (hmpt_method_choose): the model search,
 * exhaustive search, and a baseline that measures all-fast and every group
 * alone.  Each is judged against the true top and the true 90 % plan.
 * Targets: see tally_check and allowed[].  Prints the table in
 * docs/evidence.md.
 * Usage: test_search [N-PER-GENERATOR [SEED]] (default 140, 1);
 * SEARCH_GEN=G runs generator G alone, SEARCH_DEBUG=1 prints the misses.
 */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "measure.h"
#include "method.h"
#include "search.h"
#include "splitplan.h"
#include "stats.h"
#include "strategy.h"

#define K_MAX    HMPT_SEARCH_MAX_K
#define MASKS    (1 << K_MAX)
#define REPS     3
#define RUNS_MAX 1024

/* ------------------------------------------------------------ random */

static uint64_t rng_state;

static double uniform(void)
{
	rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

static double gauss(void)
{
	double u = uniform(), v = uniform();
	return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* ------------------------------------------------------------ landscapes */

typedef struct {
	int phases;
	double q[3][K_MAX], c[3], ratio, p;
} cost_t;

typedef struct {
	char name[64];
	int k;
	double bytes[K_MAX];
	double time[MASKS]; /* true mean time of every mask */
	double noise;       /* sd of log(run) */
	/* recorded landscapes: the runs to draw from, per mask (NULL: model) */
	double *runs[MASKS];
	int nruns[MASKS];
	/* Table II landscapes: the cost model and the compute time that make
	 * time[], for shares of a group (split placement) */
	bool has_cost;
	cost_t cost;
	double compute;
} land_t;

static const struct {
	const char *app;
	double speedup, f90;
} table2[] = {{"MG", 2.27, 0.696}, {"BT", 1.15, 0.55}, {"LU", 1.27, 0.588},    {"SP", 1.79, 0.688},
              {"UA", 1.49, 0.688}, {"IS", 2.21, 0.60}, {"k-Wave", 1.32, 0.768}};

static double cost_time(const cost_t *cm, int k, unsigned m, double lambda)
{
	double t = 0;
	for (int ph = 0; ph < cm->phases; ph++) {
		double slow = 0, fast = 0;
		for (int g = 0; g < k; g++)
			*(m >> g & 1 ? &fast : &slow) += cm->q[ph][g];
		t += lambda * cm->c[ph] +
		     pow(pow(slow, cm->p) + pow(fast / cm->ratio, cm->p), 1 / cm->p);
	}
	return t;
}

/* The time of mask m with group g's share f in the fast pool (the rest of
 * it slow): a Table II landscape's own cost model, so that a split array
 * draws on both pools (with p > 1 a share can beat the whole). */
static double split_time(const land_t *l, unsigned m, int g, double f)
{
	double t = l->compute;
	const cost_t *cm = &l->cost;
	for (int ph = 0; ph < cm->phases; ph++) {
		double slow = 0, fast = 0;
		for (int h = 0; h < l->k; h++) {
			double share = h == g ? f : (m >> h & 1);
			fast += share * cm->q[ph][h];
			slow += (1 - share) * cm->q[ph][h];
		}
		t += pow(pow(slow, cm->p) + pow(fast / cm->ratio, cm->p), 1 / cm->p);
	}
	return t;
}

static double max_speedup(const land_t *l)
{
	double best = l->time[0];
	for (int m = 1; m < 1 << l->k; m++)
		best = l->time[m] < best ? l->time[m] : best;
	return l->time[0] / best;
}

/* a mask's footprint (fraction) */
static double mask_bytes(const land_t *l, unsigned m)
{
	double b = 0;
	for (int g = 0; g < l->k; g++)
		b += (m >> g & 1) ? l->bytes[g] : 0;
	return b;
}

/* the smallest mask truly reaching 90 % of the true top */
static unsigned true_mask90(const land_t *l)
{
	double top = max_speedup(l), f = 2;
	unsigned tm = 0;
	for (int m = 0; m < 1 << l->k; m++)
		if (l->time[0] / l->time[m] >= 0.9 * top && mask_bytes(l, (unsigned)m) < f)
			f = mask_bytes(l, (unsigned)m), tm = (unsigned)m;
	return tm;
}

/* smallest footprint (fraction) reaching 90 % of the maximum speedup */
static double true_f90(const land_t *l)
{
	return mask_bytes(l, true_mask90(l));
}

/* Fits a landscape's memory times mem[] (mem[0]: all-slow) to Table II's
 * row `app`: the compute time lambda * csum that makes the largest speedup
 * (M0 + lambda C) / (Mmin + lambda C) the row's.  False when no lambda does
 * (all-slow is already within the row's speedup of the fastest). */
static bool fit_row(land_t *l, const double *mem, double csum, double sp)
{
	double m0 = mem[0], mmin = mem[0];
	for (int m = 1; m < 1 << l->k; m++)
		mmin = mem[m] < mmin ? mem[m] : mmin;
	if (m0 < sp * mmin)
		return false;
	double lambda = (m0 - sp * mmin) / ((sp - 1) * csum);
	for (int m = 0; m < 1 << l->k; m++)
		l->time[m] = mem[m] + lambda * csum;
	l->compute = lambda * csum;
	return true;
}

/* The landscape generators.  TABLE2 is the search's own family (savings
 * that add and then saturate); the others are outside it (issue 28):
 * signed pair terms, pairs that only help together, pairs that hurt
 * together, a bandwidth ceiling with latency-bound groups, and rugged NK
 * landscapes; NULL and FLAT are where nothing (or nothing worth a run)
 * helps. */
enum {
	GEN_TABLE2,
	GEN_PAIRS,
	GEN_SYNERGY,
	GEN_CONFLICT,
	GEN_CEILING,
	GEN_NK,
	GEN_NULL,
	GEN_FLAT,
	NGEN
};
static const char *const gen_name[NGEN] = {"Table II (the model's family)",
                                           "random signed pair terms",
                                           "pairs that only help together",
                                           "pairs that hurt together",
                                           "bandwidth ceiling, latency-bound groups",
                                           "rugged NK (N = 8, K = 2)",
                                           "null (nothing helps)",
                                           "flat (at most 1 %)"};

/* Memory times of one draw of generator `gen` (not TABLE2): every mask's,
 * and the compute time's weight in *csum. */
static void gen_draw(int gen, int k, double *mem, double *csum)
{
	double worth[K_MAX], save[K_MAX], pair[K_MAX][K_MAX] = {{0}}, m0 = 0;
	double ratio = 2 + 3 * uniform();

	*csum = 0.1 + uniform();
	for (int g = 0; g < k; g++) {
		worth[g] = uniform() < 0.25 ? 0 : exp(gauss());
		save[g] = worth[g] * (1 - 1 / ratio); /* the fast pool's saving alone */
		m0 += worth[g];
	}
	if (gen == GEN_PAIRS) {
		/* a quarter of the pairs interact, either way, as much as the
		 * smaller of their savings at most */
		for (int g = 0; g < k; g++)
			for (int h = g + 1; h < k; h++)
				if (uniform() < 0.25)
					pair[g][h] =
					    gauss() * 0.5 * sqrt(save[g] * save[h] + 0.01 * m0 / k);
	} else if (gen == GEN_SYNERGY || gen == GEN_CONFLICT) {
		/* 1-3 disjoint pairs: together only (their savings moved into the
		 * pair term), or competing (together less than the sum, at worst
		 * less than the better alone) */
		int perm[K_MAX], npairs = 1 + (int)(uniform() * 3);
		for (int g = 0; g < k; g++)
			perm[g] = g;
		for (int g = k - 1; g > 0; g--) {
			int j = (int)(uniform() * (g + 1)), t = perm[g];
			perm[g] = perm[j], perm[j] = t;
		}
		for (int p = 0; p < npairs; p++) {
			int a = perm[2 * p] < perm[2 * p + 1] ? perm[2 * p] : perm[2 * p + 1];
			int b = perm[2 * p] ^ perm[2 * p + 1] ^ a;
			if (!worth[a] && !worth[b])
				worth[a] = exp(gauss()), save[a] = worth[a] * (1 - 1 / ratio),
				m0 += worth[a];
			if (gen == GEN_SYNERGY) {
				pair[a][b] = (save[a] + save[b]) * (1 + uniform());
				save[a] = save[b] = 0;
			} else {
				double lo = save[a] < save[b] ? save[a] : save[b];
				pair[a][b] = -(0.5 + uniform()) * lo;
			}
		}
	}
	if (gen == GEN_CEILING) {
		/* bandwidth-bound groups: both pools serve at once, so the time is
		 * the busier pool's and moving all of them to the fast one
		 * saturates it; latency-bound groups are slower in the fast pool */
		double q[K_MAX], lat[K_MAX], lat_ratio = 1.1 + 0.3 * uniform();
		for (int g = 0; g < k; g++) {
			double u = uniform();
			q[g] = u < 0.6 ? worth[g] : 0;
			lat[g] = u >= 0.6 && u < 0.85 ? 0.5 * exp(gauss()) : 0;
		}
		for (int m = 0; m < 1 << k; m++) {
			double slow = 0, fast = 0, t = 0;
			for (int g = 0; g < k; g++) {
				bool f = m >> g & 1;
				*(f ? &fast : &slow) += q[g];
				t += lat[g] * (f ? lat_ratio : 1);
			}
			mem[m] = t + (slow > fast / ratio ? slow : fast / ratio);
		}
		return;
	}
	if (gen == GEN_NK) {
		/* N = 8, K = 2: each group's part of the time depends on its own
		 * pool and two other groups' (drawn uniformly, as in Kauffman's NK
		 * model), and the parts add up */
		int nb[K_MAX][2];
		double f[K_MAX][8];
		for (int g = 0; g < k; g++) {
			do
				nb[g][0] = (int)(uniform() * k), nb[g][1] = (int)(uniform() * k);
			while (nb[g][0] == g || nb[g][1] == g || nb[g][0] == nb[g][1]);
			for (int j = 0; j < 8; j++)
				f[g][j] = uniform();
		}
		for (int m = 0; m < 1 << k; m++) {
			mem[m] = 0;
			for (int g = 0; g < k; g++)
				mem[m] += f[g][(m >> g & 1) | (m >> nb[g][0] & 1) << 1 |
				               (m >> nb[g][1] & 1) << 2];
		}
		return;
	}
	for (int m = 0; m < 1 << k; m++) {
		double t = m0;
		for (int g = 0; g < k; g++) {
			if (!(m >> g & 1))
				continue;
			t -= save[g];
			for (int h = g + 1; h < k; h++)
				t -= (m >> h & 1) ? pair[g][h] : 0;
		}
		mem[m] = t > 0.05 * m0 ? t : 0.05 * m0;
	}
}

/* One landscape of generator `gen` for Table II's row `app`: drawn until
 * its 90 % footprint is within 0.08 of the row's (the closest of 400 draws
 * else), compute scaled so that the maximum speedup is the row's (FLAT: at
 * most 1 %; NULL: every mask alike). */
static void synth(land_t *l, int gen, int app)
{
	land_t best;
	double best_gap = INFINITY;
	const int k = 8;

	for (int attempt = 0; attempt < 400 && best_gap > 0.08; attempt++) {
		double bsum = 0, mem[1 << K_MAX], csum = 0;
		memset(l, 0, sizeof(*l));
		l->k = k;
		for (int g = 0; g < k; g++) {
			l->bytes[g] = exp(0.8 * gauss());
			bsum += l->bytes[g];
		}
		for (int g = 0; g < k; g++)
			l->bytes[g] /= bsum;
		if (gen == GEN_NULL) {
			for (int m = 0; m < 1 << k; m++)
				l->time[m] = 1;
			best = *l;
			break;
		}
		if (gen == GEN_TABLE2 || gen == GEN_FLAT) {
			cost_t cm = {.phases = 1 + (int)(uniform() * 3),
			             .ratio = 2 + 3 * uniform(),
			             .p = 1 + 3 * uniform()};
			double worth[K_MAX];
			for (int g = 0; g < k; g++)
				worth[g] = uniform() < 0.25 ? 0 : exp(gauss());
			for (int ph = 0; ph < cm.phases; ph++) {
				for (int g = 0; g < k; g++)
					cm.q[ph][g] = (uniform() < 0.6 || g % cm.phases == ph)
					                  ? worth[g] * exp(0.5 * gauss())
					                  : 0;
				cm.c[ph] = 0.1 + uniform();
				csum += cm.c[ph];
			}
			for (int m = 0; m < 1 << k; m++)
				mem[m] = cost_time(&cm, k, (unsigned)m, 0);
			l->has_cost = true;
			l->cost = cm;
		} else {
			gen_draw(gen, k, mem, &csum);
		}
		if (!fit_row(l, mem, csum,
		             gen == GEN_FLAT ? 1.002 + 0.008 * uniform() : table2[app].speedup))
			continue;
		double gap = gen == GEN_FLAT ? 0 : fabs(true_f90(l) - table2[app].f90);
		if (gap < best_gap)
			best_gap = gap, best = *l;
	}
	*l = best;
	l->noise = 0.01 + 0.09 * uniform();
	snprintf(l->name, sizeof(l->name), "%s", table2[app].app);
}

/* A recorded exhaustive tuning (its results.json): the combination phase's
 * means are the truth, its runs what a measurement draws from; rates are
 * turned into times.  0, or -1 when the file is not one. */
static int load_recorded(land_t *l, const char *path)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err), *groups, *configs, *c;
	size_t i;
	int rc = -1;

	memset(l, 0, sizeof(*l));
	if (!root)
		return -1;
	bool rate =
	    json_is_true(json_object_get(json_object_get(root, "measurement"), "higher_is_better"));
	groups = json_object_get(root, "groups");
	configs = json_object_get(root, "configs");
	l->k = (int)json_array_size(groups);
	if (l->k < 1 || l->k > K_MAX || !json_is_array(configs))
		goto out;
	double total = 0;
	for (int g = 0; g < l->k; g++) {
		l->bytes[g] = json_number_value(
		    json_object_get(json_array_get(groups, i = (size_t)g), "bytes"));
		total += l->bytes[g];
	}
	for (int g = 0; g < l->k; g++)
		l->bytes[g] /= total > 0 ? total : 1;
	int have = 0;
	json_array_foreach(configs, i, c)
	{
		const char *phase = json_string_value(json_object_get(c, "phase"));
		json_t *names = json_object_get(c, "groups"), *name, *run;
		size_t j;
		unsigned m = 0;
		if (!phase || strcmp(phase, "combinations"))
			continue;
		json_array_foreach(names, j, name)
		{
			for (int g = 0; g < l->k; g++)
				if (!strcmp(json_string_value(name) ?: "",
				            json_string_value(json_object_get(
				                json_array_get(groups, (size_t)g), "name"))
				                ?: ""))
					m |= 1u << g;
		}
		json_t *runs = json_object_get(c, "runs");
		l->runs[m] = calloc(json_array_size(runs) + 1, sizeof(double));
		json_array_foreach(runs, j, run)
		{
			double v = json_number_value(json_object_get(run, "value"));
			if (json_integer_value(json_object_get(run, "status")) == 0 && v > 0)
				l->runs[m][l->nruns[m]++] = rate ? 1 / v : v;
		}
		double sum = 0;
		for (int r = 0; r < l->nruns[m]; r++)
			sum += l->runs[m][r];
		l->time[m] = l->nruns[m] ? sum / l->nruns[m] : 0;
		have += l->nruns[m] > 0;
	}
	if (have == 1 << l->k)
		rc = 0;
	const char *base = strrchr(path, '/');
	snprintf(l->name, sizeof(l->name), "%.63s", base ? base + 1 : path);
out:
	json_decref(root);
	return rc;
}

static void land_free(land_t *l)
{
	for (int m = 0; m < MASKS; m++)
		free(l->runs[m]);
}

/* ------------------------------------------------------------ measuring */

typedef struct {
	double v[MASKS][16];
	int n[MASKS];
	double extra_ref[RUNS_MAX]; /* the reference's runs beyond 16 */
} phase_t;

static int draws;

static double draw(const land_t *l, unsigned m, double drift)
{
	draws++;
	if (l->runs[m])
		return drift * l->runs[m][(int)(uniform() * l->nruns[m])];
	return drift * l->time[m] * exp(l->noise * gauss());
}

typedef struct {
	double v[RUNS_MAX];
	int n;
} sample_t;

typedef struct {
	sample_t s[MASKS];
	int configs; /* masks measured, the reference included */
	int runs;
} meas_t;

static void run_mask(meas_t *me, const land_t *l, unsigned m, int reps, double drift)
{
	if (me->s[m].n == 0)
		me->configs++;
	for (int r = 0; r < reps && me->s[m].n < RUNS_MAX; r++) {
		me->s[m].v[me->s[m].n++] = draw(l, m, drift);
		me->runs++;
	}
}

/* the reference keeps sqrt(configurations) times the others' runs; with
 * `every`, one run at least per call (as the tuner's model search does
 * per batch) */
static void run_reference(meas_t *me, const land_t *l, double drift, bool every)
{
	int want = REPS * hmpt_measure_ref_share(me->configs - (me->s[0].n > 0));
	if (every && want <= me->s[0].n)
		want = me->s[0].n + 1;
	if (me->s[0].n < want)
		run_mask(me, l, 0, want - me->s[0].n, drift);
}

/* summaries, the pooled variance and every mask's speedup over mask 0 */
typedef struct {
	hmpt_summary_t sum[MASKS];
	hmpt_speedup_t sp[MASKS];
	hmpt_pooled_t pool;
	double alpha;
} analysis_t;

/* (speedups: what choose needs, not observe: their t quantiles are most
 * of the test's time) */
static void analyse(const meas_t *me, int k, analysis_t *a, bool speedups)
{
	int compared = 0;
	memset(&a->pool, 0, sizeof(a->pool));
	for (int m = 0; m < 1 << k; m++) {
		hmpt_stats_summary(me->s[m].v, me->s[m].n, &a->sum[m]);
		hmpt_stats_pool(&a->pool, &a->sum[m]);
		compared += m && me->s[m].n > 0;
	}
	a->alpha = 0.05 / (compared ? compared : 1);
	for (int m = 1; m < 1 << k && speedups; m++)
		if (me->s[m].n)
			hmpt_stats_speedup(&a->sum[0], &a->sum[m], &a->pool, a->alpha, 0.01, false,
			                   &a->sp[m]);
}

/* the choices among measured masks, as masks (-1: none) */
static void choose(const meas_t *me, const land_t *l, int *best, int *best90)
{
	static analysis_t a;
	static hmpt_choice_in_t in[MASKS];
	hmpt_choice_t ch;
	int n = 1 << l->k;

	analyse(me, l->k, &a, true);
	for (int m = 0; m < n; m++)
		in[m] = (hmpt_choice_in_t){.sum = a.sum[m],
		                           .sp = a.sp[m],
		                           .bytes = mask_bytes(l, (unsigned)m),
		                           .eligible = m && me->s[m].n > 0};
	hmpt_method_choose(in, n, &a.pool, 0.05, 0.01, false, 0, &ch);
	*best = ch.best;
	*best90 = ch.best90;
}

/* the search's view of a phase: log speedups and their variances */
static int observe(const meas_t *me, int k, int phase, hmpt_search_obs_t *obs, int n)
{
	static analysis_t a;
	analyse(me, k, &a, false);
	for (int m = 0; m < 1 << k; m++) {
		if (!me->s[m].n ||
		    (m == 0 && phase == 0)) /* as the tuner: not ranking's all-slow */
			continue;
		double var = a.pool.df > 0 ? a.pool.var : 0.01;
		obs[n++] = (hmpt_search_obs_t){
		    .mask = (unsigned)m,
		    .phase = phase,
		    .y = log(a.sum[0].mean / a.sum[m].mean),
		    .rounds = (a.sum[m].n + REPS - 1) / REPS,
		    .var = m ? var * (1.0 / a.sum[m].n + 1.0 / a.sum[0].n) : var / a.sum[0].n};
	}
	return n;
}

/* ------------------------------------------------------------ the driver */

/* The budgets of the curve (configurations, K = 8: 2K+4, 4K+4, 6K+4,
 * 10K+4; 2^K is exhaustive search's) and the searches compared along it. */
enum { B_2K, B_4K, B_6K, B_10K, NBUDGET };
enum { C_MODEL, C_ILS, NCURVE };

static int budget_configs(int k, int b)
{
	static const int mult[NBUDGET] = {2, 4, 6, 10};
	return mult[b] * k + 4;
}

/* test_search's side of the product's loop (hmpt_search_drive): the data
 * are the runs drawn so far, a measurement draws REPS runs of each mask and
 * then all-slow's (one run per batch at least where `every`, as the tuner
 * does).  Before a request takes the masks with data past snap[i], the
 * choice then is kept: what the driver stopping there (a budget of
 * snap[i] configurations) would have chosen. */
typedef struct {
	const land_t *l;
	const meas_t *rank; /* the ranking phase (NULL: none) */
	meas_t *me;
	bool every;
	int nsnap, done;
	const int *snap;
	int snap_best[NBUDGET], snap_configs[NBUDGET];
} drive_ctx_t;

static int ctx_observe(void *p, hmpt_search_obs_t *obs, int max)
{
	drive_ctx_t *c = p;
	int n = c->rank ? observe(c->rank, c->l->k, 0, obs, 0) : 0;
	CHECK(n + (1 << c->l->k) <= max);
	return observe(c->me, c->l->k, 1, obs, n);
}

static bool has_data(const drive_ctx_t *c, unsigned m)
{
	return c->me->s[m].n > 0 || (m && c->rank && c->rank->s[m].n > 0);
}

static int ctx_measure(void *p, const unsigned *masks, int n)
{
	drive_ctx_t *c = p;
	int before = c->me->runs, count = 0, after;
	unsigned full = (1u << c->l->k) - 1;

	for (unsigned m = 0; m <= full; m++)
		count += has_data(c, m);
	after = count;
	for (int i = 0; i < n; i++) {
		bool dup = has_data(c, masks[i]);
		for (int j = 0; j < i; j++)
			dup |= masks[j] == masks[i];
		after += !dup;
	}
	for (; c->done < c->nsnap && after > c->snap[c->done]; c->done++) {
		int b90;
		choose(c->me, c->l, &c->snap_best[c->done], &b90);
		c->snap_configs[c->done] = count;
	}
	for (int i = 0; i < n; i++) {
		CHECK(masks[i] && masks[i] <= full);
		run_mask(c->me, c->l, masks[i], REPS, 1);
	}
	run_reference(c->me, c->l, 1, c->every);
	return c->me->runs - before;
}

/* Runs strategy `name` on landscape l through the driver into me (from
 * the ranking's data where rank is not NULL); the snapshots not reached
 * are the end's. */
static void drive(const land_t *l, const char *name, const hmpt_search_setup_t *s,
                  const meas_t *rank, meas_t *me, int max_configs, const int *snap, int nsnap,
                  drive_ctx_t *c, hmpt_search_outcome_t *out)
{
	const hmpt_strategy_t *st = hmpt_strategy_find(name);
	memset(me, 0, sizeof(*me));
	*c = (drive_ctx_t){
	    .l = l, .rank = rank, .me = me, .every = st->batch > 0, .snap = snap, .nsnap = nsnap};
	hmpt_search_io_t io = {
	    .observe = ctx_observe, .measure = ctx_measure, .ctx = c, .max_configs = max_configs};
	CHECK(st != NULL);
	CHECK_OP(hmpt_search_drive(st, s, &io, out), ==, 0);
	CHECK(out->stop != HMPT_SEARCH_STALLED && out->stop != HMPT_SEARCH_GOING);
	for (; c->done < nsnap; c->done++) {
		int b90;
		choose(me, l, &c->snap_best[c->done], &b90);
		c->snap_configs[c->done] = out->configs;
	}
}

/* ------------------------------------------------------------ one case */

/* the three searches compared: the model search, exhaustive search, and the
 * baseline with no model step (all-fast and every group alone) */
enum { S_MODEL, S_EXH, S_BASE, NSEARCH };

typedef struct {
	int configs, runs, exh_runs;
	hmpt_search_stop_t why; /* why the model search stopped */
	double frac_best;       /* model best's true speedup over exhaustive best's */
	bool f90_ok;            /* model's 90 % plan within a group of exhaustive's */
	double top[NSEARCH];    /* each best's true speedup over the true top */
	bool f90_true[NSEARCH]; /* each 90 % plan within a group of the true one */
	/* issue 39: at 2K+4 (the model without extension) and by default */
	bool misfit2k, misfit;
	double misfit_stat;
	hmpt_search_stop_t why_def;
	int configs_def;
	double curve[NCURVE][NBUDGET]; /* best over the true top at each budget */
	double max_speedup;
} outcome_t;

/* within one group of each other: footprints apart by no more than the
 * largest group in which the two masks differ */
static bool within_group(const land_t *l, unsigned a, unsigned b)
{
	double wd = 0;
	for (int g = 0; g < l->k; g++)
		if ((a ^ b) >> g & 1)
			wd = l->bytes[g] > wd ? l->bytes[g] : wd;
	return fabs(mask_bytes(l, a) - mask_bytes(l, b)) <= wd + 1e-12;
}

static double true_top(const land_t *l, int best)
{
	return (best >= 0 ? l->time[0] / l->time[best] : 1) / max_speedup(l);
}

static void evaluate(const land_t *l, outcome_t *o)
{
	static meas_t rank, exh, mod, base, ext, ils;
	drive_ctx_t c;
	hmpt_search_outcome_t out;
	int k = l->k, full = (1 << k) - 1, b90;
	double drift = exp(0.03 * gauss()); /* the ranking phase's own level */

	/* ranking: all-slow and groups 1..K-1 alone */
	memset(&rank, 0, sizeof(rank));
	for (int g = 0; g < k - 1; g++)
		run_mask(&rank, l, 1u << g, REPS, drift);
	run_reference(&rank, l, drift, false);

	/* exhaustive: every mask */
	hmpt_search_setup_t s = {.k = k, .confidence = 0.95};
	memcpy(s.bytes, l->bytes, sizeof(s.bytes));
	drive(l, "exhaustive", &s, NULL, &exh, 0, NULL, 0, &c, &out);
	CHECK_OP(out.stop, ==, HMPT_SEARCH_ALL);

	/* the baseline: all-fast and every group alone */
	memset(&base, 0, sizeof(base));
	run_mask(&base, l, (unsigned)full, REPS, 1);
	for (int g = 0; g < k; g++)
		run_mask(&base, l, 1u << g, REPS, 1);
	run_reference(&base, l, 1, false);

	/* the model search at 2K+4 (no extension: as before issue 39), by
	 * default, and extended to 10K+4 (4K+4 on the way); the iterated local
	 * search to 10K+4.  Each from the same state of the random stream. */
	uint64_t from = rng_state;
	hmpt_search_setup_t s2 = s;
	s2.ext_configs = budget_configs(k, B_2K);
	drive(l, "model", &s2, &rank, &mod, 0, NULL, 0, &c, &out);
	o->why = out.stop;
	o->misfit2k = out.misfit;
	o->configs = out.configs;
	o->runs = mod.runs;
	o->exh_runs = exh.runs;
	choose(&mod, l, &c.snap_best[0], &b90);
	o->curve[C_MODEL][B_2K] = true_top(l, c.snap_best[0]);

	rng_state = from;
	drive(l, "model", &s, &rank, &ext, 0, NULL, 0, &c, &out);
	o->why_def = out.stop;
	o->misfit = out.misfit;
	o->misfit_stat = out.misfit_stat;
	o->configs_def = out.configs;
	choose(&ext, l, &c.snap_best[0], &b90);
	o->curve[C_MODEL][B_6K] = true_top(l, c.snap_best[0]);

	int snap[NBUDGET];
	for (int b = 0; b < NBUDGET; b++)
		snap[b] = budget_configs(k, b);
	hmpt_search_setup_t s10 = s;
	s10.ext_configs = snap[B_10K];
	rng_state = from;
	drive(l, "model", &s10, &rank, &ext, snap[B_10K], &snap[B_4K], 1, &c, &out);
	o->curve[C_MODEL][B_4K] = true_top(l, c.snap_best[0]);
	choose(&ext, l, &c.snap_best[0], &b90);
	o->curve[C_MODEL][B_10K] = true_top(l, c.snap_best[0]);

	hmpt_search_setup_t si = s;
	si.max_configs = snap[B_10K];
	si.seed = (unsigned)from;
	rng_state = from;
	drive(l, "ils", &si, &rank, &ils, snap[B_10K], snap, NBUDGET, &c, &out);
	for (int b = 0; b < NBUDGET; b++)
		o->curve[C_ILS][b] = true_top(l, c.snap_best[b]);
	o->max_speedup = max_speedup(l);

	const meas_t *by[NSEARCH] = {&mod, &exh, &base};
	int best[NSEARCH], b90s[NSEARCH];
	unsigned tm = true_mask90(l);
	for (int w = 0; w < NSEARCH; w++) {
		choose(by[w], l, &best[w], &b90s[w]);
		o->top[w] = true_top(l, best[w]);
		o->f90_true[w] = within_group(l, tm, (unsigned)(b90s[w] >= 0 ? b90s[w] : 0));
	}
	o->frac_best = o->top[S_MODEL] / o->top[S_EXH];
	o->f90_ok = within_group(l, (unsigned)(b90s[S_EXH] >= 0 ? b90s[S_EXH] : 0),
	                         (unsigned)(b90s[S_MODEL] >= 0 ? b90s[S_MODEL] : 0));
	if (getenv("SEARCH_DEBUG") && (!o->f90_true[S_MODEL] || o->top[S_MODEL] < 0.98)) {
		printf("%s noise %.3f maxS %.3f truef90 %.3f (%#x) | exh best %#x (%.3f) 90 %#x | "
		       "model best %#x (%.3f) 90 %#x | configs %d | misfit %d %.2f | ext %.3f\n",
		       l->name, l->noise, max_speedup(l), true_f90(l), tm, best[S_EXH],
		       o->top[S_EXH], b90s[S_EXH], best[S_MODEL], o->top[S_MODEL], b90s[S_MODEL],
		       o->configs, o->misfit, o->misfit_stat, o->curve[C_MODEL][B_6K]);
	}
}

/* ------------------------------------------------------------ report */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double quantile(double *v, int n, double p)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return v[(int)floor(p * (n - 1) + 0.5)];
}

typedef struct {
	int n, best_ok, best95_ok, f90_ok, why[HMPT_SEARCH_NSTOP];
	int reach98[NSEARCH], f90_true[NSEARCH];
	double *configs, *runs, *frac, *saved, *top[NSEARCH];
	/* issue 39 */
	int misfit2k, misfit, below98, below98_misfit, why_def[HMPT_SEARCH_NSTOP];
	int big, big_nothing; /* true top >= 1.10x, and of those stopped "no gain" */
	int creach[NCURVE][NBUDGET];
	double cregret[NCURVE][NBUDGET], *ctop[NCURVE][NBUDGET], *configs_def;
} tally_t;

static void tally_add(tally_t *t, const outcome_t *o)
{
	t->configs[t->n] = o->configs;
	t->runs[t->n] = o->runs;
	t->frac[t->n] = o->frac_best;
	t->saved[t->n] = (double)o->runs / o->exh_runs;
	for (int w = 0; w < NSEARCH; w++) {
		t->top[w][t->n] = o->top[w];
		t->reach98[w] += o->top[w] >= 0.98;
		t->f90_true[w] += o->f90_true[w];
	}
	t->configs_def[t->n] = o->configs_def;
	for (int w = 0; w < NCURVE; w++)
		for (int b = 0; b < NBUDGET; b++) {
			t->ctop[w][b][t->n] = o->curve[w][b];
			t->creach[w][b] += o->curve[w][b] >= 0.98;
			t->cregret[w][b] += 1 - o->curve[w][b];
		}
	t->misfit2k += o->misfit2k;
	t->misfit += o->misfit;
	t->below98 += o->top[S_MODEL] < 0.98;
	t->below98_misfit += o->top[S_MODEL] < 0.98 && o->misfit2k;
	t->why_def[o->why_def]++;
	t->big += o->max_speedup >= 1.10;
	t->big_nothing += o->max_speedup >= 1.10 && o->why_def == HMPT_SEARCH_NOTHING;
	t->n++;
	t->best_ok += o->frac_best >= 0.98;
	t->best95_ok += o->frac_best >= 0.95;
	t->f90_ok += o->f90_ok;
	t->why[o->why]++;
}

static double pct(int a, int n)
{
	return n ? 100.0 * a / n : 0;
}

/* one row: against the truth, model / exhaustive / baseline */
static void tally_print(const char *what, tally_t *t)
{
	if (!t->n)
		return;
	printf("| %s | %d | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f %% | %.0f %% | %.1f / %.1f / "
	       "%.1f %% | "
	       "%.3f / %.3f / %.3f | %.1f / %.1f / %.1f %% | %.1f %% |\n",
	       what, t->n, quantile(t->configs, t->n, 0.5), quantile(t->configs, t->n, 0.9),
	       quantile(t->configs, t->n, 1), pct(t->why[HMPT_SEARCH_NOTHING], t->n),
	       pct(t->why[HMPT_SEARCH_SETTLED], t->n), pct(t->why[HMPT_SEARCH_CAPPED], t->n),
	       100 * quantile(t->saved, t->n, 0.5), pct(t->reach98[S_MODEL], t->n),
	       pct(t->reach98[S_EXH], t->n), pct(t->reach98[S_BASE], t->n),
	       quantile(t->top[S_MODEL], t->n, 0.05), quantile(t->top[S_EXH], t->n, 0.05),
	       quantile(t->top[S_BASE], t->n, 0.05), pct(t->f90_true[S_MODEL], t->n),
	       pct(t->f90_true[S_EXH], t->n), pct(t->f90_true[S_BASE], t->n),
	       pct(t->best_ok, t->n));
}

static void tally_header(void)
{
	printf("| landscapes | n | configurations (median / 90th pct / max) | stopped: no gain / "
	       "settled / at the cap | "
	       "runs (of exhaustive's, median) | best >= 98 %% of the true top (model / "
	       "exhaustive / baseline) | best over the true top, 5th pct (model / exhaustive / "
	       "baseline) | 90 %% plan within a group of the true one (model / exhaustive / "
	       "baseline) | best >= 98 %% of exhaustive's |\n"
	       "| --- | --: | --: | --: | --: | --: | --: | --: | --: |\n");
}

static tally_t tally_new(int cap)
{
	tally_t t = {0};
	t.configs = calloc((size_t)cap, sizeof(double));
	t.runs = calloc((size_t)cap, sizeof(double));
	t.frac = calloc((size_t)cap, sizeof(double));
	t.saved = calloc((size_t)cap, sizeof(double));
	for (int w = 0; w < NSEARCH; w++)
		t.top[w] = calloc((size_t)cap, sizeof(double));
	t.configs_def = calloc((size_t)cap, sizeof(double));
	for (int w = 0; w < NCURVE; w++)
		for (int b = 0; b < NBUDGET; b++)
			t.ctop[w][b] = calloc((size_t)cap, sizeof(double));
	return t;
}

static void tally_free(tally_t *t)
{
	free(t->configs), free(t->runs), free(t->frac), free(t->saved);
	for (int w = 0; w < NSEARCH; w++)
		free(t->top[w]);
	free(t->configs_def);
	for (int w = 0; w < NCURVE; w++)
		for (int b = 0; b < NBUDGET; b++)
			free(t->ctop[w][b]);
}

/* Issue 39's table, one generator: the budget curve of the model search
 * and of the iterated local search (the same landscapes, noise and
 * ranking; each search's best judged against the truth), exhaustive
 * search at 2^K, then the misfit and "no gain" rates. */
static void curve_print(const char *what, tally_t *t, int k)
{
	if (!t->n)
		return;
	printf("| %s |", what);
	for (int b = 0; b < NBUDGET; b++)
		printf(" %.1f / %.1f %% ; %.1f / %.1f %% ; %.3f / %.3f |",
		       pct(t->creach[C_MODEL][b], t->n), pct(t->creach[C_ILS][b], t->n),
		       100 * t->cregret[C_MODEL][b] / t->n, 100 * t->cregret[C_ILS][b] / t->n,
		       quantile(t->ctop[C_MODEL][b], t->n, 0.05),
		       quantile(t->ctop[C_ILS][b], t->n, 0.05));
	double regret = 0;
	for (int i = 0; i < t->n; i++)
		regret += 1 - t->top[S_EXH][i];
	printf(" %.1f %% ; %.1f %% ; %.3f | %.0f / %.0f %% | %.0f %% (%d of %d) | %.0f %% | %.0f / "
	       "%.0f / %.0f |\n",
	       pct(t->reach98[S_EXH], t->n), 100 * regret / t->n,
	       quantile(t->top[S_EXH], t->n, 0.05), pct(t->misfit2k, t->n), pct(t->misfit, t->n),
	       pct(t->below98_misfit, t->below98), t->below98_misfit, t->below98,
	       pct(t->big_nothing, t->big), quantile(t->configs_def, t->n, 0.5),
	       quantile(t->configs_def, t->n, 0.9), quantile(t->configs_def, t->n, 1));
	(void)k;
}

static void curve_header(void)
{
	printf("\nBudget curve (issue 39), K = 8, with noise: each cell is reach-98 %% (model / "
	       "ILS) ; mean regret (model / ILS) ; 5th pct of best over the true top (model / "
	       "ILS).  Model at 6K+4 is the default search; ILS is an iterated local search "
	       "from the same first design, stopped at the budget.\n"
	       "| landscapes | 2K+4 = 20 | 4K+4 = 36 | 6K+4 = 52 (default) | 10K+4 = 84 | 2^K = "
	       "256: exhaustive | misfit flagged (2K+4 / default) | flagged where 2K+4's best < "
	       "0.98 | stopped \"no gain\" (true top >= 1.10x, default) | configurations, default "
	       "(median / 90th / max) |\n"
	       "| --- | --- | --- | --- | --- | --- | --: | --: | --: | --: |\n");
}

/* How far the model search may fall short of exhaustive search against the
 * truth, per generator: in points of "best >= 98 % of the true top" and of
 * "90 % plan within a group of the true one", and the least 5th percentile
 * of its best over the true top.  Issue 28's targets are -2, -3 and 0.93 on
 * every generator; where the search does not reach them yet (the rows
 * below them in docs/evidence.md), the check holds it at about today's
 * level less 5 points, so that it cannot get worse unseen.  The bandwidth
 * ceiling misses issue 28's -2 at seed 3 (-2.9 points; -1.5 at seed 1):
 * held at -3.5. */
static const struct {
	double reach, f90, p5;
} allowed[NGEN] = {
    [GEN_TABLE2] = {-2, -3, 0.93},    [GEN_PAIRS] = {-2, -3, 0.93},
    [GEN_SYNERGY] = {-2, -3, 0.93},   [GEN_CONFLICT] = {-2, -3, 0.93},
    [GEN_CEILING] = {-3.5, -3, 0.93}, [GEN_NK] = {-57, -37, 0.65},
};

static void tally_check(int gen, tally_t *t)
{
	int fails = failures;
	CHECK_OP(pct(t->reach98[S_MODEL], t->n), >=,
	         pct(t->reach98[S_EXH], t->n) + allowed[gen].reach);
	CHECK_OP(pct(t->f90_true[S_MODEL], t->n), >=,
	         pct(t->f90_true[S_EXH], t->n) + allowed[gen].f90);
	CHECK_OP(quantile(t->top[S_MODEL], t->n, 0.05), >=, allowed[gen].p5);
	if (failures != fails)
		fprintf(stderr, "  (landscapes: %s)\n", gen_name[gen]);
}

/* Issue 39's targets.  Each is printed with its figure; where the search
 * does not meet it yet, the assertion holds the figure reached at seeds
 * 1-3 (less a margin), so that it cannot get worse unseen, and the line
 * says "NOT MET" (docs/evidence.md has the figures). */
static void target(const char *what, double figure, bool higher, double goal, double floor)
{
	bool met = higher ? figure >= goal : figure <= goal;
	printf("  target: %s: %.3g (issue 39: %s %.3g)%s\n", what, figure,
	       higher ? ">=" : "<=", goal, met ? "" : " NOT MET");
	if (higher)
		CHECK_OP(figure, >=, floor);
	else
		CHECK_OP(figure, <=, floor);
}

/* On one generator's tally: the model search within 3 points of the
 * iterated local search at every budget, its curve never falling; misfit
 * flagged in <= 5 % of the model's own family and of flat landscapes,
 * >= 80 % of NK's; "no gain" where the true top is >= 1.10x in <= 10 %; on
 * NK at 6K+4 a mean regret <= 5 % and a 5th percentile >= 0.80, at 10K+4
 * within 5 points of exhaustive search's reach-98 %. */
static void curve_check(int gen, tally_t *t)
{
	static const char *const budget_name[NBUDGET] = {"2K+4", "4K+4", "6K+4", "10K+4"};
	char what[160];
	bool nk = gen == GEN_NK;
	for (int b = 0; b < NBUDGET; b++) {
		snprintf(what, sizeof(what), "%s, %s: model's reach-98 less ILS's (points)",
		         gen_name[gen], budget_name[b]);
		target(what, pct(t->creach[C_MODEL][b], t->n) - pct(t->creach[C_ILS][b], t->n),
		       true, -3, nk ? -12 : -3);
		if (b) {
			snprintf(what, sizeof(what),
			         "%s, %s: model's reach-98 change from %s (points)", gen_name[gen],
			         budget_name[b], budget_name[b - 1]);
			target(what, pct(t->creach[C_MODEL][b] - t->creach[C_MODEL][b - 1], t->n),
			       true, 0, -2.5);
		}
	}
	if (gen == GEN_TABLE2 || gen == GEN_FLAT) {
		snprintf(what, sizeof(what), "%s: misfit flagged at 2K+4 (%%)", gen_name[gen]);
		target(what, pct(t->misfit2k, t->n), false, 5, 5);
	}
	if (nk) {
		target("NK: misfit flagged at 2K+4 (%)", pct(t->misfit2k, t->n), true, 80, 70);
		target("NK, 6K+4: mean regret (%)", 100 * t->cregret[C_MODEL][B_6K] / t->n, false,
		       5, 7.5);
		target("NK, 6K+4: 5th pct of best over the true top",
		       quantile(t->ctop[C_MODEL][B_6K], t->n, 0.05), true, 0.80, 0.70);
		target("NK, 10K+4: model's reach-98 less exhaustive's (points)",
		       pct(t->creach[C_MODEL][B_10K], t->n) - pct(t->reach98[S_EXH], t->n), true,
		       -5, -20);
	}
	if (t->big) {
		snprintf(what, sizeof(what), "%s: \"no gain\" where the true top >= 1.10x (%%)",
		         gen_name[gen]);
		target(what, pct(t->big_nothing, t->big), false, 10, nk ? 15 : 10);
	}
}

/* pairs that help or hurt only together, where the model's best at 2K+4
 * is below 98 % of the true top: misfit flagged in >= 50 % */
static void pairs_check(const tally_t *gens)
{
	int below = gens[GEN_PAIRS].below98 + gens[GEN_SYNERGY].below98;
	int flagged = gens[GEN_PAIRS].below98_misfit + gens[GEN_SYNERGY].below98_misfit;
	target("pair generators whose best at 2K+4 < 0.98 of the top: misfit flagged (%)",
	       pct(flagged, below), true, 50, 5);
}

/* A configuration whose run failed is never asked for again: with all-fast
 * failed and no single faster, the gate stops the search (it once asked
 * for all-fast without end); and with room for one mask only, one. */
static void test_failed_all_fast(void)
{
	hmpt_search_setup_t s = {.k = 5, .confidence = 0.95};
	hmpt_search_obs_t obs[8];
	int n = 0;
	for (int g = 0; g < 5; g++)
		s.bytes[g] = 1;
	for (int g = 0; g < 4; g++)
		obs[n++] = (hmpt_search_obs_t){.mask = 1u << g, .phase = 0, .var = 1e-3};
	obs[n++] = (hmpt_search_obs_t){.mask = 0, .phase = 1, .var = 1e-3, .rounds = 1};
	obs[n++] = (hmpt_search_obs_t){.mask = 16, .phase = 1, .var = 1e-3, .rounds = 1};
	obs[n++] = (hmpt_search_obs_t){.mask = 31, .phase = 1, .failed = true};
	unsigned out[2];
	hmpt_search_stop_t why;
	/* first the two halves (a gain of several groups together), then no
	 * more: nothing */
	CHECK_OP(hmpt_search_next(&s, obs, n, out, 2, &why), ==, 2);
	CHECK_OP(out[0], ==, 7u);
	CHECK_OP(out[1], ==, 24u);
	hmpt_search_obs_t more[10];
	memcpy(more, obs, sizeof(obs));
	more[n] = (hmpt_search_obs_t){.mask = 7, .phase = 1, .var = 1e-3, .rounds = 1};
	more[n + 1] = (hmpt_search_obs_t){.mask = 24, .phase = 1, .var = 1e-3, .rounds = 1};
	CHECK_OP(hmpt_search_next(&s, more, n + 2, out, 2, &why), ==, 0);
	CHECK_OP(why, ==, HMPT_SEARCH_NOTHING);
	/* all-fast measured and faster: another round of it, one mask */
	obs[n - 1] =
	    (hmpt_search_obs_t){.mask = 31, .phase = 1, .y = 0.5, .var = 1e-3, .rounds = 1};
	CHECK_OP(hmpt_search_next(&s, obs, n, out, 1, &why), ==, 1);
	CHECK_OP(out[0], ==, 31u);
	CHECK_OP(why, ==, HMPT_SEARCH_GOING);
}

/* A share measured on a Table II landscape, without noise (the callback
 * of hmpt_splitplan_run): its own cost model's time. */
typedef struct {
	const land_t *l;
	double line;
} split_sim_t;

static int split_sim_measure(void *ctx, const hmpt_splitplan_t *p, double *speedup)
{
	const split_sim_t *s = ctx;
	*speedup = s->l->time[0] / split_time(s->l, p->base, p->group, p->share);
	return *speedup >= s->line * (1 - 1e-12);
}

/* The split on a Table II landscape, without noise, from the true 90 %
 * plan: the tuner's rule (--split: splitplan.h, the groups by time saved
 * alone per byte and a share of the one that crosses the line, three
 * measured shares in 64ths), the rule it replaced (three halving steps on
 * the plan's largest group) and the exact smallest plan with one share
 * (any base, any group: the least share by bisection); and plan-capacity
 * at half the footprint, its room filled with a share of the most valuable
 * group that does not fit.  Sums into acc[]: 0 landscapes, 1 binary 90 %
 * footprint, 2 halving, 3 exact, 4 the rule's, 5 capacity cases where a
 * group does not fit, 6 sum of used/capacity there, 7 least
 * used/capacity, 8 fills faster than the whole-group fit, 9 the rule
 * within 5 % of the exact. */
static void split_eval(const land_t *l, double acc[10])
{
	unsigned tm = true_mask90(l);
	if (!l->has_cost || !tm)
		return;
	double top = max_speedup(l), line = l->time[0] / (0.9 * top);
	int g = -1;
	for (int h = 0; h < l->k; h++)
		if ((tm >> h & 1) && (g < 0 || l->bytes[h] > l->bytes[g]))
			g = h;
	double lo = 0, hi = 1;
	for (int step = 0; step < 3; step++) {
		double mid = (lo + hi) / 2;
		*(split_time(l, tm, g, mid) <= line * (1 + 1e-12) ? &hi : &lo) = mid;
	}
	double f90 = mask_bytes(l, tm), halving = f90 - (1 - hi) * l->bytes[g];
	/* the exact smallest with one share */
	double exact = f90;
	for (unsigned m = 0; m < 1u << l->k; m++)
		for (int h = 0; h < l->k && l->time[m] > line * (1 + 1e-12); h++) {
			if (m >> h & 1 || l->time[m | 1u << h] > line * (1 + 1e-12))
				continue;
			lo = 0, hi = 1;
			for (int step = 0; step < 40; step++) {
				double mid = (lo + hi) / 2;
				*(split_time(l, m, h, mid) <= line * (1 + 1e-12) ? &hi : &lo) = mid;
			}
			exact = fmin(exact, mask_bytes(l, m) + hi * l->bytes[h]);
		}
	/* the tuner's rule */
	double est[MASKS];
	hmpt_splitplan_in_t in = {
	    .k = l->k, .speedup = est, .line = 0.9 * top, .plan90 = tm, .splits = (1u << l->k) - 1};
	for (unsigned m = 0; m < 1u << l->k; m++)
		est[m] = l->time[0] / l->time[m];
	for (int h = 0; h < l->k; h++)
		in.bytes[h] = l->bytes[h], in.grains[h] = 64;
	split_sim_t sim = {l, 0.9 * top};
	hmpt_splitplan_t p;
	hmpt_splitplan_run(&in, 3, 0, split_sim_measure, &sim, &p);
	double rule = p.group >= 0 && p.bytes < f90 ? p.bytes : f90;
	acc[0] += 1;
	acc[1] += f90;
	acc[2] += halving;
	acc[3] += exact;
	acc[4] += rule;
	acc[9] += rule <= 1.05 * exact;
	/* capacity: half the footprint */
	double cap = 0.5;
	unsigned fit = 0;
	for (unsigned m = 1; m < 1u << l->k; m++)
		if (mask_bytes(l, m) <= cap && l->time[m] < l->time[fit])
			fit = m;
	double room = cap - mask_bytes(l, fit);
	int next = -1;
	for (int h = 0; h < l->k; h++)
		if (!(fit >> h & 1) && l->bytes[h] > room && l->time[1u << h] < l->time[0] &&
		    (next < 0 || l->time[1u << h] < l->time[1u << next]))
			next = h;
	if (next < 0)
		return;
	double used = mask_bytes(l, fit) + room; /* the share that fills the room */
	acc[5] += 1;
	acc[6] += used / cap;
	acc[7] = acc[5] == 1 ? used / cap : fmin(acc[7], used / cap);
	acc[8] += split_time(l, fit, next, room / l->bytes[next]) < l->time[fit];
}

/* What any search of 2K+4 configurations can hope for on a landscape,
 * without noise: how many masks reach 98 % of the true top, the chance
 * that 2K+4 masks drawn at random hold one, and whether a steepest
 * one-flip climb from the best of the first design (all-slow, all-fast,
 * the singles) reaches one within 2K+4.  Summed into acc[4] for the
 * report (rugged NK: why its targets are out of reach). */
static void reach_context(const land_t *l, double acc[4])
{
	unsigned nm = 1u << l->k, full = nm - 1, cur = 0;
	int budget = 2 * l->k + 4, near = 0, used = l->k + 2;
	double top = INFINITY;
	for (unsigned m = 0; m < nm; m++)
		top = fmin(top, l->time[m]);
	for (unsigned m = 0; m < nm; m++)
		near += l->time[m] <= top / 0.98;
	double miss = 1;
	for (int i = 0; i < budget; i++)
		miss *= (double)(nm - near - i) / (nm - i);
	for (unsigned m = 1; m < nm; m++)
		if ((m == full || !(m & (m - 1))) && l->time[m] < l->time[cur])
			cur = m;
	for (bool moved = true; moved && used < budget;) {
		unsigned next = cur;
		moved = false;
		for (int g = 0; g < l->k && used < budget; g++, used++)
			if (l->time[cur ^ 1u << g] < l->time[next])
				next = cur ^ 1u << g;
		if (next != cur)
			cur = next, moved = true;
	}
	acc[0] += near, acc[1] += 1 - miss, acc[2] += l->time[cur] <= top / 0.98, acc[3] += 1;
}

int main(int argc, char **argv)
{
	int nper = argc > 1 ? atoi(argv[1]) : 140;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	int only = getenv("SEARCH_GEN") ? atoi(getenv("SEARCH_GEN")) : -1;
	static land_t l;
	static tally_t gens[NGEN];
	double context[NGEN][4] = {{0}}, split[10] = {0};

	test_failed_all_fast();
	tally_header();
	for (int gen = 0; gen < NGEN; gen++) {
		if (only >= 0 && gen != only)
			continue;
		tally_t all = tally_new(nper + 1), bynoise[3];
		for (int a = 0; a < 3; a++)
			bynoise[a] = tally_new(nper + 1);
		for (int i = 0; i < nper; i++) {
			outcome_t o;
			/* streams of their own: a landscape and its runs do not
			 * depend on what the search did in the cases before */
			uint64_t c = (seed * 1000003 + (uint64_t)i) * 31 + (uint64_t)gen;
			rng_state = c * 0x9e3779b97f4a7c15ull + 1;
			synth(&l, gen, i % 7);
			reach_context(&l, context[gen]);
			split_eval(&l, split);
			rng_state = c * 0xbf58476d1ce4e5b9ull + 7;
			evaluate(&l, &o);
			tally_add(&all, &o);
			tally_add(&bynoise[l.noise < 0.04 ? 0 : l.noise < 0.07 ? 1 : 2], &o);
		}
		tally_print(gen_name[gen], &all);
		if (gen == GEN_TABLE2) {
			tally_print("Table II, noise 1-4 %", &bynoise[0]);
			tally_print("Table II, noise 4-7 %", &bynoise[1]);
			tally_print("Table II, noise 7-10 %", &bynoise[2]);
		}
		if (gen == GEN_NULL || gen == GEN_FLAT) {
			/* nothing to find: the search stops after its first design
			 * and two more configurations at most, and says why */
			target(gen == GEN_NULL ? "null: configurations, 95th pct"
			                       : "flat: configurations, 95th pct",
			       quantile(all.configs, all.n, 0.95), false, 8 + 4, 8 + 4);
			target(gen == GEN_NULL ? "null: configurations, max"
			                       : "flat: configurations, max",
			       quantile(all.configs, all.n, 1), false, 8 + 4, 20);
			CHECK_OP(all.why[HMPT_SEARCH_NOTHING], >=, 0.95 * all.n);
		} else {
			tally_check(gen, &all);
		}
		if (gen == GEN_TABLE2) /* the search's own family: as before issue 28 */
			CHECK_OP(all.best_ok, >=, 0.93 * all.n);
		gens[gen] = all;
		for (int a = 0; a < 3; a++)
			tally_free(&bynoise[a]);
	}
	curve_header();
	for (int gen = 0; gen < NGEN; gen++) {
		if (only >= 0 && gen != only)
			continue;
		curve_print(gen_name[gen], &gens[gen], 8);
	}
	if (only < 0)
		pairs_check(gens);
	for (int gen = 0; gen < NGEN; gen++) {
		if (only >= 0 && gen != only)
			continue;
		curve_check(gen, &gens[gen]);
		tally_free(&gens[gen]);
	}
	/* recorded tunings */
	const char *top = getenv("HMPT_TEST_TOP");
	char dirpath[4096];
	snprintf(dirpath, sizeof(dirpath), "%s/tests/data/landscapes", top ? top : ".");
	DIR *d = opendir(dirpath);
	struct dirent *e;
	int nrec = 0;
	while (only < 0 && d && (e = readdir(d))) {
		char path[8192];
		outcome_t o;
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		tally_t one = tally_new(20);
		snprintf(path, sizeof(path), "%s/%s", dirpath, e->d_name);
		if (load_recorded(&l, path) != 0) {
			fprintf(stderr, "%s: not an exhaustive tuning's results.json\n", path);
			failures++;
			land_free(&l);
			tally_free(&one);
			continue;
		}
		for (int rep = 0; rep < 20; rep++) { /* 20 replays, each with its own draws */
			rng_state =
			    (seed * 7919 + (uint64_t)(nrec * 20 + rep)) * 0x94d049bb133111ebull + 3;
			evaluate(&l, &o);
			tally_add(&one, &o);
		}
		char what[80];
		snprintf(what, sizeof(what), "recorded %.50s (K=%d)", l.name, l.k);
		tally_print(what, &one);
		/* a recorded landscape's truth is its measured means, whose noise
		 * favours exhaustive search (it replays the very runs that made a
		 * configuration look best): 95 % of its best's speedup here, in
		 * 85 % of replays (19, 17 and 20 of 20 at seeds 1-3: at K = 4 the
		 * "no gain" probes of issue 39 spend configurations) */
		CHECK_OP(one.best95_ok, >=, 0.85 * one.n);
		land_free(&l);
		tally_free(&one);
		nrec++;
	}
	if (d)
		closedir(d);
	if (only < 0)
		CHECK(nrec > 0);
	if (split[0] > 0) {
		printf("  (split, Table II landscapes, without noise, from the true 90 %% plan: "
		       "%.1f %% of the footprint on average in whole groups, %.1f %% with the "
		       "largest group halved three times, %.1f %% by --split (a share of the group "
		       "that crosses the line, by time saved per byte; within 5 %% of the exact in "
		       "%.0f %% of landscapes), %.1f %% at the exact smallest share; "
		       "plan-capacity at half the footprint, where a group does not fit whole "
		       "(%.0f landscapes): %.1f %% of the capacity used on average with a share of "
		       "it (%.1f %% at least), faster than whole groups in %.0f %%)\n",
		       100 * split[1] / split[0], 100 * split[2] / split[0],
		       100 * split[4] / split[0], 100 * split[9] / split[0],
		       100 * split[3] / split[0], split[5],
		       split[5] ? 100 * split[6] / split[5] : 0, 100 * split[7],
		       split[5] ? 100 * split[8] / split[5] : 0);
		CHECK_OP(split[2], <=, split[1]);
		CHECK_OP(split[4], <=, split[2]);
		CHECK_OP(split[7], >=, 0.9);
	}
	if (context[GEN_NK][3] > 0) {
		const double *c = context[GEN_NK];
		printf("  (rugged NK, without noise: %.1f of 256 masks reach 98 %% of the top "
		       "on average; %d random configurations hold one in %.0f %% of "
		       "landscapes, a steepest one-flip climb from the first design's best "
		       "reaches one in %.0f %%)\n",
		       c[0] / c[3], 2 * 8 + 4, 100 * c[1] / c[3], 100 * c[2] / c[3]);
	}
	printf("%s\n", failures ? "FAILED" : "ok");
	return failures != 0;
}
