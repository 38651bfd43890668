/* SPDX-License-Identifier: MIT */
/*
 * The smaller control-socket defects of issue 35 item 18, against the
 * real daemon with an sshd host: `list` is oldest first whatever the
 * priorities, a missing or impossible bisection id reads plainly, and a
 * backup into a missing directory is the request's fault.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(ctl_small, .fini = svc_fini, .timeout = 600);

/* The error message of a reply (borrowed from r). */
static const char *
small_message(const json_t *r)
{
	return json_string_value(json_object_get(json_object_get(r, "error"),
	    "message"));
}

/* Issue 35 item 18: list is oldest first, not by priority. */
Test(ctl_small, list_is_oldest_first)
{
	static const int prio[] = { -5, 10, 0 };
	int64_t ids[3];
	json_t *r, *list;
	size_t i;

	svc_setup("small-list", 1, "2:3", 0);
	for (i = 0; i < 3; i++) {
		r = svc_req("{\"cmd\":\"bisect\",\"good\":[\"%s\"],\"bad\":"
		    "\"%s\",\"benchmark\":\"spin\",\"metric\":\"runtime_ms\","
		    "\"group\":\"lab\",\"confidence\":0.9%zu,\"priority\":%d}",
		    svc.good, svc.bad, i, prio[i]);
		cr_assert(json_is_true(json_object_get(r, "ok")), "%s",
		    small_message(r));
		ids[i] = json_integer_value(json_object_get(r, "bisection"));
		json_decref(r);
	}
	r = svc_req("{\"cmd\":\"list\"}");
	list = json_object_get(r, "bisections");
	cr_assert_eq(json_array_size(list), 3);
	for (i = 0; i < 3; i++)
		cr_expect_eq(json_integer_value(json_object_get(
		    json_array_get(list, i), "id")), ids[i], "row %zu", i);
	json_decref(r);
}

/* Issue 35 item 18: a bisection that is not there says so plainly. */
Test(ctl_small, missing_bisections_read_plainly)
{
	static const char *const cmds[] = { "status", "cancel", "log",
	    "samples" };
	json_t *r;
	size_t i;

	svc_setup("small-missing", 1, "2:3", 0);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		r = svc_req("{\"cmd\":\"%s\",\"bisection\":77}", cmds[i]);
		cr_assert_str_eq(tst_daemon_error_code(r), "not-found", "%s",
		    cmds[i]);
		cr_expect_str_eq(small_message(r), "no bisection 77", "%s",
		    cmds[i]);
		json_decref(r);
		r = svc_req("{\"cmd\":\"%s\",\"bisection\":-1}", cmds[i]);
		cr_assert_str_eq(tst_daemon_error_code(r), "invalid-argument",
		    "%s", cmds[i]);
		cr_expect_str_eq(small_message(r), "bisection: ids start at 1, "
		    "not -1", "%s", cmds[i]);
		json_decref(r);
	}
}

/* Issue 35 item 18: a backup into a missing directory is not `internal`. */
Test(ctl_small, backup_into_a_missing_directory_is_invalid)
{
	json_t *r;

	svc_setup("small-backup", 1, "2:3", 0);
	r = svc_req("{\"cmd\":\"backup\",\"path\":\"%s/no/such/dir/b.db\"}",
	    svc.dir);
	cr_assert_str_eq(tst_daemon_error_code(r), "invalid-argument", "%s",
	    small_message(r));
	cr_assert_not_null(strstr(small_message(r), "No such file"), "%s",
	    small_message(r));
	json_decref(r);
}

/*
 * Issue 38: a request's own "id" is never taken for a bisection id, an
 * unknown field is refused, and the daemon keeps the table's limits.
 */
