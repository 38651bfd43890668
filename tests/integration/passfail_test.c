/* SPDX-License-Identifier: MIT */
/*
 * A pass/fail metric end to end: a benchmark whose run reports
 * {"boot_failed": 1} on every commit that carries the planted culprit's
 * change and 0 elsewhere, bisected by the real daemon on two sshd hosts
 * (one may build what the other runs).
 * The engine's pass/fail verdict (both posteriors, the failure rates
 * integrated out in one of them) must name the culprit, and the samples,
 * status and report must carry the 0/1 values.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(passfail, .fini = svc_fini, .timeout = 900);

/*
 * A boot test in miniature: the build writes the verdict of the commit's
 * source (1 where it has the culprit's slower loop, COST 3) into the
 * artifact, which travels to whichever host runs it, and the run reports
 * it.
 */
static char *
boot_bench(void)
{
	char *text;

	xasprintf(&text, "\n[benchmark boot]\n"
	    "build = mkdir -p {workdir}/src-{short} && git -C %s archive "
	    "{commit} | tar -x -C {workdir}/src-{short} && if grep -q "
	    "'define COST 3' {workdir}/src-{short}/bench.c; then echo 1; "
	    "else echo 0; fi > {workdir}/src-{short}/boot\n"
	    "artifact = {workdir}/src-{short}/boot\n"
	    "run = echo \"{\\\"boot_failed\\\": $(cat {artifact})}\"\n"
	    "metrics = boot_failed:pass-fail\n"
	    "build_timeout = 2m\nrun_timeout = 1m\n", svc.repo);
	return text;
}

Test(passfail, a_pass_fail_metric_is_bisected_to_the_culprit)
{
	json_t *r, *b, *s;
	const char *text;
	double confidence, value;
	int64_t id;
	size_t i, passes = 0, fails = 0;

	/* The benchmark's build names the repository svc_setup_with makes. */
	svc_setup_with("svc-passfail", 2, "2:3", 0, boot_bench);

	id = svc_bisect_on("boot", svc.good, svc.bad, "boot_failed", NULL);
	b = svc_wait(id);
	svc_assert_culprit(b);
	confidence = json_number_value(json_object_get(b, "confidence"));
	cr_assert_geq(confidence, 0.99, "stated confidence %g", confidence);
	cr_assert_leq(confidence, 1);
	json_decref(b);

	/* Every sample is a pass or a failure, and both were seen. */
	r = svc_req("{\"cmd\":\"samples\",\"bisection\":%lld}",
	    (long long)id);
	json_array_foreach(json_object_get(r, "samples"), i, s) {
		cr_assert_str_eq(json_string_value(json_object_get(s,
		    "metric")), "boot_failed");
		value = json_number_value(json_object_get(s, "value"));
		cr_assert(value == 0 || value == 1, "sample value %g", value);
		passes += value == 0;
		fails += value == 1;
	}
	json_decref(r);
	cr_log_info("confidence %.5f, %zu passes and %zu failures", confidence,
	    passes, fails);
	cr_assert_gt(passes, 0);
	cr_assert_gt(fails, 0);

	r = svc_req("{\"cmd\":\"report\",\"bisection\":%lld}", (long long)id);
	cr_assert(json_is_true(json_object_get(r, "ok")));
	text = json_string_value(json_object_get(r, "text"));
	cr_assert_not_null(text);
	cr_assert_not_null(strstr(text, "boot_failed"), "%s", text);
	cr_assert_not_null(strstr(text, svc.culprit), "%s", text);
	json_decref(r);
}
