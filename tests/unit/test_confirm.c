/* test_confirm.c — the confirmation phase's statistics at full power: the
 * real tuner/stage_confirm.c (with method.c, stats.c, config.c) over a fake
 * measurement layer, 10,000 confirmation phases per noise structure, each
 * run's true figure known.
 *
 * The fake: the confirmation's round loop calls hmpt_measure_round()
 * (measure.c); the link wraps it (-Wl,--wrap, see the Makefile), so that
 * stage_confirm.c's call lands in __wrap_hmpt_measure_round below, which
 * draws each run's value from the noise structure and records it as
 * measure.c would (the configuration's runs: rep, value, wall, mem_load).
 * Everything else (the order of a round, the stop, the intervals, the
 * choices, the replacements) is the real code.
 *
 * The tuning the search left: three groups of one site each (1, 2 and 4
 * GiB), the eight combinations measured three times each with fixed
 * figures (1 % apart: the search's pooled noise) whose estimates propose
 * four configurations at once (best, fastest, plan-90, runner-up: 1.11,
 * 1.12, 1.04 and 1.105), and more as those are not confirmed.  Half the phases have a null truth
 * (every placement 1.00), half a gain (G1 1.00, G2 1.06, G3 1.03, savings adding). A run of
 * all-slow takes 10 s; a placement of speedup s, 10 s (0.4 + m) with m = 1/s - 0.4 its memory-bound
 * share (the frequency structure).
 *
 * Noise structures (noise 2 % unless said; lognormal sd cycles over 0.01,
 * 0.02, 0.05 and 0.10 by phase for the five of tests/progs/model.c):
 *   lognormal, drift, burst, heavy, bimodal  as model.c's header says; hit
 *              every placement alike
 *   ar1        AR(1) noise, coefficient 0.7 (control)
 *   sd-place   noise 2 % for all-slow, 4 % for placements (control)
 *   carry      a run right after an all-slow run (the warm-up is one) is
 *              3 % faster
 *   position   the first run of each round 5 % slower
 *   load       a bandwidth co-tenant on or off (a Markov chain by run, on
 *              30 % of the time): it slows all-slow by 10 %, a placement
 *              by 4 %; each run's mem_load is the load plus noise
 *   pages      2 MiB pages refused (a Markov chain by run, 30 % of the
 *              time): a placement loses its gain, all-slow is unchanged
 *   frequency  the clock at 0.7 (a Markov chain by run, 30 % of the time)
 *              stretches the CPU-bound share 0.4: the speedup shrinks
 * The truth a placement is judged against: its speedup with no nuisance
 * (carry-over, position, load: the tuner's own order or a co-tenant), and
 * for pages and frequency (the machine's own states, which a user meets
 * too) the geometric mean over the states: exp(E log speedup).
 *
 * Figures: per configuration, the share of configurations of truth 1.00
 * confirmed faster (the claim behind tuning.h's HMPT_CONFIRM_MAX: asserted
 * <= 0.8 % by a one-sided binomial test at the 1 % level); per tuning, the
 * share of tunings confirming any configuration of truth 1.00 (asserted
 * <= the claimed bound, alpha = 5 %); the coverage of the 99 % intervals of
 * the configurations settled (asserted >= 98.5 %); the mean rounds.  A
 * structure whose figures the confirmation as it is cannot meet is printed
 * NOT MET and not asserted (expect[] below).  The figures are simulated,
 * not measured.
 *
 * One process per structure, as many at once as there are CPUs: 48 s of
 * CPU in all (built optimised, without ASan: the Makefile), about 25 s on a
 * quiet 2-core machine.
 * Usage: test_confirm [PHASES [SEED]] (default 10000, 1); CONFIRM_ONLY=NAME
 * runs one structure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#include "config.h"
#include "confirm.h"
#include "measure.h"
#include "method.h"
#include "stages.h"
#include "stats.h"
#include "tune.h"

#define T0      10.0 /* all-slow's seconds */
#define CPU     0.4  /* the CPU-bound share of all-slow's time */
#define NGROUPS 3
#define NCOMBOS (1 << NGROUPS)

