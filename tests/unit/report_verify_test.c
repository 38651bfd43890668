/* SPDX-License-Identifier: MIT */
/*
 * The report's Verification section on the golden culprit input: each
 * revert outcome in the words, the suspicious lines above the
 * lead, several culprits with their shares, and the JSON form.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bisect/report.h"
#include "tests/support/report_fixture.h"
#include "tests/support/tst.h"

TestSuite(report_verify, .fini = tst_leak_check);

static char *
rv_text(struct report_fixture *f, const struct report_verification *v)
{
	struct bd_error err;
	char *text = NULL;

	f->in.verification = v;
	cr_assert_eq(report_render_text(&f->in, &text, &err), 0, "%s",
	    err.msg);
	return text;
}

Test(report_verify, no_section_without_a_check)
{
	struct report_fixture f;
	char *text;
	json_t *j;
	struct bd_error err;

	report_fixture_load(&f, "culprit.input.json");
	text = rv_text(&f, NULL);
	cr_assert_null(strstr(text, "Verification:"));
	j = report_render_json(&f.in, &err);
	cr_assert_null(json_object_get(j, "verification"));
	json_decref(j);
	free(text);
	report_fixture_release(&f);
}

Test(report_verify, a_restoring_revert_and_its_numbers)
{
	static const double samples[] = { 10.0, 10.5, 9.5 };
	struct report_verification v = {
		.revert = REPORT_REVERT_RESTORES,
		.revert_sha = "1234567890123456789012345678901234567890",
		.revert_samples = samples, .n_revert_samples = 3,
		.revert_runs = 3, .back_pct = 12.34, .restored = 0.9,
		.p_bad = 0.0012, .p_parent = 0.5,
	};
	struct report_fixture f;
	struct bd_error err;
	char *text, want[128];
	json_t *j, *o;

	report_fixture_load(&f, "culprit.input.json");
	text = rv_text(&f, &v);
	snprintf(want, sizeof(want), "Verification:\nrevert on top of %.12s "
	    "restores %s (+12.3%% back; p = 0.0012)\n", f.in.bad_rev,
	    f.in.metric);
	cr_assert_not_null(strstr(text, want), "%s", text);
	cr_assert_not_null(strstr(text, "revert commit: 1234567890123456789012"
	    "345678901234567890, 3 runs, 90% of the culprit's change undone"),
	    "%s", text);
	j = report_render_json(&f.in, &err);
	o = json_object_get(j, "verification");
	cr_assert_str_eq(json_string_value(json_object_get(o, "revert")),
	    "restores");
	cr_assert_eq(json_array_size(json_object_get(o, "revert_samples")), 3);
	cr_assert_float_eq(json_real_value(json_object_get(o, "p_bad")),
	    0.0012, 1e-12);
	json_decref(j);
	free(text);
	report_fixture_release(&f);
}

Test(report_verify, every_outcome_has_its_sentence)
{
	static const char *const files[] = { "mm/a.c", "mm/b.c" };
	static const struct {
		enum report_revert r;
		const char *want;
	} cases[] = {
		{ REPORT_REVERT_NOT_RESTORED, "revert does not restore it: the "
		    "change may depend on later commits or lie elsewhere" },
		{ REPORT_REVERT_CONFLICTS, "revert does not apply (conflicts in "
		    "mm/a.c, mm/b.c and 1 more)\n" },
		{ REPORT_REVERT_UNBUILDABLE, "applies but does not build" },
		{ REPORT_REVERT_NOT_TRIED, "revert: not tried\n" },
	};
	struct report_verification v;
	struct report_fixture f;
	char *text;
	size_t i;

	report_fixture_load(&f, "culprit.input.json");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&v, 0, sizeof(v));
		v.revert = cases[i].r;
		v.conflicts = files;
		v.n_conflicts = 2;
		v.n_conflicts_total = 3;
		v.back_pct = v.restored = v.p_bad = v.p_parent = NAN;
		text = rv_text(&f, &v);
		cr_assert_not_null(strstr(text, cases[i].want), "%s", text);
		free(text);
	}
	report_fixture_release(&f);
}

Test(report_verify, flags_come_first_and_culprits_have_shares)
{
	static const char *const susp[] = { "the culprit is a merge commit" };
	static const struct report_culprit_share shares[] = {
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "first", 0.52 },
		{ "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", NULL, 0.47 },
	};
	struct report_verification v = {
		.revert = REPORT_REVERT_NOT_TRIED, .noop = true,
		.suspicions = susp, .n_suspicions = 1,
		.culprits = shares, .n_culprits = 2,
	};
	struct report_fixture f;
	struct bd_error err;
	const char *flag, *noop, *lead;
	char *text;
	json_t *j, *c;

	report_fixture_load(&f, "culprit.input.json");
	text = rv_text(&f, &v);
	flag = strstr(text, "suspicious: the culprit is a merge commit\n");
	noop = strstr(text, "no-op: the culprit's build is byte-identical to "
	    "its parent's: the change is noise, code alignment or the "
	    "environment\n");
	lead = strstr(text, "bisectd noticed");
	cr_assert(flag && noop && lead && flag < lead && noop < lead, "%s",
	    text);
	cr_assert_not_null(strstr(text, "culprit 1: aaaaaaaaaaaa (\"first\"): "
	    "52% of the change\nculprit 2: bbbbbbbbbbbb: 47% of the change\n"),
	    "%s", text);
	j = report_render_json(&f.in, &err);
	c = json_object_get(json_object_get(j, "verification"), "culprits");
	cr_assert_eq(json_array_size(c), 2);
	cr_assert_float_eq(json_real_value(json_object_get(json_array_get(c,
	    1), "share")), 0.47, 1e-12);
	cr_assert(json_is_true(json_object_get(json_object_get(j,
	    "verification"), "noop")));
	json_decref(j);
	free(text);
	report_fixture_release(&f);
}

/* The range line and the Verification section give the culprit one share. */
Test(report_verify, one_share_per_culprit)
{
	struct report_culprit_share shares[1];
	struct report_verification v = {
		.revert = REPORT_REVERT_NOT_TRIED,
		.culprits = shares, .n_culprits = 1,
	};
	struct report_fixture f;
	char *text;

	report_fixture_load(&f, "culprit.input.json");
	shares[0].sha = f.in.culprit.sha;
	shares[0].subject = NULL;
	shares[0].share = 0.72;
	text = rv_text(&f, &v);
	cr_assert_not_null(strstr(text, "this commit accounts for 72% of it"),
	    "%s", text);
	cr_assert_not_null(strstr(text, ": 72% of the change\n"), "%s", text);
	free(text);
	report_fixture_release(&f);
}
