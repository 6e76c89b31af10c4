. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/sites_common.sh"
export OMP_NUM_THREADS=2
sites_test alloc_omp "$top/tests/progs/alloc_omp.c" "$P/alloc_omp"
