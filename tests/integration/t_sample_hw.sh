#!/bin/bash
# Hardware access sampling (PEBS or IBS), where the machine has it: the
# random-access array must get most of the samples.
. "$(dirname "$0")/lib.sh"

ev=/sys/bus/event_source/devices
if [ -e $ev/ibs_op/type ]; then mode=ibs
elif [ -e $ev/cpu/events/mem-loads ] || [ -e $ev/cpu_core/events/mem-loads ]; then mode=pebs
elif [ -e $ev/cpu/type ]; then skip "the CPU PMU here has no load-latency sampling (no $ev/cpu/events/mem-loads) and no IBS"
else skip "no hardware PMU here ($ev has no cpu or ibs_op: a virtual machine without PMU passthrough)"
fi
[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 2 ] || [ "$(id -u)" = 0 ] ||
	skip "perf_event_paranoid > 2 and not root"
out=$work/p
$TUNE profile -q -s $mode --lib "$LIB" -o "$out" -- $PREFIX "$B/bench/hmpt-demo" -s 256 >/dev/null 2>"$work/err" ||
	{ cat "$work/err"; fail "hmpt-demo under $mode sampling failed"; }
grep -q "\"mode\": \"$mode\"" "$out"/profile.[0-9]*.json || fail "profile not in $mode mode"
n=$(awk -F'\t' 'NR > 1 { s += $12 } END { print s + 0 }' "$out/sites.tsv")
[ "$n" -gt 100 ] || fail "only $n samples in tracked blocks"
# the demo's first site (largest: the gathered table) takes the most accesses
top=$(awk -F'\t' 'NR > 1 && $13 > best { best = $13; loc = $9 } END { print loc }' "$out/sites.tsv")
echo "ok $mode: $n samples, most in $top"
