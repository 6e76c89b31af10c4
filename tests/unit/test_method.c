/* test_method.c — the tuner's analysis on hand-built tunings: speedups over
 * the reference, the Bonferroni alpha, the choices best, best90 and fit, a
 * failed run, the linear estimate, and the ranking by impact. */
#include <math.h>
#include <string.h>

#include "check.h"

#include "method.h"

#define NCONF 8
#define NRUN  4

static hmpt_tconfig_t configs[NCONF];
static hmpt_trun_t runs[NCONF][NRUN];

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

/* what was asked, for every test's tuning */
static hmpt_tune_opts_t opts;

static void reset(hmpt_tune_t *t)
{
	memset(configs, 0, sizeof(configs));
	memset(runs, 0, sizeof(runs));
	opts = (hmpt_tune_opts_t){.reps = 3, .alpha = 0.05, .min_gain = 0.01};
	*t = (hmpt_tune_t){.opt = &opts, .configs = configs};
}

/* Configuration i of t: runs of these values (a negative value: a run that
 * failed), fast_bytes in the fast pool, compared with configuration 0. */
static hmpt_tconfig_t *add(hmpt_tune_t *t, const double *v, int n, uint64_t fast_bytes)
{
	hmpt_tconfig_t *c = &configs[t->nconfigs];

	for (int k = 0; k < n; k++) {
		runs[t->nconfigs][k] = (hmpt_trun_t){.value = v[k], .wall = v[k], .rep = k};
		if (v[k] < 0)
			runs[t->nconfigs][k].status = 124;
	}
	c->runs = runs[t->nconfigs];
	c->nruns = n;
	c->fast_bytes = fast_bytes;
	c->ref = 0;
	t->nconfigs++;
	return c;
}

/* A ranking phase: all-slow, and configurations 2x, 1.85x, 1.43x, 2.5x (but
 * one run failed), 1x faster, and one that never ran. */
static void ranking(hmpt_tune_t *t, uint64_t capacity)
{
	reset(t);
	opts.capacity = capacity;
	add(t, (double[]){10.0, 10.1, 9.9}, 3, 0);
	add(t, (double[]){5.0, 5.05, 4.95}, 3, 100);
	add(t, (double[]){5.4, 5.45, 5.35}, 3, 40);
	add(t, (double[]){7.0, 7.05, 6.95}, 3, 10);
	add(t, (double[]){4.0, -1, 4.02}, 3, 5);
	add(t, (double[]){10.05, 9.95, 10.0}, 3, 20);
	add(t, NULL, 0, 1);
	hmpt_method_analyze(t);
}

static void test_choices(void)
{
	hmpt_tune_t t;

	ranking(&t, 0);
	/* the reference is 1x by definition */
	CHECK_OP(configs[0].sp.speedup, ==, 1);
	CHECK_OP(configs[0].sp.lo, ==, 1);
	CHECK_OP(configs[0].sp.hi, ==, 1);
	CHECK(configs[0].sum.n == 3 && near(configs[0].sum.mean, 10, 1e-12));
	/* clearly faster runs: faster, and the best */
	CHECK(near(configs[1].sp.speedup, 2, 1e-12));
	CHECK(configs[1].sp.faster && configs[1].sp.lo > 1);
	CHECK_OP(t.best, ==, 1);
	/* best90: the smallest footprint within 90 % of the best (1.85x, 40
	 * bytes), not the smaller one at 1.43x */
	CHECK(configs[2].sp.faster && configs[3].sp.faster);
	CHECK_OP(t.best90, ==, 2);
	/* a failed run: counted, and the configuration is never chosen though
	 * its other runs are the fastest of all */
	CHECK_OP(configs[4].nfailed, ==, 1);
	CHECK_OP(configs[4].sum.n, ==, 2);
	CHECK_OP(configs[4].sp.speedup, >, configs[1].sp.speedup);
	CHECK_OP(t.best, !=, 4);
	CHECK_OP(t.best90, !=, 4);
	/* no gain: not faster, not slower */
	CHECK(!configs[5].sp.faster && !configs[5].sp.slower);
	/* no --capacity: no fit */
	CHECK_OP(t.fit, ==, -1);
	/* Bonferroni over the five configurations compared with the reference
	 * (the one that never ran is not) */
	CHECK_OP(t.alpha_used, ==, t.opt->alpha / 5);
	CHECK_OP(configs[6].sum.n, ==, 0);
}

