. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# --split on an MG-like modelled workload (tests/progs/model.c: its time
# follows from where its pages are, read back): three heap arrays of about a
# third each (32, 40 and 32 MiB; with the model's two 8 MiB static arrays the
# footprint is 120 MiB), two worth the same and one little, so that the 90 %
# plan in whole groups needs two of them (72 MiB).  The time with h0 fast and
# a share f of h1 is 2.175 + 2.1 - 0.75 (1 + f) s against all-fast's 2.7 s:
# 90 % of the fastest needs f >= 0.7.  Halving from the whole group: 50 %
# (below), 75 % (reaches), 62.5 % (13 of h1's 20 granules, 65 %: below), so
# plan-90 puts 75 % of h1 in the fast pool: 62 MiB.
need_thp
model=(--base 2.175 h0:32M:1:4 h1:40M:1:4 h2:32M:0.1:4 --noise 0.002 --seed 3 --state
	"$work/state")
out=$work/tune
$TUNE -o "$out" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 3 --split -- \
	"$MODEL" "${model[@]}" >"$work/summary" 2>"$work/err" ||
	fail "hmpt-tune exited $?: $(cat "$work/err")"
cat "$work/summary"
grep 'split:' "$work/err" || fail "no split steps on standard error: $(cat "$work/err")"
$TUNE plan check -q "$out/plan-90.json" || fail "plan-90.json does not pass plan check"

# the plan: h0 whole, 75 % of h1, format 3; the footprint below the whole-group one
python3 - "$out" <<'PY' || fail "plan-90 is not the refined one"
import json, sys
out = sys.argv[1]
plan = json.load(open(f"{out}/plan-90.json"))
assert plan["format_version"] == 3, plan["format_version"]
fast = [g for g in plan["groups"] if g["pool"] == "fast"]
shares = sorted(g.get("share", 1) for g in fast)
assert shares == [0.75, 1], shares
res = json.load(open(f"{out}/results.json"))
key = res["chosen"]["ninety"]["key"]
ninety = [c for c in res["configs"] if c["key"] == key][0]
binary = [c for c in res["configs"] if c["phase"] == "combinations" and "%" not in c["label"]
          and c["verdict"] != "reference" and c["speedup"]
          and c["speedup"] >= 0.9 * max(x["speedup"] or 0 for x in res["configs"]
                                        if x["phase"] == "combinations")]
smallest = min(c["fast_bytes"] for c in binary)
assert ninety["fast_bytes"] < smallest, (ninety, smallest)
assert abs(ninety["fast_bytes"] - (32 + 30) * 2**20) < 2**20, ninety["fast_bytes"]
print(f"plan-90: {ninety['fast_bytes'] / 2**20:.0f} MiB in the fast pool "
      f"(whole groups: {smallest / 2**20:.0f} MiB)")
PY

# the plan placed exactly that: the model reads back 75 % of h1 in huge pages
HMPT_PLAN=$out/plan-90.json LD_PRELOAD=$LIB "$MODEL" --base 2.175 h0:32M:1:4 h1:40M:1:4 \
	h2:32M:0.1:4 >"$work/apply" 2>&1 || fail "the model under plan-90: $(cat "$work/apply")"
grep -q '^model: h0 .* fast 1.0000' "$work/apply" || fail "h0 not all fast: $(cat "$work/apply")"
grep -q '^model: h1 .* fast 0.7500' "$work/apply" || fail "h1 not 75 % fast: $(cat "$work/apply")"
grep -q '^model: h2 .* fast 0.0000' "$work/apply" || fail "h2 not slow: $(cat "$work/apply")"
# --capacity 50M (all 2^K measured, so that each array alone is): the best
# whole group that fits is one array (32 or 40 MiB); the room left is filled
# with a share of the other (whole 2 MiB granules, half a granule per block
# kept in hand for the rounding): at least 45 MiB, 90 % of the capacity
$TUNE -o "$work/cap" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 3 --split \
	--search exhaustive --capacity 50M -- "$MODEL" "${model[@]}" >"$work/capsummary" \
	2>"$work/caperr" ||
	fail "hmpt-tune --capacity exited $?: $(cat "$work/caperr")"
grep "split: plan-capacity" "$work/caperr" || fail "no capacity fill: $(cat "$work/caperr")"
$TUNE plan check -q "$work/cap/plan-capacity.json" || fail "plan-capacity.json: plan check"
python3 - "$work/cap" <<'PY' || fail "plan-capacity does not fill the capacity"
import json, sys
res = json.load(open(f"{sys.argv[1]}/results.json"))
key = res["chosen"]["capacity"]["key"]
c = [c for c in res["configs"] if c["key"] == key][0]
plan = json.load(open(f"{sys.argv[1]}/plan-capacity.json"))
shares = sorted(g.get("share", 1) for g in plan["groups"] if g["pool"] == "fast")
assert len(shares) == 2 and shares[0] < 1, shares
assert 0.9 * 50 * 2**20 <= c["fast_bytes"] <= 50 * 2**20, c["fast_bytes"]
print(f"plan-capacity: {c['label']}, {c['fast_bytes'] / 2**20:.0f} of 50 MiB")
PY
note "plan-90 with 75 % of h1 in the fast pool: 62 MiB, where whole groups need 72 (of 120)"
