#!/bin/bash
# make demo's tuning under competing load that comes and goes
# (scripts/loadgen.sh on every CPU), then the plan it wrote measured against
# all-slow by `hmpt-tune compare`, under the same load: a tuning on a busy
# node must place nothing that compare cannot confirm.  A benchmark, not a
# test: it says what it found here ("placed nothing" included) and fails
# only when a tool fails.
#
# Usage: bench/demo_load.sh [SEED]
# Environment: DEMO_ARGS (default "-s 512 -i 2", as make demo), LOOPS (busy
#   loops per burst, default: the number of CPUs)
set -eu
. "$(dirname "$0")/bench_lib.sh"
bench_need_thp demo_load
read -r -a args <<<"${DEMO_ARGS:--s 512 -i 2}"
seed=${1:-27}
work=$(mktemp -d "${TMPDIR:-/tmp}/hmpt-demo-load.XXXXXX")
gen=
trap '[ -n "$gen" ] && kill "$gen" 2>/dev/null; rm -rf "$work"' EXIT
"$top/scripts/loadgen.sh" "$seed" "" "${LOOPS:-$(nproc)}" &
gen=$!
echo "demo_load: competing load: ${LOOPS:-$(nproc)} busy loops on and off at random (seed $seed), on $(nproc) CPUs"
start=$(date +%s)
"$B/hmpt-tune" -o "$work/tune" --lib "$B/libhmpt.so" --pools thp,4k -m 'Time in seconds' -- \
	"$B/bench/hmpt-demo" "${args[@]}" >"$work/summary" 2>"$work/err" || {
	echo "demo_load: hmpt-tune exited $?: $(tail -3 "$work/err")" >&2
	exit 1
}
echo "demo_load: tuned in $(($(date +%s) - start)) s"
sed -n '/^configuration/,$p' "$work/summary"
placed=$(python3 -c 'import json,sys; print(1 if json.load(open(sys.argv[1]))["chosen"]["best"] else 0)' \
	"$work/tune/results.json")
: >"$work/cmp"
if [ "$placed" = 1 ]; then
	"$B/hmpt-tune" compare --lib "$B/libhmpt.so" -m 'Time in seconds' "$work/tune/plan-slow.json" \
		"$work/tune/plan-best.json" -- "$B/bench/hmpt-demo" "${args[@]}" >"$work/cmp" 2>&1 || {
		echo "demo_load: compare failed: $(tail -3 "$work/cmp")" >&2
		exit 1
	}
fi
kill "$gen" 2>/dev/null
gen=
cat "$work/cmp"
python3 - "$work/tune/results.json" "$work/cmp" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
cmp = open(sys.argv[2]).read()
best = r["chosen"]["best"]
noise = r.get("noise") or {}
print("demo_load: runs retaken for other load: %s; all-slow spread %.1f %%"
      % ((noise.get("retaken") or {}), 100 * (noise.get("reference_spread") or 0)))
m = re.search(r"plan-best.json: ([0-9.]+)x over .*interval ([0-9.]+)-([0-9.]+)\): (.*)", cmp)
if not best:
    print("demo_load: OK: the plans place nothing (nothing was confirmed faster), so there is "
          "nothing for compare to confirm")
else:
    verdict = m.group(4) if m else "?"
    print("demo_load: placed %s, confirmed %.3fx; compare %sx (%s-%s): %s"
          % (next(c["label"] for c in r["configs"] if c["key"] == best["key"]), best["speedup"],
             m.group(1), m.group(2), m.group(3), verdict))
    print("demo_load: %s" % ("OK: compare confirms what was placed" if verdict == "faster"
                             else "MISS: placed a plan that compare does not confirm"))
PY
