/* tuning.h — the state of one tuning, shared by its modules.
 *
 * Contract: plain data.  tune.c fills in what was asked (opt, read-only
 * afterwards); the stages (stages.h) and
 * config.c the sites of the profile, their groups and the configurations
 * (placements); measure.c their runs; method.c the statistics and choices;
 * results.c and the plans report it all.  tune.c frees it.
 */
#ifndef HMPT_TUNER_TUNING_H
#define HMPT_TUNER_TUNING_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "loaddep.h"
#include "noise.h"
#include "order.h"
#include "slurmjob.h"
#include "stats.h"
#include "strategy.h"
#include "symbolize.h"

typedef struct {
	const json_t *json; /* in the profile */
	const char *id;
	uint64_t bytes;  /* peak live bytes: its share of the footprint */
	double access;   /* share of sampled accesses (or first touches); <0: none */
	int group;       /* index into groups, or -1 before grouping */
	char label[160]; /* "alloc_table (demo.c:44)" */
} hmpt_tsite_t;

typedef struct {
	double value; /* the metric, or the wall time */
	double wall;
	int status;    /* as hmpt_run() returns it; 0 when it succeeded */
	char why[160]; /* how it failed, when it did */
	int rep;
	char host[64]; /* where it ran (under --slurm) */
	/* What the rest of the machine did meanwhile (runs here; under --slurm
	 * none of it is known).  Seconds. */
	bool has_cpu, has_load; /* cpu and nivcsw known; others, steal, ncpus known */
	double cpu;             /* user + system of the program's process tree */
	long nivcsw;            /* its involuntary context switches */
	double others;          /* busy time of the CPUs it may use, less cpu, >= 0 */
	double steal;           /* steal time of those CPUs */
	int ncpus;              /* the CPUs it may use (the tuner's affinity) */
	bool has_prev;          /* prev_slow known (runs here, and journals since) */
	bool prev_slow;         /* the run before it here (a warm-up too) was all-slow's:
	                           a carry-over (stage_confirm.c) follows it */
	bool has_mem_load;      /* mem_load known */
	double mem_load;        /* what others did to memory meanwhile: measure.c's
	                           probe, CPU ns per KiB read from memory just before
	                           and after the run (higher: less bandwidth left),
	                           the load a placement's speedup may depend on */
	char retaken[8];        /* "load" or "steal": disturbed and taken again, so
	                           superseded: it does not count ("": it counts) */
	char disturbed[8];      /* disturbed, but kept: the retake bound was reached */
	bool outlier;           /* a slow outlier of the search (method.c): left out of its
	                           configuration's summary, never taken again */
} hmpt_trun_t;

/* The phases a configuration is measured in.  Each has its own all-slow
 * runs, so that a drift between phases cannot pass for a speedup; where
 * the ranking chose nothing (t->ranking_shared), its all-slow and singles
 * are the combination phase's own, and that phase goes on from its runs. */
typedef enum {
	HMPT_PHASE_RANKING, /* all-slow and each candidate site alone */
	HMPT_PHASE_COMBOS,  /* combinations of groups (the search) */
	HMPT_PHASE_CONFIRM, /* the chosen plans again, in fresh paired rounds */
} hmpt_phase_t;

/* What load and drift did to a tuning (method.c fills it). */
typedef struct {
	int retaken_load, retaken_steal; /* runs superseded, by reason */
	int kept;                        /* disturbed runs kept (the bound) */
	int judged;                      /* runs with the machine's load known */
	bool have_trend;                 /* the reference had >= 3 runs */
	hmpt_noise_trend_t trend;        /* of the reference's runs in run order */
	double spread;                   /* robust relative sd of the reference */
	double detectable;               /* the smallest speedup - 1 shown faster at 80 % power */
	int reps_needed;                 /* --reps that would tell --min-gain; 0: out of reach */
	int outliers, outliers_of;       /* slow outliers set aside, of the search's runs judged */
	double outlier_scale;            /* the robust sd they were judged with */
} hmpt_tnoise_t;

