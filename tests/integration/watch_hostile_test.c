/* SPDX-License-Identifier: MIT */
/*
 * The mirror against hostile upstreams (issue 35, items 1 to 4): a
 * listener of the test's own that accepts and never answers, a ref name
 * of more than 1 KiB, credentials in the url, and ref names that are not
 * UTF-8 or carry bidi controls.  The real daemon; the real `git daemon`
 * of the wtest fixture where an upstream must serve.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/fakesrv.h"
#include "tests/support/tst.h"
#include "tests/support/wtest.h"

static int	stall_fd = -1;

/* Closes the listener too: a test that failed leaves nothing behind. */
static void
hostile_fini(void)
{
	if (stall_fd >= 0)
		close(stall_fd);
	stall_fd = -1;
	wt_fini();
}

TestSuite(watch_hostile, .fini = hostile_fini, .timeout = 300);

/*
 * A listener on 127.0.0.1 that never accepts: the kernel completes every
 * connection and nothing is ever read or written.  Returns its port.
 */
static int
stall_listen(void)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	stall_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(stall_fd, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(stall_fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(stall_fd, 64), 0);
	cr_assert_eq(getsockname(stall_fd, (struct sockaddr *)&sa, &len), 0);
	return ntohs(sa.sin_port);
}

/* An empty bare mirror, so the daemon's first fetch is libgit2's. */
static void
empty_mirror(void)
{
	cr_assert_eq(wt_git("init", "-q", "--bare", wt.mirror, NULL), 0);
}

/* Polls `repo` until a fetch runs; returns once it does. */
static void
wait_fetching(void)
{
	json_t *r;
	int i, on = 0;

	for (i = 0; i < 600 && !on; i++) {
		r = wt_req("{\"cmd\":\"repo\"}");
		on = json_is_true(json_object_get(json_object_get(r, "repo"),
		    "fetching"));
		json_decref(r);
		if (!on)
			usleep(100 * 1000);
	}
	cr_assert(on, "no fetch started");
}

Test(watch_hostile, a_stalled_upstream_ends_at_fetch_timeout)
{
	char *keys;
	json_t *r, *repo;
	const char *msg;

	wt_setup("hostile-stall");
	empty_mirror();
	xasprintf(&keys, "url = git://127.0.0.1:%d/next.git\n"
	    "fetch_timeout = 2s\n", stall_listen());
	wt_start(keys);
	free(keys);
	/* Joins the first fetch, which the listener holds. */
	r = wt_req("{\"cmd\":\"fetch\",\"wait\":true}");
	cr_assert(json_is_false(json_object_get(r, "ok")),
	    "a fetch from a stalled upstream succeeded");
	msg = json_string_value(json_object_get(json_object_get(r, "error"),
	    "message"));
	cr_assert(msg != NULL && strstr(msg, "fetch_timeout") != NULL,
	    "not a timeout: %s", msg ? msg : "(none)");
	json_decref(r);
	r = wt_req("{\"cmd\":\"repo\"}");
	repo = json_object_get(r, "repo");
	cr_assert(json_is_false(json_object_get(repo, "fetching")),
	    "the fetch still runs after its timeout");
	json_decref(r);
}

Test(watch_hostile, sigterm_ends_the_daemon_while_the_upstream_stalls)
{
	char *keys, *path, *log;
	int rc;

	wt_setup("hostile-term");
	empty_mirror();
	/* fetch_timeout is its default, an hour. */
	xasprintf(&keys, "url = git://127.0.0.1:%d/next.git\n",
	    stall_listen());
	wt_start(keys);
	free(keys);
	wait_fetching();
	/* The listener stays: only the daemon's own cancel can end it. */
	rc = tst_daemon_stop(&wt.td, SIGTERM);
	xasprintf(&path, "%s/bisectd.log", wt.td.dir);
	log = tst_read_file(path);
	/* 0: also no leak (LeakSanitizer's status is 1). */
	cr_assert_eq(rc, 0, "bisectd did not exit cleanly on SIGTERM "
	    "while a fetch stalled (%d): %s", rc, log);
	cr_assert_not_null(strstr(log, "bisectd stopped"), "%s", log);
	free(log);
	free(path);
}

/* Polls `repo` until a fetch has ended; the state. */
static json_t *
wait_fetched(void)
{
	json_t *r;
	int i;

	for (i = 0; i < 1200; i++, usleep(100 * 1000)) {
		r = wt_req("{\"cmd\":\"repo\"}");
		if (json_is_object(json_object_get(json_object_get(r,
		    "repo"), "last_fetch")))
			return r;
		json_decref(r);
	}
	cr_assert_fail("no fetch ended");
	return NULL;
}

/*
 * Puts refs (up to two, NULL ends) on master into the upstream, starts
 * the daemon on it and waits for the first fetch; its `repo` state, after
 * checking that the fetch succeeded.
 */
