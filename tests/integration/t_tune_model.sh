. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# The tuner on a workload whose every figure is known (tests/progs/model.c:
# a cost model of where its pages really are, read back by the program):
# six arrays, four on the heap and two static, with 1 % noise seeded per
# placement, so that the ranking, the groups, the measured speedups, the
# verdicts and the best, 90 % and --capacity plans are all exact
# expectations (model_truth.py), whatever this machine's speed or load.
need_thp
exact=(--base 1 h0:16M:2.0:2 h1:8M:1.2:2 s0:-:0.8:2 h2:8M:0.3:2 h3:4M:0.2:1 s1:-:0:1
	--pair h0,s0,0.8)
model=("${exact[@]}" --noise 0.01 --seed 7 --state "$work/state")
out=$work/tune
$TUNE -o "$out" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 4 --capacity 30M \
	--search exhaustive --retakes 0 --seed 7 --no-memory-probe -- \
	"$MODEL" "${model[@]}" >"$work/summary" 2>"$work/err" ||
	fail "hmpt-tune exited $?: $(cat "$work/err")"
cat "$work/summary"
for f in plan-best.json plan-90.json plan-capacity.json plan-slow.json results.json results.csv report.html; do
	[ -s "$out/$f" ] || fail "no $f"
done
$TUNE plan check -q "$out/plan-best.json" || fail "plan-best.json does not pass plan check"

# Alone: h0 1.222x, h1 1.122x, s0 1.078x, h2 1.028x, h3 and s1 nothing.
# Combinations (h0 and s0 together pay 0.8 s: a shared resource): the best
# is G1+G2+rest (1.467x; all-fast only 1.325x), 90 % of it is G1+G2 (24 MiB,
# 1.410x), and the best within 30 MiB is G1+G2 too.
model_py - "$out/results.json" "${model[@]}" <<'PY' || fail "the tuning is not what the model says"
import math, sys
from model_truth import Model, Tuning, label
m, t = Model(sys.argv[2:]), Tuning(sys.argv[1])
groups = [(g, label(a)) for g, a in t.groups()]
assert groups == [("G1", "h0"), ("G2", "h1"), ("G3", "s0"), ("rest", "h2+h3+s1")], groups
bad = []
for c in t.configs():
    fast = t.fast_arrays(c)
    want = m.speedup(fast)
    if c["verdict"] != "reference" and abs(math.log(c["speedup"] / want)) > 0.03:
        bad.append(f"{c['label']} ({label(fast)}): {c['speedup']:.4f}x, true {want:.4f}x")
    if want == 1 and c["verdict"] not in ("same", "reference"):
        bad.append(f"{c['label']} ({label(fast)}) gains nothing but is called {c['verdict']}")
    if want >= 1.05 and c["verdict"] != "faster":
        bad.append(f"{c['label']} ({label(fast)}) gains {want:.3f}x but is called {c['verdict']}")
assert not bad, "\n".join(bad)
assert label(t.chosen("best")) == "h0+h1+h2+h3+s1", label(t.chosen("best"))
assert label(t.chosen("ninety")) == "h0+h1", label(t.chosen("ninety"))
assert label(t.chosen("capacity")) == "h0+h1", label(t.chosen("capacity"))
print(f"{len(t.configs())} configurations within 3 % of the model, verdicts as it says;",
      "best h0+h1+h2+h3+s1, 90 % and 30M h0+h1")
PY

# The model search (the default) on the same workload: the same plans from
# fewer configurations, the others predicted
$TUNE -o "$work/m" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 4 --capacity 30M --retakes 0 --seed 7 --no-memory-probe -- \
	"$MODEL" "${exact[@]}" --noise 0.01 --seed 7 --state "$work/mstate" >"$work/ms" 2>"$work/me" ||
	fail "hmpt-tune (model search) exited $?: $(cat "$work/me")"
model_py - "$work/m/results.json" <<'PY' || fail "the model search's plans are not exhaustive search's"
import sys
from model_truth import Tuning, label
t = Tuning(sys.argv[1])
combos = t.configs("combinations")
measured = [c for c in combos if c["measured"]]
assert len(measured) < len(combos) and all(c["predicted"] for c in combos if not c["measured"])
got = [label(t.chosen(w)) for w in ("best", "ninety", "capacity")]
assert got == ["h0+h1+h2+h3+s1", "h0+h1", "h0+h1"], got
print(f"model search: {len(measured)} of {len(combos)} configurations measured, the same plans")
PY
note "$(grep 'model search:' "$work/me")"

