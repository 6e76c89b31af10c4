#!/bin/bash
# shim_ab.sh — what a change to the shim costs a program, as ratios taken in
# one run: benchmarks under two builds of libhmpt.so, A and B, alternately,
# in pairs whose order is drawn at random for each pair (so that drift and
# bursts on a busy machine hit both builds alike); printed per figure: the
# medians of A and of B, the median of the per-pair ratios B/A, their
# quartiles and their range.  It never fails on speed.
#
#   bench/shim_ab.sh [-b BENCH] [-n PAIRS] [-t THREADS] [-r ROWS] A [B]
#
# A and B: a libhmpt.so, or a git revision of this repository, which is
# built into a temporary directory (its shim only; the benchmark programs
# are this tree's build/bench).  B defaults to build/libhmpt.so.
#   -b BENCH    malloc_overhead (the default), stress_mix, alloc_rows,
#               walk, or all; a comma-separated list names several
#   -n PAIRS    pairs of runs per figure (default 7)
#   -t THREADS  stress_mix's thread counts, comma-separated (default 1,2,4,16)
#   -r ROWS     alloc_rows's rows, comma-separated (default: alloc_rows --list)
# One run, under LD_PRELOAD of the shim with no plan, no profile and no
# sampling (every HMPT_ variable of the caller's is dropped):
#   malloc_overhead  bench/malloc_overhead -s 64 -t 1 -r 7: a tracked 1 MiB
#                    malloc+free at stack depth 16 in ns, and the 64 B
#                    malloc+free against glibc's and against a forwarding
#                    interposer's, each in its own process, in the same run (x)
#   stress_mix       bench/stress_mix at one thread count, OPS operations a
#                    thread, its default seed: the throughput in kops/s;
#                    corrupt contents or a refused allocation stop the
#                    script with status 1
#   alloc_rows       bench/alloc_rows at one row, work SCALE: the row's own
#                    wall time in s; A's and B's checksums must match, or
#                    the script stops with status 1
#   walk             bench/walk_overhead: a tracked 1 MiB malloc+free at
#                    depth 16 in ns, in a program with frame pointers
#                    (malloc), through libstdc++'s operator new (new), and
#                    in the program built without them (nofp)
# Environment: OPS (default 4000) and SCALE (default 1), as for
# bench/stress_mix.sh and bench/alloc_rows.sh.
# For each pair, every figure of the chosen benchmarks is run once under A
# and once under B, one right after the other.  Ratios are B over A: for a
# time above 1 means B is slower, for a throughput above 1 B is faster.
# Exit status: 0, 1 (a run failed or disagreed), 2 (bad use, not built).
# Example: bench/shim_ab.sh -b all -n 15 HEAD~3
set -eu -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
pairs=7
benches=malloc_overhead
threads=1,2,4,16
rows=
ops=${OPS:-4000}
scale=${SCALE:-1}
usage() {
	sed -n '2,/^# Example/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
die() { # STATUS MESSAGE
	echo "shim_ab.sh: $2" >&2
	exit "$1"
}
while getopts b:n:t:r:h opt; do
	case $opt in
	b) benches=$OPTARG ;;
	n) pairs=$OPTARG ;;
	t) threads=$OPTARG ;;
	r) rows=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] && [ $# -le 2 ] || usage
[[ $pairs =~ ^[1-9][0-9]*$ ]] || die 2 "-n $pairs: expected a positive count"
[[ $threads =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die 2 "-t $threads: expected thread counts such as 1,2,4"
[[ $ops =~ ^[1-9][0-9]*$ ]] || die 2 "OPS=$ops: expected a positive count"
[[ $scale =~ ^[0-9]*\.?[0-9]+$ && ! $scale =~ ^[0.]*$ ]] || die 2 "SCALE=$scale: expected a positive number"
[[ $benches == all ]] && benches=malloc_overhead,stress_mix,alloc_rows,walk
IFS=, read -r -a benches <<<"$benches"
for bench in "${benches[@]}"; do
	case $bench in
	malloc_overhead | stress_mix | alloc_rows) ;;
	walk) continue ;;
	*) die 2 "-b $bench: expected malloc_overhead, stress_mix, alloc_rows, walk or all" ;;
	esac
	[ -x "$top/build/bench/$bench" ] || die 2 "$top/build/bench/$bench is missing: run 'make bench-build' first"
