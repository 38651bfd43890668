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
