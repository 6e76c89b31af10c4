# tune.sh — the tuner with node pools, inside the QEMU guest of
# tests/vm/guest.sh (nodes 0-1 CPU+DDR, 2-3 memory-only HBM-like, HMAT):
# the modelled workload (tests/progs/model.c) counts an array's pages on
# nodes 2-3 as fast, so the ranking and the plans are known exactly
# (model_truth.py), and the applied plan's arrays are read back on HBM.
# tests/integration/t_numa_vm.sh runs it; by hand:
#   tests/vm/guest.sh bash tests/vm/tune.sh
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/tune_common.sh"
[ "${VM_GUEST:-}" = 1 ] || skip "runs inside the QEMU guest: tests/vm/guest.sh bash $0"
exact=(--fast nodes=2,3 --base 1 h0:4M:2:2 h1:2M:1:2 h2:2M:0.1:1)
out=$work/t
taskset -c 0 $TUNE -o "$out" --lib "$LIB" --pools hbm,ddr -m 'Time in seconds' --groups 3 --reps 2 \
	-s off --retakes 0 --seed 7 --no-memory-probe -- "$MODEL" "${exact[@]}" --noise 0.01 --seed 9 --state "$work/state" \
	>"$work/summary" 2>"$work/err" || fail "hmpt-tune exited $?: $(cat "$work/err")"
cat "$work/summary"
# h0 1.32x alone, h1 1.14x; all fast 1.58x (the static arrays and h2 gain
# nothing), h0+h1 the same: the 90 % plan
model_py - "$out/results.json" "${exact[@]}" <<'PY' || fail "the tuning is not what the model says"
import math, sys
from model_truth import Model, Tuning, label
m, t = Model(sys.argv[2:]), Tuning(sys.argv[1])
groups = [(g, label(a)) for g, a in t.groups()]
assert groups[:2] == [("G1", "h0"), ("G2", "h1")] and groups[2][0] == "rest", groups
for c in t.configs():
    if not c["measured"]:  # predicted by the model search
        continue
    want = m.speedup(t.fast_arrays(c))
    assert c["verdict"] == "reference" or abs(math.log(c["speedup"] / want)) < 0.03, (c["label"], want)
assert label(t.chosen("ninety")) == "h0+h1", label(t.chosen("ninety"))
assert {"h0", "h1"} <= t.chosen("best"), label(t.chosen("best"))
print("groups", groups, "; 90 %: h0+h1, as the model says")
PY
HMPT_PLAN=$out/plan-90.json LD_PRELOAD=$LIB taskset -c 0 "$MODEL" "${exact[@]}" >"$work/applied" ||
	fail "the model under plan-90.json"
cat "$work/applied"
grep -q '^model: h0 4194304 bytes fast 1.0000 huge [0-9]*/1024 nodes 2:1024 ' "$work/applied" ||
	fail "h0 is not on node 2 (the HBM node local to CPU 0)"
grep -q '^model: h1 2097152 bytes fast 1.0000 huge [0-9]*/512 nodes 2:512 ' "$work/applied" ||
	fail "h1 is not on node 2"
grep -q '^model: h2 2097152 bytes fast 0.0000 huge [0-9]*/512 nodes [01]:512 ' "$work/applied" ||
	fail "h2 is not on DDR"
note "plan-90.json from CPU 0: h0 and h1 on HBM node 2, h2 on DDR"
