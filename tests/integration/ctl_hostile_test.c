/* SPDX-License-Identifier: MIT */
/*
 * Hostile text through bisectctl to the operator's terminal, against the
 * real daemon holding real content: a commit whose subject carries an
 * escape sequence (set the terminal's title, BEL) and a C1 control (CSI
 * in UTF-8), bisected in a repository the test makes, and a host name of
 * the same kind sent over the socket.  What bisectctl prints for people
 * shows '?' for each control and the rest of the line as it was; --json
 * prints the daemon's reply byte for byte.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "tests/support/daemon.h"
#include "tests/support/tst.h"

/* The subject of the bad commit, and how bisectctl must show it. */
#define HOSTILE_SUBJECT	"mm: \x1b]0;pwned\x07" "fix \xc2\x9b" "31m leak \xc3\xa9"
#define HOSTILE_SHOWN	"mm: ?]0;pwned?fix ?31m leak \xc3\xa9"

static struct tst_daemon td;
/* Strings a test holds, freed by the fini also after a failed assertion. */
static char	*ctl_hostile_held[12];

/* Hands s to the fini; returns s. */
static char *
ctl_hostile_hold(char *s)
{
	size_t i;

	for (i = 0; i < 12 && ctl_hostile_held[i] != NULL; i++)
		;
	cr_assert_lt(i, 12);
	ctl_hostile_held[i] = s;
	return s;
}

static void
ctl_hostile_cleanup(void)
{
	size_t i;

	tst_daemon_release(&td);
	for (i = 0; i < 12; i++) {
		free(ctl_hostile_held[i]);
		ctl_hostile_held[i] = NULL;
	}
	tst_leak_check();
}

TestSuite(ctl_hostile, .fini = ctl_hostile_cleanup, .timeout = 120);

/* git -C repo with these words; the test fails when git does. */
#define GIT(repo, ...) cr_assert_eq(tst_run((char *[]){ "git", "-C", \
    (char *)(repo), __VA_ARGS__, NULL }), 0, "git failed")

/* The full id of rev in repo. */
static void
ctl_hostile_rev(const char *repo, const char *rev, char sha[41])
{
	char *argv[] = { "git", "-C", (char *)repo, "rev-parse", (char *)rev,
	    NULL };
	char *out;
	int st;

	out = tst_run_capture(argv, &st);
	cr_assert(out != NULL && st == 0 && strlen(out) >= 40);
	snprintf(sha, 41, "%.40s", out);
	free(out);
}

/*
 * A daemon with a repository of three commits, the first and the last
 * with the subjects given (the last in bad_encoding), a
 * benchmark and one host that nothing answers for; a bisection of the
 * range, waited for until its graph is loaded.  Returns its id.
 */
static long long
ctl_hostile_start(char good[41], char bad[41], const char *good_subject,
    const char *bad_subject, const char *bad_encoding)
{
	char *enc;

	char *repo, *sections, *line, *reply, why[256];
	long long id;
	json_t *r;
	int i, ok;

	cr_assert_eq(tst_daemon_setup(&td, "ctlhostile", NULL, NULL), 0);
	xasprintf(&repo, "%s/repo", td.dir);
	ctl_hostile_hold(repo);
	{
		char *argv[] = { "git", "init", "-q", repo, NULL };

		cr_assert_eq(tst_run(argv), 0);
	}
	GIT(repo, "commit", "--allow-empty", "-q", "--cleanup=verbatim", "-m",
	    (char *)good_subject);
	GIT(repo, "commit", "--allow-empty", "-qm", "sched: tweak");
	/* Written as given: git converts only a message it takes for UTF-8. */
	xasprintf(&enc, "i18n.commitEncoding=%s", bad_encoding);
	GIT(repo, "-c", ctl_hostile_hold(enc), "commit", "--allow-empty", "-q",
	    "--cleanup=verbatim", "-m", (char *)bad_subject);
	ctl_hostile_rev(repo, "HEAD~2", good);
	ctl_hostile_rev(repo, "HEAD", bad);
	xasprintf(&sections, "[repo]\npath = %s\n\n"
	    "[benchmark spin]\nrun = true\nmetrics = runtime_ms:lower\n\n"
	    "[host h0]\naddress = 127.0.0.1\nport = %d\nuser = bench\n"
	    "identity = %s/id_ed25519\nknown_hosts = %s/known_hosts\n"
	    "group = lab\nroles = build,test\n", repo, tst_free_port(),
	    td.dir, td.dir);
	cr_assert_eq(tst_daemon_write_config(&td, NULL, ctl_hostile_hold(
	    sections)), 0);
	cr_assert_eq(tst_daemon_start(&td), 0, "bisectd did not start");

	xasprintf(&line, "{\"cmd\":\"bisect\",\"good\":[\"%s\"],\"bad\":\"%s\","
	    "\"benchmark\":\"spin\",\"metric\":\"runtime_ms\",\"group\":\"lab\"}",
	    good, bad);
	r = tst_daemon_reply(tst_daemon_request(&td, line));
	free(line);
	/* Read, then freed before any assertion, so a failure leaks nothing. */
	ok = json_is_true(json_object_get(r, "ok"));
	snprintf(why, sizeof(why), "%s", json_string_value(json_object_get(
	    json_object_get(r, "error"), "message")) ?: "no reply");
	id = (long long)json_integer_value(json_object_get(r, "bisection"));
	json_decref(r);
	cr_assert(ok, "bisect refused: %s", why);
	/* The log names the endpoints once the graph is loaded. */
	xasprintf(&line, "{\"cmd\":\"log\",\"bisection\":%lld}", id);
	for (i = 0; i < TST_DAEMON_WAIT_MS / 10; i++) {
		reply = tst_daemon_request(&td, line);
		if (reply != NULL && strstr(reply, "# bad: [") != NULL) {
			free(reply);
			break;
		}
		free(reply);
		usleep(10000);
	}
	free(line);
	cr_assert_lt(i, TST_DAEMON_WAIT_MS / 10, "the graph never loaded");
	return id;
}

