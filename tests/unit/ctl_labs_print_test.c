/* SPDX-License-Identifier: MIT */
/*
 * bisectctl hosts on a daemon with lab groups: each lab's row names the
 * SSH group its commits are built on, or "-" when the lab job builds for
 * itself, and its last error follows the table.  Replies as the daemon
 * sends them (server/cmd.c's hosts).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tests/support/ctlprint.h"
#include "tests/support/tst.h"

TestSuite(ctl_labs_print, .fini = tst_leak_check);

/* The line of the table that starts with name (caller frees). */
static char *
clp_row(const char *text, const char *name)
{
	const char *p = text, *nl;

	while (p != NULL && *p != '\0') {
		nl = strchr(p, '\n');
		if (strncmp(p, name, strlen(name)) == 0 && p[strlen(name)] == ' ')
			return strndup(p, nl ? (size_t)(nl - p) : strlen(p));
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

Test(ctl_labs_print, a_lab_row_names_its_build_group)
{
	char *text = ctlprint(print_hosts, "{\"ok\":true,\"hosts\":[],\"labs\":["
	    "{\"name\":\"kci\",\"url\":\"http://127.0.0.1:8000\","
	    "\"device_type\":\"x86\",\"group\":\"lava\",\"build_group\":"
	    "\"builders\",\"queued\":2,\"running\":1,\"max_jobs\":4,"
	    "\"health\":\"ok\",\"last_error\":\"\"},"
	    "{\"name\":\"lkft\",\"url\":\"http://127.0.0.1:8001\","
	    "\"device_type\":\"arm64\",\"group\":\"arm\",\"build_group\":null,"
	    "\"queued\":0,\"running\":0,\"max_jobs\":2,\"health\":"
	    "\"token refused\",\"last_error\":\"token refused (403)\"}]}");
	char *head = strstr(text, "BUILDS ON"), *kci = clp_row(text, "kci");
	char *lkft = clp_row(text, "lkft");

	cr_assert_not_null(head, "%s", text);
	cr_assert_not_null(kci, "%s", text);
	cr_assert_not_null(lkft, "%s", text);
	cr_expect_not_null(strstr(kci, " lava "), "%s", kci);
	cr_expect_not_null(strstr(kci, " builders "), "%s", kci);
	cr_expect_null(strstr(lkft, "builders"), "%s", lkft);
	cr_expect_not_null(strstr(lkft, " arm "), "%s", lkft);
	cr_expect_not_null(strstr(text, "lkft: last error: token refused "
	    "(403)\n"), "%s", text);
	cr_expect_null(strstr(text, "kci: last error"), "%s", text);
	free(kci);
	free(lkft);
	free(text);
}
