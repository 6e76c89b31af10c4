/* test_loaddep.c — the load x placement fit (loaddep.h): values worked out
 * by hand, the cases where it does not stand, and a seeded simulation of
 * confirmation rounds under a memory-bandwidth co-tenant that slows
 * all-slow more than the fast placement. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#include "loaddep.h"
#include "stats.h"

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

/* d = 0.02 + 0.01 m + e over m = 0..5, e = 0.001 (1 -1 -1 1 1 -1): simple
 * regression (g = 0 everywhere): b1 = 0.01 + Sme / Smm = 0.01 - 0.001 / 17.5,
 * b0 = mean(d) - b1 mean(m) with mean(e) = 0. */
static void test_by_hand(void)
{
	double e[6] = {1, -1, -1, 1, 1, -1}, d[7], la[7], lb[7];
	for (int i = 0; i < 6; i++) {
		la[i] = lb[i] = 3 + i; /* offset: the fit starts at the quietest */
		d[i] = 0.02 + 0.01 * i + 0.001 * e[i];
	}
	hmpt_loaddep_t f;
	CHECK_OP(hmpt_loaddep_fit(d, la, lb, 6, 0.05, 0.01, 0.01, &f), ==, 0);
	CHECK(f.fitted && !f.with_diff);
	double b1 = 0.01 - 0.001 / 17.5, b0 = (0.02 * 6 + 0.01 * 15) / 6 - b1 * 2.5;
	CHECK(near(f.slope, b1, 1e-12));
	CHECK(near(f.quiet, exp(b0), 1e-12));
	CHECK(near(f.busy, exp(b0 + 5 * b1), 1e-12));
	CHECK(near(f.quiet_load, 3, 1e-12) && near(f.busy_load, 8, 1e-12));
	/* rss = sum e^2 - Sme^2 / Smm, df 4; se(b1) = sqrt(s2 / Smm) */
	double rss = 6e-6 - 1e-6 / 17.5, se = sqrt(rss / 4 / 17.5);
	CHECK(near(f.se, se, 1e-12));
	CHECK(f.depends); /* t ~ 13 */
	/* se(b0) = sqrt(s2 (1/n + mean(m)^2 / Smm)) */
	double h = hmpt_stats_t_quantile(0.995, 4) * sqrt(rss / 4 * (1.0 / 6 + 6.25 / 17.5));
	CHECK(near(f.at_quiet.lo, exp(b0 - h), 1e-12) && near(f.at_quiet.hi, exp(b0 + h), 1e-12));
	CHECK(f.at_quiet.faster && !f.at_quiet.slower);

	/* a load difference within the pairs: d = 0.02 + 0.01 m + 0.03 g
	 * exactly is found exactly */
	double ga[7] = {0, 0.5, -0.5, 0, 1, 0, -1}, mm[7] = {0, 0, 1, 2, 2, 3, 4};
	for (int i = 0; i < 7; i++) {
		la[i] = mm[i] - ga[i] / 2;
		lb[i] = mm[i] + ga[i] / 2;
		d[i] = 0.02 + 0.01 * mm[i] + 0.03 * ga[i];
	}
	CHECK_OP(hmpt_loaddep_fit(d, la, lb, 7, 0.05, 0.01, 0.01, &f), ==, 0);
	CHECK(f.fitted && f.with_diff);
	CHECK(near(f.slope, 0.01, 1e-9) && near(f.quiet, exp(0.02), 1e-9));
}

