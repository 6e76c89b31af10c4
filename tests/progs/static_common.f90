! static_common.f90 - large COMMON blocks (the NPB 3.3 way), for the tests
! of static-data placement.
!
!   static_common [report]
!
! /grid/ holds u and v (2 x 1000000 reals, 16000000 bytes), /work/ holds w
! (1500000 reals, 12000000 bytes), /small/ 100 reals (below any threshold).
! Computes w = u + 2 v over a few sweeps and checks the sums; with "report",
! says where each block's pages are (report.h, the pages hmpt places).
! Exit status 0, or 1 when a result is wrong.
program static_common
  use iso_c_binding
  implicit none
  integer, parameter :: n = 1000000, m = 1500000
  real(8) :: u(n), v(n), w(m), s(100)
  common /grid/ u, v
  common /work/ w
  common /small/ s
  interface
    subroutine report_static(name, p, len) bind(C, name="report_static")
      import :: c_char, c_double, c_size_t
      character(kind=c_char), intent(in) :: name(*)
      real(c_double), intent(in) :: p(*)
      integer(c_size_t), value :: len
    end subroutine
  end interface
  integer :: i, k, bad
  character(len=16) :: arg
  real(8) :: total, expect

  do i = 1, n
    u(i) = 1.0d0
    v(i) = 2.0d0
  end do
  w = 0.0d0
  s = 1.0d0
  do k = 1, 3
    do i = 1, n
      w(i) = w(i) + u(i) + 2.0d0 * v(i)
    end do
    do i = n + 1, m
      w(i) = w(i) + s(mod(i, 100) + 1)
    end do
  end do
  total = sum(w)
  expect = 3.0d0 * (5.0d0 * n + (m - n))
  bad = 0
  if (abs(total - expect) > 1.0d-9 * expect) bad = 1
  write (*, '(a,f0.1,a,f0.1,a,i0)') 'common total=', total, ' expect=', expect, ' bad=', bad
  call get_command_argument(1, arg)
  if (trim(arg) == 'report') then
    call report_static('grid' // c_null_char, u, int(16 * n, c_size_t))
    call report_static('work' // c_null_char, w, int(8 * m, c_size_t))
  end if
  if (bad /= 0) stop 1
end program
