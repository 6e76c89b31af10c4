. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/sites_common.sh"
src=$top/tests/progs/alloc_c.c
sites_test alloc_c "$src" "$P/alloc_c"
line_of() { grep -n "$1" "$src" | head -n 1 | cut -d: -f1; }
[ "$(function_at "$work/r1/sites.tsv" "alloc_c.c:$(line_of 'void \*p = malloc(n);')")" = helper ] ||
	fail "the helper's malloc is not attributed to helper"
[ "$(function_at "$work/r1/sites.tsv" "alloc_c.c:$(line_of 'calloc(MiB')")" = main ] ||
	fail "the calloc is not attributed to main"
grep -q '^[0-9a-f]\{16\}	' "$work/r1/sites.tsv" || fail "ids are not 16 hex digits"
