/* SPDX-License-Identifier: MIT */
/*
 * Errors and revisions as an operator meets them, through the real
 * bisectctl against the real daemon: samples --commit takes any revision.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
