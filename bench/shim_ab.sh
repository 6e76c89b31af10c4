#!/bin/bash
# shim_ab.sh — what a change to the shim costs a program, as a ratio taken in
# one run: bench/malloc_overhead under two builds of libhmpt.so, alternately,
# in pairs whose order is drawn at random for each pair (so that drift and
# bursts on a busy machine hit both builds alike), then the medians of each
# build and the median of the per-pair ratios (B over A).
#
#   bench/shim_ab.sh [-n PAIRS] A B
#
# A and B: a libhmpt.so, or a git revision of this repository, which is
# built into a temporary directory (its shim only).  B defaults to
# build/libhmpt.so.  Example: bench/shim_ab.sh HEAD~3
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
pairs=7
usage() {
	sed -n '2,13s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
while getopts n:h opt; do
	case $opt in
	n) pairs=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] && [ $# -le 2 ] || usage
[[ $pairs =~ ^[1-9][0-9]*$ ]] || { echo "shim_ab.sh: -n $pairs: expected a positive count" >&2; exit 2; }
prog=$top/build/bench/malloc_overhead
[ -x "$prog" ] || { echo "shim_ab.sh: $prog is missing: run 'make bench-build' first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shim_of SPEC NAME: the path of a libhmpt.so for SPEC (a file, or a git
# revision built into $work/NAME)
shim_of() {
	if [ -f "$1" ]; then
		readlink -f "$1"
		return
	fi
	git -C "$top" rev-parse --verify -q "$1^{commit}" >/dev/null ||
		{ echo "shim_ab.sh: $1: neither a file nor a revision of $top" >&2; return 2; }
	mkdir -p "$work/$2"
	git -C "$top" archive "$1" | tar -x -C "$work/$2"
	make -s -C "$work/$2" build/libhmpt.so >"$work/$2.log" 2>&1 ||
		{ echo "shim_ab.sh: building $1 failed: see the end of its log" >&2; tail -n 20 "$work/$2.log" >&2; return 2; }
	echo "$work/$2/build/libhmpt.so"
}
a=$(shim_of "$1" a)
b=$(shim_of "${2:-$top/build/libhmpt.so}" b)

# one run of malloc_overhead under SHIM: "small-ratio tracked-ns"
run_one() {
	LD_PRELOAD=$1 "$prog" | awk '
		/^small/ { for (i = 1; i <= NF; i++) if ($i == "ratio") r = $(i + 1) }
		/^tracked/ { for (i = 1; i <= NF; i++) if ($i == "16:") t = $(i + 1) }
		END { sub(/x$/, "", r); print r, t }'
}

echo "A: $1 ($a)"
echo "B: ${2:-build/libhmpt.so} ($b)"
: >"$work/runs"
for ((i = 1; i <= pairs; i++)); do
	if [ $((RANDOM % 2)) = 0 ]; then
		ra=$(run_one "$a")
		rb=$(run_one "$b")
	else
		rb=$(run_one "$b")
		ra=$(run_one "$a")
	fi
	echo "$ra $rb" >>"$work/runs"
	printf '\rpair %d/%d' "$i" "$pairs" >&2
done
echo >&2
sort_median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
awk '{ print $2 }' "$work/runs" | sort_median >"$work/ta"
awk '{ print $4 }' "$work/runs" | sort_median >"$work/tb"
awk '{ print $1 }' "$work/runs" | sort_median >"$work/sa"
awk '{ print $3 }' "$work/runs" | sort_median >"$work/sb"
awk '{ print $4 / $2 }' "$work/runs" | sort_median >"$work/tr"
printf 'tracked 1 MiB malloc+free at depth 16 (medians of %d runs each): A %.0f ns, B %.0f ns; B/A %.3fx (median of the pairs)\n' \
	"$pairs" "$(cat "$work/ta")" "$(cat "$work/tb")" "$(cat "$work/tr")"
printf 'small 64 B malloc+free against glibc: A %.3fx, B %.3fx\n' "$(cat "$work/sa")" "$(cat "$work/sb")"
