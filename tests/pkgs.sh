# prereq_missing PKG... -- REASON, for a test that found it cannot run: a
# skip (the caller's `skip`) while one of the Debian packages is missing; with
# all of them installed it must run here, so it is a failure (the caller's
# `prereq_fail`).  Sourced by tests/integration/lib.sh and tests/vm/guest.sh.
prereq_missing() {
	local pkgs=() missing="" p
	while [ $# -gt 0 ] && [ "$1" != -- ]; do pkgs+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] || skip "$* (not installed:$missing)"
	prereq_fail "$*, but ${pkgs[*]} $([ ${#pkgs[@]} = 1 ] && echo is || echo are) installed: this must run here"
}
