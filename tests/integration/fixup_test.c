/* SPDX-License-Identifier: MIT */
/*
 * Fix-ups over a broken stretch, through the real daemon and sshd hosts:
 * drv.c stops compiling at one commit and a commit five later repairs it,
 * with the planted change in between (tests/fixtures/e2e/make-fixup-repo.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "common/xmalloc.h"
#include "tests/support/ctlprint.h"
#include "tests/support/svc.h"

TestSuite(fixup, .fini = svc_fini, .timeout = 900);

/* The fixture's "broken" and "fix" commits, read from its repository. */
static char fx_fix[41];

static const char *fx_keys;

/* The "fx" benchmark: drv.c must compile before bench.c is built. */
static char *
fx_section(void)
{
	char *t;

	xasprintf(&t, "[benchmark fx]\n"
	    "build = mkdir -p {workdir}/src-{short} && git -C %s archive "
	    "{commit} | tar -x -C {workdir}/src-{short} && cc -fsyntax-only "
	    "{workdir}/src-{short}/drv.c && cc -O2 -o "
	    "{workdir}/src-{short}/bench {workdir}/src-{short}/bench.c\n"
	    "artifact = {workdir}/src-{short}/bench\n"
	    "run = {artifact}\n"
	    "metrics = runtime_ms:lower, ops_per_sec:higher\n"
	    "min_change = 5%%\n"
	    "verify = none\n"
	    "build_timeout = 2m\nrun_timeout = 1m\n%s\n", svc.repo,
	    fx_keys ? fx_keys : "");
	return t;
}

/* The fixture case served with keys in [benchmark fx]. */
static void
fx_setup(const char *tag, const char *fixture, const char *keys)
{
	char *cmd, *out;
	FILE *fp;

	fx_keys = keys;
	svc_setup_script(tag, 2, "make-fixup-repo.sh", fixture, NULL,
	    fx_section);
	xasprintf(&cmd, "git -C %s log --format=%%H -1 --grep='missing "
	    "semicolon'", svc.repo);
	cr_assert_not_null(fp = popen(cmd, "r"));
	out = fgets(fx_fix, sizeof(fx_fix), fp);
	pclose(fp);
	free(cmd);
	cr_assert_not_null(out);
	cr_assert_eq(strlen(fx_fix), 40);
}

/* One bisection of the fixture's range on fx, run to its end. */
static json_t *
fx_bisect(const char *fixups)
{
	json_t *r = svc_req("{\"cmd\":\"bisect\",\"good\":[\"%s\"],"
	    "\"bad\":\"%s\",\"benchmark\":\"fx\",\"metric\":\"ops_per_sec\","
	    "\"group\":\"lab\"%s}", svc.good, svc.bad, fixups ? fixups : "");
	int64_t id;

	cr_assert(json_is_true(json_object_get(r, "ok")), "bisect: %s",
	    json_string_value(json_object_get(json_object_get(r, "error"),
	    "message")));
	id = json_integer_value(json_object_get(r, "bisection"));
	json_decref(r);
	return svc_wait(id);
}

/* Whether array a holds string s. */
static int
fx_has(json_t *a, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(a, i, v)
		if (strcmp(json_string_value(v), s) == 0)
			return 1;
	return 0;
}

/* The bisection's report, text and JSON; the caller frees it. */
static json_t *
fx_report(json_t *b)
{
	json_t *r = svc_req("{\"cmd\":\"report\",\"bisection\":%lld}",
	    (long long)json_integer_value(json_object_get(b, "id")));

	cr_assert(json_is_true(json_object_get(r, "ok")));
	return r;
}

/* The set an inconclusive verdict names holds the planted change. */
static void
fx_assert_set(json_t *b)
{
	char *dump = json_dumps(b, JSON_COMPACT);
	json_t *r = fx_report(b), *c;
	const char *text;
	size_t i;
	int found = 0;

	cr_assert_str_eq(json_string_value(json_object_get(b, "verdict")),
	    "inconclusive", "%s", dump);
	cr_assert_null(json_object_get(b, "culprit"), "%s", dump);
	json_array_foreach(json_object_get(json_object_get(r, "report"),
	    "candidates"), i, c)
		found |= strcmp(json_string_value(json_object_get(c, "sha")),
		    svc.culprit) == 0;
	text = json_string_value(json_object_get(r, "text"));
	cr_assert(found, "the set lacks the planted change: %s", text);
	cr_assert_not_null(strstr(text, "could not be built"), "%s", text);
	json_decref(r);
	free(dump);
}

