/* search.c — the model search and the choice rules (search.h). */
#include "search.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_MASKS  (1u << HMPT_SEARCH_MAX_K)
#define MAX_POINTS 256

/* The model: singles' savings u[g] (fractions of the all-slow time), the
 * saturation t of H(s) = s / (1 + t s), and a Gaussian process over the
 * residuals of the points in x[]. */
typedef struct {
	int k;
	double u[HMPT_SEARCH_MAX_K];
	double uvar[HMPT_SEARCH_MAX_K]; /* the variance of each single's log speedup */
	double t;
	int n;
	unsigned x[MAX_POINTS];
	double r[MAX_POINTS], v[MAX_POINTS];
	double sf2, ell, dist[HMPT_SEARCH_MAX_K];
	double chol[MAX_POINTS * MAX_POINTS], w[MAX_POINTS];
	bool ok;
} model_t;

/* Below this, the mean function's prior uncertainty (log speedup): the
 * interactions no data have shown yet. */
static const double prior_sd_floor = 0.02, prior_sd_share = 0.1;

/* The log speedup the mean function gives mask m with saturation t, or NAN
 * where t is outside what the singles allow. */
static double mean_at(const model_t *md, double t, unsigned m)
{
	double pos = 0, neg = 0;

	for (int g = 0; g < md->k; g++) {
		if (!(m >> g & 1))
			continue;
		double u = md->u[g];
		if (u <= 0) {
			neg += u;
			continue;
		}
		double disc = 1 - 4 * t * u;
		if (disc < 0)
			return NAN;
		/* the saving before saturation: d - t d^2 = u, the smaller root */
		pos += fabs(t) < 1e-9 ? u : (1 - sqrt(disc)) / (2 * t);
	}
	double saved = pos - t * pos * pos + neg;
	if (saved > 0.99)
		saved = 0.99;
	return -log(1 - saved);
}

static double fit_error(const model_t *md, double t, const hmpt_search_obs_t *obs, int nobs)
{
	double e = 0;
	for (int i = 0; i < nobs; i++) {
		if (obs[i].failed || !obs[i].mask)
			continue;
		double m = mean_at(md, t, obs[i].mask);
		if (isnan(m))
			return INFINITY;
		e += (obs[i].y - m) * (obs[i].y - m) / (obs[i].var > 1e-12 ? obs[i].var : 1e-12);
	}
	return e;
}

/* The saturation that fits the data best: a grid, then golden section
 * around its best point; t = 0 (plain additivity) wins ties. */
static double fit_saturation(const model_t *md, const hmpt_search_obs_t *obs, int nobs)
{
	double umax = 0;
	for (int g = 0; g < md->k; g++)
		umax = md->u[g] > umax ? md->u[g] : umax;
	double hi = umax > 0 ? 0.25 / umax : 10, lo = -1, best = 0;
	double best_e = fit_error(md, 0, obs, nobs);
	const int steps = 120;
	for (int i = 0; i <= steps; i++) {
		double t = lo + (hi - lo) * i / steps, e = fit_error(md, t, obs, nobs);
		if (e < best_e - 1e-9)
			best_e = e, best = t;
	}
	double a = best - (hi - lo) / steps, b = best + (hi - lo) / steps;
	const double phi = (sqrt(5) - 1) / 2;
	for (int i = 0; i < 40; i++) {
		double c = b - phi * (b - a), d = a + phi * (b - a);
		if (fit_error(md, c, obs, nobs) < fit_error(md, d, obs, nobs))
			b = d;
		else
			a = c;
	}
	double t = (a + b) / 2;
	return fit_error(md, t, obs, nobs) < best_e ? t : best;
}

/* Residuals are alike for masks that differ in groups that matter little:
 * a group's distance is its share of the singles' savings (at least a
 * fifth of the average). */
static double kernel(const model_t *md, unsigned a, unsigned b)
{
	double d = 0;
	for (unsigned x = a ^ b; x; x &= x - 1)
		d += md->dist[__builtin_ctz(x)];
	return md->sf2 * exp(-d / md->ell);
}

/* In-place Cholesky of the n x n matrix a (row-major); false if not
 * positive definite. */
static bool cholesky(double *a, int n)
{
	for (int j = 0; j < n; j++) {
		double d = a[j * n + j];
		for (int p = 0; p < j; p++)
			d -= a[j * n + p] * a[j * n + p];
		if (d <= 0)
			return false;
		a[j * n + j] = sqrt(d);
		for (int i = j + 1; i < n; i++) {
			double s = a[i * n + j];
			for (int p = 0; p < j; p++)
				s -= a[i * n + p] * a[j * n + p];
			a[i * n + j] = s / a[j * n + j];
		}
	}
	return true;
}

