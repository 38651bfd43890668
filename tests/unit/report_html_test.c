/*
 * The HTML report (ctl/report_html.c) shows text from commits and hosts
 * as the text report does: markup escaped, and every control character a
 * terminal or a browser's view of the source would act on shown as '?'.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ctl/report_html.h"
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
