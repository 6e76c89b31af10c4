. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# hmpt-tune --slurm on a real Slurm (slurmctld, slurmd and munged started here
# on localhost, and stopped after): every run is a batch job on a node of its
# own, the journal says where each ran, and the choice is the serial run's
# (the random-access arrays ranked first and in plan-best's fast pool).
need_thp
cluster=$top/tests/slurm/cluster.sh
env=$("$cluster" start 2>"$work/slurm.err")
rc=$?
[ $rc = 0 ] || { [ $rc = 77 ] && prereq_missing slurmctld slurmd slurm-client munge -- "$(tail -n 1 "$work/slurm.err")"; fail "the local Slurm failed: $(cat "$work/slurm.err")"; }
eval "$env"
trap '"$cluster" stop; rm -rf "$work"' EXIT
note "local Slurm up: $SLURM_CONF"

args=(--lib "$LIB" --pools thp,4k -m 'Time in seconds' --reps 2)
prog=("$DEMO" -s 512 -i 1)
$TUNE -o "$work/slurm" "${args[@]}" --slurm --parallel 2 --time 10 -- "${prog[@]}" \
	>"$work/s1" 2>"$work/e1" || fail "hmpt-tune --slurm exited $?: $(cat "$work/e1")"
cat "$work/s1"
$TUNE -o "$work/serial" "${args[@]}" -- "${prog[@]}" >"$work/s2" 2>"$work/e2" ||
	fail "the serial hmpt-tune exited $?: $(cat "$work/e2")"

# every run of the Slurm tuning ran as a job, on this node, and says so
python3 - "$work/slurm" "$(hostname -s)" <<'PY' || fail "the journal does not say where the runs ran"
import json, os, sys
d, host = sys.argv[1], sys.argv[2]
runs = [json.loads(l) for l in open(d + "/journal.jsonl") if '"config"' in l]
# ranking: 4 sites alone and 2 of all-slow, twice; then 15 combinations
# and 4 of all-slow, twice
assert len(runs) == 50, len(runs)
bad = [r for r in runs if r.get("host") != host or r["status"] != 0]
assert not bad, bad[:3]
jobs = [f for f in os.listdir(d + "/runs") if f.endswith(".sbatch")]
assert len(jobs) >= 50, len(jobs)
print(f"{len(runs)} runs, each a batch job on {host}")
PY

site_of() { echo "demo.c:$(grep -n "= $1(" "$top/bench/demo.c" | cut -d: -f1)"; }
# (as in t_tune_demo: the table and the counts ranked first and second, in
# either order at 2 runs each; the table in plan-best's fast pool; the
# counts, 1.07x, may lose their place there to chance)
for d in slurm serial; do
	best=$(plan_fast_symbols "$work/$d/plan-best.json")
	top2=$(group_of "$work/$d/results.json" "$(site_of alloc_table)")$(group_of "$work/$d/results.json" "$(site_of alloc_counts)")
	[ "$top2" = G1G2 ] || [ "$top2" = G2G1 ] || fail "$d: the table and the counts are $top2, not G1 and G2"
	grep -q "($(site_of alloc_table))" <<<"$best" || fail "$d: alloc_table is not in plan-best.json's fast pool: $best"
done
g() { python3 -c 'import json,sys; print(sorted(s["id"] for s in json.load(open(sys.argv[1]))["sites"] if s["group"] in ("G1","G2")))' "$1"; }
[ "$(g "$work/slurm/results.json")" = "$(g "$work/serial/results.json")" ] ||
	fail "the groups differ: slurm $(g "$work/slurm/results.json"), serial $(g "$work/serial/results.json")"
note "same choice as the serial run: G1 and G2 are the table and the counts, the table in plan-best's fast pool"
note "slurm: $(grep '^best:' "$work/s1")"
note "serial: $(grep '^best:' "$work/s2")"
