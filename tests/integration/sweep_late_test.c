/* SPDX-License-Identifier: MIT */
/*
 * A change the sweep could not call at its own tag, end to end: tags
 * pushed one by one to the upstream the real daemon mirrors, a benchmark
 * whose level each tag's tree sets (and whose runs repeat the same five
 * deviations), a change of 1.5% that five runs leave borderline.  The next
 * tag pools its runs with the changed tag's, finds the change point one
 * tag late, and the bisection runs from the last tag before it to the
 * first tag after it, not from the tag that revealed it.  A level that
 * moves over two tags gets the tag between them revisited.
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

/* The sweep, with samples runs at most; change points over 3 + 3 tags. */
#define LATE_SWEEP(samples) \
	"[sweep s]\nbenchmark = level\ngroup = lab\ntag_pattern = next-*\n" \
	"samples = " samples "\nbaseline = 3\n"

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

/*
 * The fixture upstream with next-1 at levels[0], the daemon mirroring it
 * with sweep s (samples runs at most) on the level benchmark; t[0] is set.
 */
static void
late_start(const char *sweep, const char *const *levels, char **t)
{
	char *script, *extra;

	svc_setup("sweep-late", 1, "2:3", 0);
	script = tst_write_file(svc.dir, "late-run.sh", late_run);
	xasprintf(&extra, "[benchmark level]\n"
	    "build = mkdir -p {workdir}/lv-{short} && git -C %s show "
	    "{commit}:level > {workdir}/lv-{short}/level\n"
	    "artifact = {workdir}/lv-{short}/level\n"
	    "run = sh %s {artifact}\nmetrics = tput:higher\nmin_change = 1%%\n"
	    "build_timeout = 1m\nrun_timeout = 1m\n\n", svc.repo, script);
	t[0] = sweepsvc_tag("level", "next-1", levels[0]);
	sweepsvc_restart_mirrored(sweep, NULL, extra);
	json_decref(sweepsvc_wait("s", "next-1", t[0], "baseline"));
	free(script);
	free(extra);
}

/* The bisection bis of the daemon's list is on good..bad. */
static void
late_range(int64_t bis, const char *good, const char *bad)
{
	json_t *r = svc_req("{\"cmd\":\"list\"}"), *b;
	size_t i;

	json_array_foreach(json_object_get(r, "bisections"), i, b)
		if (json_integer_value(json_object_get(b, "id")) == bis)
			break;
	cr_assert_lt(i, json_array_size(json_object_get(r, "bisections")),
	    "%s", json_dumps(r, 0));
	cr_expect_str_eq(json_string_value(json_object_get(b, "bad")), bad,
	    "%s", json_dumps(b, 0));
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(b,
	    "good"), 0)), good, "%s", json_dumps(b, 0));
	json_decref(r);
}

/* Tags next-(i+1) at levels[i] into t[i]; the reply once it is compared. */
static json_t *
late_push(size_t i, const char *const *levels, char **t)
{
	char name[16];

	snprintf(name, sizeof(name), "next-%zu", i + 1);
	t[i] = sweepsvc_tag("level", name, levels[i]);
	return sweepsvc_wait("s", name, t[i], "compared");
}

Test(sweep_late, a_missed_change_is_found_later_and_bisected_on_its_range)
{
	static const char *levels[] = { "100", "100", "100", "101.5",
	    "101.5" };
	char *t[5], name[16];
	const json_t *ch, *m;
	json_t *r;
	int64_t bis;
	size_t i;

	late_start(LATE_SWEEP("5"), levels, t);
	for (i = 1; i < 5; i++) {
		r = late_push(i, levels, t);
		snprintf(name, sizeof(name), "next-%zu", i + 1);
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
	late_range(bis, t[2], t[3]);
	for (i = 0; i < 5; i++)
		free(t[i]);
}

/*
 * A level that moves over two tags leaves the change point between two
 * splits: the tag between them is revisited (5 more runs, its verdict
 * kept) before the new tag is judged again.  The pooled runs place the
 * change point after next-3, but cannot rule out next-5 as the first tag
 * after it, so the bisection's range holds both steps: next-3 to next-5.
 */
Test(sweep_late, an_ambiguous_change_point_revisits_the_tag_between)
{
	static const char *levels[] = { "100", "100", "100", "101", "102" };
	char *t[5], *log;
	const json_t *ch;
	json_t *r;
	int64_t bis;
	size_t i;

	late_start(LATE_SWEEP("15"), levels, t);
	for (i = 1; i < 5; i++)
		json_decref(late_push(i, levels, t));
	r = sweepsvc_show("s");
	cr_expect_eq(json_integer_value(json_object_get(sweepsvc_row(r,
	    "next-1", t[0]), "runs")), 15, "%s", json_dumps(r, 0));
	/* next-4 was compared at 5 runs and revisited for 5 more. */
	cr_expect_eq(json_integer_value(json_object_get(sweepsvc_row(r,
	    "next-4", t[3]), "runs")), 10, "%s", json_dumps(r, 0));
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(
	    sweepsvc_row(r, "next-4", t[3]), "result"), "runs")), 5);
	ch = late_result(r, "next-5", t[4], "change");
	cr_expect_str_eq(json_string_value(json_object_get(ch, "before")),
	    "refs/tags/next-3", "%s", json_dumps(r, 0));
	cr_expect_str_eq(json_string_value(json_object_get(ch, "after")),
	    "refs/tags/next-4", "%s", json_dumps(r, 0));
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(ch,
	    "range"), "good")), "refs/tags/next-3", "%s", json_dumps(r, 0));
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(ch,
	    "range"), "bad")), "refs/tags/next-5", "%s", json_dumps(r, 0));
	json_decref(r);
	log = tst_read_file(svc.td.log);
	cr_expect(log != NULL && strstr(log, "refs/tags/next-4 revisited (10 "
	    "runs)") != NULL, "%s", log ? log : "(no log)");
	free(log);
	cr_assert_gt(bis = late_bisection("next-5", t[4]), 0);
	late_range(bis, t[2], t[4]);
	for (i = 0; i < 5; i++)
		free(t[i]);
}
