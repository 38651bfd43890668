/* SPDX-License-Identifier: MIT */
/*
 * The SQLite store's rows: constraints, the run life cycle, requeueing and
 * cancelling runs, bisection dedup and verdicts, samples, events, probes.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "store/store.h"
#include "tests/support/stest.h"
#include "tests/support/tst.h"

TestSuite(store_rows, .init = stest_setup, .fini = stest_teardown);

Test(store_rows, foreign_keys_enforced)
{
	struct store_metric m = { "throughput", 1, 0 };
	struct store_run_result res = { .state = STORE_RUN_DONE };
	struct bd_error err;
	int64_t id = 0, bis;

	stest_db = stest_open();
	bis = stest_add_bisection(stest_db, NULL, 0);
	cr_assert_eq(store_run_create(stest_db, bis + 100, STEST_C, &id, &err),
	    -ENOENT, "%s", err.msg);
	cr_assert_eq(store_probe_add(stest_db, bis + 100, STEST_C, &id, &err),
	    -ENOENT);
	cr_assert_eq(store_report_put(stest_db, bis + 100, "x", NULL, &err),
	    -ENOENT);
	cr_assert_eq(store_run_finish(stest_db, 4242, &res, &m, 1, &err),
	    -ENOENT, "%s", err.msg);
	cr_assert_eq(stest_stats(stest_db, bis).samples, 0);
	cr_assert_eq(stest_stats(stest_db, bis).runs[STORE_RUN_QUEUED], 0);
	cr_assert_eq(store_bisection_stats(stest_db, bis + 100,
	    &(struct store_bisection_stats){ 0 }, &err), -ENOENT);
}

Test(store_rows, duplicate_sample_stores_nothing)
{
	struct store_metric dup[3] = { { "a", 1, 0 }, { "b", 2, 0 },
	    { "a", 3, 0 } };
	struct store_run_result res = { .state = STORE_RUN_DONE };
	struct store_run r;
	struct bd_error err;
	int64_t bis, id;

	stest_db = stest_open();
	bis = stest_add_bisection(stest_db, NULL, 0);
	cr_assert_eq(store_run_create(stest_db, bis, STEST_C, &id, &err), 0);
	cr_assert_eq(store_run_start(stest_db, id, "host1", &err), 0);
	cr_assert_eq(store_run_finish(stest_db, id, &res, dup, 3, &err),
	    -EEXIST, "%s", err.msg);
	cr_assert_eq(stest_stats(stest_db, bis).samples, 0);
	cr_assert_eq(store_run_get(stest_db, id, &r, &err), 0);
	cr_assert_eq(r.state, STORE_RUN_RUNNING, "rolled back: still running");
	cr_assert_eq(r.seq, 0);
	store_run_release(&r);

	cr_assert_eq(store_run_finish(stest_db, id, &res, dup, 2, &err), 0,
	    "%s", err.msg);
	cr_assert_eq(stest_stats(stest_db, bis).samples, 2);
	/* A second finish, as after a replayed completion: refused, no copy. */
	cr_assert_eq(store_run_finish(stest_db, id, &res, dup, 2, &err),
	    -EALREADY, "%s", err.msg);
	cr_assert_eq(store_run_finish(stest_db, id, &res, dup + 2, 1, &err),
	    -EALREADY);
	cr_assert_eq(stest_stats(stest_db, bis).samples, 2);
}