# every run is in results.csv: 6 sites alone and 2 x all-slow to rank, then
# the 15 other combinations and 4 x all-slow, 3 rounds each, then the
# confirmation's rounds (all-slow and the two plans' configurations in each);
# no configuration is compared with another phase's reference
# (runs retaken because other load disturbed them are rows of their own,
# "retaken" in the next-to-last column, slow outliers "1" in the last: not
# counted)
runs=$(awk -F, 'NR > 1 && $(NF - 1) == "" && $NF == "" && !/,confirmation,/' "$out/results.csv" | wc -l)
[ "$runs" = $(((6 + 2 + 15 + 4) * 3)) ] || fail "results.csv has $runs runs before the confirmation, want 81"
python3 - "$out/results.json" "$out/results.csv" <<'PY' || fail "the confirmation's runs are not as results.json says"
import csv, json, sys
r = json.load(open(sys.argv[1]))
c = r["confirmation"]
rows = [x for x in csv.DictReader(open(sys.argv[2])) if x["phase"] == "confirmation" and not x["retaken"]]
assert len(rows) == c["rounds"] + sum(t["pairs"] for t in c["tried"]), (len(rows), c)
assert 8 <= c["rounds"] <= 20 and all(t["confirmed"] for t in c["tried"]), c
PY
python3 - "$out/results.json" <<'PY' || fail "a configuration is compared across phases"
import json, sys
r = json.load(open(sys.argv[1]))
phase = {c["key"]: c["phase"] for c in r["configs"]}
for c in r["configs"]:
    assert phase[c["reference"]] == c["phase"], c["label"]
assert sum(p == "combinations" for p in phase.values()) == 16, phase
PY

# The plan applied: exactly its arrays in huge pages, read back by the
# program, and the figure the model gives for them (no noise this time)
HMPT_PLAN=$out/plan-best.json LD_PRELOAD=$LIB "$MODEL" "${exact[@]}" >"$work/applied" ||
	fail "the model under plan-best.json failed"
cat "$work/applied"
model_py - "$work/applied" "${exact[@]}" <<'PY' || fail "plan-best.json is not applied as planned"
import re, sys
from model_truth import Model
m = Model(sys.argv[2:])
text = open(sys.argv[1]).read()
fast = {n: float(f) for n, f in re.findall(r"^model: (\w+) \d+ bytes fast ([0-9.]+)", text, re.M)}
assert fast == {"h0": 1, "h1": 1, "s0": 0, "h2": 1, "h3": 1, "s1": 1}, fast
t = float(re.search(r"^Time in seconds = ([0-9.]+)", text, re.M).group(1))
assert abs(t - m.true_time({"h0", "h1", "h2", "h3", "s1"})) < 1e-5, t
print(f"applied: every planned array wholly in huge pages, s0 in none; {t:.6f} s as modelled")
PY

# compare measures the applied plan as the tuning did
$TUNE compare --lib "$LIB" -m 'Time in seconds' "$out/plan-slow.json" "$out/plan-best.json" -- \
	"$MODEL" "${model[@]}" >"$work/cmp" 2>&1 || fail "compare failed: $(cat "$work/cmp")"
cat "$work/cmp"
applied=$(sed -n 's/.*plan-best.json: \([0-9.]*\)x over.*/\1/p' "$work/cmp")
grep -q ': faster$' "$work/cmp" || fail "the applied plan is not measurably faster"
python3 -c "import math, sys; sys.exit(abs(math.log($applied / 1.4667)) > 0.03)" ||
	fail "compare: ${applied}x, the model says 1.467x"

# Groups of one's own (--group): h0 with h1, and h2; the rest (s0, h3, s1)
# is the third group; no ranking runs; the best of the 8 configurations is
# the model's (computed here, with its margin over the runner-up checked)
run_profile "$work/p" "$MODEL" "${exact[@]}" >/dev/null || fail "profile failed"
h0=$(model_site "$work/p" h0) h1=$(model_site "$work/p" h1) h2=$(model_site "$work/p" h2)
[ -n "$h0" ] && [ -n "$h1" ] && [ -n "$h2" ] || fail "sites not found: $(cat "$work/p/sites.tsv")"
$TUNE -o "$work/g" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --group "$h0,$h1" --group "$h2" --search exhaustive \
	--retakes 0 --seed 7 --no-memory-probe -- "$MODEL" "${model[@]}" >"$work/gs" 2>"$work/ge" || fail "hmpt-tune --group exited $?: $(cat "$work/ge")"
model_py - "$work/g/results.json" "${model[@]}" <<'PY' || fail "the --group tuning is not what the model says"
import itertools, math, sys
from model_truth import Model, Tuning, label
m, t = Model(sys.argv[2:]), Tuning(sys.argv[1])
groups = [(g, label(a)) for g, a in t.groups()]
assert groups == [("G1", "h0+h1"), ("G2", "h2"), ("rest", "h3+s0+s1")], groups
configs = t.configs("combinations")
assert len(configs) == 8 and len(t.configs()) == 8 + 1 + len(t.r["confirmation"]["tried"]), configs
sets = [frozenset().union(*c) for k in range(4) for c in itertools.combinations([a for _, a in t.groups()], k)]
truth = sorted(((m.speedup(s), label(s)) for s in sets), reverse=True)
assert truth[0][0] > 1.03 * truth[1][0], truth  # the test's own margin
assert label(t.chosen("best")) == truth[0][1], (label(t.chosen("best")), truth)
for c in configs:
    want = m.speedup(t.fast_arrays(c))
    assert c["verdict"] == "reference" or abs(math.log(c["speedup"] / want)) < 0.03, (c["label"], want)
print("--group: G1 h0+h1, G2 h2, rest h3+s0+s1; best", truth[0][1], f"{truth[0][0]:.3f}x")
PY
note "the tuner's answer is the model's: $(grep '^best:' "$work/summary")"
