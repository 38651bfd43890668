/* SPDX-License-Identifier: MIT */
/*
 * The evidence in the culprit's code and the mail parts of a report:
 * golden reports of a regression whose culprit touches profiled functions
 * (those rows first and marked, the one-line summary, the tags and the
 * regzbot line) and of an improvement (no tags, no regzbot line), and the
 * same facts in the JSON form.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bisect/report.h"
#include "tests/support/report_fixture.h"
#include "tests/support/tst.h"

TestSuite(report_mail, .fini = tst_leak_check);

Test(report_mail, golden_regression_with_touched_functions)
{
	report_fixture_golden("regression_touched.input.json",
	    "regression_touched.txt");
}

Test(report_mail, golden_improvement_has_no_tags_nor_regzbot)
{
	report_fixture_golden("improvement_mail.input.json",
	    "improvement_mail.txt");
}

/* Renders the fixture's text; the caller frees it. */
static char *
rm_text(const char *name, unsigned flags)
{
	struct report_fixture f;
	struct bd_error err;
	char *text = NULL;

	report_fixture_load(&f, name);
	f.in.flags |= flags;
	cr_assert_eq(report_render_text(&f.in, &text, &err), 0, "%s", err.msg);
	report_fixture_release(&f);
	return text;
}

/* The touched rows come right after the headline, before any other. */
Test(report_mail, touched_rows_come_first_and_are_marked)
{
	char *text = rm_text("regression_touched.input.json", REPORT_ASCII);
	const char *table, *self, *children, *other, *summary;

	cr_assert_not_null(table = strstr(text, "%stddev"));
	self = strstr(table, "perf-profile.self.cycles-pp.__percpu_counter_sum"
	    "  (touched)");
	children = strstr(table, "perf-profile.children.cycles-pp."
	    "__percpu_counter_sum  (touched)");
	other = strstr(table, "vm-scalability.median");
	cr_assert_not_null(self, "%s", table);
	cr_assert_not_null(children);
	cr_assert_not_null(other);
	cr_expect_lt(self, other);
	cr_expect_lt(children, other);
	/* rmqueue_bulk.isra.0 did not change, and is shown as touched. */
	cr_expect_not_null(strstr(table,
	    "perf-profile.self.cycles-pp.rmqueue_bulk.isra.0  (touched)"));
	cr_expect_null(strstr(table, "sched_setaffinity  (touched)"));
	summary = strstr(text, "the culprit touches __percpu_counter_sum: ");
	cr_assert_not_null(summary, "%s", text);
	cr_expect_not_null(strstr(summary, "self cycles 0.59 -> 0.21"));
	cr_expect_lt(summary, table);
	cr_expect_null(strstr(text, "not_profiled"));
	free(text);
}

Test(report_mail, regression_tags_and_regzbot_improvement_none)
{
	char *text = rm_text("regression_touched.input.json", 0);

	cr_expect_not_null(strstr(text, "| Reported-by: bisectd "
	    "<perf-ci@example.org>\n| Closes: https://lore.kernel.org/r/"
	    "bisectd.42.1769000000000@ci.example.org\n"));
	cr_expect_not_null(strstr(text,
	    "\n#regzbot introduced: 669872181549\n"));
	free(text);
	text = rm_text("improvement_mail.input.json", 0);
	cr_expect_null(strstr(text, "#regzbot"));
	cr_expect_null(strstr(text, "Reported-by:"));
	free(text);
}

Test(report_mail, json_has_mail_and_touched)
{
	struct report_fixture f;
	struct bd_error err;
	json_t *o, *m, *rows, *r;
	size_t i, first_touched = 0;

	report_fixture_load(&f, "regression_touched.input.json");
	cr_assert_not_null(o = report_render_json(&f.in, &err), "%s", err.msg);
	m = json_object_get(o, "mail");
	cr_assert_not_null(m);
	cr_expect_str_eq(json_string_value(json_object_get(m, "message_id")),
	    "<bisectd.42.1769000000000@ci.example.org>");
	cr_expect(json_is_true(json_object_get(m, "regzbot")));
	cr_expect_eq(json_array_size(json_object_get(m, "trailers")), 2);
	cr_expect_eq(json_array_size(json_object_get(o, "touched_functions")),
	    4);
	rows = json_object_get(json_object_get(o, "comparison"), "rows");
	json_array_foreach(rows, i, r)
		if (json_is_true(json_object_get(r, "touched")) &&
		    first_touched == 0)
			first_touched = i;
	cr_expect_eq(first_touched, 1, "touched rows follow the headline");
	json_decref(o);
	report_fixture_release(&f);
}
