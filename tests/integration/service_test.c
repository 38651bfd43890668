/* SPDX-License-Identifier: MIT */
/*
 * The bisection service end to end: two sshd "hosts" on loopback, a
 * kernel-like fixture repository with a planted slowdown, a benchmark that
 * really compiles and runs a C program at each commit, and the real daemon
 * driven through its control socket.
 */
#include <criterion/criterion.h>

#include <sys/wait.h>

#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "tests/support/daemon.h"
#include "tests/support/png.h"
#include "tests/support/sshd.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(service, .fini = svc_fini, .timeout = 900);

/* Occurrences of needle in hay. */
static size_t
svc_count(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/*
 * `bisectctl report ID --html FILE` against the daemon: every sample is a
 * point of the page, and a real browser draws the plots in their colours.
 */
static void
svc_assert_html_report(int64_t id, const json_t *report)
{
	char idtext[32], *html_path, *png_path, *out, *page, *want_link;
	const json_t *ends = json_object_get(report, "endpoints");
	size_t want;
	struct tst_png png;
	int status, rc;

	snprintf(idtext, sizeof(idtext), "%lld", (long long)id);
	xasprintf(&html_path, "%s/report.html", svc.dir);
	xasprintf(&png_path, "%s/report.png", svc.dir);
	{
		char *argv[] = { (char *)tst_env_path("BISECTCTL_BIN"), "-s",
		    svc.td.sock, "report", idtext, "--html", html_path, NULL };

		out = tst_run_capture(argv, &status);
	}
	cr_assert_eq(status, 0, "bisectctl report --html: %s", out);
	free(out);
	cr_assert_not_null(page = tst_read_file(html_path));
	cr_expect_not_null(strstr(page, "<svg id=\"plot-order\""));
	cr_expect_not_null(strstr(page, "<svg id=\"plot-position\""));
	cr_expect_not_null(strstr(page, "<svg id=\"plot-endpoints\""));
	cr_expect_not_null(strstr(page, svc.culprit));
	xasprintf(&want_link, "<a href=\"https://git.example.org/c/%s\">",
	    svc.culprit);
	cr_expect_not_null(strstr(page, want_link), "commits are linked");
	free(want_link);
	cr_expect_not_null(strstr(page, ">good side (before the culprit)<"));
	cr_expect_not_null(strstr(page, "class=\"culprit-label\""));
	cr_expect_not_null(strstr(page, "<br>mean, n="));
	cr_expect_null(strstr(page, "+----------"), "ASCII plots left");
	cr_expect_null(strstr(page, "<script"), "the page runs no script");
	cr_expect_null(strstr(page, "src=\"http"), "the page loads nothing");
	/* Bisection samples in both sample plots, endpoints in their own. */
	want = 2 * json_array_size(json_object_get(report,
	    "bisection_samples")) + json_array_size(json_object_get(ends,
	    "good")) + json_array_size(json_object_get(ends, "bad"));
	cr_expect_gt(want, 4);
	cr_expect_eq(svc_count(page, "<circle "), want,
	    "one point per sample: %zu", want);
	free(page);

	rc = tst_chromium_screenshot(html_path, png_path, 900, 1400);
	cr_assert_neq(rc, 1, "no /usr/bin/chromium: make test installs it");
	cr_assert_eq(rc, 0, "headless chromium failed");
	cr_assert_eq(tst_png_read(png_path, &png), 0, "not a PNG");
	cr_expect_gt(tst_png_nonwhite(&png), 10000, "the screenshot is blank");
	/* The good (blue) and bad (red) points were drawn. */
	cr_expect_gt(tst_png_count(&png, 0x2c, 0x7b, 0xb6, 24), 20);
	cr_expect_gt(tst_png_count(&png, 0xd7, 0x19, 0x1c, 24), 20);
	tst_png_release(&png);
	/* BISECTD_SCREENSHOT=path keeps the picture (docs/ has one). */
	if (getenv("BISECTD_SCREENSHOT") != NULL) {
		char *argv[] = { "cp", png_path, getenv("BISECTD_SCREENSHOT"),
		    NULL };

		tst_run(argv);
	}
	free(html_path);
	free(png_path);
}

/*
 * The hook's mail facts from the real daemon: a Message-ID of the
 * configured domain, the culprit's author as To, the trailers, and the
 * regression's tags and regzbot line in the report it reads.
 */
static void
svc_assert_mail(int64_t id)
{
	char *env = svc_hook_env(), *path, *text, *want;

	cr_assert_not_null(env);
	xasprintf(&want, "\nBISECTD_MESSAGE_ID=<bisectd.%lld.",
	    (long long)id);
	cr_expect_not_null(strstr(env, want), "%s", env);
	free(want);
	cr_expect_not_null(strstr(env, "@svc.example.org>\n"), "%s", env);
	cr_expect_not_null(strstr(env, "\nBISECTD_IN_REPLY_TO=\n"));
	cr_expect_not_null(strstr(env, "\nBISECTD_TO=Fixture Author "
	    "<author@example.org>"), "%s", env);
	cr_expect_not_null(strstr(env, "\nBISECTD_REPORTED_BY=bisectd "
	    "<svc@example.org>\n"));
	cr_expect_not_null(strstr(env, "\nBISECTD_CLOSES=https://"
	    "lore.example.org/r/bisectd."));
	free(env);
	xasprintf(&path, "%s/hook.txt", svc.dir);
	text = tst_read_file(path);
	free(path);
	cr_assert_not_null(text);
	cr_expect_not_null(strstr(text, "| Reported-by: bisectd "
	    "<svc@example.org>\n| Closes: https://lore.example.org/r/"
	    "bisectd."), "%s", text);
	xasprintf(&want, "\n#regzbot introduced: %.12s\n", svc.culprit);
	cr_expect_not_null(strstr(text, want), "%s", text);
	free(want);
	free(text);
}

Test(service, finds_planted_culprit_and_reports_it)
{
	json_t *b, *r, *line;
	int64_t id, id2;
	int existing = 0;
	size_t i, n;
	int saw_first_bad = 0;

	svc_setup("svc-basic", 2, "2:3", 0);
	id = svc_bisect("ops_per_sec", &existing);
	cr_assert_not(existing);
	id2 = svc_bisect("ops_per_sec", &existing);
	cr_assert_eq(id2, id, "an identical request must return the same id");
	cr_assert(existing);
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
	svc_assert_ended_quietly();
	n = svc_assert_samples_consistent(id);
	cr_assert_gt(n, 6);
	r = svc_req("{\"cmd\":\"log\",\"bisection\":%lld}", (long long)id);
	json_array_foreach(json_object_get(r, "lines"), i, line)
		if (strstr(json_string_value(line), "# first bad commit: [") &&
		    strstr(json_string_value(line), svc.culprit))
			saw_first_bad = 1;
	cr_assert(saw_first_bad, "the bisect log names the culprit");
	json_decref(r);
	r = svc_req("{\"cmd\":\"report\",\"bisection\":%lld}", (long long)id);
	cr_assert(json_is_true(json_object_get(r, "ok")));
	cr_assert_not_null(strstr(json_string_value(json_object_get(r, "text")),
	    "regression of spin.ops_per_sec"), "report: %s",
	    json_string_value(json_object_get(r, "text")));
	cr_assert_not_null(strstr(json_string_value(json_object_get(r, "text")),
	    svc.culprit));
	svc_assert_html_report(id, json_object_get(r, "report"));
	json_decref(r);
	svc_assert_hook_ran();
	svc_assert_mail(id);
}

/*
 * A culprit whose subject carries a CR LF, a header and terminal controls,
 * by an author with a CR in the name, bisected for real: the hook's
 * variables are one clean line each and its report has no control but
 * newline and tab, so a mail hook cannot be made to add a header.
 */
Test(service, a_hostile_culprit_reaches_the_hook_as_clean_lines)
{
	char *path, *env, *text, *line, *save = NULL;
	json_t *b;
	int64_t id;
	int seen = 0;

	cr_assert_eq(setenv("FIXTURE_CULPRIT_SUBJECT", "subsys2\x1b]0;t\x07: "
	    "rework\r\nBcc: all@example.org \xc2\x9b" "1m", 1), 0);
	cr_assert_eq(setenv("FIXTURE_CULPRIT_AUTHOR", "Mal\rlory", 1), 0);
	svc_setup("svc-hostile", 1, "2:3", 0);
	id = svc_bisect("ops_per_sec", NULL);
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);

	env = svc_hook_env();
	for (line = strtok_r(env, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "BISECTD_", 8) != 0)
			continue;
		seen++;
		tst_assert_no_controls(line, line, 0);
		if (strncmp(line, "BISECTD_SUBJECT=", 16) == 0)
			cr_expect_eq(strncmp(line + 16, "[linux:master] "
			    "[subsys2?]0;t?] ", 31), 0, "%s", line);
		if (strncmp(line, "BISECTD_CULPRIT_AUTHOR=", 23) == 0)
			cr_expect_str_eq(line + 23,
			    "Mal?lory <author@example.org>");
	}
	free(env);
	cr_assert_geq(seen, 6, "the hook saw %d BISECTD_ variables", seen);
	xasprintf(&path, "%s/hook.txt", svc.dir);
	text = tst_read_file(path);
	free(path);
	cr_assert_not_null(text);
	tst_assert_no_controls("the hook's report", text, 1);
	cr_expect_not_null(strstr(text, svc.culprit), "%s", text);
	cr_expect_not_null(strstr(text, "subsys2?]0;t?: rework"), "%s", text);
	free(text);
}

