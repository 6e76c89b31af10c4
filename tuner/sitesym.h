/* sitesym.h — the symbolic frames of a profile's sites: for plans (their
 * "symbolic" entries), for `hmpt-tune plan rebase`, and for people.
 *
 * Each identity frame (siteid.h) gets its innermost source position
 * (symbolize.h), and which of the allocation calls of one statement it is.
 * Why the whole profile at once: the arrays of one statement (Fortran's
 * `allocate(u(n), v(n), r(n))`, C's `u = malloc(n), v = malloc(n)`) are
 * sites with the same function, file and line; only the order of their
 * calls tells them apart.  A frame's `position` is the rank (1-based) of its
 * offset among the sites of the profile whose earlier frames are the same
 * and whose frame has the same inline chain of functions, files and lines;
 * `positions` is how many such offsets there are.  Its `variable` is read
 * from the source line DWARF names, where that line names one variable per
 * call (hmpt_sitesym_variable).
 *
 * Contract: the table is built on first use for `prof` and kept in the
 * hmpt_sym_t session, which holds a reference to `prof` until it is given
 * another profile or freed.  Strings belong to the session.
 */
#ifndef HMPT_TUNER_SITESYM_H
#define HMPT_TUNER_SITESYM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "symbolize.h"

typedef struct {
	bool known;               /* false: a runtime frame, or nothing known (null) */
	const char *function;     /* innermost, demangled; NULL for static data */
	const char *file;         /* as DWARF names it (a path); NULL when unknown */
	int line, column;         /* 0 when unknown */
	unsigned discriminator;   /* 0: none */
	const char *inlined_into; /* the physical function when the innermost is inlined */
	int position, positions;  /* 1 of 1 unless one statement makes several calls */
	const char *variable;     /* the allocated variable (static data: its symbol) */
} hmpt_symframe_t;

/* Frame k of `site` (an element of prof's "sites"); NULL when there is no
 * frame k or the site is not prof's. */
const hmpt_symframe_t *hmpt_sitesym_frame(hmpt_sym_t *sym, const json_t *prof, const json_t *site,
                                          size_t k);
/* A plan's "symbolic" array for the first n frames of `site`: null for
 * runtime frames and frames nothing is known of. */
json_t *hmpt_sitesym_json(hmpt_sym_t *sym, const json_t *prof, const json_t *site, size_t n);
/* "v: 2nd of 3"; "2nd of 3" without a variable; "" for 1 of 1. */
void hmpt_sitesym_ordinal(char *buf, size_t cap, int position, int positions, const char *variable);
/* The position-th of `positions` variables that the source `line`
 * allocates, into out: a Fortran `allocate(a(..), b(..), ...)` with exactly
 * `positions` items (stat= and the like are not items), or a C/C++ line with
 * exactly `positions` assignments `NAME = malloc/calloc/realloc...(` or
 * `NAME = new ...`.  0, or -1 when the line does not say. */
int hmpt_sitesym_variable(const char *line, int position, int positions, char *out, size_t cap);

#endif