static void test_does_not_stand(void)
{
	double d[6] = {0.1, 0.2, 0.1, 0.2, 0.1, 0.2}, l[6] = {1, 1, 1, 1, 1, 1};
	double m[6] = {0, 1, 2, 3, 4, 5};
	hmpt_loaddep_t f;
	/* the same load in every round: nothing to regress on */
	CHECK_OP(hmpt_loaddep_fit(d, l, l, 6, 0.05, 0.01, 0.01, &f), ==, -1);
	CHECK(!f.fitted);
	/* a load that varies less than the probe's own noise: 100 to 105 */
	double q[6] = {100, 105, 101, 104, 102, 103};
	CHECK_OP(hmpt_loaddep_fit(d, q, q, 6, 0.05, 0.01, 0.01, &f), ==, -1);
	q[5] = 111; /* one round apart is not enough either: the 90th percentile */
	CHECK_OP(hmpt_loaddep_fit(d, q, q, 6, 0.05, 0.01, 0.01, &f), ==, -1);
	q[3] = 114, q[4] = 112; /* two rounds apart: it stands */
	CHECK_OP(hmpt_loaddep_fit(d, q, q, 6, 0.05, 0.01, 0.01, &f), ==, 0);
	/* too few pairs */
	CHECK_OP(hmpt_loaddep_fit(d, m, m, 4, 0.05, 0.01, 0.01, &f), ==, -1);
	m[2] = NAN;
	CHECK_OP(hmpt_loaddep_fit(d, m, m, 6, 0.05, 0.01, 0.01, &f), ==, -1);
	/* no dependence: a flat d is not flagged */
	double flat[6] = {0.05, 0.05, 0.05, 0.05, 0.05, 0.05}, m2[6] = {0, 1, 2, 3, 4, 5};
	CHECK_OP(hmpt_loaddep_fit(flat, m2, m2, 6, 0.05, 0.01, 0.01, &f), ==, 0);
	CHECK(!f.depends && near(f.slope, 0, 1e-12));
}

/* ------------------------------------------------------- the simulation */

static uint64_t rng;

static double uniform(void)
{
	/* splitmix64 */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return ((z ^ (z >> 31)) >> 11) * 0x1p-53;
}

static double normal(void)
{
	return sqrt(-2 * log(1 - uniform())) * cos(2 * M_PI * uniform());
}

/* A noise structure: each run's log time is gain (fast only) + noise sd x
 * N(0,1) + load x (slow_hit or fast_hit); the co-tenant is on (load 1) at a
 * round's start with probability p_on and turns over between its two runs
 * with probability p_flip; the memory figure reads the probe's: 100 (ns
 * per KiB, quiet) + 20 x load (a co-tenant moved it by 13 to 33 % here) +
 * 20 fig_sd x N(0,1). */
typedef struct {
	const char *name;
	double gain, sd, slow_hit, fast_hit, p_on, p_flip, fig_sd;
} model_t;

typedef struct {
	int faster_plain; /* Wilcoxon over all rounds says faster */
	int flagged;      /* the fit says the speedup depends on load */
	int faster;       /* faster by the confirmation's rule (loaddep.h) */
	int unflagged;    /* faster by it, and not flagged */
} tally_t;

/* 20 rounds each (--confirm's default), no stopping rule: the fit and its
 * rule alone; the confirmation's own loop is the unit harness's */
enum { ROUNDS = 20, TUNINGS = 2000 };
static const double alpha = 0.05 / 5, min_gain = 0.01; /* the confirmation's */

static tally_t simulate(const model_t *mo, uint64_t seed)
{
	tally_t t = {0};
	rng = seed;
	for (int k = 0; k < TUNINGS; k++) {
		double d[ROUNDS], la[ROUNDS], lb[ROUNDS];
		for (int i = 0; i < ROUNDS; i++) {
			bool on = uniform() < mo->p_on, fast_first = uniform() < 0.5;
			bool on2 = uniform() < mo->p_flip ? !on : on;
			double lf = fast_first ? on : on2, ls = fast_first ? on2 : on;
			double ts = mo->sd * normal() + ls * mo->slow_hit;
			double tf = -mo->gain + mo->sd * normal() + lf * mo->fast_hit;
			d[i] = ts - tf;
			la[i] = 100 + 20 * (lf + mo->fig_sd * normal());
			lb[i] = 100 + 20 * (ls + mo->fig_sd * normal());
		}
		hmpt_speedup_t sp;
		bool exact;
		hmpt_stats_paired(d, ROUNDS, alpha, min_gain, &sp, &exact);
		t.faster_plain += sp.faster;
		hmpt_loaddep_t f;
		hmpt_loaddep_fit(d, la, lb, ROUNDS, HMPT_LOADDEP_ALPHA, alpha, min_gain, &f);
		hmpt_loaddep_apply(&f, min_gain, &sp);
		t.flagged += f.depends;
		t.faster += sp.faster;
		t.unflagged += sp.faster && !f.depends;
	}
	return t;
}