/*
 * A fixture whose report hook, after a real bisection, sleeps (bounded,
 * so that a failed test leaves no sleeper for long) with timeout as its
 * report_hook_timeout; returns the hook's pid.
 */
static pid_t
svc_hook_sleeping(const char *tag, const char *timeout)
{
	json_t *b;
	char *path;
	pid_t hook;

	svc_set_hook(" && echo $$ > hook.pid && exec sleep 60", timeout);
	svc_setup(tag, 1, "2:3", 0);
	b = svc_wait(svc_bisect("ops_per_sec", NULL));
	svc_assert_culprit(b);
	json_decref(b);
	xasprintf(&path, "%s/hook.pid", svc.dir);
	hook = tst_wait_pid_file(path);
	free(path);
	return hook;
}

/*
 * A hook that never ends (a mail server that never answers) is left
 * running at shutdown: SIGTERM ends the daemon cleanly, and the hook
 * goes on in its own process group.
 */
Test(service, a_hook_that_hangs_does_not_hold_a_shutdown)
{
	pid_t hook = svc_hook_sleeping("svc-hookhang", NULL);
	int rc, alive;

	rc = tst_daemon_stop(&svc.td, SIGTERM);
	alive = kill(hook, 0) == 0;
	kill(-hook, SIGKILL);
	cr_assert_eq(rc, 0, "bisectd did not end cleanly on SIGTERM (%d)", rc);
	cr_assert(alive, "the hook was not left running");
}

