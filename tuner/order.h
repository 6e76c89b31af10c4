/* order.h — the order of a tuning's runs within a round: random per
 * tuning, and balanced so that what a run leaves to the next one cannot
 * pass for a speedup.
 *
 * Why: a fixed order makes any effect of position or of the run before one
 * bias shared by every tuning (issue 40: all-slow ran right before the
 * first configuration in 17 of 20 rounds).  Each round's order is drawn at
 * random from those that keep every configuration's lead, the times it ran
 * right after all-slow less the times all-slow ran right after it (within
 * rounds), at 0 or 1: so over any rounds the two differ by at most one.
 * Only that is imposed: an order chosen further (openings, the run before
 * all-slow, counted across rounds) runs in cycles, and a cycle the
 * stopping rule can meet in phase biased the confirmation more than a
 * random order did (test_confirm: position 14 % false "faster" per
 * configuration against 0.8 %, carry-over 5.0 % against 2.9 %).  Rounds
 * of up to 6 runs choose among all their orders; longer ones among 64
 * random ones with all-slow's runs chained ("h R s R t": the inner runs
 * keep their leads).
 *
 * Contract: deterministic for a given seed and sequence of rounds.  The
 * confirmation plans every round again on resumption, so a resumed tuning,
 * given the seed from its journal, runs its rounds in the same orders; the
 * search plans only the runs still missing, so a batch resumed midway runs
 * them in other orders of the same seed (and its leads hold from there).
 * No I/O.
 */
#ifndef HMPT_TUNER_ORDER_H
#define HMPT_TUNER_ORDER_H

#include <stdint.h>

typedef struct {
	uint64_t rng;
	int ref;   /* all-slow's item */
	int cap;   /* items 0..cap-1 have a lead */
	int *lead; /* per item: after all-slow less all-slow after it */
} hmpt_order_t;

/* A seed for a new tuning, from the kernel's random source (the time and
 * pid where it fails). */
uint64_t hmpt_order_seed_draw(void);
/* Start the orders of a phase whose all-slow item is ref (items are small
 * non-negative integers, such as configuration indices). */
void hmpt_order_init(hmpt_order_t *o, uint64_t seed, int ref);
/* Orders items[0..n-1] (ref may be among them several times) for the next
 * round, in place, and counts it.  0, or -1 out of memory (items then keep
 * a random order). */
int hmpt_order_round(hmpt_order_t *o, int *items, int n);
void hmpt_order_free(hmpt_order_t *o);

#endif
