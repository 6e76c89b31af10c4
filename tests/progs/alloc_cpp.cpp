// alloc_cpp.cpp — new[], std::vector and new of a large struct.
#include <cstdio>
#include <vector>

struct big {
	double x[1 << 19];
};

static double use(const double *p, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i += 4096)
		s += p[i];
	return s;
}

int main()
{
	double *a = new double[1 << 20]; // hmpt-expect: allocations=1 bytes=8388608
	std::vector<double> v(3 << 19);  // hmpt-expect: allocations=1 bytes=12582912
	big *b = new big();              // hmpt-expect: allocations=1 bytes=4194304
	a[7] = 1;
	double s = use(a, 1 << 20) + use(v.data(), v.size()) + use(b->x, 1 << 19);
	delete[] a;
	delete b;
	std::printf("%g\n", s);
	return 0;
}
