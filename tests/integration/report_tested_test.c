/* SPDX-License-Identifier: MIT */
/*
 * What a report says was tested, through the real daemon on sshd hosts:
 * the benchmark's kconfig, compiler and params, the test machine as the
 * hosts' describe command printed it (once per host), n on each side of
 * the table, and a reproduce script with every placeholder expanded.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(report_tested, .fini = svc_fini, .timeout = 900);

/*
 * What reports show, added to the fixture's spin benchmark; describe
 * leaves a line in the host's workdir each time it runs.
 */
#define TESTED_BENCH "kconfig = x86_64-test\ncompiler = gcc-12\n" \
	"params = mode=process nr_task=100%\n" \
	"describe = echo run >> described; echo 8 threads; " \
	"echo Fake CPU @ 3.00GHz\n"

/* Lines of the file describe appended to in host i's workdir. */
static int
tested_described(int i)
{
	char *path, *text, *p;
	int n = 0;

	xasprintf(&path, "%s/w%d/described", svc.dir, i);
	text = tst_read_file(path);
	free(path);
	for (p = text; p != NULL && (p = strchr(p, '\n')) != NULL; p++)
		n++;
	free(text);
	return n;
}

Test(report_tested, a_report_says_what_ran_where_and_how_to_redo_it)
{
	const char *text, *script;
	char *want;
	json_t *r, *rep, *b;
	int64_t id;
	int d0, d1;

	svc_setup_bench("svc-tested", 2, "2:3", TESTED_BENCH);
	id = svc_bisect("ops_per_sec", NULL);
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);

	/* Each host described itself once, however many runs it had. */
	d0 = tested_described(0);
	d1 = tested_described(1);
	cr_assert_leq(d0, 1, "h0 ran describe %d times", d0);
	cr_assert_leq(d1, 1, "h1 ran describe %d times", d1);
	cr_assert_geq(d0 + d1, 1, "no host ran describe");

	r = svc_req("{\"cmd\":\"report\",\"bisection\":%lld}", (long long)id);
	cr_assert(json_is_true(json_object_get(r, "ok")));
	text = json_string_value(json_object_get(r, "text"));
	cr_assert_not_null(text);
	cr_expect_not_null(strstr(text, "regression of spin.ops_per_sec"),
	    "%s", text);
	cr_expect_not_null(strstr(text, "\nconfig: x86_64-test\n"), "%s",
	    text);
	cr_expect_not_null(strstr(text, "\ncompiler: gcc-12\n"), "%s", text);
	cr_expect_not_null(strstr(text, "\ntest machine: 8 threads Fake CPU "
	    "@ 3.00GHz\n"), "%s", text);
	cr_expect_not_null(strstr(text, "\tmode: process\n"), "%s", text);
	cr_expect_not_null(strstr(text, "benchmark/compiler/host_group/kconfig/"
	    "mode/nr_task:\n  spin/gcc-12/lab/x86_64-test/process/100%\n"),
	    "%s", text);
	/* n of each side, as a row of the table and beside each commit. */
	cr_expect_not_null(strstr(text, "        runs\n"), "%s", text);
	cr_expect_not_null(strstr(text, " runs\n  "), "%s", text);

	/* The script checks out both commits; nothing is left unexpanded. */
	script = strstr(text, "#!/bin/sh");
	cr_assert_not_null(script, "%s", text);
	xasprintf(&want, "git -C \"$TREE\" checkout --detach %s", svc.culprit);
	cr_expect_not_null(strstr(script, want), "%s", script);
	free(want);
	cr_expect_null(strstr(script, "{workdir}"), "%s", script);
	cr_expect_null(strstr(script, "{artifact}"), "%s", script);
	xasprintf(&want, "(cd %s/w", svc.dir);
	cr_expect_not_null(strstr(script, want), "%s", script);
	free(want);

	rep = json_object_get(r, "report");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(rep,
	    "params"), "mode")), "process");
	cr_expect_str_eq(json_string_value(json_object_get(rep,
	    "test_machine")), "8 threads Fake CPU @ 3.00GHz");
	cr_expect_gt(json_integer_value(json_object_get(json_object_get(rep,
	    "comparison"), "head_runs")), 0);
	cr_expect(json_is_string(json_object_get(json_object_get(rep,
	    "reproduce"), "script")));
	json_decref(r);
}
