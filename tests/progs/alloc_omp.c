/* alloc_omp.c — each of 2 OpenMP threads allocates, and the master once. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	double total = 0;
	double *m = NULL;

#pragma omp parallel num_threads(2) reduction(+ : total)
	{
		double *p = malloc(4 << 20); /* hmpt-expect: allocations=2 bytes=8388608 */
		memset(p, 1, 4 << 20);
		total += p[10];
		free(p);
#pragma omp master
		m = malloc(2 << 20); /* hmpt-expect: allocations=1 bytes=2097152 */
	}
	free(m);
	printf("%g\n", total);
	return 0;
}