static json_t *
start_with_refs(const char *ref1, const char *ref2)
{
	char *srv, *url, *keys;
	json_t *r, *last;

	xasprintf(&srv, "%s/srv/next.git", wt.dir);
	cr_assert_eq(wt_git("-C", srv, "update-ref", ref1, "master"), 0);
	if (ref2 != NULL)
		cr_assert_eq(wt_git("-C", srv, "update-ref", ref2, "master"),
		    0);
	free(srv);
	url = wt_url(NULL);
	xasprintf(&keys, "url = %s\n", url);
	free(url);
	wt_start(keys);
	free(keys);
	r = wait_fetched();
	last = json_object_get(json_object_get(r, "repo"), "last_fetch");
	cr_assert(json_is_true(json_object_get(last, "ok")),
	    "a ref name stopped the fetch: %s", json_dumps(last, 0));
	return r;
}

Test(watch_hostile, a_ref_name_of_1kib_is_skipped_and_the_rest_fetched)
{
	char long_ref[1200], *master, *n1;
	json_t *r, *repo;
	size_t o;
	int i;

	wt_setup("hostile-long");
	o = (size_t)snprintf(long_ref, sizeof(long_ref), "refs/tags/long");
	for (i = 0; i < 10; i++)
		o += (size_t)snprintf(long_ref + o, sizeof(long_ref) - o,
		    "/%0100d", i);
	/* After the push of upstream.sh, which prunes what it did not make. */
	master = wt_up("tag", "next-0", NULL, NULL);
	free(master);
	r = start_with_refs(long_ref, NULL);
	repo = json_object_get(r, "repo");
	cr_assert_not_null(wt_ref_id(repo, "refs/tags/next-0"));
	cr_assert_eq(json_array_size(json_object_get(repo, "skipped_refs")),
	    1, "%s", json_dumps(repo, 0));
	json_decref(r);
	cr_assert(tst_daemon_log_wait(&wt.td, "bisectd.log",
	    "ref left out: refs/tags/long/"));

	/* Later tags arrive while the long one stays upstream. */
	n1 = wt_up("tag", "next-1", NULL, NULL);
	r = wt_req("{\"cmd\":\"fetch\",\"wait\":true}");
	cr_assert(json_is_true(json_object_get(r, "ok")), "%s",
	    json_dumps(r, 0));
	json_decref(r);
	json_decref(wt_wait_ref("refs/tags/next-1", n1));
	cr_assert_eq(wt_count_events("refs/tags/next-1", "appeared", n1), 1);
	free(n1);
}

/* Fails when text holds the password (as written or decoded) or the user. */
static void
no_secret(const char *where, const char *text)
{
	cr_assert(text != NULL, "%s: nothing read", where);
	cr_assert(strstr(text, "s3cr3t") == NULL &&
	    strstr(text, "alice") == NULL,
	    "%s shows the credentials: %s", where, text);
}

Test(watch_hostile, credentials_in_the_url_show_nowhere)
{
	char *keys, *path, *log, *line, *reply;
	const char *msg;
	json_t *r, *ev;
	int fd, status, failed = 0, port = tst_free_port();

	wt_setup("hostile-cred");
	/* Nothing listens there: every fetch fails, naming the upstream. */
	xasprintf(&keys, "url = http://alice:s3cr3t%%54oken@127.0.0.1:%d/x.git"
	    "\n", port);
	wt_start(keys);
	free(keys);
	fd = tst_daemon_connect(&wt.td);
	cr_assert_geq(fd, 0);
	reply = tst_daemon_rpc(fd, "{\"cmd\":\"watch\"}");
	no_secret("the watch reply", reply);
	free(reply);

	r = wt_req("{\"cmd\":\"fetch\",\"wait\":true}");
	cr_assert(json_is_false(json_object_get(r, "ok")));
	msg = json_string_value(json_object_get(json_object_get(r, "error"),
	    "message"));
	cr_assert(msg != NULL && strstr(msg, "127.0.0.1") != NULL,
	    "the error does not name the upstream: %s", json_dumps(r, 0));
	reply = json_dumps(r, 0);
	no_secret("fetch --wait", reply);
	free(reply);
	json_decref(r);

	while (!failed && (line = tst_daemon_read_line(fd)) != NULL) {
		no_secret("a watch event", line);
		ev = tst_daemon_reply(line);
		failed = ev != NULL && strcmp(json_string_value(
		    json_object_get(ev, "phase")) ?: "", "failed") == 0;
		json_decref(ev);
	}
	close(fd);
	cr_assert(failed, "no failed fetch event");

	r = wt_req("{\"cmd\":\"repo\",\"since\":0}");
	reply = json_dumps(r, 0);
	cr_assert_not_null(strstr(reply, "\"error\""), "%s", reply);
	no_secret("repo", reply);
	free(reply);
	json_decref(r);
	r = wt_req("{\"cmd\":\"config\"}");
	reply = json_dumps(r, 0);
	no_secret("config", reply);
	free(reply);
	json_decref(r);

	/* 0: every fetch's memory went back too (LeakSanitizer says 1). */
	status = tst_daemon_stop(&wt.td, SIGTERM);
	cr_assert_eq(status, 0, "%d", status);
	xasprintf(&path, "%s/bisectd.log", wt.td.dir);
	log = tst_read_file(path);
	cr_assert(log != NULL && strstr(log, "failed") != NULL,
	    "the log has no failed fetch: %s", log ? log : "(none)");
	no_secret("the log", log);
	free(log);
	free(path);
}

