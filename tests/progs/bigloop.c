/* bigloop — a program that frees and allocates large blocks in a loop, in
 * the manner of mimalloc-bench's malloc-large, for t_sample_reuse: one
 * site allocates COUNT blocks of MIB MiB, each touched whole, SLOTS live at
 * a time.  Prints the kernel's count of its minor faults (ru_minflt).
 *
 *   bigloop [COUNT [MIB [SLOTS]]]   (200 4 4) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 200;
	size_t size = (size_t)(argc > 2 ? atoi(argv[2]) : 4) << 20;
	int slots = argc > 3 ? atoi(argv[3]) : 4;
	char *slot[64] = {0};
	struct rusage ru;

	if (count < 1 || slots < 1 || slots > 64)
		return 2;
	for (int i = 0; i < count; i++) {
		char *p = malloc(size); /* the site */
		if (!p)
			return 1;
		memset(p, i | 1, size);
		free(slot[i % slots]);
		slot[i % slots] = p;
	}
	for (int i = 0; i < slots; i++)
		free(slot[i]);
	getrusage(RUSAGE_SELF, &ru);
	printf("minflt %ld\n", ru.ru_minflt);
	return 0;
}
