. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# The shim in every rank of an MPI job (Open MPI's mpirun and MPICH's Hydra):
# per-rank profiles named by rank and merged by site (the same identity in
# every rank), one plan applied in every rank, the fast pool's budget shared
# by the ranks on the node, one summary line for the job, and one line for
# the job about a plan group that matched nothing.
need_thp
have_ompi=0 have_mpich=0
command -v mpirun.openmpi >/dev/null && [ -x "$P/mpi_ranks_ompi" ] && have_ompi=1
command -v mpiexec.mpich >/dev/null && [ -x "$P/mpi_ranks_mpich" ] && have_mpich=1
# both flavours: a test that quietly ran only one would hide the other's failures
[ $have_ompi = 1 ] && [ $have_mpich = 1 ] ||
	prereq_missing openmpi mpich -- \
		"needs both Open MPI and MPICH, each with its launcher and mpi_ranks_* built by make progs (found: ompi=$have_ompi mpich=$have_mpich)"
ompi=(mpirun.openmpi --allow-run-as-root --oversubscribe)
mpich=(mpiexec.mpich)

# profile NAME NP LAUNCHER...: hmpt-tune profile of the job; checks the merge
profile() {
	local name=$1 np=$2 prog; shift 2
	prog=$P/mpi_ranks_$name
	$TUNE profile -q --lib "$LIB" -o "$work/$name$np" -- "$@" -np "$np" "$prog" >"$work/out" 2>&1 ||
		fail "$name, $np ranks: the profiled job failed: $(cat "$work/out")"
	grep -q '^checksum ok' "$work/out" || fail "$name, $np ranks: wrong results: $(cat "$work/out")"
	python3 - "$work/$name$np" "$np" <<'PY' || fail "$name, $np ranks: profiles not as expected"
import json, os, re, sys
d, np = sys.argv[1], int(sys.argv[2])
files = sorted(f for f in os.listdir(d) if re.match(r"profile\.\d+\.rank\d+\.json$", f))
ranks = sorted(int(re.search(r"rank(\d+)", f).group(1)) for f in files)
assert ranks == list(range(np)), ("rank-stamped files", files)
p = json.load(open(d + "/profile.json"))
procs = p["processes"]
assert sorted(q["mpi"]["rank"] for q in procs) == list(range(np)), procs
assert all(q["mpi"]["size"] == np for q in procs), procs
assert p["process"]["mpi"]["rank"] == 0, p["process"]
rows = [l.rstrip("\n").split("\t") for l in open(d + "/sites.tsv")][1:]
by_fn = {r[7]: r for r in rows}
for fn, mib in (("alloc_field", 24), ("alloc_halo", 8)):
    r = by_fn[fn]
    assert int(r[1]) == np * mib << 20 and int(r[3]) == np, (fn, r[:4])
print(f"{np} ranks: {len(files)} rank profiles merged; alloc_field {np} x 24 MiB, alloc_halo {np} x 8 MiB")
PY
}

# plan CAPACITY: alloc_field in a thp pool of that capacity (or none), the rest 4k
plan() {
	local frames
	frames=$(awk -F'\t' '$8 == "alloc_field" { print $10 }' "$work/$first/sites.tsv" |
		python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().split()))')
	python3 - "$1" "$frames" >"$work/plan.json" <<'PY'
import json, sys
cap, frames = sys.argv[1], json.loads(sys.argv[2])
huge = {"pages": "thp"}
if cap != "none":
    huge["capacity"] = cap
print(json.dumps({"format": "hmpt-plan", "format_version": 1,
                  "pools": {"huge": huge, "small": {"pages": "4k"}},
                  "default_pool": "small",
                  "groups": [{"name": "field", "pool": "huge", "sites": [{"frames": frames}]}]}))
PY
}