/*
 * report_hook_timeout from the configuration, against the real daemon: a
 * hook still running at its deadline is killed, and the daemon says so.
 */
Test(service, a_hook_past_report_hook_timeout_is_killed)
{
	pid_t hook = svc_hook_sleeping("svc-hookdeadline", "1s");
	int i, killed;

	/* A report not delivered is an error, not a warning. */
	killed = tst_daemon_log_wait(&svc.td, "bisectd.log",
	    "[error] report hook (pid");
	for (i = 0; i < SVC_WAIT_MS / 50 && !tst_process_ended(hook); i++)
		usleep(50 * 1000);
	if (i == SVC_WAIT_MS / 50)
		kill(-hook, SIGKILL);
	cr_assert(killed, "the daemon did not log the deadline");
	cr_assert_lt(i, SVC_WAIT_MS / 50, "the hook outlived its deadline");
}

Test(service, survives_kill_9_at_random_moments)
{
	json_t *b;
	int64_t id;
	int round;
	unsigned seed = (unsigned)getpid();

	svc_setup("svc-kill", 2, "3:2", 0);
	id = svc_bisect("runtime_ms", NULL);
	for (round = 0; round < 3; round++) {
		usleep((useconds_t)(300 + rand_r(&seed) % 1500) * 1000);
		cr_assert_neq(tst_daemon_stop(&svc.td, SIGKILL), -1);
		cr_assert_eq(tst_daemon_start(&svc.td), 0,
		    "bisectd did not restart after kill -9");
	}
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
	svc_assert_samples_consistent(id);
}

