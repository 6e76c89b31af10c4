. "$(dirname "$0")/lib.sh"
# hmpt-test: timeout=1800  (eleven guest boots under TCG: 290-550 s on a loaded 2-core VM)
# hmpt-test: beside  (a machine of its own: run.sh runs it beside the other tests)
# Placement on real NUMA nodes: tests/vm/placement.sh inside a QEMU guest
# with 2 CPU+DDR nodes and 2 memory-only HBM-like nodes (tests/vm/guest.sh
# boots it; the first run downloads Debian's kernel package into build/vm),
# once with HMAT and once without it (memkind's and explicit detection).
# Skips, with the reason, where QEMU cannot run.
"$top/tests/vm/guest.sh" bash "$top/tests/vm/placement.sh" || exit
HMPT_VM_HMAT=0 "$top/tests/vm/guest.sh" bash "$top/tests/vm/placement.sh" nohmat || exit
# hmpt-bench: each array on its pool's nodes
"$top/tests/vm/guest.sh" bash "$top/tests/vm/bench.sh" || exit
# static data (arrays, COMMON blocks) on its planned nodes
"$top/tests/vm/guest.sh" bash "$top/tests/vm/statics.sh" || exit
# the tuner with node pools on the modelled workload: the model's answer
"$top/tests/vm/guest.sh" bash "$top/tests/vm/tune.sh" || exit
# pools by memory tier, with a fifth, CXL-like node: fastest and slowest
# from HMAT, and without HMAT from SLIT (HBM named by hand)
HMPT_VM_CXL_MIB=128 "$top/tests/vm/guest.sh" bash "$top/tests/vm/tiers.sh" || exit
HMPT_VM_CXL_MIB=128 HMPT_VM_HMAT=0 "$top/tests/vm/guest.sh" bash "$top/tests/vm/tiers.sh" nohmat || exit
# three more rows of tests/unit/test_tiers.c's table: A64FX (one kind of
# memory, on every CPU node), Grace Hopper (HBM without CPUs, far) and the
# 16-node Xeon Max in SNC4
HMPT_VM_TOPO=a64fx "$top/tests/vm/guest.sh" bash "$top/tests/vm/tiers.sh" a64fx || exit
HMPT_VM_TOPO=gh200 "$top/tests/vm/guest.sh" bash "$top/tests/vm/tiers.sh" gh200 || exit
HMPT_VM_TOPO=snc4 "$top/tests/vm/guest.sh" bash "$top/tests/vm/tiers.sh" snc4 || exit
# file pools on an emulated NVDIMM: device-DAX and ext4 -o dax (last: it
# alone skips where ndctl is missing)
HMPT_VM_NVDIMM_MIB=256 "$top/tests/vm/guest.sh" bash "$top/tests/vm/files.sh"
