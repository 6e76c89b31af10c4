/* secure.c — says whether it runs in secure-execution mode, allocates. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>

int main(void)
{
	char *p = malloc(4 << 20);
	p[0] = 1;
	printf("AT_SECURE=%lu\n", getauxval(AT_SECURE));
	free(p);
	return 0;
}
