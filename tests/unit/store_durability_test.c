/* SPDX-License-Identifier: MIT */
/*
 * What the SQLite store keeps: data across a reopen, and what a second
 * process sees while one writes, dies by kill -9, or migrates at the same
 * time.
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

TestSuite(store_durability, .init = stest_setup, .fini = stest_teardown);

Test(store_durability, reopen_keeps_data)
{
	struct store_bisection b;
	struct store_build bu, bg;
	struct store_sweep sw, sg;
	struct stest_collect c = { .metric = "throughput" };
	struct bd_error err;
	char *text, *json;
	int64_t bis, build, run;
	int n = 0;

	stest_db = stest_open();
	bis = stest_add_bisection(stest_db, "k1", 5);
	run = stest_add_done_run(stest_db, bis, STEST_C, 10.5);
	store_build_init(&bu);
	bu.commit = STEST_C;
	bu.benchmark = "hackbench";
	bu.group = "g1";
	bu.host = "host1";
	bu.artifact = "/w/c.tar";
	bu.checksum = "sha256:00";
	bu.state = STORE_BUILD_OK;
	cr_assert_eq(store_build_record(stest_db, &bu, &build, &err), 0, "%s",
	    err.msg);
	store_sweep_init(&sw);
	sw.name = "next";
	sw.last_tag = "next-20260101";
	sw.state = "idle";
	cr_assert_eq(store_sweep_put(stest_db, &sw, &err), 0, "%s", err.msg);
	cr_assert_eq(store_report_put(stest_db, bis, "report text", "{\"a\":1}",
	    &err), 0, "%s", err.msg);
	cr_assert_eq(store_event_add(stest_db, 1, 0, "bisect", "ok", &err), 0);
	store_close(stest_db);

	stest_db = stest_open();
	cr_assert_eq(store_bisection_get(stest_db, bis, &b, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(b.ngood, 2);
	cr_assert_str_eq(b.good[0], STEST_A);
	cr_assert_str_eq(b.good[1], STEST_C);
	cr_assert_str_eq(b.bad, STEST_B);
	cr_assert_str_eq(b.metric, "throughput");
	cr_assert_str_eq(b.dedup_key, "k1");
	cr_assert_eq(b.priority, 5);
	cr_assert_eq(b.created_by, 1000);
	cr_assert_eq(b.state, STORE_BISECTION_QUEUED);
	store_bisection_release(&b);

	cr_assert_eq(store_sample_list(stest_db, bis, NULL,
	    stest_collect_sample, &c, &err), 0, "%s", err.msg);
	cr_assert_eq(c.n, 1);
	cr_assert_float_eq(c.v[0], 10.5, 1e-12);
	cr_assert_eq(stest_stats(stest_db, bis).runs[STORE_RUN_DONE], 1);
	cr_assert_gt(run, 0);

	cr_assert_eq(store_build_lookup(stest_db, STEST_C, "hackbench", "g1",
	    &bg, &err), 0, "%s", err.msg);
	cr_assert_eq(bg.id, build);
	cr_assert_str_eq(bg.artifact, "/w/c.tar");
	cr_assert_str_eq(bg.checksum, "sha256:00");
	cr_assert_eq(bg.state, STORE_BUILD_OK);
	store_build_release(&bg);
	cr_assert_eq(store_build_lookup(stest_db, STEST_C, "hackbench", "g2",
	    &bg, &err), -ENOENT);

	cr_assert_eq(store_sweep_get(stest_db, "next", &sg, &err), 0, "%s",
	    err.msg);
	cr_assert_str_eq(sg.last_tag, "next-20260101");
	cr_assert_str_eq(sg.state, "idle");
	store_sweep_release(&sg);

	cr_assert_eq(store_report_get(stest_db, bis, &text, &json, &err), 0);
	cr_assert_str_eq(text, "report text");
	cr_assert_str_eq(json, "{\"a\":1}");
	free(text);
	free(json);
	cr_assert_eq(store_event_list(stest_db, 0, 0, stest_count_event, &n,
	    &err), 0);
	cr_assert_eq(n, 1);
}

/* The writer of the concurrency tests: runs with two samples each. */
static void
writer(int64_t bis, int nruns, int ackfd)
{
	struct store_metric m[2] = { { "a", 1, 0 }, { "b", 2, 0 } };
	struct store_run_result res = { .state = STORE_RUN_DONE };
	struct store *s;
	int64_t id;
	int i;

	if (store_open(&s, stest_dbpath, NULL) != 0)
		_exit(2);
	for (i = 0; nruns == 0 || i < nruns; i++) {
		if (store_run_create(s, bis, STEST_C, &id, NULL) != 0 ||
		    store_run_start(s, id, "host1", NULL) != 0 ||
		    store_run_finish(s, id, &res, m, 2, NULL) != 0)
			_exit(3);
		if (ackfd >= 0 && write(ackfd, &id, sizeof(id)) != sizeof(id))
			_exit(4);
	}
	store_close(s);
	_exit(0);
}

