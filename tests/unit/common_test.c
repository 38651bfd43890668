#include <criterion/criterion.h>
#include <string.h>

#include "common/error.h"
#include "common/xmalloc.h"
#include "tests/support/tst.h"

TestSuite(common, .fini = tst_leak_check);

Test(common, error_set_returns_code_and_formats)
{
	struct bd_error e;

	bd_error_clear(&e);
	cr_assert_eq(bd_error_set(&e, -EINVAL, "bad %s at %d", "key", 7), -EINVAL);
	cr_assert_eq(e.code, -EINVAL);
	cr_assert_str_eq(e.msg, "bad key at 7");
	cr_assert_eq(bd_error_set(NULL, -EIO, "x"), -EIO);
}

Test(common, xasprintf_formats)
{
	char *s;

	cr_assert_eq(xasprintf(&s, "%d-%s", 42, "x"), 4);
	cr_assert_str_eq(s, "42-x");
	free(s);
}
