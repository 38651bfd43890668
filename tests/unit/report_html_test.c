/* SPDX-License-Identifier: MIT */
/*
 * The HTML report (ctl/report_html.c) shows text from commits and hosts
 * as the text report does: markup escaped, and every control character a
 * terminal or a browser's view of the source would act on shown as '?'.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bisect/report.h"
#include "ctl/report_html.h"
#include "tests/support/report_fixture.h"
#include "tests/support/tst.h"

TestSuite(report_html, .fini = tst_leak_check);

Test(report_html, control_characters_become_question_marks)
{
	struct bd_error err;
	json_t *rep;
	char *page = NULL;

	rep = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s}, s:{s:s}}",
	    "kind", "regression", "metric", "ops\x1b[2J",
	    "benchmark", "bench\x7f", "subject", "mm: \x1b]0;owned\x07 fix",
	    "culprit", "sha", "0123abcd", "subject", "sched: \xc2\x9b" "31m",
	    "headline", "text", "-12% <b>&");
	cr_assert_not_null(rep);
	bd_error_clear(&err);
	cr_assert_eq(report_html_render(rep, "line one\n\tcol\x1b[0m\rend\n",
	    &page, &err), 0, "%s", err.msg);
	tst_assert_no_controls("the HTML page", page, 1);
	cr_assert_not_null(strstr(page, "mm: ?]0;owned? fix"), "%s", page);
	cr_assert_not_null(strstr(page, "sched: ?31m"), "%s", page);
	cr_assert_not_null(strstr(page, "ops?[2J"), "%s", page);
	cr_assert_not_null(strstr(page, "bench?"), "%s", page);
	cr_assert_not_null(strstr(page, "-12% &lt;b&gt;&amp;"), "%s", page);
	cr_assert_not_null(strstr(page, "line one\n\tcol?[0m?end\n"), "%s",
	    page);
	free(page);
	json_decref(rep);
}

/*
 * A culprit's page: verification and suspicious signs in the summary,
 * legends, a labelled culprit line, shas and n in the table header,
 * commits linked through commit_url, touched rows marked, and the text
 * without the ASCII plots the page draws as SVG.
 */
Test(report_html, summary_legends_header_links_and_text_without_plots)
{
	struct report_fixture f;
	struct bd_error err;
	json_t *rep;
	char *page = NULL, *text = NULL;

	report_fixture_load(&f, "regression_touched.input.json");
	cr_assert_not_null(rep = report_render_json(&f.in, &err), "%s",
	    err.msg);
	cr_assert_eq(report_render_text(&f.in, &text, &err), 0);
	report_fixture_release(&f);
	cr_assert_not_null(strstr(text, "+------------"));
	json_object_set_new(rep, "verification", json_pack("{s:s, s:f, s:b, "
	    "s:[s]}", "revert", "restores", "restored", 0.93, "noop", 0,
	    "suspicious", "the culprit touches only tools/"));
	cr_assert_eq(report_html_render(rep, text, &page, &err), 0, "%s",
	    err.msg);
	cr_expect_not_null(strstr(page, "<dt>verification</dt><dd>the revert "
	    "on top of bad restores 93% of the change</dd>"));
	cr_expect_not_null(strstr(page, "<dd class=\"warn\">the culprit "
	    "touches only tools/</dd>"));
	cr_expect_not_null(strstr(page, ">good side (before the culprit)<"));
	cr_expect_not_null(strstr(page, ">good endpoint<"));
	cr_expect_not_null(strstr(page, ">culprit 6698721815</text>"));
	cr_expect_not_null(strstr(page, "<th><a href=\"https://git.kernel.org/"
	    "linus/d17f02417a337de0a1b2c3d4e5f60718293a4b5c\"><code>"
	    "d17f02417a</code></a><br>mean, n=6</th>"), "%s", page);
	cr_expect_not_null(strstr(page, "<dt>culprit</dt><dd><a href=\""
	    "https://git.kernel.org/linus/66987218154918a6341a3e3eeeee58110a69"
	    "e0bb\">"));
	cr_expect_not_null(strstr(page, "<tr class=\"touched\">"));
	cr_expect_not_null(strstr(page, "perf-profile.self.cycles-pp."
	    "__percpu_counter_sum (touched by the culprit)"));
	/* The text keeps its table and loses its plots. */
	cr_expect_null(strstr(page, "+------------"), "an ASCII plot is left");
	cr_expect_null(strstr(page, "[*] bisect-good sample"));
	cr_expect_not_null(strstr(page, "(plot: vm-scalability.throughput, "
	    "samples at the good and bad endpoints, drawn above)"));
	cr_expect_not_null(strstr(page, "the culprit touches "
	    "__percpu_counter_sum"));
	cr_expect_not_null(strstr(page, "To reproduce:"));
	free(text);
	free(page);
	json_decref(rep);
}
