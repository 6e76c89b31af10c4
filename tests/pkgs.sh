# prereq_missing KEY... -- REASON, for a test that found it cannot run: a
# skip (the caller's `skip`) while one of these requirements of
# scripts/deps.sh is missing, found by the same probe as
# scripts/install-deps.sh's (a command on PATH, a header that compiles, a
# library that links: no package manager asked); with all of them there it
# must run here, so it is a failure (the caller's `prereq_fail`).  Sourced
# by tests/integration/lib.sh and tests/vm/guest.sh.
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/deps.sh"
prereq_missing() {
	local keys=() why="" k rows row
	while [ $# -gt 0 ] && [ "$1" != -- ]; do keys+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	rows=$(hmpt_deps_rows "${keys[@]}") || prereq_fail "$*, and prereq_missing was given an unknown requirement: ${keys[*]}"
	while IFS= read -r row; do
		k=$(hmpt_deps_probe "$row") || why="$why; ${k//$'\n'/; }"
	done <<<"$rows"
	[ -z "$why" ] || skip "$* (missing ${why#; }; scripts/install-deps.sh, docs/install.md)"
	prereq_fail "$*, but ${keys[*]} $([ ${#keys[@]} = 1 ] && echo is || echo are) there: this must run here"
}
