# bench.sh — hmpt-bench's arrays on their pools' nodes, inside the QEMU
# guest of tests/vm/guest.sh (nodes 0-1 CPU+DDR, 2-3 memory-only HBM-like
# with HMAT).  Speed here means nothing (emulated memory); placement is real.
# tests/integration/t_numa_vm.sh runs it; by hand:
#   tests/vm/guest.sh bash tests/vm/bench.sh
. "$(dirname "$0")/../integration/lib.sh"
[ "${VM_GUEST:-}" = 1 ] || skip "runs inside the QEMU guest: tests/vm/guest.sh bash $0"
out=$work/b
# ddr and hbm as detected, and one explicit node
"$B/hmpt-bench" -p ddr,hbm,'{"nodes":[3]}' -s 2M -n 2 -t 1,2 -k copy,add --window-min 256K \
	--window-max 1M --pages 4k -g 2M --reads 64K --no-plots -o "$out" >"$work/stdout" 2>"$work/stderr" ||
	fail "hmpt-bench exited $?: $(cat "$work/stderr")"
cat "$work/stdout"
python3 - "$out/results.json" >"$work/where" <<'PY' || fail "placement: $(cat "$work/where")"
import json, sys
r = json.load(open(sys.argv[1]))
want = {"ddr": {"0", "1"}, "hbm": {"2", "3"}, "pool3": {"3"}}
pools = {p["name"]: p for p in r["pools"]}
assert all(pools[n]["available"] for n in want), pools
seen = set()
for p in r["placement"]:
    base = p["pool"].split("_")[0]  # latency variants: ddr_4k...
    nodes = set(p["nodes"])
    assert nodes and nodes <= want[base], p
    assert p["on_pool_nodes"] == 1 and p["not_present"] == 0, p
    seen.add((p["mode"], base))
assert seen == {(m, n) for m in ("stream", "latency", "gather") for n in want}, seen
assert all(x["verified"] for x in r["results"])
# every combination of the three pools: copy 3x3, add 6x3 inputs/outputs, 2 thread counts
s = [x for x in r["results"] if x["mode"] == "stream"]
assert len(s) == 2 * (9 + 18), len(s)
print("every array of every mode on its pool's nodes:",
      ", ".join("%s %s" % (n, "+".join(sorted(want[n]))) for n in want))
PY
note "hmpt-bench: $(tail -n 1 "$work/where")"
