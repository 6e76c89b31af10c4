#!/bin/bash
# Hardware access sampling (PEBS or IBS), where the machine has it: the
# array read at random must get most of the samples.  Skips (a fact of the
# machine, no package gives it) without a PMU that samples loads, as in a
# virtual machine without PMU passthrough.
. "$(dirname "$0")/lib.sh"

ev=/sys/bus/event_source/devices
if [ -e $ev/ibs_op/type ]; then mode=ibs
elif [ -e $ev/cpu/events/mem-loads ] || [ -e $ev/cpu_core/events/mem-loads ]; then mode=pebs
elif [ -e $ev/cpu/type ]; then skip "the CPU PMU here has no load-latency sampling (no $ev/cpu/events/mem-loads) and no IBS"
else skip "no hardware PMU here ($ev has no cpu or ibs_op: a virtual machine without PMU passthrough; what is proven without one: docs/evidence.md, 'Sampling without a PMU')"
fi
[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 2 ] || [ "$(id -u)" = 0 ] ||
	skip "perf_event_paranoid > 2 and not root"
out=$work/p
# hammer: alloc_hot's array read at random 8 times as often as alloc_cold's
# is read in order; the site sampling ranks first must be alloc_hot's
$TUNE profile -q -s $mode --lib "$LIB" -o "$out" -- $PREFIX "$P/hammer" 32 >/dev/null 2>"$work/err" ||
	{ cat "$work/err"; fail "hammer under $mode sampling failed"; }
grep -q "\"mode\": \"$mode\"" "$out"/profile.[0-9]*.json || fail "profile not in $mode mode"
n=$(awk -F'\t' 'NR > 1 { s += $12 } END { print s + 0 }' "$out/sites.tsv")
[ "$n" -gt 100 ] || fail "only $n samples in tracked blocks"
hot=$(function_at "$out/sites.tsv" "hammer.c:$(grep -n 'return malloc' "$top/tests/progs/hammer.c" | head -n 1 | cut -d: -f1)")
[ "$hot" = alloc_hot ] || fail "no site located at alloc_hot's malloc in $out/sites.tsv"
# columns: 1 id, 8 function, 9 location, 12 samples, 13 access share
read -r top_fn top_loc top_n top_share < <(sort -t$'\t' -k12,12nr <(tail -n +2 "$out/sites.tsv") |
	awk -F'\t' 'NR == 1 { print $8, $9, $12, $13 }')
[ "$top_fn" = alloc_hot ] ||
	fail "the most-sampled site is $top_fn at $top_loc ($top_n of $n samples), not alloc_hot: $(cut -f 1,8,9,12,13 "$out/sites.tsv")"
awk -v s="$top_share" 'BEGIN { exit !(s > 0.5) }' ||
	fail "alloc_hot has only a share of $top_share of the samples: $(cut -f 1,8,9,12,13 "$out/sites.tsv")"
echo "ok $mode: $n samples, $top_n ($top_share) at alloc_hot ($top_loc)"
