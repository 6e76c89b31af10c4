# placement.sh — placement on real NUMA nodes, run inside the QEMU guest
# that tests/vm/guest.sh boots (nodes 0-1 CPU+DDR, 2-3 memory-only with
# higher HMAT bandwidth).  tests/integration/t_numa_vm.sh runs it; by hand:
#   tests/vm/guest.sh bash tests/vm/placement.sh
# Every check reads where the pages really are (move_pages, smaps).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/place_common.sh"
# With "nohmat" (a guest booted with HMPT_VM_HMAT=0), the later layers of
# HBM detection: memkind's, and an explicit list.
[ "${VM_GUEST:-}" = 1 ] || skip "runs inside the QEMU guest: tests/vm/guest.sh bash $0"
M=8
pages=$((M * 256)) # 4 KiB pages in one array

learn_arrays "$work/prof" $M
mk() { # OUT POOL... -- SITES...: plan make, quiet
	local out=$1; shift
	$TUNE plan make "$@" -o "$out" "$work/prof" 2>/dev/null || fail "plan make $*"
}
HBM='hbm={"nodes":"hbm","fallback":"ddr"}' DDR='ddr={"nodes":"ddr"}'

if [ "${1:-}" = nohmat ]; then
	[ ! -e /sys/devices/system/node/node2/access0 ] || fail "the guest has HMAT"
	mk "$work/plan.json" -p "$HBM" -p "$DDR" -d ddr -s "$A,$C=hbm"
	# nothing names the fast nodes: the plan does not fit, the program runs
	$TUNE plan check -q "$work/plan.json" 2>"$work/check" && fail "plan check passed without HBM"
	grep -q 'pools.hbm.nodes: "hbm", but no HBM nodes were found on this machine' "$work/check" ||
		fail "plan check: $(cat "$work/check")"
	PREFIX="taskset -c 1" run_placed "$work/plan.json" "$work/run0" arrays $M
	[ "$(grep -c 'the program runs with default placement$' "$work/run0.err")" = 1 ] ||
		fail "the shim's one line: $(cat "$work/run0.err")"
	# memkind's detection (here from MEMKIND_HBW_NODES); local HBM by SLIT
	MEMKIND_HBW_NODES=2,3 $TUNE plan check "$work/plan.json" >"$work/check" || fail "with memkind"
	grep -q '^on this machine: HBM nodes 2-3 (memkind), DDR nodes 0-1 (nodes with CPUs); local HBM: 0->2 1->3$' \
		"$work/check" || fail "memkind detection: $(cat "$work/check")"
	MEMKIND_HBW_NODES=2,3 PREFIX="taskset -c 1" run_placed "$work/plan.json" "$work/run1" arrays $M
	for x in A C; do expect "$work/run1" $x nodes "3:$pages"; done
	for x in B D; do expect "$work/run1" $x nodes "1:$pages"; done
	# an explicit list wins over everything, and "local" takes the nearest
	HMPT_HBM_NODES=3 PREFIX="taskset -c 0" run_placed "$work/plan.json" "$work/run2" arrays $M
	expect "$work/run2" A nodes "3:$pages"
	note "without HMAT: no HBM (one line, default placement); memkind names 2-3; HMPT_HBM_NODES=3 used from CPU 0"
	exit 0
fi

# 1. automatic detection: HMAT says 2 and 3 are HBM, local to 0 and 1
mk "$work/plan.json" -p "$HBM" -p "$DDR" -d ddr -s "$A,$C=hbm"
$TUNE plan check "$work/plan.json" >"$work/check" || fail "plan check: $(cat "$work/check")"
grep -q '^on this machine: HBM nodes 2-3 (HMAT: CPU-less, 409600 MB/s against 102400 MB/s), DDR nodes 0-1 (nodes with CPUs); local HBM: 0->2 1->3$' \
	"$work/check" || fail "detection by plan check: $(cat "$work/check")"
HMPT_VERBOSE=1 HMPT_PLAN=$work/plan.json LD_PRELOAD=$LIB "$P/placed" arrays 1 >/dev/null 2>"$work/v.err" || fail "verbose run"
grep -q '^hmpt: HBM nodes 2-3 (HMAT' "$work/v.err" || fail "detection in the shim: $(cat "$work/v.err")"
note "detected: $(grep -o 'HBM nodes.*' "$work/check")"

