#!/bin/bash
# guest.sh — run a command inside a QEMU guest whose memory looks like a
# two-socket Intel Xeon Max in flat mode: nodes 0 and 1 have a CPU and DDR,
# nodes 2 and 3 have memory only ("HBM"), local to node 0 and node 1, and
# the ACPI HMAT gives them four times the bandwidth of DDR.  Emulated: the
# HBM nodes are ordinary host memory, so speed inside the guest means
# nothing; which node a page is on is real (the guest kernel places it).
#
# Usage: tests/vm/guest.sh [-v] [--] COMMAND [ARGS...]
#   Runs COMMAND (through /bin/sh) as root in the guest, in the current
#   directory, and exits with its status.  The guest's / is the host's /
#   shared read-only over virtio-9p with a tmpfs overlay, so the build tree
#   and every host program are there; writes in the guest are thrown away,
#   except below the directory named by $HMPT_VM_OUT (default: a fresh
#   directory, removed afterwards), which is shared read-write.  In the
#   guest, VM_GUEST=1 and VM_SHARED names that directory; nothing else of
#   the caller's environment goes in (HMPT_* variables would reach the shim).
#   -v shows the guest's console (kernel and init) as it boots.
#
# Exit status: COMMAND's; 77 when the guest cannot be run here (QEMU or
# busybox-static not installed, no kernel package to be had), with "skip:
# REASON" as the last line; 124 when the guest timed out; 125 when it died
# before reporting a status, or cannot run although its packages are installed.
#
# Environment: HMPT_VM_CACHE (kernel and initramfs, default build/vm),
# HMPT_VM_TIMEOUT (seconds per boot, default 600), HMPT_VM_DDR_MIB and
# HMPT_VM_HBM_MIB (memory per DDR and per HBM node, default 384 and 128),
# HMPT_VM_KERNEL_PKG (a Debian linux-image package; default the one
# linux-image-amd64 depends on), HMPT_VM_HMAT=0 (no HMAT: the same nodes
# and distances, but nothing says which nodes are fast),
# HMPT_VM_NUMA_BALANCING=1 (leave the kernel's automatic NUMA balancing on),
# HMPT_VM_NVDIMM_MIB (an emulated NVDIMM of that size in node 1, backed by
# a sparse file in the cache: /dev/pmem0 in the guest, or a device-DAX
# after `ndctl create-namespace -m devdax`; default none),
# HMPT_VM_CXL_MIB (a fifth node of that size, memory only, CXL-like: behind
# node 0 at distance 24 (34 from the rest), HMAT 300 ns / 25 GB/s from node
# 0; default none), HMPT_VM_TOPO=a64fx (four nodes, each a CPU and
# HMPT_VM_HBM_MIB of one kind of memory) or gh200 (node 0 a CPU pair and
# HMPT_VM_DDR_MIB, node 1 HMPT_VM_HBM_MIB without CPUs, faster by HMAT, at
# distance 80) or snc4 (a Xeon Max in SNC4: 8 CPU+DDR nodes of
# HMPT_VM_DDR_MIB/4, 8 HBM nodes of HMPT_VM_HBM_MIB/2).
#
# Automatic NUMA balancing is off in the guest by default
# (numa_balancing=disable): with more than one node the kernel turns it on,
# and it then marks a running task's pages PROT_NONE every scan period to
# sample their accesses (numa_pte_updates 49152 in one run of
# static_stream).  move_pages(2) reports such a page as -EFAULT, "not
# present", until the program touches it again: that, not khugepaged, made
# the read-backs of statics.sh and placement.sh fail at random (3867 of a's
# 4097 pages, all of b and c, in one run with it on; none in 3 runs with it
# off).  The tests' own read-back (tests/progs/report.c) also touches such
# pages and asks again, so that it holds with balancing on too.
#
# How: Debian's kernel package is downloaded (not installed) once; its
# vmlinux is booted directly (PVH entry, no firmware, no decompressor) with
# a busybox initramfs that loads the virtio/9p/overlay modules, mounts the
# host's root and runs the command.  The status comes back through QEMU's
# isa-debug-exit device and a file in the shared directory.  Under TCG
# (software emulation; KVM is not usable on these machines) a boot takes
# about 5 s.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${HMPT_VM_CACHE:-$top/build/vm}
timeout_s=${HMPT_VM_TIMEOUT:-600}
ddr_mib=${HMPT_VM_DDR_MIB:-384}
hbm_mib=${HMPT_VM_HBM_MIB:-128}
verbose=0
t0=$(date +%s.%N)

