#!/bin/bash
# The `make check` harness: unit tests (ASan/UBSan builds) and integration
# tests (real programs under the real libhmpt.so).  Exit 0 = pass, 77 = skip
# (the last line of output says why), anything else = fail.
# Usage: tests/run.sh [NAME-GLOB...]   (run from anywhere)
#
# It first makes what the selected tests run (a unit test's binary; for
# integration tests `make check-build-integration`: the sanitized builds,
# the fuzzers, the test and bench programs; everything when no name is
# given), 0.1 s when up to date; HMPT_TEST_NO_BUILD=1 skips that (make
# check, which has just made them).
#
# Time limits: 300 s a test, unless the test's script says otherwise in a
# line "# hmpt-test: timeout=SECONDS" (the long ones: the QEMU guest, the
# tuner's statistics); HMPT_TEST_TIMEOUT_SCALE multiplies every limit (say 3
# on a slow or busy machine), HMPT_TEST_TIMEOUT replaces them all.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
export HMPT_TEST_TOP=$top
export HMPT_TEST_PREFIX=${HMPT_TEST_PREFIX:-}
logs=$top/build/test-logs
mkdir -p "$logs"
scale=${HMPT_TEST_TIMEOUT_SCALE:-1}
[[ $scale =~ ^[0-9]+([.][0-9]+)?$ ]] ||
	{ echo "run.sh: HMPT_TEST_TIMEOUT_SCALE=$scale: expected a positive number" >&2; exit 2; }
# limit_of TEST: its time limit in seconds
limit_of() {
	local own=300
	if [ -n "${HMPT_TEST_TIMEOUT:-}" ]; then
		echo "$HMPT_TEST_TIMEOUT"
		return
	fi
	case $1 in
	*.sh) own=$(sed -n 's/^# hmpt-test: timeout=\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1) ;;
	esac
	awk -v s="${own:-300}" -v k="$scale" 'BEGIN { printf "%d", s * k + 0.5 }'
}

. "$top/tests/knobs.sh"
# a kernel setting a killed test changed (t_sample_mthp's mTHP size) goes
# back after each test and before the first, whatever ended the test
knobs_put_back || echo "run.sh: could not put back $(cat $knob_record 2>/dev/null)" >&2

selected() {
	local name=$1; shift
	[ $# -eq 0 ] && return 0
	for g in "$@"; do
		# shellcheck disable=SC2053
		[[ $name == $g ]] && return 0
	done
	return 1
}

# run_test TEST: runs it under its time limit, its output in its log;
# prints "RC SECONDS"
run_test() {
	local t=$1 name log env_file limit start rc
	name=$(basename "$t" .sh)
	log=$logs/$name.log
	env_file=${t%.sh}.env
	limit=$(limit_of "$t")
	start=$(date +%s.%N)
	(
		[ -f "$env_file" ] && set -a && . "$env_file" && set +a
		case $t in
		*.sh) exec timeout -k 10 "$limit" bash "$t" ;;
		*) exec timeout -k 10 "$limit" "$t" ;;
		esac
	) >"$log" 2>&1 </dev/null
	rc=$?
	[ $rc -eq 124 ] && echo "(timed out after $limit s)" >>"$log"
	echo "$rc $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')"
}

# What the selected tests run: a unit test its own binary; integration
# tests the programs, the sanitized builds and the fuzzers
# (check-build-integration); all of it, with no name given.
if [ "${HMPT_TEST_NO_BUILD:-0}" != 1 ]; then
	targets=()
	if [ $# -eq 0 ]; then
		targets=(check-build)
	else
		for u in tests/unit/test_*.c; do
			u=$(basename "$u" .c)
			selected "$u" "$@" && targets+=("build/asan/unit/$u")
		done
		for t in tests/integration/t_*.sh; do
			selected "$(basename "$t" .sh)" "$@" &&
				{ targets+=(check-build-integration); break; }
		done
	fi
	[ ${#targets[@]} -eq 0 ] ||
		make -s --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" "${targets[@]}" \
			>"$logs/build.log" 2>&1 ||
		{ echo "run.sh: building the tests' programs failed (build/test-logs/build.log);" \
			"run 'make check' once, which installs what they need" >&2; exit 2; }
fi
tests=()
for t in build/asan/unit/test_*; do [ -x "$t" ] && tests+=("$t"); done
for t in tests/integration/t_*.sh; do [ -f "$t" ] && tests+=("$t"); done

pass=0 fail=0 skip=0 failed=() skipped=()
# say NAME RC SECONDS [NOTE]: the test's line, counted
say() {
	local name=$1 rc=$2 secs=$3 note=${4:-} log=$logs/$1.log why
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		printf 'PASS  %-28s (%s s%s)\n' "$name" "$secs" "$note"
	elif [ "$rc" -eq 77 ]; then
		skip=$((skip + 1))
		why=$(tail -n 1 "$log")
		why=${why#skip: }
		skipped+=("$name: $why")
		printf 'SKIP  %-28s (%s s%s) %s\n' "$name" "$secs" "$note" "$why"
	else
		fail=$((fail + 1))
		failed+=("$name")
		printf 'FAIL  %-28s (exit %d, %s s%s; log: %s)\n' "$name" "$rc" "$secs" "$note" \
			"${log#"$top"/}"
		tail -n 40 "$log" | sed 's/^/      | /'
	fi
}

# A test marked "# hmpt-test: beside" (the QEMU guest's: a machine of its
# own, no host setting touched) runs in the background beside the others,
# and so do the unit tests, one after another (they compute, and touch no
# host setting either); the integration tests run one at a time.  On 2
# cores that takes their minutes off the suite's.  HMPT_TEST_SERIAL=1 runs
# everything in turn instead.
beside=() beside_pids=() units=()
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	selected "$name" "$@" || continue
	[ "${HMPT_TEST_SERIAL:-0}" != 1 ] || continue
	if [[ $t != *.sh ]]; then
		units+=("$name")
	elif grep -q '^# hmpt-test: beside' "$t"; then
		run_test "$t" >"$logs/$name.result" &
		beside+=("$name") beside_pids+=($!)
	fi
done
if [ ${#units[@]} -gt 0 ]; then
	for u in "${units[@]}"; do run_test "build/asan/unit/$u" >"$logs/$u.result"; done &
	units_pid=$!
fi
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	selected "$name" "$@" || continue
	[[ " ${beside[*]} ${units[*]} " == *" $name "* ]] && continue
	read -r rc secs < <(run_test "$t")
	knobs_put_back || echo "run.sh: $name left $(cat $knob_record 2>/dev/null) changed" >&2
	say "$name" "$rc" "$secs"
done
[ ${#units[@]} -eq 0 ] || wait "$units_pid"
for u in ${units[@]+"${units[@]}"}; do
	read -r rc secs <"$logs/$u.result"
	say "$u" "${rc:-1}" "${secs:-?}" ", beside the integration tests"
done
for i in "${!beside[@]}"; do
	wait "${beside_pids[$i]}"
	read -r rc secs <"$logs/${beside[$i]}.result"
	say "${beside[$i]}" "${rc:-1}" "${secs:-?}" ", beside the others"
done
# every skip again with its reason, so that none goes unnoticed in a long run
for s in "${skipped[@]}"; do echo "skipped: $s"; done
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
