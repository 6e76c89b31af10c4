. "$(dirname "$0")/lib.sh"
# Every libFuzzer target (one per tests/fuzz/fuzz_*.c) runs over its corpus
# in the repository, then fuzzes for a few seconds; new inputs it finds stay
# in the work directory.  A crash, a sanitizer report or a leak fails the
# test.  Without clang there is nothing to build them with (a skip while the
# packages are missing); with
# clang, a target not built is a failure: `make check` builds them all.
secs=${HMPT_TEST_FUZZ_SECONDS:-3}
command -v clang >/dev/null ||
	prereq_missing fuzzer -- "no clang: the fuzz targets need clang with libFuzzer"
missing=()
for src in "$top"/tests/fuzz/fuzz_*.c; do
	f=$B/fuzz/$(basename "$src" .c)
	[ -x "$f" ] || missing+=("${f#"$top"/}")
done
if [ ${#missing[@]} -gt 0 ]; then
	rt=$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
	[ -f "$rt" ] || rt="missing (install libclang-rt-14-dev: scripts/install-deps.sh)"
	fail "fuzz targets not built: ${missing[*]} (make ${missing[*]}; libFuzzer runtime: $rt)"
fi
for src in "$top"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c); name=${name#fuzz_}
	corpus=$top/tests/fuzz/corpus/$name
	[ -d "$corpus" ] || fail "no corpus for fuzz_$name: tests/fuzz/corpus/$name"
	mkdir -p "$work/$name"
	"$B/fuzz/fuzz_$name" -max_total_time="$secs" -max_len=8192 -timeout=5 -print_final_stats=1 \
		"$work/$name" "$corpus" >"$work/$name.log" 2>&1 ||
		{ tail -n 30 "$work/$name.log"; fail "fuzz target $name failed"; }
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
	units=$(sed -n 's/^stat::new_units_added: *//p' "$work/$name.log")
	note "$name: ${execs:-?} inputs run, ${units:-?} new"
done