Test(store_rows, run_life_cycle_refuses_bad_steps)
{
	struct store_metric m = { "a", NAN, 0 };
	struct store_run_result done = { .state = STORE_RUN_DONE,
	    .has_exit = 1, .exit_status = 0, .log_path = "/l/1",
	    .timings = "{\"build\":12.5,\"run\":3}" };
	struct store_run_result skip = { .state = STORE_RUN_SKIPPED };
	struct store_run_result bad = { .state = STORE_RUN_QUEUED };
	struct store_run r;
	struct bd_error err;
	int64_t bis, id, id2;

	stest_db = stest_open();
	bis = stest_add_bisection(stest_db, NULL, 0);
	cr_assert_eq(store_run_create(stest_db, bis, STEST_C, &id, &err), 0);
	cr_assert_eq(store_run_start(stest_db, id, "host1", &err), 0);
	cr_assert_eq(store_run_start(stest_db, id, "host2", &err), -EALREADY);
	cr_assert(strstr(err.msg, "running") != NULL, "%s", err.msg);
	cr_assert_eq(store_run_finish(stest_db, id, &bad, NULL, 0, &err),
	    -EINVAL);
	cr_assert_eq(store_run_finish(stest_db, id, &done, &m, 1, &err),
	    -EINVAL);
	cr_assert_eq(store_run_finish(stest_db, id, &skip,
	    &(struct store_metric){ "a", 1, 0 }, 1, &err), -EINVAL);
	done.timings = "{not json";
	cr_assert_eq(store_run_finish(stest_db, id, &done, NULL, 0, &err),
	    -EINVAL);
	done.timings = "{\"build\":12.5,\"run\":3}";
	cr_assert_eq(store_run_finish(stest_db, id, &done, NULL, 0, &err), 0,
	    "%s", err.msg);
	cr_assert_eq(store_run_get(stest_db, id, &r, &err), 0);
	cr_assert_eq(r.state, STORE_RUN_DONE);
	cr_assert_str_eq(r.host, "host1");
	cr_assert_str_eq(r.log_path, "/l/1");
	cr_assert_str_eq(r.timings, "{\"build\":12.5,\"run\":3}");
	cr_assert(r.has_exit && r.exit_status == 0);
	cr_assert_gt(r.finished_ms, 0);
	cr_assert_eq(r.seq, 1);
	store_run_release(&r);

	/* A queued run may be skipped without a host (cached failed build). */
	cr_assert_eq(store_run_create(stest_db, bis, STEST_B, &id2, &err), 0);
	cr_assert_eq(store_run_finish(stest_db, id2, &skip, NULL, 0, &err), 0,
	    "%s", err.msg);
	cr_assert_eq(store_run_get(stest_db, id2, &r, &err), 0);
	cr_assert_eq(r.state, STORE_RUN_SKIPPED);
	cr_assert_null(r.host);
	cr_assert_eq(r.seq, 2);
	store_run_release(&r);
	cr_assert_eq(store_run_start(stest_db, 999, "h", &err), -ENOENT);
}

