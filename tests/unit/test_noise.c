/* test_noise.c — the disturbance rule, /proc/stat's lines, the trend test,
 * the robust spread and the smallest difference a tuning can tell, on
 * synthetic data with values worked out by hand. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"

#include "noise.h"

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

static void test_cpustat(void)
{
	const char *text = "cpu  100 0 50 1000 0 0 0 0 0 0\n"
	                   "cpu0 10 1 5 500 7 2 3 4 0 0\n"
	                   "cpu1 20 0 10 500 0 0 0 0 0 0\n"
	                   "cpu2 30 0 0 0\n" /* an old kernel: four fields */
	                   "intr 12345 1 2\n";
	bool allowed[3] = {true, false, true};
	hmpt_noise_cpu_t c;

	CHECK_OP(hmpt_noise_cpustat(text, allowed, 3, 100, &c), ==, 0);
	CHECK_OP(c.ncpus, ==, 2);
	/* cpu0: 10+1+5+2+3+4 = 25 ticks (idle and iowait not), cpu2: 30 */
	CHECK(near(c.busy, 0.55, 1e-12));
	CHECK(near(c.steal, 0.04, 1e-12));
	bool none[1] = {false};
	CHECK_OP(hmpt_noise_cpustat(text, none, 1, 100, &c), ==, -1);
	CHECK_OP(hmpt_noise_cpustat("", allowed, 3, 100, &c), ==, -1);
	/* a CPU the lines do not show counts nothing */
	bool far[8] = {[7] = true};
	CHECK_OP(hmpt_noise_cpustat(text, far, 8, 100, &c), ==, -1);
}

static void test_share(void)
{
	CHECK(near(hmpt_noise_share(0.5, 1, 2), 0.25, 1e-12));
	CHECK_OP(hmpt_noise_share(-1, 1, 2), ==, 0);
	CHECK_OP(hmpt_noise_share(5, 1, 2), ==, 1);
	CHECK_OP(hmpt_noise_share(1, 0, 2), ==, 0);
	CHECK_OP(hmpt_noise_share(1, 1, 0), ==, 0);
}

static void test_judge(void)
{
	double quiet[30] = {0}, busy[30], none[40] = {0}, med;
	for (int i = 0; i < 30; i++)
		busy[i] = 0.6 + 0.01 * (i % 3); /* two busy loops all the time */

	/* too few runs to compare with: never disturbed */
	CHECK(hmpt_noise_judge(quiet, none, 4, 0.9, 0, &med) == NULL);
	CHECK(hmpt_noise_judge(quiet, none, 5, 0.9, 0, &med) != NULL);
	CHECK_STREQ(hmpt_noise_judge(quiet, none, 5, 0.26, 0, &med), "load");
	CHECK(hmpt_noise_judge(quiet, none, 5, 0.25, 0, &med) == NULL);
	/* constant load is no disturbance; a change on top of it is */
	CHECK(hmpt_noise_judge(busy, none, 30, 0.62, 0, &med) == NULL);
	CHECK(near(med, 0.61, 1e-12));
	CHECK(hmpt_noise_judge(busy, none, 30, 0.85, 0, &med) == NULL);
	CHECK_STREQ(hmpt_noise_judge(busy, none, 30, 0.87, 0, &med), "load");
	/* steal is judged by itself, and named first */
	CHECK_STREQ(hmpt_noise_judge(quiet, none, 10, 0.5, 0.3, &med), "steal");
	/* only the last HMPT_NOISE_WINDOW runs: the machine became busy */
	double shift[40];
	for (int i = 0; i < 40; i++)
		shift[i] = i < 20 ? 0 : 0.6;
	CHECK(hmpt_noise_judge(shift, none, 40, 0.7, 0, &med) == NULL);
	CHECK(near(med, 0.6, 1e-12));
	CHECK_STREQ(hmpt_noise_judge(shift, none, 30, 0.7, 0, &med), "load");
	CHECK(near(med, 0.3, 1e-12)); /* 10 quiet, 10 busy */
}

