/* SPDX-License-Identifier: MIT */
/*
 * Errors and revisions as an operator meets them, through the real
 * bisectctl against the real daemon: samples --commit takes any revision,
 * a bad revision is named before a host-group problem, a socket the user
 * may not open names socket_group, and a failing database is said in
 * words, without the store's internals.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/xmalloc.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(ctlerrors, .fini = svc_fini, .timeout = 900);

/* `bisectctl -s SOCK args...`, stdout and stderr together (caller frees). */
static char *
ctl(int *status, const char *const *args)
{
	const char *argv[24] = { "sh", "-c", "exec \"$@\" 2>&1", "sh",
	    tst_env_path("BISECTCTL_BIN"), "-s", svc.td.sock };
	size_t i;
	char *out;

	for (i = 0; args[i] != NULL && i < 16; i++)
		argv[7 + i] = args[i];
	argv[7 + i] = NULL;
	out = tst_run_capture((char *const *)argv, status);
	cr_assert_not_null(out, "bisectctl did not run");
	return out;
}

#define CTL(st, ...)	ctl((st), (const char *const[]){ __VA_ARGS__, NULL })

Test(ctlerrors, samples_commit_takes_an_abbreviated_sha_or_a_revision)
{
	char *out, *argv[] = { "git", "-C", NULL, "tag", "v-bad", NULL,
	    NULL };
	char abbrev[13], idtext[24];
	json_t *b;
	int64_t id;
	int st;

	svc_setup("ctlerr-samples", 1, "2:3", 0);
	argv[2] = svc.repo;
	argv[5] = svc.bad;
	cr_assert_eq(tst_run(argv), 0, "git tag");
	id = svc_bisect("ops_per_sec", NULL);
	b = svc_wait(id);
	json_decref(b);
	snprintf(idtext, sizeof(idtext), "%lld", (long long)id);
	snprintf(abbrev, sizeof(abbrev), "%.12s", svc.bad);

	out = CTL(&st, "--json", "samples", idtext, "--commit", abbrev);
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, svc.bad), "no sample of %s:\n%s",
	    svc.bad, out);
	free(out);
	out = CTL(&st, "--json", "samples", idtext, "--commit", "v-bad");
	cr_expect_eq(st, 0, "%s", out);
	cr_expect_not_null(strstr(out, svc.bad), "no sample of %s:\n%s",
	    svc.bad, out);
	free(out);
	out = CTL(&st, "samples", idtext, "--commit", "no-such-ref");
	cr_expect_eq(st, 1, "%s", out);
	cr_expect_not_null(strstr(out, "not-found"), "%s", out);
	cr_expect_not_null(strstr(out, "no-such-ref"), "%s", out);
	free(out);
}

Test(ctlerrors, a_bad_revision_is_named_before_a_group_problem)
{
	char *out;
	int st;

	svc_setup("ctlerr-order", 1, "2:3", 0);
	/* No --group: the default group has no host in this fixture. */
	out = CTL(&st, "bisect", "--good", svc.good, "--bad", "deadbeef",
	    "--benchmark", "spin", "--metric", "ops_per_sec");
	cr_expect_eq(st, 1, "%s", out);
	cr_expect_not_null(strstr(out, "deadbeef"), "%s", out);
	cr_expect_null(strstr(out, "host group"), "%s", out);
	free(out);
	/* With good revisions, the group problem is still named. */
	out = CTL(&st, "bisect", "--good", svc.good, "--bad", svc.bad,
	    "--benchmark", "spin", "--metric", "ops_per_sec");
	cr_expect_eq(st, 1, "%s", out);
	cr_expect_not_null(strstr(out, "host group default"), "%s", out);
	free(out);
}

Test(ctlerrors, a_socket_the_user_may_not_open_names_socket_group)
{
	const char *argv[] = { "setpriv", "--reuid=65534", "--regid=65534",
	    "--clear-groups", "--", tst_env_path("BISECTCTL_BIN"), "-s",
	    NULL, "ping", NULL };
	char *out;
	int st;

	svc_setup("ctlerr-perm", 1, "2:3", 0);
	argv[7] = svc.td.sock;
	if (geteuid() != 0) {
		/* Its owner is refused a socket without write permission. */
		cr_assert_eq(chmod(svc.td.sock, 0), 0);
		out = CTL(&st, "ping");
	} else
		out = tst_daemon_run_both(argv, &st);
	cr_assert_not_null(out);
	cr_expect_eq(st, 2, "%s", out);
	cr_expect_not_null(strstr(out, "Permission denied"), "%s", out);
	cr_expect_not_null(strstr(out, "socket_group"), "%s", out);
	free(out);
}

Test(ctlerrors, a_failing_database_is_said_in_words)
{
	char *out, idtext[24];
	sqlite3 *db;
	int64_t id;
	int st;

	svc_setup("ctlerr-store", 1, "2:3", 0);
	id = svc_bisect("ops_per_sec", NULL);
	snprintf(idtext, sizeof(idtext), "%lld", (long long)id);
	/* Another writer holds the database past the daemon's patience. */
	cr_assert_eq(sqlite3_open(svc.td.db, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
	    SQLITE_OK, "%s", sqlite3_errmsg(db));
	out = CTL(&st, "cancel", idtext);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	cr_expect_eq(st, 1, "%s", out);
	cr_expect_not_null(strstr(out, "database failed"), "%s", out);
	cr_expect_null(strstr(out, "store "), "%s", out);
	cr_expect_null(strstr(out, svc.td.dir), "%s", out);
	free(out);
}

/*
 * What scripts rely on, against the real daemon holding a real culprit:
 * `bisect --wait` and `status --follow` exit 0 for a culprit, and
 * `report --kcidb` prints KCIDB data naming it (until now only a fake
 * server and the report fixtures had answered these).
 */
Test(ctlerrors, wait_follow_and_kcidb_on_a_real_culprit)
{
	char *out, *text, idtext[24];
	json_t *k, *issue;
	json_error_t jerr;
	int st;

	svc_setup("ctlerr-wait", 2, "2:3", 0);
	out = CTL(&st, "bisect", "--good", svc.good, "--bad", svc.bad,
	    "--benchmark", "spin", "--metric", "runtime_ms", "--group", "lab",
	    "--wait");
	cr_expect_eq(st, 0, "bisect --wait on a culprit: exit %d\n%s", st, out);
	snprintf(idtext, sizeof(idtext), "%.12s", svc.culprit);
	cr_expect_not_null(strstr(out, idtext), "names the culprit:\n%s", out);
	free(out);
	snprintf(idtext, sizeof(idtext), "%d", 1);
	out = CTL(&st, "status", idtext, "--follow");
	cr_expect_eq(st, 0, "status --follow of a done culprit:\n%s", out);
	free(out);
	out = CTL(&st, "report", idtext, "--kcidb");
	cr_assert_eq(st, 0, "report --kcidb:\n%s", out);
	k = json_loads(out, 0, &jerr);
	cr_assert_not_null(k, "not JSON (%s): %s", jerr.text, out);
	cr_expect_not_null(json_object_get(k, "version"), "%s", out);
	issue = json_array_get(json_object_get(k, "issues"), 0);
	cr_assert_not_null(issue, "%s", out);
	text = json_dumps(issue, 0);
	cr_expect_not_null(strstr(text, svc.culprit),
	    "the issue names the culprit: %s", out);
	free(text);
	cr_expect_eq(json_array_size(json_object_get(k, "incidents")), 2,
	    "%s", out);
	json_decref(k);
	free(out);
}