Test(fixup, a_fix_found_by_its_fixes_trailer_names_the_planted_change)
{
	json_t *b, *fx, *r;
	const char *text;
	char *dump, *reply, *shown, want[64];

	fx_setup("fx-auto", "fixed", NULL);
	b = fx_bisect(NULL);
	dump = json_dumps(b, JSON_COMPACT);
	svc_assert_culprit(b);
	fx = json_object_get(b, "fixups");
	cr_assert(fx_has(json_object_get(fx, "found"), fx_fix), "%s", dump);
	/* bisectctl status names it too. */
	xasprintf(&reply, "{\"ok\":true,\"bisection\":%s}", dump);
	shown = ctlprint(print_status, reply);
	snprintf(want, sizeof(want), "given none, found %.12s;", fx_fix);
	cr_assert_not_null(strstr(shown, want), "%s", shown);
	free(shown);
	free(reply);
	cr_assert_gt(json_object_size(json_object_get(fx, "measured")), 0,
	    "%s", dump);
	r = fx_report(b);
	text = json_string_value(json_object_get(r, "text"));
	cr_assert_not_null(strstr(text, "measured with fix-ups"), "%s", text);
	cr_assert_not_null(strstr(text, fx_fix), "%s", text);
	json_decref(r);
	free(dump);
	json_decref(b);
}

Test(fixup, without_fix_ups_the_broken_stretch_is_reported_as_a_set)
{
	json_t *b;

	fx_setup("fx-none", "fixed", "auto_fixups = none\n");
	b = fx_bisect(NULL);
	fx_assert_set(b);
	json_decref(b);
}

Test(fixup, a_fix_up_given_by_hand_names_the_planted_change)
{
	json_t *b, *fx;
	char *extra, *dump;

	fx_setup("fx-hand", "nofix", "auto_fixups = none\n");
	/* A history search is no fix-up: the loop thread never walks it. */
	b = svc_req("{\"cmd\":\"bisect\",\"good\":[\"%s\"],\"bad\":\"%s\","
	    "\"benchmark\":\"fx\",\"metric\":\"ops_per_sec\",\"group\":"
	    "\"lab\",\"fixups\":[\":/missing semicolon\"]}", svc.good, svc.bad);
	dump = json_dumps(b, JSON_COMPACT);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(b,
	    "error"), "code")), "invalid-argument", "%s", dump);
	cr_assert_not_null(strstr(json_string_value(json_object_get(
	    json_object_get(b, "error"), "message")), "accepted form"), "%s",
	    dump);
	free(dump);
	json_decref(b);
	/* The repair names nothing: the pair says what it repairs. */
	xasprintf(&extra, ",\"fixups\":[\"%s:HEAD~8\"]", fx_fix);
	b = fx_bisect(extra);
	dump = json_dumps(b, JSON_COMPACT);
	svc_assert_culprit(b);
	fx = json_object_get(b, "fixups");
	cr_assert_eq(json_array_size(json_object_get(fx, "found")), 0, "%s",
	    dump);
	cr_assert_gt(json_object_size(json_object_get(fx, "measured")), 0,
	    "%s", dump);
	free(dump);
	free(extra);
	json_decref(b);
}

Test(fixup, a_range_with_no_fix_available_still_reports_the_set)
{
	json_t *b;

	fx_setup("fx-nofix", "nofix", NULL);
	b = fx_bisect(NULL);
	fx_assert_set(b);
	json_decref(b);
}

Test(fixup, a_fix_up_that_conflicts_is_a_skip_with_the_reason)
{
	json_t *b, *v;
	const char *k;
	char *dump;
	int conflicts = 0;

	fx_setup("fx-conflict", "conflict", NULL);
	b = fx_bisect(NULL);
	dump = json_dumps(b, JSON_COMPACT);
	json_object_foreach(json_object_get(json_object_get(b, "fixups"),
	    "skipped"), k, v)
		conflicts |= strstr(json_string_value(v), "conflicts") != NULL;
	cr_assert(conflicts, "no skip names a conflict: %s", dump);
	cr_assert_null(json_object_get(b, "culprit"), "%s", dump);
	free(dump);
	json_decref(b);
}