static void test_trend(void)
{
	double x[10], flat[8] = {1, 1, 1, 1, 1, 1, 1, 1};
	hmpt_noise_trend_t tr;

	for (int i = 0; i < 10; i++)
		x[i] = exp(0.01 * i);
	CHECK_OP(hmpt_noise_trend(x, 10, &tr), ==, 0);
	CHECK(near(tr.slope, 0.01, 1e-12));
	CHECK(near(tr.drift, exp(0.09) - 1, 1e-12));
	/* S = 45 of 45 pairs, var = 10*9*25/18 = 125 */
	CHECK(near(tr.z, 44 / sqrt(125), 1e-12));
	CHECK(near(tr.p, erfc(44 / sqrt(125) / sqrt(2)), 1e-15));
	CHECK_OP(tr.p, <, 0.001);

	/* all tied: no slope, no trend */
	CHECK_OP(hmpt_noise_trend(flat, 8, &tr), ==, 0);
	CHECK_OP(tr.slope, ==, 0);
	CHECK_OP(tr.z, ==, 0);
	CHECK_OP(tr.p, ==, 1);

	/* 1 2 1 2 2: of the 10 pairs 5 rise, 1 falls, 4 tie -> S = 4; ties:
	 * 2 ones, 3 twos: var = (5*4*15 - 2*1*9 - 3*2*11) / 18 = 12; the
	 * slopes sorted: -l, 0 x4, l/4, l/3, l/2, l, l (l = log 2): median l/8 */
	double zig[5] = {1, 2, 1, 2, 2};
	CHECK_OP(hmpt_noise_trend(zig, 5, &tr), ==, 0);
	CHECK(near(tr.z, 3 / sqrt(12), 1e-12));
	CHECK(near(tr.slope, log(2) / 8, 1e-12));

	double bad[3] = {1, 0, 2};
	CHECK_OP(hmpt_noise_trend(bad, 3, &tr), ==, -1);
	CHECK_OP(hmpt_noise_trend(x, 2, &tr), ==, -1);
	CHECK_OP(tr.n, ==, 0);
}

static void test_spread(void)
{
	double x[5], y[6];
	for (int i = 0; i < 5; i++)
		x[i] = exp(0.1 * (i - 2)); /* logs -0.2 .. 0.2: MAD 0.1 */
	CHECK(near(hmpt_noise_spread(x, 5), 0.14826, 1e-12));
	/* one far outlier moves it little: logs 0 0 0 .1 -.1 9 */
	double o[6] = {1, 1, 1, exp(0.1), exp(-0.1), exp(9)};
	CHECK(near(hmpt_noise_spread(o, 6), 1.4826 * 0.05, 1e-12));
	for (int i = 0; i < 6; i++)
		y[i] = 2;
	CHECK_OP(hmpt_noise_spread(y, 6), ==, 0);
	CHECK_OP(hmpt_noise_spread(x, 1), ==, 0);
	y[3] = -1;
	CHECK_OP(hmpt_noise_spread(y, 6), ==, 0);
}

static void test_detectable(void)
{
	/* at huge df the t quantiles are the normal's: (1.95996 + 0.84162) *
	 * 0.05 * sqrt(1/3 + 1/6) */
	double d = hmpt_noise_detectable(0.05, 1e7, 3, 6, 0.05, 0.8);
	CHECK(near(d, expm1((1.959964 + 0.841621) * 0.05 * sqrt(0.5)), 1e-5));
	/* fewer df, a wider difference */
	CHECK_OP(hmpt_noise_detectable(0.05, 10, 3, 6, 0.05, 0.8), >, d);
	CHECK(isinf(hmpt_noise_detectable(0.05, 0, 3, 6, 0.05, 0.8)));
	CHECK(isinf(hmpt_noise_detectable(0.05, 10, 0, 6, 0.05, 0.8)));
	/* the reps that tell 3 % at sd 5 %: the first N with detectable <= 3 % */
	int n = hmpt_noise_reps_for(0.05, 20, 2, 0.05, 0.8, 0.03, 100);
	CHECK_OP(n, >, 2);
	CHECK_OP(hmpt_noise_detectable(0.05, 20 * (n - 1), n, 2 * n, 0.05, 0.8), <=, 0.03);
	CHECK_OP(hmpt_noise_detectable(0.05, 20 * (n - 2), n - 1, 2 * (n - 1), 0.05, 0.8), >, 0.03);
	/* 0.1 % at sd 20 %: out of reach in 100 */
	CHECK_OP(hmpt_noise_reps_for(0.2, 20, 2, 0.05, 0.8, 0.001, 100), ==, 0);
}

