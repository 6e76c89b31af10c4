#!/bin/bash
# Before `make demo` tunes: do its two pools (2 MiB THP pages, 4 KiB pages)
# differ on this machine?  hmpt-bench's random reads (gather: an indirect sum
# over a table far beyond the 4 KiB TLB's reach and within 2 MiB pages'), one
# thread as the demo has, each pool in every round and the order alternated,
# so that a burst of load on a shared machine does not favour one pool.
# Prints one line: the ratio of the best rates, and what to expect from it.
# Never fails on speed: exit 0 whatever the ratio, 1 only when hmpt-bench
# itself fails.
#
# Usage: scripts/demo-pools.sh [BUILD-DIR]
# Environment: TABLE (default 256M), READS (default 8M), ROUNDS (default 4)
set -eu
B=${1:-build}
table=${TABLE:-256M}
reads=${READS:-8M}
rounds=${ROUNDS:-4}
# below this the pools do not really differ: run-to-run noise on a shared
# machine is a few per cent
threshold=1.05
thp=/sys/kernel/mm/transparent_hugepage/enabled
if [ ! -r $thp ] || grep -q '\[never\]' $thp; then
	echo "hmpt-demo: no transparent huge pages here ($thp): pools thp and 4k are the same: expect no speedup"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/hmpt-demo-pools.XXXXXX")
trap 'rm -rf "$work"' EXIT
for r in $(seq "$rounds"); do
	order=thp,4k
	[ $((r % 2)) = 0 ] && order=4k,thp
	"$B/hmpt-bench" -q --no-plots -p "$order" -t 1 -g "$table" --reads "$reads" \
		-o "$work/r$r" gather || {
		echo "hmpt-demo: hmpt-bench gather failed (exit $?): the pools could not be compared" >&2
		exit 1
	}
done
python3 - "$work" "$rounds" "$threshold" <<'PY'
import json, sys
work, rounds, threshold = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
best, per = {}, []
for r in range(1, rounds + 1):
    doc = json.load(open("%s/r%d/results.json" % (work, r)))
    rate = {x["placement"]: x["value"] for x in doc["results"] if x["verified"]}
    per.append(rate["thp"] / rate["4k"])
    for p, v in rate.items():
        best[p] = max(best.get(p, 0), v)
ratio = best["thp"] / best["4k"]
g = doc["gather"]
# random reads are part of the demo's time only: on a 16-core Intel host
# 2.5x here gave the whole demo 1.23-1.35x; a small ratio gives a few per
# cent, which a noisy machine's run-to-run spread can hide
said = ("expect the random-access arrays to gain" if ratio >= 1.5 else
        "a small difference: the demo may gain a few per cent, within its own noise here"
        if ratio >= threshold else
        "no real difference (below %.2fx): expect no speedup" % threshold)
print("hmpt-demo: 2 MiB pages give %.2fx on random reads here: %s" % (ratio, said))
print("hmpt-demo: (hmpt-bench gather, 1 thread, %d MiB table, %d reads per pass: best of %d rounds, "
      "thp %.1f and 4k %.1f million reads/s; rounds alone %s)"
      % (g["table_bytes"] >> 20, g["reads"], rounds, best["thp"], best["4k"],
         ", ".join("%.2fx" % x for x in per)))
PY
