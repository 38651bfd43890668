/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/sweep_plot.h"
#include "tests/support/tst.h"

TestSuite(sweep_plot, .fini = tst_leak_check);

/* The plot of refs with a change at index change, as one string. */
static char *
render(const struct sweep_plot_ref *refs, size_t n, size_t change,
    size_t found)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	cr_assert_not_null(fp);
	sweep_plot_write(fp, "tput", refs, n, change, found);
	fclose(fp);
	return text;
}

/* Every line fits in 80 columns, without trailing blanks. */
static void
check_width(const char *text)
{
	const char *p = text, *nl;

	for (; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		cr_assert_not_null(nl);
		cr_assert_leq(nl - p, 80, "%.*s", (int)(nl - p), p);
	}
}

Test(sweep_plot, change_point_marked_between_the_two_refs)
{
	static const double a[] = { 100, 101, 99 }, b[] = { 90, 91, 89 };
	struct sweep_plot_ref refs[6] = {
		{ "next-1", a, 3 }, { "next-2", a, 3 }, { "next-3", a, 3 },
		{ "next-4", b, 3 }, { "next-5", NULL, 0 }, { "next-6", b, 3 },
	};
	char *text = render(refs, 6, 3, 3);
	const char *line, *nl, *c;
	long col = -1;
	int stars = 0, os = 0;

	check_width(text);
	cr_expect(strstr(text, "tput over 6 refs") != NULL, "%s", text);
	cr_expect(strstr(text, "next-1 .. next-6") != NULL, "%s", text);
	cr_expect(strstr(text, "[:] change between next-3 and next-4") !=
	    NULL, "%s", text);
	/* The ':' column lies right of every '*' and left of every 'O'. */
	for (line = text; *line != '\0' && col < 0; line = nl + 1) {
		nl = strchr(line, '\n');
		c = memchr(line, ':', (size_t)(nl - line));
		if (c != NULL && line[0] != '[')
			col = c - line;
	}
	cr_assert_geq(col, 0, "%s", text);
	for (line = text; *line != '\0' && line[0] != '['; line = nl + 1) {
		nl = strchr(line, '\n');
		for (c = line; c < nl; c++) {
			if (*c == '*') {
				stars++;
				cr_expect_lt(c - line, col, "%s", text);
			}
			if (*c == 'O') {
				os++;
				cr_expect_gt(c - line, col, "%s", text);
			}
		}
	}
	cr_expect(stars > 0 && os > 0, "%s", text);
	free(text);
}

Test(sweep_plot, no_change_no_mark_and_no_samples)
{
	static const double a[] = { 5, 6 };
	struct sweep_plot_ref refs[2] = { { "next-1", a, 2 },
	    { "next-2", a, 2 } };
	char *text = render(refs, 2, 2, 2);

	check_width(text);
	cr_expect_null(strstr(text, "[:]"), "%s", text);
	cr_expect_null(strchr(text, 'O'), "%s", text);
	free(text);
	refs[0].n = refs[1].n = 0;
	text = render(refs, 2, 2, 2);
	cr_expect(strstr(text, "(no samples)") != NULL, "%s", text);
	free(text);
}

/* A change found late keeps its mark at the change point, with the lag. */
Test(sweep_plot, change_found_late_is_marked_where_it_happened)
{
	static const double a[] = { 100, 101, 99 }, b[] = { 102, 103, 101 };
	struct sweep_plot_ref refs[5] = {
		{ "next-1", a, 3 }, { "next-2", a, 3 }, { "next-3", b, 3 },
		{ "next-4", b, 3 }, { "next-5", b, 3 },
	};
	char *text = render(refs, 5, 2, 4);

	check_width(text);
	cr_expect(strstr(text, "[:] change between next-2 and next-3, found "
	    "at next-5 (2 refs late)") != NULL, "%s", text);
	free(text);
}
