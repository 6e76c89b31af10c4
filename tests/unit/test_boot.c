/* test_boot.c — the boot buffer (shim/boot.c): every block starts on a page,
 * which the fast paths of free, realloc and malloc_usable_size rely on to
 * tell hmpt's blocks from the next allocator's with one test
 * (hmpt_boot_may_own_any); sizes kept, memory zero, and a full buffer
 * refused with ENOMEM. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"

#include "boot.h"

static void test_boot_alloc(void)
{
	char *a = hmpt_boot_alloc(24, 16);
	char *b = hmpt_boot_alloc(5000, 64);
	char *c = hmpt_boot_alloc(1, 4096); /* the most the buffer serves */

	CHECK(a && b && c);
	if (!a || !b || !c)
		return;
	for (char *p = a; p != NULL; p = p == a ? b : p == b ? c : NULL) {
		CHECK_OP((uintptr_t)p % 4096, ==, 0);
		CHECK(hmpt_boot_owns(p));
		CHECK(hmpt_boot_may_own_any(p));
		CHECK(!hmpt_boot_may_own_any(p + 16));
	}
	CHECK_OP(hmpt_boot_size(a), ==, 24);
	CHECK_OP(hmpt_boot_size(b), ==, 5000);
	CHECK(b >= a + 24 && c >= b + 5000); /* no overlap */
	CHECK_OP(a[0] | a[23] | b[4999], ==, 0);
	CHECK(!hmpt_boot_owns(hmpt_boot_buf_g + HMPT_BOOT_SIZE));
	CHECK(hmpt_boot_may_own_any(NULL)); /* NULL takes the slow paths */

	/* until the buffer is full: NULL with ENOMEM, nothing handed out twice */
	char *last = c;
	int n = 0;
	for (;;) {
		errno = 0;
		char *p = hmpt_boot_alloc(100, 16);
		if (!p) {
			CHECK_OP(errno, ==, ENOMEM);
			break;
		}
		CHECK(p > last);
		CHECK(hmpt_boot_owns(p + 99));
		last = p;
		n++;
	}
	CHECK_OP(n, >=, 50); /* 256 KiB: a page each */
}

int main(void)
{
	test_boot_alloc();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
