#!/bin/bash
# What hmpt needs, found by what it can do (a command on PATH, a header
# that compiles and a library that links), never by asking a package
# manager, so that any distribution with the pieces installed passes.
# Sourced by scripts/install-deps.sh and tests/pkgs.sh; run directly,
#   scripts/deps.sh probe KEY...   exits 0 when every KEY is there, else
#                                  prints "KEY: what is missing" lines, exit 1
#   scripts/deps.sh keys [LEVEL]   the keys (of one level)
#
# One line per requirement: key|level|probe|Debian/Ubuntu|dnf|zypper|what for
# level: build  `make` needs it;
#        check  `make check` builds or runs with it (no skip: it stops);
#        test   some tests need it, and skip with the reason while it is missing.
# probe: ;-separated checks, all of which must pass:
#   cmd A B...         commands on PATH
#   c HEADER [FLAG...] a program including HEADER compiles and links with FLAGs
#   so LIB             LIB (a soname) can be dlopen()ed
#   fuzzer             clang links a libFuzzer target
#   busybox-static     /bin/busybox is statically linked
# dnf names marked * come from EPEL or CRB on RHEL/Rocky/Alma (see
# docs/install.md); zypper names are openSUSE's (SLES: the same names, some
# in the HPC or Development Tools modules).
hmpt_deps_table='
cc|build|cmd gcc; c stdio.h|gcc libc6-dev|gcc glibc-devel|gcc glibc-devel|the C compiler and C library headers
openmp|build|c omp.h -fopenmp|gcc|libgomp|gcc|OpenMP for hmpt-bench
libstdcxx|build|c stdio.h -lstdc++|g++|libstdc++-devel|libstdc++-devel|linking hmpt-tune (-lstdc++: C++ symbol names)
make|build|cmd make|make|make|make|make
libnuma|build|c numaif.h -lnuma|libnuma-dev|numactl-devel|libnuma-devel|NUMA placement (numaif.h, -lnuma)
libunwind|build|c libunwind.h -lunwind|libunwind-dev|libunwind-devel*|libunwind-devel|call stacks in the shim (libunwind.h, -lunwind)
libpfm4|build|c perfmon/pfmlib_perf_event.h|libpfm4-dev|libpfm-devel*|libpfm-devel|hardware event names (perfmon/pfmlib_perf_event.h; libpfm.so.4 opened when sampling asks)
jansson|build|c jansson.h -ljansson|libjansson-dev|jansson-devel|libjansson-devel|JSON in hmpt-tune and hmpt-bench (jansson.h, -ljansson)
libdw|build|c elfutils/libdwfl.h -ldw|libdw-dev|elfutils-devel|libdw-devel|symbolizing sites in hmpt-tune (elfutils/libdwfl.h, -ldw)
libelf|build|c libelf.h -lelf|libelf-dev|elfutils-libelf-devel|libelf-devel|reading ELF files in hmpt-tune (libelf.h, -lelf)
zydis|check|c Zydis/Zydis.h -lZydis|libzydis-dev|zydis-devel*|zydis-devel|decoding the instruction of a timer sample (HMPT_SAMPLE=timer; without it the shim builds without the timer source)
sanitizers|check|c stdio.h -fsanitize=address,undefined|gcc|libasan libubsan|libasan8 libubsan1|the ASan/UBSan builds of the unit tests, hmpt-tune and the shim
cxx|check|cmd g++|g++|gcc-c++|gcc-c++|the C++ test program
fortran|check|cmd gfortran|gfortran|gcc-gfortran|gcc-fortran|the Fortran test programs
binutils|check|cmd nm readelf|binutils|binutils|binutils|nm and readelf in the tests
python3|check|cmd python3|python3|python3|python3|the tests'"'"' checks of JSON output
clang-format|check|cmd clang-format|clang-format|clang-tools-extra|clang-tools|make format-check
fuzzer|check|fuzzer|clang libclang-rt-@CLANG@-dev|clang compiler-rt|clang compiler-rt|the libFuzzer targets (clang -fsanitize=fuzzer)
gnuplot|test|cmd gnuplot|gnuplot-nox|gnuplot|gnuplot|the plots hmpt-tune draws (t_bench checks them only with it)
memkind|test|so libmemkind.so.0|libmemkind-dev|memkind-devel*|memkind-devel|the memkind pool backend (opened when a plan asks; the QEMU placement test)
numactl|test|cmd numactl|numactl|numactl|numactl|numactl -H in the QEMU guest
qemu|test|cmd qemu-system-x86_64 cpio gzip xz zstd|qemu-system-x86 cpio xz-utils zstd|qemu-system-x86-core cpio xz zstd|qemu-x86 cpio xz zstd|the QEMU guest with HBM-like NUMA nodes (t_numa_vm)
ndctl|test|cmd ndctl mkfs.ext4|ndctl e2fsprogs|ndctl e2fsprogs|ndctl e2fsprogs|the emulated NVDIMM in the QEMU guest: device-DAX and DAX-filesystem file pools (t_numa_vm)
busybox|test|busybox-static|busybox-static|busybox|busybox-static|the QEMU guest'"'"'s initramfs (a static /bin/busybox)
openmpi|test|cmd mpicc.openmpi mpirun.openmpi|openmpi-bin libopenmpi-dev|openmpi-devel|openmpi4-devel|MPI jobs under Open MPI (t_mpi, t_slurm)
mpich|test|cmd mpicc.mpich mpiexec.mpich|mpich libmpich-dev|mpich-devel|mpich-devel|MPI jobs under MPICH (t_mpi)
slurm|test|cmd slurmctld slurmd sbatch squeue sinfo scontrol|slurmctld slurmd slurm-client|slurm-slurmctld* slurm-slurmd* slurm*|slurm|a one-node Slurm cluster (t_slurm)
munge|test|cmd munged mungekey|munge|munge*|munge|authentication for that Slurm cluster (t_slurm)
chromium|test|cmd chromium|chromium|chromium*|chromium|a headless browser that loads report.html (t_report_browser)
'

