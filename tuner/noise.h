/* noise.h — what other load did to a tuning's runs, and what the noise still
 * lets the tuning tell.
 *
 * Contract: pure functions, no I/O (the caller reads /proc/stat and passes
 * its text).  Times are seconds; a "share" is the part of the allowed CPUs'
 * capacity over a run (wall x CPUs) that others took, from 0 to 1.
 *
 * The disturbance rule is relative, so that a node that is always shared
 * does not make every run disturbed (interleaved comparisons cancel constant
 * load; it is changes that hurt): a run is disturbed when the share others
 * took exceeds the median share of the last HMPT_NOISE_WINDOW runs judged
 * before it by more than HMPT_NOISE_MARGIN (steal likewise, by itself), and
 * only once HMPT_NOISE_MIN_RUNS runs are there to compare with.
 */
#ifndef HMPT_TUNER_NOISE_H
#define HMPT_TUNER_NOISE_H

#include <stdbool.h>

#define HMPT_NOISE_MARGIN   0.25
#define HMPT_NOISE_MIN_RUNS 5
#define HMPT_NOISE_WINDOW   20

/* Busy time (user, nice, system, irq, softirq, steal) and steal of some
 * CPUs, summed, in seconds. */
typedef struct {
	double busy, steal;
	int ncpus; /* CPUs found */
} hmpt_noise_cpu_t;

/* Sums the "cpuN" lines of /proc/stat's text for every N < nallowed with
 * allowed[N], at ticks_per_s (USER_HZ): 0, or -1 when none of them is there
 * (a /proc/stat that shows other CPUs than ours). */
int hmpt_noise_cpustat(const char *text, const bool *allowed, int nallowed, double ticks_per_s,
                       hmpt_noise_cpu_t *out);
/* The share of ncpus CPUs over `wall` seconds that `seconds` is, from 0 to
 * 1 (0 when wall or ncpus is not positive). */
double hmpt_noise_share(double seconds, double wall, int ncpus);
/* The rule above: "load" or "steal" when a run whose shares are (load,
 * steal) is disturbed against the shares of the runs before it,
 * load_hist[0..n-1] and steal_hist[0..n-1] in run order (only the last
 * HMPT_NOISE_WINDOW count); NULL when it is not, or cannot be judged yet.
 * `*median` (when given) gets the median load share compared with. */
const char *hmpt_noise_judge(const double *load_hist, const double *steal_hist, int n, double load,
                             double steal, double *median);

/* A trend over values in run order: Theil-Sen slope of log(value) per run,
 * Mann-Kendall's test (normal approximation, ties corrected, continuity
 * corrected). */
typedef struct {
	int n;
	double slope; /* of log(value) per run */
	double drift; /* over the tuning: exp(slope * (n - 1)) - 1 */
	double z, p;  /* Mann-Kendall's statistic and two-sided p-value */
} hmpt_noise_trend_t;

/* The trend of x[0..n-1] (positive): 0, or -1 when n < 3 or a value is not
 * positive (then *tr is zero). */
int hmpt_noise_trend(const double *x, int n, hmpt_noise_trend_t *tr);
/* Whether a trend calls for more runs of the reference: its runs so far
 * (three at least) show one at Mann-Kendall's p below HMPT_NOISE_DRIFT_P,
 * or they are too few to tell (true).  Lenient on purpose: a run of the
 * reference costs little beside a drift that passes for a speedup, while
 * on a steady machine (p uniform) one batch in ten pays for it. */
#define HMPT_NOISE_DRIFT_P 0.1
bool hmpt_noise_drifting(const hmpt_noise_trend_t *tr);
/* A robust relative spread: 1.4826 x the median absolute deviation of
 * log(x) (the sd of a normal sample's log); 0 when n < 2 or a value is not
 * positive. */
double hmpt_noise_spread(const double *x, int n);
/* The smallest speedup minus 1 that n runs of a configuration against nref
 * of its reference show faster at two-sided alpha with the given power,
 * when log(run) has sd `sd` with df degrees of freedom (pooled):
 * exp((t(1-alpha/2) + t(power)) sd sqrt(1/n + 1/nref)) - 1; +inf when it
 * cannot (n, nref or df not positive). */
double hmpt_noise_detectable(double sd, double df, int n, int nref, double alpha, double power);
/* The smallest number of runs N per configuration (the reference
 * ref_share x N), up to max, at which `gain` is detectable, the pooled df
 * growing as df_per_rep x (N - 1); 0 when none up to max is enough. */
int hmpt_noise_reps_for(double sd, double df_per_rep, int ref_share, double alpha, double power,
                        double gain, int max);

/* Slow outliers: runs of configurations measured alike (interleaved, so
 * the same noise for all) that other load made much slower.  Load only ever
 * slows a run, so only the slow side is judged.  For each configuration with
 * at least 3 runs: the median m of its log values, each run's deviation
 * d = log(x) - m (negated for rates: positive is slower); a robust scale
 * s = 1.4826 x the median |d| over the runs of all those configurations (the
 * zero deviation of an odd sample's median run left out); a run is an
 * outlier when d > HMPT_NOISE_OUTLIER_K s and s > 0, at most a third of a
 * configuration's runs (its largest deviations). */
#define HMPT_NOISE_OUTLIER_K 4.0

/* lx: the log values of nconf configurations one after the other, n[i] of
 * configuration i; out[0..sum n - 1] gets which of them are outliers; *scale
 * (when given) gets s (0: none, fewer than 3 runs everywhere).  The number
 * of outliers, or -1 when out of memory (then none is marked). */
int hmpt_noise_outliers(const double *lx, const int *n, int nconf, bool higher_is_better, bool *out,
                        double *scale);

#endif