/* L z = b, then (optionally) L' x = z, in place */
static void solve_lower(const double *l, int n, double *b, bool both)
{
	for (int i = 0; i < n; i++) {
		for (int p = 0; p < i; p++)
			b[i] -= l[i * n + p] * b[p];
		b[i] /= l[i * n + i];
	}
	for (int i = n - 1; both && i >= 0; i--) {
		for (int p = i + 1; p < n; p++)
			b[i] -= l[p * n + i] * b[p];
		b[i] /= l[i * n + i];
	}
}

/* With `learn`, the residuals' spread sets the interactions' prior where it
 * is larger than the floor; without, the prior stays what the singles
 * suggest (the misfit check: residuals judged against it). */
static void model_build(model_t *md, const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs,
                        int nobs, bool learn)
{
	double wsum[HMPT_SEARCH_MAX_K] = {0}, ysum[HMPT_SEARCH_MAX_K] = {0};
	bool own[HMPT_SEARCH_MAX_K] = {false};

	memset(md, 0, sizeof(*md));
	md->k = s->k;
	/* singles: this phase's own measurement when there is one */
	for (int i = 0; i < nobs; i++) {
		const hmpt_search_obs_t *o = &obs[i];
		if (o->failed || !o->mask || (o->mask & (o->mask - 1)))
			continue;
		int g = __builtin_ctz(o->mask);
		if (g >= s->k || (own[g] && o->phase != 1))
			continue;
		if (o->phase == 1 && !own[g])
			own[g] = true, wsum[g] = ysum[g] = 0;
		double w = 1 / (o->var > 1e-12 ? o->var : 1e-12);
		wsum[g] += w;
		ysum[g] += w * o->y;
	}
	for (int g = 0; g < s->k; g++) {
		md->u[g] = wsum[g] > 0 ? 1 - exp(-ysum[g] / wsum[g]) : 0;
		md->uvar[g] = wsum[g] > 0 ? 1 / wsum[g] : 0;
	}
	md->t = fit_saturation(md, obs, nobs);

	/* the residuals, and how large they are where singles do not fix them */
	double top = 0, excess = 0;
	int extra = 0;
	for (unsigned m = 0; m < 1u << s->k; m++) {
		double v = mean_at(md, md->t, m);
		top = v > top ? v : top;
	}
	for (int i = 0; i < nobs && md->n < MAX_POINTS; i++) {
		const hmpt_search_obs_t *o = &obs[i];
		if (o->failed)
			continue;
		double r = o->mask ? o->y - mean_at(md, md->t, o->mask) : o->y;
		md->x[md->n] = o->mask;
		md->r[md->n] = r;
		md->v[md->n++] = o->var > 1e-8 ? o->var : 1e-8;
		if (__builtin_popcount(o->mask) > 1) {
			excess += r * r - o->var;
			extra++;
		}
	}
	double sd = prior_sd_floor > prior_sd_share * top ? prior_sd_floor : prior_sd_share * top;
	md->sf2 = sd * sd;
	if (learn && extra && excess / extra > md->sf2)
		md->sf2 = excess / extra;
	md->ell = 2;
	double usum = 0;
	for (int g = 0; g < s->k; g++)
		usum += fabs(md->u[g]);
	for (int g = 0; g < s->k; g++) {
		double w = usum > 0 ? s->k * fabs(md->u[g]) / usum : 1;
		md->dist[g] = w > 0.2 ? w : 0.2;
	}
	int n = md->n;
	for (int i = 0; i < n; i++)
		for (int j = 0; j <= i; j++)
			md->chol[i * n + j] = md->chol[j * n + i] =
			    kernel(md, md->x[i], md->x[j]) + (i == j ? md->v[i] : 0);
	md->ok = n > 0 && cholesky(md->chol, n);
	if (md->ok) {
		memcpy(md->w, md->r, (size_t)n * sizeof(double));
		solve_lower(md->chol, n, md->w, true);
	}
}

static void model_predict(const model_t *md, unsigned m, double *mean, double *sd)
{
	double kx[MAX_POINTS], base = mean_at(md, md->t, m), var = md->sf2, mu = 0;

	if (isnan(base))
		base = 0;
	if (!md->ok) {
		*mean = base;
		*sd = sqrt(var);
		return;
	}
	for (int i = 0; i < md->n; i++) {
		kx[i] = kernel(md, m, md->x[i]);
		mu += kx[i] * md->w[i];
	}
	solve_lower(md->chol, md->n, kx, false);
	for (int i = 0; i < md->n; i++)
		var -= kx[i] * kx[i];
	/* the singles the mean function adds are measurements too: far from
	 * the data their noise is the prediction's (near it, the data's) */
	double from_singles = 0;
	for (int g = 0; g < md->k; g++)
		from_singles += (m >> g & 1) && md->uvar[g] > md->sf2 ? md->uvar[g] : 0;
	var += from_singles * (var > 0 ? var : 0) / md->sf2;
	*mean = base + mu;
	*sd = sqrt(var > 1e-12 ? var : 1e-12);
}