say() { printf 'guest %5.1fs: %s\n' "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" "$*" >&2; }
skip() { echo "skip: $*"; exit 77; }
# prereq_missing KEY... -- REASON: as in tests/integration/lib.sh, a skip
# only while a requirement (scripts/deps.sh) is missing; with them there the
# guest must run here, so it is an error (125), not a skip
. "$top/tests/pkgs.sh"
prereq_fail() { echo "FAIL: $*"; exit 125; }
die() { echo "guest: $*" >&2; exit 125; }

while [ $# -gt 0 ]; do
	case $1 in
	-v) verbose=1; shift ;;
	--) shift; break ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "guest: unknown option $1 (try --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "guest: no command given (try --help)" >&2; exit 2; }
case "$PWD" in *[[:space:]]*) die "the current directory must not contain white space (it is passed on the kernel command line)" ;; esac
# the guest has its own /proc, /sys, /dev and /run; the rest of / is the host's
case "$PWD/" in /proc/* | /sys/* | /dev/* | /run/*) die "run it from a directory outside /proc, /sys, /dev and /run (the guest has its own)" ;; esac

# ---------------------------------------------------------------- tools
for t in qemu-system-x86_64 cpio gzip; do
	command -v "$t" >/dev/null || prereq_missing qemu -- "no $t"
done
busybox=/bin/busybox # the initramfs has no libraries: it must be static
[ -x $busybox ] && { LC_ALL=C ldd $busybox 2>&1 || true; } | grep -q 'not a dynamic' ||
	prereq_missing busybox -- "no statically linked busybox at $busybox"
mkdir -p "$cache"

# ---------------------------------------------------------------- kernel
# Only the image and the modules the initramfs needs are kept (about 60 MB):
# the host's root over 9p, and the NVDIMM's drivers (nfit, pmem, device-DAX)
# with ext4 for a DAX filesystem on it.
mods="drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_legacy_dev
drivers/virtio/virtio_pci_modern_dev drivers/virtio/virtio_pci fs/netfs/netfs fs/fscache/fscache
net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p fs/overlayfs/overlay
drivers/nvdimm/libnvdimm drivers/acpi/nfit/nfit drivers/nvdimm/nd_btt drivers/nvdimm/nd_pmem
drivers/dax/device_dax drivers/dax/dax_pmem lib/crc16 crypto/crc32c_generic lib/libcrc32c
fs/mbcache fs/jbd2/jbd2 fs/ext4/ext4"
fetch_kernel() {
	local pkg=${HMPT_VM_KERNEL_PKG:-} t
	for t in apt-cache apt-get dpkg-deb; do
		command -v $t >/dev/null || skip "no $t: the guest boots Debian's kernel package, fetched with apt (a Debian or Ubuntu host)"
	done
	resolve() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }'; }
	[ -n "$pkg" ] || pkg=$(resolve)
	if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
		apt-get update -qq -o DPkg::Lock::Timeout=600 >/dev/null 2>&1 || true
		pkg=$(resolve)
	fi
	[ -n "$pkg" ] || skip "cannot resolve Debian's linux-image-amd64 (no apt lists?)"
	say "downloading $pkg (once; kept in ${cache#"$top"/})"
	local k=$cache/kernel.tmp
	rm -rf "$k" && mkdir -p "$k/deb" "$k/x"
	(cd "$k/deb" && apt-get download -qq "$pkg" >/dev/null 2>&1) || skip "cannot download $pkg"
	dpkg-deb --fsys-tarfile "$k"/deb/*.deb | tar -x -C "$k/x" --wildcards './boot/vmlinuz-*' \
		'*/kernel/drivers/virtio/*' '*/kernel/net/9p/*' '*/kernel/fs/9p/*' '*/kernel/fs/netfs/*' \
		'*/kernel/fs/fscache/*' '*/kernel/fs/overlayfs/*' '*/kernel/drivers/nvdimm/*' \
		'*/kernel/drivers/acpi/nfit/*' '*/kernel/drivers/dax/*' '*/kernel/lib/crc16.ko*' \
		'*/kernel/crypto/crc32c_generic.ko*' '*/kernel/lib/libcrc32c.ko*' '*/kernel/fs/mbcache.ko*' \
		'*/kernel/fs/jbd2/*' '*/kernel/fs/ext4/*' 2>/dev/null || true
	local kver; kver=$(ls "$k/x/lib/modules" 2>/dev/null | head -n 1)
	# the package was had: no image in it is this script's fault, not a skip
	[ -n "$kver" ] && [ -f "$k/x/boot/vmlinuz-$kver" ] || die "$pkg holds no kernel image"
	# the ELF vmlinux inside the bzImage: QEMU boots it through the PVH entry
	local magic off
	for magic in 'xz:\xfd7zXZ\x00' 'zstd:\x28\xb5\x2f\xfd'; do
		off=$(LC_ALL=C grep -obUaP "${magic#*:}" "$k/x/boot/vmlinuz-$kver" 2>/dev/null | head -n 1 | cut -d: -f1 || true)
		[ -n "$off" ] || continue
		tail -c +$((off + 1)) "$k/x/boot/vmlinuz-$kver" | ${magic%%:*} -dcq >"$k/vmlinux" 2>/dev/null || true
		head -c 4 "$k/vmlinux" | grep -q ELF && break
		rm -f "$k/vmlinux"
	done
	[ -f "$k/vmlinux" ] || cp "$k/x/boot/vmlinuz-$kver" "$k/vmlinux" # bzImage: slower, works
	mkdir -p "$k/mods"
	local m f
	for m in $mods; do
		f=$(find "$k/x/lib/modules/$kver/kernel" -path "*/$m.ko*" | head -n 1)
		[ -n "$f" ] || continue # built in
		case $f in
		*.xz) xz -dc "$f" ;;
		*.zst) zstd -dcq "$f" ;;
		*) cat "$f" ;;
		esac >"$k/mods/$(basename "$m").ko"
		basename "$m" >>"$k/mods/order"
	done
	echo "$kver" >"$k/version"
	echo "$mods" >"$k/mods.list"
	rm -rf "$k/x" "$k/deb" "$cache/kernel"
	mv "$k" "$cache/kernel"
}
# fetched again when the list of modules changed
{ [ -f "$cache/kernel/version" ] && [ "$(cat "$cache/kernel/mods.list" 2>/dev/null)" = "$mods" ]; } ||
	fetch_kernel