/* The escaped name `repo` gives a ref whose name is not UTF-8. */
#define LATIN1_REF	"refs/tags/caf\xe9"
#define LATIN1_SHOWN	"refs/tags/caf\\xe9"
/* U+202E RIGHT-TO-LEFT OVERRIDE in a ref name. */
#define BIDI_REF	"refs/tags/next-\xe2\x80\xae" "1202"

Test(watch_hostile, refs_that_are_not_utf8_or_hold_bidi_controls_show_safely)
{
	const char *args[] = { "repo", NULL };
	char *out, *err;
	json_t *r, *repo;
	int status;

	wt_setup("hostile-utf8");
	r = start_with_refs(LATIN1_REF, BIDI_REF);
	repo = json_object_get(r, "repo");
	cr_assert_not_null(wt_ref_id(repo, LATIN1_SHOWN),
	    "repo does not show %s: %s", LATIN1_SHOWN, json_dumps(repo, 0));
	cr_assert_not_null(wt_ref_id(repo, BIDI_REF));
	cr_assert_eq(wt_count_events(LATIN1_SHOWN, "appeared", NULL), 1);
	json_decref(r);

	out = fakesrv_ctl(wt.td.sock, args, 0, &status, &err);
	cr_assert_not_null(out);
	cr_assert_eq(status, 0, "bisectctl repo: %s", err);
	cr_assert_not_null(strstr(out, "caf\\xe9"), "%s", out);
	cr_assert_null(strstr(out, "\xe2\x80\xae"),
	    "U+202E reached the terminal: %s", out);
	cr_assert_not_null(strstr(out, "1202"), "%s", out);
	free(out);
	free(err);
}

/* A sweep needs a benchmark and a group that builds and tests. */
#define SWEEP_SECTIONS \
	"[host a]\naddress = 127.0.0.1\nport = 1\nuser = u\n" \
	"identity = id\nknown_hosts = kh\n" \
	"[benchmark b]\nrun = ./run\nmetrics = tput:higher\n" \
	"[sweep s]\nbenchmark = b\ngroup = default\ntag_pattern = next-*\n"

/* Whether `sweep s` has a row for ref. */
static int
sweep_has(const json_t *r, const char *ref)
{
	const json_t *v;
	size_t i;

	json_array_foreach(json_object_get(r, "refs"), i, v)
		if (strcmp(json_string_value(json_object_get(v, "ref")) ?: "",
		    ref) == 0)
			return 1;
	return 0;
}

Test(watch_hostile, a_sweep_shows_a_tag_whose_name_is_not_utf8)
{
	const char *args[] = { "sweep", "s", NULL };
	char *url, *keys, *srv, *base, *out, *err;
	json_t *r = NULL;
	int i, status, found = 0;

	wt_setup("hostile-sweep");
	base = wt_up("tag", "next-0", NULL, NULL);
	url = wt_url(NULL);
	xasprintf(&keys, "url = %s\nwatch_refs = refs/tags/next-*\n"
	    SWEEP_SECTIONS, url);
	free(url);
	wt_start(keys);
	free(keys);
	json_decref(wt_wait_ref("refs/tags/next-0", base));
	free(base);
	xasprintf(&srv, "%s/srv/next.git", wt.dir);
	cr_assert_eq(wt_git("-C", srv, "update-ref", "refs/tags/next-1-caf\xe9",
	    "master"), 0);
	free(srv);
	r = wt_req("{\"cmd\":\"fetch\",\"wait\":true}");
	cr_assert(json_is_true(json_object_get(r, "ok")), "%s",
	    json_dumps(r, 0));
	json_decref(r);
	for (i = 0; i < 300 && !found; i++) {
		r = wt_req("{\"cmd\":\"sweep\",\"name\":\"s\"}");
		cr_assert(json_is_true(json_object_get(r, "ok")), "%s",
		    json_dumps(r, 0));
		found = sweep_has(r, "refs/tags/next-1-caf\\xe9");
		if (!found) {
			json_decref(r);
			r = NULL;
			usleep(100 * 1000);
		}
	}
	cr_assert(found, "sweep s has no row for the tag");
	json_decref(r);
	out = fakesrv_ctl(wt.td.sock, args, 0, &status, &err);
	cr_assert_not_null(out);
	cr_assert_eq(status, 0, "bisectctl sweep s: %s", err);
	cr_assert_not_null(strstr(out, "next-1-caf\\xe9"), "%s", out);
	free(out);
	free(err);
}