Test(service, a_host_dies_mid_run)
{
	json_t *b;
	int64_t id;
	int waited;

	svc_setup("svc-hostdown", 2, "2:5", 0);
	id = svc_bisect("ops_per_sec", NULL);
	/* Wait until host h0 has work, then take it away. */
	for (waited = 0; waited < SVC_WAIT_MS; waited += 50) {
		json_t *h = svc_host("h0");
		int busy = h != NULL && json_is_object(json_object_get(h,
		    "current"));

		json_decref(h);
		if (busy)
			break;
		usleep(50 * 1000);
	}
	sshd_stop(&svc.host[0]);
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
	svc_assert_samples_consistent(id);
}

Test(service, unbuildable_commits_are_skipped)
{
	json_t *b, *r, *s;
	int64_t id;
	size_t i;

	svc_setup("svc-skip", 2, "1:6", 3);
	id = svc_bisect("ops_per_sec", NULL);
	b = svc_wait(id);
	/* The culprit's parents build, so git's notion still isolates it. */
	svc_assert_culprit(b);
	json_decref(b);
	r = svc_req("{\"cmd\":\"samples\",\"bisection\":%lld}", (long long)id);
	json_array_foreach(json_object_get(r, "samples"), i, s)
		cr_assert(json_is_number(json_object_get(s, "value")));
	json_decref(r);
}

