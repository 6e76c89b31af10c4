#!/bin/sh
# Install the Debian packages hmpt needs to build and test, when missing.
# Used by `make check` and `make demo`; safe to run again (it only looks
# when everything is there).  Needs root (or sudo) only when something is
# missing.
set -eu

PKGS="gcc g++ gfortran make libc6-dev binutils pkg-config
libnuma-dev libmemkind-dev libunwind-dev libpfm4-dev libjansson-dev
libdw-dev libelf-dev elfutils numactl clang-format clang libclang-rt-14-dev
qemu-system-x86 busybox-static cpio xz-utils zstd python3 gnuplot-nox
openmpi-bin libopenmpi-dev mpich libmpich-dev
slurmctld slurmd slurm-client munge"
# $HMPT_EXTRA_PKGS: more packages a target needs (e.g. the QEMU harness)
PKGS="$PKGS ${HMPT_EXTRA_PKGS:-}"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps: missing packages:$missing (and no apt-get: install them by hand)" >&2
	exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "install-deps: missing packages:$missing; run as root or install them" >&2
		exit 1
	fi
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# the tests start their own munged and Slurm daemons: the packages' services
# must not start at install (policy-rc.d exit 101 forbids it)
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee $policy >/dev/null
	$SUDO chmod 755 $policy
	trap '$SUDO rm -f $policy' EXIT
fi
$SUDO apt-get update -qq -o DPkg::Lock::Timeout=600 >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 $missing >/dev/null
