. "$(dirname "$0")/lib.sh"
# every HMPT_* variable of the options table is documented, the same way
# (docs/guide.md's Environment table, hmpt.7)
$TUNE env --markdown >"$work/env.md" || fail "hmpt-tune env --markdown failed"
while IFS= read -r row; do
	grep -qF -- "$row" "$top/docs/guide.md" || fail "docs/guide.md lacks: $row (regenerate with hmpt-tune env --markdown)"
done < <(grep '^| `HMPT_' "$work/env.md")
for v in $(grep -o '`HMPT_[A-Z_]*`' "$work/env.md" | tr -d '`'); do
	grep -q "^\.B $v\$" "$top/docs/man/hmpt.7" || fail "hmpt.7 does not document $v"
done
# every command's help works and names its options
for c in tune compare profile show plan env; do
	$TUNE help $c >/dev/null || fail "hmpt-tune help $c"
	$TUNE $c --help >/dev/null || fail "hmpt-tune $c --help"
done
$TUNE --help | grep -q '^Usage: hmpt-tune' || fail "--help"
$TUNE --version | grep -q '^hmpt-tune [0-9]' || fail "--version"
# hmpt-bench: every option of its help is in its man page, and the README
# points to it
BENCH=$B/hmpt-bench
$BENCH --help | grep -q '^Usage: hmpt-bench' || fail "hmpt-bench --help"
$BENCH --version | grep -q '^hmpt-bench [0-9]' || fail "hmpt-bench --version"
for o in $($BENCH --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$top/docs/man/hmpt-bench.1" ||
		fail "hmpt-bench.1 does not document $o"
done
grep -q 'hmpt-bench' "$top/README.md" || fail "README.md does not mention hmpt-bench"
# hmpt-tune: every option of its tuning and compare help is in its man page
for o in $({ $TUNE tune --help; $TUNE compare --help; } | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	[ "$o" = --help ] && continue
	grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$top/docs/man/hmpt-tune.1" ||
		fail "hmpt-tune.1 does not document $o"
done