# 2. every planned site on the planned node, from either socket
for cpu in 0 1; do
	PREFIX="taskset -c $cpu" run_placed "$work/plan.json" "$work/run$cpu" arrays $M
	cat "$work/run$cpu"
	for x in A C; do expect "$work/run$cpu" $x nodes "$((cpu + 2)):$pages"; done
	for x in B D; do expect "$work/run$cpu" $x nodes "$cpu:$pages"; done
done
[ ! -s "$work/run0.err" ] || fail "the shim was not quiet: $(cat "$work/run0.err")"

# 3. explicit nodes, across sockets, and interleaving
mk "$work/plan3.json" -p 'far={"nodes":[3]}' -p 'spread={"nodes":[2,3],"policy":"interleave"}' \
	-p 'near={"nodes":"hbm","local":false,"policy":"preferred"}' -d system \
	-s "$A=far" -s "$B=spread" -s "$C=near"
PREFIX="taskset -c 0" run_placed "$work/plan3.json" "$work/run3" arrays $M
cat "$work/run3"
expect "$work/run3" A nodes "3:$pages"
expect "$work/run3" B nodes "2:$((pages / 2)),3:$((pages / 2))"
expect "$work/run3" C nodes "2:$pages" # preferred: the first of 2-3

# 3b. a bind pool of 4 KiB pages on DDR node 1, run from CPU 0 where first
# touch would give node 0 (on a one-node host a bind cannot be seen)
mk "$work/plan3b.json" -p 'dram={"nodes":[1],"policy":"bind","pages":"4k"}' -d system \
	-s "$B,$D=dram"
PREFIX="taskset -c 0" run_placed "$work/plan3b.json" "$work/run3b" arrays $M
cat "$work/run3b"
for x in B D; do expect "$work/run3b" $x nodes "1:$pages"; expect "$work/run3b" $x flags nh; done
for x in A C; do expect "$work/run3b" $x nodes "0:$pages"; expect "$work/run3b" $x flags -; done
grep -q '"policy": "bind"' "$work/run3b.profile.json" || fail "profile lacks the pool's policy"

# 4. a thread on CPU node 1 gets node 3 while the main thread is on node 0
# (a one-frame prefix names alloc_a's call, whichever thread makes it)
mk "$work/plan4.json" -p "$HBM" -p "$DDR" -d ddr -m prefix:1 -s "$A=hbm"
PREFIX="taskset -c 0" run_placed "$work/plan4.json" "$work/run4" thread 1 $M
cat "$work/run4"
grep -q '^thread on cpu 1$' "$work/run4" || fail "the thread did not run on CPU 1"
expect "$work/run4" A nodes "3:$pages"

# 5. memkind pools: MEMKIND_HBW takes the HBM node local to the caller
mk "$work/plan5.json" -p 'fast={"backend":"memkind","kind":"hbw"}' -d system -s "$A,$B=fast"
for cpu in 0 1; do
	PREFIX="taskset -c $cpu" run_placed "$work/plan5.json" "$work/run5.$cpu" arrays $M
	cat "$work/run5.$cpu"
	for x in A B; do expect "$work/run5.$cpu" $x nodes "$((cpu + 2)):$pages"; done
done
[ "$(placement "$work/run5.0.profile.json" "$A")" = "fast fast:1:$((M << 20)):planned" ] ||
	fail "memkind placement in the profile: $(placement "$work/run5.0.profile.json" "$A")"

# 6. over budget: by capacity (C), and by the node's free memory (a 200 MiB
# D on a 128 MiB node): both go whole to DDR, nothing is killed
# capacity_case NAME HBM-POOL: A and C planned in a pool with room for one
# 8 MiB array: A (allocated first) on HBM node 2, C whole on DDR node 0
capacity_case() {
	mk "$work/plan$1.json" -p "$2" -p "$DDR" -d ddr -s "$A,$C=hbm"
	PREFIX="taskset -c 0" run_placed "$work/plan$1.json" "$work/run$1" arrays $M
	cat "$work/run$1" "$work/run$1.err"
	expect "$work/run$1" A nodes "2:$pages"
	expect "$work/run$1" C nodes "0:$pages"
}
capacity_case 6 'hbm={"nodes":"hbm","capacity":"12M","fallback":"ddr"}'
grep -q "^hmpt: pool hbm cannot take 8.00 MiB for site $C (budget 12.0 MiB from capacity" "$work/run6.err" ||
	fail "capacity message: $(cat "$work/run6.err")"
