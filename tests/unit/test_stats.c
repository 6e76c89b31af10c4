/* test_stats.c — t quantiles against published tables, summaries, and the
 * speedup interval's verdicts: a real gain is "faster", noise is not. */
#include <math.h>

#include "check.h"

#include "stats.h"

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

static void test_quantiles(void)
{
	/* two-sided 95 %: the values every statistics table prints */
	CHECK(near(hmpt_stats_t_quantile(0.975, 1), 12.706, 1e-3));
	CHECK(near(hmpt_stats_t_quantile(0.975, 2), 4.303, 1e-3));
	CHECK(near(hmpt_stats_t_quantile(0.975, 4), 2.776, 1e-3));
	CHECK(near(hmpt_stats_t_quantile(0.975, 30), 2.042, 1e-3));
	CHECK(near(hmpt_stats_t_quantile(0.995, 10), 3.169, 1e-3));
	CHECK(near(hmpt_stats_t_quantile(0.975, 1e6), 1.960, 1e-3));
	CHECK(near(hmpt_stats_t_quantile(0.025, 4), -2.776, 1e-3));
	CHECK_OP(hmpt_stats_t_quantile(0.5, 3), ==, 0);
	/* fractional df (Welch) lies between its neighbours */
	double q = hmpt_stats_t_quantile(0.975, 4.5);
	CHECK_OP(q, <, 2.776);
	CHECK_OP(q, >, 2.571);
	/* the normal: the table's values, and far in the tail (the search's
	 * Bonferroni lines: 0.05 over hundreds of comparisons) */
	CHECK(near(hmpt_stats_normal_quantile(0.975), 1.95996, 1e-4));
	CHECK(near(hmpt_stats_normal_quantile(0.025), -1.95996, 1e-4));
	CHECK(near(hmpt_stats_normal_quantile(1 - 1e-5), 4.26489, 1e-4));
	CHECK_OP(hmpt_stats_normal_quantile(0.5), ==, 0);
	CHECK(near(hmpt_stats_normal_cdf(1.95996), 0.975, 1e-5));
}

static void test_summary(void)
{
	hmpt_summary_t s;
	double x[] = {3, 1, 2, 10};
	hmpt_stats_summary(x, 4, &s);
	CHECK(s.n == 4 && near(s.mean, 4, 1e-12) && s.min == 1 && s.max == 10);
	CHECK(near(s.median, 2.5, 1e-12));
	CHECK(near(s.sd, sqrt(((1.0 + 9 + 4 + 36)) / 3), 1e-12));
	CHECK_OP(x[0], ==, 3); /* the input is left as it was */
	hmpt_stats_summary(x, 1, &s);
	CHECK_OP(s.n, ==, 1);
	CHECK_OP(s.sd, ==, 0);
	CHECK_OP(s.median, ==, 3);
}

static void test_speedup(void)
{
	hmpt_summary_t ref, fast, same;
	hmpt_speedup_t sp;
	double r[] = {2.00, 2.02, 1.98}, f[] = {1.60, 1.62, 1.58}, s[] = {2.01, 1.97, 2.03};

	hmpt_stats_summary(r, 3, &ref);
	hmpt_stats_summary(f, 3, &fast);
	hmpt_stats_summary(s, 3, &same);
	hmpt_stats_speedup(&ref, &fast, NULL, 0.05, 0.01, false, &sp);
	CHECK(near(sp.speedup, 1.25, 1e-9) && sp.lo > 1.15 && sp.lo < 1.25 && sp.hi > 1.25);
	CHECK(sp.faster && !sp.slower);
	hmpt_stats_speedup(&ref, &same, NULL, 0.05, 0.01, false, &sp);
	CHECK(!sp.faster && !sp.slower && sp.lo < 1 && sp.hi > 1);
	/* rates: higher is better, so the ratio turns over */
	hmpt_stats_speedup(&ref, &fast, NULL, 0.05, 0.01, true, &sp);
	CHECK(near(sp.speedup, 0.8, 1e-9) && sp.slower && !sp.faster);
	/* a stricter alpha (many comparisons) widens the interval */
	hmpt_speedup_t strict;
	hmpt_stats_speedup(&ref, &fast, NULL, 0.05 / 256, 0.01, false, &strict);
	hmpt_stats_speedup(&ref, &fast, NULL, 0.05, 0.01, false, &sp);
	CHECK_OP(strict.lo, <, sp.lo);
	CHECK_OP(strict.hi, >, sp.hi);
	/* identical values: no spread, and a gain below min_gain is not a speedup */
	double a[] = {1.000, 1.000}, b[] = {0.995, 0.995};
	hmpt_summary_t sa, sb;
	hmpt_stats_summary(a, 2, &sa);
	hmpt_stats_summary(b, 2, &sb);
	hmpt_stats_speedup(&sa, &sb, NULL, 0.05, 0.01, false, &sp);
	CHECK(!sp.faster && sp.lo == sp.hi);
	/* one run each: a point estimate, never a verdict */
	hmpt_stats_summary(f, 1, &fast);
	hmpt_stats_speedup(&ref, &fast, NULL, 0.05, 0.01, false, &sp);
	CHECK(sp.speedup > 1 && !sp.faster && isinf(sp.hi));
}