# ---------------------------------------------------------------- initramfs
# PID 1 mounts the host root and the shared directory, runs the command
# with its output in the share, and reports the status.  HMPT_VM_OUT and
# HMPT_VM_CWD arrive as environment variables (the kernel hands unknown
# name=value parameters to init).
initrd=$cache/initrd.gz
if [ ! -f "$initrd" ] || [ "$0" -nt "$initrd" ] || [ "$cache/kernel/version" -nt "$initrd" ]; then
	r=$(mktemp -d "$cache/initramfs.XXXXXX")
	mkdir -p "$r"/{bin,dev,proc,sys,lower,upper,root,mods}
	cp "$busybox" "$r/bin/busybox"
	for a in sh mount umount mkdir insmod chroot dd printf echo cat sync poweroff cut; do
		ln -s busybox "$r/bin/$a"
	done
	cp "$cache"/kernel/mods/* "$r/mods/" 2>/dev/null || true
	cat >"$r/init" <<'INIT'
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# The tests check huge pages as the page faults gave them: khugepaged, which
# would collapse 4 KiB pages into 2 MiB ones later, sleeps an hour between
# scans.
echo 3600000 >/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs 2>/dev/null
status() { # $1 to the host: a file when the share is there, and the debug-exit port
	echo "hmpt-vm: exit $1"
	[ -n "$shared" ] && echo "$1" >/root$HMPT_VM_OUT/.vm/rc && sync
	printf "\\$(printf %03o $(($1 & 127)))" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	poweroff -f
}
shared=
left=$(cat /mods/order 2>/dev/null)
for pass in 1 2 3 4 5; do # modules in any order: retry those whose dependencies came later
	again=
	for m in $left; do insmod /mods/$m.ko 2>/dev/null || again="$again $m"; done
	left=$again
	[ -z "$left" ] && break
done
o=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o $o,ro,cache=loose hostroot /lower || { echo "hmpt-vm: cannot mount the host root"; status 125; }
mount -t tmpfs tmpfs /upper
mkdir -p /upper/u /upper/w
mount -t overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w overlay /root ||
	{ echo "hmpt-vm: no overlay file system"; status 125; }
mount -t proc proc /root/proc
mount -t sysfs sysfs /root/sys
mount -t devtmpfs devtmpfs /root/dev
mkdir -p /root/dev/shm /root/dev/pts /root/dev/hugepages
mount -t tmpfs tmpfs /root/dev/shm
mount -t devpts devpts /root/dev/pts
mount -t hugetlbfs hugetlbfs /root/dev/hugepages
mount -t tmpfs tmpfs /root/run
mkdir -p /root$HMPT_VM_OUT
mount -t 9p -o $o,cache=none shared /root$HMPT_VM_OUT || { echo "hmpt-vm: cannot mount the shared directory"; status 125; }
shared=1
echo "hmpt-vm: command starts at $(cut -d' ' -f1 /proc/uptime) s"
chroot /root /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root TERM=dumb LANG=C.UTF-8 VM_SHARED=$HMPT_VM_OUT VM_GUEST=1 \
	/bin/sh -c 'cd "$1" && exec /bin/sh "$2" >"$3" 2>&1' sh "$HMPT_VM_CWD" \
	"$HMPT_VM_OUT/.vm/cmd.sh" "$HMPT_VM_OUT/.vm/output"
rc=$?
echo "hmpt-vm: command done at $(cut -d' ' -f1 /proc/uptime) s"
status $rc
INIT
	chmod +x "$r/init"
	(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd.tmp"
	mv -f "$initrd.tmp" "$initrd"
	rm -rf "$r"
fi

# ---------------------------------------------------------------- the run
own_out=0
if [ -n "${HMPT_VM_OUT:-}" ]; then
	mkdir -p "$HMPT_VM_OUT"
	out=$(cd "$HMPT_VM_OUT" && pwd)
else
	out=$(mktemp -d "$cache/out.XXXXXX")
	own_out=1
fi
case "$out" in *[[:space:]]*) die "HMPT_VM_OUT must not contain white space" ;; esac
ctl=$out/.vm
qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	if [ $own_out = 1 ]; then rm -rf "$out"; else rm -rf "$ctl"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
rm -rf "$ctl" && mkdir -p "$ctl"
printf '%q ' "$@" >"$ctl/cmd.sh"
echo >>"$ctl/cmd.sh"

hmat=,hmat=on
[ "${HMPT_VM_HMAT:-1}" = 0 ] && hmat=
nvdimm_mib=${HMPT_VM_NVDIMM_MIB:-0}
cxl_mib=${HMPT_VM_CXL_MIB:-0}
# The nodes: by default a 2-socket Xeon Max 9480 in flat/quadrant mode
# (SLIT as on it; HMAT: local DDR 100 ns / 100 GB/s, local HBM 120 ns /
# 400 GB/s, remote 180-200 ns); HMPT_VM_TOPO=a64fx or gh200 for two other
# rows of tests/unit/test_tiers.c's table, in miniature (see there).
case ${HMPT_VM_TOPO:-xeonmax} in
xeonmax)
	total=$((2 * ddr_mib + 2 * hbm_mib)) smp=2,sockets=2,cores=1,threads=1
	numa=(-object memory-backend-ram,id=m0,size=${ddr_mib}M -object memory-backend-ram,id=m1,size=${ddr_mib}M
		-object memory-backend-ram,id=m2,size=${hbm_mib}M -object memory-backend-ram,id=m3,size=${hbm_mib}M
		-numa node,nodeid=0,memdev=m0 -numa node,nodeid=1,memdev=m1
		-numa "node,nodeid=2,memdev=m2${hmat:+,initiator=0}" -numa "node,nodeid=3,memdev=m3${hmat:+,initiator=1}"
		-numa cpu,node-id=0,socket-id=0 -numa cpu,node-id=1,socket-id=1
		-numa dist,src=0,dst=1,val=21 -numa dist,src=0,dst=2,val=13 -numa dist,src=0,dst=3,val=23
		-numa dist,src=1,dst=2,val=23 -numa dist,src=1,dst=3,val=13 -numa dist,src=2,dst=3,val=23)
	lb=$'0 0 100 100G\n0 1 180 50G\n0 2 120 400G\n0 3 200 40G\n1 0 180 50G\n1 1 100 100G\n1 2 200 40G\n1 3 120 400G'
	if [ "$cxl_mib" -gt 0 ]; then
		total=$((total + cxl_mib))
		numa+=(-object "memory-backend-ram,id=m4,size=${cxl_mib}M" -numa "node,nodeid=4,memdev=m4${hmat:+,initiator=0}"
			-numa dist,src=0,dst=4,val=24 -numa dist,src=1,dst=4,val=34
			-numa dist,src=2,dst=4,val=34 -numa dist,src=3,dst=4,val=34)
		lb+=$'\n0 4 300 25G\n1 4 380 20G'
	fi
	;;
a64fx) # four CMGs, each a CPU and its own HBM; one kind of memory
	total=$((4 * hbm_mib)) smp=4,sockets=4,cores=1,threads=1 numa=() lb=
	for i in 0 1 2 3; do
		numa+=(-object "memory-backend-ram,id=m$i,size=${hbm_mib}M" -numa "node,nodeid=$i,memdev=m$i"
			-numa "cpu,node-id=$i,socket-id=$i")
		for t in 0 1 2 3; do lb+="$i $t $((i == t ? 120 : 200)) $((i == t ? 256 : 100))G"$'\n'; done
	done
	numa+=(-numa dist,src=0,dst=1,val=20 -numa dist,src=0,dst=2,val=30 -numa dist,src=0,dst=3,val=30
		-numa dist,src=1,dst=2,val=30 -numa dist,src=1,dst=3,val=30 -numa dist,src=2,dst=3,val=20)
	;;
gh200) # Grace (CPUs, LPDDR5X) and Hopper's HBM3 (no CPUs) at distance 80
	total=$((ddr_mib + hbm_mib)) smp=2,sockets=1,cores=2,threads=1
	numa=(-object "memory-backend-ram,id=m0,size=${ddr_mib}M" -object "memory-backend-ram,id=m1,size=${hbm_mib}M"
		-numa node,nodeid=0,memdev=m0 -numa "node,nodeid=1,memdev=m1${hmat:+,initiator=0}"
		-numa cpu,node-id=0,socket-id=0 -numa dist,src=0,dst=1,val=80)
	lb=$'0 0 120 500G\n0 1 800 4000G'
	;;
snc4) # Xeon Max 9480 flat, SNC4, two sockets: CPU+DDR nodes 0-7 (one CPU
	# each), HBM nodes 8-15, HBM k+8 in CPU node k's cluster (UMF#1289)
	total=$((8 * ddr_mib / 4 + 8 * hbm_mib / 2)) smp=8,sockets=2,cores=4,threads=1 numa=() lb=
	for i in $(seq 0 15); do
		init=
		[ "$i" -ge 8 ] && [ -n "$hmat" ] && init=,initiator=$((i - 8))
		numa+=(-object "memory-backend-ram,id=m$i,size=$((i < 8 ? ddr_mib / 4 : hbm_mib / 2))M"
			-numa "node,nodeid=$i,memdev=m$i$init")
	done
	for i in $(seq 0 7); do numa+=(-numa "cpu,node-id=$i,socket-id=$((i / 4)),core-id=$((i % 4))"); done
	for i in $(seq 0 15); do
		for t in $(seq $((i + 1)) 15); do
			if [ $(((i % 8) / 4)) != $(((t % 8) / 4)) ]; then d=$((i < 8 && t < 8 ? 21 : 23))
			elif [ $((i % 8)) = $((t % 8)) ]; then d=13
			elif [ "$t" -ge 8 ]; then d=14
			else d=12; fi
			numa+=(-numa "dist,src=$i,dst=$t,val=$d")
		done
	done
	for i in $(seq 0 7); do
		for t in $(seq 0 15); do
			if [ "$t" = "$i" ]; then lb+="$i $t 110 75G"$'\n'
			elif [ "$t" = $((i + 8)) ]; then lb+="$i $t 130 400G"$'\n'
			elif [ "$t" -lt 8 ]; then lb+="$i $t 180 40G"$'\n'
			else lb+="$i $t 200 40G"$'\n'; fi
		done
	done
	;;
*) die "HMPT_VM_TOPO=$HMPT_VM_TOPO: expected xeonmax, a64fx, gh200 or snc4" ;;
esac
mem=${total}M
nv=() nvon=
if [ "$nvdimm_mib" -gt 0 ]; then
	# label-less: ndctl makes its one namespace device-DAX or fsdax
	truncate -s "${nvdimm_mib}M" "$cache/nvdimm.img"
	nvon=,nvdimm=on
	mem="$mem,slots=2,maxmem=$((total + nvdimm_mib + 1024))M"
	nv=(-object "memory-backend-file,id=nv0,share=on,mem-path=$cache/nvdimm.img,size=${nvdimm_mib}M"
		-device "nvdimm,id=nvdimm0,memdev=nv0,node=1")
fi
q=(qemu-system-x86_64 -nodefaults -no-user-config -display none -vga none -monitor none
	-serial "file:$ctl/console" -no-reboot -device isa-debug-exit,iobase=0xf4,iosize=0x01
	-accel tcg,thread=single,tb-size=256 -cpu max
	-machine "q35$hmat$nvon" -m "$mem" -smp "$smp" "${numa[@]}" ${nv[@]+"${nv[@]}"})
[ -n "$hmat" ] && while read -r i t lat bw; do
	[ -n "$i" ] || continue
	q+=(-numa "hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-latency,latency=$lat"
		-numa "hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bw")
done <<<"$lb"
append="console=ttyS0 panic=-1 mitigations=off nokaslr tsc=reliable no_timer_check lpj=4000000
8250.nr_uarts=1 i8042.noaux i8042.nokbd i8042.nopnp cryptomgr.notests HMPT_VM_OUT=$out HMPT_VM_CWD=$PWD"
[ $verbose = 1 ] || append="$append quiet"
[ "${HMPT_VM_NUMA_BALANCING:-0}" = 1 ] || append="$append numa_balancing=disable"
q+=(-kernel "$cache/kernel/vmlinux" -initrd "$initrd" -append "$(echo $append)"
	-fsdev local,id=fsroot,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=fsroot,mount_tag=hostroot
	-fsdev "local,id=fsout,path=$out,security_model=none"
	-device virtio-9p-pci,fsdev=fsout,mount_tag=shared)

# A boot that hangs before the command starts is retried once (seen about
# once in 60 boots with multi-threaded TCG); a command never runs twice.
for try in 1 2; do
	rm -f "$ctl/console" "$ctl/rc" "$ctl/output"
	[ $verbose = 0 ] || say "booting the guest (TCG; nodes 0-1 CPU+DDR ${ddr_mib} MiB, 2-3 HBM-like ${hbm_mib} MiB${hmat:-, no HMAT}; kernel $(cat "$cache/kernel/version"))"
	if [ $verbose = 1 ]; then
		touch "$ctl/console"
		tail -n +1 -f "$ctl/console" >&2 &
		tailpid=$!
	fi
	set +e
	timeout -k 5 "$timeout_s" "${q[@]}" </dev/null >"$ctl/qemu.log" 2>&1 &
	qpid=$!
	wait $qpid
	st=$?
	qpid=
	set -e
	[ $verbose = 1 ] && kill "$tailpid" 2>/dev/null
	grep -qa 'hmpt-vm: command starts' "$ctl/console" 2>/dev/null && break
	[ -f "$ctl/rc" ] && break
	say "the guest did not reach the command (qemu status $st)"
	if [ $try = 2 ]; then
		tail -n 20 "$ctl/console" "$ctl/qemu.log" >&2 2>/dev/null || true
		grep -q 'Could not\|could not\|failed' "$ctl/qemu.log" 2>/dev/null &&
			prereq_missing qemu -- "QEMU cannot run here: $(grep -m1 'Could not\|could not\|failed' "$ctl/qemu.log")"
		die "the guest did not start the command in two boots"
	fi
done
[ -f "$ctl/output" ] && cat "$ctl/output"
if [ -f "$ctl/rc" ]; then
	rc=$(cat "$ctl/rc")
elif [ "$st" = 124 ] || [ "$st" = 137 ]; then
	say "timed out after $timeout_s s (HMPT_VM_TIMEOUT)"
	tail -n 20 "$ctl/console" >&2
	exit 124
elif [ $((st & 1)) = 1 ] && [ "$st" -gt 1 ]; then
	rc=$(((st - 1) / 2))
else
	tail -n 20 "$ctl/console" >&2
	die "the guest died without reporting a status (qemu status $st)"
fi
# the time of every boot, said always: how close a loaded machine came to
# HMPT_VM_TIMEOUT shows in the test logs
say "done: exit status $rc, $(cut -d' ' -f1 /proc/loadavg) load average (limit $timeout_s s)"
exit "$rc"
