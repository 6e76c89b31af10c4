. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# The same tuning of the modelled workload run three ways comes to the same
# answer, the model's (model_truth.py): serially, with --launcher (Open MPI,
# 2 ranks: the job is measured as a whole, rank 0 prints the figure), and
# with --slurm on a real Slurm of two nodes (slurmctld, two slurmd and munged
# started here on localhost, and stopped after), where every run is a batch
# job on a node of its own, each confirmation round one job (its runs paired
# on one node), rounds on both nodes at once, and the journal says where each
# run ran.
need_thp
cluster=$top/tests/slurm/cluster.sh
env=$(HMPT_SLURM_NODES=2 "$cluster" start 2>"$work/slurm.err")
rc=$?
[ $rc = 0 ] || { [ $rc = 77 ] && prereq_missing slurm munge -- "$(tail -n 1 "$work/slurm.err")"; fail "the local Slurm failed: $(cat "$work/slurm.err")"; }
eval "$env"
trap '"$cluster" stop; rm -rf "$work"' EXIT
note "local Slurm up: $SLURM_CONF"

exact=(--base 1 h0:8M:2:2 h1:4M:1.4:2 s0:-:0.4:2 h2:4M:0.1:1)
args=(--lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 3 --reps 2 --retakes 0 --seed 7 --no-memory-probe --sample faults)
# each way keeps its own noise counts (--state): the runs' order differs
seed=${HMPT_TEST_SEED:-5}
node=()
tune() { # NAME TUNE-OPTIONS...
	local name=$1; shift
	$TUNE -o "$work/$name" "${args[@]}" "$@" -- "$MODEL" "${exact[@]}" "${node[@]}" --noise 0.01 --seed $seed \
		--state "$work/$name.state" >"$work/$name.out" 2>"$work/$name.err" ||
		fail "hmpt-tune ($name) exited $?: $(cat "$work/$name.err")"
}
# on Slurm, node n2 is 5 % slower (modelled): the pairs cancel it, the
# summary says it
node=(--node n2:1.05)
tune slurm --slurm --parallel 2 --time 10
cat "$work/slurm.out"
node=()
tune serial
command -v mpirun.openmpi >/dev/null || prereq_missing openmpi -- "no mpirun.openmpi for the --launcher run"
tune mpi --launcher "mpirun.openmpi --allow-run-as-root --oversubscribe -np 2"
ways=(slurm serial mpi)

# every run of the Slurm tuning ran as a job on a node and says which; each
# confirmation round was one job (all its runs on one node), and the rounds
# went to both nodes
python3 - "$work/slurm" <<'PY' || fail "the journal does not say where the runs ran, or a round was split"
import json, os, sys
from collections import defaultdict
d = sys.argv[1]
runs = [json.loads(l) for l in open(d + "/journal.jsonl") if '"config"' in l]
# ranking: 5 sites alone (s1 too) and 2 of all-slow, twice; then the
# combinations the model search asked for, with their all-slow runs
res = json.load(open(d + "/results.json"))
assert len(runs) == sum(len(c["runs"]) for c in res["configs"]) >= 14 + 4, len(runs)
bad = [r for r in runs if r.get("host") not in ("n1", "n2") or r["status"] != 0]
assert not bad, bad[:3]
confirm = [r for r in runs if r["label"].endswith("(confirmation)")]
rounds = defaultdict(set)
for r in confirm:
    rounds[r["rep"]].add(r["host"])
assert len(rounds) == res["confirmation"]["rounds"] >= 6, (len(rounds), res["confirmation"])
split = {k: v for k, v in rounds.items() if len(v) != 1}
assert not split, f"rounds on more than one node: {split}"
nodes = sorted(set().union(*rounds.values()))
assert nodes == ["n1", "n2"], nodes
# each round's job began with a warm-up run of all-slow, not counted
warm = [f for f in os.listdir(d + "/runs") if f.startswith("warm-up.round-") and f.endswith(".log")]
assert len(warm) == len(rounds), warm
# one job per run before the confirmation, one per round in it
jobs = [f for f in os.listdir(d + "/runs") if f.endswith(".sbatch")]
assert len(jobs) >= len(runs) - len(confirm) + len(rounds), len(jobs)
per = {n: sum(1 for v in rounds.values() if n in v) for n in nodes}
# rounds go out two at a time, one to each idle node
assert abs(per["n1"] - per["n2"]) <= 1, per
print(f"{len(runs)} runs, each a batch job on n1 or n2; {len(rounds)} confirmation rounds, "
      f"each one job on one node: {per}")
# n2 modelled 5 % slower: all-slow's medians 5 % apart, told apart.  Which
# node a round lands on, and so which seeded noise draw each node's runs
# get, follows the scheduler: 1 % noise puts the medians of 4 runs each
# within 1.02-1.08 at 3.5 sd
ne = res["confirmation"]["nodes"]
assert sorted(ne["per_node"]) == nodes, ne
assert {n: v["runs"] for n, v in ne["per_node"].items()} == per, ne
assert 1.02 < ne["spread"] < 1.08 and ne["differ"], ne
print(f"nodes: spread {ne['spread']:.4f}, p = {ne['p']:.2g}")
PY

# h0 1.26x alone, h1 1.17x, s0 1.04x; best all fast (1.63x), 90 % h0+h1 (1.53x)
model_py - "$work" "${ways[@]}" -- "${exact[@]}" <<'PY' || fail "the ways differ, or differ from the model"
import sys
from model_truth import Model, Tuning, label
sep = sys.argv.index("--")
work, ways, m = sys.argv[1], sys.argv[2:sep], Model(sys.argv[sep + 1:])
for w in ways:
    t = Tuning(f"{work}/{w}/results.json")
    got = ([(g, label(a)) for g, a in t.groups()], label(t.chosen("best")), label(t.chosen("ninety")))
    want = ([("G1", "h0"), ("G2", "h1"), ("rest", "h2+s0+s1")], "h0+h1+h2+s0+s1", "h0+h1")
    assert got == want, (w, got)
    print(f"{w}: groups {got[0]}, best {got[1]}, 90 % {got[2]}")
PY
note "slurm: $(grep '^best:' "$work/slurm.out")"
note "serial: $(grep '^best:' "$work/serial.out")"
