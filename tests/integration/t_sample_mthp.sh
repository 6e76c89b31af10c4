#!/bin/bash
# Page-fault sampling under multi-size THP: with 64 KiB mTHP "always", one
# fault maps a 64 KiB folio, yet x86 reports a base page for it
# (pte_leaf_size is PAGE_SIZE).  The array the program touches page by page
# (tests/progs/kfill.c, S: 8 MiB) must count 8 MiB all the same, from 128
# faults (one per folio, which shows the kernel did map folios): the shim
# reads the present bits of the folio's neighbours from /proc/self/pagemap.
# Sets hugepages-64kB/enabled for the run (root) and restores it, by
# set_knob: tests/run.sh puts it back where the test was killed.  Where the
# kernel's own counter (Linux 6.9) shows it mapped the folios, a profile
# that counts base pages fails; without the counter that is a skip.
. "$(dirname "$0")/lib.sh"

knob=/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled
[ -e "$knob" ] || skip "no 64 KiB mTHP here ($knob missing: kernel before 6.8 or not x86-64/arm64)"
grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled &&
	skip "transparent huge pages are 'always' here: the array gets 2 MiB pages, not 64 KiB folios"
if [ -w "$knob" ]; then
	set_knob "$knob" always || skip "cannot set $knob"
else
	grep -q '\[always\]' "$knob" ||
		skip "64 KiB mTHP is not 'always' ($(cat "$knob")) and $knob is not writable here (not root)"
fi

# the kernel's own count of 64 KiB folios it mapped on a fault (Linux 6.9)
folios=${knob%/enabled}/stats/anon_fault_alloc
folios_before=$(cat "$folios" 2>/dev/null || echo)
head -c $((8 << 20)) /dev/urandom >"$work/data"
out=$work/p
$TUNE profile -q -s faults --lib "$LIB" -o "$out" -- $PREFIX "$P/kfill" "$work/data" \
	>"$work/stdout" 2>"$work/err" || { cat "$work/err"; fail "kfill under the shim failed"; }
if [ -n "$folios_before" ]; then
	mapped=$(($(cat "$folios") - folios_before))
	[ "$mapped" -ge 128 ] || skip "the kernel mapped $mapped 64 KiB folios during the run (its stats/anon_fault_alloc), not the array's 128: fragmented memory?"
	echo "ok the kernel mapped $mapped 64 KiB folios during the run (stats/anon_fault_alloc)"
fi
line=$(grep -n 'fill: S ' "$top/tests/progs/kfill.c" | cut -d: -f1)
id=$(awk -F'\t' -v loc="kfill.c:$line" 'NR > 1 && $9 == loc { print $1 }' "$out/sites.tsv")
[ -n "$id" ] || fail "no site at kfill.c:$line"
main=$(grep -l "\"$id\"" "$out"/profile.[0-9]*.json | while read -r f; do
	grep -q '"mthp_size": 65536' "$f" && echo "$f"; done | head -1)
[ -n "$main" ] || fail "no profile says it counts mTHP of 64 KiB from the page table"
python3 - "$main" "$id" "${mapped:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = next(s for s in d["sites"] if s["id"] == sys.argv[2])["samples"]
n, got = s["n"], s["first_touch_bytes"]
if n == 2048 and not sys.argv[3]:
    print("note: the kernel mapped base pages, not 64 KiB folios (fragmented memory?)")
    sys.exit(77)
assert n != 2048, (f"the kernel's counter shows {sys.argv[3]} 64 KiB folios mapped during "
                   "the run, yet the profile counts 2048 faults of base pages for the array")
assert n == 128, f"{n} faults for 8 MiB: not one per 64 KiB folio"
assert got == 8 << 20 and s["unseen_bytes"] == 0, (got, s["unseen_bytes"])
assert d["sampling"]["mthp_bytes"] >= 127 * 15 * 4096, d["sampling"]["mthp_bytes"]
print(f"ok S: {got} bytes first touched from {n} faults of 64 KiB folios "
      f"(mthp_bytes {d['sampling']['mthp_bytes']} read from the page table)")
PY
rc=$?
[ $rc = 77 ] && skip "the kernel mapped no 64 KiB folio for the array"
[ $rc = 0 ] || fail "mTHP first touches"
echo ok
