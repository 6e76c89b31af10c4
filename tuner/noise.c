/* noise.c — see noise.h. */
#include "noise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

int hmpt_noise_cpustat(const char *text, const bool *allowed, int nallowed, double ticks_per_s,
                       hmpt_noise_cpu_t *out)
{
	memset(out, 0, sizeof(*out));
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char *end;
		/* "cpuN user nice system idle iowait irq softirq steal ...";
		 * the aggregate "cpu " line has no N */
		if (strncmp(p, "cpu", 3) || p[3] < '0' || p[3] > '9')
			continue;
		long cpu = strtol(p + 3, &end, 10);
		if (cpu < 0 || cpu >= nallowed || !allowed[cpu])
			continue;
		const char *eol = strchr(p, '\n');
		double f[8] = {0};
		int k = 0;
		for (const char *q = end; k < 8; k++, q = end) {
			double v = strtod(q, &end);
			if (end == q || (eol && end > eol))
				break;
			f[k] = v;
		}
		if (k < 4) /* not even idle: not a line we know */
			continue;
		/* user, nice, system, irq, softirq, steal: idle and iowait are
		 * not taken from anyone */
		out->busy += (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / ticks_per_s;
		out->steal += f[7] / ticks_per_s;
		out->ncpus++;
	}
	return out->ncpus ? 0 : -1;
}

double hmpt_noise_share(double seconds, double wall, int ncpus)
{
	if (!(wall > 0) || ncpus < 1)
		return 0;
	double s = seconds / (wall * ncpus);
	return s < 0 ? 0 : s > 1 ? 1 : s;
}

const char *hmpt_noise_judge(const double *load_hist, const double *steal_hist, int n, double load,
                             double steal, double *median)
{
	int from = n > HMPT_NOISE_WINDOW ? n - HMPT_NOISE_WINDOW : 0, m = n - from;
	double l[HMPT_NOISE_WINDOW], s[HMPT_NOISE_WINDOW];

	if (median)
		*median = 0;
	if (n < HMPT_NOISE_MIN_RUNS)
		return NULL;
	memcpy(l, load_hist + from, (size_t)m * sizeof(double));
	memcpy(s, steal_hist + from, (size_t)m * sizeof(double));
	double ml = hmpt_stats_median_sorting(l, (size_t)m),
	       ms = hmpt_stats_median_sorting(s, (size_t)m);
	if (median)
		*median = ml;
	/* steal first: it is the more specific reason (the hypervisor) */
	if (steal > ms + HMPT_NOISE_MARGIN)
		return "steal";
	if (load > ml + HMPT_NOISE_MARGIN)
		return "load";
	return NULL;
}

int hmpt_noise_trend(const double *x, int n, hmpt_noise_trend_t *tr)
{
	memset(tr, 0, sizeof(*tr));
	if (n < 3)
		return -1;
	for (int i = 0; i < n; i++)
		if (!(x[i] > 0))
			return -1;
	size_t npairs = (size_t)n * (size_t)(n - 1) / 2, k = 0;
	double *slopes = malloc(npairs * sizeof(double)), s = 0;
	if (!slopes)
		return -1;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			double d = log(x[j]) - log(x[i]);
			slopes[k++] = d / (j - i);
			s += (d > 0) - (d < 0);
		}
	tr->n = n;
	tr->slope = hmpt_stats_median_sorting(slopes, npairs);
	tr->drift = expm1(tr->slope * (n - 1));
	/* Mann-Kendall's variance, less what tied values take away */
	double var = (double)n * (n - 1) * (2 * n + 5);
	memcpy(slopes, x, (size_t)n * sizeof(double));
	hmpt_stats_sort(slopes, (size_t)n);
	for (int i = 0; i < n;) {
		int j = i;
		while (j < n && slopes[j] == slopes[i])
			j++;
		double t = j - i;
		var -= t * (t - 1) * (2 * t + 5);
		i = j;
	}
	free(slopes);
	var /= 18;
	if (var > 0 && s != 0)
		tr->z = (s - (s > 0 ? 1 : -1)) / sqrt(var);
	tr->p = erfc(fabs(tr->z) / sqrt(2));
	return 0;
}

