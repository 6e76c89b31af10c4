#!/bin/bash
# Competing load that comes and goes, as on a shared node: busy loops that
# start and stop at random (seeded), until killed (SIGTERM stops them all).
#
# Usage: scripts/loadgen.sh SEED [CPUS [LOOPS]]
#   CPUS: a taskset list the loops are pinned to (default: any CPU)
#   LOOPS: busy loops per burst (default: the number of CPUs)
# Off 0.3-0.9 s, then LOOPS busy loops for 0.2-0.6 s: loaded about a third
# of the time, so that the median run is a quiet one.
set -u
RANDOM=${1:?usage: loadgen.sh SEED [CPUS [LOOPS]]}
cpus=${2:-}
loops=${3:-$(nproc)}
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; pkill -P $$ 2>/dev/null; exit 0' TERM INT
while :; do
	sleep "0.$((3 + RANDOM % 7))"
	for _ in $(seq "$loops"); do
		if [ -n "$cpus" ]; then
			taskset -c "$cpus" bash -c 'while :; do :; done' &
		else
			bash -c 'while :; do :; done' &
		fi
		pids+=($!)
	done
	sleep "0.$((2 + RANDOM % 5))"
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	pids=()
done
