! alloc_stmt.f90 - three arrays from one ALLOCATE statement, as NPB MG's
! u, v and r: three sites with the same function, file and line, told apart
! by the order of their calls (built -O2, as such codes are).
module stmt_data
  implicit none
  real(8), allocatable :: u(:), v(:), r(:)
contains
  subroutine alloc_space(n)
    integer, intent(in) :: n
    allocate(u(n), v(n), r(n)) ! hmpt-expect: allocations=3 bytes=6291456
  end subroutine alloc_space
end module stmt_data

program alloc_stmt
  use stmt_data
  implicit none
  call alloc_space(262144)
  u = 1.0d0
  v = 2.0d0
  r = 3.0d0
  print *, sum(u) + sum(v) + sum(r)
end program alloc_stmt
