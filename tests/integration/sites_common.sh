# sites_test NAME SOURCE CMD...: markers match, ids stable over two runs
sites_test() {
	local name=$1 src=$2; shift 2
	run_profile "$work/r1" "$@" >"$work/out1" || fail "$name exited with $?"
	check_markers "$work/r1/sites.tsv" "$src"
	sites_only_in "$work/r1/sites.tsv" "$(basename "$src")"
	run_profile "$work/r2" "$@" >"$work/out2" || fail "$name exited with $? (second run)"
	diff <(cut -f1 "$work/r1/sites.tsv" | sort) <(cut -f1 "$work/r2/sites.tsv" | sort) ||
		fail "site ids differ between two runs"
	note "ids identical over two runs: $(($(wc -l <"$work/r1/sites.tsv") - 1)) sites"
}
