/* SPDX-License-Identifier: MIT */
/*
 * docs/bisectd.conf.5 is written from the key rows: the committed page must
 * be exactly what the rows give, and name every key with its default.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "tests/support/tst.h"

TestSuite(config_manpage, .fini = tst_leak_check);

Test(config_manpage, the_page_is_the_rows)
{
	struct config_key_info k;
	char *page = NULL, *path, *committed, item[256];
	size_t len = 0, i;
	FILE *fp = open_memstream(&page, &len);

	cr_assert_not_null(fp);
	config_manpage_write(fp);
	cr_assert_eq(fclose(fp), 0);
	for (i = 0; config_key_at(i, &k) == 0; i++) {
		snprintf(item, sizeof(item), ".It Ic %s Ar %s\n", k.key, k.kind);
		cr_expect_not_null(strstr(page, item), "%s not in the page",
		    k.key);
		if (k.def != NULL && !k.required) {
			snprintf(item, sizeof(item), ".Ql %s .\n", k.def);
			cr_expect_not_null(strstr(page, item),
			    "default of %s not in the page", k.key);
		}
	}
	xasprintf(&path, "%s/docs/bisectd.conf.5",
	    tst_env_path("BISECTD_SRCDIR"));
	cr_assert_not_null(committed = tst_read_file(path));
	cr_expect_str_eq(committed, page,
	    "docs/bisectd.conf.5 is out of date: run `make docs`");
	free(committed);
	free(path);
	free(page);
}
