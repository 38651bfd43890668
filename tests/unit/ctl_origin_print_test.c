/* SPDX-License-Identifier: MIT */
/*
 * bisectctl on a bisection a sweep started: `status` names the sweep, its
 * tags and the reused runs; `samples` shows a reused sample's sweep row
 * where a host would be.  Replies as the daemon sends them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tests/support/ctlprint.h"
#include "tests/support/tst.h"

TestSuite(ctl_origin_print, .fini = tst_leak_check);

Test(ctl_origin_print, status_names_the_sweep_and_the_reused_runs)
{
	char *text = ctlprint(print_status, "{\"ok\":true,\"bisection\":"
	    "{\"id\":3,\"state\":\"running\",\"phase\":\"bisecting\","
	    "\"benchmark\":\"b\",\"metric\":\"tput\",\"group\":\"lab\","
	    "\"bad\":\"bbbb\",\"good\":[\"aaaa\"],\"verdict\":\"none\","
	    "\"samples\":9,\"runs\":{\"done\":9},\"origin\":{\"sweep\":"
	    "\"nightly\",\"prev_ref\":\"refs/tags/next-1\",\"ref\":"
	    "\"refs/tags/next-2\",\"row\":2,\"prev_row\":1,\"metrics\":"
	    "[\"tput\"],\"reused_from\":[2,1]},\"reused_runs\":6}}");

	cr_expect_not_null(strstr(text, "nightly, refs/tags/next-1 to "
	    "refs/tags/next-2, 6 runs reused\n"), "%s", text);
	free(text);
	text = ctlprint(print_status, "{\"ok\":true,\"bisection\":"
	    "{\"id\":3,\"state\":\"running\",\"phase\":\"bisecting\","
	    "\"benchmark\":\"b\",\"metric\":\"tput\",\"group\":\"lab\","
	    "\"bad\":\"bbbb\",\"good\":[\"aaaa\"],\"verdict\":\"none\","
	    "\"samples\":9,\"runs\":{\"done\":9}}}");
	cr_expect_null(strstr(text, "reused"), "%s", text);
	free(text);
}

Test(ctl_origin_print, a_reused_sample_shows_its_sweep_row)
{
	char *text = ctlprint(print_samples, "{\"ok\":true,\"samples\":["
	    "{\"run\":1,\"commit\":\"aaaaaaaaaaaaaaaa\",\"host\":\"\","
	    "\"metric\":\"tput\",\"index\":0,\"value\":1.5,\"attempt\":1,"
	    "\"seq\":1,\"reused_from\":12},"
	    "{\"run\":2,\"commit\":\"aaaaaaaaaaaaaaaa\",\"host\":\"box1\","
	    "\"metric\":\"tput\",\"index\":0,\"value\":1.25,\"attempt\":1,"
	    "\"seq\":2,\"reused_from\":0}]}");

	cr_expect_not_null(strstr(text, "sweep:12"), "%s", text);
	cr_expect_not_null(strstr(text, "box1"), "%s", text);
	cr_expect_null(strstr(text, "sweep:0"), "%s", text);
	free(text);
}