static void test_capacity(void)
{
	hmpt_tune_t t;

	/* the highest speedup whose fast bytes fit */
	ranking(&t, 50);
	CHECK_OP(t.fit, ==, 2);
	CHECK_OP(t.best, ==, 1);
	ranking(&t, 20);
	CHECK_OP(t.fit, ==, 3);
	ranking(&t, 40);
	CHECK_OP(t.fit, ==, 2);
	/* the failed configuration (5 bytes) does not fit anything */
	ranking(&t, 9);
	CHECK_OP(t.fit, ==, -1);
}

/* plan-best: the smallest footprint not measurably slower than the
 * fastest, which stays t->fastest */
static void test_best_rule(void)
{
	hmpt_tune_t t;

	reset(&t);
	add(&t, (double[]){10.0, 10.1, 9.9}, 3, 0);
	add(&t, (double[]){5.0, 5.3, 4.7}, 3, 100);   /* 2.0x, the fastest */
	add(&t, (double[]){5.04, 5.34, 4.74}, 3, 60); /* 1.98x: within the noise */
	add(&t, (double[]){5.2, 5.5, 4.9}, 3, 50);    /* 1.92x: within the noise, but
	                                                 more than --min-gain slower */
	add(&t, (double[]){6.5, 6.55, 6.45}, 3, 30);  /* 1.54x: measurably slower */
	hmpt_method_analyze(&t);
	CHECK_OP(t.fastest, ==, 1);
	CHECK_OP(t.best, ==, 2);
	CHECK_OP(t.best90, ==, 3);
	/* one slow run does not hide a configuration's being slower: the
	 * comparison with the fastest uses the pooled variance */
	reset(&t);
	add(&t, (double[]){10.0, 10.01, 9.99}, 3, 0);
	add(&t, (double[]){5.0, 5.005, 4.995}, 3, 100);
	add(&t, (double[]){5.5, 5.5, 9.0}, 3, 10);
	hmpt_method_analyze(&t);
	CHECK_OP(t.fastest, ==, 1);
	CHECK_OP(t.best, ==, 1);
	/* with quiet runs the same 2 % is measurable: the fastest is the best */
	reset(&t);
	add(&t, (double[]){10.0, 10.01, 9.99}, 3, 0);
	add(&t, (double[]){5.0, 5.005, 4.995}, 3, 100);
	add(&t, (double[]){5.1, 5.105, 5.095}, 3, 60);
	hmpt_method_analyze(&t);
	CHECK_OP(t.fastest, ==, 1);
	CHECK_OP(t.best, ==, 1);
	CHECK_OP(t.best90, ==, 2);
	/* a measured configuration may also be a predicted one's neighbour:
	 * predictions (no runs) are never chosen */
	reset(&t);
	add(&t, (double[]){10.0, 10.1, 9.9}, 3, 0);
	add(&t, (double[]){5.0, 5.05, 4.95}, 3, 100);
	hmpt_tconfig_t *p = add(&t, NULL, 0, 1);
	p->predicted = 3;
	hmpt_method_analyze(&t);
	CHECK_OP(t.best, ==, 1);
	CHECK_OP(t.best90, ==, 1);
}

/* Only runs of reps within --reps (the reference: times its share) count. */
static void test_reps(void)
{
	hmpt_tune_t t;

	reset(&t);
	opts.reps = 2;
	hmpt_tconfig_t *ref = add(&t, (double[]){10, 10.2, 9.8, 10.1}, 4, 0);
	hmpt_tconfig_t *c = add(&t, (double[]){5, 5.1, 100}, 3, 1);
	ref->share = 2;
	hmpt_method_analyze(&t);
	CHECK_OP(ref->sum.n, ==, 4);
	CHECK_OP(c->sum.n, ==, 2);
	ref->share = 1;
	hmpt_method_analyze(&t);
	CHECK(ref->sum.n == 2 && near(ref->sum.mean, 10.1, 1e-12));
}

/* Slow outliers of the search are left out of the summaries (and so of the
 * pooled variance and the speedups), kept in the runs; the confirmation's
 * runs are never judged. */
