/* SPDX-License-Identifier: MIT */
/*
 * Tests of the report module's plots: frame, marks, legend and ticks.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bisect/report.h"
#include "common/xmalloc.h"
#include "tests/support/report_fixture.h"
#include "tests/support/tst.h"

/* ---- plots ---- */

static char *
plot_text(const struct report_plot *p)
{
	char *buf = NULL;
	size_t len;
	FILE *fp = open_memstream(&buf, &len);

	cr_assert_not_null(fp);
	report_plot_write(fp, p);
	fclose(fp);
	return buf;
}

/* Splits text into at most max lines (pointers into text, NULs placed). */
static int
split_lines(char *text, char **lines, int max)
{
	int n = 0;
	char *nl;

	while (*text != '\0' && n < max) {
		lines[n++] = text;
		if ((nl = strchr(text, '\n')) == NULL)
			break;
		*nl = '\0';
		text = nl + 1;
	}
	return n;
}

Test(report, plot_frame_size_marks_and_legend)
{
	static const struct report_point pts[] = {
		{ 1, 0, REPORT_GOOD }, { 10, 100, REPORT_BAD },
		{ 5, 50, REPORT_UNCLASSIFIED }, { 7, NAN, REPORT_BAD },
	};
	struct report_plot p = { .title = "m, samples", .xlabel = "sample",
	    .pts = pts, .n = 4, .xmin = 1, .xmax = 10 };
	char *text = plot_text(&p), *lines[40], *top, *bottom;
	int n = split_lines(text, lines, 40), i;

	/* Title, 20 frame lines, the x axis and one legend line. */
	cr_assert_eq(n, 1 + REPORT_PLOT_HEIGHT + 2, "%d lines", n);
	for (i = 0; i < n; i++) {
		const unsigned char *c;

		cr_expect_leq(strlen(lines[i]), REPORT_PLOT_WIDTH, "line %d",
		    i);
		for (c = (const unsigned char *)lines[i]; *c; c++)
			cr_expect_lt(*c, 0x80, "line %d not ASCII", i);
	}
	top = strchr(lines[1], '+');
	bottom = strchr(lines[REPORT_PLOT_HEIGHT], '+');
	cr_assert_not_null(top);
	cr_assert_not_null(bottom);
	/* 100 is the top of the range, at the last column; 0 the bottom. */
	cr_expect_eq(top[strlen(top) - 2], 'O', "top: %s", lines[1]);
	cr_expect_eq(bottom[1], '*', "bottom: %s", lines[REPORT_PLOT_HEIGHT]);
	cr_expect_eq(strlen(lines[1]), REPORT_PLOT_WIDTH);
	/* 50 is half way: row 9.5 of 0..19 rounds to row 10. */
	cr_expect_not_null(strchr(lines[1 + 10], '?'), "%s", lines[11]);
	cr_expect_not_null(strstr(lines[n - 1], "[*] bisect-good sample"));
	cr_expect_not_null(strstr(lines[n - 1], "[O] bisect-bad sample"));
	cr_expect_not_null(strstr(lines[n - 1], "[?] unclassified sample"));
	cr_expect_null(strstr(lines[n - 1], "[#]"));
	cr_expect_not_null(strstr(lines[n - 2], "sample"));
	/* Tick labels: 100 on the top line, 0 on the bottom one. */
	cr_expect_eq(strncmp(lines[1], "100 +", 5), 0, "%s", lines[1]);
	cr_expect_eq(strncmp(lines[REPORT_PLOT_HEIGHT], "  0 +", 5), 0, "%s",
	    lines[REPORT_PLOT_HEIGHT]);
	free(text);
}

Test(report, plot_mixed_cells_marker_and_empty)
{
	static const struct report_point pts[] = {
		{ 3, 7, REPORT_GOOD }, { 3, 7, REPORT_BAD },
		{ 4, 7, REPORT_BAD },
	};
	struct report_plot p = { .title = "t", .xlabel = "x", .pts = pts,
	    .n = 3, .xmin = 0, .xmax = 8, .has_mark = true, .mark_x = 6,
	    .mark_label = "culprit, position 6" };
	char *text = plot_text(&p), *lines[40];
	int n, i, marked = 0;

	/* All values equal: the range is widened around them. */
	cr_expect_not_null(strstr(text, "#"), "%s", text);
	cr_expect_not_null(strstr(text, "[#] samples of different kinds"));
	cr_expect_not_null(strstr(text, "[:] culprit, position 6"));
	n = split_lines(text, lines, 40);
	/* The marker column runs through every inner frame line. */
	for (i = 2; i < n && i < REPORT_PLOT_HEIGHT; i++)
		marked += strchr(lines[i], ':') != NULL;
	cr_expect_eq(marked, REPORT_PLOT_HEIGHT - 2);
	free(text);
	p.n = 0;
	text = plot_text(&p);
	cr_expect_str_eq(text, "                                       t\n"
	    "(no samples)\n");
	free(text);
}

/* A narrow range at a large level still gets distinct tick labels. */
Test(report, plot_ticks_distinct_on_narrow_ranges)
{
	static const struct report_point pts[] = {
		{ 1, 123456789.1, REPORT_GOOD }, { 2, 123456789.3, REPORT_BAD },
	};
	struct report_plot p = { .pts = pts, .n = 2, .xmin = 1, .xmax = 2 };
	char *text = plot_text(&p), *lines[40], *labels[REPORT_PLOT_HEIGHT];
	int n = split_lines(text, lines, 40), i, j, nl = 0;

	cr_assert_geq(n, REPORT_PLOT_HEIGHT);
	for (i = 0; i < REPORT_PLOT_HEIGHT; i++) {
		char *plus = strchr(lines[i], '+'), *lab = lines[i];

		if (plus == NULL)
			continue;
		*plus = '\0';
		lab += strspn(lab, " ");
		if (*lab != '\0')
			labels[nl++] = lab;
	}
	cr_assert_geq(nl, 3, "%d tick labels", nl);
	for (i = 0; i < nl; i++)
		for (j = i + 1; j < nl; j++)
			cr_expect_str_neq(labels[i], labels[j]);
	free(text);
}