void hmpt_search_predict(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                         double *mean, double *sd)
{
	static model_t md; /* large: not on the stack */

	model_build(&md, s, obs, nobs, true);
	for (unsigned m = 0; m < 1u << s->k; m++)
		model_predict(&md, m, &mean[m], &sd[m]);
}

/* Above this chance of so large a sum of squared errors the model is taken
 * to fit (the chi-square's upper tail, Wilson-Hilferty) */
static const double misfit_alpha = 0.01;

bool hmpt_search_misfit(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                        double *stat)
{
	static model_t md;
	double sum = 0;
	int n = 0;

	if (stat)
		*stat = 0;
	model_build(&md, s, obs, nobs, false);
	/* each mask's residual from the mean function, against the prior's
	 * spread of interactions, its own noise and its singles' (a check
	 * the Gaussian process's fit to the residuals would hide: it learns
	 * them, and a rugged landscape looks smooth to it near its data) */
	for (int i = 0; i < md.n; i++) {
		unsigned m = md.x[i];
		if (__builtin_popcount(m) < 2)
			continue;
		bool own = false;
		for (int j = 0; j < nobs && !own; j++)
			own = obs[j].mask == m && obs[j].phase == 1 && !obs[j].failed;
		if (!own)
			continue;
		double from_singles = 0;
		for (int g = 0; g < md.k; g++)
			from_singles += m >> g & 1 ? md.uvar[g] : 0;
		double e = md.r[i], v = md.sf2 + md.v[i] + from_singles;
		sum += e * e / v;
		n++;
	}
	if (n < 2)
		return false;
	if (stat)
		*stat = sum / n;
	double c = 2.0 / (9 * n), z = (cbrt(sum / n) - (1 - c)) / sqrt(c);
	return 1 - hmpt_stats_normal_cdf(z) < misfit_alpha;
}

int hmpt_search_cap(const hmpt_search_setup_t *s)
{
	return s->max_configs > 0 ? s->max_configs : 2 * s->k + 4;
}

int hmpt_search_ext_cap(const hmpt_search_setup_t *s)
{
	return s->ext_configs > 0 ? s->ext_configs : 6 * s->k + 4;
}

bool hmpt_search_extends(const hmpt_search_setup_t *s)
{
	int ext = hmpt_search_ext_cap(s);
	return ext > hmpt_search_cap(s) && ext < 1 << s->k;
}

int hmpt_search_count(const hmpt_search_obs_t *obs, int nobs)
{
	int n = 0;
	for (int i = 0; i < nobs; i++) {
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = obs[j].mask == obs[i].mask;
		n += !seen;
	}
	return n;
}

static double footprint(const hmpt_search_setup_t *s, unsigned m)
{
	double b = 0;
	for (int g = 0; g < s->k; g++)
		if (m >> g & 1)
			b += s->bytes[g];
	return b;
}

/* Another round for measured masks whose comparison the noise still hides:
 * the fastest and any not clearly slower (the best: up to twice the
 * rounds, since a best chosen from few runs per mask picks by noise among
 * near-equals), and smaller ones near 90 % of the fastest (the 90 % plan). */
static int confirm(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                   unsigned *out, int max)
{
	int top = -1, n = 0, rounds = s->max_rounds > 0 ? s->max_rounds : 4;
	const double z = 2;

	for (int i = 0; i < nobs; i++)
		if (obs[i].phase == 1 && !obs[i].failed && obs[i].mask &&
		    (top < 0 || obs[i].y > obs[top].y))
			top = i;
	/* never more than half the rounds exhaustive search would run: with
	 * few groups, measuring them all is the better use of runs */
	int spent = 0;
	for (int i = 0; i < nobs; i++)
		spent += obs[i].phase == 1 && obs[i].mask ? obs[i].rounds : 0;
	if (top < 0 || 2 * spent >= (1 << s->k) - 1)
		return 0;
	const hmpt_search_obs_t *f = &obs[top];
	double floor90 = fmax(f->y + log(0.9), log(1.01));
	for (int pass = 0; pass < 2 && n < max; pass++)
		for (int i = 0; i < nobs && n < max; i++) {
			const hmpt_search_obs_t *o = &obs[i];
			if (o->phase != 1 || o->failed || !o->mask || i == top ||
			    (pass && footprint(s, o->mask) >= footprint(s, f->mask)))
				continue;
			double se = sqrt(o->var + f->var);
			bool unsure = pass ? fabs(o->y - floor90) < z * se : f->y - o->y < z * se;
			if (!unsure)
				continue;
			for (int w = 0; w < 2 && n < max; w++) {
				const hmpt_search_obs_t *c = w ? o : f;
				bool dup = false;
				for (int j = 0; j < n; j++)
					dup |= out[j] == c->mask;
				if (!dup && c->rounds < (pass ? rounds : 2 * rounds))
					out[n++] = c->mask;
			}
		}
	return n;
}

