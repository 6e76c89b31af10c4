#!/bin/bash
# Run hmpt's benchmarks; every figure is a ratio or a cost taken in one run.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=$top/build
echo "== malloc overhead (bench/malloc_overhead.c)"
LD_PRELOAD=$B/libhmpt.so "$B/bench/malloc_overhead"
echo "== large calloc touched sparsely, against glibc (bench/calloc_sparse.c)"
"$B/bench/calloc_sparse" "$B/libhmpt.so"
echo "== start-up with nothing asked (bench/startup.c)"
"$B/bench/startup" "$B/libhmpt.so" 200
echo "== stress mix, threads 1 2 4 16 (bench/stress_mix.sh)"
bench/stress_mix.sh
echo "== allocation rows in the manner of mimalloc-bench, nothing asked (bench/alloc_rows.sh)"
bench/alloc_rows.sh
echo "== real programs, nothing asked (bench/real_programs.sh)"
bench/real_programs.sh
echo "== programs of 10^3, 10^4 and 10^5 allocation sites: runs, profile, plan make/check/rebase, a tuning's report (bench/nsites.sh)"
bench/nsites.sh
echo "== sampling overhead (bench/sample_overhead.c)"
"$B/bench/sample_overhead" "$B/libhmpt.so" auto 128 7
echo "== the timer source's cost at 1 kHz a thread, against HMPT_SAMPLE=off (bench/timer_overhead.sh)"
bench/timer_overhead.sh
echo "== page-fault profiling of large blocks freed and reused, malloc-large-like (bench/large_reuse.c)"
"$B/bench/large_reuse" "$B/libhmpt.so" 1000 3
echo "== hmpt-bench triad against classic STREAM (bench/stream_vs_classic.sh)"
bench/stream_vs_classic.sh || [ $? = 77 ]
echo "== random gathers with a growing share of the table in THP, split placement (bench/split_gather.sh)"
bench/split_gather.sh || [ $? = 77 ]
echo "== hmpt-tune on the demo, pools thp,4k (bench/tune_demo.sh)"
bench/tune_demo.sh || [ $? = 77 ]
echo "== the demo's tuning under competing load, then compare (bench/demo_load.sh)"
bench/demo_load.sh || [ $? = 77 ]
echo "== the demo's tuning beside a memory-bandwidth co-tenant, then alternating runs (bench/demo_cotenant.sh)"
bench/demo_cotenant.sh || [ $? = 77 ]
echo "== the tuner's statistics against the truth, modelled (bench/calibrate.sh \${CALIBRATE_ARGS:---tunings 200}: 1.5-2 h on 2 cores)"
read -r -a calibrate_args <<<"${CALIBRATE_ARGS:---tunings 200}"
bench/calibrate.sh "${calibrate_args[@]}" || [ $? = 77 ]
