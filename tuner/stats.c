/* stats.c — summaries, Student's t quantiles and speedup intervals. */
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The k-th smallest of x[0..n-1] (k from 0), by selection: x is reordered. */
static double nth_smallest(double *x, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		double pivot = x[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (x[i] < pivot)
				i++;
			while (x[j] > pivot)
				j--;
			if (i <= j) {
				double tmp = x[i];
				x[i] = x[j], x[j] = tmp;
				i++;
				if (j-- == 0)
					break;
			}
		}
		if (k <= j && j != (size_t)-1)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return x[k];
	}
	return x[k];
}

/* The median of x[0..n-1] (n >= 1) by selection: x is reordered. */
static double median_selecting(double *x, size_t n)
{
	return n % 2 ? nth_smallest(x, n, n / 2)
	             : (nth_smallest(x, n, n / 2 - 1) + nth_smallest(x, n, n / 2)) / 2;
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
	s->median = median_selecting(sorted, (size_t)n);
	s->min = s->max = x[0];
	for (int i = 1; i < n; i++) {
		s->min = x[i] < s->min ? x[i] : s->min;
		s->max = x[i] > s->max ? x[i] : s->max;
	}
	if (s->min > 0) {
		double lmean = 0, *l = sorted; /* the logs, in place of the copy */
		for (int i = 0; i < n; i++)
			l[i] = log(x[i]);
		for (int i = 0; i < n; i++)
			lmean += l[i] / n;
		for (int i = 0; i < n; i++)
			s->log_ss += (l[i] - lmean) * (l[i] - lmean);
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

/* Remembered by (p, df), in an open-addressed table of their hashes: the
 * analysis after each round asks for the same few hundred quantiles again
 * and again (noise.c's runs-needed search), and each costs a bisection over
 * the incomplete beta function (tests/unit/test_confirm.c runs 120,000
 * confirmation phases).  Once full, quantiles are computed each time.  The
 * tuner is single-threaded. */
double hmpt_stats_t_quantile(double p, double df)
{
	enum { SLOTS = 4096 };
	static struct {
		double p, df, q;
	} memo[SLOTS];
	static int used;
	uint64_t a, b;
	memcpy(&a, &p, sizeof(a));
	memcpy(&b, &df, sizeof(b));
	size_t i = (size_t)(((a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full)) >> 52);
	for (; memo[i].q != 0; i = (i + 1) % SLOTS)
		if (memo[i].p == p && memo[i].df == df)
			return memo[i].q;
	double q = quantile_of(p, df);
	if (q != 0 && used < SLOTS / 2) {
		memo[i].p = p, memo[i].df = df, memo[i].q = q;
		used++;
	}
	return q;
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
	/* order statistics by selection, not a sort: m grows as n^2 */
	double centre = median_selecting(walsh, m);
	double lo = -INFINITY, hi = INFINITY;
	int c = signed_rank_critical(n, alpha / 2);
	if (c >= 0) {
		/* the (c+1)-th smallest and largest Walsh averages */
		size_t h = m / 2, k = (size_t)c; /* the median's selection left the h
		                                    smallest below h */
		lo = k < h ? nth_smallest(walsh, h, k) : nth_smallest(walsh, m, k);
		hi = k < h ? nth_smallest(walsh + h, m - h, m - 1 - k - h)
		           : nth_smallest(walsh, m, m - 1 - k);
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

int hmpt_stats_groups_differ(const double *x, const int *g, int n, int k, double *p)
{
	if (k < 2 || n - k < 1)
		return -1;
	/* the ranks (ties averaged): a burst weighs as one rank, not its size */
	double *r = malloc((size_t)n * sizeof(double)), sum[k], grand = (n + 1) / 2.0;
	int cnt[k];
	if (!r)
		return -1;
	for (int i = 0; i < n; i++) {
		int below = 0, tied = 0;
		for (int j = 0; j < n; j++)
			below += x[j] < x[i], tied += x[j] == x[i];
		r[i] = below + (tied + 1) / 2.0;
	}
	memset(sum, 0, sizeof(sum));
	memset(cnt, 0, sizeof(cnt));
	for (int i = 0; i < n; i++)
		sum[g[i]] += r[i], cnt[g[i]]++;
	double between = 0, within = 0;
	for (int j = 0; j < k; j++)
		if (cnt[j])
			between += cnt[j] * pow(sum[j] / cnt[j] - grand, 2);
	for (int i = 0; i < n; i++)
		within += pow(r[i] - sum[g[i]] / cnt[g[i]], 2);
	free(r);
	double d1 = k - 1, d2 = n - k;
	if (within <= 0) { /* every group's ranks alike inside: apart or all tied */
		*p = between > 0 ? 0 : 1;
		return 0;
	}
	double f = (between / d1) / (within / d2);
	*p = incomplete_beta(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
	return 0;
}
void hmpt_stats_shift(const double *d, const double *z, const int *group, int n, hmpt_shift_t *out)
{
	double sd[16] = {0}, sz[16] = {0}, szz = 0, szd = 0, rss = 0;
	int cnt[16] = {0}, groups = 0;
	*out = (hmpt_shift_t){.n = n};
	for (int i = 0; i < n; i++) {
		groups += !cnt[group[i]]++;
		sd[group[i]] += d[i];
		sz[group[i]] += z[i];
	}
	for (int g = 0; g < 16; g++)
		if (cnt[g])
			sd[g] /= cnt[g], sz[g] /= cnt[g];
	for (int i = 0; i < n; i++) {
		double dz = z[i] - sz[group[i]];
		szz += dz * dz;
		szd += dz * (d[i] - sd[group[i]]);
	}
	out->df = n - groups - 1;
	if (!(szz > 0) || out->df < 2)
		return;
	out->shift = szd / szz;
	for (int i = 0; i < n; i++) {
		double r = d[i] - sd[group[i]] - out->shift * (z[i] - sz[group[i]]);
		rss += r * r;
	}
	out->se = sqrt(rss / out->df / szz);
	out->known = true;
}