/* What the observations say of each mask: 0 nothing, 1 measured in phase
 * 1 or failed (known), 2 phase 0 only; failed[m] when a run of it failed. */
static void mask_states(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                        unsigned char *state, bool *failed)
{
	unsigned nm = 1u << s->k;
	memset(state, 0, nm);
	if (failed)
		memset(failed, 0, nm * sizeof(*failed));
	for (int i = 0; i < nobs; i++) {
		unsigned m = obs[i].mask;
		if (m >= nm)
			continue;
		if (state[m] != 1)
			state[m] = obs[i].phase == 1 || obs[i].failed ? 1 : 2;
		if (failed && obs[i].failed)
			failed[m] = true;
	}
}

/* The first design's masks still missing: all of them counted, the first
 * `max` in out (marked known in state). */
static int design_missing(const hmpt_search_setup_t *s, unsigned char *state, unsigned *out,
                          int max)
{
	unsigned full = (1u << s->k) - 1;
	int n = 0;
	for (int g = -1; g < s->k; g++) {
		unsigned m = g < 0 ? full : 1u << g;
		/* all-fast in this phase whatever phase 0 knows (with one group
		 * it is the ranking's single, and the plans need it measured) */
		bool want = g < 0 ? state[m] != 1 : !state[m] && m != full;
		if (want && n < max)
			out[n] = m;
		n += want;
		if (want || !state[m])
			state[m] = 1;
	}
	return n;
}

int hmpt_search_design(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                       unsigned *out, int max)
{
	static unsigned char state[MAX_MASKS];
	mask_states(s, obs, nobs, state, NULL);
	return design_missing(s, state, out, max);
}

/* The normal quantile z with P(Z > z) = p. */
static double normal_upper(double p)
{
	return hmpt_stats_normal_quantile(1 - p);
}

/* The gate after the first design: a mask counts as a gain once it is
 * faster than all-slow by more than eps in GATE_ROUNDS rounds of this
 * phase's runs; all-fast is measured up to GATE_MAX_ROUNDS rounds while its
 * z is above gate_promising; GATE_NEW of the ranking's singles at most are
 * measured again as configurations of this phase. */
enum { GATE_ROUNDS = 3, GATE_MAX_ROUNDS = 6, GATE_NEW = 2 };
static const double gate_promising = 0.5, gate_lead = 1.5;

/* Whether the first design shows that the groups make a difference (1),
 * shows none (0), or needs another round first (-1, the masks in out[], *n
 * of them).  A difference is a mask faster than all-slow by more than eps,
 * or two masks of one phase apart by more than eps either way (a
 * comparison free of their all-slow runs' error, which they share: a
 * landscape on which the
 * groups make a difference is not flat, and a rugged one can hide its gains
 * from the first design).  The tests are at the confidence asked for over
 * every mask, pair (within a phase) and look (Bonferroni), so that on a flat landscape the
 * search stops after the first design in all but a few per cent of
 * tunings, whatever the noise.  Where nothing differs, no gain is expected
 * among the combinations either: a group that helps shows alone or among
 * all the others (a rugged landscape can hide one; evidence.md has how
 * often).
 *
 * What passes once is measured again before it counts, so a false gain
 * costs rounds and at most GATE_NEW configurations: the masks that passed,
 * the ranking's single most likely faster (z above gate_lead: a gain below
 * the line in the ranking's few runs), then the pair that differs most.
 * A pass counts at once only if it would hold over the whole cap's family
 * of comparisons (limit masks); a marginal one is measured again, up to
 * GATE_MAX_ROUNDS, so that a false gain fades before the search spends
 * configurations on it.  The verdict is taken again at every step, over
 * every configuration measured so far.  A configuration whose run failed is
 * never asked for again. */
