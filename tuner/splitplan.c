/* splitplan.c — the smallest plan with a share that reaches the line
 * (splitplan.h). */
#include "splitplan.h"

#include <math.h>
#include <stdbool.h>

/* time relative to all-slow, or 0 when the mask's speedup is unknown */
static double rel_time(const hmpt_splitplan_in_t *in, unsigned m)
{
	if (!m)
		return 1;
	double s = in->speedup[m];
	return s > 0 ? 1 / s : 0;
}

static double mask_bytes(const hmpt_splitplan_in_t *in, unsigned m)
{
	double b = 0;
	for (int g = 0; g < in->k; g++)
		b += (m >> g & 1) ? in->bytes[g] : 0;
	return b;
}

static bool reaches(const hmpt_splitplan_in_t *in, unsigned m)
{
	double t = rel_time(in, m);
	return t > 0 && t <= 1 / in->line;
}

int hmpt_splitplan_order(const hmpt_splitplan_in_t *in, int *order)
{
	/* each group's time saved alone, per byte: the singles are measured
	 * (the ranking's, the search's first design), where the masks between
	 * them are often predicted, and a prediction's error of a per cent
	 * reorders groups whose savings differ by a fifth */
	double per[HMPT_SEARCH_MAX_K];
	int n = 0;
	for (int g = 0; g < in->k; g++) {
		double t = rel_time(in, 1u << g);
		if (t <= 0)
			continue;
		per[g] = (1 - t) / (in->bytes[g] > 0 ? in->bytes[g] : 1);
		int i = n++;
		for (; i > 0 && per[order[i - 1]] < per[g]; i--)
			order[i] = order[i - 1];
		order[i] = g;
	}
	unsigned taken = 0;
	for (int i = 0; i < n; i++)
		if (reaches(in, taken |= 1u << order[i]))
			return i + 1;
	return n;
}

double hmpt_splitplan_share_at(double t0, double t1, double at)
{
	return t0 > t1 ? (t0 - at) / (t0 - t1) : 1;
}

/* base with a share of h: the share estimated to meet the line, kept in
 * *out when its footprint is the smallest so far */
static void consider(const hmpt_splitplan_in_t *in, unsigned base, int h, hmpt_splitplan_t *out)
{
	if (base >> h & 1 || !(in->splits >> h & 1) || reaches(in, base) ||
	    !reaches(in, base | 1u << h))
		return;
	double t0 = rel_time(in, base), t1 = rel_time(in, base | 1u << h);
	if (t0 <= 0)
		return;
	double f = hmpt_splitplan_share_at(t0, t1, 1 / in->line);
	double b = mask_bytes(in, base) + f * in->bytes[h];
	if (in->plan90 && b >= mask_bytes(in, in->plan90))
		return; /* no smaller than the whole-group plan: nothing to gain */
	if (out->group < 0 || b < out->bytes)
		*out = (hmpt_splitplan_t){.base = base, .group = h, .share = f, .bytes = b};
}

int hmpt_splitplan_choose(const hmpt_splitplan_in_t *in, hmpt_splitplan_t *out)
{
	int order[HMPT_SEARCH_MAX_K];
	int n = hmpt_splitplan_order(in, order);
	unsigned base = 0;
	*out = (hmpt_splitplan_t){.group = -1, .share = 1};
	for (int i = 0; i + 1 < n; i++)
		base |= 1u << order[i];
	/* the group that crosses the line; where it cannot be split, the
	 * others beside the same base, then plan-90 less each of its groups.
	 * (A share's estimate is the least sure where its whole saves little:
	 * the crossing group is found from whole groups' savings.) */
	if (n > 0)
		consider(in, base, order[n - 1], out);
	/* each fallback looks at all its candidates: the smallest of them */
	bool found = out->group >= 0;
	for (int h = 0; !found && h < in->k; h++)
		consider(in, base, h, out);
	found = out->group >= 0;
	for (int g = 0; !found && g < in->k; g++)
		if (in->plan90 >> g & 1)
			consider(in, in->plan90 & ~(1u << g), g, out);
	return out->group < 0 ? -1 : 0;
}

