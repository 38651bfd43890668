/* SPDX-License-Identifier: MIT */
/*
 * `bisectctl report ID --kcidb`: the KCIDB I/O data made from a culprit's
 * report is checked against the v5 schema of kernelci/kcidb-io, as a
 * checker written here from the schema's text: each object's properties
 * (additionalProperties false), their types, patterns and enums, the
 * required ones, and that every *_id names an object of the data.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bisect/report.h"
#include "ctl/report_kcidb.h"
#include "tests/support/report_fixture.h"
#include "tests/support/tst.h"

TestSuite(report_kcidb, .fini = tst_leak_check);

/* Patterns of the schema (v4's origin and id patterns, v5's test path). */
#define KC_ORIGIN	"^[a-z0-9_]+$"
#define KC_ID		"^[a-z0-9_]+:.*$"
#define KC_SHA		"^[0-9a-f]{40}$"
#define KC_GITURL	"^(https|git)://.*$"
#define KC_PATH		"^([a-zA-Z0-9_-]+(\\.[a-zA-Z0-9_-]+)*)?$"
#define KC_URI		"^[a-z][a-z0-9+.-]*:[^ ]*$"

struct kc_prop {
	const char	*name;
	char		 type;	/* s b i n o a r (resource list) S (status) */
	const char	*pattern;
	int		 required;
};

static const struct kc_prop kc_checkout[] = {
	{ "_timestamp", 's', NULL, 0 }, { "id", 's', KC_ID, 1 },
	{ "origin", 's', KC_ORIGIN, 1 }, { "tree_name", 's', NULL, 0 },
	{ "git_repository_url", 's', KC_GITURL, 0 },
	{ "git_commit_hash", 's', KC_SHA, 0 },
	{ "git_commit_name", 's', NULL, 0 }, { "git_commit_tags", 'a', NULL, 0 },
	{ "git_commit_message", 's', NULL, 0 },
	{ "git_repository_branch", 's', NULL, 0 },
	{ "git_repository_branch_tip", 'b', NULL, 0 },
	{ "patchset_files", 'r', NULL, 0 }, { "patchset_hash", 's', NULL, 0 },
	{ "message_id", 's', NULL, 0 }, { "comment", 's', NULL, 0 },
	{ "start_time", 's', NULL, 0 }, { "log_url", 's', KC_URI, 0 },
	{ "log_excerpt", 's', NULL, 0 }, { "valid", 'b', NULL, 0 },
	{ "misc", 'o', NULL, 0 }, { NULL, 0, NULL, 0 },
};

static const struct kc_prop kc_build[] = {
	{ "_timestamp", 's', NULL, 0 }, { "checkout_id", 's', KC_ID, 1 },
	{ "id", 's', KC_ID, 1 }, { "origin", 's', KC_ORIGIN, 1 },
	{ "comment", 's', NULL, 0 }, { "start_time", 's', NULL, 0 },
	{ "duration", 'n', NULL, 0 },
	{ "architecture", 's', "^[a-z0-9_]*$", 0 },
	{ "command", 's', NULL, 0 }, { "compiler", 's', NULL, 0 },
	{ "input_files", 'r', NULL, 0 }, { "output_files", 'r', NULL, 0 },
	{ "config_name", 's', NULL, 0 }, { "config_url", 's', KC_URI, 0 },
	{ "log_url", 's', KC_URI, 0 }, { "log_excerpt", 's', NULL, 0 },
	{ "status", 'S', NULL, 0 }, { "misc", 'o', NULL, 0 },
	{ NULL, 0, NULL, 0 },
};

static const struct kc_prop kc_test[] = {
	{ "_timestamp", 's', NULL, 0 }, { "build_id", 's', KC_ID, 1 },
	{ "id", 's', KC_ID, 1 }, { "origin", 's', KC_ORIGIN, 1 },
	{ "environment", 'o', NULL, 0 }, { "path", 's', KC_PATH, 0 },
	{ "comment", 's', NULL, 0 }, { "log_url", 's', KC_URI, 0 },
	{ "log_excerpt", 's', NULL, 0 }, { "status", 'S', NULL, 0 },
	{ "number", 'o', NULL, 0 }, { "waived", 'b', NULL, 0 },
	{ "start_time", 's', NULL, 0 }, { "duration", 'n', NULL, 0 },
	{ "output_files", 'r', NULL, 0 }, { "misc", 'o', NULL, 0 },
	{ NULL, 0, NULL, 0 },
};

static const struct kc_prop kc_issue[] = {
	{ "_timestamp", 's', NULL, 0 }, { "id", 's', KC_ID, 1 },
	{ "version", 'i', NULL, 1 }, { "origin", 's', KC_ORIGIN, 1 },
	{ "report_url", 's', KC_URI, 0 }, { "report_subject", 's', NULL, 0 },
	{ "culprit", 'o', NULL, 0 }, { "comment", 's', NULL, 0 },
	{ "misc", 'o', NULL, 0 }, { NULL, 0, NULL, 0 },
};

