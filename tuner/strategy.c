/* strategy.c — the strategy table and the search loop (strategy.h). */
#include "strategy.h"

#include <stdlib.h>
#include <string.h>

const hmpt_strategy_t hmpt_strategies[] = {
    {"model",
     "a model of the groups' savings picks the configurations; where it misfits, a local "
     "search goes on (2K+4 configurations, up to 6K+4)",
     hmpt_search_next, 2},
    {"exhaustive", "every configuration (2^K)", hmpt_search_exhaustive_next, 0},
    {"ils",
     "iterated local search: one group flipped at a time around the best so far, more "
     "when stuck (2K+4 configurations)",
     hmpt_search_ils_next, 1},
    {NULL, NULL, NULL, 0},
};

const char *hmpt_search_stop_name(hmpt_search_stop_t stop)
{
	static const char *const name[HMPT_SEARCH_NSTOP] = {
	    [HMPT_SEARCH_GOING] = "going",     [HMPT_SEARCH_NOTHING] = "nothing",
	    [HMPT_SEARCH_SETTLED] = "settled", [HMPT_SEARCH_CAPPED] = "capped",
	    [HMPT_SEARCH_BUDGET] = "budget",   [HMPT_SEARCH_ALL] = "all",
	    [HMPT_SEARCH_STALLED] = "stalled"};
	return stop >= 0 && stop < HMPT_SEARCH_NSTOP ? name[stop] : "?";
}

const hmpt_strategy_t *hmpt_strategy_find(const char *name)
{
	for (const hmpt_strategy_t *st = hmpt_strategies; name && st->name; st++)
		if (!strcmp(st->name, name))
			return st;
	return NULL;
}

int hmpt_search_exhaustive_next(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs,
                                int nobs, unsigned *out, int max, hmpt_search_stop_t *why)
{
	unsigned nm = 1u << s->k;
	static bool known[1u << HMPT_SEARCH_MAX_K];
	int n = 0;

	memset(known, 0, sizeof(known));
	for (int i = 0; i < nobs; i++)
		if ((obs[i].phase == 1 || obs[i].failed) && obs[i].mask < nm)
			known[obs[i].mask] = true;
	for (unsigned m = 1; m < nm && n < max; m++)
		if (!known[m])
			out[n++] = m;
	if (why)
		*why = n ? HMPT_SEARCH_GOING : HMPT_SEARCH_ALL;
	return n;
}

int hmpt_search_ils_next(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                         unsigned *out, int max, hmpt_search_stop_t *why)
{
	hmpt_search_stop_t dummy;
	why = why ? why : &dummy;
	*why = HMPT_SEARCH_GOING;
	int n = hmpt_search_design(s, obs, nobs, out, max);
	if (n) /* the model's first design: both start from the same data */
		return n < max ? n : max;
	if (hmpt_search_count(obs, nobs) >= hmpt_search_cap(s)) {
		*why = HMPT_SEARCH_CAPPED;
		return 0;
	}
	if (hmpt_search_local(s, obs, nobs, NULL, NULL, out))
		return 1;
	*why = HMPT_SEARCH_ALL;
	return 0;
}

/* what to run where the search stopped short */
static const char *advice_for(const hmpt_search_outcome_t *o)
{
	switch (o->stop) {
	case HMPT_SEARCH_BUDGET: return "a larger --budget";
	case HMPT_SEARCH_STALLED: return "the runs that failed, once fixed";
	case HMPT_SEARCH_CAPPED:
	case HMPT_SEARCH_SETTLED:
		return o->misfit || o->short_by >= 1.02 ? "--search exhaustive" : NULL;
	default: return NULL;
	}
}

/* masks with data once masks[0..n) are measured */
static int beyond(const hmpt_search_obs_t *obs, int nobs, const unsigned *masks, int n)
{
	int count = hmpt_search_count(obs, nobs);
	for (int i = 0; i < n; i++) {
		bool seen = false;
		for (int j = 0; j < nobs && !seen; j++)
			seen = obs[j].mask == masks[i];
		for (int j = 0; j < i && !seen; j++)
			seen = masks[j] == masks[i];
		count += !seen;
	}
	return count;
}

int hmpt_search_drive(const hmpt_strategy_t *st, const hmpt_search_setup_t *s,
                      const hmpt_search_io_t *io, hmpt_search_outcome_t *out)
{
	int nm = 1 << s->k, room = 2 * nm + 16, rc = 0, nobs;
	hmpt_search_obs_t *obs = calloc((size_t)room, sizeof(*obs));
	unsigned *masks = calloc((size_t)nm, sizeof(*masks));
	int batch = st->batch > 0 && st->batch < nm ? st->batch : nm;

	memset(out, 0, sizeof(*out));
	out->budget = io->budget;
	out->cap = hmpt_search_cap(s);
	if (st->next == hmpt_search_next && hmpt_search_extends(s))
		out->cap = hmpt_search_ext_cap(s);
	out->cap = out->cap < nm ? out->cap : nm;
	if (!obs || !masks) {
		free(obs);
		free(masks);
		return -1;
	}
	/* a strategy that asks without end is stopped, not followed */
	for (int steps = 0;; steps++) {
		nobs = io->observe(io->ctx, obs, room);
		int got = st->next(s, obs, nobs, masks, batch, &out->stop);
		if (!got)
			break;
		if (io->max_configs && beyond(obs, nobs, masks, got) > io->max_configs) {
			out->stop = HMPT_SEARCH_BUDGET;
			break;
		}
		int runs = steps < 16 * nm + 64 ? io->measure(io->ctx, masks, got) : 0;
		if (runs == HMPT_SEARCH_IO_BUDGET) {
			out->stop = HMPT_SEARCH_BUDGET;
			break;
		}
		if (runs < 0) {
			rc = -1;
			break;
		}
		if (!runs) {
			out->stop = HMPT_SEARCH_STALLED;
			break;
		}
		out->runs += runs;
	}
	nobs = io->observe(io->ctx, obs, room);
	out->configs = hmpt_search_count(obs, nobs);
	/* the model's fit is judged where a model ran: not after the first
	 * design's "nothing", nor with every configuration measured */
	if (out->stop != HMPT_SEARCH_NOTHING && out->stop != HMPT_SEARCH_ALL)
		out->misfit = hmpt_search_misfit(s, obs, nobs, &out->misfit_stat);
	if (out->stop != HMPT_SEARCH_NOTHING && out->stop != HMPT_SEARCH_ALL &&
	    (out->misfit || out->stop != HMPT_SEARCH_SETTLED))
		out->short_by = hmpt_search_short_by(s, obs, nobs);
	out->advice = advice_for(out);
	free(obs);
	free(masks);
	return rc;
}
