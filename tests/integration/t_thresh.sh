. "$(dirname "$0")/lib.sh"
# glibc's thresholds move under hmpt as glibc moves them (shim/thresh.h):
# after a 4 MiB buffer (tracked) is freed, a heap top that rises and falls
# by 6 MiB is kept, not trimmed and faulted in again every round; and a
# threshold the program fixed itself (mallopt, MALLOC_TRIM_THRESHOLD_) is
# left alone.  Page faults counted, not time.
faults() { # faults [ENV...] -- ARGS...: heaptop's minor faults
	local env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	env ${env[@]+"${env[@]}"} "$P/heaptop" "$@" | sed -n 's/^heaptop: minor faults //p'
}
g=$(faults -- 50)
h=$(faults LD_PRELOAD="$LIB" -- 50)
note "after a freed 4 MiB buffer, 50 rounds: $g faults with glibc alone, $h under hmpt"
[ -n "$g" ] && [ -n "$h" ] || fail "heaptop did not run"
[ "$h" -le $((2 * g + 2000)) ] || fail "the heap top is trimmed under hmpt: $h faults against glibc's $g"
gm=$(faults -- 50 mallopt)
hm=$(faults LD_PRELOAD="$LIB" -- 50 mallopt)
note "trim threshold fixed by mallopt: $gm faults with glibc alone, $hm under hmpt"
[ "$hm" -ge $((gm / 2)) ] || fail "hmpt moved a threshold the program fixed: $hm faults against glibc's $gm"
ge=$(faults MALLOC_TRIM_THRESHOLD_=131072 -- 50)
he=$(faults MALLOC_TRIM_THRESHOLD_=131072 LD_PRELOAD="$LIB" -- 50)
note "trim threshold fixed by MALLOC_TRIM_THRESHOLD_: $ge faults with glibc alone, $he under hmpt"
[ "$he" -ge $((ge / 2)) ] || fail "hmpt moved a threshold the environment fixed: $he against $ge"
