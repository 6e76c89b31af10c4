# Sourced by the benchmark scripts that tune with pools thp,4k: the
# repository's top and build directories, and the check that those two
# pools differ here.
top=$(cd "$(dirname "${BASH_SOURCE[1]}")/.." && pwd)
B=$top/build

# bench_need_thp NAME: exit 77 (skipped) where transparent huge pages cannot
# be had, so that pools thp and 4k would be the same
bench_need_thp() {
	local thp=/sys/kernel/mm/transparent_hugepage/enabled
	if [ ! -r $thp ] || grep -q '\[never\]' $thp; then
		echo "$1: no transparent huge pages here ($thp): pools thp and 4k are the same; skipped" >&2
		exit 77
	fi
}
