/* rebase.h — `hmpt-tune plan rebase`: a plan moved onto a rebuilt program.
 *
 * A rebuild moves every `module!0xoffset`, so a plan's frames name nothing
 * in the new build; its sites' "symbolic" entries (sitesym.h) still name
 * functions, files, lines and which call of a statement.  Each plan site is
 * matched to a site of a profile of the new build by the symbolic entries of
 * their identity frames (siteid.h), frame by frame:
 *   - mapped: the same site id (the same build), or the same function,
 *     file, line and position of as many calls (and variable, where both
 *     name one) at every one; column and discriminator may differ;
 *   - mapped approximately: the same functions and files with lines moved,
 *     calls reordered or another number of calls of a statement tracked
 *     (scored below), or the same function where only one side has a line;
 *   - not found.
 * A frame nothing is known of matches only itself (the same module!offset,
 * e.g. a stripped library that was not rebuilt); a static data object
 * matches the one of the same symbol.  A "stack" site needs as many
 * identity frames in the new site, a "prefix" site at least as many.
 *
 * Contract: the pure parts (compare, assign) print nothing; hmpt_rebase_cmd
 * is the command, its report on standard error.
 */
#ifndef HMPT_TUNER_REBASE_H
#define HMPT_TUNER_REBASE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A candidate's score, compared in this order: exact first, then fewer
 * frames naming another variable, fewer statements with another number of
 * calls, the nearest lines, the nearest positions, fewer frames compared
 * by function alone. */
typedef struct {
	bool same_id;      /* the same site id: the same identity frames, the same build */
	bool exact;        /* same function, file, line and position at every frame */
	int variables;     /* frames where both name the variable, and not the same */
	int shapes;        /* frames whose statement makes another number of calls */
	long lines;        /* how far the lines moved, summed over the frames */
	long positions;    /* how far the positions moved */
	int function_only; /* frames compared by function alone (a line on one side only) */
} hmpt_rebase_score_t;

/* A candidate with the plan site's id (a "stack" site of the same build)
 * wins outright, as exact: positions are ranks among the calls a profile
 * tracked, so symbols alone can mistake one call for another.
 * Does `cand` (a plan site entry of the new profile's site, its whole
 * stack: frames and symbolic) match the plan's site `old`?  0 with *sc
 * filled and `how` saying what moved ("rebuild.c: alloc_grid line 29 ->
 * 32; ..."; "" when nothing did), or -1. */
int hmpt_rebase_compare(const json_t *old, const json_t *cand, hmpt_rebase_score_t *sc, char *how,
                        size_t cap);
/* The number of leading frames of `frames` that hold its first k identity
 * frames: what a "prefix" site of k identity frames keeps of a new stack. */
size_t hmpt_rebase_cut(const json_t *frames, size_t k);
/* The identity frames of a plan site (its "frames"). */
size_t hmpt_rebase_identity(const json_t *site);
/* Give each old site the best candidate, best scores first: match[i] is the
 * index into cands, or -1.  A candidate (as the old site's match cuts it)
 * goes to one old site at most. */
void hmpt_rebase_assign(const json_t *const *olds, size_t nold, const json_t *const *cands,
                        size_t ncand, long *match);

/* hmpt-tune plan rebase ARGS (argv[0] is "rebase"): exit status 0 when every
 * site mapped, 3 when some were not found, 1 on errors.  `usage` is the plan
 * command's, printed for -h (plancmd.c calls this, not the other way). */
int hmpt_rebase_cmd(int argc, char **argv, const char *usage);

#endif