mk "$work/plan6b.json" -p "$HBM" -p "$DDR" -d ddr -s "$A,$D=hbm"
PREFIX="taskset -c 0" run_placed "$work/plan6b.json" "$work/run6b" arrays $M 200
cat "$work/run6b" "$work/run6b.err"
expect "$work/run6b" A nodes "2:$pages"
expect "$work/run6b" D nodes "0:$((200 * 256))"
grep -q "^hmpt: pool hbm cannot take 200.0 MiB for site $D (only .* MiB left on node 2: its free memory at start less a reserve)" "$work/run6b.err" ||
	fail "node-room message: $(cat "$work/run6b.err")"
[ "$(placement "$work/run6b.profile.json" "$D")" = "hbm ddr:1:$((200 << 20)):fallback" ] ||
	fail "fallback in the profile: $(placement "$work/run6b.profile.json" "$D")"

# 6c. a share of the pool's own nodes: 10 % of node 2's MemTotal (about
# 12.8 MiB; of all four nodes it would be 100 MiB) takes A, not C as well
capacity_case 6c 'hbm={"nodes":[2],"capacity":"10%","fallback":"ddr"}'
kb=$(awk '$3 == "MemTotal:" { print $4 }' /sys/devices/system/node/node2/meminfo)
python3 - "$work/run6c.profile.json" $((kb * 1024 / 100 * 10)) "$C" <<'PY' || fail "share budget"
import json, sys
p = json.load(open(sys.argv[1]))
h = {x["name"]: x for x in p["plan"]["pools"]}["hbm"]
assert h["budget_bytes"] == int(sys.argv[2]) and h["budget_from"] == "capacity", (h, sys.argv[2])
assert h["allocations"] == 1 and h["refused"] == 1, h
print("ok 10%% of node 2: budget %d bytes" % h["budget_bytes"])
PY

# 7. 2 MiB hugetlb pages on the HBM node
hp=/sys/devices/system/node/node2/hugepages/hugepages-2048kB/nr_hugepages
echo 8 >$hp && [ "$(cat $hp)" = 8 ] || fail "cannot reserve 8 huge pages on node 2 (got $(cat $hp))"
mk "$work/plan7.json" -p 'hbm={"nodes":"hbm","pages":"hugetlb","fallback":"ddr"}' -p "$DDR" \
	-d ddr -s "$A=hbm"
PREFIX="taskset -c 0" run_placed "$work/plan7.json" "$work/run7" arrays $M
cat "$work/run7" "$work/run7.err"
expect "$work/run7" A hugetlb_kb $((M * 1024))
expect "$work/run7" A pagesize_kb 2048
expect "$work/run7" A nodes "2:$pages"
expect "$work/run7" B hugetlb_kb 0

# 7b. hugetlb bound to DDR node 1, run from CPU 0: only node 1's reserved
# pages count (node 2 still has 8 of its own), and the pages are node 1's
hp1=/sys/devices/system/node/node1/hugepages/hugepages-2048kB
echo 8 >$hp1/nr_hugepages && [ "$(cat $hp1/nr_hugepages)" = 8 ] ||
	fail "cannot reserve 8 huge pages on node 1 (got $(cat $hp1/nr_hugepages))"
mk "$work/plan7b.json" -p 'tlb={"nodes":[1],"pages":"hugetlb"}' -d system -s "$A=tlb"
PREFIX="taskset -c 0" run_placed "$work/plan7b.json" "$work/run7b" arrays $M
cat "$work/run7b" "$work/run7b.err"
expect "$work/run7b" A pagesize_kb 2048
expect "$work/run7b" A hugetlb_kb $((M * 1024))
expect "$work/run7b" A nodes "1:$pages"
expect "$work/run7b" B nodes "0:$pages"
python3 - "$work/run7b.profile.json" <<'PY' || fail "hugetlb budget of node 1"
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))["plan"]["pools"]}["tlb"]
assert t["budget_bytes"] == 8 << 21 and t["budget_from"] == "free huge pages", t
PY
[ "$(cat $hp1/free_hugepages)" = 8 ] || fail "node 1's huge pages not given back"

