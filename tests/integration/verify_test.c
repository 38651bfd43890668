/* SPDX-License-Identifier: MIT */
/*
 * Verification of the culprit end to end: the real daemon on sshd hosts
 * over the verification fixtures (tests/fixtures/e2e/make-verify-repo.sh),
 * each case ending in the report's Verification section.
 */
#include <criterion/criterion.h>
#include <signal.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "tests/support/ctlprint.h"
#include "tests/support/daemon.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(verify, .fini = svc_fini, .timeout = 900);

struct vt_report {
	json_t		*reply;
	const char	*text;
	json_t		*ver;		/* the JSON report's verification */
};

/* The stored report of id, text and JSON, with its verification. */
static void
vt_report(int64_t id, struct vt_report *r)
{
	r->reply = svc_req("{\"cmd\":\"report\",\"bisection\":%lld}",
	    (long long)id);
	cr_assert(json_is_true(json_object_get(r->reply, "ok")));
	r->text = json_string_value(json_object_get(r->reply, "text"));
	cr_assert_not_null(r->text);
	cr_assert_not_null(strstr(r->text, "\nVerification:\n"), "%s",
	    r->text);
	r->ver = json_object_get(json_object_get(r->reply, "report"),
	    "verification");
	cr_assert_not_null(r->ver, "no verification in the JSON report");
}

static const char *
vt_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* The line of text that starts with prefix, or NULL. */
static const char *
vt_line(const char *text, const char *prefix)
{
	const char *p = text;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			return p;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return NULL;
}

/* Runs one bisection of the fixture's range to its end. */
static json_t *
vt_bisect(int64_t *idp)
{
	*idp = svc_bisect("ops_per_sec", NULL);
	return svc_wait(*idp);
}

/* The revert is a commit object of the repository, on top of bad. */
static void
vt_assert_revert_commit(int64_t id, const char *sha)
{
	char ref[64], *out, *spec;
	int status;

	snprintf(ref, sizeof(ref), "refs/bisectd/revert/%lld", (long long)id);
	{
		char *argv[] = { "git", "-C", svc.repo, "rev-parse", ref, NULL };

		out = tst_run_capture(argv, &status);
	}
	cr_assert_eq(status, 0, "no %s: %s", ref, out);
	cr_assert_eq(strncmp(out, sha, 40), 0, "%s is %s, not %s", ref, out,
	    sha);
	free(out);
	xasprintf(&spec, "%s^", sha);
	{
		char *argv[] = { "git", "-C", svc.repo, "rev-parse", spec, NULL };

		out = tst_run_capture(argv, &status);
	}
	cr_assert_eq(strncmp(out, svc.bad, 40), 0, "the revert's parent is "
	    "%s, not bad", out);
	free(out);
	free(spec);
}

Test(verify, a_revert_on_the_tip_restores_the_metric)
{
	struct vt_report r;
	json_t *b, *v;
	int64_t id, done;
	char want[160];
	const char *rsha;

	svc_setup_case("vf-restore", 2, "restore", NULL);
	b = vt_bisect(&id);
	svc_assert_culprit(b);
	v = json_object_get(b, "verification");
	cr_assert_not_null(v, "status shows no verification phase");
	cr_assert_str_eq(vt_str(v, "phase"), "done");
	cr_assert_str_eq(vt_str(v, "result"), "restores");
	done = json_integer_value(json_object_get(json_object_get(b, "runs"),
	    "done"));
	vt_report(id, &r);
	snprintf(want, sizeof(want), "revert on top of %.12s restores "
	    "ops_per_sec (+", svc.bad);
	cr_assert_not_null(strstr(r.text, want), "%s", r.text);
	cr_assert_str_eq(vt_str(r.ver, "revert"), "restores");
	cr_assert_geq(json_integer_value(json_object_get(r.ver,
	    "revert_runs")), 5);
	cr_assert_gt(json_real_value(json_object_get(r.ver, "back_pct")), 5);
	cr_assert_lt(json_real_value(json_object_get(r.ver, "p_bad")), 0.05);
	/* Its runs are part of the cost, and shown apart from it. */
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(
	    r.reply, "report"), "total_samples")), done);
	rsha = vt_str(r.ver, "revert_commit");
	cr_assert_eq(strlen(rsha), 40);
	vt_assert_revert_commit(id, rsha);
	cr_assert_null(vt_line(r.text, "suspicious:"), "%s", r.text);
	cr_assert_null(strstr(r.text, "byte-identical"), "%s", r.text);
	json_decref(r.reply);
	json_decref(b);
}

