. "$(dirname "$0")/lib.sh"
# Pools by memory tier on the host: `hmpt-tune plan check` against a copy
# of a DDR + CXL machine's sysfs (HMPT_TEST_SYSFS_ROOT, for tests only; the
# topologies of tests/unit/test_tiers.c are checked there, in-process) and
# against this machine; `hmpt-tune --pools fastest-tier,slowest-tier`, and
# the tiers as hmpt-tune's default pools where no HBM is found.
# (Placement on real tiers: tests/vm/tiers.sh in t_numa_vm.)

# a DDR node with 12 CPUs and a CPU-less CXL expander in the kernel's one
# DRAM tier (as skhynix/hmsdk#2 shows), with HMAT and SLIT
sysfs=$work/sys-cxl
n=$sysfs/sys/devices/system/node
put() { mkdir -p "$(dirname "$1")" && printf '%s\n' "$2" >"$1"; }
put "$n/online" 0-1
put "$n/has_cpu" 0
put "$n/has_memory" 0-1
put "$sysfs/sys/devices/virtual/memory_tiering/memory_tier4/nodelist" 0-1
for i in 0 1; do
	put "$n/node$i/meminfo" "Node $i MemTotal: $((4 << 20)) kB
Node $i MemFree: $((2 << 20)) kB"
	put "$n/node$i/access1/initiators/node0" ""
done
put "$n/node0/cpulist" 0-11
put "$n/node1/cpulist" ""
put "$n/node0/distance" "10 20"
put "$n/node1/distance" "20 10"
put "$n/node0/access1/initiators/read_bandwidth" 204800
put "$n/node0/access1/initiators/read_latency" 110
put "$n/node1/access1/initiators/read_bandwidth" 40960
put "$n/node1/access1/initiators/read_latency" 250

cat >"$work/plan.json" <<'EOF'
{"format": "hmpt-plan", "format_version": 2,
 "pools": {"fast": {"tier": "fastest", "fallback": "slow"}, "slow": {"tier": "slowest"}},
 "default_pool": "slow", "groups": []}
EOF
HMPT_TEST_SYSFS_ROOT=$sysfs $TUNE plan check "$work/plan.json" >"$work/check" 2>&1 ||
	fail "plan check on the CXL copy: $(cat "$work/check")"
cat "$work/check"
grep -qF '  memory tiers, fastest first (kernel memory tiers split by HMAT): 0: nodes 0 (memory_tier4, 204800 MB/s), 1: nodes 1 (memory_tier4, 40960 MB/s)' \
	"$work/check" || fail "the tiers: $(cat "$work/check")"
grep -qF '  fast: tier fastest (0 of 2, from kernel memory tiers split by HMAT): nodes 0 (local), bind' \
	"$work/check" || fail "fastest: $(cat "$work/check")"
grep -qF '  slow: tier slowest (1 of 2, from kernel memory tiers split by HMAT): nodes 1 (local), bind' \
	"$work/check" || fail "slowest: $(cat "$work/check")"
note "DDR + CXL copy: fastest node 0, slowest node 1"

# this machine: every memory node is in some tier; both pools fit
$TUNE plan check "$work/plan.json" >"$work/check" 2>&1 || fail "plan check here: $(cat "$work/check")"
grep -q '^  fast: tier fastest (0 of [1-9][0-9]*, from ' "$work/check" || fail "here: $(cat "$work/check")"
note "here: $(grep '^  memory tiers' "$work/check")"

# --pools by tier, and the help that says so
$TUNE help tune >"$work/help" || fail "hmpt-tune help tune"
grep -q "fastest-tier, slowest-tier" "$work/help" || fail "hmpt-tune help tune does not name the tiers"
$TUNE -o "$work/t1" --lib "$LIB" --pools fastest-tier,slowest-tier -- "$P/exits" return 3 \
	>"$work/out" 2>"$work/err" && fail "a program exiting 3 was tuned"
grep -q 'exited with status 3 in the profile run' "$work/err" ||
	fail "--pools fastest-tier,slowest-tier: $(cat "$work/err")"
grep -q '"tier": *"fastest"' "$work/t1/plans/pools.json" || fail "pools.json: $(cat "$work/t1/plans/pools.json")"
# no HBM, two tiers (the copy): they are the default pools
HMPT_TEST_SYSFS_ROOT=$sysfs $TUNE -o "$work/t2" --lib "$LIB" -- "$P/exits" return 3 \
	>"$work/out" 2>"$work/err" && fail "a program exiting 3 was tuned"
grep -q 'exited with status 3 in the profile run' "$work/err" || fail "default pools: $(cat "$work/err")"
grep -q '"tier": *"slowest"' "$work/t2/plans/pools.json" || fail "pools.json: $(cat "$work/t2/plans/pools.json")"
note "--pools fastest-tier,slowest-tier accepted; the tiers are the default without HBM"
