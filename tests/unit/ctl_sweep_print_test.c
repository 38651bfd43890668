/* SPDX-License-Identifier: MIT */
/*
 * bisectctl's sweep printers on a reply as the daemon sends it: a ref's
 * per-metric median, spread, changes against the previous ref and the
 * baseline, and the flag, every line within 80 columns.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tests/support/ctlprint.h"
#include "tests/support/tst.h"

TestSuite(ctl_sweep_print, .fini = tst_leak_check);

static const char reply[] =
    "{\"ok\":true,\"sweep\":{\"name\":\"s\",\"benchmark\":\"b\","
    "\"tag_pattern\":\"next-*\",\"state\":\"idle\",\"next\":\"at the next "
    "matching ref\"},\"plots\":[{\"metric\":\"tput\",\"text\":\"PLOT\\n\"}],"
    "\"refs\":[{\"ref\":\"refs/tags/next-2\",\"commit\":"
    "\"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\",\"state\":\"compared\","
    "\"runs\":5,\"bisection\":7,\"result\":{\"metrics\":[{\"name\":\"tput\","
    "\"median\":95.1,\"stddev_pct\":0.6,\"change_prev\":-0.05,"
    "\"change_base\":-0.049,\"verdict\":\"changed\"},{\"name\":\"lat\","
    "\"median\":10,\"stddev_pct\":null,\"change_prev\":null,"
    "\"change_base\":null,\"verdict\":\"untested\"}]}},"
    "{\"ref\":\"refs/tags/next-3\",\"commit\":"
    "\"ffffffffffffffffffffffffffffffffffffffff\",\"state\":\"compared\","
    "\"runs\":5,\"bisection\":8,\"result\":{\"metrics\":[],"
    "\"change\":{\"before\":\"refs/tags/next-1\",\"after\":"
    "\"refs/tags/next-2\",\"late\":1}}}]}";

Test(ctl_sweep_print, table_of_metrics_and_plots)
{
	char *text = ctlprint(print_sweep, reply), *p, *nl;

	cr_expect(strstr(text, "next-2                   eeeeeeeeeeee "
	    "compared      5  7\n") != NULL, "%s", text);
	cr_expect(strstr(text, "95.1 +- 0.6%    -5.0%    -4.9%  CHANGED\n") !=
	    NULL, "%s", text);
	cr_expect(strstr(text, "-        -  untested\n") != NULL, "%s", text);
	cr_expect(strstr(text, "\nPLOT\n") != NULL, "%s", text);
	/* The change point's ref says where and how late it was found. */
	cr_expect(strstr(text, "untested\n    ^ change point after next-1, "
	    "found at next-3 (1 ref late)\nnext-3") != NULL, "%s", text);
	for (p = text; (nl = strchr(p, '\n')) != NULL; p = nl + 1)
		cr_expect_leq(nl - p, 80, "%.*s", (int)(nl - p), p);
	free(text);
}