static int gate(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                const bool *failed, double eps, int limit, unsigned *out, int max, int *n)
{
	unsigned full = (1u << s->k) - 1;
	static int rounds[MAX_MASKS];
	static bool ranked[MAX_MASKS], passed[MAX_MASKS], marginal[MAX_MASKS];
	static double z1[MAX_MASKS]; /* each mask's z in this phase */
	int masks = 0, fresh = 0;
	memset(rounds, 0, sizeof(rounds));
	memset(ranked, 0, sizeof(ranked));
	memset(passed, 0, sizeof(passed));
	memset(marginal, 0, sizeof(marginal));
	for (unsigned m = 0; m <= full; m++)
		z1[m] = -INFINITY;
	for (int i = 0; i < nobs; i++) {
		const hmpt_search_obs_t *o = &obs[i];
		if (o->failed || !o->mask || o->mask > full)
			continue;
		masks++;
		if (o->phase == 1)
			rounds[o->mask] = o->rounds;
		else
			ranked[o->mask] = true;
	}
	/* the ranking's singles measured again in this phase: the gate's own */
	for (unsigned m = 1; m < full; m++)
		fresh += ranked[m] && (rounds[m] > 0 || failed[m]);
	int looks = GATE_MAX_ROUNDS - GATE_ROUNDS + 1, family = masks > limit ? masks : limit;
	double alpha = 1 - s->confidence;
	double zc = normal_upper(alpha / ((masks > 0 ? masks : 1) * looks));
	double zfirm = normal_upper(alpha / (family * looks));
	unsigned lead = 0;
	double zlead = gate_lead;
	for (int i = 0; i < nobs; i++) {
		const hmpt_search_obs_t *o = &obs[i];
		if (o->failed || !o->mask || o->mask > full)
			continue;
		double z = (o->y - eps) / sqrt(o->var > 1e-12 ? o->var : 1e-12);
		if (o->phase == 1)
			z1[o->mask] = z;
		else if (z > zlead && !failed[o->mask])
			zlead = z, lead = o->mask;
		if (z <= zc)
			continue;
		if (o->phase == 1 && o->rounds >= GATE_ROUNDS) {
			if (z > zfirm || o->rounds >= GATE_MAX_ROUNDS)
				return 1;
			marginal[o->mask] = true;
		}
		passed[o->mask] = true;
	}
	if (lead)
		passed[lead] = true;
	/* the pair that differs most, two-sided over every pair */
	int pairs = masks * (masks - 1) / 2;
	double zd = normal_upper(alpha / (2.0 * (pairs > 0 ? pairs : 1) * looks));
	double zdfirm = normal_upper(alpha / (family * (family - 1.0) * looks));
	double zmax = zd;
	unsigned pa = 0, pb = 0;
	bool pair1 = false; /* the pair is of this phase */
	for (int i = 0; i < nobs; i++) {
		const hmpt_search_obs_t *a = &obs[i];
		if (a->failed || !a->mask || a->mask > full)
			continue;
		for (int j = i + 1; j < nobs; j++) {
			const hmpt_search_obs_t *b = &obs[j];
			/* within one phase: against the same all-slow runs */
			if (b->failed || !b->mask || b->mask > full || b->mask == a->mask ||
			    b->phase != a->phase)
				continue;
			double v = a->var + b->var;
			double z = (fabs(a->y - b->y) - eps) / sqrt(v > 1e-12 ? v : 1e-12);
			if (z <= zd)
				continue;
			bool counts =
			    a->phase == 1 && a->rounds >= GATE_ROUNDS && b->rounds >= GATE_ROUNDS;
			if (counts && (z > zdfirm || (a->rounds >= GATE_MAX_ROUNDS &&
			                              b->rounds >= GATE_MAX_ROUNDS)))
				return 1;
			if (z > zmax)
				zmax = z, pa = a->mask, pb = b->mask, pair1 = counts;
		}
	}
	if (pair1)
		marginal[pa] = marginal[pb] = true;
	/* the gate's masks: all-fast, what passed, the lead, then the pair;
	 * GATE_ROUNDS rounds each, more while promising or marginal */
	*n = 0;
	int pending = 0;
	unsigned pair[2] = {pa, pb};
	for (unsigned i = 0; i < full + 2 && *n < max; i++) {
		bool of_pair = i >= full;
		unsigned m = of_pair ? pair[i - full] : i ? i : full;
		if (!m || (of_pair && pending) || (!of_pair && m != full && !passed[m]))
			continue;
		bool queued = false, more = (m == full && z1[m] > gate_promising) || marginal[m];
		for (int j = 0; j < *n; j++)
			queued |= out[j] == m;
		if (queued || failed[m] ||
		    !(rounds[m] < GATE_ROUNDS || (rounds[m] < GATE_MAX_ROUNDS && more)))
			continue;
		if (m != full && !rounds[m] && fresh >= GATE_NEW)
			continue;
		fresh += m != full && !rounds[m];
		pending += !of_pair && m != full;
		out[(*n)++] = m;
	}
	return *n ? -1 : 0;
}

