/* strategy.h — the search strategies as rows of a table, and the one loop
 * that serves them measurements (hmpt-tune's search stage and test_search
 * both run it).
 *
 * Contract: no processes, no files, no I/O of its own: the caller's
 * callbacks read the data and take the runs.  A strategy is a pure
 * function of the data (search.h): a resumed search takes the same steps.
 */
#ifndef HMPT_TUNER_STRATEGY_H
#define HMPT_TUNER_STRATEGY_H

#include "search.h"

typedef struct {
	const char *name; /* --search NAME */
	const char *what; /* one line for --help and the docs */
	/* the next masks (at most max) in out[], how many; 0: done, *why */
	int (*next)(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
	            unsigned *out, int max, hmpt_search_stop_t *why);
	int batch; /* masks asked for at a time (0: every one it has) */
} hmpt_strategy_t;

/* The table, ended by a row with name NULL. */
extern const hmpt_strategy_t hmpt_strategies[];

/* The row called `name`, or NULL. */
const hmpt_strategy_t *hmpt_strategy_find(const char *name);

/* measure() asked for more runs than the budget allows: nothing was run */
#define HMPT_SEARCH_IO_BUDGET (-2)

typedef struct {
	/* the data so far into obs[] (room for max), how many */
	int (*observe)(void *ctx, hmpt_search_obs_t *obs, int max);
	/* runs masks[0..n): the runs it took (0: none could be taken),
	 * HMPT_SEARCH_IO_BUDGET, or -1 on failure (its own message) */
	int (*measure)(void *ctx, const unsigned *masks, int n);
	void *ctx;
	int budget;      /* runs the caller allows (0: no limit), for the outcome */
	int max_configs; /* masks with data allowed (0: no limit): a request that
	                    would pass it stops the search (HMPT_SEARCH_BUDGET) */
} hmpt_search_io_t;

/* How a search ended. */
typedef struct {
	hmpt_search_stop_t stop;
	bool misfit;        /* the model does not fit the data (hmpt_search_misfit) */
	double misfit_stat; /* its mean squared standardised error (about 1: fits) */
	int configs;        /* masks with data, all-slow included */
	int runs;           /* runs measure() took */
	int budget;         /* the caller's budget of runs (0: none) */
	int cap;            /* the configurations it could reach (extension included) */
	double short_by;    /* where it stopped short of its own end: the model's
	                       upper bound of the best unmeasured mask over the best
	                       measured (1: none; 0: not short) */
	const char *advice; /* what to run to close the gap, or NULL */
} hmpt_search_outcome_t;

/* Runs strategy st: asks it for masks, has them measured, until it stops,
 * the budget stops it or nothing new can be run.  0, or -1 when measure()
 * failed (the outcome then says how far it came). */
int hmpt_search_drive(const hmpt_strategy_t *st, const hmpt_search_setup_t *s,
                      const hmpt_search_io_t *io, hmpt_search_outcome_t *out);

/* A stop reason's name in results.json ("settled", "capped", ...). */
const char *hmpt_search_stop_name(hmpt_search_stop_t stop);

/* The exhaustive strategy and the plain iterated local search (the model's
 * is hmpt_search_next). */
int hmpt_search_exhaustive_next(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs,
                                int nobs, unsigned *out, int max, hmpt_search_stop_t *why);
int hmpt_search_ils_next(const hmpt_search_setup_t *s, const hmpt_search_obs_t *obs, int nobs,
                         unsigned *out, int max, hmpt_search_stop_t *why);

#endif