Test(verify, a_merge_culprit_is_flagged_in_the_first_lines)
{
	struct vt_report r;
	const char *flag, *lead;
	json_t *b;
	int64_t id;

	svc_setup_case("vf-merge", 2, "merge", NULL);
	b = vt_bisect(&id);
	svc_assert_culprit(b);
	vt_report(id, &r);
	flag = vt_line(r.text, "suspicious: the culprit is a merge commit");
	lead = strstr(r.text, "bisectd noticed");
	cr_assert_not_null(flag, "%s", r.text);
	cr_assert_not_null(lead);
	cr_assert_lt(flag, lead, "the flag comes before the lead: %s", r.text);
	cr_assert_eq(json_array_size(json_object_get(r.ver, "suspicious")), 1);
	/* Reverting the merge against its mainline takes the branch out. */
	cr_assert_str_eq(vt_str(r.ver, "revert"), "restores", "%s", r.text);
	json_decref(r.reply);
	json_decref(b);
}

Test(verify, a_noop_culprit_is_inconclusive_without_the_revert)
{
	struct vt_report r;
	json_t *b;
	int64_t id;
	char *dump;

	/* One host: the cost file is read where the build was unpacked. */
	svc_setup_case("vf-noop", 1, "noop", "verify = none\n");
	b = vt_bisect(&id);
	dump = json_dumps(b, JSON_COMPACT);
	cr_assert_str_eq(vt_str(b, "state"), "done", "%s", dump);
	cr_assert_str_eq(vt_str(b, "verdict"), "inconclusive", "%s", dump);
	free(dump);
	vt_report(id, &r);
	cr_assert_not_null(strstr(r.text, "the culprit's build is "
	    "byte-identical to its parent's: the change is noise, code "
	    "alignment or the environment"), "%s", r.text);
	cr_assert_not_null(strstr(r.text, svc.culprit), "the candidate is "
	    "named: %s", r.text);
	cr_assert(json_is_true(json_object_get(r.ver, "noop")));
	cr_assert_str_eq(vt_str(r.ver, "revert"), "not-tried");
	cr_assert_eq(json_integer_value(json_object_get(r.ver,
	    "revert_runs")), 0);
	json_decref(r.reply);
	json_decref(b);
}

Test(verify, a_noop_culprit_whose_revert_restores_stays_the_culprit)
{
	struct vt_report r;
	json_t *b;
	int64_t id;

	svc_setup_case("vf-noop-rv", 1, "noop", NULL);
	b = vt_bisect(&id);
	svc_assert_culprit(b);
	vt_report(id, &r);
	cr_assert_not_null(vt_line(r.text, "no-op: the culprit's build is "
	    "byte-identical"), "%s", r.text);
	cr_assert(json_is_true(json_object_get(r.ver, "noop")));
	cr_assert_str_eq(vt_str(r.ver, "revert"), "restores", "%s", r.text);
	json_decref(r.reply);
	json_decref(b);
}

Test(verify, a_revert_that_conflicts_samples_nothing)
{
	struct vt_report r;
	json_t *b, *c;
	int64_t id;

	svc_setup_case("vf-conflict", 2, "conflict", NULL);
	b = vt_bisect(&id);
	svc_assert_culprit(b);
	vt_report(id, &r);
	cr_assert_not_null(strstr(r.text, "revert does not apply (conflicts "
	    "in bench.c)"), "%s", r.text);
	cr_assert_str_eq(vt_str(r.ver, "revert"), "conflicts");
	c = json_object_get(r.ver, "conflicts");
	cr_assert_eq(json_array_size(c), 1);
	cr_assert_str_eq(json_string_value(json_array_get(c, 0)), "bench.c");
	cr_assert_eq(json_integer_value(json_object_get(r.ver,
	    "revert_runs")), 0);
	cr_assert_eq(json_array_size(json_object_get(r.ver,
	    "revert_samples")), 0);
	json_decref(r.reply);
	json_decref(b);
}

