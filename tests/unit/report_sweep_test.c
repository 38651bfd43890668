/* SPDX-License-Identifier: MIT */
/*
 * A report of a bisection a sweep started, on the golden culprit input:
 * the sweep and its tags, the saving in the cost line, the other changed
 * metrics in the table even where parent and culprit do not differ, and
 * the same in the JSON form.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bisect/report.h"
#include "tests/support/report_fixture.h"
#include "tests/support/tst.h"

TestSuite(report_sweep, .fini = tst_leak_check);

/* A table row the golden input shows only when asked to: not changed. */
static const char *
rs_quiet_metric(const struct report_input *in)
{
	struct report_table t;
	struct bd_error err;
	const char *m = NULL;
	size_t i;

	cr_assert_eq(report_table_build(in, &t, &err), 0, "%s", err.msg);
	for (i = 0; i < t.n_rows && m == NULL; i++)
		if (!t.rows[i].changed && !t.rows[i].headline)
			m = t.rows[i].metric;
	report_table_release(&t);
	cr_assert_not_null(m, "the golden input has no unchanged metric");
	return m;
}

/* The line of text that holds metric as its last word, or NULL. */
static int
rs_has_row(const char *text, const char *metric)
{
	const char *p = text;
	size_t n = strlen(metric);

	while ((p = strstr(p, metric)) != NULL) {
		if (p > text && p[-1] == ' ' && (p[n] == '\n' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

Test(report_sweep, names_the_sweep_the_tags_and_the_saving)
{
	struct report_fixture f;
	const char *metrics[2];
	struct bd_error err;
	char *text, *plain, want[256];
	const char *quiet;
	json_t *j, *s, *row;
	size_t i;
	int swept = 0;

	report_fixture_load(&f, "culprit.input.json");
	quiet = rs_quiet_metric(&f.in);
	cr_assert_eq(report_render_text(&f.in, &plain, &err), 0, "%s",
	    err.msg);
	cr_assert_not(rs_has_row(plain, quiet), "%s shown unasked", quiet);
	cr_assert_null(strstr(plain, "sweep:"));

	metrics[0] = f.in.metric;
	metrics[1] = quiet;
	f.in.sweep = "nightly";
	f.in.sweep_prev_ref = "refs/tags/next-20260101";
	f.in.sweep_ref = "refs/tags/next-20260102";
	f.in.branch = "linux-next:next-20260102";
	f.in.reused_samples = 2;
	f.in.sweep_metrics = metrics;
	f.in.n_sweep_metrics = 2;
	cr_assert_eq(report_render_text(&f.in, &text, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(strncmp(text, "[linux-next:next-20260102] ", 27), 0,
	    "%.100s", text);
	cr_assert_not_null(strstr(text, "\nsweep: nightly, a change from "
	    "refs/tags/next-20260101 to refs/tags/next-20260102\n"), "%s",
	    text);
	snprintf(want, sizeof(want), "cost: %zu samples, 2 of them reused from "
	    "sweep nightly, ", f.in.total_samples);
	cr_assert_not_null(strstr(text, want), "%s", text);
	cr_assert(rs_has_row(text, quiet), "%s not in the table:\n%s", quiet,
	    text);

	cr_assert_not_null(j = report_render_json(&f.in, &err), "%s", err.msg);
	s = json_object_get(j, "sweep");
	cr_assert_str_eq(json_string_value(json_object_get(s, "name")),
	    "nightly");
	cr_assert_str_eq(json_string_value(json_object_get(s, "ref")),
	    "refs/tags/next-20260102");
	cr_assert_eq(json_integer_value(json_object_get(s, "reused_samples")),
	    2);
	cr_assert_eq(json_array_size(json_object_get(s, "metrics")), 2);
	json_array_foreach(json_object_get(json_object_get(j, "comparison"),
	    "rows"), i, row)
		if (json_is_true(json_object_get(row, "swept")))
			swept++;
	cr_assert_eq(swept, 2, "rows marked swept: %d", swept);
	json_decref(j);

	/* More reused samples than samples is a bad input. */
	f.in.reused_samples = f.in.total_samples + 1;
	cr_assert_eq(report_validate(&f.in, &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "reused"), "%s", err.msg);
	free(text);
	free(plain);
	report_fixture_release(&f);
}
