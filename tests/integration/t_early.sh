. "$(dirname "$0")/lib.sh"
# Allocations before hmpt's constructor: a library preloaded after
# libhmpt.so runs its constructor first and allocates, reallocs and frees.
HMPT_PROFILE=$work/e.%p.json LD_PRELOAD="$LIB $P/libhmpt_early.so" "$P/alloc_c" >/dev/null ||
	fail "alloc_c with an early allocator exited with $?"
f=$(ls "$work"/e.*.json)
$TUNE show --format tsv "$f" >"$work/e.tsv" || fail "show failed"
check_markers "$work/e.tsv" "$top/tests/progs/early_lib.c"
note "constructor allocations before hmpt's own constructor were tracked"