static const struct kc_prop kc_incident[] = {
	{ "_timestamp", 's', NULL, 0 }, { "id", 's', KC_ID, 1 },
	{ "origin", 's', KC_ORIGIN, 1 }, { "issue_id", 's', KC_ID, 1 },
	{ "issue_version", 'i', NULL, 1 }, { "build_id", 's', KC_ID, 0 },
	{ "test_id", 's', KC_ID, 0 }, { "present", 'b', NULL, 0 },
	{ "comment", 's', NULL, 0 }, { "misc", 'o', NULL, 0 },
	{ NULL, 0, NULL, 0 },
};

static const struct kc_prop kc_environment[] = {
	{ "compatible", 'a', NULL, 0 }, { "comment", 's', NULL, 0 },
	{ "misc", 'o', NULL, 0 }, { NULL, 0, NULL, 0 },
};

static const struct kc_prop kc_number[] = {
	{ "value", 'n', NULL, 1 }, { "unit", 's', NULL, 0 },
	{ "prefix", 's', "^(metric|binary)$", 0 }, { NULL, 0, NULL, 0 },
};

static const struct kc_prop kc_culprit[] = {
	{ "code", 'b', NULL, 0 }, { "tool", 'b', NULL, 0 },
	{ "harness", 'b', NULL, 0 }, { NULL, 0, NULL, 0 },
};

static int
kc_match(const char *pattern, const char *s)
{
	regex_t re;
	int hit;

	cr_assert_eq(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0,
	    "%s", pattern);
	hit = regexec(&re, s, 0, NULL, 0) == 0;
	regfree(&re);
	return hit;
}

/*
 * The checker's findings, collected for the assertion's message: logged
 * as Criterion errors, the checker's deliberate refusals below would make
 * the runner exit 1 with every test passed.
 */
static char kc_errs[2048];

static void __attribute__((format(printf, 1, 2)))
kc_err(const char *fmt, ...)
{
	size_t n = strlen(kc_errs);
	va_list ap;

	if (n + 2 >= sizeof(kc_errs))
		return;
	va_start(ap, fmt);
	vsnprintf(kc_errs + n, sizeof(kc_errs) - n - 1, fmt, ap);
	va_end(ap);
	strcat(kc_errs, "\n");
}

/* One object against its property table; returns the number of errors. */
static int
kc_check(const char *what, const json_t *o, const struct kc_prop *props)
{
	static const char *const statuses[] = { "FAIL", "ERROR", "MISS",
	    "PASS", "DONE", "SKIP" };
	const char *key;
	const json_t *v;
	const struct kc_prop *p;
	int bad = 0, ok;
	size_t i;

	if (!json_is_object(o)) {
		kc_err("%s: not an object", what);
		return 1;
	}
	for (p = props; p->name != NULL; p++)
		if (p->required && json_object_get(o, p->name) == NULL) {
			kc_err("%s: %s is required", what, p->name);
			bad++;
		}
	json_object_foreach((json_t *)o, key, v) {
		for (p = props; p->name != NULL && strcmp(p->name, key) != 0;
		    p++)
			;
		if (p->name == NULL) {
			kc_err("%s: %s is not a property", what, key);
			bad++;
			continue;
		}
		switch (p->type) {
		case 's': ok = json_is_string(v) && (p->pattern == NULL ||
		    kc_match(p->pattern, json_string_value(v))); break;
		case 'b': ok = json_is_boolean(v); break;
		case 'i': ok = json_is_integer(v) && json_integer_value(v) >= 0;
		    break;
		case 'n': ok = json_is_number(v); break;
		case 'o': ok = json_is_object(v); break;
		case 'a': case 'r': ok = json_is_array(v); break;
		case 'S':
			ok = 0;
			for (i = 0; i < 6 && json_is_string(v); i++)
				ok |= strcmp(json_string_value(v),
				    statuses[i]) == 0;
			break;
		default: ok = 0;
		}
		if (!ok) {
			kc_err("%s: %s has a wrong type or value", what,
			    key);
			bad++;
		}
	}
	if ((v = json_object_get(o, "environment")) != NULL)
		bad += kc_check("environment", v, kc_environment);
	if ((v = json_object_get(o, "number")) != NULL)
		bad += kc_check("number", v, kc_number);
	if ((v = json_object_get(o, "culprit")) != NULL)
		bad += kc_check("culprit", v, kc_culprit);
	return bad;
}

/* Whether some object of list has id. */
static int
kc_has(const json_t *list, const json_t *id)
{
	const json_t *o;
	size_t i;

	json_array_foreach(list, i, o)
		if (json_equal(json_object_get(o, "id"), (json_t *)id))
			return 1;
	return 0;
}