bool hmpt_noise_drifting(const hmpt_noise_trend_t *tr)
{
	return tr->n < 3 || tr->p < HMPT_NOISE_DRIFT_P;
}

double hmpt_noise_spread(const double *x, int n)
{
	if (n < 2)
		return 0;
	double *l = malloc((size_t)n * sizeof(double));
	if (!l)
		return 0;
	for (int i = 0; i < n; i++) {
		if (!(x[i] > 0)) {
			free(l);
			return 0;
		}
		l[i] = log(x[i]);
	}
	double med = hmpt_stats_median_sorting(l, (size_t)n);
	for (int i = 0; i < n; i++)
		l[i] = fabs(l[i] - med);
	double mad = hmpt_stats_median_sorting(l, (size_t)n);
	free(l);
	/* 1.4826: the MAD of a normal sample is 0.6745 of its sd */
	return 1.4826 * mad;
}

double hmpt_noise_detectable(double sd, double df, int n, int nref, double alpha, double power)
{
	if (n < 1 || nref < 1 || !(df > 0) || !(sd >= 0))
		return INFINITY;
	double q = hmpt_stats_t_quantile(1 - alpha / 2, df) + hmpt_stats_t_quantile(power, df);
	return expm1(q * sd * sqrt(1.0 / n + 1.0 / nref));
}

int hmpt_noise_reps_for(double sd, double df_per_rep, int ref_share, double alpha, double power,
                        double gain, int max)
{
	for (int n = 2; n <= max; n++)
		if (hmpt_noise_detectable(sd, df_per_rep * (n - 1), n, n * ref_share, alpha,
		                          power) <= gain)
			return n;
	return 0;
}

int hmpt_noise_outliers(const double *lx, const int *n, int nconf, bool higher_is_better, bool *out,
                        double *scale)
{
	int total = 0, na = 0, count = 0;
	for (int i = 0; i < nconf; i++)
		total += n[i] > 0 ? n[i] : 0;
	if (scale)
		*scale = 0;
	if (total)
		memset(out, 0, (size_t)total * sizeof(bool));
	double *d = malloc(((size_t)total + 1) * sizeof(double));
	double *ad = malloc(((size_t)total + 1) * sizeof(double));
	double *tmp = malloc(((size_t)total + 1) * sizeof(double));
	if (!d || !ad || !tmp) {
		free(d), free(ad), free(tmp);
		return -1;
	}
	for (int i = 0, at = 0; i<nconf; at += n[i]> 0 ? n[i] : 0, i++) {
		if (n[i] < 3)
			continue;
		memcpy(tmp, lx + at, (size_t)n[i] * sizeof(double));
		double m = hmpt_stats_median_sorting(tmp, (size_t)n[i]);
		/* an odd sample's median run deviates by 0 by construction, not by
		 * noise: counted, a third of the deviations of 3 runs would be 0 and
		 * the scale half what it is (without it, 1.03 sd for n = 3) */
		bool median_left_out = n[i] % 2 == 0;
		for (int k = 0; k < n[i]; k++) {
			d[at + k] = higher_is_better ? m - lx[at + k] : lx[at + k] - m;
			if (!median_left_out && lx[at + k] == m) {
				median_left_out = true;
				continue;
			}
			ad[na++] = fabs(d[at + k]);
		}
	}
	/* 1.4826: the MAD of a normal sample is 0.6745 of its sd */
	double s = na ? 1.4826 * hmpt_stats_median_sorting(ad, (size_t)na) : 0;
	if (scale)
		*scale = s;
	for (int i = 0, at = 0; i < nconf && s > 0; at += n[i] > 0 ? n[i] : 0, i++)
		/* a third at most: a configuration's summary stands on the rest */
		for (int j = 0; n[i] >= 3 && j < n[i] / 3; j++) {
			int top = -1;
			for (int k = 0; k < n[i]; k++)
				if (!out[at + k] && (top < 0 || d[at + k] > d[at + top]))
					top = k;
			if (!(d[at + top] > HMPT_NOISE_OUTLIER_K * s))
				break;
			out[at + top] = true;
			count++;
		}
	free(d), free(ad), free(tmp);
	return count;
}
