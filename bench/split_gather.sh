#!/bin/bash
# Random gathers over one table with a growing share of it in 2 MiB pages
# (pool huge, THP) and the rest in 4 KiB pages (pool small), through a plan
# group's "share" (split placement, plan format 3).  The gathers spread
# evenly over the table, so the time should follow the share: the table
# prints each share's median time beside the straight line between all-4k
# and all-THP.  The share placed is read back from the profile (bytes per
# pool), not assumed.  A benchmark, not a test: it says so when the two
# pools barely differ here, and fails only when a tool fails.
#
# Usage: bench/split_gather.sh
# Beside each share, the control without hmpt: the same split made by the
# program itself (mmap, then madvise of each part), so that what the pages
# cost here is told apart from what hmpt does.
#
# Environment: TABLE_MIB (default 512), GATHERS (millions, default 8),
#   ROUNDS (default 3; each round runs every share, in a rotating order)
set -eu
. "$(dirname "$0")/bench_lib.sh"
bench_need_thp split_gather
mib=${TABLE_MIB:-512} gathers=${GATHERS:-8} rounds=${ROUNDS:-3}
prog=$B/bench/split_gather
work=$(mktemp -d "${TMPDIR:-/tmp}/hmpt-split-gather.XXXXXX")
trap 'rm -rf "$work"' EXIT

# the table's site, from a short profile
"$B/hmpt-tune" profile -q -o "$work/prof" --lib "$B/libhmpt.so" -- "$prog" 64 1 >/dev/null 2>&1 ||
	{ echo "split_gather: profiling failed" >&2; exit 1; }
"$B/hmpt-tune" plan make -p 'huge={"pages":"thp"}' -p 'small={"pages":"4k"}' -d small \
	-s top:1=huge -o "$work/base.json" "$work/prof" 2>/dev/null ||
	{ echo "split_gather: plan make failed" >&2; exit 1; }
shares="0 0.25 0.5 0.75 1"
for s in $shares; do
	python3 - "$work/base.json" "$work/plan-$s.json" "$s" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
s = float(sys.argv[3])
if s == 0:
    p["groups"] = []          # the table in the default pool, small
elif s < 1:
    p["format_version"] = max(p["format_version"], 3)  # a share: 3 or later
    for g in p["groups"]:
        g["share"], g["rest"] = s, "small"
json.dump(p, open(sys.argv[2], "w"))
PY
done
set -- $shares
n=$#
for ((r = 0; r < rounds; r++)); do
	for ((k = 0; k < n; k++)); do
		i=$(((k + r) % n + 1))
		s=${!i}
		HMPT_PLAN=$work/plan-$s.json HMPT_PROFILE=$work/prof-$s.json LD_PRELOAD=$B/libhmpt.so \
			"$prog" "$mib" "$gathers" >"$work/out" 2>"$work/err" ||
			{ echo "split_gather: run failed: $(cat "$work/err")" >&2; exit 1; }
		sed -n 's/^Time in seconds = //p' "$work/out" >>"$work/t-$s"
		"$prog" "$mib" "$gathers" "$s" >"$work/out" 2>"$work/err" ||
			{ echo "split_gather: control run failed: $(cat "$work/err")" >&2; exit 1; }
		sed -n 's/^Time in seconds = //p' "$work/out" >>"$work/c-$s"
	done
done
python3 - "$work" "$mib" $shares <<'PY'
import json, statistics, sys
work, mib, shares = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
med = {s: statistics.median(float(x) for x in open(f"{work}/t-{s}")) for s in shares}
ctl = {s: statistics.median(float(x) for x in open(f"{work}/c-{s}")) for s in shares}
t0, t1 = med[shares[0]], med[shares[-1]]
def placed(s):
    # the table's bytes in pool huge, read back from the run's profile
    p = json.load(open(f"{work}/prof-{s}.json"))
    best = None
    for site in p["sites"]:
        pl = site.get("placement") or {}
        by = {x["pool"]: x["bytes"] for x in pl.get("pools", [])}
        tot = sum(by.values())
        if tot >= mib << 19 and (best is None or tot > best[1]):
            best = (by.get("huge", 0), tot)
    return best[0] / best[1] if best else float("nan")
print(f"table {mib} MiB, random gathers; medians of {len(open(f'{work}/t-{shares[0]}').readlines())} rounds")
print(f"{'share asked':>11} {'in THP (read back)':>19} {'time s':>8} {'speedup':>8} "
      f"{'on the line':>12} {'control s':>10}")
for s in shares:
    f = float(s)
    line = t0 + f * (t1 - t0)
    print(f"{f:>11.2f} {placed(s):>19.3f} {med[s]:>8.3f} {t0 / med[s]:>7.3f}x "
          f"{med[s] / line:>11.3f} {ctl[s]:>10.3f}")
mixed = [s for s in shares if 0 < float(s) < 1]
worst = max(ctl[s] / max(ctl[shares[0]], ctl[shares[-1]]) for s in mixed)
if worst > 1.5:
    print(f"the control without hmpt is {worst:.1f}x slower split than either whole: mixing "
          "2 MiB and 4 KiB pages in one table costs that much on this machine itself")
sp = t0 / t1
if sp < 1.05:
    print(f"all-THP is {sp:.3f}x all-4k here: the two pools barely differ on this machine, "
          "so the shares cannot show")
else:
    print(f"all-THP is {sp:.3f}x all-4k; 'on the line' is each time over the straight line "
          "between the two (1.000: the time follows the share)")
PY