Test(ctl_small, unknown_fields_are_refused_and_limits_kept)
{
	json_t *r;

	svc_setup("small-fields", 1, "2:3", 0);
	r = svc_req("{\"cmd\":\"status\",\"id\":\"4\"}");
	cr_assert(json_is_true(json_object_get(r, "ok")), "%s",
	    small_message(r));
	cr_expect_str_eq(json_string_value(json_object_get(r, "id")), "4",
	    "the request's id comes back as sent");
	json_decref(r);
	r = svc_req("{\"cmd\":\"status\",\"bisecton\":4}");
	cr_assert_str_eq(tst_daemon_error_code(r), "invalid-argument");
	cr_expect_str_eq(small_message(r), "status: unknown field bisecton");
	json_decref(r);
	r = svc_req("{\"cmd\":\"bisect\",\"good\":[\"%s\"],\"bad\":\"%s\","
	    "\"benchmark\":\"spin\",\"metric\":\"runtime_ms\",\"group\":"
	    "\"lab\",\"max_samples\":3}", svc.good, svc.bad);
	cr_assert_str_eq(tst_daemon_error_code(r), "invalid-argument");
	cr_expect_str_eq(small_message(r), "max_samples: must be between 6 "
	    "and 1000000");
	json_decref(r);
}

/* Occurrences of text in the daemon's log so far. */
static int
small_log_count(const char *text)
{
	char *log = tst_read_file(svc.td.log), *p;
	int n = 0;

	cr_assert_not_null(log);
	for (p = log; (p = strstr(p, text)) != NULL; p += strlen(text))
		n++;
	free(log);
	return n;
}

/* Waits for text in the daemon's log; the log is shown when it never comes. */
static void
small_log_wait(const char *text)
{
	char *log;

	if (tst_daemon_log_wait(&svc.td, "bisectd.log", text))
		return;
	log = tst_read_file(svc.td.log);
	cr_log_error("bisectd.log:\n%s", log ? log : "(none)");
	free(log);
	cr_assert_fail("the log lacks \"%s\"", text);
}

/* Waits for host h0 to be in state; the hosts entry (caller frees). */
static json_t *
small_host_state(const char *state)
{
	json_t *h = NULL;
	int waited;

	for (waited = 0; waited < SVC_WAIT_MS; waited += 100) {
		json_decref(h);
		h = svc_host("h0");
		if (strcmp(json_string_value(json_object_get(h, "state")),
		    state) == 0)
			return h;
		usleep(100 * 1000);
	}
	cr_assert_fail("h0 never became %s", state);
	return NULL;
}

/*
 * Issue 38: each host transition is logged once, and the last error is
 * dated while the host is down and cleared when it is up again.  The
 * host's sshd is stopped, a bisection finds it down, and the health
 * probes bring it back once sshd runs again.
 */
Test(ctl_small, host_transitions_are_logged_once)
{
	json_t *h, *r;

	svc_setup("small-hostlog", 1, "2:3", 0);
	json_decref(small_host_state("up"));
	small_log_wait("host h0: up");
	sshd_stop(&svc.host[0]);
	svc_bisect("ops_per_sec", NULL);
	h = small_host_state("down");
	cr_expect_str_neq(json_string_value(json_object_get(h, "last_error")),
	    "");
	cr_expect_gt(json_integer_value(json_object_get(h, "last_error_ms")),
	    1700000000000LL, "the last error is dated");
	json_decref(h);
	small_log_wait("host h0: down: ");
	cr_assert_eq(sshd_restart(&svc.host[0]), 0);
	h = small_host_state("up");
	cr_expect_str_eq(json_string_value(json_object_get(h, "last_error")),
	    "", "cleared once up");
	cr_expect(json_is_null(json_object_get(h, "last_error_ms")));
	json_decref(h);
	cr_expect_eq(small_log_count("host h0: down"), 1, "down logged once");
	cr_expect_eq(small_log_count("host h0: up"), 2, "up at start and "
	    "after the restart");
	r = svc_req("{\"cmd\":\"drain\",\"host\":\"h0\"}");
	json_decref(r);
	r = svc_req("{\"cmd\":\"undrain\",\"host\":\"h0\"}");
	json_decref(r);
	small_log_wait("host h0: undrained, now ");
	cr_expect_eq(small_log_count("host h0: drained"), 1);
}
