# Helpers for the tuner's tests (sourced after lib.sh).
DEMO=$B/bench/hmpt-demo

# need_thp (lib.sh): the two page-size pools differ only where 2 MiB pages
# are granted.

# plan_fast_symbols PLAN [GROUP...]: the symbols of the sites the plan puts in
# its fast pool (only those of the named groups, when given), one per line
plan_fast_symbols() {
	python3 - "$@" <<'PY'
import json, sys
import planjson
plan = planjson.load(sys.argv[1])
want = set(sys.argv[2:])
for g in plan["groups"]:
    if g["pool"] == "fast" and (not want or g["name"] in want):
        for s in g["sites"]:
            print(" ".join(s["symbols"]))
PY
}

# group_of RESULTS LOCATION: the group of the site at LOCATION ("demo.c:88")
group_of() {
	python3 -c 'import json,sys
print(" ".join(s["group"] for s in json.load(open(sys.argv[1]))["sites"] if "(" + sys.argv[2] + ")" in s["location"]))' "$1" "$2"
}

# verdicts RESULTS: "label verdict" per configuration
verdicts() {
	python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["configs"]:
    print(c["label"].replace(" ", "_"), c["verdict"])' "$1"
}

# The modelled workload (tests/progs/model.c): its figure follows exactly from
# where its pages are, so a tuning's answer is known before it runs
# (tests/integration/model_truth.py computes it).  Its seeded noise is drawn
# per (seed, placement, how many runs of that placement came before, counted
# in --state FILE): a retake is one more run and shifts every later draw, so
# a tuning whose figures a test asserts passes --retakes 0, and load on this
# machine (which is what triggers retakes) cannot change them.
MODEL=$P/model
model_py() { # model_py SCRIPT-ARGS...: python3 with model_truth importable
	PYTHONPATH=$top/tests/integration${PYTHONPATH:+:$PYTHONPATH} python3 "$@"
}

# model_site PROFILE-DIR NAME: the id of the model's array NAME (h0-h5: the
# site in alloc_hN; s0, s1: the static object)
model_site() {
	awk -F'\t' -v f="$2" 'NR > 1 && ($8 == f || $8 == "alloc_" f) { print $1; exit }' "$1/sites.tsv"
}
