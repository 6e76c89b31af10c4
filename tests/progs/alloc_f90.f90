! alloc_f90.f90 - allocatable arrays, 1-D and 2-D, and one in a subroutine.
program alloc_f90
  implicit none
  real(8), allocatable :: a(:), b(:,:)
  integer :: i
  allocate(a(1048576)) ! hmpt-expect: allocations=1 bytes=8388608
  allocate(b(512, 1024)) ! hmpt-expect: allocations=1 bytes=4194304
  a = 1.0d0
  b = 2.0d0
  do i = 1, 3
    call work(i)
  end do
  print *, sum(a) + sum(b)
  deallocate(a)
  deallocate(b)
contains
  subroutine work(k)
    integer, intent(in) :: k
    real(8), allocatable :: t(:)
    allocate(t(262144 * k)) ! hmpt-expect: allocations=3 bytes=12582912
    t = real(k, 8)
    if (t(1) < 0) print *, t(1)
    deallocate(t)
  end subroutine work
end program alloc_f90
