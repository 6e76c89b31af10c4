# Shared helpers for the integration tests (sourced).
set -u
top=${HMPT_TEST_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
B=$top/build
P=$B/progs
TUNE=${TUNE:-$B/hmpt-tune}
# HMPT_TEST_LIB: another build of the shim for the tests that only preload
# it (t_lock_ranks runs some under build/ubsan/libhmpt.so)
LIB=${HMPT_TEST_LIB:-$B/libhmpt.so}
PREFIX=${HMPT_TEST_PREFIX:-}
# tests/integration/planjson.py: plans as hmpt-tune writes them (format 4)
export PYTHONPATH=$top/tests/integration${PYTHONPATH:+:$PYTHONPATH}
work=$(mktemp -d "${TMPDIR:-/tmp}/hmpt-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Skips are accountable (tests/run.sh lists each with its reason), and of
# two kinds only:
# - skip REASON: a fact of this machine that no package changes (no hardware
#   PMU, transparent huge pages "never", not root, memory too fragmented);
# - prereq_missing KEY... -- REASON: what packages provide (QEMU, busybox,
#   Slurm, MPI, clang's libFuzzer: the requirements of scripts/deps.sh,
#   which scripts/install-deps.sh installs on Debian and names elsewhere).
#   It skips while one is missing, as the same probe finds it (commands,
#   headers, libraries; no package manager asked); with all of them there
#   the test must run here, so that a broken prerequisite check or build
#   fails `make check` instead of passing as a skip.
# Call either only after the test found it cannot run; neither returns.
skip() { echo "skip: $*"; exit 77; }
. "$top/tests/pkgs.sh"
. "$top/tests/knobs.sh"
prereq_fail() { fail "$@"; }
fail() {
	thp_still_granted
	echo "FAIL: $*" >&2
	exit 1
}

# need_thp: skip unless transparent huge pages can be asked for and the
# kernel really grants them now (facts of the kernel, its settings and its
# memory, not of a package).  The pre-flight maps 8 MiB with MADV_HUGEPAGE
# (tests/progs/thp_probe.c, without hmpt) and reads back how much of it came
# in 2 MiB pages: on a fragmented node the kernel answers with 4 KiB pages,
# and the exact page-size checks (and the modelled figures) that follow
# would fail for a reason that is not hmpt's.  A test that needed them runs
# the probe again when it fails: where the kernel stopped granting them
# meanwhile, that is the reason, and the test skips with it.
need_thp() {
	local thp=/sys/kernel/mm/transparent_hugepage/enabled
	[ -e $thp ] || skip "no transparent huge pages in this kernel"
	grep -q '\[never\]' $thp && skip "transparent huge pages are disabled here (enabled = never)"
	thp_probe_or_skip "2 MiB pages not granted here"
	thp_needed=1
}
# thp_still_granted: for fail(), after need_thp: skip if no longer granted
thp_still_granted() {
	[ "${thp_needed:-0}" = 1 ] || return 0
	thp_needed=0 # once: thp_probe_or_skip may fail() itself
	grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled &&
		skip "transparent huge pages were disabled during the test (enabled = never)"
	thp_probe_or_skip "2 MiB pages no longer granted when the test failed"
}
thp_probe_or_skip() { # WHY
	local got
	"$P/thp_probe" 8 >"$work/thp_probe" || fail "thp_probe failed: $(cat "$work/thp_probe")"
	got=$(awk '$1 == "probe" { for (i = 2; i <= NF; i++) if ($i ~ /^thp_kb=/) print substr($i, 8) }' \
		"$work/thp_probe")
	[ "${got:-0}" -ge 4096 ] ||
		skip "$1: 8 MiB asked with MADV_HUGEPAGE got ${got:-0} kB in huge pages (memory fragmented? see /proc/buddyinfo)"
}
note() { echo "-- $*"; }

# set_knob FILE VALUE: write VALUE to the kernel setting FILE for this test
# (root), and put back what it was when the test ends, killed or not
# (tests/knobs.sh).  The test holds $knob_lock from its first set_knob to its
# end.  Its EXIT trap becomes the restore's and lib.sh's clean-up.
set_knob() {
	local was
	if [ -z "${knob_fd:-}" ]; then
		exec {knob_fd}>>$knob_lock
		flock -w 300 "$knob_fd" || fail "another test has held $knob_lock for 300 s"
		knobs_restore || fail "cannot put back the settings a killed test left: $(cat $knob_record)"
		trap 'knobs_restore; rm -rf "$work"' EXIT
	fi
	was=$(cat "$1") || return 1
	# sysfs choices ("always [madvise] never"): the one in brackets
	[[ $was =~ \[([^]]*)\] ]] && was=${BASH_REMATCH[1]}
	grep -q "^$1"$'\t' $knob_record 2>/dev/null || printf '%s\t%s\n' "$1" "$was" >>$knob_record
	echo "$2" >"$1"
}

# run_profile DIR CMD...: hmpt-tune profile, quiet; returns the command's status
run_profile() {
	local dir=$1; shift
	$TUNE profile -q --lib "$LIB" -o "$dir" -- $PREFIX "$@"
}

# check_markers TSV SOURCE...: every "hmpt-expect: allocations=N bytes=B"
# marker line matches the sum over the TSV rows located there, and no row
# is located elsewhere in those files.
check_markers() {
	local tsv=$1; shift
	local src
	for src in "$@"; do
		local base; base=$(basename "$src")
		grep -n 'hmpt-expect:' "$src" | while IFS= read -r m; do
			local line=${m%%:*}
			local want_a want_b
			want_a=$(sed -n 's/.*allocations=\([0-9]*\).*/\1/p' <<<"$m")
			want_b=$(sed -n 's/.*bytes=\([0-9]*\).*/\1/p' <<<"$m")
			read -r got_a got_b < <(awk -F'\t' -v loc="$base:$line" \
				'NR > 1 && $9 == loc { a += $4; b += $2 } END { print a + 0, b + 0 }' "$tsv")
			[ "$got_a" = "$want_a" ] && [ "$got_b" = "$want_b" ] ||
				fail "$base:$line: expected allocations=$want_a bytes=$want_b, profile has allocations=$got_a bytes=$got_b"
			echo "ok $base:$line allocations=$got_a bytes=$got_b"
		done || exit 1
		# rows in this file at lines without a marker
		awk -F'\t' -v base="$base" 'NR > 1 { split($9, l, ":"); if (l[1] == base) print l[2] }' "$tsv" |
			sort -u | while read -r line; do
				sed -n "${line}p" "$src" | grep -q 'hmpt-expect:' ||
					fail "$base:$line: a site the test does not expect: $(sed -n "${line}p" "$src")"
			done || exit 1
	done
}

# sites_only_in TSV FILE...: every row's location is in one of these files
sites_only_in() {
	local tsv=$1; shift
	local pat; pat=$(printf '%s|' "$@"); pat=${pat%|}
	awk -F'\t' -v pat="^($pat):" 'NR > 1 && $9 !~ pat { print; bad = 1 } END { exit bad }' "$tsv" ||
		fail "sites outside $*"
}

# function_at TSV LOCATION: the function column of the first row there
function_at() {
	awk -F'\t' -v loc="$2" 'NR > 1 && $9 == loc { print $8; exit }' "$1"
}

json_total() { # json_total PROFILE FIELD
	sed -n "s/.*\"$2\": *\([0-9]*\).*/\1/p" "$1" | head -n 1
}
