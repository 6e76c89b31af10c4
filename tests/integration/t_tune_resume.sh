. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# The journal: a tuner stopped by SIGTERM says so and exits 143; one killed
# by SIGKILL leaves no measurement running; rerunning the same command
# resumes and repeats no finished run.
out=$work/tune
cmd=("$TUNE" -o "$out" --lib "$LIB" --pools 4k,system --reps 2 -- "$DEMO" -s 32 -i 1)
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
pgrep -f "$DEMO -s 32" >/dev/null && fail "a measurement run outlived the killed tuner"
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
    if "config" in j:
        k = (j["config"], j["rep"])
        assert k not in seen, f"run {k} done twice"
        seen[k] = 1
# 2 runs of each configuration; of each phase's all-slow reference, 2 x
# round(sqrt(configurations compared with it))
configs = json.load(open(sys.argv[2]))["configs"]
for c in configs:
    k = sum(1 for o in configs if o["reference"] == c["key"]) - 1
    want = 2 * max(1, round(math.sqrt(k))) if k >= 0 else 2
    reps = sorted(r for key, r in seen if key == c["key"])
    assert reps == list(range(want)), f"{c['label']}: runs {reps}, want {want}"
assert len(seen) == sum(len(c["runs"]) for c in configs), "runs outside results.json"
print(f"{len(seen)} runs of {len(configs)} configurations, none twice")
PY
[ -s "$out/plan-best.json" ] || fail "no plan after resuming"
