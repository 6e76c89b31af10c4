. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/sites_common.sh"
# new[], std::vector (through libstdc++'s operator new and the inlined
# allocator in system headers), new of a struct
sites_test alloc_cpp "$top/tests/progs/alloc_cpp.cpp" "$P/alloc_cpp"
[ "$(function_at "$work/r1/sites.tsv" alloc_cpp.cpp:20)" = main ] || fail "the vector is not main's"