/* The share on the report's "culprit N: SHA12 ...: NN% of" line, or -1. */
static long
vt_share(const char *text, const char *sha)
{
	char key[32];
	const char *p = text, *q, *e;

	snprintf(key, sizeof(key), ": %.12s", sha);
	while ((p = strstr(p, key)) != NULL) {
		p += strlen(key);
		e = strchr(p, '\n');
		if ((q = strstr(p, "% of the change")) == NULL ||
		    (e != NULL && q > e))
			continue;
		while (q > p && q[-1] != ' ')
			q--;
		return strtol(q, NULL, 10);
	}
	return -1;
}

/* bisectctl status of child names parent on its own line. */
static void
vt_assert_parent_shown(json_int_t child, int64_t parent)
{
	char *req, *line, *text, want[64];

	xasprintf(&req, "{\"cmd\":\"status\",\"bisection\":%lld}",
	    (long long)child);
	line = tst_daemon_request(&svc.td, req);
	cr_assert_not_null(line, "%s: no reply", req);
	text = ctlprint(print_status, line);
	snprintf(want, sizeof(want), "\nparent      #%lld,", (long long)parent);
	cr_assert_not_null(strstr(text, want), "no \"%s\" in:\n%s", want + 1,
	    text);
	free(text);
	free(line);
	free(req);
}

/*
 * list names the parent of every sub-range bisection that verification
 * of id started, in its reply and in bisectctl's table ("5 of 4"), and
 * none for id itself.
 */
static void
vt_assert_children_listed(int64_t id)
{
	char *line, *text, cell[64];
	json_t *got, *e;
	size_t i, children = 0;

	line = tst_daemon_request(&svc.td, "{\"cmd\":\"list\"}");
	cr_assert_not_null(line);
	text = ctlprint(print_list, line);
	got = tst_daemon_reply(line);
	cr_assert_not_null(got);
	json_array_foreach(json_object_get(got, "bisections"), i, e) {
		json_int_t me = json_integer_value(json_object_get(e, "id"));
		const json_t *parent = json_object_get(e, "parent");

		if (me == id) {
			cr_assert(json_is_null(parent), "bisection %lld has a "
			    "parent", (long long)me);
			continue;
		}
		cr_assert_eq(json_integer_value(parent), id, "bisection %lld "
		    "is not %lld's child", (long long)me, (long long)id);
		snprintf(cell, sizeof(cell), "%lld of %lld", (long long)me,
		    (long long)id);
		cr_assert_not_null(strstr(text, cell), "no \"%s\" in:\n%s",
		    cell, text);
		vt_assert_parent_shown(me, id);
		children++;
	}
	cr_assert_gt(children, 0, "no sub-range bisection listed:\n%s", text);
	json_decref(got);
	free(text);
}

Test(verify, two_culprits_with_half_the_change_each_are_both_found)
{
	struct vt_report r;
	json_t *b, *c, *e;
	int64_t id;
	size_t i;
	int saw1 = 0, saw2 = 0;
	long s1, s2;

	svc_setup_case("vf-two", 2, "two", NULL);
	cr_assert_eq(strlen(svc.culprit2), 40);
	b = vt_bisect(&id);
	cr_assert_str_eq(vt_str(b, "state"), "done");
	vt_report(id, &r);
	c = json_object_get(r.ver, "culprits");
	json_array_foreach(c, i, e) {
		const char *sha = vt_str(e, "commit");

		saw1 |= strcmp(sha, svc.culprit) == 0;
		saw2 |= strcmp(sha, svc.culprit2) == 0;
	}
	cr_assert(saw1 && saw2, "both culprits are reported: %s", r.text);
	s1 = vt_share(r.text, svc.culprit);
	s2 = vt_share(r.text, svc.culprit2);
	/* ops_per_sec goes 1/4 -> 1/5 -> 1/6: 60% and 40% of the change. */
	cr_assert(s1 > 30 && s1 < 90 && s2 > 10 && s2 < 70, "shares %ld%% "
	    "and %ld%%: %s", s1, s2, r.text);
	json_decref(r.reply);
	json_decref(b);
	vt_assert_children_listed(id);
	/* Ended bisections read back from the store after a restart too. */
	cr_assert_eq(tst_daemon_stop(&svc.td, SIGTERM), 0);
	cr_assert_eq(tst_daemon_start(&svc.td), 0);
	vt_assert_children_listed(id);
}
