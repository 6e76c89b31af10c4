. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/sites_common.sh"
sites_test alloc_pthread "$top/tests/progs/alloc_pthread.c" "$P/alloc_pthread"
[ "$(function_at "$work/r1/sites.tsv" alloc_pthread.c:12)" = worker ] || fail "not in worker"