# hmpt_deps_rows [KEY...]: the table's rows (of these keys), one a line
hmpt_deps_rows() {
	local k
	if [ $# = 0 ]; then
		grep -v '^$' <<<"$hmpt_deps_table"
		return
	fi
	for k in "$@"; do
		grep "^$k|" <<<"$hmpt_deps_table" || { echo "deps: no requirement named $k" >&2; return 2; }
	done
}

# hmpt_deps_field ROW N: field N (1-7) of a row
hmpt_deps_field() { cut -d'|' -f"$2" <<<"$1"; }

# hmpt_deps_check PROBE: runs one probe; prints what is missing, status 1
hmpt_deps_check() {
	local words c t rc=0 miss=()
	read -r -a words <<<"$1"
	t=$(mktemp -d "${TMPDIR:-/tmp}/hmpt-deps.XXXXXX") || return 2
	case ${words[0]} in
	cmd)
		for c in "${words[@]:1}"; do command -v "$c" >/dev/null 2>&1 || miss+=("$c"); done
		[ ${#miss[@]} = 0 ] || { echo "no ${miss[*]} on PATH"; rc=1; }
		;;
	c)
		printf '#include <%s>\nint main(void) { return 0; }\n' "${words[1]}" >"$t/p.c"
		if ! command -v "${CC:-gcc}" >/dev/null 2>&1; then
			echo "no ${CC:-gcc} on PATH"; rc=1
		elif ! "${CC:-gcc}" -o "$t/p" "$t/p.c" "${words[@]:2}" >"$t/err" 2>&1; then
			echo "${CC:-gcc} cannot build with <${words[1]}>${words[2]:+ ${words[*]:2}}: $(grep -m1 -i 'error\|cannot\|not found' "$t/err")"; rc=1
		fi
		;;
	so)
		printf '#include <dlfcn.h>\nint main(void) { return !dlopen("%s", RTLD_NOW); }\n' "${words[1]}" >"$t/p.c"
		{ "${CC:-gcc}" -o "$t/p" "$t/p.c" -ldl && "$t/p"; } >/dev/null 2>&1 ||
			{ echo "${words[1]} cannot be opened"; rc=1; }
		;;
	fuzzer)
		printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$t/p.c"
		if ! command -v clang >/dev/null 2>&1; then
			echo "no clang on PATH"; rc=1
		elif ! clang -fsanitize=fuzzer,address,undefined -o "$t/p" "$t/p.c" >/dev/null 2>&1; then
			echo "clang cannot link -fsanitize=fuzzer (no libFuzzer runtime: $(clang -print-file-name=libclang_rt.fuzzer-x86_64.a))"; rc=1
		fi
		;;
	busybox-static)
		[ -x /bin/busybox ] && { LC_ALL=C ldd /bin/busybox 2>&1 || true; } | grep -q 'not a dynamic' ||
			{ echo "no statically linked /bin/busybox"; rc=1; }
		;;
	*) echo "unknown probe: $1"; rc=2 ;;
	esac
	rm -rf "$t"
	return $rc
}

# hmpt_deps_probe ROW: all of the row's checks; prints "KEY: missing" lines
hmpt_deps_probe() {
	local probes p why rc=0
	IFS=';' read -r -a probes <<<"$(hmpt_deps_field "$1" 3)"
	for p in "${probes[@]}"; do
		why=$(hmpt_deps_check "$p") || { echo "$(hmpt_deps_field "$1" 1): $why"; rc=1; }
	done
	return $rc
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1:-} in
	probe)
		shift
		rows=$(hmpt_deps_rows "$@") || exit 2
		rc=0
		while IFS= read -r row; do hmpt_deps_probe "$row" || rc=1; done <<<"$rows"
		exit $rc
		;;
	keys)
		hmpt_deps_rows | awk -F'|' -v l="${2:-}" 'l == "" || $2 == l { print $1 }'
		;;
	*)
		echo "usage: $0 probe KEY... | keys [build|check|test]" >&2
		exit 2
		;;
	esac
fi
