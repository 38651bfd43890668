/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <stdio.h>

#include <jansson.h>

#include "tests/support/ctlprint.h"

/* One capture for every printer test, so they all print the same way. */
char *
ctlprint(print_fn *fn, const char *reply)
{
	json_error_t jerr;
	json_t *r = json_loads(reply, 0, &jerr);
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	cr_assert_not_null(r, "%s", jerr.text);
	fp = open_memstream(&text, &len);
	cr_assert_not_null(fp);
	fn(fp, r, NULL, 0);
	fclose(fp);
	json_decref(r);
	return text;
}
