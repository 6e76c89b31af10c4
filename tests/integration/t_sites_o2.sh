. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/sites_common.sh"
# the -O2 build: the same lines, found through inlining
sites_test alloc_c_o2 "$top/tests/progs/alloc_c.c" "$P/alloc_c_o2"
