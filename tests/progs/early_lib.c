/* early_lib.c — preloaded after libhmpt.so, so its constructor runs before
 * hmpt's: it allocates large and small blocks, reallocs and frees them
 * before hmpt has been set up by its own constructor. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *early_block;

__attribute__((constructor)) static void early_init(void)
{
	char *small = malloc(100);
	char *big = malloc(6 << 20); /* hmpt-expect: allocations=1 bytes=6291456 */
	if (!small || !big)
		_exit(90);
	memset(big, 5, 6 << 20);
	small = realloc(small, 200);
	free(small);
	early_block = calloc(1, 2 << 20); /* hmpt-expect: allocations=1 bytes=2097152 */
	free(big);
}
