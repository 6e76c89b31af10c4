. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# When the noise hides --min-gain, the summary says so, and what would tell
# it: the modelled workload with nothing to gain (every ratio 1) and 5 %
# seeded noise (tests/progs/model.c; --retakes 0, --seed 7 and --no-memory-probe,
# so that load here cannot
# shift the draws), 3 runs per configuration, no confirmation.  The smallest
# speedup such a tuning can show is above 10 % at seeds 1-3 (11.4, 11.7 and
# 15.8 %), so:
# - --min-gain 5: "too noisy here to tell --min-gain 5 %; --reps N would",
#   N results.json's reps_needed (18, 19 and 33 at seeds 1-3);
# - --min-gain 1: out of reach within --reps 100 (reps_needed null);
# and neither places anything.  NOISY_SEED picks another seed.
need_thp
model=(--base 1 h0:8M:0.5:1 h1:4M:0.3:1 --noise 0.05 --seed "${NOISY_SEED:-1}")
tune() { # tune MIN-GAIN
	$TUNE -o "$work/g$1" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 2 --confirm 0 \
		--retakes 0 --seed 7 --no-memory-probe --sample faults --min-gain "$1" -- "$MODEL" "${model[@]}" --state "$work/g$1.state" \
		>"$work/g$1.out" 2>"$work/g$1.err" || fail "hmpt-tune --min-gain $1 exited $?: $(cat "$work/g$1.err")"
	cat "$work/g$1.out"
}
tune 5
tune 1
python3 - "$work/g5" "$work/g1" <<'PY' || fail "the summary does not say the tuning was too noisy, or not as results.json does"
import json, re, sys
for d, gain in zip(sys.argv[1:], (5, 1)):
    r = json.load(open(d + "/results.json"))
    z = r["noise"]
    text = open(d + ".out").read()
    m = re.search(r"The smallest speedup this tuning could show is ([0-9.]+) % \(80 % power; "
                  r"pooled sd [0-9.]+ %, 3 runs per configuration\): (.*)", text)
    assert m, f"--min-gain {gain}: no 'smallest speedup' line in the summary"
    shown = float(m.group(1))
    assert abs(shown - 100 * (z["detectable_speedup"] - 1)) < 0.05, (shown, z["detectable_speedup"])
    assert shown > gain, f"--min-gain {gain}: {shown} % is not above it"
    if gain == 5:
        n = z["reps_needed"]
        assert n and 3 < n <= 100, n
        want = f"too noisy here to tell --min-gain 5 %; --reps {n} would, or tune on a quiet node."
    else:
        assert z["reps_needed"] is None, z["reps_needed"]
        want = ("too noisy here to tell --min-gain 1 %, out of reach within --reps 100; "
                "tune on a quiet node.")
    assert m.group(2) == want, (m.group(2), want)
    placed = [c["label"] for c in r["configs"] if c["verdict"] == "faster"]
    assert not placed, f"--min-gain {gain}: {placed} called faster with nothing to gain"
    assert "places nothing in the fast pool" in text, "a plan places something"
    print(f"ok --min-gain {gain}: smallest speedup shown {shown} %: {want}")
PY
echo ok
