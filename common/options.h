/* options.h — every HMPT_* environment variable, in one table.
 *
 * Contract: hmpt_options_load() reads a NULL-terminated environment array
 * (the shim passes `environ`, never getenv), fills one value per option and
 * reports each bad or unknown variable once through `report` (a message with
 * no trailing newline, naming the variable, the value and what was
 * expected).  A bad value leaves the default in place.  No allocation: the
 * string values are copied into the caller's `text` (static storage in the
 * shim), not left pointing into the environment, whose strings a program
 * may overwrite (setproctitle zeroes them and writes its title there).  A
 * value longer than HMPT_OPT_TEXT_MAX - 1 bytes is reported as bad.
 *
 * The table is the single source of truth for names, defaults and meanings:
 * `hmpt-tune env` prints it, and a test checks docs/guide.md against it.
 */
#ifndef HMPT_OPTIONS_H
#define HMPT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	HMPT_OPT_TYPE_SIZE,   /* bytes, with optional K/M/G/T (binary) suffix */
	HMPT_OPT_TYPE_UINT,   /* decimal integer in [min, max] */
	HMPT_OPT_TYPE_STRING, /* non-empty text */
} hmpt_opt_type_t;

typedef enum {
	HMPT_OPT_MIN_SIZE,
	HMPT_OPT_PROFILE,
	HMPT_OPT_STACK_DEPTH,
	HMPT_OPT_VERBOSE,
	HMPT_OPT_ARENA_SIZE,
	HMPT_OPT_PLAN,
	HMPT_OPT_STRICT,
	HMPT_OPT_HBM_NODES,
	HMPT_OPT_DDR_NODES,
	HMPT_OPT_SAMPLE,
	HMPT_OPT_SAMPLE_PERIOD,
	HMPT_OPT_SAMPLE_LDLAT,
	HMPT_OPT_RANKS,
	HMPT_OPT_STATIC,
	HMPT_OPT_COUNT
} hmpt_opt_id_t;

typedef struct {
	const char *name;
	hmpt_opt_type_t type;
	uint64_t def;         /* default for numeric options */
	uint64_t min, max;    /* accepted range for numeric options */
	const char *def_text; /* default as shown to people */
	const char *meaning;  /* one sentence */
} hmpt_option_t;

typedef struct {
	uint64_t num;    /* numeric value (default when unset or bad) */
	const char *str; /* string value (in the caller's text), or NULL */
	bool set;        /* the variable was given with a valid value */
} hmpt_opt_value_t;

extern const hmpt_option_t hmpt_options_g[HMPT_OPT_COUNT];

/* one string value's room, with its NUL: a path as long as PATH_MAX */
#define HMPT_OPT_TEXT_MAX 4096

typedef void (*hmpt_opt_report_fn)(const char *msg, void *ctx);

void hmpt_options_load(char *const *envp, hmpt_opt_value_t values[HMPT_OPT_COUNT],
                       char text[HMPT_OPT_COUNT][HMPT_OPT_TEXT_MAX], hmpt_opt_report_fn report,
                       void *ctx);

/* Is this environment entry ("NAME=value") a variable of hmpt's build and
 * test tools (HMPT_TEST_*, HMPT_VM_*, HMPT_SLURM_*, HMPT_DEPS,
 * HMPT_DEPS_KEYS, HMPT_OS_RELEASE)?  hmpt_options_load skips them: they are
 * not the shim's, and not unknown either. */
bool hmpt_options_tool_var(const char *entry);

/* An HMPT_* name no option has, read as a likely misspelling: the known
 * option within HMPT_OPT_NEAR edits (insert, delete, replace, swap two
 * neighbours; case ignored) of the environment entry "NAME=value", the
 * nearest, or -1.  Only those are warned about: other HMPT_* variables
 * (a job script's own HMPT_SRC) are someone else's, and a warning on
 * every process's stderr broke programs that check it (CPython's tests). */
#define HMPT_OPT_NEAR 2
int hmpt_options_nearest(const char *entry);

/* Parse a size ("4096", "64K", "1M", "2G", "1T"; binary multiples).
 * Returns 0, -EINVAL (not a size) or -ERANGE (overflows 64 bits). */
int hmpt_options_parse_size(const char *s, uint64_t *out);

/* Parse a decimal unsigned integer; 0, -EINVAL or -ERANGE. */
int hmpt_options_parse_uint(const char *s, uint64_t *out);

#endif
