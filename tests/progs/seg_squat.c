/* seg_squat.c — another user's file where a job's node segment goes
 * (shim/job.c), for t_job_segment.
 *
 * Usage:
 *   seg_squat path UID KEY        print the segment's path for that user and
 *                                 job key, derived as job.c derives it
 *   seg_squat plant PATH MODE held|free [BYTES]
 *                                 make PATH (O_EXCL) of MODE (octal), BYTES
 *                                 (the segment's size; 1 MiB by default),
 *                                 set up like the shim sets up a segment:
 *                                 magic, version, "ready" and a robust
 *                                 process-shared mutex; "held": lock it,
 *                                 print "holding", and sleep until killed;
 *                                 "free": exit at once.
 *   seg_squat making PATH MODE    a maker stopped setting its segment up:
 *                                 make PATH (O_EXCL) of MODE, empty, hold
 *                                 its flock (as job.c's maker does), print
 *                                 "holding its flock", and sleep until killed
 *   seg_squat hold PATH           a process that takes the lock of the
 *                                 segment at PATH and keeps it: prints
 *                                 "holding", then at a line (or the end) of
 *                                 stdin "unchanged" or "changed at byte N"
 *                                 (the file past the mutex since the lock
 *                                 was taken), and
 *                                 exits with the lock held
 *   seg_squat rank MIB            a rank, run under the shim: a block of MIB
 *                                 MiB, "ready"; at a line of stdin it frees
 *                                 it and allocates and frees one of twice
 *                                 that, "done"; at the next line, exit 0
 * The header mirrors job.c's seg_t (magic, init, version, the mutex, then
 * the layout's counts); the rest stays zero.  Exit 0, or 1 with a message. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/hash.h"

typedef struct {
	uint64_t magic;
	uint32_t init, version;
	pthread_mutex_t lock;
	uint32_t size, npids, nsaid, nsites, npools, nnodes;
} header_t;

static int die(const char *what)
{
	perror(what);
	return 1;
}

static int plant(const char *path, mode_t mode, int held, size_t bytes)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return die(path);
	if (fchmod(fd, mode) != 0 || ftruncate(fd, (off_t)bytes) != 0)
		return die("fchmod/ftruncate");
	header_t *h = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return die("mmap");
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&h->lock, &a);
	h->magic = 0x686d70746a6f6202ull;
	h->version = 3;
	h->size = (uint32_t)bytes;
	h->npids = 512;
	h->nsaid = 256;
	h->nsites = 8192;
	h->npools = 32;  /* HMPT_PLAN_MAX_POOLS */
	h->nnodes = 128; /* HMPT_MAX_NODES */
	__atomic_store_n(&h->init, 2, __ATOMIC_RELEASE);
	if (!held)
		return 0;
	if (pthread_mutex_lock(&h->lock) != 0)
		return die("lock");
	printf("holding\n");
	fflush(stdout);
	for (;;)
		pause();
}

static int making(const char *path, mode_t mode)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return die(path);
	if (flock(fd, LOCK_EX) != 0 || fchmod(fd, mode) != 0)
		return die("flock/fchmod");
	printf("holding its flock\n");
	fflush(stdout);
	for (;;)
		pause();
}

static int hold(const char *path)
{
	char line[64];
	struct stat st;
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0)
		return die(path);
	size_t n = (size_t)st.st_size;
	header_t *h = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *before = malloc(n);
	if (h == MAP_FAILED || !before)
		return die("mmap");
	if (pthread_mutex_lock(&h->lock) != 0)
		return die("lock");
	memcpy(before, h, n);
	printf("holding\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	/* past the mutex, whose word a waiter marks */
	for (size_t i = offsetof(header_t, size); i < n; i++)
		if (((char *)h)[i] != before[i]) {
			printf("changed at byte %zu\n", i);
			return 0;
		}
	printf("unchanged\n");
	return 0;
}

static int rank(size_t mib)
{
	char line[64];
	char *a = malloc(mib << 20);
	if (!a)
		return die("malloc");
	memset(a, 1, mib << 20);
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	free(a);
	char *b = malloc(mib << 21);
	if (!b)
		return die("malloc");
	memset(b, 2, mib << 21);
	free(b);
	printf("done\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "path") == 0) {
		const char *key = argv[3];
		printf("/dev/shm/hmpt.%s.%016" PRIx64 "\n", argv[2],
		       hmpt_hash_bytes(HMPT_HASH_SEED, key, strlen(key)));
		return 0;
	}
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "plant") == 0)
		return plant(argv[2], (mode_t)strtoul(argv[3], NULL, 8),
		             strcmp(argv[4], "held") == 0,
		             argc == 6 ? strtoul(argv[5], NULL, 10) : 1 << 20);
	if (argc == 4 && strcmp(argv[1], "making") == 0)
		return making(argv[2], (mode_t)strtoul(argv[3], NULL, 8));
	if (argc == 3 && strcmp(argv[1], "hold") == 0)
		return hold(argv[2]);
	if (argc == 3 && strcmp(argv[1], "rank") == 0)
		return rank(strtoul(argv[2], NULL, 10));
	fprintf(stderr, "usage: seg_squat path UID KEY | plant PATH MODE held|free [BYTES] | "
	                "making PATH MODE | hold PATH | rank MIB\n");
	return 2;
}
