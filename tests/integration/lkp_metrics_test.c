/* SPDX-License-Identifier: MIT */
/*
 * Kernel metric names and LKP's result shape end to end: a benchmark whose
 * run prints {"mpstat.cpu.all.idle%": [v1, v2], "interrupts.CAL:...": v,
 * "perf-profile....": [...]} (two iterations per run, as lkp-tests'
 * matrix.json has them), bisected by the real daemon on sshd hosts with
 * the planted culprit; its samples, status and report carry the names.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(lkp_metrics, .fini = svc_fini, .timeout = 900);

#define IDLE	"mpstat.cpu.all.idle%"
#define CAL	"interrupts.CAL:Function_call_interrupts"
#define PERF	"perf-profile.calltrace.cycles-pp.ksys_mmap_pgoff." \
		"do_syscall_64.entry_SYSCALL_64_after_hwframe.x"

/*
 * Runs the fixture's program twice and reshapes its two result lines into
 * one LKP-style object: ops_per_sec per iteration as IDLE (higher is
 * better), runtime_ms as CAL and PERF.
 */
static char *
lkp_bench(void)
{
	char *text;

	xasprintf(&text, "\n[benchmark lkp]\n"
	    "build = mkdir -p {workdir}/src-{short} && git -C %s archive "
	    "{commit} | tar -x -C {workdir}/src-{short} && cc -O2 -o "
	    "{workdir}/src-{short}/bench {workdir}/src-{short}/bench.c\n"
	    "artifact = {workdir}/src-{short}/bench\n"
	    "run = a=$({artifact}) && b=$({artifact}) && echo \"$a $b\" | sed "
	    "'s/{\"runtime_ms\": \\([0-9.]*\\), \"ops_per_sec\": "
	    "\\([0-9.]*\\)} {\"runtime_ms\": \\([0-9.]*\\), \"ops_per_sec\": "
	    "\\([0-9.]*\\)}/{\"%s\": [\\2, \\4], \"" CAL "\": \\1, "
	    "\"" PERF "\": [\\1, \\3]}/'\n"
	    "metrics = %s:higher, " CAL ":lower, " PERF ":lower\n"
	    "min_change = 5%%\n"
	    "build_timeout = 2m\nrun_timeout = 1m\n", svc.repo, IDLE, IDLE);
	return text;
}

Test(lkp_metrics, a_bisection_on_kernel_names_and_per_iteration_arrays)
{
	json_t *r, *b, *s;
	const char *text;
	int64_t id;
	size_t i, n0 = 0, n1 = 0, nother = 0;

	/* The benchmark's build names the repository svc_setup_with makes. */
	svc_setup_with("svc-lkp", 2, "2:3", 0, lkp_bench);

	id = svc_bisect_on("lkp", svc.good, svc.bad, IDLE, NULL);
	b = svc_wait(id);
	svc_assert_culprit(b);
	cr_assert_str_eq(json_string_value(json_object_get(b, "metric")),
	    IDLE);
	json_decref(b);

	/* Two values of IDLE per done run, numbered 0 and 1. */
	r = svc_req("{\"cmd\":\"samples\",\"bisection\":%lld}",
	    (long long)id);
	json_array_foreach(json_object_get(r, "samples"), i, s) {
		const char *m = json_string_value(json_object_get(s, "metric"));
		json_int_t idx = json_integer_value(json_object_get(s, "index"));

		if (strcmp(m, IDLE) == 0 && idx == 0)
			n0++;
		else if (strcmp(m, IDLE) == 0 && idx == 1)
			n1++;
		else if (strcmp(m, CAL) == 0 || strcmp(m, PERF) == 0)
			nother++;
		else
			cr_assert_fail("unexpected sample %s [%lld]", m,
			    (long long)idx);
	}
	json_decref(r);
	cr_assert_gt(n0, 3);
	cr_assert_eq(n1, n0, "every run gave both iterations");
	cr_assert_eq(nother, 3 * n0, "CAL once and PERF twice per run");

	r = svc_req("{\"cmd\":\"report\",\"bisection\":%lld}", (long long)id);
	cr_assert(json_is_true(json_object_get(r, "ok")));
	text = json_string_value(json_object_get(r, "text"));
	cr_assert_not_null(text);
	cr_assert_not_null(strstr(text, IDLE), "%s", text);
	json_decref(r);
}
