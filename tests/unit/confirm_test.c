/* SPDX-License-Identifier: MIT */
/*
 * Confirmation on other host groups: the per-group verdict on synthetic
 * samples (changed, unchanged, unclear, pending), its interval, and the
 * report's table, headline, JSON and HTML on a golden input.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bisect/confirm.h"
#include "bisect/engine.h"
#include "bisect/report.h"
#include "ctl/report_html.h"
#include "tests/support/report_fixture.h"
#include "tests/support/tst.h"

TestSuite(confirm, .fini = tst_leak_check);

/* The engine's own check parameters, min_change 2%. */
static void
cf_params(struct repro_params *rp)
{
	struct engine_params ep;

	engine_params_default(&ep);
	ep.min_change = 0.02;
	engine_repro_params(&ep, rp);
}

/* n values around level with a fixed, symmetric spread of 0.5%. */
static void
cf_fill(double *v, size_t n, double level)
{
	static const double d[] = { 0, 0.004, -0.004, 0.002, -0.002, 0.005,
	    -0.005, 0.001, -0.001, 0.003, -0.003 };
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = level * (1 + d[i % (sizeof(d) / sizeof(d[0]))]);
}

Test(confirm, a_planted_change_is_changed_with_its_interval)
{
	struct repro_params rp;
	struct confirm_effect e;
	double p[10], c[10];

	cf_params(&rp);
	cf_fill(p, 10, 1000);
	cf_fill(c, 10, 860);
	confirm_judge(&rp, p, 10, c, 10, 1, &e);
	cr_assert_eq(e.verdict, CONFIRM_CHANGED, "%s",
	    confirm_verdict_name(e.verdict));
	cr_assert_float_eq(e.change, -0.14, 0.005);
	cr_assert(e.lo < e.change && e.change < e.hi);
	cr_assert(e.lo < -0.14 && -0.14 < e.hi, "[%g, %g]", e.lo, e.hi);
	cr_assert_eq(e.n_parent, 10);
}

Test(confirm, no_change_is_unchanged)
{
	struct repro_params rp;
	struct confirm_effect e;
	double p[10], c[10];

	cf_params(&rp);
	cf_fill(p, 10, 1000);
	cf_fill(c, 10, 1000);
	confirm_judge(&rp, p, 10, c, 10, 1, &e);
	cr_assert_eq(e.verdict, CONFIRM_UNCHANGED, "%s",
	    confirm_verdict_name(e.verdict));
	cr_assert(e.lo <= 0 && 0 <= e.hi);
}

/* A change under min_change is no change there, however certain. */
Test(confirm, a_change_below_min_change_is_unchanged)
{
	struct repro_params rp;
	struct confirm_effect e;
	double p[40], c[40];

	cf_params(&rp);
	cf_fill(p, 40, 1000);
	cf_fill(c, 40, 995);
	confirm_judge(&rp, p, 40, c, 40, 1, &e);
	cr_assert_eq(e.verdict, CONFIRM_UNCHANGED, "%s",
	    confirm_verdict_name(e.verdict));
}

/* Too few, too noisy runs: pending while measuring, unclear at the end. */
Test(confirm, undecided_is_pending_then_unclear)
{
	static const double p[] = { 1000, 1100, 900 };
	static const double c[] = { 980, 1090, 880 };
	struct repro_params rp;
	struct confirm_effect e;

	cf_params(&rp);
	confirm_judge(&rp, p, 3, c, 3, 0, &e);
	cr_assert_eq(e.verdict, CONFIRM_PENDING, "%s",
	    confirm_verdict_name(e.verdict));
	confirm_judge(&rp, p, 3, c, 3, 1, &e);
	cr_assert_eq(e.verdict, CONFIRM_UNCLEAR, "%s",
	    confirm_verdict_name(e.verdict));
	confirm_judge(&rp, p, 1, c, 1, 1, &e);
	cr_assert_eq(e.verdict, CONFIRM_UNCLEAR);
	cr_assert(isnan(e.change));
}

Test(confirm, pass_fail_rates)
{
	static const double p[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const double c[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct repro_params rp;
	struct confirm_effect e;

	cf_params(&rp);
	rp.passfail = 1;
	confirm_judge(&rp, p, 12, c, 12, 1, &e);
	cr_assert_eq(e.verdict, CONFIRM_CHANGED);
	cr_assert_float_eq(e.change, 1.0, 1e-9);
	/* All or nothing is no certainty: 12 runs a side leave an interval. */
	cr_assert(e.lo < 0.9 && e.lo > 0.5, "[%g, %g]", e.lo, e.hi);
	cr_assert_float_eq(e.hi, 1.0, 1e-9);
	/* Fewer runs, a wider interval. */
	confirm_judge(&rp, p, 4, c, 4, 1, &e);
	cr_assert(e.lo < 0.5, "[%g, %g]", e.lo, e.hi);
}

Test(confirm, golden_report_table_and_headline)
{
	report_fixture_golden("confirm.input.json", "confirm.txt");
}

Test(confirm, no_table_without_another_group)
{
	struct report_fixture f;
	struct bd_error err;
	char *text = NULL;

	report_fixture_load(&f, "confirm.input.json");
	f.in.n_confirm = 1;
	cr_assert_eq(report_render_text(&f.in, &text, &err), 0, "%s",
	    err.msg);
	cr_assert_null(strstr(text, "machine kinds"));
	free(text);
	report_fixture_release(&f);
}

Test(confirm, json_and_html_show_every_group)
{
	struct report_fixture f;
	struct bd_error err;
	json_t *j, *c, *g;
	char *html = NULL;

	report_fixture_load(&f, "confirm.input.json");
	j = report_render_json(&f.in, &err);
	cr_assert_not_null(j, "%s", err.msg);
	c = json_object_get(j, "confirmation");
	cr_assert_not_null(c);
	cr_assert_eq(json_integer_value(json_object_get(c, "reproduced")), 2);
	cr_assert_eq(json_integer_value(json_object_get(c, "kinds")), 4);
	g = json_array_get(json_object_get(c, "groups"), 2);
	cr_assert_str_eq(json_string_value(json_object_get(g, "group")),
	    "desktop");
	cr_assert_str_eq(json_string_value(json_object_get(g, "verdict")),
	    "unchanged");
	cr_assert_float_eq(json_real_value(json_object_get(g, "change")),
	    -0.002, 1e-12);
	cr_assert(json_is_null(json_object_get(json_array_get(
	    json_object_get(c, "groups"), 3), "change")));
	cr_assert_eq(report_html_render(j, NULL, &html, &err), 0, "%s",
	    err.msg);
	cr_assert_not_null(strstr(html, "reproduces on 2 of 4</h2>"));
	cr_assert_not_null(strstr(html, "<td class=\"m\">server-b</td>"
	    "<td class=\"m\">desktop</td>"));
	cr_assert_not_null(strstr(html, "-3.4% [-5.1%, -1.7%]"));
	free(html);
	json_decref(j);
	report_fixture_release(&f);
}
