/* walks — arrays first touched in known orders, for the access-pattern test
 * (t_sample_pattern).  Each line marked "walk:" names the array and the
 * pattern its first touches follow:
 *   seq     every page in order
 *   stride  every fourth page (16 KiB apart)
 *   random  every page, in a shuffled order
 *   chase   a list of 64-byte nodes linked in a shuffled order, each page's
 *           first touch the write of a node's link
 *   read    filled by pread() from a file of zeros: the kernel first
 *           touches it, copying into it in order */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MiB   ((size_t)1 << 20)
#define PAGE  4096
#define PAGES (8 * MiB / PAGE)

typedef struct node {
	struct node *next;
	char pad[56];
} node_t;

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static size_t rand_below(size_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (size_t)(rng % n);
}

static void shuffle(size_t *a, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rand_below(i + 1), t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

static void no_huge(void *p, size_t n)
{
	uintptr_t a = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
	madvise((void *)a, n - (a - (uintptr_t)p), MADV_NOHUGEPAGE);
}

/* read() `n` bytes into p from a file of zeros made for it */
static int fill_by_read(char *p, size_t n)
{
	char path[] = "/tmp/walks.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	if (ftruncate(fd, (off_t)n) != 0)
		return -1;
	for (size_t got = 0; got < n;) {
		ssize_t r = pread(fd, p + got, n - got, (off_t)got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return close(fd);
}

int main(void)
{
	static size_t order[PAGES];
	char *seq = malloc(8 * MiB);     /* walk: seq */
	char *stride = malloc(32 * MiB); /* walk: stride */
	char *rnd = malloc(8 * MiB);     /* walk: random */
	node_t *chase = malloc(8 * MiB); /* walk: chase */
	char *rd = malloc(8 * MiB);      /* walk: read */
	long sum = 0;

	if (!seq || !stride || !rnd || !chase || !rd)
		return 1;
	/* base pages, where transparent huge pages are "always" (RHEL's
	 * default): a 2 MiB page would be one fault for 512 pages */
	no_huge(seq, 8 * MiB);
	no_huge(stride, 32 * MiB);
	no_huge(rnd, 8 * MiB);
	no_huge(chase, 8 * MiB);
	no_huge(rd, 8 * MiB);
	for (size_t i = 0; i < 8 * MiB; i += PAGE)
		seq[i] = 1;
	for (size_t i = 0; i < 32 * MiB; i += 4 * PAGE)
		stride[i] = 1;
	for (size_t i = 0; i < PAGES; i++)
		order[i] = i;
	shuffle(order, PAGES);
	for (size_t i = 0; i < PAGES; i++)
		rnd[order[i] * PAGE] = 1;
	/* one node per page links the list: node k of the shuffle points to
	 * node k+1's (the first touch of each page writes a pointer into the
	 * block); then the list is walked */
	size_t per = PAGE / sizeof(node_t);
	for (size_t i = 0; i + 1 < PAGES; i++)
		chase[order[i] * per].next = &chase[order[i + 1] * per];
	chase[order[PAGES - 1] * per].next = NULL;
	for (node_t *n = &chase[order[0] * per]; n; n = n->next)
		sum++;
	if (fill_by_read(rd, 8 * MiB) != 0)
		return 1;
	for (size_t i = 0; i < 8 * MiB; i += PAGE)
		sum += rd[i] + seq[i] + rnd[i];
	printf("walks: %ld\n", sum);
	free(seq);
	free(stride);
	free(rnd);
	free(chase);
	free(rd);
	return 0;
}