/* The backward elimination: rules for its steps (log speedups).  A step
 * the singles say must fall more than elim_skip below the 90 % floor is not
 * measured; one within elim_unsure standard errors of the floor is measured
 * again, ELIM_ROUNDS rounds at most, before it is decided. */
enum { ELIM_ROUNDS = 4 };
static const double elim_skip = 0.15, elim_unsure = 1.5;

/* The next step of a backward elimination for the 90 % plan (1, in out[0])
 * or 0 when it is done.  From all-fast, one group at a time, the least
 * worth per byte alone first (those slower alone before those that gain
 * nothing, the larger first among equals): a group goes when the plan less
 * it still reaches 90 % of the fastest measured.  Unlike the model, this
 * sees what the others do to a group: a pair that helps only together
 * stays, the weaker of a pair that competes goes, and so does a group that
 * is slower in the fast pool or whose traffic the fast pool no longer
 * serves faster.  Its path is rebuilt from the runs at every call. */
static int elimination(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                       const bool *failed, unsigned *out)
{
	unsigned full = (1u << s->k) - 1;
	static double y[MAX_MASKS], var[MAX_MASKS];
	static int rounds[MAX_MASKS];
	double single[HMPT_SEARCH_MAX_K] = {0}, top = -INFINITY;
	memset(rounds, 0, sizeof(rounds));
	for (int i = 0; i < nobs; i++) {
		const hmpt_search_obs_t *o = &obs[i];
		if (o->failed || o->mask > full)
			continue;
		if (o->mask && !(o->mask & (o->mask - 1)))
			single[__builtin_ctz(o->mask)] = o->y;
		if (o->phase != 1 || !o->mask)
			continue;
		y[o->mask] = o->y, var[o->mask] = o->var, rounds[o->mask] = o->rounds;
		top = fmax(top, o->y);
	}
	double floor90 = fmax(top + log(0.9), log(1.01));
	int order[HMPT_SEARCH_MAX_K];
	for (int g = 0; g < s->k; g++) {
		int j = g;
		double v = single[g] / fmax(s->bytes[g], 1e-300);
		for (; j > 0; j--) {
			int h = order[j - 1];
			double w = single[h] / fmax(s->bytes[h], 1e-300);
			if (w < v || (w == v && s->bytes[h] >= s->bytes[g]))
				break;
			order[j] = h;
		}
		order[j] = g;
	}
	unsigned plan = full;
	if (!rounds[full])
		return 0;
	for (int i = 0; i < s->k; i++) {
		int g = order[i];
		unsigned m = plan ^ 1u << g;
		if (!m)
			break;
		if (y[plan] - fmax(single[g], 0) < floor90 - elim_skip)
			continue;
		if (failed[m])
			continue;
		if (!rounds[m] || (fabs(y[m] - floor90) < elim_unsure * sqrt(var[m]) &&
		                   rounds[m] < ELIM_ROUNDS)) {
			out[0] = m;
			return 1;
		}
		if (y[m] >= floor90)
			plan = m;
	}
	return 0;
}

/* a mask's place in the plain local search's order */
static uint64_t local_order(unsigned m, unsigned seed)
{
	uint64_t x = ((uint64_t)seed << 32 | m) + 0x9e3779b97f4a7c15ull;
	x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ x >> 27) * 0x94d049bb133111ebull;
	return x ^ x >> 31;
}

int hmpt_search_local(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                      const double *mean, const double *sd, unsigned *out)
{
	unsigned nm = 1u << s->k, inc = 0;
	static unsigned char state[MAX_MASKS];
	static bool failed[MAX_MASKS];
	int inc_rounds = 0;
	double top = -INFINITY;

	mask_states(s, obs, nobs, state, failed);
	for (int i = 0; i < nobs; i++) {
		const hmpt_search_obs_t *o = &obs[i];
		if (o->phase != 1 || o->failed || o->mask >= nm)
			continue;
		double v = mean ? mean[o->mask] : o->y;
		if (v > top)
			top = v, inc = o->mask, inc_rounds = o->rounds;
	}
	/* one round can be luck: the incumbent steers, so it is measured again */
	if (inc && inc_rounds < 2) {
		out[0] = inc;
		return 1;
	}
	for (int r = 1; r <= s->k; r++) {
		unsigned pick = 0;
		double key = -INFINITY;
		for (unsigned m = 1; m < nm; m++) {
			if (__builtin_popcount(m ^ inc) != r || state[m] || failed[m])
				continue;
			double v = mean ? mean[m] + sd[m] : (double)local_order(m, s->seed);
			if (v > key)
				key = v, pick = m;
		}
		if (pick) {
			out[0] = pick;
			return 1;
		}
	}
	return 0;
}