done
# nothing asked of the shim, whatever the caller's environment says
for v in $(compgen -e); do
	if [[ $v == HMPT_* ]]; then unset "$v"; fi
done
unset LD_PRELOAD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The figures: "BENCH ARG" each; one run of a figure is one process.
figures=()
for bench in "${benches[@]}"; do
	case $bench in
	malloc_overhead) figures+=("malloc_overhead -") ;;
	walk)
		for p in walk_overhead walk_overhead_nofp; do
			[ -x "$top/build/bench/$p" ] || die 2 "$top/build/bench/$p is missing: run 'make bench-build' first"
		done
		figures+=("walk malloc" "walk new" "walk nofp")
		;;
	stress_mix)
		IFS=, read -r -a list <<<"$threads"
		for t in "${list[@]}"; do figures+=("stress_mix $t"); done
		;;
	alloc_rows)
		mapfile -t known < <("$top/build/bench/alloc_rows" --list)
		list=("${known[@]}")
		[ -z "$rows" ] || IFS=, read -r -a list <<<"$rows"
		for r in "${list[@]}"; do
			[[ " ${known[*]} " == *" $r "* ]] || die 2 "-r $r: expected rows of: ${known[*]}"
		done
		for r in "${list[@]}"; do figures+=("alloc_rows $r"); done
		;;
	esac
done

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
	make -s -j"$(nproc)" -C "$work/$2" build/libhmpt.so >"$work/$2.log" 2>&1 ||
		{ echo "shim_ab.sh: building $1 failed: see the end of its log" >&2; tail -n 20 "$work/$2.log" >&2; return 2; }
	echo "$work/$2/build/libhmpt.so"
}
a=$(shim_of "$1" a)
b=$(shim_of "${2:-$top/build/libhmpt.so}" b)

# run_one SHIM BENCH ARG: one run; prints lines "KEY VALUE CHECK", KEY
# naming the figure, CHECK what A and B must agree on (- for nothing)
run_one() {
	local shim=$1 bench=$2 arg=$3 out
	local prog=$top/build/bench/$bench
	case $bench in
	malloc_overhead)
		LD_PRELOAD=$shim "$prog" -s 64 -t 1 -r 7 | awk '
			/^small/ {
				for (i = 1; i <= NF; i++) {
					if ($i == "ratio") r = $(i + 1)
					if ($i == "hmpt/fwd") f = $(i + 1)
				}
			}
			/^tracked/ { for (i = 1; i <= NF; i++) if ($i == "16:") t = $(i + 1) }
			END {
				if (t == "" || r == "" || f == "") exit 1
				sub(/x;?$/, "", r); sub(/x$/, "", f)
				print "tracked", t, "-"; print "small", r, "-"; print "floor", f, "-"
			}' || die 1 "malloc_overhead under $shim failed, or printed what this script does not read"

		;;
	stress_mix)
		out=$(LD_PRELOAD=$shim "$prog" "$arg" "$ops" 2>"$work/err") ||
			die 1 "stress_mix $arg threads under $shim: $out $(cat "$work/err")"
		set -- $out
		[ "${12}" = 0 ] || die 1 "stress_mix $arg threads under $shim: ${12} allocations refused: $out"
		echo "threads$arg ${8} -"
		;;
	walk)
		prog=$top/build/bench/walk_overhead
		mode=$arg
		[ "$arg" != nofp ] || { prog=${prog}_nofp; mode=malloc; }
		out=$(LD_PRELOAD=$shim "$prog" "$mode" 2>"$work/err") ||
			die 1 "walk_overhead $arg under $shim: $(cat "$work/err")"
		set -- $out
		echo "$arg $2 -"
		echo "$arg-glibc $4 -"
		;;
	alloc_rows)
		out=$(LD_PRELOAD=$shim "$prog" "$arg" "$scale" 2>"$work/err") ||
			die 1 "alloc_rows $arg under $shim: $(cat "$work/err")"
		set -- $out
		echo "$1 $3 $9"
		;;
	esac
}

