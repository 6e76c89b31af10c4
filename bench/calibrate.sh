#!/bin/bash
# The tuner's statistics against the true answer (issue 27): seeded tunings
# of the modelled workload (tests/progs/model.c) under each noise model
# (lognormal, drift, burst, heavy, bimodal, which hit every placement alike;
# carry, position, load, pages, frequency, which do not: issue 40), on a
# null landscape and on
# landscapes of known gain, judged by tests/integration/model_truth.py: the
# share of null tunings that claim a plan faster, the coverage of plan-best's
# interval and plan-best's true speedup over the true best.  The figures are
# modelled, not measured: the same seeds give the same table on any machine,
# busy or not; only the run time depends on it (hmpt-tune runs for real).
# It fails only when a tool fails, never on a figure (t_tune_calib checks a
# fixed slice of it).
#
# Usage: bench/calibrate.sh [--tunings N] [--models lognormal,drift,...]
#   [--seed-base S] [--jobs J] [--tune-args 'OPTIONS'] [--markdown]
#   [--keep DIR] [--records FILE]
# --tunings: per noise model, half null and half gain (default 200: 2000
# tunings in all; on the shared 2-core VM 2 at a time took 210-370 s per 100
# tunings, one and a half to two hours for the default); --jobs: parallel
# tunings (default: the CPUs).  Environment: CALIBRATE_ARGS, options for
# bench/run.sh's run (default: none, the full 200 per model).
set -eu
. "$(dirname "$0")/bench_lib.sh"
bench_need_thp calibrate
# the modelled workload is a test program; build it alone where the tests were not built
[ -x "$B/progs/model" ] || make -s -C "$top/tests/progs" B="$B/progs" "$B/progs/model" >&2
PYTHONPATH=$top/tests/integration${PYTHONPATH:+:$PYTHONPATH} exec python3 \
	"$top/tests/integration/calib.py" --tune "$B/hmpt-tune" --lib "$B/libhmpt.so" \
	--model "$B/progs/model" "$@"