typedef struct {
	char key[17];        /* hash of the sorted ids of its sites in the fast pool */
	char label[128];     /* "slow", "fast", "G1+G3", "alone: <site>" */
	unsigned char *fast; /* per site */
	int nfast;
	unsigned mask; /* its groups, in the combination phase */
	/* a split (--split): the fast sites of tuner group split_group place
	 * only split_ppm parts per million of each block in the fast pool, the
	 * rest in the slow one (plan format 3); split_ppm 0: none */
	int split_group;
	uint32_t split_ppm;
	bool in_combos;  /* one of the 2^K */
	bool ranked;     /* measured first in the ranking (all-slow, or a group that is
	                    one site alone): its runs there are the search's too */
	bool in_confirm; /* measured again in the confirmation phase */
	int confirmed;   /* combinations: 1 the confirmation found it faster, -1
	                    it did not (never chosen then), 0 not tried */
	bool not_best;   /* the confirmation found it slower than the fastest
	                    (beside it, in the same rounds): never plan-best */
	int ref;         /* the all-slow configuration of its phase: runs of a phase
	                    are compared only with each other */
	int share;       /* runs per round (0: one; the reference: more) */
	int want;        /* runs that count, reps 0..want-1 (0: --reps, times the
	                    share for a reference; -1: none, a configuration the
	                    model search has not asked for: its runs in the
	                    journal wait until it does) */
	uint64_t fast_bytes;
	double fast_fraction, access_fraction; /* access < 0: not sampled */
	hmpt_trun_t *runs;
	int nruns, nfailed;
	int noutliers; /* runs that count but were set aside as slow outliers:
	                  taken, though not in sum */
	hmpt_summary_t sum;
	hmpt_speedup_t sp;
	double estimate;  /* from single-group speedups; 0: none */
	double predicted; /* the search model's speedup for it; 0: none */
} hmpt_tconfig_t;

typedef struct {
	char name[16];
	int nsites;
	uint64_t bytes;
	double access;
	double alone;      /* speedup of the group alone (point estimate) */
	bool alone_failed; /* a run of it alone (combination phase) failed */
} hmpt_tgroup_t;

/* Most configurations the confirmation phase measures in one tuning: its
 * intervals are at alpha over this (Bonferroni).  At one fixed look each,
 * a tuning would confirm a false speedup with a chance of at most alpha / 2
 * ("faster" is one side); it looks after every round and stops when the
 * interval is precise.  tests/unit/test_confirm.c runs this code 10,000
 * times per noise structure: a configuration of no gain was confirmed in
 * 0.35-0.47 % of cases under lognormal noise of 0.01 to 0.10 (seeds 1-3),
 * and in at most 0.69 % under the structures it asserts (noise twice as
 * large for placements as for all-slow); so the claim is alpha: at most
 * 5 x 0.0069 = 3.5 % at 95 % (2.0 % of tunings were, at most). */
#define HMPT_CONFIRM_MAX 5

/* A configuration of the search measured again against all-slow in fresh
 * paired rounds (stage_confirm.c). */
typedef struct {
	int config;           /* its configuration in the confirmation phase */
	int of;               /* the combination it measures again */
	const char *for_plan; /* the plan it was first tried for: "best", ... */
	int first_round;
	hmpt_speedup_t sp; /* paired, over the confirmation's all-slow runs */
	int pairs;
	bool exact;                /* sp's interval is Wilcoxon's (enough pairs) */
	bool settled;              /* measured enough: precise, hopeless or out of rounds */
	bool confirmed;            /* settled and sp.faster */
	char why[96];              /* why it is not confirmed, when settled so */
	int behind;                /* the fastest it was found slower than, or -1 */
	hmpt_speedup_t vs_fastest; /* its speedup over that one, paired */
	int vs_pairs;
	/* the speedup against the other load on memory (loaddep.h): where it
	 * depends on it, sp is the fit's at the quietest round's load and
	 * sp_all the paired figure over all rounds; where it does not but the
	 * fit puts it below --min-gain at the quietest load, quiet_below and
	 * sp is not faster */
	hmpt_loaddep_t load;
	hmpt_speedup_t sp_all;
	bool quiet_below;
} hmpt_tconfirm_t;

/* What was asked: the options, as the option parser (tune.c) filled them
 * in; read-only for everything else. */
typedef struct {
	char *const *cmd;    /* as run: the launcher's words, then the program's */
	const char *program; /* the program (not the launcher) */
	hmpt_slurm_t slurm;
	const char *dir;
	const char *metric; /* regular expression, or NULL: wall clock */
	bool maximize;      /* the metric is a rate */
	int reps, ngroups_max, candidates;
	bool exhaustive;    /* --search exhaustive: all 2^K, not the model's choice */
	int confirm_rounds; /* --confirm: most rounds per plan; 0: no confirmation */
	int retakes;        /* --retakes: a repetition disturbed by other load is
	                       taken again at most this often (0: never) */
	double precision;   /* --precision: the half-width confirmation aims at */
	int budget;         /* --budget: runs of the combination phase, 0: none */
	int split;          /* --split 1, --no-split 0, -1 (default): where the two
	                       pools have the same page size (a split between page
	                       sizes is slow on some machines: evidence.md) */
	double alpha, min_gain, timeout;
	uint64_t capacity;     /* 0: none */
	const char *bench_dir; /* --bench: hmpt-bench's output, or NULL */
	json_t *fast_pool, *slow_pool;
	const char *fast_name, *slow_name; /* as given to --pools */
	const char *sample;                /* --sample: HMPT_SAMPLE of the profile run */
	uint64_t seed;                     /* --seed: of the runs' orders; 0: drawn */
	char *user[16];                    /* --group: sites of each group, comma-separated */
	int nuser;
} hmpt_tune_opts_t;

