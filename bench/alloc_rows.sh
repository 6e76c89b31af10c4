#!/bin/bash
# alloc_rows.sh — what libhmpt.so costs with nothing asked (no plan, no
# profile, no sampling), on allocation rows in the manner of mimalloc-bench
# (bench/alloc_rows.c), as ratios taken in one run on this machine.
#
# Each round runs every row twice, with glibc alone and under
# LD_PRELOAD=libhmpt.so, one right after the other and in alternating
# order, so that drift on a noisy machine hits both alike; the ratio is
# taken within the round.  Printed per row: the medians of the row's own
# time, the medians of the per-round ratios of time, of CPU time and of the
# peak resident set (getrusage in the row's process), and the spread of the
# time ratios.  The two runs of a row must compute the same checksum, or
# the benchmark stops with status 1.  It never fails on speed.
#
# Usage: bench/alloc_rows.sh [ROW...]   (default: every row; alloc_rows --list)
# Environment: ROUNDS (5), SCALE (work per row, 1), B (build directory),
# LIB (the shim, default $B/libhmpt.so).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
rounds=${ROUNDS:-5}
scale=${SCALE:-1}
prog=$B/bench/alloc_rows
lib=${LIB:-$B/libhmpt.so}
[ -x "$prog" ] && [ -f "$lib" ] || { echo "alloc_rows.sh: build first (make bench-build)" >&2; exit 2; }
rows=("$@")
[ ${#rows[@]} -gt 0 ] || mapfile -t rows < <("$prog" --list)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# nothing asked: whatever the caller's environment says
clean=(env -u HMPT_PLAN -u HMPT_PROFILE -u HMPT_SAMPLE -u HMPT_STRICT -u LD_PRELOAD)
run() { # CONFIG ROW: prints "time cpu rss_kib check"
	local pre=() out
	[ "$1" = glibc ] || pre=(LD_PRELOAD="$lib")
	if ! out=$("${clean[@]}" ${pre[@]+"${pre[@]}"} "$prog" "$2" "$scale" 2>"$work/err"); then
		echo "alloc_rows.sh: $2 with $1 failed: $(cat "$work/err")" >&2
		exit 1
	fi
	set -- $out
	echo "$3 $5 $7 $9"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

cpus=$(nproc)
model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
echo "allocation rows (bench/alloc_rows.c) with nothing asked of hmpt, against glibc alone:"
echo "measured on this machine (${cpus} CPUs${model:+, $model}, load average $load at the start), $rounds rounds, scale $scale"
for r in $(seq "$rounds"); do
	i=0
	for row in "${rows[@]}"; do
		if (((r + i) % 2)); then
			g=$(run glibc "$row")
			h=$(run hmpt "$row")
		else
			h=$(run hmpt "$row")
			g=$(run glibc "$row")
		fi
		set -- $g $h
		if [ "$4" != "$8" ]; then
			echo "alloc_rows.sh: $row computed $4 with glibc but $8 under hmpt" >&2
			exit 1
		fi
		echo "$1" >>"$work/$row.gt"
		echo "$5" >>"$work/$row.ht"
		echo "$3" >>"$work/$row.gm"
		awk -v a="$5" -v b="$1" 'BEGIN { print a / b }' >>"$work/$row.t"
		awk -v a="$6" -v b="$2" 'BEGIN { print (b > 0 ? a / b : 1) }' >>"$work/$row.c"
		awk -v a="$7" -v b="$3" 'BEGIN { print a / b }' >>"$work/$row.m"
		i=$((i + 1))
	done
done
printf '%-10s %9s %9s %7s %13s %7s %7s %10s\n' row "glibc s" "hmpt s" time "(range)" cpu RSS "glibc MiB"
for row in "${rows[@]}"; do
	lo=$(sort -g "$work/$row.t" | head -1)
	hi=$(sort -g "$work/$row.t" | tail -1)
	printf '%-10s %9.3f %9.3f %6.2fx %13s %6.2fx %6.2fx %10.1f\n' "$row" \
		"$(median <"$work/$row.gt")" "$(median <"$work/$row.ht")" "$(median <"$work/$row.t")" \
		"$(printf '(%.2f-%.2f)' "$lo" "$hi")" "$(median <"$work/$row.c")" \
		"$(median <"$work/$row.m")" "$(awk -v k="$(median <"$work/$row.gm")" 'BEGIN { print k / 1024 }')"
done
echo "(time: each row's own wall time; time, cpu (the process's CPU time) and RSS (its peak"
echo " resident set): hmpt's over glibc's within a round, median over rounds; range: the"
echo " time ratios' lowest and highest.  Measurements on this machine: on a shared or"
echo " small one the spread is noise, and only ratios taken together mean anything.)"