/* ------------------------------------------------------------ random */

static uint64_t rng;

static double uniform(void)
{
	rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
	return ((double)((rng * 0x2545f4914f6cdd1dull) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* Student's t with 3 degrees of freedom */
static double student3(void)
{
	double c = 0;
	for (int i = 0; i < 3; i++) {
		double z = gauss();
		c += z * z;
	}
	return gauss() / sqrt(c / 3);
}

/* ------------------------------------------------------------ structures */

typedef enum {
	LOGNORMAL,
	DRIFT,
	BURST,
	HEAVY,
	BIMODAL,
	AR1,
	SD_PLACE,
	CARRY,
	POSITION,
	LOAD,
	PAGES,
	FREQUENCY,
	NSTRUCT
} structure_t;

static const char *const names[NSTRUCT] = {"lognormal", "drift", "burst",    "heavy",
                                           "bimodal",   "ar1",   "sd-place", "carry",
                                           "position",  "load",  "pages",    "frequency"};

/* Whether the confirmation as it is meets the targets under it: the ones
 * it cannot are printed NOT MET and not asserted (issue 40 fixes them). */
static const bool expect[NSTRUCT] = {
    [LOGNORMAL] = true, [DRIFT] = true, [BURST] = true,    [HEAVY] = true,
    [BIMODAL] = true,   [AR1] = true,   [SD_PLACE] = true, [CARRY] = true,
    [POSITION] = false, [LOAD] = false, [PAGES] = false,   [FREQUENCY] = true};

#define P_STATE 0.3 /* the share of runs in the other state (load, pages, clock) */
#define F_LOW   0.7 /* the clock in its low state */

/* The simulation's state over one phase. */
static struct {
	structure_t s;
	double sd;
	bool prev_slow;         /* the run before was all-slow */
	long nrun;              /* runs so far (drift) */
	double trend, walk, ar; /* drift's trend per run and walk; AR(1)'s state */
	bool state;             /* the Markov chain's other state: loaded, refused, slow clock */
	const double *truth_nominal; /* per combination mask */
} sim;

/* Speedups with no nuisance, by mask: the null and the gain landscapes. */
static double truth_null[NCOMBOS], truth_gain[NCOMBOS];

static void landscapes(void)
{
	const double alone[NGROUPS] = {1.00, 1.06, 1.03};
	for (int m = 0; m < NCOMBOS; m++) {
		double saved = 0;
		for (int g = 0; g < NGROUPS; g++)
			saved += (m >> g & 1) ? 1 - 1 / alone[g] : 0;
		truth_null[m] = 1;
		truth_gain[m] = 1 / (1 - saved);
	}
}

/* Seconds of a placement of nominal speedup s with the clock at f and its
 * gain granted or not. */
static double seconds(double s, double f, bool granted)
{
	double mem = granted ? 1 / s - CPU : 1 - CPU;
	return T0 * (CPU / f + mem);
}

/* The truth a placement of nominal speedup s is judged against (header). */
static double truth_of(double s)
{
	if (sim.s == PAGES)
		return exp((1 - P_STATE) * log(s));
	if (sim.s == FREQUENCY)
		return exp((1 - P_STATE) * log(s) +
		           P_STATE * log(seconds(1, F_LOW, true) / seconds(s, F_LOW, true)));
	return s;
}

/* Steps the two-state chain: stays 80 % of the time on, 1 - P_STATE on
 * average in the first state. */
static void step_state(void)
{
	double leave = sim.state ? 0.2 : 0.2 * P_STATE / (1 - P_STATE);
	if (uniform() < leave)
		sim.state = !sim.state;
}

/* One run's figure: the placement's nominal speedup s (slow: all-slow),
 * first in its round or not; *mem_load what others did to memory. */
static double draw(double s, bool slow, bool first, double *mem_load)
{
	double sd = sim.sd, v;
	step_state();
	bool on = sim.state && (sim.s == LOAD || sim.s == PAGES || sim.s == FREQUENCY);
	v = seconds(s, sim.s == FREQUENCY && on ? F_LOW : 1, !(sim.s == PAGES && on));
	double z = gauss(), ln = 0;
	switch (sim.s) {
	case DRIFT:
		sim.walk += sd / 5 * gauss();
		ln = sd * z + sim.trend * (double)sim.nrun + sim.walk;
		break;
	case BURST: ln = sd * z + (uniform() < 0.1 ? log(1.3 + 1.7 * uniform()) : 0); break;
	case HEAVY: ln = sd * student3(); break;
	case BIMODAL: ln = sd * z + (uniform() < 0.5 ? log(1.12) : 0); break;
	case AR1:
		sim.ar = 0.7 * sim.ar + sd * sqrt(1 - 0.49) * z;
		ln = sim.ar;
		break;
	case SD_PLACE: ln = (slow ? sd : 2 * sd) * z; break;
	case CARRY: ln = sd * z + (sim.prev_slow ? log(0.97) : 0); break;
	case POSITION: ln = sd * z + (first ? log(1.05) : 0); break;
	case LOAD: ln = sd * z + (on ? log(slow ? 1.10 : 1.04) : 0); break;
	default: ln = sd * z;
	}
	/* the tuner's probe (measure.c): CPU ns per KiB, about 100 quiet, a
	 * third more beside a co-tenant, +-4 % apart (as measured) */
	*mem_load = (sim.s == LOAD && on ? 130 : 100) * exp(0.04 * gauss());
	sim.prev_slow = slow;
	sim.nrun++;
	return v * exp(ln);
}

/* ------------------------------------------------------------ the fake */

static int combo_of[64]; /* configuration -> combination mask, -1: none */

int __wrap_hmpt_measure_round(hmpt_tune_t *t, hmpt_measure_t *x, const int *items, int n, int r);
int __wrap_hmpt_measure_round(hmpt_tune_t *t, hmpt_measure_t *x, const int *items, int n, int r)
{
	bool first = true;
	for (int i = 0; i < n; i++) {
		hmpt_tconfig_t *c = &t->configs[items[i]];
		if (hmpt_measure_has_rep(c, r))
			continue;
		int mask = -1;
		for (int k = 0; k < t->ntried; k++)
			if (t->tried[k].config == items[i])
				mask = combo_of[t->tried[k].of];
		bool slow = items[i] == t->confirm_ref;
		CHECK(slow || mask >= 0);
		double load;
		bool prev_slow = sim.prev_slow;
		double v =
		    draw(slow ? 1 : sim.truth_nominal[mask < 0 ? 0 : mask], slow, first, &load);
		first = false;
		c->runs = realloc(c->runs, (size_t)(c->nruns + 1) * sizeof(*c->runs));
		c->runs[c->nruns++] = (hmpt_trun_t){.value = v,
		                                    .wall = v,
		                                    .rep = r,
		                                    .has_prev = true,
		                                    .prev_slow = prev_slow,
		                                    .has_mem_load = true,
		                                    .mem_load = load};
		x->done++;
	}
	return 0;
}

/* ------------------------------------------------------------ a tuning */

static hmpt_tsite_t sites[NGROUPS] = {
    {.id = "s1", .bytes = 1ull << 30, .access = -1, .group = 0, .label = "a1"},
    {.id = "s2", .bytes = 2ull << 30, .access = -1, .group = 1, .label = "a2"},
    {.id = "s4", .bytes = 4ull << 30, .access = -1, .group = 2, .label = "a4"}};

/* The search's estimates, by mask (all-slow 1): what proposes */
static const double estimate[NCOMBOS] = {1, 1.04, 1.08, 1.11, 1.03, 1.06, 1.105, 1.12};

/* The tuning as the search stage leaves it: its eight combinations with
 * three runs each, analysed. */
static void search_left(hmpt_tune_t *t, const hmpt_tune_opts_t *opt, hmpt_journal_t *j)
{
	hmpt_tune_start(t, opt);
	t->sites = sites;
	t->nsites = NGROUPS;
	t->total_bytes = 7ull << 30;
	t->ngroups = NGROUPS;
	for (int g = 0; g < NGROUPS; g++)
		snprintf(t->groups[g].name, sizeof(t->groups[g].name), "G%d", g + 1);
	for (int m = 0; m < NCOMBOS; m++) {
		unsigned char fast[NGROUPS + 1] = {0};
		char label[32] = "slow";
		for (int g = 0; g < NGROUPS; g++)
			fast[g] = m >> g & 1;
		if (m)
			snprintf(label, sizeof(label), "%s%s%s", m & 1 ? "G1 " : "",
			         m & 2 ? "G2 " : "", m & 4 ? "G3" : "");
		int ci = hmpt_config_get(t, j, fast, label, HMPT_PHASE_COMBOS);
		hmpt_tconfig_t *c = &t->configs[ci];
		c->mask = (unsigned)m;
		c->ref = 0; /* all-slow comes first */
		combo_of[ci] = m;
		const double spread[3] = {0.99, 1.0, 1.01};
		c->runs = calloc(3, sizeof(*c->runs));
		for (int k = 0; k < 3; k++)
			c->runs[k] = (hmpt_trun_t){
			    .value = T0 / estimate[m] * spread[k], .wall = T0, .rep = k};
		c->nruns = 3;
	}
	t->ref = 0;
	t->ncombos = NCOMBOS;
	for (int i = NCOMBOS; i < 64; i++)
		combo_of[i] = -1;
	hmpt_method_analyze(t);
}

static void tuning_free(hmpt_tune_t *t)
{
	for (int i = 0; i < t->nconfigs; i++) {
		free(t->configs[i].runs);
		free(t->configs[i].fast);
	}
	free(t->configs);
}

/* ------------------------------------------------------------ tallies */

typedef struct {
	long configs0, false0;   /* configurations of truth 1.00, confirmed faster */
	long tunings, false_t;   /* tunings, with any of truth 1.00 confirmed */
	long covered, intervals; /* settled 99 % intervals holding the truth */
	long rounds;
} tally_t;

/* One confirmation phase under structure s: its figures into *y. */
static void phase(structure_t s, long i, uint64_t seed, const hmpt_tune_opts_t *opt, tally_t *y)
{
	static const double sds[4] = {0.01, 0.02, 0.05, 0.10};
	hmpt_journal_t j = {0};
	hmpt_tune_t t;
	hmpt_measure_t x = {.quiet = true, .journal = &j};

	rng = (seed * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)s << 40) ^
	      (uint64_t)(i + 1) * 0xbf58476d1ce4e5b9ull;
	for (int k = 0; k < 4; k++)
		uniform();
	sim = (typeof(sim)){.s = s, .sd = s <= BIMODAL ? sds[i % 4] : 0.02, .prev_slow = true};
	sim.trend = sim.sd * (2 + 2 * uniform()) / 100 * (uniform() < 0.5 ? -1 : 1);
	sim.state = uniform() < P_STATE;
	sim.truth_nominal = i % 2 ? truth_gain : truth_null;
	search_left(&t, opt, &j);
	t.seed = rng ^ 0x5eed; /* the tuning's own, as the journal gives it */
	CHECK_OP(hmpt_stage_confirm(&t, &x), ==, 0);
	bool any_false = false;
	for (int k = 0; k < t.ntried; k++) {
		const hmpt_tconfirm_t *e = &t.tried[k];
		double truth = truth_of(sim.truth_nominal[combo_of[e->of]]);
		if (truth <= 1) {
			y->configs0++;
			y->false0 += e->confirmed;
			any_false |= e->confirmed;
		}
		if (e->settled && e->exact) {
			y->intervals++;
			y->covered += e->sp.lo <= truth && truth <= e->sp.hi;
		}
	}
	y->tunings++;
	y->false_t += any_false;
	y->rounds += t.confirm_rounds_run;
	tuning_free(&t);
}

/* P(X >= k) for X binomial(n, p): the one-sided test's p-value. */
static double binomial_upper(long k, long n, double p)
{
	if (k <= 0)
		return 1;
	/* by the log of each term, summed from k up: past the mode they fall
	 * fast */
	double sum = 0;
	for (long m = k; m <= n; m++) {
		double lt = lgamma(n + 1.0) - lgamma(m + 1.0) - lgamma(n - m + 1.0) + m * log(p) +
		            (n - m) * log1p(-p);
		sum += exp(lt);
		if (lt < -40 && m > n * p)
			break;
	}
	return sum < 1 ? sum : 1;
}

int main(int argc, char **argv)
{
	long phases = argc > 1 ? atol(argv[1]) : 10000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	const char *only = getenv("CONFIRM_ONLY");
	hmpt_tune_opts_t opt = hmpt_tune_opts_default();
	landscapes();

	printf("the confirmation phase (tuner/stage_confirm.c) over simulated runs, %ld phases "
	       "per structure, seed %llu (simulated, not measured)\n",
	       phases, (unsigned long long)seed);
	printf("%-10s %9s %16s %14s %9s %7s  %s\n", "structure", "configs", "false/config",
	       "false/tuning", "coverage", "rounds", "targets");
	/* one process per structure, as many at a time as there are CPUs: the
	 * figures do not depend on it (each phase is seeded by its number) */
	tally_t all[NSTRUCT] = {{0}};
	int fd[NSTRUCT][2], running = 0, ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	for (int s = 0; s < NSTRUCT; s++) {
		if (only && strcmp(only, names[s]))
			continue;
		if (running == (ncpu > 1 ? ncpu : 1)) {
			int status;
			CHECK(wait(&status) > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
			running--;
		}
		CHECK_OP(pipe(fd[s]), ==, 0);
		pid_t pid = fork();
		CHECK_OP(pid, >=, 0);
		if (pid == 0) {
			tally_t y = {0};
			for (long i = 0; i < phases; i++)
				phase((structure_t)s, i, seed, &opt, &y);
			_exit(write(fd[s][1], &y, sizeof(y)) == sizeof(y) && !failures ? 0 : 1);
		}
		close(fd[s][1]);
		running++;
	}
	for (int s = 0; s < NSTRUCT; s++) {
		if (only && strcmp(only, names[s]))
			continue;
		CHECK_OP(read(fd[s][0], &all[s], sizeof(all[s])), ==, (ssize_t)sizeof(all[s]));
		close(fd[s][0]);
	}
	for (int status; wait(&status) > 0;)
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (int s = 0; s < NSTRUCT; s++) {
		if (only && strcmp(only, names[s]))
			continue;
		tally_t y = all[s];
		double per_config = y.configs0 ? (double)y.false0 / (double)y.configs0 : 0;
		double per_tuning = (double)y.false_t / (double)y.tunings;
		double coverage = y.intervals ? (double)y.covered / (double)y.intervals : 1;
		double p = binomial_upper(y.false0, y.configs0, 0.008);
		bool met = p >= 0.01 && per_tuning <= opt.alpha && coverage >= 0.985;
		printf("%-10s %9ld %6ld (%5.2f %%) %5ld (%5.2f %%) %7.2f %% %7.1f  %s\n", names[s],
		       y.configs0, y.false0, 100 * per_config, y.false_t, 100 * per_tuning,
		       100 * coverage, (double)y.rounds / (double)y.tunings,
		       met ? "met" : "NOT MET");
		if (!expect[s])
			continue;
		/* not above 0.8 % per configuration (one-sided, at the 1 % level) */
		CHECK_OP(p, >=, 0.01);
		CHECK_OP(per_tuning, <=, opt.alpha);
		CHECK_OP(coverage, >=, 0.985);
	}
	return failures ? 1 : 0;
}
