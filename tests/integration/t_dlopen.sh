. "$(dirname "$0")/lib.sh"
# a library loaded with dlopen allocates in its constructor and in a function;
# it is unloaded with dlclose before the program's last allocation
run_profile "$work/d" "$P/dlopen_main" "$P/libhmpt_testlib.so" >/dev/null || fail "exited with $?"
check_markers "$work/d/sites.tsv" "$top/tests/progs/dlopen_lib.c" "$top/tests/progs/dlopen_main.c"
grep -q '"name": "libhmpt_testlib.so"' "$work/d/profile.json" || fail "module not listed"
grep -q 'libhmpt_testlib.so!0x' "$work/d/sites.tsv" || fail "no frame in the library"
