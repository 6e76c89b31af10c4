#!/bin/bash
# Access patterns from page faults the kernel itself records: tests/progs/walks
# first touches five arrays, in order, every fourth page, in a shuffled order,
# as a list linked in a shuffled order, and by pread() (the kernel copies
# into it).  Each site must be classed as its "walk:" line says, the stride
# must be 16 KiB (where mTHP folios of 64 KiB or more are enabled, first
# touch follows folios, and the strided array is sequential), and the
# instructions named must be the program's own (the kernel's for the
# pread-filled array, where kernel samples are allowed).
. "$(dirname "$0")/lib.sh"

out=$work/p
$TUNE profile -q -s faults --lib "$LIB" -o "$out" -- $PREFIX "$P/walks" >/dev/null 2>"$work/err" ||
	{ cat "$work/err"; fail "walks under the shim failed"; }
prof=$(ls "$out"/profile.[0-9]*.json | head -1)
src=$top/tests/progs/walks.c
python3 - "$prof" "$out/sites.tsv" "$src" <<'PY' || fail "patterns classed wrong (above)"
import json, re, sys
prof = json.load(open(sys.argv[1]))
loc, tsv = {}, {}
rows = open(sys.argv[2]).read().splitlines()
head = rows[0].split("\t")
for row in rows[1:]:
    f = dict(zip(head, row.split("\t")))
    loc[f["id"]] = f["location"]
    tsv[f["id"]] = f
want = {}
for n, line in enumerate(open(sys.argv[3]), 1):
    m = re.search(r"/\* walk: (\w+) \*/", line)
    if m:
        want["walks.c:%d" % n] = m.group(1)
expect = {"seq": "sequential", "stride": "strided", "random": "random",
          "chase": "pointer-chasing", "read": "sequential"}
kernel = prof["sampling"].get("kernel_touches") is True
mthp = prof["sampling"].get("mthp_size", 0)
bad = 0
for s in prof["sites"]:
    where = loc.get(s["id"])
    if where not in want:
        continue
    walk = want.pop(where)
    p = s["samples"]["pattern"]
    ips = s["samples"]["ips"]
    top = max(ips, key=lambda e: e["n"])["at"] if ips else None
    ok = p["kind"] == expect[walk] and p["confidence"] >= 0.9
    if walk == "stride" and mthp > 16384:
        # first touch follows folios: a stride under one is not seen
        ok = p["kind"] == "sequential"
    elif walk == "stride":
        ok = ok and p["stride"] == 16384
    if walk == "read" and not kernel:
        # no kernel samples: the kernel's copies cannot be seen
        ok = p["kind"] == "unknown"
    elif walk == "read":
        ok = ok and top == "[kernel]"
    else:
        ok = ok and top is not None and top.startswith("walks!")
    # sites.tsv says the same, the instruction named by function and line
    t = tsv[s["id"]]
    ok = ok and t["pattern"] == p["kind"] and int(t["stride"]) == p["stride"]
    ok = ok and (t["most_from"].startswith("the kernel") if top == "[kernel]"
                 else "(walks.c:" in t["most_from"])
    print("%s %s (%s): %s, stride %d, confidence %.3f, %d steps; most from %s"
          % ("ok" if ok else "FAIL", walk, where, p["kind"], p["stride"], p["confidence"],
             p["steps"], t["most_from"]))
    bad += not ok
for where, walk in want.items():
    print("FAIL %s (%s): no site" % (walk, where))
    bad += 1
sys.exit(1 if bad else 0)
PY
echo ok