/* The share where the time meets `at`, between the bracket's ends lo and
 * hi: on the parabola through them and the known point farthest from them
 * (the time of a saturating saving is convex in the share, so that a chord
 * overshoots; a far point steadies the curvature against noise), else on
 * the chord.  Below f[lo] or above f[hi] when the ends say it is there. */
static double share_between(const double *f, const double *t, int n, int lo, int hi, double at)
{
	int c = -1;
	double far = 0;
	for (int i = 0; i < n; i++) {
		double d = fmin(fabs(f[i] - f[lo]), fabs(f[i] - f[hi]));
		if (i != lo && i != hi && d > far)
			c = i, far = d;
	}
	if (t[lo] <= at)
		return f[lo];
	if (t[hi] > at)
		return f[hi];
	double a = f[lo], b = f[hi];
	if (c >= 0) {
		/* Newton's form through lo, hi and c */
		double d1 = (t[hi] - t[lo]) / (f[hi] - f[lo]);
		double d2 = ((t[c] - t[hi]) / (f[c] - f[hi]) - d1) / (f[c] - f[lo]);
		bool monotone = true;
		for (int s = 0; s <= 8; s++) { /* falling over the bracket: one root */
			double x = a + (b - a) * s / 8;
			monotone &= d1 + (2 * x - f[lo] - f[hi]) * d2 < 0;
		}
		if (monotone) {
			for (int s = 0; s < 60; s++) {
				double m = (a + b) / 2;
				double q = t[lo] + (m - f[lo]) * (d1 + (m - f[hi]) * d2);
				*(q > at ? &a : &b) = m;
			}
			return b;
		}
	}
	return a + (b - a) * hmpt_splitplan_share_at(t[lo], t[hi], at);
}

int hmpt_splitplan_run(const hmpt_splitplan_in_t *in, int steps, double margin,
                       hmpt_splitplan_measure_fn measure, void *ctx, hmpt_splitplan_t *best)
{
	hmpt_splitplan_t p;
	*best = (hmpt_splitplan_t){.group = -1, .share = 1};
	if (hmpt_splitplan_choose(in, &p) || steps < 1)
		return 0;
	int h = p.group, n = in->grains[h] > 0 ? in->grains[h] : 1000;
	/* what is known: the base (share 0) and the whole group (1), by the
	 * estimates, then each share measured; times relative to all-slow.
	 * The bracket, in grains: lo below the line, hi reaching. */
	double f[2 + 16], t[2 + 16];
	int np = 2, lo = 0, hi = 1, glo = 0, ghi = n, taken = 0;
	f[0] = 0, t[0] = rel_time(in, p.base);
	f[1] = 1, t[1] = rel_time(in, p.base | 1u << h);
	double line = 1 / in->line, bytes0 = p.bytes - p.share * in->bytes[h];
	for (; taken < steps && taken < 16 && ghi - glo > 1; margin /= 2) {
		double at = share_between(f, t, np, lo, hi, line * (1 - margin));
		/* a margin (a noisy program's sd) beyond the bracket's high end
		 * would only try the grain below it: the line itself instead */
		if (at >= f[hi])
			at = share_between(f, t, np, lo, hi, line);
		/* rounded up to a grain, and inside the bracket: where the ends
		 * say the line is beyond it (noise), the grain next to that end */
		int g = (int)ceil(at * n - 1e-9);
		g = g <= glo ? glo + 1 : g >= ghi ? ghi - 1 : g;
		p.share = (double)g / n;
		p.bytes = bytes0 + p.share * in->bytes[h];
		double s = 0;
		int r = measure(ctx, &p, &s);
		if (r < 0)
			return taken ? taken : -1;
		taken++;
		if (r > 0)
			*best = p;
		/* a failed run tells no time: below the line, and taken as slow
		 * as the bracket's low end */
		if (s > 0) {
			f[np] = p.share, t[np] = 1 / s;
			*(r > 0 ? &hi : &lo) = np++;
		} else if (r == 0) {
			f[np] = p.share, t[np] = t[lo]; /* as slow as the base, at most */
			lo = np++;
		}
		*(r > 0 ? &ghi : &glo) = g;
	}
	return taken;
}