typedef struct {
	const hmpt_tune_opts_t *opt; /* what was asked */
	double timeout_s;            /* a run's time limit: --timeout, or what the profile
	                                stage derives from the profile run; 0: none */
	/* what was found */
	json_t *profile;
	const char *access_kind; /* "accesses", "first touches", or NULL */
	bool access_density;     /* shares of sampled accesses, not of first touches */
	bool access_time;        /* the samples are slices of CPU time (a timer's): a
	                            site's share bounds what placing it can gain */
	char access_source[64];  /* where the shares come from, in words: "timer
	                            samples: where the CPU time went" (report.h) */
	hmpt_tsite_t *sites;
	int nsites;
	uint64_t total_bytes;
	hmpt_tgroup_t groups[16];
	int ngroups;
	hmpt_tconfig_t *configs;
	int nconfigs;
	int ref;               /* the all-slow configuration (of the last phase) */
	int ncombos;           /* configurations in the combination phase */
	bool ranking_shared;   /* the ranking chose nothing (every site it measured
	                          alone is a group of its own): its all-slow and
	                          singles are the combination phase's own */
	int best, best90, fit; /* chosen configurations, -1: none */
	int fastest;           /* the highest point estimate among the faster */
	double alpha_used;     /* alpha over the number of comparisons */
	hmpt_pooled_t pool;    /* the variance of log(run), pooled over all */
	/* the confirmation phase: what it measured, and the search's choices
	   before it (best, best90, fit then hold what it confirmed) */
	hmpt_tconfirm_t tried[HMPT_CONFIRM_MAX];
	int ntried;
	int confirm_ref; /* its all-slow configuration, -1: it did not run */
	int confirm_rounds_run;
	int confirm_rounds_max; /* --confirm, raised to the rounds an exact
	                           interval needs (stage_confirm.c) */
	bool confirming;        /* it runs: the search's point estimates propose */
	bool confirm_done;      /* it ran: only what it confirmed may be chosen */
	double confirm_alpha;   /* alpha of its intervals */
	int search_best, search_best90, search_fit;
	/* why the model search stopped, in words (NULL: it did not run) */
	const char *search_stop;
	/* how it ended: misfit, configurations, how far short (strategy.h) */
	hmpt_search_outcome_t search_outcome;
	/* the confirmation's carry-over: the log factor on a run's figure
	   (times: its time) when the run before it was all-slow, over the
	   pairs of all its entries (stage_confirm.c) */
	hmpt_shift_t carry;
	bool carry_removed; /* significant at 1 %: taken out of every pair */
	hmpt_tnoise_t noise;
	hmpt_sym_t *sym;
	uint64_t seed;      /* of the orders of its runs: the journal's (order.h) */
	hmpt_order_t order; /* the orders of the phase measured now */
	int order_ref;      /* its all-slow configuration, -1: none yet */
} hmpt_tune_t;

/* Runs of c taken within its want: in its summary, set aside as slow
 * outliers, or failed (the search's budget and rounds count them all). */
static inline int hmpt_tune_config_taken(const hmpt_tconfig_t *c)
{
	return c->sum.n + c->noutliers + c->nfailed;
}

/* Runs of c that count, reps 0..want-1: its own want, else --reps times its
 * share of a round; none while the model search has not asked for it
 * (want -1). */
static inline int hmpt_tune_config_want(const hmpt_tune_t *t, const hmpt_tconfig_t *c)
{
	return c->want < 0 ? 0 : c->want ? c->want : t->opt->reps * (c->share > 1 ? c->share : 1);
}

/* A run that counts towards its configuration (when its rep is wanted):
 * not superseded by a retake. */
static inline bool hmpt_tune_run_counts(const hmpt_trun_t *r)
{
	return !r->retaken[0];
}

/* The configurations reported and chosen from: those of the combination
 * phase once it ran (the ranking phase's are in results.json and .csv),
 * else every one measured. */
static inline bool hmpt_tune_config_shown(const hmpt_tune_t *t, int i)
{
	return t->ncombos ? t->configs[i].in_combos : t->configs[i].nruns > 0;
}

/* A configuration the search model predicted instead of measuring: shown
 * apart (no interval, no runs, verdict "predicted"), never chosen. */
static inline bool hmpt_tune_config_predicted(const hmpt_tconfig_t *c)
{
	return c->sum.n == 0 && !c->nfailed && c->predicted > 0;
}

#endif
