#!/bin/bash
# nsites.sh — hmpt at many allocation sites, on programs of N distinct sites
# (bench/nsites_gen.sh: N functions, each allocating 1 MiB once, 16 frames
# deep), for each N given (default 1000 10000 100000):
# - the program alone, under the shim (nothing asked), and under the shim
#   with a plan naming every one of its sites (hmpt-tune plan make -s all
#   from its profile), ROUNDS rounds, the three in a random order in each
#   round; the medians, and the plan's cost over the shim alone;
# - the time and peak RSS of hmpt-tune profile, plan make, plan check,
#   plan rebase (the plan onto its own profile) and a tuning's report (the
#   tuning's command again once its journal holds every run: the journal
#   read, results.json and report.html written), one run each.
# A step that takes longer than STEP_TIMEOUT seconds is stopped and shown
# as "> T"; what depends on it is not run.  It never fails on speed.
#
# Usage: bench/nsites.sh [N...]
# Environment: ROUNDS (3), STEP_TIMEOUT (300), B (build directory), LIB.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
lib=${LIB:-$B/libhmpt.so}
tune=$B/hmpt-tune
rounds=${ROUNDS:-3}
limit=${STEP_TIMEOUT:-300}
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(1000 10000 100000)
[ -x "$tune" ] && [ -f "$lib" ] || { echo "nsites.sh: build first (make all)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clean=(env -u HMPT_PLAN -u HMPT_PROFILE -u HMPT_SAMPLE -u HMPT_STRICT -u LD_PRELOAD)

# the N-site program, built once into $B/bench/nsites/N (gcc -O0: no tail
# calls, no identical functions folded; parts compiled side by side)
build() {
	local n=$1 dir=$B/bench/nsites/$1
	if [ -x "$dir/nsites" ] && [ "$dir/nsites" -nt "$top/bench/nsites_gen.sh" ]; then
		return 0
	fi
	"$top/bench/nsites_gen.sh" "$n" "$dir"
	(cd "$dir" && rm -f ./*.o && ls ./*.c | xargs -P "$(nproc)" -n 1 \
		"${CC:-cc}" -O0 -fno-omit-frame-pointer -c && "${CC:-cc}" -o nsites ./*.o && rm -f ./*.o)
}

# step NAME CMD...: time and peak RSS of CMD, one run; "> limit" if stopped.
# python3 (which make bench installs) measures them, as GNU time would:
# the wall time, and the largest peak RSS of the processes it waited for.
step() {
	local name=$1 rc=0; shift
	python3 -c 'import resource, subprocess, sys, time
t0 = time.monotonic()
rc = subprocess.run(sys.argv[2:]).returncode
kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(sys.argv[1], "w").write("%.2f %.1f\n" % (time.monotonic() - t0, kib / 1024))
sys.exit(rc)' "$work/time" timeout "$limit" "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
	if [ $rc = 0 ]; then
		read -r secs mib <"$work/time"
		printf '  %-14s %9.2f s %9.1f MiB\n' "$name" "$secs" "$mib"
		return 0
	fi
	[ "$rc" = 124 ] && printf '  %-14s %9s s   (stopped)\n' "$name" "> $limit" ||
		printf '  %-14s failed (exit %s): %s\n' "$name" "$rc" "$(tail -n 2 "$work/$name.err")"
	return 1
}

# one run of the program: seconds (wall)
run_once() { # CONFIG PROG PLAN
	local pre=()
	case $1 in
	shim) pre=(LD_PRELOAD="$lib") ;;
	plan) pre=(LD_PRELOAD="$lib" HMPT_PLAN="$3") ;;
	esac
	local t0 t1
	t0=$(date +%s%N)
	timeout "$limit" "${clean[@]}" ${pre[@]+"${pre[@]}"} "$2" >/dev/null 2>"$work/run.err" || {
		echo "nan"
		return 0
	}
	t1=$(date +%s%N)
	echo "$(((t1 - t0) / 1000))" | awk '{ printf "%.4f\n", $1 / 1e6 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

cpus=$(nproc)
model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
echo "hmpt at N allocation sites (bench/nsites.sh; programs by bench/nsites_gen.sh, 1 MiB per site, 16 frames)"
echo "this machine: ${cpus} CPUs${model:+, $model}; $rounds rounds for the runs, one run per tool step, steps stopped at ${limit} s"
for n in "${ns[@]}"; do
	build "$n" >"$work/build.log" 2>&1 || { echo "N=$n: build failed: $(tail -n 3 "$work/build.log")"; continue; }
	prog=$B/bench/nsites/$n/nsites
	d=$work/n$n
	mkdir -p "$d"
	echo "N = $n sites (load average $(cut -d' ' -f1-3 /proc/loadavg) at the start)"
	ok=1
	step profile "$tune" profile -q -s off --lib "$lib" -o "$d/prof" -- "$prog" || ok=0
	[ $ok = 1 ] && [ -f "$d/prof/profile.json" ] &&
		echo "  (profile: $(awk -F'\t' 'NR > 1' "$d/prof/sites.tsv" | wc -l) sites, $(($(stat -c %s "$d/prof/profile.json") / 1024)) KiB)"
	[ $ok = 1 ] && { step plan-make "$tune" plan make -p 'slow={"nodes":"all"}' -s all=slow \
		-o "$d/plan.json" "$d/prof" || ok=0; }
	[ $ok = 1 ] && echo "  (plan: $(($(stat -c %s "$d/plan.json") / 1024)) KiB)"
	# its listing too, as plan check shows a plan by default
	[ $ok = 1 ] && step plan-check "$tune" plan check "$d/plan.json" || true
	[ $ok = 1 ] && step plan-rebase "$tune" plan rebase -o "$d/rebased.json" "$d/plan.json" "$d/prof" || true
	if [ $ok = 1 ]; then
		for r in $(seq "$rounds"); do
			for c in $(printf '%s\n' alone shim plan | shuf); do
				run_once "$c" "$prog" "$d/plan.json" >>"$d/$c.times"
			done
		done
		a=$(median <"$d/alone.times") s=$(median <"$d/shim.times") p=$(median <"$d/plan.times")
		printf '  runs (medians of %s): alone %s s, shim %s s, shim with the plan %s s: the plan costs %s s more than the shim alone\n' \
			"$rounds" "$a" "$s" "$p" "$(awk -v p="$p" -v s="$s" 'BEGIN { printf "%.3f", p - s }')"
	fi
	# a tuning's report: a short tuning (one group of the largest site,
	# the rest one group; pools thp,4k need not differ for a report), then
	# the same command again, which finds every run in the journal
	targs=(-o "$d/tune" -p thp,4k -r 2 --confirm 0 --search exhaustive -s off -q --lib "$lib"
		-G "$(awk -F'\t' 'NR == 2 { print $1 }' "$d/prof/sites.tsv" 2>/dev/null)")
	if [ $ok = 1 ] && step tuning "$tune" "${targs[@]}" -- "$prog"; then
		step tuning-report "$tune" "${targs[@]}" -- "$prog" || true
	fi
done
