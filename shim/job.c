/* job.c — see job.h. */
#include "job.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "lockrank.h"
#include "log.h"
#include "sys.h"

hmpt_job_t hmpt_job_g = {.rank = -1, .size = -1, .local_rank = -1, .local_size = -1};

/* ------------------------------------------------------------- detection */

/* One family of launchers: where each figure is, and what names the job. */
typedef struct {
	const char *rank, *size, *local_rank, *local_size, *key, *key2;
} family_t;

/* Most specific first: a rank started by mpirun inside a Slurm job also
 * carries the batch step's SLURM_PROCID. */
static const family_t families_g[] = {
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE"},
    {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "PMI_KVSNAME", NULL},
    {"MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK",
     "MV2_COMM_WORLD_LOCAL_SIZE", NULL, NULL},
    {"PALS_RANKID", NULL, "PALS_LOCAL_RANKID", NULL, "PALS_APID", NULL},
    {"PMIX_RANK", NULL, NULL, NULL, "PMIX_NAMESPACE", NULL},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", NULL, "SLURM_JOB_ID", "SLURM_STEP_ID"},
};

static const char *env_get(char *const *env, const char *name)
{
	size_t n;

	if (!name || !env)
		return NULL;
	n = strlen(name);
	for (; *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/* a non-negative decimal int, or -1 */
static int env_int(char *const *env, const char *name)
{
	const char *v = env_get(env, name);
	long x = 0;

	if (!v || !*v)
		return -1;
	for (; *v; v++) {
		if (*v < '0' || *v > '9' || x > 100000000)
			return -1;
		x = x * 10 + (*v - '0');
	}
	return (int)x;
}

static void key_add(hmpt_fmt_t *f, const char *s)
{
	hmpt_fmt_printf(f, "%s%s", f->len ? "." : "", s);
}

/* the start time of a process (clock ticks since boot), 0 if unknown */
static uint64_t start_ticks(pid_t pid)
{
	char path[64], buf[1024];
	ssize_t n;

	n = hmpt_sys_read_file(hmpt_fmt_text(path, sizeof(path), "/proc/%d/stat", (int)pid), buf,
	                       sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	const char *p = strrchr(buf, ')'); /* the name may hold spaces */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	uint64_t v = 0;
	for (p = p ? p + 1 : ""; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

void hmpt_job_detect(char *const *env, hmpt_job_t *job)
{
	hmpt_fmt_t f;

	*job = (hmpt_job_t){.rank = -1, .size = -1, .local_rank = -1, .local_size = -1};
	/* "8", or "8,4" for nested teams: the outer team */
	const char *omp = env_get(env, "OMP_NUM_THREADS");
	job->threads = -1;
	for (; omp && *omp >= '0' && *omp <= '9' && job->threads < 100000; omp++)
		job->threads = (job->threads < 0 ? 0 : job->threads * 10) + (*omp - '0');
	for (size_t i = 0; i < sizeof(families_g) / sizeof(families_g[0]); i++) {
		const family_t *fam = &families_g[i];
		int rank = env_int(env, fam->rank);
		if (rank < 0)
			continue;
		job->rank = rank;
		job->rank_var = fam->rank;
		job->size = env_int(env, fam->size);
		job->local_rank = env_int(env, fam->local_rank);
		job->local_size = env_int(env, fam->local_size);
		hmpt_fmt_init(&f, job->key, sizeof(job->key), -1);
		const char *user = env_get(env, "HMPT_JOB_ID");
		const char *k1 = env_get(env, fam->key), *k2 = env_get(env, fam->key2);
		if (user && *user) {
			key_add(&f, user);
		} else if (k1 && *k1) {
			key_add(&f, fam->key);
			key_add(&f, k1);
			if (k2 && *k2)
				key_add(&f, k2);
		} else {
			/* Hydra names no job in the environment: the ranks of a job on
			 * a node are children of one proxy (its pid and start time) */
			pid_t pp = getppid();
			key_add(&f, "parent.");
			hmpt_fmt_printf(&f, "%d.%" PRIu64, (int)pp, start_ticks(pp));
		}
		hmpt_fmt_cstr(&f);
		return;
	}
}

bool hmpt_job_is_launcher(const char *exe)
{
	static const char *const names[] = {
	    "mpirun",       "mpiexec",       "orterun",        "orted",
	    "prterun",      "prte",          "prted",          "srun",
	    "salloc",       "sbatch",        "mpiexec.hydra",  "hydra_pmi_proxy",
	    "mpirun.mpich", "mpiexec.mpich", "mpirun.openmpi", "mpiexec.openmpi"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(exe, names[i]) == 0)
			return true;
	return false;
}

/* ------------------------------------------------------- the node's segment */

#define SEG_MAGIC   0x686d70746a6f6202ull /* "hmptjob" 2: the family; the layout is .version */
#define SEG_VERSION 3
#define SEG_PIDS    512
#define SEG_SAID    256
#define SEG_SITES   8192 /* plan sites whose matches the ranks share */
/* Bounded waits (elapsed time): for the rank that creates the segment to
 * set it up, and for its lock.  Past them this rank goes alone: nothing
 * waits forever on another process. */
#define SEG_READY_MS 2000
#define SEG_LOCK_S   3

typedef struct {
	uint64_t allocations, bytes, refused, refused_bytes;
} seg_pool_t;

typedef struct {
	uint64_t magic;
	uint32_t init;    /* 0: being set up, 2: ready */
	uint32_t version; /* SEG_VERSION */
	pthread_mutex_t lock;
	/* the layout, checked by every rank that attaches */
	uint32_t size, npids, nsaid, nsites, npools, nnodes;
	/* below: under the lock */
	int32_t pids[SEG_PIDS]; /* the processes attached now */
	uint32_t ranks_seen;
	uint64_t plan_hash;
	bool shared; /* accounts set by the first rank that resolved its pools */
	hmpt_pool_accounts_t acc;
	seg_pool_t pools[HMPT_PLAN_MAX_POOLS];
	uint64_t said[SEG_SAID]; /* hashes of the warnings said, 0: free */
	/* the plan's sites (stale.h): what the ranks holding it matched */
	uint64_t sites_hash; /* 0: no rank holds a plan yet */
	uint32_t sites_n;
	bool sites_decided;
	bool holder[SEG_PIDS]; /* pids[i] holds the plan */
	uint64_t matched[SEG_SITES / 64], relevant[SEG_SITES / 64];
} seg_t;

static seg_t *seg_g;
static char seg_path_g[128];
static dev_t seg_dev_g; /* the file attached, whose name seg_path_g was */
static ino_t seg_ino_g;
static pid_t attach_pid_g;
static int left_g, alone_g;
static bool stuck_g; /* the lock timed out once: this rank no longer waits for it */
static const hmpt_plan_t *plan_g;
static hmpt_pools_t *pools_g;
static char prefix_g[40];
static bool sites_joined_g;

static bool alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

static void say_alone(const char *why, int err)
{
	if (!hmpt_log_first(&alone_g))
		return;
	hmpt_log_printf(HMPT_LOG_WARN,
	                "cannot share with the job's other ranks on this node (%s %s%s%s): this "
	                "rank's fast-pool budget is its own",
	                why, seg_path_g, err ? ": " : "", err ? strerrordesc_np(err) : "");
}

/* 0, or -errno when the lock could not be had within SEG_LOCK_S (a process
 * holds it and does not let go: stopped, or not a rank at all); then this
 * rank never waits for it again. */
static int seg_lock(void)
{
	struct timespec until;
	int rc;

	if (__atomic_load_n(&stuck_g, __ATOMIC_ACQUIRE))
		return -ETIMEDOUT;
	rc = hmpt_lock_try(&seg_g->lock, HMPT_LOCK_JOB); /* uncontended: no clock read */
	if (rc == EBUSY) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += SEG_LOCK_S;
		rc = hmpt_lock_timed(&seg_g->lock, HMPT_LOCK_JOB, &until);
	}
	if (rc == EOWNERDEAD) /* a rank died holding it: what it guards is counters */
		rc = pthread_mutex_consistent(&seg_g->lock);
	if (rc) {
		__atomic_store_n(&stuck_g, true, __ATOMIC_RELEASE);
		char why[64];
		say_alone(
		    rc == ETIMEDOUT
		        ? hmpt_fmt_text(why, sizeof(why),
		                        "its lock held by another process for %d s:", SEG_LOCK_S)
		        : "its lock:",
		    rc == ETIMEDOUT ? 0 : rc);
	}
	return -rc;
}

static void seg_unlock(void)
{
	hmpt_lock_drop(&seg_g->lock);
}

/* The segment was attached by this process (not by the parent of a fork). */
static bool attached_here(void)
{
	return seg_g && getpid() == attach_pid_g;
}

/* The attached segment, usable by this process. */
static bool attached(void)
{
	return attached_here() && !__atomic_load_n(&stuck_g, __ATOMIC_ACQUIRE);
}

/* Remove the path if it still names the file (dev, ino): another rank may
 * have replaced it already. */
static void seg_unlink_if(dev_t dev, ino_t ino)
{
	struct stat now;

	if (lstat(seg_path_g, &now) == 0 && now.st_dev == dev && now.st_ino == ino)
		unlink(seg_path_g);
}

/* Why a file found at the path is not ours to use, or NULL: another user
 * may have made it first (the path is predictable), mode 0666, with a lock
 * held forever or counters of their choosing.  Its mode counts once it is
 * sized: its maker's umask may take bits of 0600 until it fchmods it,
 * before ftruncate. */
static const char *seg_foreign(const struct stat *st, char *buf, size_t cap)
{
	if (!S_ISREG(st->st_mode))
		return "not a regular file:";
	if (st->st_uid != geteuid())
		return hmpt_fmt_text(buf, cap,
		                     "a file of uid %u, not this user's:", (unsigned)st->st_uid);
	if (st->st_size != 0 && (st->st_mode & 07777) != 0600)
		return hmpt_fmt_text(
		    buf, cap, "a file of mode %04o, not 0600:", (unsigned)(st->st_mode & 07777));
	if (st->st_nlink != 1)
		return hmpt_fmt_text(buf, cap,
		                     "a file of %u links, not 1:", (unsigned)st->st_nlink);
	return NULL;
}

/* Why the mapped segment's header is not this version's, or NULL. */
static const char *seg_invalid(const seg_t *s)
{
	if (s->magic != SEG_MAGIC)
		return "not an hmpt segment:";
	if (s->version != SEG_VERSION || s->size != sizeof(seg_t) || s->npids != SEG_PIDS ||
	    s->nsaid != SEG_SAID || s->nsites != SEG_SITES || s->npools != HMPT_PLAN_MAX_POOLS ||
	    s->nnodes != HMPT_MAX_NODES)
		return "a segment of another hmpt version:";
	return NULL;
}

/* This rank made the file (O_EXCL): set it up, then say it is ready.  Its
 * flock, until seg_open closes the file, tells the other ranks that its
 * maker lives (seg_maker_gone). */
static seg_t *seg_setup(int fd)
{
	flock(fd, LOCK_EX | LOCK_NB); /* none can hold it yet but a stopped maker's reader */
	/* the umask may have taken bits of 0600; the other ranks check them */
	if (fchmod(fd, 0600) != 0 || ftruncate(fd, sizeof(seg_t)) != 0) {
		say_alone("setting up", errno);
		return NULL;
	}
	seg_t *s = mmap(NULL, sizeof(seg_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED) {
		say_alone("mmap", errno);
		return NULL;
	}
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&s->lock, &a);
	pthread_mutexattr_destroy(&a);
	s->magic = SEG_MAGIC;
	s->version = SEG_VERSION;
	s->size = sizeof(seg_t);
	s->npids = SEG_PIDS;
	s->nsaid = SEG_SAID;
	s->nsites = SEG_SITES;
	s->npools = HMPT_PLAN_MAX_POOLS;
	s->nnodes = HMPT_MAX_NODES;
	__atomic_store_n(&s->init, 2, __ATOMIC_RELEASE);
	return s;
}

static void nap_ms(void)
{
	struct timespec ms = {0, 1000000};
	nanosleep(&ms, NULL);
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Open the file another rank made.  Without privileges its maker's umask
 * may deny the open until it fchmods it (before sizing it): while it is
 * this user's, single and empty, try again until `until`.  fd or -errno. */
static int seg_open_made(int64_t until)
{
	for (;;) {
		/* the clock before the look: a rank stopped meanwhile looks again */
		bool late = now_ms() >= until;
		/* O_NONBLOCK: a FIFO planted there must not block the open */
		int fd = open(seg_path_g, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
		int err = errno;
		struct stat st;
		char why[96];
		if (fd >= 0 || err != EACCES || late || lstat(seg_path_g, &st) != 0 ||
		    st.st_size != 0 || seg_foreign(&st, why, sizeof(why)))
			return fd >= 0 ? fd : -err;
		nap_ms();
	}
}

/* Another rank made the file: use it once it is ours, set up and of this
 * version.  -EAGAIN when it is ours but did not become ready by `until`, or
 * when it was removed meanwhile: see seg_maker_gone, open the path again. */
static int seg_attach(int fd, int64_t until, seg_t **out)
{
	struct stat st;
	char why[96];
	const char *bad;

	for (;;) {
		bool late = now_ms() >= until; /* the clock before the look, as above */
		if (fstat(fd, &st) != 0) {
			say_alone("fstat", errno);
			return -1;
		}
		if (st.st_nlink == 0)
			return -EAGAIN; /* removed meanwhile, as stale or by its last rank */
		if ((bad = seg_foreign(&st, why, sizeof(why)))) {
			say_alone(bad, 0);
			return -1;
		}
		if (st.st_size != 0 || late)
			break;
		nap_ms(); /* its maker has not sized it yet */
	}
	if (st.st_size == 0)
		return -EAGAIN;
	if (st.st_size != (off_t)sizeof(seg_t)) {
		say_alone("a segment of another size (another hmpt version?):", 0);
		return -1;
	}
	seg_t *s = mmap(NULL, sizeof(seg_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED) {
		say_alone("mmap", errno);
		return -1;
	}
	for (;;) {
		bool late = now_ms() >= until;
		if (__atomic_load_n(&s->init, __ATOMIC_ACQUIRE) == 2 || late)
			break;
		nap_ms();
	}
	if (__atomic_load_n(&s->init, __ATOMIC_ACQUIRE) != 2) {
		munmap(s, sizeof(seg_t));
		return -EAGAIN;
	}
	if ((bad = seg_invalid(s))) {
		munmap(s, sizeof(seg_t));
		say_alone(bad, 0);
		return -1;
	}
	*out = s;
	return 0;
}

/* A segment not ready in time: false while its maker holds its flock (alive,
 * stopped or slow: its file stays, else the job would split across two
 * segments).  Else, when still not set up (its maker died setting it up: a
 * crashed earlier job), the path is removed if it still names that file;
 * true: open the path again. */
static bool seg_maker_gone(int fd)
{
	struct stat st;
	uint32_t init = 0;

	if (flock(fd, LOCK_SH | LOCK_NB) != 0)
		return errno != EWOULDBLOCK;
	if (fstat(fd, &st) == 0 &&
	    (st.st_size != (off_t)sizeof(seg_t) ||
	     pread(fd, &init, sizeof(init), offsetof(seg_t, init)) != sizeof(init) || init != 2))
		seg_unlink_if(st.st_dev, st.st_ino);
	return true; /* the lock goes with the fd */
}

/* The file attached: what seg_unlink_if removes when this rank leaves last. */
static void seg_remember(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0) {
		seg_dev_g = st.st_dev;
		seg_ino_g = st.st_ino;
	}
}

/* The node's segment: made here (O_EXCL) or, when another rank made it
 * first, used only if it is this user's own file and valid. */
static int seg_open(void)
{
	seg_t *s = NULL;

	hmpt_fmt_text(seg_path_g, sizeof(seg_path_g), "/dev/shm/hmpt.%u.%016" PRIx64,
	              (unsigned)getuid(),
	              hmpt_hash_bytes(HMPT_HASH_SEED, hmpt_job_g.key, strlen(hmpt_job_g.key)));
	for (int tries = 0; tries < 3 && !s; tries++) {
		int fd = open(seg_path_g, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd >= 0) {
			s = seg_setup(fd);
			if (!s)
				unlink(seg_path_g); /* nobody could use it */
			if (s)
				seg_remember(fd);
			close(fd);
			return s ? (seg_g = s, 0) : -1;
		}
		if (errno != EEXIST) {
			say_alone("open", errno);
			return -1;
		}
		int64_t until = now_ms() + SEG_READY_MS;
		fd = seg_open_made(until);
		if (fd < 0) {
			if (fd == -ENOENT)
				continue; /* its last rank just removed it */
			say_alone(fd == -ELOOP ? "a symbolic link at" : "open", -fd);
			return -1;
		}
		int rc = seg_attach(fd, until, &s);
		bool gone = rc != -EAGAIN || seg_maker_gone(fd);
		if (s)
			seg_remember(fd);
		close(fd);
		if (rc == -1)
			return -1;
		if (!gone) {
			say_alone("a segment that its maker, alive, has not finished setting up:",
			          0);
			return -1;
		}
	}
	if (!s) {
		say_alone("a segment that another process never finished setting up:", 0);
		return -1;
	}
	seg_g = s;
	return 0;
}

/* Under the lock: join the attached processes.  A segment left by a job
 * whose processes all died (killed, crashed) starts afresh. */
static void seg_join(void)
{
	int slot = -1, others = 0;

	for (int i = 0; i < SEG_PIDS; i++) {
		if (seg_g->pids[i] && alive(seg_g->pids[i]) && seg_g->pids[i] != getpid())
			others++;
		else if (slot < 0)
			slot = i;
	}
	if (!others) {
		size_t from = offsetof(seg_t, pids);
		memset((char *)seg_g + from, 0, sizeof(seg_t) - from);
		slot = 0;
	}
	if (slot >= 0) {
		seg_g->pids[slot] = (int32_t)getpid();
		seg_g->holder[slot] = false; /* a dead rank's flag */
	}
	seg_g->ranks_seen++;
}

void hmpt_job_init(char *const *env, const char *ranks)
{
	hmpt_job_detect(env, &hmpt_job_g);
	if (hmpt_job_g.rank < 0)
		return;
	hmpt_job_g.all_say = ranks && strcmp(ranks, "all") == 0;
	hmpt_log_prefix_g =
	    hmpt_fmt_text(prefix_g, sizeof(prefix_g), "hmpt[rank %d]: ", hmpt_job_g.rank);
	hmpt_log_filter_g = hmpt_job_log_filter;
	if (ranks && strcmp(ranks, "all") != 0 && strcmp(ranks, "one") != 0)
		hmpt_log_printf(HMPT_LOG_WARN, "HMPT_RANKS=%s: expected one or all; taking one",
		                ranks);
	if (seg_open() != 0)
		return;
	attach_pid_g = getpid();
	if (seg_lock() != 0) {
		munmap(seg_g, sizeof(seg_t));
		seg_g = NULL;
		return;
	}
	seg_join();
	seg_unlock();
}

void hmpt_job_share_pools(hmpt_pools_t *pools, const hmpt_plan_t *plan, uint64_t plan_hash)
{
	plan_g = plan;
	pools_g = pools;
	if (!attached() || seg_lock() != 0)
		return;
	if (seg_g->plan_hash && seg_g->plan_hash != plan_hash) {
		seg_unlock();
		say_alone("another plan in the job's other ranks:", 0);
		return;
	}
	seg_g->plan_hash = plan_hash;
	seg_unlock();
	/* the pools' callbacks around the shared accounts (under the pools'
	 * own lock): once the lock timed out seg_lock fails at once, and the
	 * pools go back to accounts of their own (pool.c): no write without it */
	hmpt_pools_share(pools_g, &seg_g->acc, &seg_g->shared, seg_lock, seg_unlock);
}

bool hmpt_job_log_filter(int level, const char *msg, unsigned len)
{
	if (hmpt_job_g.all_say || hmpt_job_g.rank < 0)
		return true;
	if (level > HMPT_LOG_WARN) /* what was set up: the job's first rank says it */
		return hmpt_job_g.rank == 0;
	if (!seg_g || __atomic_load_n(&stuck_g, __ATOMIC_ACQUIRE))
		return true; /* no segment to share what was said: each rank says its own */
	uint64_t h = hmpt_hash_bytes(HMPT_HASH_SEED, msg, len) | 1;
	for (int i = 0; i < SEG_SAID; i++) {
		uint64_t expected = 0;
		uint64_t *slot = &seg_g->said[(h + (uint64_t)i) % SEG_SAID];
		if (__atomic_compare_exchange_n(slot, &expected, h, false, __ATOMIC_ACQ_REL,
		                                __ATOMIC_ACQUIRE))
			return true; /* the first to say it */
		if (expected == h)
			return false;
	}
	return true; /* the table is full: better said twice than lost */
}

/* "hmpt: job summary, 4 ranks on vm: thp 8 allocations, 256.0 MiB (peak
 *  256.0 MiB); 4k 0 allocations; 2 refused (64.0 MiB) went to system" */
static void say_summary(const seg_t *s, bool refused)
{
	char buf[2048];
	hmpt_fmt_t f;
	struct utsname u;
	/* the summary is the job's: no rank's prefix, never filtered */
	hmpt_log_begin_plain(&f, buf, sizeof(buf));
	hmpt_fmt_printf(&f, "job summary, %" PRIu64 " rank%s on %s:", (uint64_t)s->ranks_seen,
	                s->ranks_seen == 1 ? "" : "s", uname(&u) == 0 ? u.nodename : "this node");
	for (int i = 0; i < plan_g->npools; i++) {
		const seg_pool_t *p = &s->pools[i];
		hmpt_fmt_printf(&f, "%s%s %" PRIu64 " allocation%s, %s (node peak %s)",
		                i ? "; " : " ", plan_g->pools[i].name, p->allocations,
		                p->allocations == 1 ? "" : "s", HMPT_SIZE(p->bytes),
		                HMPT_SIZE(s->acc.pool_peak[i]));
		if (p->refused)
			hmpt_fmt_printf(&f, ", %" PRIu64 " refused (%s) went to %s", p->refused,
			                HMPT_SIZE(p->refused_bytes),
			                hmpt_plan_pool_name(plan_g, plan_g->pools[i].fallback));
	}
	hmpt_log_end_unfiltered(&f, refused ? HMPT_LOG_WARN : HMPT_LOG_INFO);
}

/* Under the lock: this process's slot in pids, or -1. */
static int own_slot(void)
{
	for (int i = 0; i < SEG_PIDS; i++)
		if (seg_g->pids[i] == (int32_t)getpid())
			return i;
	return -1;
}

void hmpt_job_plan_join(uint64_t sites_hash, uint32_t nsites)
{
	if (!attached() || hmpt_job_g.all_say || nsites > SEG_SITES || seg_lock() != 0)
		return;
	int slot = own_slot();
	if (slot >= 0 && (!seg_g->sites_hash || seg_g->sites_hash == (sites_hash | 1))) {
		seg_g->sites_hash = sites_hash | 1;
		seg_g->sites_n = nsites;
		seg_g->holder[slot] = true;
		sites_joined_g = true;
	}
	seg_unlock();
}

hmpt_job_say_t hmpt_job_plan_leave(uint8_t *matched, uint8_t *relevant, uint32_t n, bool *decided)
{
	bool last = true;

	/* n bounds the walks of the segment's bit sets below */
	if (!sites_joined_g || !attached() || n > SEG_SITES || seg_lock() != 0)
		return HMPT_JOB_SAY_OWN;
	if (n != seg_g->sites_n) {
		seg_unlock();
		return HMPT_JOB_SAY_OWN;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (matched[i])
			seg_g->matched[i / 64] |= 1ull << (i % 64);
		if (relevant[i])
			seg_g->relevant[i / 64] |= 1ull << (i % 64);
	}
	seg_g->sites_decided |= *decided;
	int slot = own_slot();
	if (slot >= 0)
		seg_g->holder[slot] = false;
	for (int i = 0; i < SEG_PIDS; i++)
		if (seg_g->holder[i] && seg_g->pids[i] != (int32_t)getpid() &&
		    alive(seg_g->pids[i]))
			last = false;
	if (last) {
		for (uint32_t i = 0; i < n; i++) {
			matched[i] = (seg_g->matched[i / 64] >> (i % 64)) & 1;
			relevant[i] = (seg_g->relevant[i / 64] >> (i % 64)) & 1;
		}
		*decided = seg_g->sites_decided;
		/* a rank that reads the plan after this starts afresh */
		seg_g->sites_hash = 0;
		seg_g->sites_decided = false;
		memset(seg_g->matched, 0, sizeof(seg_g->matched));
		memset(seg_g->relevant, 0, sizeof(seg_g->relevant));
	}
	seg_unlock();
	return last ? HMPT_JOB_SAY_NODE : HMPT_JOB_SAY_NONE;
}

/* This rank gave up on the lock: it takes its pid out without it, and the
 * last attached process out removes the path (the next job starts afresh).
 * What this rank placed stays counted in the node's accounts. */
static void seg_leave_alone(void)
{
	bool last = true;

	for (int i = 0; i < SEG_PIDS; i++)
		if (__atomic_load_n(&seg_g->pids[i], __ATOMIC_SEQ_CST) == (int32_t)getpid())
			__atomic_store_n(&seg_g->pids[i], 0, __ATOMIC_SEQ_CST);
	/* after our slot is cleared: of two leaving at once, one sees the other gone */
	for (int i = 0; i < SEG_PIDS; i++) {
		int32_t pid = __atomic_load_n(&seg_g->pids[i], __ATOMIC_SEQ_CST);
		if (pid && alive(pid))
			last = false;
	}
	if (last)
		seg_unlink_if(seg_dev_g, seg_ino_g);
}

void hmpt_job_leave(void)
{
	bool last = true, refused = false;
	seg_pool_t mine[HMPT_PLAN_MAX_POOLS];

	if (!attached_here() || !hmpt_log_first(&left_g))
		return;
	/* before the job's lock: the pools lock ranks below it (lockrank.h:
	 * pool.c's shared accounts take it first) */
	for (int i = 0; plan_g && i < plan_g->npools; i++) {
		hmpt_pool_stats_t st;
		hmpt_pools_stats(pools_g, i, &st);
		mine[i] = (seg_pool_t){st.allocations, st.bytes, st.refused, st.refused_bytes};
	}
	if (seg_lock() != 0) { /* at once when it timed out before */
		seg_leave_alone();
		return;
	}
	for (int i = 0; plan_g && i < plan_g->npools; i++) {
		seg_g->pools[i].allocations += mine[i].allocations;
		seg_g->pools[i].bytes += mine[i].bytes;
		seg_g->pools[i].refused += mine[i].refused;
		seg_g->pools[i].refused_bytes += mine[i].refused_bytes;
		refused |= seg_g->pools[i].refused != 0;
	}
	for (int i = 0; i < SEG_PIDS; i++) {
		if (seg_g->pids[i] == (int32_t)getpid())
			seg_g->pids[i] = 0;
		else if (seg_g->pids[i] && alive(seg_g->pids[i]))
			last = false;
	}
	if (last) {
		/* the next job with this key starts afresh, even if the file stays */
		seg_unlink_if(seg_dev_g, seg_ino_g);
		if (plan_g && (refused || hmpt_log_level_g >= HMPT_LOG_INFO))
			say_summary(seg_g, refused);
		memset(seg_g->pids, 0, sizeof(seg_g->pids));
	}
	seg_unlock();
}
