/*
 * A change the sweep could not call at its own tag, end to end: tags
 * pushed one by one to the upstream the real daemon mirrors, a benchmark
 * whose level each tag's tree sets (and whose runs repeat the same five
 * deviations), a change of 1.5% that five runs leave borderline.  The next
 * tag pools its runs with the changed tag's, finds the change point one
 * tag late, and the bisection runs from the last tag before it to the
 * first tag after it, not from the tag that revealed it.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/svc.h"
#include "tests/support/sweepsvc.h"
#include "tests/support/tst.h"

TestSuite(sweep_late, .fini = svc_fini, .timeout = 600);

/* A run: the commit's level plus the next of five fixed deviations. */
static const char late_run[] =
    "#!/bin/sh\n"
    "f=$1\n"
    "n=$(cat \"$f.n\" 2>/dev/null || echo 0)\n"
    "echo $((n + 1)) > \"$f.n\"\n"
    "case $((n % 5)) in 0) d=-1.3;; 1) d=0.4;; 2) d=1.1;; 3) d=-0.2;; "
    "*) d=0.7;; esac\n"
    "awk -v l=\"$(cat \"$f\")\" -v d=\"$d\" "
    "'BEGIN { printf \"{\\\"tput\\\": %.3f}\\n\", l + d }'\n";

/* Five runs a tag (no revisits), the change points over 3 + 3 tags. */
#define LATE_SWEEP \
	"[sweep s]\nbenchmark = level\ngroup = lab\ntag_pattern = next-*\n" \
	"samples = 5\nbaseline = 3\n"

/* A member of a compared row's result. */
static const json_t *
late_result(const json_t *r, const char *ref, const char *commit,
    const char *key)
{
	return json_object_get(json_object_get(sweepsvc_row(r, ref, commit),
	    "result"), key);
}

/* The bisection linked to ref's row, waited for; 0 when none came. */
static int64_t
late_bisection(const char *ref, const char *commit)
{
	int64_t bis = 0;
	int waited;
	json_t *r;

	for (waited = 0; waited < SVC_WAIT_MS && bis == 0; waited += 100) {
		r = sweepsvc_show("s");
		bis = json_integer_value(json_object_get(sweepsvc_row(r, ref,
		    commit), "bisection"));
		json_decref(r);
		if (bis == 0)
			usleep(100 * 1000);
	}
	return bis;
}

Test(sweep_late, a_missed_change_is_found_later_and_bisected_on_its_range)
{
	static const char *levels[] = { "100", "100", "100", "101.5",
	    "101.5" };
	char *t[5], name[16], *script, *extra;
	const json_t *ch, *m;
	json_t *r, *b;
	int64_t bis;
	size_t i;

	svc_setup("sweep-late", 1, "2:3", 0);
	script = tst_write_file(svc.dir, "late-run.sh", late_run);
	xasprintf(&extra, "[benchmark level]\n"
	    "build = mkdir -p {workdir}/lv-{short} && git -C %s show "
	    "{commit}:level > {workdir}/lv-{short}/level\n"
	    "artifact = {workdir}/lv-{short}/level\n"
	    "run = sh %s {artifact}\nmetrics = tput:higher\nmin_change = 1%%\n"
	    "build_timeout = 1m\nrun_timeout = 1m\n\n", svc.repo, script);
	t[0] = sweepsvc_tag("level", "next-1", levels[0]);
	sweepsvc_restart_mirrored(LATE_SWEEP, NULL, extra);
	json_decref(sweepsvc_wait("s", "next-1", t[0], "baseline"));
	for (i = 1; i < 5; i++) {
		snprintf(name, sizeof(name), "next-%zu", i + 1);
		t[i] = sweepsvc_tag("level", name, levels[i]);
		r = sweepsvc_wait("s", name, t[i], "compared");
		m = json_array_get(late_result(r, name, t[i], "metrics"), 0);
		if (i < 3)
			cr_expect_str_eq(json_string_value(json_object_get(m,
			    "verdict")), "same", "%s: %s", name,
			    json_dumps(r, 0));
		else if (i == 3)	/* its own tag: not called */
			cr_expect_str_eq(json_string_value(json_object_get(m,
			    "verdict")), "borderline", "%s", json_dumps(r, 0));
		else {
			cr_assert_str_eq(json_string_value(json_object_get(m,
			    "verdict")), "changed", "%s", json_dumps(r, 0));
			ch = late_result(r, name, t[i], "change");
			cr_expect_str_eq(json_string_value(json_object_get(ch,
			    "before")), "refs/tags/next-3");
			cr_expect_str_eq(json_string_value(json_object_get(ch,
			    "after")), "refs/tags/next-4");
			cr_expect_eq(json_integer_value(json_object_get(ch,
			    "late")), 1);
		}
		json_decref(r);
	}
	/* The trend plot marks the change point, and how late it was found. */
	r = sweepsvc_show("s");
	cr_expect(strstr(json_string_value(json_object_get(json_array_get(
	    json_object_get(r, "plots"), 0), "text")), "change between next-3 "
	    "and next-4, found at next-5 (1 ref late)") != NULL, "%s",
	    json_dumps(r, 0));
	json_decref(r);
	/* Linked to the row that found it, on the change point's range. */
	cr_assert_gt(bis = late_bisection("next-5", t[4]), 0);
	r = svc_req("{\"cmd\":\"list\"}");
	json_array_foreach(json_object_get(r, "bisections"), i, b)
		if (json_integer_value(json_object_get(b, "id")) == bis)
			break;
	cr_assert_lt(i, json_array_size(json_object_get(r, "bisections")),
	    "%s", json_dumps(r, 0));
	cr_expect_str_eq(json_string_value(json_object_get(b, "bad")), t[3],
	    "%s", json_dumps(b, 0));
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(b,
	    "good"), 0)), t[2], "%s", json_dumps(b, 0));
	json_decref(r);
	for (i = 0; i < 5; i++)
		free(t[i]);
	free(script);
	free(extra);
}
