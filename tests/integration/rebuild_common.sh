# Helpers for the tests of plans across rebuilds (sourced after lib.sh).

# rebuild_build DIR 1|2: tests/progs/rebuild.c compiled into DIR/rebuild
# (the source as DIR/rebuild.c, so that both builds name the same file).
# Build 2 has three lines inserted above each allocation and a new
# function before them: every offset and line moves, nothing else.
rebuild_build() {
	local dir=$1 variant=$2 src=$HMPT_TEST_TOP/tests/progs
	mkdir -p "$dir"
	if [ "$variant" = 1 ]; then
		cp "$src/rebuild.c" "$dir/rebuild.c"
	else
		awk '/@FUNCTION@/ { print; print "__attribute__((noinline)) int rebuild_added(int x)"; print "{"; print "\treturn x * 3 + 1;"; print "}"; next }
		     /@LINES@/ { print; print "\tif (n == 1)"; print "\t\tputs(\"one byte\");"; print "\tn += (size_t)rebuild_added(0) - 1;"; next }
		     { print }' "$src/rebuild.c" >"$dir/rebuild.c"
	fi
	(cd "$dir" && cc -g -O0 -fno-omit-frame-pointer -Wall -I"$src" -o rebuild rebuild.c \
		"$src/report.c" -lnuma) || fail "cannot build rebuild.c (build $variant) in $dir"
}
