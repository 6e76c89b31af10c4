. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# hmpt-test: timeout=900  (25 tunings: about 15 s on a quiet 2-core VM, 50 s under load)
# A smoke test of the search's statistics on the modelled workload: exact
# outcomes of fixed seeds (--retakes 0: the same tunings, and so the same
# counts, on every run of this test, loaded machine or not).  The rates at
# the claimed bounds are the unit tests' (test_search: null and flat
# landscapes; test_confirm: the confirmation, 10,000 phases per noise
# structure); 20 tunings cannot tell a rate of 2.5 % from one of 10 %.
# - identical costs and 5 % noise: the seeds' tunings call exactly the
#   counted number of configurations faster (FALSE_EXPECTED); the others say
#   that the fast pool does not help and place nothing in it;
# - power: a true 3 % gain under 1 % noise is found (--reps 5), every time.
# The confirmation phase is left out (--confirm 0): these are the search's
# own verdicts and plans; t_tune_calib and t_tune_confirm test it.
need_thp
model_py - "$TUNE" "$LIB" "$MODEL" "$work" <<'PY' || fail "the tuner's statistics are off"
import json, math, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
tune, lib, model, work = sys.argv[1:5]

def tuning(name, seed, tune_args, model_args):
    out = f"{work}/{name}.{seed}"
    cmd = [tune, "-o", out, "--lib", lib, "--pools", "thp,4k", "-m", "Time in seconds",
           "--groups", "2", "--confirm", "0", "--retakes", "0", "--seed", str(seed), "--no-memory-probe", "--sample", "faults", *tune_args, "--", model, "--seed", str(seed),
           "--state", out + ".state", *model_args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, (cmd, p.stderr)
    r = json.load(open(out + "/results.json"))
    return r, p.stdout, out

# 1. identical costs: every array's ratio is 1, so no placement matters
N, FALSE_EXPECTED = 20, 2  # seeds 1-20: the tunings that call something faster
with ThreadPoolExecutor(2) as ex:
    runs = list(ex.map(lambda s: tuning("same", s, [], ["--noise", "0.05", "h0:4M:1:1", "h1:2M:1:1"]),
                       range(1, N + 1)))
false = 0
for r, summary, out in runs:
    faster = [c["label"] for c in r["configs"] if c["verdict"] == "faster"]
    if faster:
        false += 1
        continue
    assert "No configuration was measurably faster than all-slow" in summary, summary
    for plan in ("plan-best", "plan-90"):
        p = json.load(open(f"{out}/{plan}.json"))
        assert not [g for g in p["groups"] if g["pool"] == "fast" and g["sites"]], (out, plan)
comparisons = sum(c["verdict"] != "reference" for c in runs[0][0]["configs"])
print(f"identical costs, 5 % noise: {false} of {N} tunings called something faster "
      f"({comparisons} comparisons each; seeded: {FALSE_EXPECTED} expected)")
assert false == FALSE_EXPECTED, "the seeds' tunings came out otherwise than recorded"

# 2. power: h0 saves 3 % (1.03 s against 1.00 s), nothing else matters
M = 5
with ThreadPoolExecutor(2) as ex:
    runs = list(ex.map(lambda s: tuning("gain", s, ["--reps", "5"],
                                        ["--base", "0.97", "--noise", "0.01", "h0:4M:0.06:2", "h1:2M:0:1"]),
                       range(1, M + 1)))
found = 0
for r, summary, out in runs:
    g1 = [s for s in r["sites"] if s["group"] == "G1"]
    assert len(g1) == 1 and g1[0]["location"].startswith("alloc_h0 "), (out, g1)
    v = {c["label"]: c["verdict"] for c in r["configs"] if c["phase"] == "combinations"}
    assert v["rest"] != "faster", (out, v)
    best = r["chosen"]["best"]
    plan = json.load(open(f"{out}/plan-best.json")) if best else {"groups": []}
    fast = [s for g in plan["groups"] if g["pool"] == "fast" for s in g["sites"]]
    found += v["G1"] == "faster" and any(s["id"] == g1[0]["id"] for s in fast)
print(f"a true 3 % gain under 1 % noise: found in {found} of {M} tunings (G1 faster, in plan-best)")
assert found == M
PY