# 8. realloc from an HBM site to a DDR site and back: the pages move, the
# contents stay (the program checks them)
learn_sites "$work/rprof" realloc $M
RA=$(site_id "$work/rprof" alloc_a) RB=$(site_id "$work/rprof" grow_b) RC=$(site_id "$work/rprof" grow_c)
$TUNE plan make -p "$HBM" -p "$DDR" -d ddr -s "$RA,$RC=hbm" -s "$RB=ddr" -o "$work/plan8.json" \
	"$work/rprof" 2>/dev/null || fail "plan make 8"
PREFIX="taskset -c 1" run_placed "$work/plan8.json" "$work/run8" realloc $M
cat "$work/run8"
expect "$work/run8" R0 nodes "3:$pages"
expect "$work/run8" R1 nodes "1:$((pages * 3 / 2))"
expect "$work/run8" R2 nodes "3:$((pages * 2))"
expect "$work/run8" R3 nodes "1:$pages"
grep -q '^realloc contents intact$' "$work/run8" || fail "realloc contents"
# 9. sampled first touches carry the node of each page (move_pages in the
# reader): A, C planned on HBM node 2, B, D on DDR node 0, from CPU 0
mk "$work/plan9.json" -p "$HBM" -p "$DDR" -d ddr -s "$A,$C=hbm"
HMPT_SAMPLE=faults PREFIX="taskset -c 0" run_placed "$work/plan9.json" "$work/run9" arrays $M
python3 - "$work/run9.profile.json" "$A" 2 "$B" 0 "$C" 2 "$D" 0 <<'PY' || fail "sampled nodes"
import json, sys
p = json.load(open(sys.argv[1]))
want = dict(zip(sys.argv[2::2], sys.argv[3::2]))
seen = 0
for s in p["sites"]:
    if s["id"] not in want:
        continue
    nodes = s["samples"]["nodes"]
    w = want[s["id"]]
    total = sum(nodes.values())
    # no page on another node; at most 1 % not looked up ("other"/"unknown":
    # a page freed before the reader looked it up), or one sample where a
    # THP array gives only 4 (one fault per 2 MiB)
    if any(k.isdigit() and k != w for k in nodes) or total - nodes.get(w, 0) > max(1, 0.01 * total):
        sys.exit("site %s: sampled pages on nodes %s, planned %s" % (s["id"], nodes, w))
    print("ok site %s: %d sampled first touches, %d on node %s %s" % (s["id"], total, nodes[w], w, nodes))
    seen += 1
sys.exit(0 if seen == 4 else "only %d of the 4 sites sampled" % seen)
PY
# 10. a split group: the first half of each block (whole 2 MiB granules) on
# HBM node 2, the rest on DDR node 0, from CPU 0; realloc keeps the split
learn_sites "$work/profs" split $M 4 8
SA=$(site_id "$work/profs" alloc_a) SG=$(site_id "$work/profs" grow_a)
$TUNE plan make -p "$HBM" -p "$DDR" -d ddr -s "$SA,$SG=hbm" -o "$work/plan10.v2" "$work/profs" \
	2>/dev/null || fail "plan make 10"
python3 - "$work/plan10.v2" "$work/plan10.json" <<'PY' || fail "split plan"
import json, sys
p = json.load(open(sys.argv[1]))
p["format_version"] = max(p["format_version"], 3)  # a share: format 3 or later
for g in p["groups"]:
    if g["pool"] == "hbm":
        g["share"], g["rest"] = 0.5, "ddr"
json.dump(p, open(sys.argv[2], "w"))
PY
PREFIX="taskset -c 0" run_placed "$work/plan10.json" "$work/run10" split $M 4 8
cat "$work/run10"
expect "$work/run10" A.head nodes "2:$((pages / 2))"
expect "$work/run10" A.tail nodes "0:$((pages / 2))"
expect "$work/run10" G.head nodes "2:$pages"
expect "$work/run10" G.tail nodes "0:$pages"
grep -q '^realloc contents intact$' "$work/run10" || fail "realloc contents (split)"
note "every planned site on its planned node (move_pages); bind to node 1 from CPU 0; thread on CPU 1 -> node 3; memkind hbw; capacity, share of node 2 and node-room fallback; hugetlb on node 2 and node 1; sampled pages carry their node; a split block half on node 2, half on node 0"
