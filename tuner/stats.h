/* stats.h — the statistics behind every speedup hmpt-tune reports.
 *
 * Contract: pure functions, no I/O.  A speedup is the ratio of two means
 * (reference over configuration for times, the inverse for rates); its
 * confidence interval is a t interval on the log of the ratio.  Two samples
 * alone give Welch's interval (each sample's own variance).  Many
 * configurations measured alike share one variance of the log of a run
 * (hmpt_stats_pool: noise on a machine is multiplicative and hits every
 * configuration alike, as in a one-way analysis of variance): its degrees of
 * freedom are those of all runs together, so three runs per configuration
 * still give usable intervals.  Samples of fewer than two values have no
 * interval (lo = 0, hi = +inf).
 */
#ifndef HMPT_TUNER_STATS_H
#define HMPT_TUNER_STATS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
	int n;
	double mean, sd, min, max, median;
	double log_ss; /* sum of squared deviations of log(x) from their mean */
} hmpt_summary_t;

/* A variance of log(run) pooled over samples, with its degrees of freedom. */
typedef struct {
	double var, df;
} hmpt_pooled_t;

typedef struct {
	double speedup; /* point estimate */
	double lo, hi;  /* confidence interval */
	bool faster;    /* lo > 1 and speedup >= 1 + min_gain */
	bool slower;    /* hi < 1 and speedup <= 1 - min_gain */
} hmpt_speedup_t;

/* Sorts x[0..n-1] ascending, in place. */
void hmpt_stats_sort(double *x, size_t n);
/* Sorts x[0..n-1] (n >= 1) in place and returns its median. */
double hmpt_stats_median_sorting(double *x, size_t n);
/* Summary of x[0..n-1] (n >= 1); sorts a copy for the median. */
void hmpt_stats_summary(const double *x, int n, hmpt_summary_t *s);
/* Quantile of Student's t distribution with df degrees of freedom (df > 0,
 * 0 < p < 1). */
double hmpt_stats_t_quantile(double p, double df);
/* The standard normal distribution: P(Z <= z), and its quantile (0 < p < 1);
 * the quantile is Student's t's without end to its degrees of freedom. */
double hmpt_stats_normal_cdf(double z);
double hmpt_stats_normal_quantile(double p);
/* Adds a sample (positive values) to a pooled variance (start from {0}). */
void hmpt_stats_pool(hmpt_pooled_t *pool, const hmpt_summary_t *s);
/* Speedup of `cfg` over `ref` with a two-sided (1 - alpha) interval: from
 * `pool` when given (df > 0; a sample whose own variance is larger keeps its
 * own), else Welch's from the two samples.
 * higher_is_better: the values are rates, not times. */
void hmpt_stats_speedup(const hmpt_summary_t *ref, const hmpt_summary_t *cfg,
                        const hmpt_pooled_t *pool, double alpha, double min_gain,
                        bool higher_is_better, hmpt_speedup_t *out);

/* The speedup from n paired runs, d[i] = log(reference's figure / the
 * configuration's) for times (the inverse for rates), each pair run side by
 * side so that drift and load between pairs cancel.  Point estimate:
 * Hodges-Lehmann (the median of the Walsh averages (d_i + d_j) / 2, i <= j);
 * interval: Wilcoxon's signed-rank one at 1 - alpha, exact (its coverage is
 * at least 1 - alpha whenever d is symmetric about its centre, as it is when
 * the noise of a pair's two runs is alike, heavy-tailed, bursty or bimodal
 * as it may be).  With too few pairs for that level (2^-n > alpha / 2) the
 * paired t interval stands in, and *exact says so.  Sets speedup, lo, hi,
 * faster and slower as hmpt_stats_speedup() does. */
void hmpt_stats_paired(const double *d, int n, double alpha, double min_gain, hmpt_speedup_t *out,
                       bool *exact);
/* A shift some pairs carry: d[i] = delta of group[i] + shift z[i] + noise
 * (group[i] in 0..15), fitted by least squares within the groups. */
typedef struct {
	bool known;       /* z varies within groups, and df >= 2 */
	int n;            /* pairs used */
	double shift, se; /* its estimate and standard error */
	double df;
} hmpt_shift_t;
void hmpt_stats_shift(const double *d, const double *z, const int *group, int n, hmpt_shift_t *out);
/* Pairs that the exact interval needs at level 1 - alpha. */
int hmpt_stats_paired_min(double alpha);
/* Whether k groups differ in location: x[i] in group g[i] (0..k-1, each
 * used), the one-way F test on the ranks of x (the rank transform of
 * Kruskal-Wallis, robust to a burst); its p-value in *p.  0, or -1 when
 * there are too few (k < 2, or n <= k). */
int hmpt_stats_groups_differ(const double *x, const int *g, int n, int k, double *p);

#endif
