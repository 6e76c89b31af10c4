#!/bin/bash
# hmpt-tune on the bundled demo (bench/demo.c) with pools thp,4k (2 MiB
# against 4 KiB pages): what it finds here and whether the speedup holds when
# the plan is applied.  A benchmark, not a test: the figures are ratios taken
# in this run, said as they are ("no speedup here" included); it fails only
# when a tool fails.  What the tuner writes and counts is tested exactly
# elsewhere, on a modelled workload.
#
# Usage: bench/tune_demo.sh
# Environment: DEMO_ARGS (default "-s 512 -i 1"), REPS (default 3),
#   CAPACITY (default 600M: the 512 MiB table fits, table and counts do not)
set -eu
. "$(dirname "$0")/bench_lib.sh"
bench_need_thp tune_demo
read -r -a args <<<"${DEMO_ARGS:--s 512 -i 1}"
reps=${REPS:-3}
capacity=${CAPACITY:-600M}
work=$(mktemp -d "${TMPDIR:-/tmp}/hmpt-tune-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/tune

# first what the two pools give on random reads alone
"$top/scripts/demo-pools.sh" "$B"
start=$(date +%s)
"$B/hmpt-tune" -o "$out" --lib "$B/libhmpt.so" --pools thp,4k -m 'Time in seconds' \
	--reps "$reps" --capacity "$capacity" -- "$B/bench/hmpt-demo" "${args[@]}" \
	>"$work/summary" 2>"$work/err" || {
	echo "tune_demo: hmpt-tune exited $?: $(cat "$work/err")" >&2
	exit 1
}
tuned_s=$(($(date +%s) - start))
cat "$work/summary"
"$B/hmpt-tune" compare --lib "$B/libhmpt.so" -m 'Time in seconds' -r 10 "$out/plan-slow.json" \
	"$out/plan-best.json" -- "$B/bench/hmpt-demo" "${args[@]}" >"$work/cmp" 2>&1 || {
	echo "tune_demo: hmpt-tune compare failed: $(cat "$work/cmp")" >&2
	exit 1
}
cat "$work/cmp"

# the allocation functions are tail calls: a site is known by main's line
site_of() { echo "demo.c:$(grep -n "= $1(" "$top/bench/demo.c" | cut -d: -f1)"; }
python3 - "$out/results.json" "$work/cmp" "$tuned_s" "$capacity" \
	"$(site_of alloc_table)" "$(site_of alloc_counts)" <<'PY'
import json, re, sys
res, cmp, secs, capacity, table, counts = sys.argv[1:7]
r = json.load(open(res))
group = {s["location"]: s["group"] for s in r["sites"]}
def group_at(loc):
    return next((g for l, g in group.items() if "(" + loc + ")" in l), "?")
gt, gc = group_at(table), group_at(counts)
ranked = "first and second" if {gt, gc} == {"G1", "G2"} else "not first and second"
print("tune_demo: the random-access arrays (table %s, counts %s) ranked %s" % (gt, gc, ranked))
byk = {c["key"]: c for c in r["configs"]}
ch = r["chosen"]
for what, name in (("best", "best"), ("ninety", "90 % of best"), ("capacity", "within " + capacity)):
    c = ch.get(what)
    if not c:
        print("tune_demo: %s: no configuration measurably faster than all-slow: no speedup here" % name)
        continue
    k = byk[c["key"]]
    cf = (r.get("confirmation") or {}).get("plans", {}).get(what)
    confirmed = ("; confirmed %.3fx (interval %.3f-%.3f, %d rounds)"
                 % (cf["speedup"], cf["lo"], cf["hi"], cf["pairs"]) if cf else "")
    print("tune_demo: %s: %s, search %.3fx (interval %.3f-%.3f)%s, %.1f %% of the footprint in thp"
          % (name, k["label"], k["speedup"], k["lo"], k["hi"], confirmed, 100 * k["fast_fraction"]))
for t in (r.get("confirmation") or {}).get("tried", []):
    if not t["confirmed"]:
        print("tune_demo: not confirmed: %s (search %.3fx): %.3fx in %d rounds, %s"
              % (t["label"], t["search_speedup"], t["speedup"], t["pairs"], t["why"]))
m = re.search(r"plan-best.json: ([0-9.]+)x over .*\(95 % interval ([0-9.]+)-([0-9.]+)\): (.*)", open(cmp).read())
if m and ch.get("best"):
    # chosen.best's speedup is the confirmed figure (the search's without --confirm)
    print("tune_demo: applied: %sx (interval %s-%s, %s): %.2f of the confirmed %.3fx"
          % (m.group(1), m.group(2), m.group(3), m.group(4), float(m.group(1)) / ch["best"]["speedup"],
             ch["best"]["speedup"]))
elif m:
    print("tune_demo: applied (the all-slow plan against itself): %sx, %s" % (m.group(1), m.group(4)))
print("tune_demo: %d runs in %s s of tuning" % (sum(len(c["runs"]) for c in r["configs"]), secs))
PY
grep 'model search:' "$work/err" | sed 's/^hmpt-tune: /tune_demo: /'

# exhaustive search on the same journal (the model search's runs serve, the
# other combinations are measured): do both searches choose alike?
cp -r "$out" "$work/exh"
"$B/hmpt-tune" -o "$work/exh" --lib "$B/libhmpt.so" --pools thp,4k -m 'Time in seconds' \
	--reps "$reps" --capacity "$capacity" --search exhaustive -q -- "$B/bench/hmpt-demo" "${args[@]}" \
	2>"$work/exh.err" || {
	echo "tune_demo: exhaustive search exited $?: $(cat "$work/exh.err")" >&2
	exit 1
}
python3 - "$out/results.json" "$work/exh/results.json" <<'PY'
import json, sys
model, exh = (json.load(open(f)) for f in sys.argv[1:3])
def chosen(r, what):
    c = r["chosen"].get(what)
    if not c:
        return "none", 1.0
    k = next(x for x in r["configs"] if x["key"] == c["key"])
    return k["label"], k["speedup"]
def measured(r):
    return sum(1 for c in r["configs"] if c["phase"] == "combinations" and c["measured"])
print("tune_demo: model search %d configurations, exhaustive %d" % (measured(model), measured(exh)))
for what in ("best", "ninety"):
    (ml, ms), (el, es) = chosen(model, what), chosen(exh, what)
    # the exhaustive search's measured speedup of the model's choice
    mk = model["chosen"].get(what)
    mine = next((x["speedup"] for x in exh["configs"] if mk and x["key"] == mk["key"]), 1.0)
    print("tune_demo: %-6s model search %s (%.3fx), exhaustive %s (%.3fx); the model's choice "
          "measured by exhaustive: %.3fx, %.1f %% of its choice" % (what, ml, ms, el, es, mine,
                                                                    100 * mine / es))
PY