static void test_outliers(void)
{
	/* logs in eighths (exact): three quiet configurations and one with a
	 * burst of +2 (7.4x); |d| without the medians' zeros: 1/8 seven times,
	 * 2 once: median 1/8 */
	double lx[12] = {0,   0.125, -0.125, 1, 1.125, 0.875, /* */
	                 0.5, 0.375, 0.625,  0, 0.125, 2.125};
	int n[4] = {3, 3, 3, 3};
	bool out[12];
	double s;
	CHECK_OP(hmpt_noise_outliers(lx, n, 4, false, out, &s), ==, 1);
	CHECK_OP(s, ==, 1.4826 * 0.125);
	for (int i = 0; i < 12; i++)
		CHECK_OP(out[i], ==, i == 11);
	/* a rate: that run is the fastest, never set aside */
	CHECK_OP(hmpt_noise_outliers(lx, n, 4, true, out, &s), ==, 0);
	/* a fast outlier of a time stays; of a rate it is the slow one */
	lx[11] = -2;
	CHECK_OP(hmpt_noise_outliers(lx, n, 4, false, out, &s), ==, 0);
	CHECK_OP(hmpt_noise_outliers(lx, n, 4, true, out, &s), ==, 1);
	CHECK(out[11]);
	/* just over and just at K s: 0.125 + 4 s is not more than 4 s above */
	lx[11] = 0.125 + HMPT_NOISE_OUTLIER_K * s;
	CHECK_OP(hmpt_noise_outliers(lx, n, 4, false, out, &s), ==, 0);
	lx[11] = 0.125 + 4.01 * s;
	CHECK_OP(hmpt_noise_outliers(lx, n, 4, false, out, &s), ==, 1);

	/* at most a third: of 6 runs two (the largest), of 5 one; a sample of
	 * 2 is neither judged nor counted in the scale */
	double many[13] = {0, 0.125, -0.125, 0, 3, 4, /* 6 */
	                   0, 0.125, -0.125, 5, 6,    /* 5 */
	                   0, 9};                     /* 2 */
	int nm[3] = {6, 5, 2};
	bool om[13];
	CHECK_OP(hmpt_noise_outliers(many, nm, 3, false, om, &s), ==, 3);
	/* |d| (6: median 1/16; 5: median 1/8, left out) 1/16 1/16 3/16 1/16
	 * 47/16 63/16, 1/8 1/4 39/8 47/8: median (3/16 + 1/4) / 2 */
	CHECK_OP(s, ==, 1.4826 * 0.21875);
	bool want[13] = {[4] = true, [5] = true, [10] = true};
	for (int i = 0; i < 13; i++)
		CHECK_OP(om[i], ==, want[i]);

	/* quantized figures: most deviations 0, s = 0, nothing set aside */
	double q[9] = {1, 1, 1, 1, 1, 1, 1, 1, 5};
	int nq[3] = {3, 3, 3};
	bool oq[9];
	CHECK_OP(hmpt_noise_outliers(q, nq, 3, false, oq, &s), ==, 0);
	CHECK_OP(s, ==, 0);
	int few[2] = {2, 1};
	CHECK_OP(hmpt_noise_outliers(q, few, 2, false, oq, &s), ==, 0);
	CHECK_OP(s, ==, 0);
}

/* xorshift64 and Box-Muller: normal deviates, the same on every machine
 * with IEEE doubles */