/* bisectctl's stdout for these words, held for the fini. */
#define CTL(status, ...) ctl_hostile_hold(tst_run_capture((char *[]){ \
    (char *)tst_env_path("BISECTCTL_BIN"), "-s", td.sock, __VA_ARGS__, \
    NULL }, &(status)))

/* The commit's subject reaches log and status as text, controls as '?'. */
Test(ctl_hostile, a_hostile_commit_subject_prints_without_its_controls)
{
	char good[41], bad[41], id[32], want[128], *out, *line, *reply;
	long long n;
	int st;

	n = ctl_hostile_start(good, bad, "base", HOSTILE_SUBJECT, "UTF-8");
	snprintf(id, sizeof(id), "%lld", n);

	out = CTL(st, "log", id);
	cr_assert_eq(st, 0, "%s", out);
	snprintf(want, sizeof(want), "# bad: [%s] " HOSTILE_SHOWN "\n", bad);
	cr_assert_not_null(strstr(out, want), "%s", out);
	cr_assert_not_null(strstr(out, "git bisect bad "), "%s", out);
	tst_assert_no_controls("bisectctl", out, 1);

	out = CTL(st, "status", id);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_not_null(strstr(out, HOSTILE_SHOWN), "%s", out);
	tst_assert_no_controls("bisectctl", out, 1);

	/* --json is the daemon's own line, escapes and C1 bytes as sent. */
	out = CTL(st, "--json", "log", id);
	cr_assert_eq(st, 0, "%s", out);
	xasprintf(&line, "{\"cmd\":\"log\",\"bisection\":%lld}", n);
	reply = ctl_hostile_hold(tst_daemon_request(&td, line));
	free(line);
	cr_assert_not_null(reply);
	cr_assert_eq(strlen(out), strlen(reply) + 1);
	cr_assert_eq(memcmp(out, reply, strlen(reply)), 0, "%s\n%s", out,
	    reply);
	cr_assert_not_null(strstr(out, "\\u001B]0;pwned\\u0007fix \xc2\x9b"),
	    "%s", out);
}

/* An error reply that repeats a hostile name reaches stderr cleaned. */
Test(ctl_hostile, a_hostile_name_in_an_error_prints_without_its_controls)
{
	char good[41], bad[41], *out;
	int st;

	ctl_hostile_start(good, bad, "base", HOSTILE_SUBJECT, "UTF-8");
	out = ctl_hostile_hold(tst_daemon_run_both((const char *[]){
	    tst_env_path("BISECTCTL_BIN"), "-s", td.sock, "drain",
	    "h\x1b[2J\x1b]0;x\x07y\xc2\x9b" "1z", NULL }, &st));
	cr_assert_not_null(out);
	cr_assert_eq(st, 1, "%s", out);
	cr_assert_not_null(strstr(out, "not-found: no host h?[2J?]0;x?y?1z\n"),
	    "%s", out);
	tst_assert_no_controls("bisectctl", out, 1);
}

/*
 * Subjects that are not UTF-8 (a Latin-1 commit) or whose last character
 * the daemon's 256-byte cut splits still give their lines: jansson
 * refuses such strings, and the lines went missing.
 */
Test(ctl_hostile, subjects_that_are_not_utf8_keep_their_lines)
{
	char good[41], bad[41], id[32], longsub[300], want[400], *out;
	long long n;
	int st;

	/* 254 bytes, then an e-acute across the cut at 255. */
	memset(longsub, 'a', 254);
	snprintf(longsub + 254, sizeof(longsub) - 254, "\xc3\xa9 and more");
	n = ctl_hostile_start(good, bad, longsub, "fix caf\xe9 latin-1",
	    "ISO-8859-1");
	snprintf(id, sizeof(id), "%lld", n);

	out = CTL(st, "log", id);
	cr_assert_eq(st, 0, "%s", out);
	snprintf(want, sizeof(want), "# bad: [%s] fix caf? latin-1\n", bad);
	cr_assert_not_null(strstr(out, want), "%s", out);
	snprintf(want, sizeof(want), "# good: [%s] %.254s\n", good, longsub);
	cr_assert_not_null(strstr(out, want), "%s", out);

	out = CTL(st, "status", id);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_not_null(strstr(out, "fix caf? latin-1"), "%s", out);
}