/* One variance of log(run) pooled over many samples: its degrees of freedom
 * are those of all runs, so 3 runs a configuration give a narrower interval
 * than Welch's from the two samples alone. */
static void test_pooled(void)
{
	double r[] = {2.00, 2.06, 1.94}, f[] = {1.60, 1.66, 1.55};
	hmpt_summary_t ref, fast;
	hmpt_pooled_t pool = {0};
	hmpt_speedup_t welch, pooled;

	hmpt_stats_summary(r, 3, &ref);
	hmpt_stats_summary(f, 3, &fast);
	double lr = 0;
	for (int i = 0; i < 3; i++)
		lr += log(r[i]) / 3;
	double want = 0;
	for (int i = 0; i < 3; i++)
		want += (log(r[i]) - lr) * (log(r[i]) - lr);
	CHECK(near(ref.log_ss, want, 1e-12));
	/* 16 configurations of 3 runs with the same spread: df 32 */
	for (int i = 0; i < 16; i++)
		hmpt_stats_pool(&pool, i % 2 ? &ref : &fast);
	CHECK(near(pool.df, 32, 1e-12));
	CHECK(near(pool.var, (8 * ref.log_ss + 8 * fast.log_ss) / 32, 1e-15));
	hmpt_stats_speedup(&ref, &fast, NULL, 0.05 / 15, 0.01, false, &welch);
	hmpt_stats_speedup(&ref, &fast, &pool, 0.05 / 15, 0.01, false, &pooled);
	CHECK(near(pooled.speedup, welch.speedup, 1e-12));
	CHECK(pooled.lo > welch.lo && pooled.hi < welch.hi && pooled.faster);
	/* an outlier in the reference is not hidden by the pool: a 1.09x gain
	 * with one slow reference run among three (as a loaded CI machine gave
	 * with two identical pools) is not called faster */
	double ro[] = {0.215, 0.221, 0.255}, fo[] = {0.210, 0.212, 0.214};
	hmpt_summary_t refo, fasto;
	hmpt_pooled_t quiet = {0};
	hmpt_stats_summary(ro, 3, &refo);
	hmpt_stats_summary(fo, 3, &fasto);
	for (int i = 0; i < 15; i++)
		hmpt_stats_pool(&quiet, &fasto);
	hmpt_stats_pool(&quiet, &refo);
	hmpt_stats_speedup(&refo, &fasto, &quiet, 0.05 / 6, 0.01, false, &pooled);
	CHECK(pooled.speedup > 1.08 && !pooled.faster && pooled.lo < 1);
	/* one-run samples and non-positive values add nothing */
	hmpt_pooled_t none = {0};
	double one[] = {1.0}, zero[] = {0.0, 1.0};
	hmpt_summary_t s1, s0;
	hmpt_stats_summary(one, 1, &s1);
	hmpt_stats_summary(zero, 2, &s0);
	hmpt_stats_pool(&none, &s1);
	hmpt_stats_pool(&none, &s0);
	CHECK_OP(none.df, ==, 0);
	/* an empty pool falls back to Welch */
	hmpt_stats_speedup(&ref, &fast, &none, 0.05 / 15, 0.01, false, &pooled);
	CHECK_OP(pooled.lo, ==, welch.lo);
	CHECK_OP(pooled.hi, ==, welch.hi);
}