static double gauss(uint64_t *st)
{
	double u[2];
	for (int i = 0; i < 2; i++) {
		*st ^= *st << 13, *st ^= *st >> 7, *st ^= *st << 17;
		u[i] = ((double)(*st >> 11) + 0.5) / 9007199254740992.0;
	}
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

/* lognormal runs (sd 0.05), no burst: the scale is the sd (n = 3 without
 * the median's zero: 1.03 sd), and the rule seldom sets a run aside: about
 * 1e-3 per run for a search's layout (a 9-run and a 6-run all-slow, 11
 * configurations of 3), where bursts of one run in 10 are the target */
static void test_outliers_lognormal(void)
{
	enum { NC = 13, NR = 6 + 9 + 11 * 3, TRIALS = 4000 };
	int n[NC] = {6, 9, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
	double lx[NR], sum_s = 0;
	bool out[NR];
	uint64_t st = 0x2545f4914f6cdd1dull;
	long set_aside = 0;
	for (int t = 0; t < TRIALS; t++) {
		double s;
		for (int i = 0; i < NR; i++)
			lx[i] = 0.05 * gauss(&st);
		set_aside += hmpt_noise_outliers(lx, n, NC, false, out, &s);
		sum_s += s;
	}
	double rate = (double)set_aside / ((double)TRIALS * NR);
	printf("lognormal sd 0.05: mean scale %.4f, outliers per run %.2e\n", sum_s / TRIALS, rate);
	CHECK(near(sum_s / TRIALS, 0.05, 0.003));
	CHECK_OP(rate, <, 0.003);

	/* n = 3 alone: 1.4826 x the median |d| is 1.03 sd (no correction) */
	enum { N3 = 3 * 2000 };
	static double l3[N3];
	static bool o3[N3];
	static int n3[N3 / 3];
	for (int i = 0; i < N3; i++)
		l3[i] = 0.05 * gauss(&st);
	for (int i = 0; i < N3 / 3; i++)
		n3[i] = 3;
	double s3;
	hmpt_noise_outliers(l3, n3, N3 / 3, false, o3, &s3);
	printf("n = 3: scale %.4f for sd 0.05\n", s3);
	CHECK(near(s3, 0.05 * 1.03, 0.002));

	/* with a burst of 1.3-3x in one run in 10, most are set aside */
	int bursts = 0, caught = 0;
	for (int t = 0; t < 500; t++) {
		bool burst[NR];
		for (int i = 0; i < NR; i++) {
			lx[i] = 0.05 * gauss(&st);
			st ^= st << 13, st ^= st >> 7, st ^= st << 17;
			burst[i] = st % 10 == 0;
			lx[i] += burst[i] ? log(1.3 + 1.7 * (double)(st >> 40) / 16777216.0) : 0;
			bursts += burst[i];
		}
		hmpt_noise_outliers(lx, n, NC, false, out, NULL);
		for (int i = 0; i < NR; i++)
			caught += burst[i] && out[i];
	}
	printf("bursts: %d of %d set aside\n", caught, bursts);
	CHECK_OP(caught, >, bursts * 3 / 4);
}

/* The rule for another run of the reference in a batch: a trend, or too
 * few runs to tell.  Seeded: 9 runs of a steady reference (lognormal 3 %)
 * call for one in about a tenth of the tunings; a drift of 10 % over them
 * (2 % noise) in most. */
static void test_drifting(void)
{
	double x[10], flat[8] = {1, 1, 1, 1, 1, 1, 1, 1};
	hmpt_noise_trend_t tr;

	for (int i = 0; i < 10; i++)
		x[i] = exp(0.01 * i);
	hmpt_noise_trend(x, 10, &tr);
	CHECK(hmpt_noise_drifting(&tr));
	hmpt_noise_trend(flat, 8, &tr);
	CHECK(!hmpt_noise_drifting(&tr));
	hmpt_noise_trend(x, 2, &tr); /* too few: -1, tr zeroed */
	CHECK(hmpt_noise_drifting(&tr));

	uint64_t st = 0x9e3779b97f4a7c15ull;
	int steady = 0, drifting = 0, trials = 2000;
	for (int t = 0; t < trials; t++) {
		double v[9];
		for (int i = 0; i < 9; i++)
			v[i] = exp(0.03 * gauss(&st));
		hmpt_noise_trend(v, 9, &tr);
		steady += hmpt_noise_drifting(&tr);
		for (int i = 0; i < 9; i++)
			v[i] = exp(0.02 * gauss(&st) + log(1.1) * i / 8);
		hmpt_noise_trend(v, 9, &tr);
		drifting += hmpt_noise_drifting(&tr);
	}
	printf("another reference run: %d of %d steady, %d of %d drifting by 10 %%\n", steady,
	       trials, drifting, trials);
	CHECK_OP(steady, <, trials * 3 / 20);
	CHECK_OP(drifting, >, trials * 4 / 5);
}

int main(void)
{
	test_cpustat();
	test_share();
	test_judge();
	test_trend();
	test_drifting();
	test_spread();
	test_detectable();
	test_outliers();
	test_outliers_lognormal();
	return failures ? 1 : 0;
}
