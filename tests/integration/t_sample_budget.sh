#!/bin/bash
# The kernel's budget for perf rings (kernel/events/core.c perf_mmap): an
# unprivileged user may lock perf_event_mlock_kb per online CPU, then
# RLIMIT_MEMLOCK per process.  Run as `nobody` with `ulimit -l 64`, so the
# budget is small and known: the shim says before sampling starts that the
# threads asked for (OMP_NUM_THREADS) will not all fit, and the threads it
# could sample are exactly what the budget holds; the others run unsampled,
# said once, and the program's output and exit status are unchanged.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (runs the program as user nobody)"
id nobody >/dev/null 2>&1 || skip "no user nobody"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is missing"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$paranoid" -le 2 ] || skip "perf_event_paranoid > 2: perf events are closed to users here"
[ "$paranoid" -ge 0 ] || skip "perf_event_paranoid -1: the kernel sets no ring budget here"

sdir=$(mktemp -d /var/tmp/hmpt-budget.XXXXXX)
trap 'rm -rf "$work" "$sdir"' EXIT
cp "$LIB" "$P/threads" "$sdir/"
chmod 755 "$sdir" "$sdir/threads" "$sdir/libhmpt.so"
chmod 777 "$work"

mlock_kb=$(cat /proc/sys/kernel/perf_event_mlock_kb)
cpus=$(getconf _NPROCESSORS_ONLN)
page=$(getconf PAGESIZE)
ring=$(((64 + 1) * page)) # page-fault mode: 64 data pages and the header page
room=$(((mlock_kb * 1024 / page * cpus + 64 * 1024 / page) / (ring / page)))
n=$((room + 3)) # worker threads; the main thread is sampled too
[ $n -le 256 ] || skip "the budget holds $room rings here: more threads than the test program starts"
echo "budget: $mlock_kb KiB x $cpus CPUs + 64 KiB, $((ring / 1024)) KiB a ring: room for $room"

run_as_nobody() { # OUT ARGS...: the program as nobody, small memlock limit
	local out=$1; shift
	# setpriv, not runuser: no PAM session, so no pam_limits to change the limit
	(ulimit -l 64 && setpriv --reuid=nobody --regid=nogroup --clear-groups -- env "$@" HMPT_SAMPLE=faults \
		HMPT_PROFILE="$work/$out.json" LD_PRELOAD="$sdir/libhmpt.so" "$sdir/threads" "$n") \
		>"$work/$out.out" 2>"$work/$out.err"
}
run_as_nobody a OMP_NUM_THREADS=$((n + 1)) || fail "threads exited $? under the shim: $(cat "$work/a.err")"
cat "$work/a.err"
grep -c "the kernel's budget for perf rings holds about $room threads on this node" "$work/a.err" |
	grep -qx 1 || fail "no single warning before sampling started"
grep -c 'a thread runs unsampled: .*mmap of the ring' "$work/a.err" | grep -qx 1 ||
	fail "the unsampled threads were not said exactly once"
read -r threads failed room_p < <(python3 - "$work/a.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sampling"]
print(s["threads"], s["threads_failed"], s["ring_room_threads"])
PY
)
[ "$room_p" = "$room" ] || fail "profile ring_room_threads $room_p, want $room"
[ "$threads" = "$room" ] && [ "$failed" = $((n + 1 - room)) ] ||
	fail "$threads threads sampled and $failed failed; the budget holds $room of $((n + 1))"
echo "ok: $threads of $((n + 1)) threads sampled, $failed unsampled, as the budget says"

# within the budget, nothing is said
n=1
run_as_nobody b OMP_NUM_THREADS=2 || fail "threads exited $? under the shim"
[ ! -s "$work/b.err" ] || fail "the shim was not quiet within the budget: $(cat "$work/b.err")"
note "room for $room rings of $((ring / 1024)) KiB as user nobody with ulimit -l 64: $threads sampled, $failed not, warned once before"