static void test_outliers(void)
{
	hmpt_tune_t t;

	reset(&t);
	hmpt_tconfig_t *ref = add(&t, (double[]){10, 10.1, 9.9, 10.05}, 4, 0);
	ref->share = 2;
	add(&t, (double[]){5, 5.05, 4.95}, 3, 100);
	hmpt_tconfig_t *c = add(&t, (double[]){5.4, 5.45, 12}, 3, 40); /* a burst */
	add(&t, (double[]){7, 7.05, 6.95}, 3, 10);
	hmpt_method_analyze(&t);
	CHECK(c->runs[2].outlier && !c->runs[0].outlier && !c->runs[1].outlier);
	CHECK_OP(c->sum.n, ==, 2);
	CHECK_OP(c->noutliers, ==, 1);
	CHECK_OP(c->nruns, ==, 3);
	CHECK(near(c->sum.mean, 5.425, 1e-12));
	CHECK_OP(t.noise.outliers, ==, 1);
	CHECK_OP(t.noise.outliers_of, ==, 13);
	CHECK_OP(t.noise.outlier_scale, >, 0);
	CHECK_OP(ref->sum.n, ==, 4);
	CHECK_OP(ref->noutliers, ==, 0);
	/* without it the pooled variance is that of the burst: far wider */
	double var = t.pool.var;
	CHECK_OP(var, <, 1e-4);
	/* a fast outlier stays */
	c->runs[2].value = 2;
	hmpt_method_analyze(&t);
	CHECK(!c->runs[2].outlier && c->sum.n == 3 && t.noise.outliers == 0);
	/* a rate: the low figure is the slow one */
	opts.maximize = true;
	hmpt_method_analyze(&t);
	CHECK(c->runs[2].outlier && c->sum.n == 2 && t.noise.outliers == 1);
	opts.maximize = false;
	/* the confirmation keeps every run */
	c->runs[2].value = 12;
	c->in_confirm = true;
	hmpt_method_analyze(&t);
	CHECK(!c->runs[2].outlier && c->sum.n == 3 && t.noise.outliers == 0);
	CHECK_OP(t.noise.outliers_of, ==, 10);
	c->in_confirm = false;
	/* a retaken run is not judged: it does not count at all */
	strcpy(c->runs[2].retaken, "load");
	hmpt_method_analyze(&t);
	CHECK(!c->runs[2].outlier && c->sum.n == 2 && c->noutliers == 0);
}

/* The combination phase: groups' speedups alone, and the linear estimate
 * of their combination from them. */
static void test_estimate(void)
{
	hmpt_tune_t t;

	reset(&t);
	t.ngroups = 2;
	t.ncombos = 4;
	for (int m = 0; m < 4; m++) {
		double base = (double[]){10, 8, 8, 6.5}[m];
		hmpt_tconfig_t *c = add(&t, (double[]){base, base * 1.01, base * 0.99}, 3, 10u * m);
		c->in_combos = true;
		c->mask = (unsigned)m;
	}
	hmpt_method_analyze(&t);
	CHECK(near(t.groups[0].alone, 1.25, 1e-12) && near(t.groups[1].alone, 1.25, 1e-12));
	/* savings of 20 % and 20 % of the time: 1 / 0.6 */
	CHECK(near(configs[3].estimate, 1 / 0.6, 1e-12));
	CHECK(near(configs[1].estimate, 1.25, 1e-12));
	CHECK_OP(t.best, ==, 3);
}

static void test_rank(void)
{
	hmpt_tune_t t;
	int order[] = {1, 2, 3, 4, 5};

	ranking(&t, 0);
	hmpt_method_rank(&t, order, 5);
	CHECK_OP(order[0], ==, 4);
	CHECK_OP(order[1], ==, 1);
	CHECK_OP(order[2], ==, 2);
	CHECK_OP(order[3], ==, 3);
	CHECK_OP(order[4], ==, 5);
	/* the same speedup: the larger footprint first */
	reset(&t);
	add(&t, (double[]){10, 10.1, 9.9}, 3, 0);
	add(&t, (double[]){5, 5.05, 4.95}, 3, 10);
	add(&t, (double[]){5, 5.05, 4.95}, 3, 30);
	add(&t, (double[]){5, 5.05, 4.95}, 3, 20);
	hmpt_method_analyze(&t);
	int tie[] = {1, 2, 3};
	hmpt_method_rank(&t, tie, 3);
	CHECK_OP(tie[0], ==, 2);
	CHECK_OP(tie[1], ==, 3);
	CHECK_OP(tie[2], ==, 1);
	hmpt_method_rank(&t, tie, 0);
}

int main(void)
{
	test_choices();
	test_capacity();
	test_best_rule();
	test_reps();
	test_outliers();
	test_estimate();
	test_rank();
	return failures != 0;
}
