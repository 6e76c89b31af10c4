#!/bin/bash
# What hmpt needs to build and test, found by probing (scripts/deps.sh:
# commands, headers that compile, libraries that link), installed only
# when something is missing and only where apt-get can: Debian and Ubuntu.
# Elsewhere it names the dnf or zypper packages and stops.  Used by
# `make check`, `make demo` and `make bench` (never by plain `make`).
#
# Usage: scripts/install-deps.sh [-n]
#   -n  probe only: say what is missing and what would install it; never
#       install (exit 1 when something is missing)
# Environment:
#   HMPT_DEPS=build     require only what `make` and `make check` need: the
#                       tests that need the rest skip, each with its reason
#   HMPT_DEPS=run       require only what `make`, `make demo` and `make bench`
#                       need (the default of `make demo` and `make bench`)
#   HMPT_DEPS_KEYS="K.." probe only these requirements (scripts/deps.sh keys)
#   HMPT_OS_RELEASE     the os-release file to read (default /etc/os-release)
# Exit: 0 when everything is there (or was just installed); 1 when something
# is missing and was not installed, one line per problem on standard error.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/deps.sh"

dry=0
[ "${1:-}" = -n ] && dry=1
say() { echo "install-deps: $*" >&2; }

# ---------------------------------------------------------------- probe
# shellcheck disable=SC2086
rows=$(hmpt_deps_rows ${HMPT_DEPS_KEYS:-}) || exit 2
case ${HMPT_DEPS:-all} in
all) ;;
build) rows=$(grep -v '^[^|]*|test|' <<<"$rows" || true) ;;
# make demo, make bench: what builds, and python3 for their summaries
run) rows=$(grep -E '^[^|]*\|build\||^python3\|' <<<"$rows" || true) ;;
*) say "HMPT_DEPS=${HMPT_DEPS}: expected all, build or run"; exit 2 ;;
esac
missing=() problems=()
while IFS= read -r row; do
	[ -n "$row" ] || continue
	why=$(hmpt_deps_probe "$row") && continue
	missing+=("$row")
	level=$(hmpt_deps_field "$row" 2)
	case $level in
	build) need="make needs it" ;;
	check) need="make check needs it" ;;
	*) need="tests skip without it" ;;
	esac
	problems+=("missing $(hmpt_deps_field "$row" 1) ($need): ${why#*: }; it is for $(hmpt_deps_field "$row" 7)")
done <<<"$rows"
[ ${#missing[@]} = 0 ] && exit 0
for p in "${problems[@]}"; do say "$p"; done

# ---------------------------------------------------------------- which system
osr=${HMPT_OS_RELEASE:-/etc/os-release}
[ -r "$osr" ] || osr=/usr/lib/os-release
os=$( (. "$osr" 2>/dev/null && echo ${ID:-} ${ID_LIKE:-}) || true)
family=unknown
for id in $os; do
	case $id in
	debian | ubuntu) family=apt ;;
	rhel | centos | fedora | rocky | almalinux | ol) family=dnf ;;
	sles | suse | opensuse | opensuse-*) family=zypper ;;
	*) continue ;;
	esac
	break
done

# pkgs COLUMN: the packages of the missing requirements, in that column
pkgs() {
	local row out=()
	for row in "${missing[@]}"; do
		# shellcheck disable=SC2207
		out+=($(hmpt_deps_field "$row" "$1"))
	done
	local clang_v=14
	command -v clang >/dev/null 2>&1 && clang_v=$(clang -dumpversion | cut -d. -f1)
	printf '%s\n' "${out[@]}" | sed "s/@CLANG@/$clang_v/; s/\*\$//" | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//'
}
stop_hint="(or HMPT_DEPS=build to run only what builds: the tests that need the rest skip)"

case $family in
dnf)
	say "on ${os%% *}, install them with: dnf install $(pkgs 5)"
	grep -q '\*' <<<"$(for r in "${missing[@]}"; do hmpt_deps_field "$r" 5; done)" &&
		say "on RHEL, Rocky and Alma some come from EPEL and CRB: dnf install epel-release && dnf config-manager --set-enabled crb (PowerTools on 8); see docs/install.md"
	say "$stop_hint"
	exit 1
	;;
zypper)
	say "on ${os%% *}, install them with: zypper install $(pkgs 6)"
	say "$stop_hint"
	exit 1
	;;
unknown)
	say "unknown distribution (${os:-no $osr}): install them by hand; Debian calls them: $(pkgs 4) (docs/install.md)"
	say "$stop_hint"
	exit 1
	;;
esac

# ---------------------------------------------------------------- Debian, Ubuntu
debs=$(pkgs 4)
if ! command -v apt-get >/dev/null 2>&1; then
	say "no apt-get on PATH: install them by hand: apt-get install $debs"
	exit 1
fi
SUDO=()
if [ "$(id -u)" != 0 ]; then
	if [ $dry = 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO=(sudo -n)
	else
		say "not root (and no sudo without a password): run as root: apt-get install $debs"
		exit 1
	fi
fi
if [ $dry = 1 ]; then
	say "would run: ${SUDO[*]:+${SUDO[*]} }apt-get install $debs"
	exit 1
fi
say "installing $debs"
export DEBIAN_FRONTEND=noninteractive
# the tests start their own munged and Slurm daemons: the packages' services
# must not start at install (policy-rc.d exit 101 forbids it)
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' | ${SUDO[@]+"${SUDO[@]}"} tee $policy >/dev/null
	${SUDO[@]+"${SUDO[@]}"} chmod 755 $policy
	trap '${SUDO[@]+"${SUDO[@]}"} rm -f $policy' EXIT
fi
${SUDO[@]+"${SUDO[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get update -qq -o DPkg::Lock::Timeout=600 >/dev/null
# shellcheck disable=SC2086
${SUDO[@]+"${SUDO[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	-o DPkg::Lock::Timeout=600 $debs >/dev/null
# what was installed must now be found, or the probe or the table is wrong
still=()
for row in "${missing[@]}"; do why=$(hmpt_deps_probe "$row") || still+=("$why"); done
[ ${#still[@]} = 0 ] || {
	for s in "${still[@]}"; do say "still missing after apt-get install: $s"; done
	exit 1
}
