/* stats.c — summaries, Student's t quantiles and speedup intervals. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void hmpt_stats_sort(double *x, size_t n)
{
	qsort(x, n, sizeof(double), cmp_double);
}

double hmpt_stats_median_sorting(double *x, size_t n)
{
	hmpt_stats_sort(x, n);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

void hmpt_stats_summary(const double *x, int n, hmpt_summary_t *s)
{
	double sum = 0, ss = 0, sorted[n > 0 ? n : 1];

	memset(s, 0, sizeof(*s));
	if (n < 1)
		return;
	for (int i = 0; i < n; i++)
		sum += x[i];
	s->n = n;
	s->mean = sum / n;
	for (int i = 0; i < n; i++)
		ss += (x[i] - s->mean) * (x[i] - s->mean);
	s->sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
	memcpy(sorted, x, (size_t)n * sizeof(double));
	s->median = hmpt_stats_median_sorting(sorted, (size_t)n);
	s->min = sorted[0];
	s->max = sorted[n - 1];
	if (s->min > 0) {
		double lmean = 0;
		for (int i = 0; i < n; i++)
			lmean += log(x[i]) / n;
		for (int i = 0; i < n; i++)
			s->log_ss += (log(x[i]) - lmean) * (log(x[i]) - lmean);
	}
}

void hmpt_stats_pool(hmpt_pooled_t *pool, const hmpt_summary_t *s)
{
	if (s->n < 2 || s->min <= 0)
		return;
	double ss = pool->var * pool->df + s->log_ss;
	pool->df += s->n - 1;
	pool->var = ss / pool->df;
}

/* Continued fraction of the regularized incomplete beta function (modified
 * Lentz); converges quickly for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		for (int odd = 0; odd < 2; odd++) {
			double num =
			    odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
			        : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
			d = 1 + num * d;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			h *= d * c;
			if (odd && fabs(d * c - 1) < 1e-14)
				return h;
		}
	}
	return h;
}

static double incomplete_beta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

static double t_cdf(double t, double df)
{
	double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
	return t >= 0 ? 1 - tail : tail;
}

double hmpt_stats_normal_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2));
}

/* The quantile of a symmetric distribution by bisection on its cdf (df:
 * Student's t's degrees of freedom, or INFINITY for the normal). */
static double quantile_of(double p, double df)
{
	if (p == 0.5)
		return 0;
	if (p < 0.5)
		return -quantile_of(1 - p, df);
	double lo = 0, hi = 1;
#define CDF(x) (isinf(df) ? hmpt_stats_normal_cdf(x) : t_cdf((x), df))
	while (CDF(hi) < p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (CDF(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
#undef CDF
	return (lo + hi) / 2;
}

double hmpt_stats_t_quantile(double p, double df)
{
	return quantile_of(p, df);
}

double hmpt_stats_normal_quantile(double p)
{
	return quantile_of(p, INFINITY);
}

void hmpt_stats_speedup(const hmpt_summary_t *ref, const hmpt_summary_t *cfg,
                        const hmpt_pooled_t *pool, double alpha, double min_gain,
                        bool higher_is_better, hmpt_speedup_t *out)
{
	memset(out, 0, sizeof(*out));
	if (ref->n < 1 || cfg->n < 1 || ref->mean <= 0 || cfg->mean <= 0)
		return;
	out->speedup = higher_is_better ? cfg->mean / ref->mean : ref->mean / cfg->mean;
	out->hi = INFINITY;
	if (ref->n < 2 || cfg->n < 2)
		return;
	double se, df;
	if (pool && pool->df > 0) {
		/* a sample noisier than the pool (an outlier among its runs) keeps
		 * its own variance: pooling must not hide it */
		double vr = fmax(pool->var, ref->log_ss / (ref->n - 1));
		double vc = fmax(pool->var, cfg->log_ss / (cfg->n - 1));
		se = sqrt(vr / ref->n + vc / cfg->n);
		df = pool->df;
	} else {
		/* variance of log(mean) ~ sd^2 / (n mean^2) */
		double vr = ref->sd * ref->sd / (ref->n * ref->mean * ref->mean);
		double vc = cfg->sd * cfg->sd / (cfg->n * cfg->mean * cfg->mean);
		se = sqrt(vr + vc);
		if (se > 0)
			df = (vr + vc) * (vr + vc) /
			     (vr * vr / (ref->n - 1) + vc * vc / (cfg->n - 1));
		else
			df = ref->n + cfg->n - 2;
	}
	double half = hmpt_stats_t_quantile(1 - alpha / 2, df) * se;
	out->lo = out->speedup * exp(-half);
	out->hi = out->speedup * exp(half);
	out->faster = out->lo > 1 && out->speedup >= 1 + min_gain;
	out->slower = out->hi < 1 && out->speedup <= 1 - min_gain;
}

/* Largest c with P(W+ <= c) <= p for the signed-rank statistic of n pairs
 * under the null (each of the 2^n sign patterns alike), or -1 when even
 * P(W+ = 0) = 2^-n exceeds p. */
static int signed_rank_critical(int n, double p)
{
	int top = n * (n + 1) / 2;
	double *f = calloc((size_t)top + 1, sizeof(double));
	int c = -1;

	if (!f)
		return -1;
	/* f[w]: probability that the ranks 1..k with a + sign sum to w */
	f[0] = 1;
	for (int k = 1; k <= n; k++)
		for (int w = k * (k + 1) / 2; w >= 0; w--)
			f[w] = 0.5 * f[w] + (w >= k ? 0.5 * f[w - k] : 0);
	double cdf = 0;
	for (int w = 0; w <= top; w++) {
		cdf += f[w];
		if (cdf > p * (1 + 1e-12))
			break;
		c = w;
	}
	free(f);
	return c;
}

int hmpt_stats_paired_min(double alpha)
{
	int n = 1;
	while (n < 64 && ldexp(1, -n) > alpha / 2)
		n++;
	return n;
}

void hmpt_stats_paired(const double *d, int n, double alpha, double min_gain, hmpt_speedup_t *out,
                       bool *exact)
{
	memset(out, 0, sizeof(*out));
	*exact = false;
	if (n < 1)
		return;
	size_t m = (size_t)n * (size_t)(n + 1) / 2, k = 0;
	double *walsh = malloc(m * sizeof(double));
	if (!walsh)
		return;
	for (int i = 0; i < n; i++)
		for (int j = i; j < n; j++)
			walsh[k++] = (d[i] + d[j]) / 2;
	double centre = hmpt_stats_median_sorting(walsh, m);
	double lo = -INFINITY, hi = INFINITY;
	int c = signed_rank_critical(n, alpha / 2);
	if (c >= 0) {
		/* the (c+1)-th smallest and largest Walsh averages */
		lo = walsh[c];
		hi = walsh[m - 1 - (size_t)c];
		*exact = true;
	} else if (n >= 2) {
		/* too few pairs for the exact level: the paired t interval */
		hmpt_summary_t s;
		hmpt_stats_summary(d, n, &s);
		double half = hmpt_stats_t_quantile(1 - alpha / 2, n - 1) * s.sd / sqrt(n);
		lo = s.mean - half;
		hi = s.mean + half;
	}
	free(walsh);
	out->speedup = exp(centre);
	out->lo = exp(lo);
	out->hi = exp(hi);
	out->faster = out->lo > 1 && out->speedup >= 1 + min_gain;
	out->slower = out->hi < 1 && out->speedup <= 1 - min_gain;
}