Test(store_durability, reader_sees_consistent_data_while_writer_writes)
{
	struct store_bisection_stats sb;
	int64_t bis, checks = 0;
	int status = 0, nruns = 400;

	stest_db = stest_open();
	bis = stest_add_bisection(stest_db, NULL, 0);
	stest_child = fork();
	cr_assert_neq(stest_child, -1);
	if (stest_child == 0)
		writer(bis, nruns, -1);

	/* Each finished run brings its two samples in the same snapshot. */
	while (waitpid(stest_child, &status, WNOHANG) == 0) {
		sb = stest_stats(stest_db, bis);
		cr_assert_eq(sb.samples, 2 * sb.runs[STORE_RUN_DONE],
		    "samples %lld, done runs %lld", (long long)sb.samples,
		    (long long)sb.runs[STORE_RUN_DONE]);
		cr_assert_leq(sb.runs[STORE_RUN_QUEUED] +
		    sb.runs[STORE_RUN_RUNNING], 1);
		checks++;
	}
	stest_child = -1;
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "writer failed: status %d", status);
	sb = stest_stats(stest_db, bis);
	cr_assert_eq(sb.runs[STORE_RUN_DONE], nruns);
	cr_assert_eq(sb.samples, 2 * nruns);
	cr_assert_gt(checks, 0);
}

Test(store_durability, kill_9_loses_no_committed_sample)
{
	struct store_bisection_stats sb;
	struct store_run r;
	struct bd_error err;
	int64_t bis, id, acked[64], n;
	int fds[2], i, status;

	stest_db = stest_open();
	bis = stest_add_bisection(stest_db, NULL, 0);
	store_close(stest_db);
	stest_db = NULL;
	cr_assert_eq(pipe(fds), 0);
	stest_child = fork();
	cr_assert_neq(stest_child, -1);
	if (stest_child == 0) {
		close(fds[0]);
		writer(bis, 0, fds[1]);
	}
	close(fds[1]);
	/* Each id arrives after its commit returned: it must survive. */
	for (i = 0; i < 64; i++)
		cr_assert_eq(read(fds[0], &acked[i], sizeof(id)), sizeof(id));
	kill(stest_child, SIGKILL);
	waitpid(stest_child, &status, 0);
	stest_child = -1;
	close(fds[0]);
	cr_assert(WIFSIGNALED(status));

	stest_db = stest_open();
	for (i = 0; i < 64; i++) {
		cr_assert_eq(store_run_get(stest_db, acked[i], &r, &err), 0,
		    "%s", err.msg);
		cr_assert_eq(r.state, STORE_RUN_DONE);
		store_run_release(&r);
	}
	cr_assert_eq(store_runs_requeue_inflight(stest_db, &n, &err), 0);
	cr_assert_leq(n, 1, "at most the run in flight at the kill");
	sb = stest_stats(stest_db, bis);
	cr_assert_geq(sb.runs[STORE_RUN_DONE], 64);
	cr_assert_eq(sb.samples, 2 * sb.runs[STORE_RUN_DONE]);
}

Test(store_durability, processes_opening_a_new_database_at_once_migrate_once)
{
	pid_t pids[4];
	int i, status, ok = 0;

	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		cr_assert_neq(pids[i], -1);
		if (pids[i] == 0) {
			struct store *s;

			if (store_open(&s, stest_dbpath, NULL) != 0)
				_exit(1);
			store_close(s);
			_exit(0);
		}
	}
	for (i = 0; i < 4; i++) {
		waitpid(pids[i], &status, 0);
		ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	cr_assert_eq(ok, 4);
	stest_db = stest_open();
	cr_assert_eq(store_schema_version(stest_db), (int)store_nmigrations);
}
