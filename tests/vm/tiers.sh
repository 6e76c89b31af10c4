# tiers.sh — pools by memory tier ("tier": "fastest", "slowest", N) on real
# NUMA nodes, run inside the QEMU guest that tests/vm/guest.sh boots with a
# CXL-like fifth node (HMPT_VM_CXL_MIB): nodes 0-1 CPU+DDR, 2-3 HBM-like,
# 4 CXL-like.  tests/integration/t_numa_vm.sh runs it; by hand:
#   HMPT_VM_CXL_MIB=128 tests/vm/guest.sh bash tests/vm/tiers.sh
#   HMPT_VM_CXL_MIB=128 HMPT_VM_HMAT=0 tests/vm/guest.sh bash tests/vm/tiers.sh nohmat
#   HMPT_VM_TOPO=a64fx tests/vm/guest.sh bash tests/vm/tiers.sh a64fx (gh200, snc4)
# Every check reads where the pages really are (move_pages).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/place_common.sh"
[ "${VM_GUEST:-}" = 1 ] || skip "runs inside the QEMU guest: HMPT_VM_CXL_MIB=128 tests/vm/guest.sh bash $0"
# With "a64fx" or "gh200", the guest booted with HMPT_VM_TOPO so.
mode=${1:-hmat}
case $mode in
a64fx | gh200) [ -e /sys/devices/system/node/node4 ] && fail "the guest is not the $mode row" ;;
snc4) [ -e /sys/devices/system/node/node15 ] || fail "the guest is not the snc4 row" ;;
*) [ -e /sys/devices/system/node/node4 ] || fail "the guest has no node 4 (boot it with HMPT_VM_CXL_MIB)" ;;
esac
M=8
pages=$((M * 256)) # 4 KiB pages in one array

learn_arrays "$work/prof" $M
$TUNE plan make -p 'fast={"tier":"fastest","fallback":"slow"}' -p 'slow={"tier":"slowest"}' \
	-d slow -s "$A,$C=fast" -o "$work/plan.json" "$work/prof" 2>/dev/null || fail "plan make"
kernel=$(for f in /sys/devices/virtual/memory_tiering/memory_tier*/nodelist; do
	[ -e "$f" ] && printf '%s:%s ' "$(basename "$(dirname "$f")")" "$(cat "$f")"; done)
note "the guest kernel's tiers: ${kernel:-none}"

# on CPU FAST SLOW: placed's arrays under the plan from CPU: A and C (the
# fast pool's) on node FAST, B and D on node SLOW (move_pages)
on() {
	local out=$work/run.$1.$2
	PREFIX="taskset -c $1" run_placed "$work/plan.json" "$out" arrays $M
	cat "$out"
	for x in A C; do expect "$out" $x nodes "$2:$pages"; done
	for x in B D; do expect "$out" $x nodes "$3:$pages"; done
}

# check_tiers SOURCE FAST SLOW: plan check's lines for the two pools
check_tiers() {
	$TUNE plan check "$work/plan.json" >"$work/check" || fail "plan check: $(cat "$work/check")"
	grep '^  memory tiers' "$work/check"
	grep -q "^  fast: tier fastest (0 of [0-9]*, from $1[^)]*): nodes $2 (local), bind" "$work/check" ||
		fail "plan check, fastest: $(cat "$work/check")"
	grep -q "^  slow: tier slowest ([0-9]* of [0-9]*, from $1[^)]*): nodes $3 (local), bind" "$work/check" ||
		fail "plan check, slowest: $(cat "$work/check")"
}

src=HMAT
[ -n "$kernel" ] && src="kernel memory tiers split by HMAT"
if [ "$mode" = a64fx ]; then
	# one kind of memory: fastest is slowest, each CPU's own CMG; memkind
	# names node 3 alone, HMAT rates the four alike: all four are HBM
	src=HMAT
	[ -n "$kernel" ] && src="kernel memory tiers"
	check_tiers "$src" 0-3 0-3
	grep -q '^on this machine: HBM nodes 0-3 (memkind), DDR nodes none' "$work/check" ||
		fail "A64FX's HBM: $(grep '^on this machine' "$work/check")"
	on 1 1 1
	on 2 2 2
	note "A64FX row: one tier 0-3, each CPU's arrays on its own node; HBM 0-3"
	exit 0
fi
if [ "$mode" = snc4 ]; then
	# UMF#1289's machine: HBM 8-15 found (HMAT), each cluster's own
	check_tiers "$src" 8-15 0-7
	grep -q '^on this machine: HBM nodes 8-15 (HMAT' "$work/check" ||
		fail "SNC4 HBM: $(grep '^on this machine' "$work/check")"
	on 2 10 2
	on 5 13 5
	note "Xeon Max SNC4 row: HBM 8-15; from CPU 2 fast arrays on node 10, from CPU 5 on 13"
	exit 0
fi
if [ "$mode" = gh200 ]; then
	check_tiers "$src" 1 0
	on 0 1 0
	note "Grace Hopper row: fastest the CPU-less HBM node 1, slowest the CPUs' node 0"
	exit 0
fi
if [ "$mode" = nohmat ]; then
	[ ! -e /sys/devices/system/node/node2/access0 ] || fail "the guest has HMAT"
	src="SLIT distances"
	[ -n "$kernel" ] && src="kernel memory tiers split by SLIT distances"
	# SLIT alone: the nodes with CPUs first, the CPU-less ones by distance
	check_tiers "$src" 0-1 4
	on 1 1 4
	# HBM named by hand goes first; its local part by SLIT (13 against 23)
	HMPT_HBM_NODES=2-3 check_tiers "$src" 2-3 4
	grep -q "HBM first, named by environment" "$work/check" || fail "$(cat "$work/check")"
	HMPT_HBM_NODES=2-3 on 1 3 4
	note "without HMAT: fastest 0-1 by SLIT, 2-3 once HMPT_HBM_NODES names them; slowest 4"
	exit 0
fi

check_tiers "$src" 2-3 4
# from either socket: the fast arrays on its own HBM-like node, the rest on
# the CXL-like node
on 0 2 4
on 1 3 4
[ ! -s "$work/run.0.2.err" ] || fail "the shim was not quiet: $(cat "$work/run.0.2.err")"

# a tier by number: 1 is DDR (local), and one the machine lacks is refused
$TUNE plan make -p 'mid={"tier":1}' -d system -s "$A=mid" -o "$work/plan1.json" "$work/prof" \
	2>/dev/null || fail "plan make (tier 1)"
PREFIX="taskset -c 1" run_placed "$work/plan1.json" "$work/run1b" arrays $M
expect "$work/run1b" A nodes "1:$pages"
$TUNE plan make -p 'none={"tier":3}' -d system -s "$A=none" -o "$work/plan3.json" "$work/prof" \
	2>/dev/null || fail "plan make (tier 3)"
$TUNE plan check -q "$work/plan3.json" 2>"$work/check3" && fail "tier 3 of 3 accepted"
grep -q 'pools.none.tier: tier 3, but this machine has 3 memory tiers (0 to 2' "$work/check3" ||
	fail "tier 3: $(cat "$work/check3")"
note "with HMAT: fastest 2-3 (local: 0->2, 1->3), slowest 4, tier 1 = DDR; tier 3 refused"
