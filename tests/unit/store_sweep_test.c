/* SPDX-License-Identifier: MIT */
/*
 * Sweep rows: the cursor moves with the rows it led to, a moved ref marks
 * its older commit rewritten, runs are counted once even when a run is
 * stored again after a restart, and results and bisections stick.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "store/store.h"
#include "tests/support/stest.h"

TestSuite(store_sweep, .init = stest_setup, .fini = stest_teardown);

struct sweep_seen {
	char	 text[2048];
	int64_t	 id[16];
	unsigned runs[16];
	int	 n;
};

static int
sweep_collect(void *arg, const struct store_sweep_ref *r)
{
	struct sweep_seen *w = arg;
	size_t len = strlen(w->text);

	if (w->n < 16) {
		w->id[w->n] = r->id;
		w->runs[w->n] = r->runs;
	}
	w->n++;
	snprintf(w->text + len, sizeof(w->text) - len, "%s %.1s %s %s%s;",
	    r->ref, r->commit, store_sweep_ref_state_name(r->state),
	    r->result ? r->result : "-", r->bisection ? " linked" : "");
	return 0;
}

static int
sample_collect(void *arg, unsigned run, const char *metric, double value)
{
	char *text = arg;
	size_t len = strlen(text);

	snprintf(text + len, 256 - len, "%u %s %g;", run, metric, value);
	return 0;
}

Test(store_sweep, cursor_rows_and_rewrites)
{
	struct store *s = stest_db = stest_open();
	struct store_sweep_ref rows[2] = {
		{ .ref = "refs/tags/next-1", .commit = STEST_A, .event = 1,
		  .state = STORE_SWEEP_BASELINE },
		{ .ref = "refs/tags/next-2", .commit = STEST_B, .event = 2,
		  .state = STORE_SWEEP_PENDING },
	};
	struct store_sweep sw;
	struct sweep_seen seen = { .n = 0 };
	struct bd_error err;
	int64_t ids[2];

	cr_assert_eq(store_sweep_advance(s, "n", 2, rows, 2, ids, &err), 0,
	    "%s", err.msg);
	cr_assert(ids[0] > 0 && ids[1] > ids[0]);
	cr_assert_eq(store_sweep_get(s, "n", &sw, &err), 0, "%s", err.msg);
	cr_expect_eq(sw.cursor, 2);
	store_sweep_release(&sw);
	/* The same rows again (a replayed event) add nothing. */
	cr_assert_eq(store_sweep_advance(s, "n", 2, rows + 1, 1, ids, &err), 0);
	cr_expect_eq(ids[0], 0);
	/* next-2 rewritten onto C: the old row says so, the new one waits. */
	rows[1].commit = STEST_C;
	rows[1].event = 5;
	cr_assert_eq(store_sweep_advance(s, "n", 5, rows + 1, 1, NULL, &err), 0);
	/* Events that matched nothing still move the cursor. */
	cr_assert_eq(store_sweep_advance(s, "n", 9, NULL, 0, NULL, &err), 0);
	cr_assert_eq(store_sweep_get(s, "n", &sw, &err), 0);
	cr_expect_eq(sw.cursor, 9);
	store_sweep_release(&sw);
	cr_assert_eq(store_sweep_ref_list(s, "n", sweep_collect, &seen, &err), 0);
	cr_expect_str_eq(seen.text, "refs/tags/next-1 a baseline -;"
	    "refs/tags/next-2 b rewritten -;refs/tags/next-2 c pending -;");
	/* Another sweep's rows are its own. */
	memset(&seen, 0, sizeof(seen));
	cr_assert_eq(store_sweep_ref_list(s, "other", sweep_collect, &seen,
	    &err), 0);
	cr_expect_eq(seen.n, 0);
}