Test(store_rows, requeue_inflight_runs)
{
	struct store_run_result infra = { .state = STORE_RUN_FAILED_INFRA };
	struct store_run r;
	struct bd_error err;
	int64_t bis, q, r1, r2, d, f, retry, n = -1;

	stest_db = stest_open();
	bis = stest_add_bisection(stest_db, NULL, 0);
	cr_assert_eq(store_run_create(stest_db, bis, STEST_A, &q, &err), 0);
	cr_assert_eq(store_run_create(stest_db, bis, STEST_B, &r1, &err), 0);
	cr_assert_eq(store_run_create(stest_db, bis, STEST_C, &r2, &err), 0);
	cr_assert_eq(store_run_start(stest_db, r1, "host1", &err), 0);
	cr_assert_eq(store_run_start(stest_db, r2, "host2", &err), 0);
	d = stest_add_done_run(stest_db, bis, STEST_C, 1);
	cr_assert_eq(store_run_create(stest_db, bis, STEST_A, &f, &err), 0);
	cr_assert_eq(store_run_start(stest_db, f, "host1", &err), 0);
	cr_assert_eq(store_run_finish(stest_db, f, &infra, NULL, 0, &err), 0);
	store_close(stest_db);

	/* The daemon restarts after a crash. */
	stest_db = stest_open();
	cr_assert_eq(store_runs_requeue_inflight(stest_db, &n, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(n, 2);
	cr_assert_eq(store_run_get(stest_db, r1, &r, &err), 0);
	cr_assert_eq(r.state, STORE_RUN_QUEUED);
	cr_assert_eq(r.attempt, 2);
	cr_assert_null(r.host);
	cr_assert_eq(r.started_ms, 0);
	store_run_release(&r);
	cr_assert_eq(store_run_get(stest_db, q, &r, &err), 0);
	cr_assert_eq(r.attempt, 1, "a queued run was not in flight");
	store_run_release(&r);
	cr_assert_eq(store_run_get(stest_db, d, &r, &err), 0);
	cr_assert_eq(r.state, STORE_RUN_DONE);
	store_run_release(&r);
	cr_assert_eq(stest_stats(stest_db, bis).runs[STORE_RUN_QUEUED], 3);
	cr_assert_eq(stest_stats(stest_db, bis).runs[STORE_RUN_RUNNING], 0);
	cr_assert_eq(stest_stats(stest_db, bis).samples, 2);
	cr_assert_eq(store_runs_requeue_inflight(stest_db, &n, &err), 0);
	cr_assert_eq(n, 0);

	/* An infrastructure failure is retried as a new attempt, once asked. */
	cr_assert_eq(store_run_retry(stest_db, d, &retry, &err), -EINVAL);
	cr_assert_eq(store_run_retry(stest_db, f, &retry, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(store_run_get(stest_db, retry, &r, &err), 0);
	cr_assert_eq(r.state, STORE_RUN_QUEUED);
	cr_assert_eq(r.attempt, 2);
	cr_assert_str_eq(r.commit, STEST_A);
	store_run_release(&r);
}

static int
count_run(void *arg, const struct store_run *r)
{
	int64_t *ids = arg;

	ids[++ids[0]] = r->id;
	return 0;
}

Test(store_rows, cancel_and_list_runs)
{
	struct bd_error err;
	int64_t bis, other, q, r, d, n, ids[16];

	stest_db = stest_open();
	bis = stest_add_bisection(stest_db, NULL, 0);
	other = stest_add_bisection(stest_db, NULL, 0);
	cr_assert_eq(store_run_create(stest_db, bis, STEST_A, &q, &err), 0);
	cr_assert_eq(store_run_create(stest_db, bis, STEST_B, &r, &err), 0);
	cr_assert_eq(store_run_start(stest_db, r, "host1", &err), 0);
	d = stest_add_done_run(stest_db, bis, STEST_C, 1);
	stest_add_done_run(stest_db, other, STEST_C, 1);
	cr_assert_eq(store_run_create(stest_db, other, STEST_A, &n, &err), 0);

	/* Finished runs first, in finish order, then the others by id. */
	ids[0] = 0;
	cr_assert_eq(store_run_list(stest_db, bis, ~0u, count_run, ids, &err),
	    0);
	cr_assert_eq(ids[0], 3);
	cr_assert_eq(ids[1], d);
	cr_assert_eq(ids[2], q);
	cr_assert_eq(ids[3], r);
	ids[0] = 0;
	cr_assert_eq(store_run_list(stest_db, 0, 1u << STORE_RUN_QUEUED,
	    count_run, ids, &err), 0);
	cr_assert_eq(ids[0], 2, "queued runs of every bisection");

	cr_assert_eq(store_runs_cancel(stest_db, bis, &n, &err), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(stest_stats(stest_db, bis).runs[STORE_RUN_CANCELLED], 2);
	cr_assert_eq(stest_stats(stest_db, other).runs[STORE_RUN_QUEUED], 1);
	cr_assert_eq(store_run_start(stest_db, q, "host1", &err), -EALREADY);

	/* Ending a bisection ends its pending runs with it, atomically. */
	cr_assert_eq(store_run_create(stest_db, other, STEST_B, &r, &err), 0);
	cr_assert_eq(store_run_start(stest_db, r, "host2", &err), 0);
	cr_assert_eq(store_bisection_set_state(stest_db, other,
	    STORE_BISECTION_CANCELLED, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(stest_stats(stest_db, other).runs[STORE_RUN_QUEUED], 0);
	cr_assert_eq(stest_stats(stest_db, other).runs[STORE_RUN_RUNNING], 0);
	cr_assert_eq(stest_stats(stest_db, other).runs[STORE_RUN_CANCELLED], 2);
	cr_assert_eq(stest_stats(stest_db, other).runs[STORE_RUN_DONE], 1);
}

static int
list_bisection(void *arg, const struct store_bisection *b)
{
	int64_t *ids = arg;

	ids[++ids[0]] = b->id;
	return 0;
}

static int
stop_early(void *arg, const struct store_bisection *b)
{
	(void)arg;
	(void)b;
	return -ECANCELED;
}

Test(store_rows, bisection_dedup_and_verdict)
{
	struct store_verdict_info v = { STORE_VERDICT_CULPRIT, STEST_C, 0.995,
	    "{\"top\":[]}" };
	struct store_bisection b;
	struct bd_error err;
	int64_t id1, id2, id3, dup = 0, ids[8];

	stest_db = stest_open();
	id1 = stest_add_bisection(stest_db, "same", 0);
	stest_fill_bisection(&b, "same", 3);
	cr_assert_eq(store_bisection_create(stest_db, &b, &dup, &err), -EEXIST);
	cr_assert_eq(dup, id1);
	b.params = "{not json";
	b.dedup_key = NULL;
	cr_assert_eq(store_bisection_create(stest_db, &b, &dup, &err), -EINVAL);
	b.params = "{}";
	b.ngood = 0;
	cr_assert_eq(store_bisection_create(stest_db, &b, &dup, &err), -EINVAL);

	cr_assert_eq(store_bisection_set_state(stest_db, id1,
	    STORE_BISECTION_RUNNING, NULL, &err), 0, "%s", err.msg);
	id2 = stest_add_bisection(stest_db, "other", 7);
	cr_assert_eq(store_bisection_set_state(stest_db, id1,
	    STORE_BISECTION_DONE, &v, &err), 0, "%s", err.msg);
	cr_assert_eq(store_bisection_set_state(stest_db, id1,
	    STORE_BISECTION_RUNNING, NULL, &err), -EALREADY);
	cr_assert_eq(store_bisection_set_state(stest_db, 99,
	    STORE_BISECTION_DONE, NULL, &err), -ENOENT);
	cr_assert_eq(store_bisection_get(stest_db, id1, &b, &err), 0);
	cr_assert_eq(b.state, STORE_BISECTION_DONE);
	cr_assert_eq(b.verdict, STORE_VERDICT_CULPRIT);
	cr_assert_str_eq(b.culprit, STEST_C);
	cr_assert_float_eq(b.confidence, 0.995, 1e-12);
	cr_assert_str_eq(b.detail, "{\"top\":[]}");
	cr_assert_geq(b.updated_ms, b.created_ms);
	store_bisection_release(&b);

	/* Once the first has ended, the same request starts a new one. */
	id3 = stest_add_bisection(stest_db, "same", 0);
	cr_assert_neq(id3, id1);

	ids[0] = 0;
	cr_assert_eq(store_bisection_list(stest_db, STORE_BISECTION_ACTIVE,
	    list_bisection, ids, &err), 0);
	cr_assert_eq(ids[0], 2);
	cr_assert_eq(ids[1], id2, "higher priority first");
	cr_assert_eq(ids[2], id3);
	ids[0] = 0;
	cr_assert_eq(store_bisection_list(stest_db, 1u << STORE_BISECTION_DONE,
	    list_bisection, ids, &err), 0);
	cr_assert_eq(ids[0], 1);
	cr_assert_eq(ids[1], id1);
	cr_assert_eq(store_bisection_list(stest_db, ~0u, stop_early, NULL,
	    &err), -ECANCELED);
	cr_assert_eq(store_bisection_get(stest_db, 1234, &b, &err), -ENOENT);
}

Test(store_rows, samples_in_finish_order_and_by_commit)
{
	struct store_metric m = { "throughput", 0, 0 };
	struct store_run_result res = { .state = STORE_RUN_DONE };
	struct stest_collect all = { .metric = "throughput" };
	struct stest_collect one = { .metric = "throughput" };
	struct bd_error err;
	int64_t bis, first, second;

	stest_db = stest_open();
	bis = stest_add_bisection(stest_db, NULL, 0);
	/* Created first, finished last: the order is the finish order. */
	cr_assert_eq(store_run_create(stest_db, bis, STEST_A, &first, &err), 0);
	cr_assert_eq(store_run_create(stest_db, bis, STEST_B, &second, &err),
	    0);
	cr_assert_eq(store_run_start(stest_db, first, "host1", &err), 0);
	cr_assert_eq(store_run_start(stest_db, second, "host1", &err), 0);
	m.value = 2;
	cr_assert_eq(store_run_finish(stest_db, second, &res, &m, 1, &err), 0);
	stest_add_done_run(stest_db, bis, STEST_A, 3);
	m.value = 1;
	cr_assert_eq(store_run_finish(stest_db, first, &res, &m, 1, &err), 0);

	cr_assert_eq(store_sample_list(stest_db, bis, NULL,
	    stest_collect_sample, &all, &err), 0);
	cr_assert_eq(all.n, 3);
	cr_assert_float_eq(all.v[0], 2, 0);
	cr_assert_float_eq(all.v[1], 3, 0);
	cr_assert_float_eq(all.v[2], 1, 0);
	cr_assert(all.seq[0] < all.seq[1] && all.seq[1] < all.seq[2]);
	cr_assert_eq(store_sample_list(stest_db, bis, STEST_A,
	    stest_collect_sample, &one, &err), 0);
	cr_assert_eq(one.n, 2);
	cr_assert_float_eq(one.v[0], 3, 0);
	cr_assert_float_eq(one.v[1], 1, 0);
}

static int
probe_commit(void *arg, const struct store_probe *p)
{
	char *out = arg;

	strncat(out, p->commit, 1);
	return 0;
}

Test(store_rows, events_and_probes_lists)
{
	struct bd_error err;
	char order[8] = "";
	int64_t bis;
	int i, n = 0;

	stest_db = stest_open();
	for (i = 0; i < 5; i++)
		cr_assert_eq(store_event_add(stest_db, 100 + i, 0, "cancel",
		    "ok", &err), 0);
	cr_assert_eq(store_event_add(stest_db, 1, 0, NULL, "ok", &err),
	    -EINVAL);
	cr_assert_eq(store_event_list(stest_db, 2, 0, stest_count_event, &n,
	    &err), 0);
	cr_assert_eq(n, 3, "events after id 2");
	n = 0;
	cr_assert_eq(store_event_list(stest_db, 0, 2, stest_count_event, &n,
	    &err), 0);
	cr_assert_eq(n, 2, "limit");

	bis = stest_add_bisection(stest_db, NULL, 0);
	cr_assert_eq(store_probe_add(stest_db, bis, STEST_C, NULL, &err), 0);
	cr_assert_eq(store_probe_add(stest_db, bis, STEST_A, NULL, &err), 0);
	cr_assert_eq(store_probe_add(stest_db, bis, STEST_B, NULL, &err), 0);
	cr_assert_eq(store_probe_list(stest_db, bis, probe_commit, order, &err),
	    0);
	cr_assert_str_eq(order, "cab");
	cr_assert_eq(stest_stats(stest_db, bis).probes, 3);
}

/* Issue 38: what a person reads names neither the store nor its file. */
Test(store, scrub_drops_the_prefix_and_the_path)
{
	char m[256];
	int lead;

	snprintf(m, sizeof(m), "store /var/lib/b/state.db: list samples: "
	    "disk I/O error");
	cr_assert_eq(store_scrub("/var/lib/b/state.db", m, sizeof(m)), 1);
	cr_assert_str_eq(m, "list samples: disk I/O error");

	snprintf(m, sizeof(m), "the database refused its state: store "
	    "/var/lib/b/state.db: set bisection state: constraint failed");
	cr_assert_eq(store_scrub("/var/lib/b/state.db", m, sizeof(m)), 0);
	cr_assert_str_eq(m, "the database refused its state: set bisection "
	    "state: constraint failed");

	/* A short path said many times grows the text: cut, never overrun. */
	snprintf(m, sizeof(m), "/d /d /d /d /d /d /d /d /d /d");
	lead = store_scrub("/d", m, 40);
	cr_assert_eq(lead, 0);
	cr_assert_eq(strlen(m), 39);
	cr_assert(strncmp(m, "the database the database the ", 30) == 0,
	    "%s", m);

	snprintf(m, sizeof(m), "cannot open /x/state.db-wal: gone");
	store_scrub("/x/state.db", m, sizeof(m));
	cr_assert_str_eq(m, "cannot open the database-wal: gone");
	store_scrub(NULL, m, sizeof(m));
	cr_assert_str_eq(m, "cannot open the database-wal: gone");
}

/* A culprit's confirmations: its children with "confirm", in any state. */
Test(store_rows, confirmations_are_the_confirm_children_of_one_parent)
{
	static const char *params[] = {
	    "{\"confirm\":true,\"parent\":5}",	/* yes */
	    "{\"parent\":5}",			/* a sub-range child */
	    "{\"confirm\":true,\"parent\":6}",	/* another culprit's */
	    "{\"confirm\":false,\"parent\":5}",
	    "{\"confirm\":true,\"parent\":5,\"group\":\"b\"}",	/* yes */
	};
	struct store_bisection b;
	struct bd_error err;
	int64_t id[5], ids[8] = { 0 };
	char key[16];
	size_t i;

	stest_db = stest_open();
	for (i = 0; i < 5; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		stest_fill_bisection(&b, key, 0);
		b.params = params[i];
		cr_assert_eq(store_bisection_create(stest_db, &b, &id[i], &err),
		    0, "%s", err.msg);
	}
	cr_assert_eq(store_bisection_set_state(stest_db, id[4],
	    STORE_BISECTION_CANCELLED, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(store_bisection_confirms(stest_db, 5, list_bisection, ids,
	    &err), 0, "%s", err.msg);
	cr_assert_eq(ids[0], 2);
	cr_assert_eq(ids[1], id[0]);
	cr_assert_eq(ids[2], id[4]);
	ids[0] = 0;
	cr_assert_eq(store_bisection_confirms(stest_db, 7, list_bisection, ids,
	    &err), 0, "%s", err.msg);
	cr_assert_eq(ids[0], 0);
}
