#!/bin/bash
# Page-fault sampling of first touches the program does not make itself,
# on records the kernel produces (tests/progs/kfill.c, five 8 MiB arrays):
# - R, filled by read() from a file: the kernel's copy_to_user faults in
#   kernel mode, counted where kernel samples are allowed (root,
#   CAP_PERFMON, perf_event_paranoid <= 1), else found resident at the end
#   (unseen_bytes);
# - V and G, written by a second process's process_vm_writev: get_user_pages
#   raises no fault event at all, so their bytes are the pages found resident
#   that no fault counted, V's at the end (live), G's at its free;
# - S, touched by the program: its faults, nothing unseen;
# - Z, calloc'd, every page read, a profile written mid-run, then each
#   page written 0.8 s later: every page gets its real node, none unknown,
#   in the mid-run profile (pages waiting for their write are counted
#   apart) and at the end.
# Every array counts exactly 8 MiB of first-touch bytes.
. "$(dirname "$0")/lib.sh"

head -c $((8 << 20)) /dev/urandom >"$work/data" || fail "cannot write 8 MiB to $work"
out=$work/p
mkdir -p "$out"
$TUNE profile -q -s faults --lib "$LIB" -o "$out" -- $PREFIX "$P/kfill" "$work/data" "$out/mid.json" \
	>"$work/stdout" 2>"$work/err" || { cat "$work/err" "$work/stdout"; fail "kfill under the shim failed"; }
grep -q 'sum ' "$work/stdout" || fail "kfill did not finish"
zero=$(sed -n 's/^zeropage \([01]\)$/\1/p' "$work/stdout")
main=$(ls "$out"/profile.[0-9]*.json | while read -r f; do
	grep -q '"first_touch_bytes"' "$f" && echo "$f"; done | head -1)
[ -n "$main" ] || fail "no profile with first-touch bytes"

[ -s "$out/sites.tsv" ] || fail "no sites.tsv"
python3 - "$main" "$out/mid.json" "$top/tests/progs/kfill.c" "$zero" "$out/sites.tsv" <<'PY' || fail "kernel-made first touches"
import json, re, sys
main, mid, src, zero, tsv = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1", sys.argv[5]
ids = {}
for row in open(tsv).read().splitlines()[1:]:
    f = row.split("\t")
    if f[8].startswith("kfill.c:"):
        ids[f[0]] = int(f[8].split(":")[1])
lines = {}
for n, l in enumerate(open(src), 1):
    m = re.search(r"fill: (\w) (\w+) (\d+)", l)
    if m:
        lines[m.group(1)] = (n, m.group(2), int(m.group(3)) << 20)

def sites(path):
    d = json.load(open(path))
    by = {}
    for s in d["sites"]:
        for k, (n, _, _) in lines.items():
            if ids.get(s["id"]) == n:
                by[k] = s
    return d, by

d, by = sites(main)
sm = d["sampling"]
kern = sm["kernel_touches"]
assert "get_user_pages" in sm["never_counted"], sm["never_counted"]
for k, (n, how, want) in sorted(lines.items()):
    assert k in by, f"{k}: no site at kfill.c:{n}"
    ss = by[k]["samples"]
    got, faults, unseen = ss["first_touch_bytes"], ss["fault_bytes"], ss["unseen_bytes"]
    assert got == want, f"{k} ({how}): {got} first-touch bytes, touched {want}"
    if how in ("vm_writev", "vm_writev_freed"):
        assert faults == 0 and unseen == want, (k, faults, unseen)
    elif how == "read":
        assert (faults, unseen) == ((want, 0) if kern else (0, want)), (k, kern, faults, unseen)
    else:
        assert faults == want and unseen == 0, (k, faults, unseen)
    assert not ss["bytes_estimated"] and ss["bytes_observed_allocs"] == ss["bytes_of_allocs"] == 1
    print(f"ok {k} ({how}): {got} bytes first touched ({faults} by faults, {unseen} unseen)")
z = by["Z"]["samples"]
nodes = z["nodes"]
assert not any(k in ("unknown", "other") for k in nodes), nodes
assert sum(nodes.values()) == z["n"] == 2048 and z["pages_waiting"] == 0, (z["n"], nodes)
print(f"ok Z: {z['n']} pages read then written 0.8 s later, nodes {nodes}")

_, mby = sites(mid)
mz = mby["Z"]["samples"]
mn = mz["nodes"]
assert "unknown" not in mn, f"mid-run profile: Z pages unknown: {mn}"
assert sum(mn.values()) + mz["pages_waiting"] == mz["n"] == 2048, (mn, mz["pages_waiting"])
if zero:
    assert mz["pages_waiting"] == 2048, f"the kernel maps its zero page, yet {mz['pages_waiting']} wait"
    print("ok Z mid-run: 2048 pages map the zero page and wait for their write, none unknown")
else:
    print(f"ok Z mid-run: nodes {mn} (this kernel maps no zero page for a read: "
          "each read gets its own page)")
PY
[ "$zero" = 1 ] || note "this kernel never maps its zero page for a read (pvm_no_zero_page or the like): the waiting of zero-page entries is shown by test_touched here"

# the log says whether kernel-made first touches are counted, and which never are
HMPT_SAMPLE=faults HMPT_VERBOSE=1 HMPT_PROFILE=$work/v.json LD_PRELOAD=$LIB $PREFIX "$P/kfill" "$work/data" \
	>/dev/null 2>"$work/err2" || fail "kfill failed"
grep -q 'first touches the kernel makes for the program (read() into a buffer) are \(not \)\?counted' "$work/err2" ||
	{ cat "$work/err2"; fail "the log does not say whether kernel-made first touches are counted"; }
grep -q 'get_user_pages (process_vm_writev, O_DIRECT, RDMA) never raise a fault event' "$work/err2" ||
	fail "the log does not say which first touches are never counted"
echo "ok"
