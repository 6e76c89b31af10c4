/* mpi_ranks — a small MPI program for the shim's MPI tests.  Every rank
 * allocates two arrays from two call sites (alloc_field: 24 MiB, read at
 * random; alloc_halo: 8 MiB, streamed), works on them, and reports where
 * its arrays' pages are: "rank R: field huge H% halo huge H%" from
 * /proc/self/smaps.  Rank 0 prints the job's time and a checksum summed over
 * all ranks, checked against the value every rank can compute alone. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MiB ((size_t)1 << 20)

/* kept out of line: each is its own call site */
__attribute__((noinline)) static uint64_t *alloc_field(size_t n)
{
	return malloc(n * sizeof(uint64_t));
}

__attribute__((noinline)) static uint64_t *alloc_halo(size_t n)
{
	return malloc(n * sizeof(uint64_t));
}

/* share of [p, p+len) in 2 MiB pages, from AnonHugePages of its mapping */
static double huge_share(const void *p, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	uintptr_t a = (uintptr_t)p;
	int in = 0;
	unsigned long kb, huge = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = a < e && a + len > s;
		} else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
			huge += kb;
		}
	}
	fclose(f);
	return 100.0 * (double)huge * 1024 / (double)len;
}

int main(int argc, char **argv)
{
	int rank, size;
	size_t nf = 24 * MiB / 8, nh = 8 * MiB / 8;
	int iters = argc > 1 ? atoi(argv[1]) : 1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	uint64_t *field = alloc_field(nf), *halo = alloc_halo(nh);
	if (!field || !halo)
		MPI_Abort(MPI_COMM_WORLD, 2);
	double t0 = MPI_Wtime();
	for (size_t i = 0; i < nf; i++)
		field[i] = i * 2654435761u + (uint64_t)rank;
	for (size_t i = 0; i < nh; i++)
		halo[i] = i;
	uint64_t sum = 0, x = 88172645463325252ull;
	for (int it = 0; it < iters; it++) {
		for (size_t j = 0; j < nf; j++) { /* random reads */
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			sum += field[x % nf];
		}
		for (size_t i = 0; i < nh; i++)
			sum += halo[i];
	}
	/* the same reads without the arrays: every rank knows what each sums */
	uint64_t want = 0;
	for (int r = 0; r < size; r++) {
		uint64_t y = 88172645463325252ull;
		for (int it = 0; it < iters; it++) {
			for (size_t j = 0; j < nf; j++) {
				y ^= y << 13, y ^= y >> 7, y ^= y << 17;
				want += (y % nf) * 2654435761u + (uint64_t)r;
			}
			want += (uint64_t)nh * (nh - 1) / 2;
		}
	}
	printf("rank %d: field huge %.0f%% halo huge %.0f%%\n", rank, huge_share(field, nf * 8),
	       huge_share(halo, nh * 8));
	fflush(stdout);
	uint64_t total = 0;
	MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	double t = MPI_Wtime() - t0;
	free(field);
	free(halo);
	if (rank == 0) {
		printf("ranks = %d\nTime in seconds = %.3f\nchecksum %s\n", size, t,
		       total == want ? "ok" : "WRONG");
		fflush(stdout);
	}
	MPI_Finalize();
	return rank == 0 && total != want;
}
