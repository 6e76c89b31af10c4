/* test_profile.c — the shim's profile writer (shim/profile.c): the
 * HMPT_PROFILE path pattern (%p, %h, %e, %%, the pid appended for a second
 * process) and its errors.  The tuner's profile reader is test_profiles. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "profile.h"

static void test_profile_path(void)
{
	char buf[256], want[256];
	char host[256];

	CHECK_OP(hmpt_profile_path("/tmp/x.%p.json", false, buf, sizeof(buf)), ==, 0);
	snprintf(want, sizeof(want), "/tmp/x.%d.json", (int)getpid());
	CHECK_STREQ(buf, want);
	CHECK_OP(hmpt_profile_path("/tmp/x.json", true, buf, sizeof(buf)), ==, 0);
	snprintf(want, sizeof(want), "/tmp/x.json.%d", (int)getpid());
	CHECK_STREQ(buf, want);
	CHECK_OP(hmpt_profile_path("a%%b%e", false, buf, sizeof(buf)), ==, 0);
	CHECK_STREQ(buf, "a%btest_profile");
	gethostname(host, sizeof(host));
	host[strcspn(host, ".")] = '\0';
	CHECK_OP(hmpt_profile_path("%h", false, buf, sizeof(buf)), ==, 0);
	CHECK_STREQ(buf, host);
	CHECK_OP(hmpt_profile_path("", false, buf, sizeof(buf)), ==, -EINVAL);
	CHECK_OP(hmpt_profile_path("0123456789abcdef", false, buf, 8), ==, -ENAMETOOLONG);
}

int main(void)
{
	test_profile_path();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
