/* hammer — two arrays of the same size from two call sites: alloc_hot's is
 * read at random eight times as often as alloc_cold's is read in order, so
 * that any access sampling must rank alloc_hot's site first.
 * Usage: hammer [MiB] (default 32).  Prints a sum that keeps the loads. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static uint64_t *alloc_hot(size_t n)
{
	return malloc(n * sizeof(uint64_t));
}

__attribute__((noinline)) static uint64_t *alloc_cold(size_t n)
{
	return malloc(n * sizeof(uint64_t));
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 32;
	size_t n = (mib << 20) / sizeof(uint64_t);
	uint64_t *hot = alloc_hot(n), *cold = alloc_cold(n);
	uint64_t sum = 0, s = 88172645463325252ull;

	if (!hot || !cold || n == 0)
		return 1;
	for (size_t i = 0; i < n; i++)
		hot[i] = cold[i] = i;
	for (size_t i = 0; i < n; i++)
		sum += cold[i];
	/* random gathers (xorshift): cache and TLB misses, eight per element */
	for (size_t k = 0; k < 8 * n; k++) {
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		sum += hot[(s * 0x2545f4914f6cdd1dull) % n];
	}
	printf("hammer: %zu MiB, sum %llu\n", mib, (unsigned long long)sum);
	free(hot);
	free(cold);
	return 0;
}