Test(service, cancel_stops_the_work)
{
	json_t *b, *r;
	int64_t id;
	int waited;

	svc_setup("svc-cancel", 1, "2:3", 0);
	id = svc_bisect("ops_per_sec", NULL);
	for (waited = 0; waited < SVC_WAIT_MS; waited += 50) {
		b = svc_status(id);
		if (json_array_size(json_object_get(b, "in_flight")) > 0) {
			/* A running bisection says whether the machine drifted. */
			r = json_object_get(b, "drift");
			cr_assert(json_is_null(r) || (json_is_number(r) &&
			    json_number_value(r) >= 0), "drift in status");
			/* And whether the change is confirmed, with its evidence. */
			cr_assert(json_is_boolean(json_object_get(b,
			    "change_confirmed")), "change_confirmed in status");
			cr_assert(json_is_number(json_object_get(b,
			    "change_log10_bf")), "change_log10_bf in status");
			json_decref(b);
			break;
		}
		json_decref(b);
		usleep(50 * 1000);
	}
	r = svc_req("{\"cmd\":\"cancel\",\"bisection\":%lld}", (long long)id);
	cr_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	b = svc_wait(id);
	cr_assert_str_eq(json_string_value(json_object_get(b, "state")),
	    "cancelled");
	json_decref(b);
	svc_wait_quiet(id);
	r = svc_req("{\"cmd\":\"cancel\",\"bisection\":%lld}", (long long)id);
	cr_assert_not(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
}

/*
 * A cancel that arrives while the bisection's graph is still loading wins:
 * the bisection starts no run when the load completes.  A sentinel
 * bisection started afterwards runs to its end first, long after the
 * cancelled ones finished loading.
 */
Test(service, cancel_while_loading_starts_no_run)
{
	int64_t ids[4], sentinel;
	json_t *b, *r;
	size_t i;

	svc_setup("svc-cancel-load", 1, "2:3", 0);
	for (i = 0; i < 4; i++) {
		ids[i] = svc_bisect_range(svc.good, svc.bad, i % 2 ?
		    "runtime_ms" : "ops_per_sec", NULL);
		if (i > 0)
			cr_assert_neq(ids[i], ids[i - 1]);
		r = svc_req("{\"cmd\":\"cancel\",\"bisection\":%lld}",
		    (long long)ids[i]);
		cr_assert(json_is_true(json_object_get(r, "ok")));
		json_decref(r);
	}
	sentinel = svc_bisect("ops_per_sec", NULL);
	b = svc_wait(sentinel);
	svc_assert_culprit(b);
	json_decref(b);
	for (i = 0; i < 4; i++) {
		b = svc_status(ids[i]);
		cr_expect_str_eq(json_string_value(json_object_get(b, "state")),
		    "cancelled");
		cr_expect_eq(json_integer_value(json_object_get(b, "samples")),
		    0, "cancelled bisection %lld took samples",
		    (long long)ids[i]);
		cr_expect_eq(json_integer_value(json_object_get(json_object_get(
		    b, "runs"), "queued")), 0, "bisection %lld left queued runs",
		    (long long)ids[i]);
		json_decref(b);
	}
}

Test(service, two_bisections_share_one_group)
{
	json_t *b1, *b2;
	int64_t id1, id2;

	svc_setup("svc-two", 2, "4:2", 0);
	id1 = svc_bisect("ops_per_sec", NULL);
	id2 = svc_bisect("runtime_ms", NULL);
	cr_assert_neq(id1, id2);
	b1 = svc_wait(id1);
	b2 = svc_wait(id2);
	svc_assert_culprit(b1);
	svc_assert_culprit(b2);
	json_decref(b1);
	json_decref(b2);
	svc_assert_ended_quietly();
}

Test(service, bad_requests_change_nothing)
{
	static const struct {
		const char *req;
		const char *code;
	} cases[] = {
		{ "{\"cmd\":\"bisect\",\"good\":[\"nosuchrev\"],\"bad\":\"HEAD\","
		  "\"benchmark\":\"spin\",\"metric\":\"ops_per_sec\","
		  "\"group\":\"lab\"}", "not-found" },
		{ "{\"cmd\":\"bisect\",\"good\":[\"HEAD~1\"],\"bad\":\"HEAD\","
		  "\"benchmark\":\"nope\",\"metric\":\"ops_per_sec\"}",
		  "not-found" },
		{ "{\"cmd\":\"bisect\",\"good\":[\"HEAD~1\"],\"bad\":\"HEAD\","
		  "\"benchmark\":\"spin\",\"metric\":\"nope\",\"group\":\"lab\"}",
		  "not-found" },
		{ "{\"cmd\":\"bisect\",\"good\":[\"HEAD~1\"],\"bad\":\"HEAD\","
		  "\"benchmark\":\"spin\",\"metric\":\"ops_per_sec\","
		  "\"group\":\"nogroup\"}", "invalid-argument" },
		{ "{\"cmd\":\"bisect\",\"good\":[\"HEAD\"],\"bad\":\"HEAD\","
		  "\"benchmark\":\"spin\",\"metric\":\"ops_per_sec\","
		  "\"group\":\"lab\"}", "invalid-argument" },
		{ "{\"cmd\":\"bisect\",\"good\":[],\"bad\":\"HEAD\","
		  "\"benchmark\":\"spin\",\"metric\":\"ops_per_sec\"}",
		  "invalid-argument" },
		{ "{\"cmd\":\"bisect\",\"good\":[\"HEAD~1\"],\"bad\":\"HEAD\","
		  "\"benchmark\":\"spin\",\"metric\":\"ops_per_sec\","
		  "\"group\":\"lab\",\"confidence\":1.5}", "invalid-argument" },
		{ "{\"cmd\":\"status\",\"bisection\":999}", "not-found" },
		{ "{\"cmd\":\"drain\",\"host\":\"nohost\"}", "not-found" },
	};
	static const char *const regex_revs[][2] = {
		{ ":/c1", "HEAD" }, { "HEAD~1", "HEAD^{/c}" },
		{ "HEAD@{1}", "HEAD" }, { "HEAD~3", "HEAD~1..HEAD" },
	};
	json_t *r;
	size_t i;

	svc_setup("svc-bad", 1, "2:3", 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = svc_req("%s", cases[i].req);
		cr_assert_not(json_is_true(json_object_get(r, "ok")), "%s",
		    cases[i].req);
		cr_assert_str_eq(tst_daemon_error_code(r), cases[i].code,
		    "%s", cases[i].req);
		json_decref(r);
	}
	/* History searches and reflogs never reach libgit2's parser. */
	for (i = 0; i < sizeof(regex_revs) / sizeof(regex_revs[0]); i++) {
		r = svc_req("{\"cmd\":\"bisect\",\"good\":[\"%s\"],"
		    "\"bad\":\"%s\",\"benchmark\":\"spin\",\"metric\":"
		    "\"ops_per_sec\",\"group\":\"lab\"}", regex_revs[i][0],
		    regex_revs[i][1]);
		cr_assert_str_eq(tst_daemon_error_code(r), "invalid-argument",
		    "%s %s", regex_revs[i][0], regex_revs[i][1]);
		cr_assert_not_null(strstr(json_string_value(json_object_get(
		    json_object_get(r, "error"), "message")), "ref names, full "
		    "or abbreviated hex ids"));
		json_decref(r);
	}
	r = svc_req("{\"cmd\":\"list\"}");
	cr_assert_eq(json_array_size(json_object_get(r, "bisections")), 0);
	json_decref(r);
}

/*
 * Ancestry is checked off the loop, before anything is stored (issue 35
 * item 18): a good that descends from bad is refused, naming both, and
 * no bisection is left behind.
 */
Test(service, reversed_range_is_refused_naming_both)
{
	const char *msg;
	char bad12[13];
	json_t *r;

	svc_setup("svc-reversed", 1, "2:3", 0);
	r = svc_req("{\"cmd\":\"bisect\",\"good\":[\"%s\"],\"bad\":\"%s\","
	    "\"benchmark\":\"spin\",\"metric\":\"ops_per_sec\","
	    "\"group\":\"lab\"}", svc.bad, svc.good);
	cr_assert_str_eq(tst_daemon_error_code(r), "invalid-argument");
	msg = json_string_value(json_object_get(json_object_get(r, "error"),
	    "message"));
	cr_assert_not_null(strstr(msg, "nothing to bisect"), "%s", msg);
	cr_assert_not_null(strstr(msg, svc.bad), "%s", msg);
	cr_assert_not_null(strstr(msg, svc.good), "%s", msg);
	snprintf(bad12, sizeof(bad12), "(%.10s", svc.good);
	cr_assert_not_null(strstr(msg, bad12), "bad's own sha: %s", msg);
	json_decref(r);
	r = svc_req("{\"cmd\":\"list\"}");
	cr_assert_eq(json_array_size(json_object_get(r, "bisections")), 0);
	json_decref(r);
}


/* Waits (bounded) until the host's first probe has brought it up. */
static void
svc_wait_host_up(const char *name)
{
	int i;

	for (i = 0; i < SVC_WAIT_MS / 50; i++) {
		if (strcmp(svc_host_state(name), "up") == 0)
			return;
		usleep(50 * 1000);
	}
	cr_assert_fail("host %s never came up", name);
}

/* Drain shows in hosts and in the event stream; undrain brings it back. */
Test(service, drain_undrain_and_watch)
{
	json_t *r;
	char *line;
	int fd;

	svc_setup("svc-drain", 2, "2:3", 0);
	svc_wait_host_up("h0");
	cr_assert_geq(fd = tst_daemon_connect(&svc.td), 0);
	line = tst_daemon_rpc(fd, "{\"cmd\":\"watch\"}");
	cr_assert_not_null(line);
	cr_assert_not_null(strstr(line, "\"watching\":true"), "%s", line);
	free(line);
	r = svc_req("{\"cmd\":\"drain\",\"host\":\"h0\"}");
	cr_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	cr_assert_str_eq(svc_host_state("h0"), "draining");
	line = tst_daemon_read_line(fd);
	cr_assert_not_null(line, "no event after drain");
	cr_assert_not_null(strstr(line, "\"event\":\"host\""), "%s", line);
	cr_assert_not_null(strstr(line, "\"host\":\"h0\""), "%s", line);
	free(line);
	close(fd);
	/* Issue 35 item 18: a second drain is a conflict. */
	r = svc_req("{\"cmd\":\"drain\",\"host\":\"h0\"}");
	cr_assert_str_eq(tst_daemon_error_code(r), "conflict");
	json_decref(r);
	/* ... and undrain of a connected host answers up, not down. */
	r = svc_req("{\"cmd\":\"undrain\",\"host\":\"h0\"}");
	cr_assert(json_is_true(json_object_get(r, "ok")));
	cr_assert_str_eq(json_string_value(json_object_get(r, "state")), "up");
	json_decref(r);
	cr_assert_str_eq(svc_host_state("h0"), "up");
}

/* Runs git in the fixture repository; returns its stdout (caller frees). */
static char *
svc_git(const char *a1, const char *a2, const char *a3, const char *a4)
{
	char *argv[] = { "git", "-C", svc.repo, (char *)a1, (char *)a2,
	    (char *)a3, (char *)a4, NULL };
	char *out;
	int st;

	out = tst_run_capture(argv, &st);
	cr_assert_not_null(out);
	cr_assert_eq(st, 0, "git %s %s failed: %s", a1, a2 ? a2 : "", out);
	return out;
}

/*
 * linux-next style: the good revision is not an ancestor of bad (its tag
 * was rebuilt), so good samples run at the merge base, as git tests first.
 */
Test(service, good_that_is_not_an_ancestor_uses_the_merge_base)
{
	json_t *b, *r, *line;
	char *out, side[41];
	int64_t id;
	size_t i;
	int logged_base = 0;

	svc_setup("svc-next", 2, "3:4", 0);
	free(svc_git("checkout", "-q", "-b", "old-next"));
	free(svc_git("reset", "-q", "--hard", svc.good));
	free(svc_git("commit", "--allow-empty", "-m", "next-20231113 only"));
	out = svc_git("rev-parse", "HEAD", NULL, NULL);
	memcpy(side, out, 40);
	side[40] = '\0';
	free(out);
	free(svc_git("checkout", "-q", "master", NULL));
	id = svc_bisect_range(side, svc.bad, "ops_per_sec", NULL);
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
	r = svc_req("{\"cmd\":\"log\",\"bisection\":%lld}", (long long)id);
	json_array_foreach(json_object_get(r, "lines"), i, line)
		if (strstr(json_string_value(line), "git bisect good ") &&
		    strstr(json_string_value(line), svc.good))
			logged_base = 1;
	cr_assert(logged_base, "the merge base is logged as good");
	json_decref(r);
}

/* The daemon logs before it replies: its log can be read right after. */
static int
svc_log_has(const char *text)
{
	char *log = tst_read_file(svc.td.log);
	int has;

	cr_assert_not_null(log);
	has = strstr(log, text) != NULL;
	free(log);
	return has;
}

/* Polls for a file (a guard against hangs, not a timing check). */
static void
svc_wait_file(const char *path)
{
	int waited;

	for (waited = 0; waited < SVC_WAIT_MS; waited += 100) {
		if (access(path, F_OK) == 0)
			return;
		usleep(100 * 1000);
	}
	cr_assert_fail("%s never appeared", path);
}

/*
 * A configuration replaced while a run is in flight stays until that run
 * ends, then it is freed: the run's benchmark waits for a file, so the
 * reload certainly finds it running.
 */
Test(service, replaced_configuration_is_freed_when_its_last_run_ends)
{
	char *extra, *sections, *started, *go;
	json_t *r, *b;
	int64_t id;

	svc_setup("svc-retire", 1, "2:3", 0);
	xasprintf(&started, "%s/started", svc.dir);
	xasprintf(&go, "%s/go", svc.dir);
	xasprintf(&extra, "\n[benchmark hold]\nrun = touch %s; while [ ! -e "
	    "%s ]; do sleep 0.1; done; echo '{\"t\": 1}'\nmetrics = t:higher\n",
	    started, go);
	sections = svc_sections(extra);
	cr_assert_eq(tst_daemon_write_config(&svc.td, NULL, sections), 0);
	free(sections);
	r = svc_req("{\"cmd\":\"reload\"}");
	cr_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	cr_assert(!svc_log_has("replaced configuration kept"),
	    "nothing ran: nothing is kept");

	r = svc_req("{\"cmd\":\"bisect\",\"good\":[\"%s\"],\"bad\":\"%s\","
	    "\"benchmark\":\"hold\",\"metric\":\"t\",\"group\":\"lab\"}",
	    svc.good, svc.bad);
	cr_assert(json_is_true(json_object_get(r, "ok")));
	id = json_integer_value(json_object_get(r, "bisection"));
	json_decref(r);
	svc_wait_file(started);

	sections = svc_sections("install_timeout = 5m\n");
	cr_assert_eq(tst_daemon_write_config(&svc.td, NULL, sections), 0);
	free(sections);
	r = svc_req("{\"cmd\":\"reload\"}");
	cr_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	cr_assert(svc_log_has("reload: 1 replaced configuration kept"));
	cr_assert(!svc_log_has("a replaced configuration was freed"),
	    "freed under a running run");

	free(go);
	cr_assert_not_null(go = tst_write_file(svc.dir, "go", ""));
	b = svc_wait(id);
	json_decref(b);
	cr_assert(tst_daemon_log_wait(&svc.td, "bisectd.log",
	    "a replaced configuration was freed (0 still kept)"));
	/* ASan's leak check at exit makes a kept configuration fail here. */
	cr_assert_eq(tst_daemon_stop(&svc.td, SIGTERM), 0, "bisectd exit");
	free(started);
	free(go);
	free(extra);
}
