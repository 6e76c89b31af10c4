. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# The journal: a tuner stopped by SIGTERM says so and exits 143; one killed
# by SIGKILL leaves no measurement running; rerunning the same command
# resumes, repeats no finished run, and comes to the answer an uninterrupted
# tuning of the modelled workload comes to (model_truth.py).
need_thp
out=$work/tune
prog=("$MODEL" --base 1 h0:8M:2:2 h1:4M:1:2 h2:4M:0.4:2 --noise 0.01 --seed 3 --state "$work/state")
cmd=("$TUNE" -o "$out" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 3 --reps 2 --retakes 0 --seed 7 --no-memory-probe --sample faults -- "${prog[@]}")
runs() { cat "$out/journal.jsonl" 2>/dev/null | grep -c '"config"'; }
wait_runs() { # N: until the journal has N runs
	for _ in $(seq 600); do
		[ "$(runs)" -ge "$1" ] && return 0
		sleep 0.05
	done
	fail "the journal never reached $1 runs"
}

"${cmd[@]}" >"$work/o1" 2>"$work/e1" &
pid=$!
wait_runs 3
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] || fail "SIGTERM: exit status $rc, want 143"
grep -q 'interrupted; the runs so far are in' "$work/e1" || fail "no word on the interruption: $(cat "$work/e1")"
first=$(runs)
note "stopped by SIGTERM after $first runs"

"${cmd[@]}" >"$work/o2" 2>"$work/e2" &
pid=$!
wait_runs $((first + 3))
kill -KILL $pid
wait $pid 2>/dev/null
sleep 0.5
# this test's runs only (their --state file): t_slurm's share the model's
# first arguments, and another checkout's may be running beside this one
pgrep -f -- "--state $work/state" >/dev/null && fail "a measurement run outlived the killed tuner"
grep -q "resuming from .*: $first runs done" "$work/e2" || fail "no resume message: $(cat "$work/e2")"
second=$(runs)
note "killed by SIGKILL after $second runs"

"${cmd[@]}" >"$work/o3" 2>"$work/e3" || fail "the resumed tuner failed: $(cat "$work/e3")"
grep -q "resuming from .*: $second runs done" "$work/e3" || fail "no resume message: $(cat "$work/e3")"
python3 - "$out/journal.jsonl" "$out/results.json" <<'PY' || fail "runs repeated or missing"
import json, math, sys
seen = {}
for line in open(sys.argv[1]):
    try:
        j = json.loads(line)
    except ValueError:
        continue
    if "config" in j and "retaken" not in j:  # a retaken run is superseded
        k = (j["config"], j["rep"])
        assert k not in seen, f"run {k} done twice"
        seen[k] = 1
# 2 runs of each configuration; of each phase's all-slow reference, 2 x
# round(sqrt(configurations compared with it))
configs = json.load(open(sys.argv[2]))["configs"]
for c in configs:
    reps = sorted(r for key, r in seen if key == c["key"])
    if c["phase"] == "confirmation":
        continue  # rounds from the one it was first tried in, as many as it needed
    if c["phase"] == "ranking":
        k = sum(1 for o in configs if o["reference"] == c["key"]) - 1
        want = 2 * max(1, round(math.sqrt(k))) if k >= 0 else 2
    else:  # the model search: --reps runs a round, none for a prediction
        want = len(reps)
        assert c["measured"] == (want > 0) and (want % 2 == 0 or c["verdict"] == "reference"), c
    assert reps == list(range(want)), f"{c['label']}: runs {reps}, want {want}"
assert len(seen) == sum(1 for c in configs for r in c["runs"] if "retaken" not in r), \
    "runs outside results.json"
print(f"{len(seen)} runs of {len(configs)} configurations, none twice")
PY
[ -s "$out/plan-best.json" ] || fail "no plan after resuming"
# h0 1.29x alone, h1 1.13x, h2 1.05x (with the static arrays, worth nothing:
# the rest); all fast is best (1.63x), h0+h1 (1.52x) the smallest within 90 %
model_py - "$out/results.json" "${prog[@]:1}" <<'PY' || fail "the resumed tuning is not the model's answer"
import sys
from model_truth import Model, Tuning, label
m, t = Model(sys.argv[2:]), Tuning(sys.argv[1])
groups = [(g, label(a)) for g, a in t.groups()]
assert groups == [("G1", "h0"), ("G2", "h1"), ("rest", "h2+s0+s1")], groups
assert label(t.chosen("best")) == "h0+h1+h2+s0+s1", label(t.chosen("best"))
assert label(t.chosen("ninety")) == "h0+h1", label(t.chosen("ninety"))
print("resumed twice: groups", groups, "best all, 90 % h0+h1")
PY
# The same journal under exhaustive search: its runs serve, the rest are
# measured, and the answer is the same
done_runs=$(runs)
"$TUNE" -o "$out" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 3 --reps 2 \
	--retakes 0 --seed 7 --no-memory-probe --sample faults --search exhaustive -- "${prog[@]}" >"$work/o4" 2>"$work/e4" ||
	fail "exhaustive search on the model search's journal failed: $(cat "$work/e4")"
grep -q "resuming from .*: $done_runs runs done" "$work/e4" || fail "no resume message: $(cat "$work/e4")"
model_py - "$out/results.json" <<'PY' || fail "exhaustive search after the model search differs"
import sys
from model_truth import Tuning, label
t = Tuning(sys.argv[1])
assert all(c["measured"] for c in t.configs("combinations"))
assert label(t.chosen("best")) == "h0+h1+h2+s0+s1" and label(t.chosen("ninety")) == "h0+h1"
print("then exhaustive search on the same journal: the same answer")
PY
