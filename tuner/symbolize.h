/* symbolize.h — module!offset frames to functions and source lines (libdw).
 *
 * Contract: one hmpt_sym_t caches one libdw session per module path.
 * hmpt_sym_resolve() expands one frame (a return address, as the shim
 * records it) into its inline chain, innermost first: each entry has the
 * function name (demangled), and the source file and line when debug
 * information exists; the innermost entry also has the line table's column
 * and discriminator (which tell apart the calls of one line), the outer
 * ones the column of their call.  Strings belong to the hmpt_sym_t.  A
 * missing file or missing debug information is not an error: names fall
 * back to the symbol table, then to "??".
 */
#ifndef HMPT_TUNER_SYMBOLIZE_H
#define HMPT_TUNER_SYMBOLIZE_H

#include <stdint.h>

typedef struct hmpt_sym hmpt_sym_t;

typedef struct {
	const char *function; /* "??" when unknown */
	const char *file;     /* NULL when unknown */
	int line;
	int column;             /* 0 when unknown */
	unsigned discriminator; /* 0: none (DWARF's default) */
} hmpt_sym_frame_t;

hmpt_sym_t *hmpt_sym_new(void);
void hmpt_sym_free(hmpt_sym_t *s);
/* Fills up to `max` entries; returns how many (>= 1 when max >= 1). */
int hmpt_sym_resolve(hmpt_sym_t *s, const char *module_path, uint64_t offset, hmpt_sym_frame_t *out,
                     int max);
/* A slot for one cache derived from the session (sitesym.c's per-profile
 * table), freed with it by `release`: the address of the slot's pointer. */
void **hmpt_sym_slot(hmpt_sym_t *s, void (*release)(void *));

#endif