/* Rates out of TUNINGS, in per cent */
#define PCT(x) (100.0 * (x) / TUNINGS)

static void test_simulation(void)
{
	enum { NULL_LXP, WEAK_LXP, NULL_ALIKE, GAIN_ALIKE, GAIN_LXP, NMODELS };
	static const model_t models[NMODELS] = {
	    /* the case: the co-tenant slows all-slow by 8 %, the fast
	     * placement by 4 %; nothing faster when quiet.  The figure's
	     * noise is 0.3 of the load's step (the probe's, measured) */
	    [NULL_LXP] = {"load x placement, null", 0, 0.02, 0.08, 0.04, 0.4, 0.25, 0.3},
	    [WEAK_LXP] = {"load x placement, weak", 0, 0.02, 0.05, 0.03, 0.4, 0.25, 0.3},
	    /* load that slows both alike: nothing to flag */
	    [NULL_ALIKE] = {"load alike, null", 0, 0.02, 0.08, 0.08, 0.4, 0.25, 0.3},
	    [GAIN_ALIKE] = {"load alike, 5 % faster", 0.05, 0.02, 0.08, 0.08, 0.4, 0.25, 0.3},
	    [GAIN_LXP] = {"load x placement, 5 % faster", 0.05, 0.02, 0.08, 0.04, 0.4, 0.25, 0.3},
	};
	/* 40 asserted; 41 and 42 held too when the bounds were set */
	uint64_t seed = getenv("LOADDEP_SEED") ? strtoull(getenv("LOADDEP_SEED"), NULL, 10) : 40;
	tally_t t[NMODELS];
	for (int m = 0; m < NMODELS; m++) {
		t[m] = simulate(&models[m], seed);
		printf("seed %llu  %-30s faster: all rounds %5.1f %%, the rule %5.1f %% (%5.1f %% "
		       "unflagged); flagged %5.1f %%\n",
		       (unsigned long long)seed, models[m].name, PCT(t[m].faster_plain),
		       PCT(t[m].faster), PCT(t[m].unflagged), PCT(t[m].flagged));
	}
	/* the model has the bias: over all rounds, 1 in 8 null tunings
	 * is "faster" */
	CHECK_OP(PCT(t[NULL_LXP].faster_plain), >=, 10);
	/* the target: >= 80 % of null tunings flagged or not confirmed; and
	 * false "faster" back near the claimed 5 % */
	CHECK_OP(PCT(t[NULL_LXP].unflagged), <=, 20);
	CHECK_OP(PCT(t[NULL_LXP].faster), <=, 5.5);
	CHECK_OP(PCT(t[WEAK_LXP].faster), <=, 5);
	/* no interaction: flagged about as often as the test's level, and
	 * nearly all the power kept */
	CHECK_OP(PCT(t[NULL_ALIKE].flagged), <=, 100 * HMPT_LOADDEP_ALPHA + 1.5);
	CHECK_OP(PCT(t[NULL_ALIKE].faster), <=, 1.5);
	CHECK_OP(t[GAIN_ALIKE].faster, >=, 0.97 * t[GAIN_ALIKE].faster_plain);
	/* a real gain under the interaction: most still found, on the quiet
	 * figure */
	CHECK_OP(PCT(t[GAIN_LXP].faster), >=, 60);
}

int main(void)
{
	test_by_hand();
	test_does_not_stand();
	test_simulation();
	if (failures)
		fprintf(stderr, "test_loaddep: %d check(s) failed\n", failures);
	return failures != 0;
}