double hmpt_search_short_by(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs)
{
	unsigned nm = 1u << s->k;
	static unsigned char state[MAX_MASKS];
	static bool failed[MAX_MASKS];
	static double mean[MAX_MASKS], sd[MAX_MASKS];
	double best = 0, up = 0;

	mask_states(s, obs, nobs, state, failed);
	hmpt_search_predict(s, obs, nobs, mean, sd);
	for (unsigned m = 1; m < nm; m++)
		if (state[m] == 1 && !failed[m])
			best = fmax(best, mean[m]);
	for (unsigned m = 1; m < nm; m++)
		if (state[m] != 1 && !failed[m])
			up = fmax(up, mean[m] + 2 * sd[m] - best);
	return exp(up);
}

/* Before the gate's "nothing": the first design sees each group alone and
 * all of them together, not a gain that needs several groups fast
 * together while others stay slow (a rugged landscape's).  Two masks far
 * from both ends go to the gate first: the better half of the groups by
 * their singles, and the other half; once, while no mask between one group
 * and all-fast has been measured.  Returns how many (in out[]). */
static int probes(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                  const unsigned char *state, const bool *failed, unsigned *out, int max)
{
	unsigned full = (1u << s->k) - 1, half = 0;
	double y[HMPT_SEARCH_MAX_K];
	bool own[HMPT_SEARCH_MAX_K] = {false};
	int n = 0;

	for (int g = 0; g < s->k; g++)
		y[g] = 0;
	for (int i = 0; i < nobs; i++) {
		const hmpt_search_obs_t *o = &obs[i];
		int pc = __builtin_popcount(o->mask);
		if (o->phase == 1 && pc > 1 && o->mask != full)
			return 0;
		if (pc != 1 || o->failed || (own[__builtin_ctz(o->mask)] && o->phase != 1))
			continue;
		y[__builtin_ctz(o->mask)] = o->y;
		own[__builtin_ctz(o->mask)] |= o->phase == 1;
	}
	for (int i = 0; i < (s->k + 1) / 2; i++) {
		int pick = -1;
		for (int g = 0; g < s->k; g++)
			if (!(half >> g & 1) && (pick < 0 || y[g] > y[pick]))
				pick = g;
		half |= 1u << pick;
	}
	unsigned cand[2] = {half, full ^ half};
	for (int i = 0; i < 2 && n < max; i++)
		if (__builtin_popcount(cand[i]) > 1 && state[cand[i]] != 1 && !failed[cand[i]])
			out[n++] = cand[i];
	return n;
}

/* The extension where the model misfits: the contest for the best and the
 * 90 % plan first (confirm), then a plain local search around the best
 * measured (a model that misfits steers nothing), up to ext_configs. */
static int extend(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                  unsigned *out, int max, hmpt_search_stop_t *why)
{
	int again = confirm(s, obs, nobs, out, max);
	*why = HMPT_SEARCH_GOING;
	if (again)
		return again;
	if (hmpt_search_count(obs, nobs) >= hmpt_search_ext_cap(s)) {
		*why = HMPT_SEARCH_CAPPED;
		return 0;
	}
	if (hmpt_search_local(s, obs, nobs, NULL, NULL, out))
		return 1;
	*why = HMPT_SEARCH_ALL;
	return 0;
}

