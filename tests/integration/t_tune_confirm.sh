. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# hmpt-test: timeout=600
# The confirmation phase on the modelled workload (tests/progs/model.c: its
# figure follows exactly from where its pages are, with seeded noise):
# - the chosen configurations are measured again in fresh rounds, paired with
#   all-slow runs, and the confirmed figures are what results.json, the
#   summary and the plans' provenance give, beside the search's;
# - the confirmed interval covers the model's true speedup, and compare of
#   the written plan (more fresh runs) lands within it;
# - a speedup the search found by chance (a null landscape at --confidence
#   80, seed 13: its rest group at 1.076x) is not confirmed, the summary
#   says so, and the plans place nothing.
need_thp
model=(--base 1 h0:8M:1.0:2 h1:4M:0.4:2 h2:4M:0:1 --noise 0.02 --seed 3 --state "$work/state")
out=$work/tune
# --retakes 0: a retake is one more run of the model, which would shift its
# seeded noise with this machine's load
# --sample faults: the groups and the seeded figures below follow from the
# pages the model touches; timer samples (auto here) follow where this
# machine's CPU time went, which differs from run to run
$TUNE -o "$out" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 3 --retakes 0 --seed 8 --no-memory-probe --sample faults -- \
	"$MODEL" "${model[@]}" >"$work/summary" 2>"$work/err" ||
	fail "hmpt-tune exited $?: $(cat "$work/err")"
cat "$work/summary"
grep -q '^confirmation: the choices measured again' "$work/summary" || fail "no confirmation in the summary"
grep -q 'confirmed in [0-9]* rounds; the search: ' "$work/summary" || fail "the best line lacks the confirmed figure"
model_py - "$out" "${model[@]}" <<'PY' || fail "the confirmation is not what the model says"
import json, sys
from model_truth import Model, Tuning, label
out = sys.argv[1]
m, t = Model(sys.argv[2:]), Tuning(out + "/results.json")
c = t.r["confirmation"]
assert c and abs(c["confidence"] - (1 - 0.05 / 5)) < 1e-12 and c["claimed_false_faster"] == 0.05, c
best = c["plans"]["best"]
assert best and best["confirmed"] and 8 <= best["pairs"] <= 20, best
fast = frozenset(t.site_array[i] for i in best["fast_sites"])
truth = m.speedup(fast)
assert label(fast) == label(t.chosen("best")) == "h0+h1", (label(fast), label(t.chosen("best")))
assert best["lo"] <= truth <= best["hi"], (best, truth)
assert t.r["chosen"]["best"]["speedup"] == best["speedup"]
# the confirmation's own configurations, paired with their own all-slow runs
conf = t.configs("confirmation")
assert len(conf) == 1 + len(c["tried"]) and all(x["reference"] == conf[0]["reference"] for x in conf)
prov = json.load(open(out + "/plan-best.json"))["provenance"]["measurement"]
assert f"confirmed {best['speedup']:.3f}x" in prov and "the search measured" in prov, prov
print(f"plan-best {label(fast)}: confirmed {best['speedup']:.3f}x ({best['lo']:.3f}-{best['hi']:.3f},",
      f"{best['pairs']} rounds), true {truth:.3f}x, the search said {best['search_speedup']:.3f}x")
PY
# compare of the written plan: more fresh runs of the same model
$TUNE compare --lib "$LIB" -m 'Time in seconds' "$out/plan-slow.json" "$out/plan-best.json" -- \
	"$MODEL" "${model[@]}" >"$work/cmp" 2>&1 || fail "compare failed: $(cat "$work/cmp")"
cat "$work/cmp"
grep -q 'Wilcoxon signed-rank interval' "$work/cmp" || fail "compare did not pair its rounds"
applied=$(sed -n 's/.*plan-best.json: \([0-9.]*\)x over.*/\1/p' "$work/cmp")
python3 - "$out/results.json" "$applied" <<'PY' || fail "compare disagrees with the confirmed figure"
import json, sys
b = json.load(open(sys.argv[1]))["confirmation"]["plans"]["best"]
a = float(sys.argv[2])
assert b["lo"] <= a <= b["hi"], (a, b)
print(f"compare {a:.3f}x, within the confirmed interval {b['lo']:.3f}-{b['hi']:.3f}")
PY

# A null landscape whose search calls a group faster by chance (at
# --confidence 80 its verdicts allow 10 %; seed 13 is such a tuning): the
# confirmation, at 80 % over 5 too, refuses it
null=(h0:4M:1:1 h1:2M:1:1 --noise 0.05 --seed 13 --state "$work/nstate")
$TUNE -o "$work/null" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 2 --retakes 0 --seed 8 --no-memory-probe --sample faults \
	--confidence 80 -- \
	"$MODEL" "${null[@]}" >"$work/nsummary" 2>"$work/nerr" ||
	fail "hmpt-tune (null) exited $?: $(cat "$work/nerr")"
cat "$work/nsummary"
grep -q '^rest .* faster$' "$work/nsummary" || fail "the search no longer calls rest faster by chance: choose another seed"
grep -q ' rest .* NOT confirmed: .*: not faster$' "$work/nsummary" || fail "the confirmation did not refuse rest"
grep -q '^The search found rest .* but fresh runs beside all-slow did not confirm it' "$work/nsummary" ||
	fail "the summary does not say that the search's speedup was not confirmed"
python3 - "$work/null" <<'PY' || fail "a refused speedup was placed"
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/results.json"))
assert r["chosen"]["best"] is None and r["chosen"]["ninety"] is None, r["chosen"]
assert r["confirmation"]["plans"]["best"] is None
assert not any(t["confirmed"] for t in r["confirmation"]["tried"]), r["confirmation"]["tried"]
for plan in ("plan-best", "plan-90"):
    p = json.load(open(f"{d}/{plan}.json"))
    assert not [g for g in p["groups"] if g["pool"] == "fast" and g["sites"]], plan
    m = p["provenance"]["measurement"]
    assert "was not confirmed faster in" in m and "nothing is placed" in m, m
print("null landscape: the search's chance speedup was not confirmed; nothing placed")
PY
