/* SPDX-License-Identifier: MIT */
/*
 * bisectctl status says whether the change is confirmed: with the log10
 * Bayes factor while the engine has one, "not confirmed yet" while a
 * bisection runs, and nothing when the reply has no such member (an older
 * daemon).  Replies as the daemon sends them; the conformance test prints
 * the real daemon's replies too.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/ctlprint.h"
#include "tests/support/tst.h"

TestSuite(ctl_change_print, .fini = tst_leak_check);

/* The status reply of a bisection in state, with extra members spliced in. */
static char *
status_text(const char *state, const char *extra)
{
	char reply[1024];

	snprintf(reply, sizeof(reply), "{\"ok\":true,\"bisection\":"
	    "{\"id\":3,\"state\":\"%s\",\"phase\":\"bisecting\","
	    "\"benchmark\":\"b\",\"metric\":\"tput\",\"group\":\"lab\","
	    "\"bad\":\"bbbb\",\"good\":[\"aaaa\"],\"verdict\":\"none\","
	    "\"samples\":9,\"runs\":{\"done\":9}%s}}", state, extra);
	return ctlprint(print_status, reply);
}

Test(ctl_change_print, the_change_line_follows_the_reply)
{
	char *t;

	t = status_text("running", ",\"change_confirmed\":false,"
	    "\"change_log10_bf\":1.26");
	cr_expect_not_null(strstr(t, "not confirmed yet (log10 Bayes factor "
	    "1.3)\n"), "%s", t);
	free(t);
	t = status_text("running", ",\"change_confirmed\":true,"
	    "\"change_log10_bf\":null");
	cr_expect_not_null(strstr(t, "confirmed\n"), "%s", t);
	cr_expect_null(strstr(t, "not confirmed"), "%s", t);
	cr_expect_null(strstr(t, "Bayes"), "%s", t);
	free(t);
	t = status_text("failed", ",\"change_confirmed\":false,"
	    "\"change_log10_bf\":null");
	cr_expect_not_null(strstr(t, "not confirmed\n"), "%s", t);
	free(t);
	t = status_text("running", "");
	cr_expect_null(strstr(t, "confirmed"), "%s", t);
	free(t);
}
