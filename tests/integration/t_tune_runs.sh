. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# hmpt-test: timeout=600
# Runs by phase where the model fits (issue 39): the modelled workload with
# four heap arrays from four sites (--min-size leaves the two 8 MiB static
# ones out), so that the four groups are the four sites, as in `make demo`.
# h0 and h1 gain 3 % and 2 % alone, h2 and h3 nothing; 1.5 % noise.
# - the ranking chose nothing, so its runs are the search's first design:
#   4 x 3 singles and 2 x 3 all-slow, and no placement of the ranking is
#   measured again as a new configuration of the search (its alone runs
#   go on as the same configuration, when the search asks for more);
# - the search takes no more runs than exhaustive search would (57), its
#   all-slow included;
# - exhaustive search on the same landscape (no confirmation: its runs are
#   the point) takes exactly those 57 runs, 18 of them the ranking's;
# - both answers are within 2 % of the model's best, h0+h1 (1.051x; h2 and
#   h3 add nothing to it).
need_thp
model=(--base 0.8 h0:32M:0.8:1.1 h1:16M:0.6:1.1 h2:12M:0.3:1 h3:12M:0.1:1 --noise 0.015
	--seed "${RUNS_SEED:-1}")
tune() { # tune DIR SEARCH [OPTION...]
	$TUNE -o "$work/$1" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 4 --retakes 0 --seed 7 --no-memory-probe --sample faults \
		--min-size 10M --search "$2" "${@:3}" -- "$MODEL" "${model[@]}" --state "$work/$1.state" \
		>"$work/$1.out" 2>"$work/$1.err" || fail "hmpt-tune ($2) exited $?: $(cat "$work/$1.err")"
}
tune model model
tune exh exhaustive --confirm 0
model_py - "$work/model" "$work/exh" "${model[@]}" <<'PY' || fail "the runs by phase are not as they should be"
import json, math, sys
from model_truth import Model, Tuning, label
reps, k = 3, 4
share = lambda n: max(1, round(math.sqrt(n)))
exhaustive = reps * (2**k - 1 + share(2**k - 1))


def phases(d):
    """runs in journal order, by the phase that took them; the configurations"""
    r = json.load(open(d + "/results.json"))
    phase = {c["key"]: c["phase"] for c in r["configs"]}
    runs = [json.loads(line) for line in open(d + "/journal.jsonl")]
    runs = [x for x in runs if "config" in x]
    took = [("ranking" if x["label"] == "slow (ranking)" or x["label"].startswith("alone: ")
             else "confirmation" if x["label"].endswith("(confirmation)") else "search", x)
            for x in runs]
    return r, phase, took


out = []
for d, search in ((sys.argv[1], "model"), (sys.argv[2], "exhaustive")):
    r, phase, took = phases(d)
    n = {p: sum(1 for q, _ in took if q == p) for p in ("ranking", "search", "confirmation")}
    # the ranking came first, and every configuration it measured is one of
    # the combination phase's: all-slow and each group alone
    assert [q for q, _ in took[:n["ranking"]]] == ["ranking"] * n["ranking"], took[:20]
    assert n["ranking"] == reps * (k + share(k)), n
    assert all(phase[x["config"]] == "combinations" for q, x in took if q == "ranking"), phase
    assert not [c for c in r["configs"] if c["phase"] == "ranking"], "a placement of the ranking is its own"
    # no placement twice in the ranking and the search: one configuration each
    fast = [frozenset(c["fast_sites"]) for c in r["configs"]
            if c["phase"] == "combinations" and c["runs"]]
    assert len(fast) == len(set(fast)), "a placement measured as two configurations"
    combos = n["ranking"] + n["search"]
    assert combos <= exhaustive, (search, combos, exhaustive)
    if search == "exhaustive":
        assert combos == exhaustive, (combos, exhaustive)
    m, t = Model(sys.argv[3:]), Tuning(d + "/results.json")
    best = label(t.chosen("best"))
    top = m.speedup(("h0", "h1"))
    assert m.speedup(t.chosen("best")) >= 0.98 * top, (search, best, top)
    ref = sum(1 for q, x in took if q == "search" and x["label"] == "slow")
    out.append(f"{search}: {sum(n.values())} runs: ranking {n['ranking']}, search {n['search']} "
               f"(all-slow {ref}), confirmation {n['confirmation']}; best {best} "
               f"({m.speedup(t.chosen('best')):.3f}x true)")
print("\n".join(out))
PY
note "$(grep -h 'model search:' "$work/model.err")"
