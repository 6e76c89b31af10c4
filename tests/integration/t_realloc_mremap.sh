. "$(dirname "$0")/lib.sh"
# realloc moves a tracked block's pages with mremap(MREMAP_FIXED |
# MREMAP_DONTUNMAP).  Kernels 5.7 to 6.16 unmap the destination first and
# then fail when the block spans two mappings, which a moved block does;
# kernels before 5.7 refuse the flag.  realloc_mremap grows blocks until
# they move, twice, checking every byte, then checks that zeroed requests
# over the same memory read as zeros.  It runs without hmpt, under hmpt,
# and under hmpt with libfake_mremap.so failing each move as such kernels
# do (old: the rule of kernels 5.7 to 6.16, efault: every move so, einval,
# enomem: failures that touch nothing): the same lines, exit 0 every time.
fake=$P/libfake_mremap.so
# run NAME [MODE]: realloc_mremap under the shim (with the fake in MODE);
# output in $work/NAME, stderr in $work/NAME.err
run() {
	local name=$1 mode=${2:-}
	if [ -n "$mode" ]; then
		FAKE_MREMAP=$mode LD_PRELOAD="$LIB $fake" $PREFIX "$P/realloc_mremap" >"$work/$name" 2>"$work/$name.err"
	else
		LD_PRELOAD=$LIB $PREFIX "$P/realloc_mremap" >"$work/$name" 2>"$work/$name.err"
	fi
	local rc=$?
	[ $rc = 0 ] || fail "$name: exit $rc: $(cat "$work/$name" "$work/$name.err")"
	# the same steps and data as without hmpt, moved or not
	diff <(sed 's/, moved$//; /^realloc_mremap: ok/d' "$work/glibc") \
		<(sed 's/, moved$//; /^realloc_mremap: ok/d' "$work/$name") >&2 ||
		fail "$name: other lines than without hmpt"
}

"$P/realloc_mremap" >"$work/glibc" 2>&1 || fail "realloc_mremap without hmpt exited $?: $(cat "$work/glibc")"
grep -q '^realloc_mremap: ok' "$work/glibc" || fail "without hmpt: $(cat "$work/glibc")"

run shim
# the steps that must move under hmpt did: a2 moves a block of two mappings
for step in a1 a2 a3; do
	grep -q "^$step: .*, moved$" "$work/shim" || fail "under hmpt, $step did not move: $(cat "$work/shim")"
done
[ ! -s "$work/shim.err" ] || fail "the shim was not quiet: $(cat "$work/shim.err")"
note "under hmpt: $(tail -n 1 "$work/shim")"

# kernels before 5.7 refuse MREMAP_DONTUNMAP: the shim then copies, and
# the fake sees one call
IFS=. read -r major minor _ <<<"$(uname -r)"
old_kernel=$((major < 5 || (major == 5 && minor < 7)))
for mode in pass old efault einval enomem; do
	run "fake-$mode" "$mode"
	! grep -v '^fake_mremap: ' "$work/fake-$mode.err" || fail "$mode: the shim was not quiet"
	line=$(grep '^fake_mremap: ' "$work/fake-$mode.err")
	calls=$(sed -n 's/.*: \([0-9]*\) calls, .*/\1/p' <<<"$line")
	failed=$(sed -n 's/.*, \([0-9]*\) failed$/\1/p' <<<"$line")
	[ -n "$calls" ] && [ "$calls" -ge 1 ] || fail "$mode: the shim's moves did not reach the fake mremap: $line"
	case $mode in
	pass) [ "$failed" = 0 ] || fail "pass: $line" ;;
	*) [ "$failed" -ge 1 ] || [ "$old_kernel" = 1 ] || fail "$mode: no move failed: $line" ;;
	esac
	note "$mode: $line; $(tail -n 1 "$work/fake-$mode")"
done
