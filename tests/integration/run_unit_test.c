/* SPDX-License-Identifier: MIT */
/*
 * The run is the unit of replication, end to end: a benchmark that prints
 * 200 values a run around a level that moves from boot to boot (issue 33's
 * reproducer).  Counted as independent samples, the first two runs of a
 * range where nothing changes "confirmed" a change at a Bayes factor of
 * 10^183 and named a different culprit each time.  With one value a run,
 * that range ends without a culprit, and a change of three between-run
 * standard deviations is found.  The raw values stay stored and shown.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(run_unit, .fini = svc_fini, .timeout = 900);

/* The step at the culprit, in the level's units (its sd is 5). */
static int arr_step;

/*
 * [benchmark arr]: the fixture's build, and a run that reads COST from the
 * commit's bench.c and prints one array from arrnoise.awk.
 */
static char *
arr_bench(void)
{
	char *text, *awk;

	xasprintf(&awk, "%s/tests/fixtures/arrays/arrnoise.awk",
	    tst_env_path("BISECTD_SRCDIR"));

	xasprintf(&text, "\n[benchmark arr]\n"
	    "build = mkdir -p {workdir}/src-{short} && git -C %s archive "
	    "{commit} | tar -x -C {workdir}/src-{short}\n"
	    "artifact = {workdir}/src-{short}/bench.c\n"
	    "run = s=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') && c=$(sed "
	    "-n 's/^#define COST //p' {artifact}) && awk -v seed=$s -v "
	    "cost=$c -v step=%d -f %s\n"
	    "metrics = m:higher\n"
	    "min_change = 1%%\n"
	    "build_timeout = 2m\nrun_timeout = 1m\n", svc.repo, arr_step, awk);
	free(awk);
	return text;
}

/*
 * Done runs of bisection id and its stored values of m, read from the
 * database itself: the whole list is more than one reply may hold.
 */
static void
arr_counts(int64_t id, size_t *runs, size_t *values)
{
	sqlite3_stmt *st;
	sqlite3 *db;

	cr_assert_eq(sqlite3_open_v2(svc.td.db, &db, SQLITE_OPEN_READONLY,
	    NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT count(DISTINCT s.run), "
	    "count(*) FROM samples s JOIN runs r ON r.id = s.run WHERE "
	    "r.bisection = ?1 AND s.metric = 'm' AND r.state = 'done'", -1,
	    &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, id);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	*runs = (size_t)sqlite3_column_int64(st, 0);
	*values = (size_t)sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

Test(run_unit, per_iteration_values_on_a_null_range_name_no_culprit)
{
	size_t runs, values;
	json_t *b, *r;
	int64_t id;

	arr_step = 0;
	svc_setup_with("svc-arr0", 2, "2:3", 0, arr_bench);
	id = svc_bisect_on("arr", svc.good, svc.bad, "m", NULL);
	b = svc_wait(id);
	cr_assert_str_eq(json_string_value(json_object_get(b, "verdict")),
	    "not-reproduced", "a range where nothing changed: %s",
	    json_dumps(b, 0));
	/* Every raw value of a run is kept, 200 a run. */
	arr_counts(id, &runs, &values);
	cr_assert_gt(runs, 3);
	cr_assert_eq(values, 200 * runs, "every raw value is kept");
	cr_assert_eq((size_t)json_integer_value(json_object_get(b,
	    "samples")), runs, "the engine counted runs, not values");
	/* The whole list would not fit one reply: refused, not dropped. */
	r = svc_req("{\"cmd\":\"samples\",\"bisection\":%lld}",
	    (long long)id);
	if (!json_is_true(json_object_get(r, "ok")))
		cr_assert_str_eq(tst_daemon_error_code(r), "invalid-argument");
	json_decref(r);
	/* status counts runs, not values. */
	cr_assert_eq(json_integer_value(json_object_get(b, "samples")),
	    json_integer_value(json_object_get(json_object_get(b, "runs"),
	    "done")));
	json_decref(b);
}

Test(run_unit, a_change_of_three_run_sds_is_found)
{
	const char *text;
	json_t *b, *r;
	int64_t id;

	arr_step = 15;
	svc_setup_with("svc-arr1", 2, "2:3", 0, arr_bench);
	id = svc_bisect_on("arr", svc.good, svc.bad, "m", NULL);
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
	/* The report's points are runs, and it says so. */
	r = svc_req("{\"cmd\":\"report\",\"bisection\":%lld}",
	    (long long)id);
	text = json_string_value(json_object_get(r, "text"));
	cr_assert_not_null(text);
	cr_assert_not_null(strstr(text, "Each point is one run: the mean of "
	    "its 200 values of m"), "%s", text);
	json_decref(r);
}
