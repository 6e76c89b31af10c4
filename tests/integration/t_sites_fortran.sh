. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/sites_common.sh"
sites_test alloc_f90 "$top/tests/progs/alloc_f90.f90" "$P/alloc_f90"
case $(function_at "$work/r1/sites.tsv" alloc_f90.f90:20) in
work*) ;; *) fail "alloc_f90.f90:20 is not in subroutine work" ;;
esac
