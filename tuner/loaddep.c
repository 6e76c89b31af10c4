/* loaddep.c — see loaddep.h. */
#include "loaddep.h"

#include <math.h>
#include <string.h>

/* Inverts the symmetric k x k matrix a (k <= 3) into inv by Gauss-Jordan
 * with partial pivoting: 0, or -1 when it is (nearly) singular. */
static int invert(int k, double a[3][3], double inv[3][3])
{
	double m[3][6];
	for (int i = 0; i < k; i++)
		for (int j = 0; j < 2 * k; j++)
			m[i][j] = j < k ? a[i][j] : (j - k == i);
	for (int c = 0; c < k; c++) {
		int p = c;
		for (int r = c + 1; r < k; r++)
			if (fabs(m[r][c]) > fabs(m[p][c]))
				p = r;
		/* against the diagonal's scale: collinear regressors */
		if (!(fabs(m[p][c]) > 1e-9 * (fabs(a[c][c]) + 1e-300)))
			return -1;
		for (int j = 0; j < 2 * k; j++) {
			double s = m[c][j];
			m[c][j] = m[p][j];
			m[p][j] = s;
		}
		double piv = m[c][c];
		for (int j = 0; j < 2 * k; j++)
			m[c][j] /= piv;
		for (int r = 0; r < k; r++) {
			if (r == c)
				continue;
			double f = m[r][c];
			for (int j = 0; j < 2 * k; j++)
				m[r][j] -= f * m[c][j];
		}
	}
	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++)
			inv[i][j] = m[i][k + j];
	return 0;
}

/* Least squares of d on (1, m, g) (k = 3) or (1, m) (k = 2): the
 * coefficients, their covariance up to sigma^2, and the residual sum of
 * squares; -1 when the design is singular. */
static int least_squares(const double *d, const double *m, const double *g, int n, int k,
                         double b[3], double cov[3][3], double *rss)
{
	double xtx[3][3] = {{0}}, xty[3] = {0};
	for (int i = 0; i < n; i++) {
		double x[3] = {1, m[i], g[i]};
		for (int r = 0; r < k; r++) {
			xty[r] += x[r] * d[i];
			for (int c = 0; c < k; c++)
				xtx[r][c] += x[r] * x[c];
		}
	}
	if (invert(k, xtx, cov) != 0)
		return -1;
	for (int r = 0; r < k; r++) {
		b[r] = 0;
		for (int c = 0; c < k; c++)
			b[r] += cov[r][c] * xty[c];
	}
	*rss = 0;
	for (int i = 0; i < n; i++) {
		double e = d[i] - b[0] - b[1] * m[i] - (k == 3 ? b[2] * g[i] : 0);
		*rss += e * e;
	}
	return 0;
}

/* Spread (max - min) of x[0..n-1]. */
static double range_of(const double *x, int n)
{
	double lo = x[0], hi = x[0];
	for (int i = 1; i < n; i++) {
		lo = fmin(lo, x[i]);
		hi = fmax(hi, x[i]);
	}
	return hi - lo;
}

/* Whether the rounds' load m[0..n-1] (less lo, the quietest) varied
 * beyond the figure's own noise: its 90th percentile (the second highest
 * at least) exceeds its 10th by HMPT_LOADDEP_MIN_SPREAD of the 10th's
 * level (lo + it). */
static bool load_varied(const double *m, int n, double lo)
{
	double s[n];
	memcpy(s, m, sizeof(s));
	hmpt_stats_sort(s, (size_t)n);
	int k = n / 10 > 1 ? n / 10 : 1; /* two rounds at least: one is an outlier */
	double p10 = s[k], p90 = s[n - 1 - k];
	return p90 > p10 && p90 - p10 >= HMPT_LOADDEP_MIN_SPREAD * fabs(lo + p10);
}

int hmpt_loaddep_fit(const double *d, const double *la, const double *lb, int n, double alpha_slope,
                     double alpha, double min_gain, hmpt_loaddep_t *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n < HMPT_LOADDEP_MIN_PAIRS)
		return -1;
	double m[n], g[n];
	for (int i = 0; i < n; i++) {
		if (!isfinite(d[i]) || !isfinite(la[i]) || !isfinite(lb[i]))
			return -1;
		m[i] = (la[i] + lb[i]) / 2;
		g[i] = lb[i] - la[i];
	}
	double lo = m[0];
	for (int i = 1; i < n; i++)
		lo = fmin(lo, m[i]);
	for (int i = 0; i < n; i++)
		m[i] -= lo;
	double span = range_of(m, n);
	if (!(span > 0) || !load_varied(m, n, lo))
		return -1;
	double b[3], cov[3][3], rss;
	/* g where it varies at all (a figure shared by a round's two runs
	 * gives none); collinear with m, it is left out below */
	int k = range_of(g, n) > 1e-6 * span ? 3 : 2;
	if (least_squares(d, m, g, n, k, b, cov, &rss) != 0 &&
	    (k == 2 || least_squares(d, m, g, n, k = 2, b, cov, &rss) != 0))
		return -1;
	double df = n - k, s2 = rss / df;
	out->fitted = true;
	out->with_diff = k == 3;
	out->slope = b[1];
	out->se = sqrt(s2 * cov[1][1]);
	out->t = out->se > 0 ? b[1] / out->se : (b[1] ? copysign(INFINITY, b[1]) : 0);
	out->depends = fabs(out->t) > hmpt_stats_t_quantile(1 - alpha_slope / 2, df);
	out->quiet_load = lo;
	out->busy_load = lo + span;
	out->quiet = exp(b[0]);
	out->busy = exp(b[0] + b[1] * span);
	double h = hmpt_stats_t_quantile(1 - alpha / 2, df) * sqrt(s2 * cov[0][0]);
	hmpt_speedup_t *q = &out->at_quiet;
	q->speedup = out->quiet;
	q->lo = exp(b[0] - h);
	q->hi = exp(b[0] + h);
	q->faster = q->lo > 1 && q->speedup >= 1 + min_gain;
	q->slower = q->hi < 1 && q->speedup <= 1 - min_gain;
	return 0;
}

bool hmpt_loaddep_apply(const hmpt_loaddep_t *f, double min_gain, hmpt_speedup_t *sp)
{
	if (!f->fitted)
		return false;
	if (f->depends) {
		*sp = f->at_quiet;
		return true;
	}
	if (f->quiet < 1 + min_gain && sp->faster) {
		sp->faster = false;
		return true;
	}
	return false;
}