# run LAUNCHER...: the job under the plan; its output in $work/run
run() {
	HMPT_PLAN=$work/plan.json LD_PRELOAD=$LIB "$@" >"$work/run" 2>&1 ||
		fail "the job under the plan failed: $(cat "$work/run")"
	grep -q '^checksum ok' "$work/run" || fail "wrong results under the plan: $(cat "$work/run")"
}
huge_ranks() { grep -c 'field huge \(9[0-9]\|1[0-9][0-9]\)% halo huge 0%' "$work/run"; }

for name in ompi mpich; do
	eval "launcher=(\"\${$name[@]}\")"
	for np in 2 4; do
		profile $name $np "${launcher[@]}"
		first=$name$np # the plan names sites by this program's frames
	done
	prog=$P/mpi_ranks_$name

	# the plan in every rank: each rank's field in huge pages, its halo not
	plan none
	run "${launcher[@]}" -np 4 "$prog"
	n=$(huge_ranks)
	[ "$n" = 4 ] || fail "$name: the plan took in $n of 4 ranks: $(cat "$work/run")"
	[ -z "$(grep '^hmpt' "$work/run")" ] || fail "$name: the shim spoke without a cause: $(grep '^hmpt' "$work/run")"
	note "$name: plan applied in 4 of 4 ranks"

	# a plan with a group that matches nothing in any rank (a stale one): the
	# job's one line, said by the last rank that held the plan
	python3 - "$work/plan.json" "$(basename "$prog")" >"$work/stale.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["groups"].append({"name": "gone", "pool": "huge", "sites": [{"frames": [sys.argv[2] + "!0x1"]}]})
print(json.dumps(p))
PY
	HMPT_PLAN=$work/stale.json LD_PRELOAD=$LIB "${launcher[@]}" -np 2 "$prog" >"$work/run" 2>&1 ||
		fail "$name: the job under the stale plan failed: $(cat "$work/run")"
	grep -q '^checksum ok' "$work/run" || fail "$name: wrong results under the stale plan: $(cat "$work/run")"
	[ "$(grep '^hmpt' "$work/run")" = "hmpt: $work/stale.json: group gone (1 site) matched no allocation: was the program rebuilt or its libraries updated?" ] ||
		fail "$name: want the exit line once for the job: $(grep '^hmpt' "$work/run")"
	note "$name: a stale group, 2 ranks: one exit line for the job"

	# a 56 MiB budget for the node: two ranks' fields (2 x 24 MiB) fit, not three
	plan 56M
	run "${launcher[@]}" -np 4 "$prog"
	n=$(huge_ranks)
	[ "$n" = 2 ] || fail "$name: $n ranks got the fast pool under a budget for 2: $(cat "$work/run")"
	s=$(grep -c '^hmpt: job summary, 4 ranks on' "$work/run")
	[ "$s" = 1 ] || fail "$name: want one job summary line, got $s: $(cat "$work/run")"
	grep -q '^hmpt: job summary, 4 ranks on .*huge 2 allocations, 48.0 MiB (node peak 48.0 MiB), 2 refused (48.0 MiB) went to small' "$work/run" ||
		fail "$name: the summary does not add up: $(grep '^hmpt' "$work/run")"
	w=$(grep -c 'pool huge cannot take' "$work/run")
	[ "$w" = 1 ] || fail "$name: the refusal was said $w times, want once for the job: $(cat "$work/run")"
	note "$name: budget shared: 2 of 4 ranks in the fast pool; $(grep '^hmpt: job summary' "$work/run")"

	# per-rank detail on request: each refusing rank says it, marked
	HMPT_RANKS=all run "${launcher[@]}" -np 4 "$prog"
	w=$(grep -c '^hmpt\[rank [0-9]\]: pool huge cannot take' "$work/run")
	[ "$w" = 2 ] || fail "$name: HMPT_RANKS=all: want the 2 refusing ranks to say so, got $w: $(cat "$work/run")"
	note "$name: HMPT_RANKS=all: both refusing ranks say so"
done