int hmpt_search_next(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                     unsigned *out, int max, hmpt_search_stop_t *why)
{
	unsigned nm = 1u << s->k;
	static unsigned char state[MAX_MASKS];
	static bool failed[MAX_MASKS];
	int limit = hmpt_search_cap(s);
	int room = limit - hmpt_search_count(obs, nobs);
	double p_min = 1 - s->confidence, eps = log(1.01);
	hmpt_search_stop_t dummy;

	why = why ? why : &dummy;
	*why = HMPT_SEARCH_GOING;
	mask_states(s, obs, nobs, state, failed);
	int n = design_missing(s, state, out, max);
	if (n) /* the first design is measured whatever the budget */
		return n < max ? n : max;
	/* past the model's cap only the extension takes masks: it goes on */
	if (room < 0 && hmpt_search_extends(s))
		return extend(s, obs, nobs, out, max, why);
	/* with few groups the cap lets the search measure them all: no gate */
	int shown = (int)nm > limit ? gate(s, obs, nobs, failed, eps, limit, out, max, &n) : 1;
	if (shown < 0)
		return n;
	if (!shown) {
		n = probes(s, obs, nobs, state, failed, out, max);
		if (n)
			return n;
		*why = HMPT_SEARCH_NOTHING;
		return 0;
	}

	static double mean[MAX_MASKS], sd[MAX_MASKS];
	hmpt_search_predict(s, obs, nobs, mean, sd);
	/* the best measured (by the model's mean: it shrinks the noise) */
	unsigned best = 0;
	for (unsigned m = 1; m < nm; m++)
		if (state[m] == 1 && !failed[m] && mean[m] > mean[best])
			best = m;
	/* the smallest measured reaching 90 % of it; never all-slow, which
	 * "reaches" 90 % of any speedup below 1.11x */
	double floor90 = fmax(mean[best] + log(0.9), log(1.01)), f90 = footprint(s, best);
	for (unsigned m = 1; m < nm; m++)
		if (state[m] == 1 && !failed[m] && mean[m] >= floor90 && footprint(s, m) < f90)
			f90 = footprint(s, m);
	double zbest = mean[best];
	/* at the cap, still asked which masks could change a decision: the
	 * answer says whether the cap or the data stopped the search */
	int want = room > 0 ? room : 1;
	double beat = 0; /* the best chance a mask has to beat the best */
	while (n < max && n < want) {
		/* a mask that may beat the best: most expected improvement */
		unsigned pick = 0;
		double score = 0;
		for (unsigned m = 1; m < nm; m++) {
			if (state[m] == 1)
				continue;
			double z = (mean[m] - zbest - eps) / sd[m];
			if (hmpt_stats_normal_cdf(z) <= p_min)
				continue;
			double ei = sd[m] * (z * hmpt_stats_normal_cdf(z) +
			                     exp(-z * z / 2) / sqrt(2 * M_PI));
			if (ei > score)
				score = ei, pick = m;
			if (n == 0)
				beat = fmax(beat, hmpt_stats_normal_cdf(z));
		}
		/* a smaller mask that may reach 90 %: the saving weighted by the
		 * square of its chance (a likely saving before an unlikely one) */
		unsigned pick90 = 0;
		double score90 = 0;
		for (unsigned m = 1; m < nm; m++) {
			if (state[m] == 1 || footprint(s, m) >= f90)
				continue;
			double p = hmpt_stats_normal_cdf((mean[m] - floor90) / sd[m]);
			if (p <= p_min)
				continue;
			double gain = p * p * (f90 - footprint(s, m));
			if (gain > score90)
				score90 = gain, pick90 = m;
		}
		if (!pick && !pick90)
			break;
		if (pick) {
			out[n++] = pick;
			state[pick] = 1;
		}
		if (pick90 && state[pick90] != 1 && n < max && n < want) {
			out[n++] = pick90;
			state[pick90] = 1;
		}
	}
	if (room <= 0 || !n) {
		int again = confirm(s, obs, nobs, out, max);
		if (again)
			return again;
		*why = n ? HMPT_SEARCH_CAPPED : HMPT_SEARCH_SETTLED;
		/* where the model misfits, neither "settled" nor its picks can be
		 * trusted: a local search around the best goes on (evidence.md) */
		if (!hmpt_search_extends(s) || !hmpt_search_misfit(s, obs, nobs, NULL))
			return 0;
		return extend(s, obs, nobs, out, max, why);
	}
	/* while the model sees something to gain, the elimination goes first:
	 * the 90 % plan needs what the model cannot see (evidence.md); with it
	 * the model's pick for the best where it gives one better than even
	 * odds of beating the best measured */
	unsigned step;
	if (elimination(s, obs, nobs, failed, &step)) {
		if (beat > 0.5 && max > 1 && room > 1 && out[0] != step) {
			out[1] = step;
			return 2;
		}
		out[0] = step;
		return 1;
	}
	return n;
}

const char *hmpt_search_why(hmpt_search_stop_t why)
{
	switch (why) {
	case HMPT_SEARCH_NOTHING:
		return "no configuration of the first design (all-fast and each group alone), "
		       "nor two of half the groups each, was faster than all-slow or differed "
		       "from another; a gain that needs several groups fast together while "
		       "others stay slow can still hide from them (--search exhaustive sees "
		       "it)";
	case HMPT_SEARCH_SETTLED:
		return "no configuration left unmeasured has a real chance of changing the "
		       "best or the 90 % plan";
	case HMPT_SEARCH_CAPPED:
		return "at its cap of configurations, with some left that could still change a "
		       "decision (--search exhaustive measures them all)";
	case HMPT_SEARCH_BUDGET: return "the --budget of runs";
	case HMPT_SEARCH_ALL: return "every configuration was measured";
	case HMPT_SEARCH_STALLED: return "no new runs could be taken";
	default: return NULL;
	}
}