/* The whole document; 0 when it is valid v5 data. */
static int
kc_validate(const json_t *d)
{
	static const struct {
		const char		*key;
		const struct kc_prop	*props;
	} lists[] = {
		{ "checkouts", kc_checkout }, { "builds", kc_build },
		{ "tests", kc_test }, { "issues", kc_issue },
		{ "incidents", kc_incident },
	};
	const json_t *ver = json_object_get(d, "version"), *o, *l;
	const char *key;
	const json_t *v;
	size_t i, k, known;
	int bad = 0;

	kc_errs[0] = '\0';
	json_object_foreach((json_t *)d, key, v) {
		for (known = k = 0; k < 5; k++)
			known |= strcmp(key, lists[k].key) == 0;
		if (!known && strcmp(key, "version") != 0) {
			kc_err("top: %s is not a property", key);
			bad++;
		}
	}
	if (json_integer_value(json_object_get(ver, "major")) != 5 ||
	    !json_is_integer(json_object_get(ver, "minor")) ||
	    json_integer_value(json_object_get(ver, "minor")) < 0 ||
	    json_object_size(ver) != 2) {
		kc_err("version is not 5.x");
		bad++;
	}
	for (k = 0; k < 5; k++) {
		l = json_object_get(d, lists[k].key);
		if (l != NULL && !json_is_array(l)) {
			kc_err("%s is not an array", lists[k].key);
			bad++;
		}
		json_array_foreach(l, i, o)
			bad += kc_check(lists[k].key, o, lists[k].props);
	}
	json_array_foreach(json_object_get(d, "builds"), i, o)
		bad += !kc_has(json_object_get(d, "checkouts"),
		    json_object_get(o, "checkout_id"));
	json_array_foreach(json_object_get(d, "tests"), i, o)
		bad += !kc_has(json_object_get(d, "builds"),
		    json_object_get(o, "build_id"));
	json_array_foreach(json_object_get(d, "incidents"), i, o)
		bad += !kc_has(json_object_get(d, "issues"),
		    json_object_get(o, "issue_id")) ||
		    !kc_has(json_object_get(d, "tests"),
		    json_object_get(o, "test_id")) ||
		    !kc_has(json_object_get(d, "builds"),
		    json_object_get(o, "build_id"));
	return bad;
}

static json_t *
kc_from_fixture(const char *name)
{
	struct report_fixture f;
	struct bd_error err;
	json_t *report, *k;

	report_fixture_load(&f, name);
	report = report_render_json(&f.in, &err);
	report_fixture_release(&f);
	cr_assert_not_null(report, "%s", err.msg);
	k = report_kcidb(report, &err);
	json_decref(report);
	cr_assert_not_null(k, "%s", err.msg);
	return k;
}

Test(report_kcidb, a_culprit_is_valid_v5_data)
{
	json_t *k = kc_from_fixture("regression_touched.input.json");
	const json_t *issue, *inc;

	cr_expect_eq(kc_validate(k), 0, "%s", kc_errs);
	cr_assert_eq(json_array_size(json_object_get(k, "checkouts")), 2);
	cr_assert_eq(json_array_size(json_object_get(k, "tests")), 2);
	issue = json_array_get(json_object_get(k, "issues"), 0);
	cr_expect(json_is_true(json_object_get(json_object_get(issue,
	    "culprit"), "code")));
	cr_expect_str_eq(json_string_value(json_object_get(issue,
	    "report_url")), "https://lore.kernel.org/r/"
	    "bisectd.42.1769000000000@ci.example.org");
	inc = json_object_get(k, "incidents");
	cr_assert_eq(json_array_size(inc), 2);
	cr_expect(json_is_false(json_object_get(json_array_get(inc, 0),
	    "present")));
	cr_expect(json_is_true(json_object_get(json_array_get(inc, 1),
	    "present")));
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(k, "checkouts"), 1), "git_commit_hash")),
	    "66987218154918a6341a3e3eeeee58110a69e0bb");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(k, "checkouts"), 1), "tree_name")), "linux-next");
	json_decref(k);
}

/* The checker itself refuses what the schema refuses. */
Test(report_kcidb, the_checker_refuses_invalid_data)
{
	json_t *k = kc_from_fixture("improvement_mail.input.json");

	cr_assert_eq(kc_validate(k), 0, "%s", kc_errs);
	json_object_set_new(json_array_get(json_object_get(k, "tests"), 0),
	    "status", json_string("OK"));
	cr_expect_gt(kc_validate(k), 0);
	json_object_set_new(json_array_get(json_object_get(k, "tests"), 0),
	    "status", json_string("DONE"));
	json_object_set_new(json_array_get(json_object_get(k, "issues"), 0),
	    "version", json_null());
	cr_expect_gt(kc_validate(k), 0);
	json_object_del(json_array_get(json_object_get(k, "issues"), 0),
	    "version");
	cr_expect_gt(kc_validate(k), 0);
	json_object_set_new(json_array_get(json_object_get(k, "issues"), 0),
	    "version", json_integer(1));
	json_object_set_new(json_array_get(json_object_get(k, "builds"), 0),
	    "extra", json_true());
	cr_expect_gt(kc_validate(k), 0);
	json_decref(k);
}

Test(report_kcidb, only_a_culprit_goes_to_kcidb)
{
	struct report_fixture f;
	struct bd_error err;
	json_t *report;

	report_fixture_load(&f, "inconclusive.input.json");
	report = report_render_json(&f.in, &err);
	report_fixture_release(&f);
	cr_assert_not_null(report);
	cr_expect_null(report_kcidb(report, &err));
	cr_expect_not_null(strstr(err.msg, "no culprit"), "%s", err.msg);
	json_decref(report);
}
