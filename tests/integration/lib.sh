# Shared helpers for the integration tests (sourced).
set -u
top=${HMPT_TEST_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
B=$top/build
P=$B/progs
TUNE=${TUNE:-$B/hmpt-tune}
LIB=$B/libhmpt.so
PREFIX=${HMPT_TEST_PREFIX:-}
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
prereq_fail() { fail "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "-- $*"; }

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