/* Paired runs: the Hodges-Lehmann estimate and Wilcoxon's interval, as
 * the published critical values give them (n = 10, 95 %: W+ <= 8). */
static void test_paired(void)
{
	double d[12];
	hmpt_speedup_t sp;
	bool exact;

	CHECK_OP(hmpt_stats_paired_min(0.05), ==, 6);
	CHECK_OP(hmpt_stats_paired_min(0.05 / 4), ==, 8);
	for (int i = 0; i < 10; i++)
		d[i] = 0.01 * (i + 1);
	hmpt_stats_paired(d, 10, 0.05, 0.01, &sp, &exact);
	CHECK(exact);
	/* the 9th smallest and the 9th largest of the 55 Walsh averages */
	CHECK(near(log(sp.lo), 0.03, 1e-12) && near(log(sp.hi), 0.08, 1e-12));
	CHECK(near(log(sp.speedup), 0.055, 1e-12));
	CHECK(sp.faster && !sp.slower);
	/* n = 12 at 0.0125: W+ <= 8, the 9th Walsh average */
	for (int i = 0; i < 12; i++)
		d[i] = 0.01 * (i + 1) - 0.06;
	hmpt_stats_paired(d, 12, 0.0125, 0.01, &sp, &exact);
	CHECK(exact && near(log(sp.lo), -0.03, 1e-12) && near(log(sp.hi), 0.04, 1e-12));
	CHECK(!sp.faster && !sp.slower);
	/* a burst in one pair moves the mean far, the estimate hardly */
	for (int i = 0; i < 10; i++)
		d[i] = 0.05 + 0.002 * (i % 3 - 1);
	d[4] = 1.5;
	hmpt_stats_paired(d, 10, 0.05, 0.01, &sp, &exact);
	CHECK(near(log(sp.speedup), 0.05, 0.003));
	CHECK(sp.faster); /* its interval widens instead */
	/* too few pairs for the exact level: the paired t interval */
	hmpt_stats_paired(d, 5, 0.05, 0.01, &sp, &exact);
	CHECK(!exact && sp.lo > 0 && isfinite(sp.hi));
	hmpt_stats_paired(d, 1, 0.05, 0.01, &sp, &exact);
	CHECK(!exact && sp.lo == 0 && isinf(sp.hi));
}

/* The rank F test: with two groups F(1, d) is Student's t squared. */
static void test_groups_differ(void)
{
	double x[8], p;
	int g[8];
	/* apart: ranks 1-4 and 5-8, F = 32 / (10 / 6) = 19.2 */
	for (int i = 0; i < 8; i++)
		x[i] = 1 + 0.01 * i + (i >= 4) * 0.05, g[i] = i >= 4;
	CHECK(hmpt_stats_groups_differ(x, g, 8, 2, &p) == 0);
	CHECK(near(hmpt_stats_t_quantile(1 - p / 2, 6), sqrt(19.2), 1e-6) && p < 0.01);
	/* a burst in a group weighs as a rank: the same F */
	x[7] = 100;
	CHECK(hmpt_stats_groups_differ(x, g, 8, 2, &p) == 0);
	CHECK(near(hmpt_stats_t_quantile(1 - p / 2, 6), sqrt(19.2), 1e-6));
	/* interleaved: rank means 4 and 5, F = 2 / (40 / 6) = 0.3 */
	for (int i = 0; i < 8; i++)
		x[i] = i, g[i] = i % 2;
	CHECK(hmpt_stats_groups_differ(x, g, 8, 2, &p) == 0);
	CHECK(near(hmpt_stats_t_quantile(1 - p / 2, 6), sqrt(0.3), 1e-6) && p > 0.5);
	/* all tied: nothing differs */
	for (int i = 0; i < 8; i++)
		x[i] = 1;
	CHECK(hmpt_stats_groups_differ(x, g, 8, 2, &p) == 0 && p == 1);
	/* too few */
	CHECK(hmpt_stats_groups_differ(x, g, 2, 2, &p) == -1);
	CHECK(hmpt_stats_groups_differ(x, g, 8, 1, &p) == -1);
}

int main(void)
{
	test_groups_differ();
	test_paired();
	test_quantiles();
	test_pooled();
	test_summary();
	test_speedup();
	return failures != 0;
}
