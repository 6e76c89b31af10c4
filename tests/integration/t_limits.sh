. "$(dirname "$0")/lib.sh"
# Limits set after start: a program that lowers RLIMIT_AS or RLIMIT_DATA,
# or calls mlockall, runs as it does without hmpt (same exit status and
# output), and mlockall locks what the program uses, not hmpt's tables
# sized for a 16 TiB arena (about 620 MB locked before limits.c).
# same NAME CMD...: CMD without and with the shim; exit status and output equal
same() {
	local name=$1; shift
	"$@" >"$work/$name.glibc" 2>&1
	local a=$?
	HMPT_VERBOSE=1 LD_PRELOAD=$LIB "$@" >"$work/$name.hmpt" 2>"$work/$name.err"
	local b=$?
	note "$name: exit $a without hmpt, $b with: $(tail -n 1 "$work/$name.hmpt")"
	[ "$a" = 0 ] || fail "$name fails without hmpt (exit $a): $(cat "$work/$name.glibc")"
	[ "$a" = "$b" ] && cmp -s "$work/$name.glibc" "$work/$name.hmpt" ||
		fail "$name: exit $b under hmpt, $a without: $(cat "$work/$name.hmpt" "$work/$name.err")"
}

# 1. RLIMIT_AS, then RLIMIT_DATA, lowered to 512 MiB after a tracked block
same as "$P/limits" as
grep -q 'RLIMIT_AS set to 512.0 MiB: the arena reserves as blocks need it' "$work/as.err" ||
	fail "the switch is not said: $(cat "$work/as.err")"
same data "$P/limits" data
grep -q "RLIMIT_DATA set to 512.0 MiB: freed blocks' pages are no longer kept" "$work/data.err" ||
	fail "the switch is not said: $(cat "$work/data.err")"

# 1b. RLIMIT_DATA from the start (ulimit -d 1G): blocks until refused, half
# of them freed, then larger ones: as many as without hmpt (give or take
# the first refused, which the normal allocator then serves)
( ulimit -d 1048576 && exec "$P/limits" fill ) >"$work/fill.glibc" 2>&1
( ulimit -d 1048576 && LD_PRELOAD=$LIB exec "$P/limits" fill ) >"$work/fill.hmpt" 2>&1
read -r _ _ n_g _ _ m_g < <(grep 'limits: fill' "$work/fill.glibc")
read -r _ _ n_h _ _ m_h < <(grep 'limits: fill' "$work/fill.hmpt")
note "ulimit -d 1G: ${n_g:-?} MiB then ${m_g:-?} without hmpt, ${n_h:-?} MiB then ${m_h:-?} with"
[ -n "$n_h" ] && [ -n "$n_g" ] && [ "$n_h" -ge $((n_g - 32)) ] && [ "$m_h" -ge $((m_g - 1)) ] ||
	fail "under ulimit -d 1G: $(cat "$work/fill.hmpt") under hmpt, $(cat "$work/fill.glibc") without"

# 2. python's resource.setrlimit, then 600 MiB in bytearrays
py=$(command -v python3) && py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$py" ]; then
	same python "$py" -c '
import resource
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, hard))
b = [bytearray(100 << 20) for i in range(3)]
del b
print("python: ok", len(bytearray(300 << 20)))'
else
	note "python3 is not installed: its check is left out"
fi

# 3. ulimit -v inside a preloaded bash, which then allocates
same bash bash -c 'ulimit -v 1048576; x=$(seq 1 200000); echo "bash: ok $(echo "$x" | wc -l)"'

# 4. mlockall: what it locks (with CAP_IPC_LOCK, as root: no limit)
if [ "$(id -u)" = 0 ]; then
	"$P/limits" report >"$work/report.glibc" 2>&1 || fail "report without hmpt: $(cat "$work/report.glibc")"
	LD_PRELOAD=$LIB "$P/limits" report >"$work/report.hmpt" 2>&1 ||
		fail "report under hmpt: $(cat "$work/report.hmpt")"
	read -r _ lck_g _ rss_g < "$work/report.glibc"
	read -r _ lck_h _ rss_h < "$work/report.hmpt"
	note "mlockall: VmLck $lck_g KiB without hmpt, $lck_h with; VmRSS $rss_g KiB, $rss_h"
	[ $((lck_h - lck_g)) -lt 65536 ] && [ $((rss_h - rss_g)) -lt 65536 ] ||
		fail "mlockall under hmpt locks $((lck_h - lck_g)) KiB more than without (VmRSS $((rss_h - rss_g)) more)"
else
	note "not root: what mlockall locks with CAP_IPC_LOCK is left out"
fi

# 5. mlockall held to RLIMIT_MEMLOCK (64 MiB), as an ordinary user is (root
# gives up CAP_IPC_LOCK for it)
drop=
[ "$(id -u)" = 0 ] && drop="setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock"
if (ulimit -l 65536) 2>/dev/null && { [ -z "$drop" ] || command -v setpriv >/dev/null; }; then
	# shellcheck disable=SC2086 # $drop: words, or none
	same lock bash -c 'ulimit -l 65536 && exec "$@"' _ $drop "$P/limits" lock
else
	note "RLIMIT_MEMLOCK cannot be raised to 64 MiB here (hard limit $(ulimit -Hl) KiB): the check under it is left out"
fi
# 6. mlockall(MCL_FUTURE) held to an ordinary user's 8 MiB RLIMIT_MEMLOCK:
# blocks of 3 MiB allocated and freed, then one of 5 MiB, fit as under
# glibc (before, the arena's mappings of freed blocks stayed counted and
# the 5 MiB block was refused; later blocks now go to the normal allocator)
if (ulimit -l 8192) 2>/dev/null && { [ -z "$drop" ] || command -v setpriv >/dev/null; }; then
	# shellcheck disable=SC2086 # $drop: words, or none
	same future bash -c 'ulimit -l 8192 && exec "$@"' _ $drop "$P/limits" future
	grep -q 'mlockall(MCL_FUTURE) under RLIMIT_MEMLOCK 8.00 MiB: blocks allocated from now on are not tracked' "$work/future.err" ||
		fail "the switch is not said: $(cat "$work/future.err")"
else
	note "RLIMIT_MEMLOCK cannot be set to 8 MiB here (hard limit $(ulimit -Hl) KiB): the MCL_FUTURE check is left out"
fi
echo "ok"
