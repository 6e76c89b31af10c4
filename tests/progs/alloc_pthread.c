/* alloc_pthread.c — 4 threads allocate; one block is freed by another thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *handoff;

static void *worker(void *arg)
{
	long id = (long)arg;
	char *p = malloc((size_t)(id + 1) << 20); /* hmpt-expect: allocations=4 bytes=10485760 */
	memset(p, (int)id, (size_t)(id + 1) << 20);
	if (id == 0)
		return p; /* freed by main */
	free(p);
	return NULL;
}

static void *producer(void *arg)
{
	(void)arg;
	handoff = malloc(3 << 20); /* hmpt-expect: allocations=1 bytes=3145728 */
	return NULL;
}

int main(void)
{
	pthread_t t[4], pr;
	void *ret = NULL;

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	pthread_create(&pr, NULL, producer, NULL);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		if (r)
			ret = r;
	}
	pthread_join(pr, NULL);
	free(ret);
	free(handoff); /* allocated by another thread */
	puts("ok");
	return 0;
}
