#!/bin/bash
# stress_mix.sh — the allocation-heavy mix (bench/stress_mix.c) under glibc
# alone and under libhmpt.so, as throughput ratios taken in one run.
#
# For each thread count, ROUNDS rounds; each round runs the same mix (same
# seed, contents checked) once per configuration, in a rotating order so
# that drift on a noisy machine hits all alike, and the ratio to glibc is
# taken within the round.  Printed: the median ratio and the medians of the
# throughputs.  Configurations:
#   glibc     no hmpt
#   no plan   LD_PRELOAD=libhmpt.so alone: every block >= 1 MiB tracked and
#             named, nothing asked (a profiling run adds only the profile
#             written at exit)
#   all 4k    a plan whose only pool is 4 KiB pages (an all-slow run of a
#             tuning on a machine whose pools differ in page size)
#   all thp   a plan whose only pool is transparent huge pages
# Goal (issue 20): every hmpt configuration at least 0.8x glibc.
# A run with corrupt contents, or with allocations refused, stops the
# benchmark with status 1.
#
# Usage: bench/stress_mix.sh [THREADS...]   (default: 1 2 4 16)
# Environment: ROUNDS (5), OPS (ops per thread, 4000), B (build directory),
# LIB (the shim, default $B/libhmpt.so).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
rounds=${ROUNDS:-5}
ops=${OPS:-4000}
prog=$B/bench/stress_mix
lib=${LIB:-$B/libhmpt.so}
[ -x "$prog" ] && [ -f "$lib" ] || { echo "stress_mix.sh: build first (make bench-build)" >&2; exit 2; }
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2 4 16)
work=$(mktemp -d)
rss=()
trap 'rm -rf "$work"' EXIT

plan() { # NAME PAGES: a plan with one pool, the default for every block
	printf '{"format":"hmpt-plan","format_version":2,"pools":{"%s":{"pages":"%s"}},"default_pool":"%s","groups":[]}\n' \
		"$1" "$2" "$1" >"$work/$1.json"
}
plan small 4k
plan huge thp
names=("glibc" "no plan" "all 4k" "all thp")
run() { # INDEX THREADS: prints kops/s and peak RSS in MiB
	local env=()
	case $1 in
	1) env=(LD_PRELOAD="$lib") ;;
	2) env=(LD_PRELOAD="$lib" HMPT_PLAN="$work/small.json") ;;
	3) env=(LD_PRELOAD="$lib" HMPT_PLAN="$work/huge.json") ;;
	esac
	local out
	if ! out=$(env "${env[@]}" "$prog" "$2" "$ops" 2>"$work/err"); then
		echo "stress_mix.sh: ${names[$1]}, $2 threads: $out $(cat "$work/err")" >&2
		exit 1
	fi
	set -- $out
	if [ "${12}" != 0 ]; then
		echo "stress_mix.sh: ${names[$1]}, $2 threads: ${12} allocations refused: $out" >&2
		exit 1
	fi
	echo "${8} ${14}"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "stress mix: $ops ops per thread, 1 in 16 of 1-8 MiB, contents checked; $rounds rounds, medians; $(nproc) CPUs"
printf '%-8s %12s %20s %20s %20s\n' threads "glibc kops/s" "no plan" "all 4k" "all thp"
for t in "${threads[@]}"; do
	for c in 0 1 2 3; do : >"$work/k$c" && : >"$work/r$c" && : >"$work/m$c" && : >"$work/mm$c"; done
	for r in $(seq "$rounds"); do
		declare -A k=()
		for i in 0 1 2 3; do
			c=$(((i + r) % 4))
			k[$c]=$(run "$c" "$t")
		done
		for c in 0 1 2 3; do
			set -- ${k[$c]} ${k[0]}
			echo "$1" >>"$work/k$c"
			echo "$2" >>"$work/mm$c"
			awk -v a="$1" -v b="$3" 'BEGIN { print a / b }' >>"$work/r$c"
			awk -v a="$2" -v b="$4" 'BEGIN { print a / b }' >>"$work/m$c"
		done
	done
	line=$(printf '%-8s %12s' "$t" "$(median <"$work/k0")")
	for c in 1 2 3; do
		line+=$(printf ' %9s (%6.2fx)' "$(median <"$work/k$c")" "$(median <"$work/r$c")")
	done
	echo "$line"
	rss+=("$(printf '%-8s %12s' "$t" "$(median <"$work/mm0")")")
	for c in 1 2 3; do rss[-1]+=$(printf ' %20s' "$(printf '%.2fx' "$(median <"$work/m$c")")"); done
done
echo "(ratios: hmpt's throughput over glibc's in the same round; goal >= 0.80x)"
echo "peak resident set: glibc's in MiB, hmpt's as a ratio to it in the same round"
printf '%-8s %12s %20s %20s %20s\n' threads "glibc MiB" "no plan" "all 4k" "all thp"
printf '%s\n' "${rss[@]}"
