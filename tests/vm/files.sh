# files.sh — file pools on an emulated NVDIMM, run inside the QEMU guest
# booted with one (HMPT_VM_NVDIMM_MIB=256 tests/vm/guest.sh bash $0):
# ndctl makes it a device-DAX device, then an fsdax namespace with an ext4
# filesystem mounted -o dax.  Each is a file pool's memory; the block's
# mapping is read back from /proc/self/maps (placed's report), and the
# data are checked across fork and reuse.  tests/integration/t_numa_vm.sh
# runs it.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/place_common.sh"
[ "${VM_GUEST:-}" = 1 ] || skip "runs inside the QEMU guest: HMPT_VM_NVDIMM_MIB=256 tests/vm/guest.sh bash $0"
command -v ndctl >/dev/null || prereq_missing ndctl -- "no ndctl to make the NVDIMM's namespaces"
[ -d /sys/bus/nd/devices/region0 ] || fail "the guest has no NVDIMM region (nfit/libnvdimm not loaded, or no NVDIMM)"
M=8
learn_sites "$work/prof" fork $M
FA=$(site_id "$work/prof" alloc_a) FB=$(site_id "$work/prof" alloc_b)

# 1. device-DAX: the device's size is the pool's budget
ndctl create-namespace -f -e namespace0.0 -m devdax -a 2M >"$work/ns" 2>&1 ||
	ndctl create-namespace -m devdax -a 2M >"$work/ns" 2>&1 || fail "ndctl devdax: $(cat "$work/ns")"
dax=$(ls /dev/dax* 2>/dev/null | head -n 1)
[ -c "$dax" ] || fail "no device-DAX device after ndctl: $(cat "$work/ns"; ls /dev)"
one_pool_plan "$work/plan1.json" "$work/prof" \
	'pm={"backend":"file","file":"'"$dax"'"}' "$FA,$FB=pm"
$TUNE plan check "$work/plan1.json" >"$work/check1" 2>&1 || fail "plan check: $(cat "$work/check1")"
cat "$work/check1"
grep -q "pm  *file $dax" "$work/check1" || fail "plan check does not name $dax"
grep -q "(the device)" "$work/check1" || fail "no budget from the device: $(cat "$work/check1")"
run_placed "$work/plan1.json" "$work/run1" fork $M
cat "$work/run1"
expect "$work/run1" A file "$dax"
expect "$work/run1" B file "$dax"
# the device's 2 MiB alignment: its pages are mapped 2 MiB at a time; they
# are device memory, which move_pages does not report on (-ENOENT)
expect "$work/run1" A pagesize_kb 2048
grep -qx "fork parent=intact child=intact" "$work/run1" || fail "fork on device-DAX: $(cat "$work/run1")"
grep -qx "reuse same=1 zero=1" "$work/run1" || fail "reuse on device-DAX: $(cat "$work/run1")"

# 2. fsdax: ext4 -o dax on the pmem block device; the device itself is refused
ndctl create-namespace -f -e namespace0.0 -m fsdax -a 2M >"$work/ns2" 2>&1 || fail "ndctl fsdax: $(cat "$work/ns2")"
pmem=$(ls /dev/pmem* 2>/dev/null | head -n 1)
[ -b "$pmem" ] || fail "no pmem block device: $(cat "$work/ns2")"
sed "s|$dax|$pmem|" "$work/plan1.json" >"$work/plan2.json"
$TUNE plan check "$work/plan2.json" >"$work/check2" 2>&1 && fail "plan check took a block device"
grep -q "pools.pm.file: cannot map the block device $pmem: its pages would go through the page cache" \
	"$work/check2" || fail "block device: $(cat "$work/check2")"
mkfs.ext4 -q -F -b 4096 "$pmem" >"$work/mkfs" 2>&1 || fail "mkfs.ext4: $(cat "$work/mkfs")"
mkdir -p "$work/pmem"
mount -o dax "$pmem" "$work/pmem" 2>"$work/mount" || fail "mount -o dax: $(cat "$work/mount")"
trap 'umount "$work/pmem" 2>/dev/null; rm -rf "$work"' EXIT
one_pool_plan "$work/plan3.json" "$work/prof" \
	'pd={"backend":"file","file":"'"$work/pmem"'","capacity":"64M"}' "$FA,$FB=pd"
run_placed "$work/plan3.json" "$work/run3" fork $M
cat "$work/run3"
case $(field "$work/run3" A file) in "$work/pmem/#"*) ;; *) fail "A not on the DAX filesystem: $(grep '^A ' "$work/run3")" ;; esac
grep -qx "fork parent=intact child=intact" "$work/run3" || fail "fork on fsdax: $(cat "$work/run3")"
grep -qx "reuse same=1 zero=1" "$work/run3" || fail "reuse on fsdax: $(cat "$work/run3")"
note "file pools on an emulated NVDIMM: device-DAX $dax and ext4 -o dax on $pmem, fork and reuse intact"
