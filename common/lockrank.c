/* lockrank.c — the lock-order check of the sanitizer builds (lockrank.h).
 * The release build has nothing here: the calls are inline pthread calls. */
#include "lockrank.h"

#ifdef HMPT_LOCK_RANKS

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "fmt.h"

/* fork's prepare holds 9 at once; a thread at run time, 4 at most */
#define HELD_MAX 24

typedef struct {
	const pthread_mutex_t *m;
	int rank;
} held_t;

/* this thread's locks, in the order taken; initial-exec TLS in the shim:
 * no allocation on first use */
static __thread held_t held_tl[HELD_MAX];
static __thread int nheld_tl;

typedef struct {
	int rank;
	const char *what, *file;
} row_t;

#define HMPT_LOCK_ROW_(name, rank, what, file) {rank, what, file},
static const row_t rows_g[] = {HMPT_LOCK_LIST(HMPT_LOCK_ROW_)};
#undef HMPT_LOCK_ROW_

static const row_t *row_of(int rank)
{
	for (size_t i = 0; i < sizeof(rows_g) / sizeof(rows_g[0]); i++)
		if (rows_g[i].rank == rank)
			return &rows_g[i];
	return NULL;
}

const char *hmpt_lock_name(int rank)
{
	const row_t *r = row_of(rank);

	return r ? r->what : "an unranked lock";
}

const char *hmpt_lock_file(int rank)
{
	const row_t *r = row_of(rank);

	return r ? r->file : "?";
}

/* "the arena lock (shim/arena.c, rank 50)" */
static void put_lock(hmpt_fmt_t *f, int rank)
{
	hmpt_fmt_str(f, hmpt_lock_name(rank));
	hmpt_fmt_str(f, " (");
	hmpt_fmt_str(f, hmpt_lock_file(rank));
	hmpt_fmt_str(f, ", rank ");
	hmpt_fmt_i64(f, rank);
	hmpt_fmt_char(f, ')');
}

/* One line on stderr, then abort: the program stops where the order broke
 * (a core or a debugger has the stack). */
__attribute__((noreturn)) static void die(const char *what, int rank, int held_rank)
{
	char buf[320];
	hmpt_fmt_t f;

	hmpt_fmt_init(&f, buf, sizeof(buf), 2);
	hmpt_fmt_str(&f, "hmpt: lock order: ");
	hmpt_fmt_str(&f, what);
	hmpt_fmt_char(&f, ' ');
	put_lock(&f, rank);
	if (held_rank >= 0) {
		hmpt_fmt_str(&f, " while holding ");
		put_lock(&f, held_rank);
	}
	hmpt_fmt_str(&f, "; see common/lockrank.h\n");
	hmpt_fmt_flush(&f);
	abort();
}

static void push(const pthread_mutex_t *m, int rank)
{
	if (nheld_tl == HELD_MAX)
		die("too many locks held to take", rank, -1);
	held_tl[nheld_tl++] = (held_t){m, rank};
}

/* the entry of m, from the newest: dropped in any order */
static void forget(const pthread_mutex_t *m)
{
	for (int i = nheld_tl - 1; i >= 0; i--) {
		if (held_tl[i].m == m) {
			for (int j = i; j + 1 < nheld_tl; j++)
				held_tl[j] = held_tl[j + 1];
			nheld_tl--;
			return;
		}
	}
}

void hmpt_lock_take(pthread_mutex_t *m, int rank)
{
	int worst = -1;

	/* the held lock of the highest rank: none may be at or above this one */
	for (int i = 0; i < nheld_tl; i++)
		if (held_tl[i].rank >= rank && held_tl[i].rank > worst)
			worst = held_tl[i].rank;
	if (worst >= 0)
		die("took", rank, worst);
	pthread_mutex_lock(m);
	push(m, rank);
}

int hmpt_lock_try(pthread_mutex_t *m, int rank)
{
	int rc = pthread_mutex_trylock(m);

	if (rc == 0)
		push(m, rank);
	return rc;
}

int hmpt_lock_timed(pthread_mutex_t *m, int rank, const struct timespec *until)
{
	int rc = pthread_mutex_clocklock(m, CLOCK_MONOTONIC, until);

	if (rc == 0 || rc == EOWNERDEAD)
		push(m, rank);
	return rc;
}

void hmpt_lock_drop(pthread_mutex_t *m)
{
	forget(m);
	pthread_mutex_unlock(m);
}

void hmpt_lock_reset(pthread_mutex_t *m)
{
	forget(m);
	pthread_mutex_init(m, NULL);
}

#endif