cpus=$(nproc)
model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
load0=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
echo "A: $1 ($a)"
echo "B: ${2:-build/libhmpt.so} ($b)"
# $work/runs: "BENCH KEY A B" per figure and pair
: >"$work/runs"
for ((i = 1; i <= pairs; i++)); do
	for f in "${figures[@]}"; do
		set -- $f
		if [ $((RANDOM % 2)) = 0 ]; then
			ra=$(run_one "$a" "$1" "$2")
			rb=$(run_one "$b" "$1" "$2")
		else
			rb=$(run_one "$b" "$1" "$2")
			ra=$(run_one "$a" "$1" "$2")
		fi
		paste -d' ' <(echo "$ra") <(echo "$rb") | while read -r ka va ca kb vb cb; do
			[ "$ka" = "$kb" ] && [ "$ca" = "$cb" ] || die 1 "$1 $ka: A computed $ca but B $cb"
			echo "$1 $ka $va $vb"
		done >>"$work/runs"
	done
	printf '\rpair %d/%d' "$i" "$pairs" >&2
done
echo >&2
load1=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')

sort_median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# line LABEL FORMAT BENCH KEY: the medians of A and B, of B/A, and the
# ratios' quartiles and range
line() {
	local sel=$work/$3.$4
	awk -v b="$3" -v k="$4" '$1 == b && $2 == k { print $3, $4 }' "$work/runs" >"$sel"
	awk '{ print $2 / $1 }' "$sel" | sort -g >"$sel.r"
	printf "%-20s $2 $2 %7.3fx  %s  %s\n" "$1" \
		"$(awk '{ print $1 }' "$sel" | sort_median)" "$(awk '{ print $2 }' "$sel" | sort_median)" \
		"$(sort_median <"$sel.r")" \
		"$(awk '{ v[NR] = $1 } END { q = int((NR + 3) / 4); printf "%.3f-%.3f", v[q], v[NR + 1 - q] }' "$sel.r")" \
		"$(awk '{ v[NR] = $1 } END { printf "%.3f-%.3f", v[1], v[NR] }' "$sel.r")"
}
header() { printf '%-20s %10s %10s %8s  %-11s  %s\n' "$1" "A" "B" "B/A" "middle half" "range"; }
for bench in "${benches[@]}"; do
	case $bench in
	malloc_overhead)
		echo "== malloc_overhead (bench/malloc_overhead.c), $pairs pairs"
		header "figure"
		line "tracked 1 MiB ns" "%10.0f" malloc_overhead tracked
		line "small 64 B / glibc" "%9.3fx" malloc_overhead small
		line "small 64 B / fwd" "%9.3fx" malloc_overhead floor
		;;
	stress_mix)
		echo "== stress_mix (bench/stress_mix.c), $ops ops a thread, kops/s (higher is faster), $pairs pairs"
		header "threads"
		IFS=, read -r -a list <<<"$threads"
		for t in "${list[@]}"; do line "$t" "%10.1f" stress_mix "threads$t"; done
		;;
	walk)
		echo "== walk (bench/walk_overhead.c): tracked 1 MiB malloc+free, depth 16, ns, $pairs pairs"
		header "figure"
		line "fp program, malloc" "%10.0f" walk malloc
		line "fp program, new" "%10.0f" walk new
		line "no-fp program" "%10.0f" walk nofp
		line "glibc alone" "%10.0f" walk malloc-glibc
		;;
	alloc_rows)
		echo "== alloc_rows (bench/alloc_rows.c), scale $scale, the row's time in s, $pairs pairs"
		header "row"
		for f in "${figures[@]}"; do
			set -- $f
			[ "$1" = alloc_rows ] && line "$2" "%10.4f" alloc_rows "$2"
		done
		;;
	esac
done
echo "(A, B: medians over the pairs; B/A: the median of the per-pair ratios; middle half:"
echo " their quartiles, range: their lowest and highest.  For a time above 1 means B is"
echo " slower, for kops/s B is faster."
echo " These are this machine's figures: $cpus CPUs${model:+, $model}, load average"
echo " $load0 at the start and $load1 at the end; on a busy small machine the spread is"
echo " noise, and only ratios taken in the same run mean anything.)"
