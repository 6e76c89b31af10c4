. "$(dirname "$0")/lib.sh"
# scripts/install-deps.sh probes, installs nothing here: -n (probe only), a
# PATH without apt-get and os-release files of other distributions.  What is
# there passes with no apt-get at all; what is missing (a command hidden
# from PATH) is named with the package of each distribution, one line per
# problem, and a non-zero exit.  A few requirements only (HMPT_DEPS_KEYS),
# so that it stays fast.
deps=$top/scripts/install-deps.sh
# each case sets what it means to: none of the caller's (make check
# HMPT_DEPS=build puts HMPT_DEPS in every test's environment)
unset HMPT_DEPS HMPT_DEPS_KEYS HMPT_OS_RELEASE
# a PATH of links to every command but apt-get, and one without gnuplot too
mkdir -p "$work/bin"
IFS=: read -r -a dirs <<<"$PATH"
# the first of a name on PATH wins, as in the shell (ln skips the others)
for d in "${dirs[@]}"; do [ -d "$d" ] && ln -s -t "$work/bin" "$d"/* 2>/dev/null; done
rm -f "$work/bin/apt-get"
cp -a "$work/bin" "$work/bin-nognuplot" && rm -f "$work/bin-nognuplot/gnuplot"
nopath=$work/bin
command -v apt-get >/dev/null && PATH=$nopath command -v apt-get >/dev/null && fail "apt-get still on the test's PATH"
os() { # os NAME ID ID_LIKE: a fake os-release
	printf 'NAME="%s"\nID=%s\nID_LIKE="%s"\n' "$1" "$2" "$3" >"$work/os-$2"
	echo "$work/os-$2"
}
keys="cc libnuma jansson python3 gnuplot"
# run NAME PATH OS-RELEASE [ARGS]: the script's status and messages
run() {
	local name=$1 path=$2 osr=$3; shift 3
	PATH=$path HMPT_OS_RELEASE=$osr HMPT_DEPS_KEYS=$keys "$deps" "$@" >"$work/$name.out" 2>&1
	echo $? >"$work/$name.rc"
	note "$name: exit $(cat "$work/$name.rc")"
	sed 's/^/   /' "$work/$name.out"
}
expect_rc() { [ "$(cat "$work/$1.rc")" = "$2" ] || fail "$1: exit $(cat "$work/$1.rc"), expected $2"; }
has() { grep -qF -- "$2" "$work/$1.out" || fail "$1: no line with: $2"; }

# 1. every requirement there (whatever the distribution): nothing to do, no
#    apt-get needed, nothing said
if "$top/scripts/deps.sh" probe $keys >"$work/probe" 2>&1; then
	run present "$nopath" "$(os Rocky rocky 'rhel centos fedora')"
	keys="python3 gnuplot" # commands only, from here on: fast
	expect_rc present 0
	[ -s "$work/present.out" ] && fail "present: said something: $(cat "$work/present.out")"
else
	keys="python3 gnuplot"
	note "not all of $keys here ($(cat "$work/probe")): the all-present case is not checked"
fi
# 2. gnuplot hidden: Rocky names the dnf package and stops
run rocky "$work/bin-nognuplot" "$work/os-rocky"
expect_rc rocky 1
has rocky "install-deps: missing gnuplot (tests skip without it): no gnuplot on PATH"
has rocky "install-deps: on rocky, install them with: dnf install gnuplot"
has rocky "HMPT_DEPS=build"
# 3. openSUSE: zypper
run suse "$work/bin-nognuplot" "$(os 'openSUSE Leap' opensuse-leap 'suse opensuse')"
expect_rc suse 1
has suse "install-deps: on opensuse-leap, install them with: zypper install gnuplot"
# 4. HMPT_DEPS=build: a test's requirement missing does not stop it
HMPT_DEPS=build run build "$work/bin-nognuplot" "$work/os-rocky"
expect_rc build 0
# 5. Debian without apt-get on PATH: the apt-get command to run by hand
run debian "$work/bin-nognuplot" "$(os Debian debian '')"
expect_rc debian 1
has debian "install-deps: no apt-get on PATH: install them by hand: apt-get install gnuplot-nox"
# 6. Ubuntu with apt-get, probe only: what it would run, and nothing run
if command -v apt-get >/dev/null; then
	mkdir -p "$work/bin-apt"
	cp -a "$work/bin-nognuplot/." "$work/bin-apt/"
	# an apt-get that says it ran: -n must not call it
	printf '#!/bin/sh\necho "apt-get ran: $*" >>%s\n' "$work/apt-ran" >"$work/bin-apt/apt-get"
	chmod +x "$work/bin-apt/apt-get"
	run ubuntu "$work/bin-apt" "$(os Ubuntu ubuntu debian)" -n
	expect_rc ubuntu 1
	if [ "$(id -u)" = 0 ]; then
		has ubuntu "install-deps: would run: apt-get install gnuplot-nox"
	else
		has ubuntu "install-deps: not root"
	fi
	[ -e "$work/apt-ran" ] && fail "-n ran apt-get: $(cat "$work/apt-ran")"
fi
# 7. unknown distribution: Debian's names as the reference
run other "$work/bin-nognuplot" "$(os Other other '')"
expect_rc other 1
has other "unknown distribution (other): install them by hand; Debian calls them: gnuplot-nox"
echo "ok"