Test(store_sweep, runs_counted_once_and_results_kept)
{
	struct store *s = stest_db = stest_open();
	struct store_sweep_ref row = { .ref = "refs/tags/next-1",
	    .commit = STEST_A, .event = 1, .state = STORE_SWEEP_PENDING };
	struct store_metric m[2] = { { "tput", 10, 0 }, { "lat", 2, 0 } };
	struct sweep_seen seen = { .n = 0 };
	struct bd_error err;
	char samples[256] = "";
	int64_t id, bis;

	cr_assert_eq(store_sweep_advance(s, "n", 1, &row, 1, &id, &err), 0);
	cr_assert_eq(store_sweep_sample_add(s, id, 1, m, 2, &err), 0, "%s",
	    err.msg);
	m[0].value = 11;
	cr_assert_eq(store_sweep_sample_add(s, id, 2, m, 2, &err), 0);
	/* Run 2 again, as after a restart: refused, nothing counted. */
	cr_expect_eq(store_sweep_sample_add(s, id, 2, m, 2, &err), -EALREADY);
	cr_expect_eq(store_sweep_sample_add(s, id, 4, m, 2, &err), -EALREADY);
	cr_assert_eq(store_sweep_ref_list(s, "n", sweep_collect, &seen, &err), 0);
	cr_expect_eq(seen.runs[0], 2);
	cr_expect_str_eq(seen.text, "refs/tags/next-1 a sampling -;");
	cr_assert_eq(store_sweep_sample_list(s, id, sample_collect, samples,
	    &err), 0);
	cr_expect_str_eq(samples, "1 lat 2;1 tput 10;2 lat 2;2 tput 11;");
	bis = stest_add_bisection(s, NULL, 0);
	cr_assert_eq(store_sweep_ref_set(s, id, STORE_SWEEP_COMPARED,
	    "{\"changed\":[\"tput\"]}", bis, &err), 0, "%s", err.msg);
	memset(&seen, 0, sizeof(seen));
	cr_assert_eq(store_sweep_ref_list(s, "n", sweep_collect, &seen, &err), 0);
	cr_expect_str_eq(seen.text, "refs/tags/next-1 a compared "
	    "{\"changed\":[\"tput\"]} linked;");
	cr_expect_eq(store_sweep_ref_set(s, id + 100, STORE_SWEEP_FAILED, NULL,
	    0, &err), -ENOENT);
	cr_expect_eq(store_sweep_ref_set(s, id, STORE_SWEEP_COMPARED, "{bad",
	    0, &err) < 0, 1);
}

/* The sweep jobs of a row as "ID:JOB;" ("-" for no lab job yet). */
static int
job_collect(void *arg, const struct store_sweep_job *j)
{
	char *text = arg;
	size_t len = strlen(text);

	snprintf(text + len, 256 - len, "%lld:%s;", (long long)j->id,
	    j->job ? j->job : "-");
	return 0;
}

static char *
jobs_of(struct store *s, int64_t row, char text[256])
{
	struct bd_error err;

	text[0] = '\0';
	cr_assert_eq(store_sweep_job_list(s, row, job_collect, text, &err), 0,
	    "%s", err.msg);
	return text;
}

/*
 * A sweep run in flight is stored with its lab job until its result is
 * stored, in the same transaction (a refused result keeps it), until it
 * is forgotten, or until its row is done with.
 */
Test(store_sweep, jobs_in_flight_go_with_their_result)
{
	struct store *s = stest_db = stest_open();
	struct store_sweep_ref row = { .ref = "refs/tags/next-1",
	    .commit = STEST_A, .event = 1, .state = STORE_SWEEP_PENDING };
	struct store_metric m[1] = { { "tput", 10, 0 } };
	struct bd_error err;
	char text[256], want[256];
	int64_t id, j1, j2, j3;

	cr_assert_eq(store_sweep_advance(s, "n", 1, &row, 1, &id, &err), 0,
	    "%s", err.msg);
	cr_assert_eq(store_sweep_job_add(s, id, &j1, &err), 0, "%s", err.msg);
	cr_assert_eq(store_sweep_job_add(s, id, &j2, &err), 0, "%s", err.msg);
	cr_assert(j1 > 0 && j2 > j1);
	cr_assert_eq(store_sweep_job_lab(s, j1, "lab1", "42", &err), 0, "%s",
	    err.msg);
	cr_expect_eq(store_sweep_job_lab(s, j2 + 100, "lab1", "43", &err),
	    -ENOENT);
	cr_expect_eq(store_sweep_job_lab(s, j2, "lab1", "", &err), -EINVAL);
	cr_expect_neq(store_sweep_job_add(s, id + 100, &j3, &err), 0,
	    "a sweep job of no row");
	snprintf(want, sizeof(want), "%lld:42;%lld:-;", (long long)j1,
	    (long long)j2);
	cr_expect_str_eq(jobs_of(s, id, text), want);

	/* Stored with its result: gone.  A refused result keeps the job. */
	cr_assert_eq(store_sweep_run_record(s, id, 1, j1, m, 1, &err), 0,
	    "%s", err.msg);
	cr_expect_eq(store_sweep_run_record(s, id, 1, j2, m, 1, &err),
	    -EALREADY);
	snprintf(want, sizeof(want), "%lld:-;", (long long)j2);
	cr_expect_str_eq(jobs_of(s, id, text), want);
	cr_assert_eq(store_sweep_job_del(s, j2, &err), 0, "%s", err.msg);
	cr_assert_eq(store_sweep_job_del(s, j2, &err), 0, "twice is no error");
	cr_expect_str_eq(jobs_of(s, id, text), "");

	/* A compared row has nothing in flight any more. */
	cr_assert_eq(store_sweep_job_add(s, id, &j3, &err), 0, "%s", err.msg);
	cr_assert_eq(store_sweep_ref_set(s, id, STORE_SWEEP_COMPARED, "{}", 0,
	    &err), 0, "%s", err.msg);
	cr_expect_str_eq(jobs_of(s, id, text), "");
}
