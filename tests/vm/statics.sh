# statics.sh — static data on real NUMA nodes, inside the QEMU guest of
# tests/vm/guest.sh (nodes 0-1 CPU+DDR, 2-3 memory-only HBM-like, HMAT).
# tests/integration/t_numa_vm.sh runs it; by hand:
#   tests/vm/guest.sh bash tests/vm/statics.sh
# Every check reads where the pages are (move_pages in the program itself).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/place_common.sh"
[ "${VM_GUEST:-}" = 1 ] || skip "runs inside the QEMU guest: tests/vm/guest.sh bash $0"
S=$P/static_stream F=$P/static_common
pages() { echo $(($(field "$1" "$2" bytes) / 4096)); }

run_profile "$work/sp" "$S" run 1 >/dev/null || fail "profiling static_stream"
run_profile "$work/fp" "$F" >/dev/null || fail "profiling static_common"
A=$(site_id "$work/sp" a) Bs=$(site_id "$work/sp" b) I=$(site_id "$work/sp" init)
T=$(site_id "$work/sp" ptrs) G=$(site_id "$work/fp" grid_)

# without a plan, first touch from CPU 0: everything on node 0 (ptrs was
# written there by the dynamic loader's relocations, before main)
taskset -c 0 "$S" report >"$work/bare" || fail "static_stream without hmpt"
for x in a b c ptrs; do expect "$work/bare" $x nodes "0:$(pages "$work/bare" $x)"; done

# a in the local HBM node, b and ptrs (present before main: they move) on
# node 3, init on HBM; c and table not named
$TUNE plan make -p 'hbm={"nodes":"hbm","fallback":"ddr"}' -p 'ddr={"nodes":"ddr"}' \
	-p 'far={"nodes":[3]}' -d ddr -s "$A,$I=hbm" -s "$Bs,$T=far" -o "$work/plan.json" \
	"$work/sp" 2>/dev/null || fail "plan make"
HMPT_PLAN=$work/plan.json LD_PRELOAD=$LIB taskset -c 0 "$S" report >"$work/run" 2>"$work/run.err" ||
	fail "static_stream under the plan: $(cat "$work/run.err")"
cat "$work/run"
grep -q 'bad=0 init_sum=262144' "$work/run" || fail "results under the plan"
expect "$work/run" a nodes "2:$(pages "$work/run" a)"
expect "$work/run" init nodes "2:$(pages "$work/run" init)"
expect "$work/run" b nodes "3:$(pages "$work/run" b)"
expect "$work/run" ptrs nodes "3:$(pages "$work/run" ptrs)"
expect "$work/run" c nodes "0:$(pages "$work/run" c)"
[ ! -s "$work/run.err" ] || fail "the shim said: $(cat "$work/run.err")"
# the same from CPU 1: "hbm" is local, so node 3
HMPT_PLAN=$work/plan.json LD_PRELOAD=$LIB taskset -c 1 "$S" report >"$work/run1" 2>&1 ||
	fail "from CPU 1"
expect "$work/run1" a nodes "3:$(pages "$work/run1" a)"
expect "$work/run1" c nodes "1:$(pages "$work/run1" c)"

# a node pool too small for a: it goes whole to its fallback, said once
$TUNE plan make -p 'hbm={"nodes":"hbm","capacity":"8M","fallback":"ddr"}' -p 'ddr={"nodes":"ddr"}' \
	-s "$A=hbm" -o "$work/plan2.json" "$work/sp" 2>/dev/null || fail "plan make 2"
HMPT_PLAN=$work/plan2.json LD_PRELOAD=$LIB taskset -c 0 "$S" report >"$work/run2" 2>"$work/run2.err" ||
	fail "plan 2"
expect "$work/run2" a nodes "0:$(pages "$work/run2" a)"
[ "$(grep -c "^hmpt: pool hbm cannot take 16.0 MiB for site $A (budget 8.00 MiB from capacity" "$work/run2.err")" = 1 ] ||
	fail "capacity message: $(cat "$work/run2.err")"

# Fortran: /grid/ on node 3, /work/ by first touch
$TUNE plan make -p 'far={"nodes":[3]}' -s "$G=far" -o "$work/planf.json" "$work/fp" 2>/dev/null ||
	fail "plan make f"
HMPT_PLAN=$work/planf.json LD_PRELOAD=$LIB taskset -c 0 "$F" report >"$work/runf" 2>&1 ||
	fail "static_common under the plan: $(cat "$work/runf")"
cat "$work/runf"
grep -q 'bad=0' "$work/runf" || fail "Fortran results"
expect "$work/runf" grid nodes "3:$(pages "$work/runf" grid)"
expect "$work/runf" work nodes "0:$(pages "$work/runf" work)"
note "static data: a on HBM 2 (3 from CPU 1), b and the relocated ptrs moved to 3, /grid/ on 3; unnamed on the first-touch node"
