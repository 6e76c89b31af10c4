/* threads N — N threads, each allocating and touching a 2 MiB block, all
 * alive at once (a barrier) before any ends: for the sampling ring budget,
 * where each live sampled thread holds one ring. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

static pthread_barrier_t all_alive;

static void *worker(void *arg)
{
	char *p = malloc(2 * MiB);
	(void)arg;
	if (p)
		memset(p, 1, 2 * MiB);
	pthread_barrier_wait(&all_alive);
	return p; /* freed by main: the block outlives the thread */
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[256];

	if (n < 1 || n > 256) {
		fprintf(stderr, "usage: threads N (1..256)\n");
		return 2;
	}
	pthread_barrier_init(&all_alive, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	pthread_barrier_wait(&all_alive);
	for (int i = 0; i < n; i++) {
		void *p = NULL;
		pthread_join(t[i], &p);
		if (!p || ((char *)p)[MiB] != 1)
			return 1;
		free(p);
	}
	return 0;
}
