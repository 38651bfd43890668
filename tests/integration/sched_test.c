/* SPDX-License-Identifier: MIT */
/*
 * The scheduler on its own: a libuv loop, a store, a repository and a
 * recording event sink, with no control socket and no struct daemon.  Two
 * sshd "hosts" on loopback build and run the fixture's benchmark, so the
 * bisection the typed request starts really reaches a verdict.
 */
#include <criterion/criterion.h>

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>
#include <jansson.h>
#include <uv.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "bisect/engine.h"
#include "sched/bisection.h"
#include "sched/sched.h"
#include "remote/metrics.h"
#include "remote/step.h"
#include "store/store.h"
#include "tests/support/st.h"
#include "tests/support/tst.h"

TestSuite(sched, .fini = st_fini, .timeout = 900);

/*
 * Bad typed requests are refused with the field named and emit nothing; a
 * good one runs to the planted culprit with its events at the sink.
 */
Test(sched, typed_requests_reach_a_verdict_without_a_control_socket)
{
	const char *good[] = { st.good };
	struct sched_request r;
	struct store_bisection rec;
	struct bd_error err;
	json_t *ev, *e, *started;
	int64_t id = 0, id2 = 0;
	int existing = 0;
	size_t i, j;

	st_setup("sched-verdict");
	good[0] = st.good;

	st_request(&r, good);
	r.benchmark = "nope";
	cr_assert_eq(sched_bisect(st.sched, &r, &id, &existing, &err),
	    -ENOENT);
	cr_assert_not_null(strstr(err.msg, "benchmark"), "%s", err.msg);
	st_request(&r, good);
	r.has_confidence = 1;
	r.confidence = 1.5;
	cr_assert_eq(sched_bisect(st.sched, &r, &id, &existing, &err),
	    -EINVAL);
	cr_assert_not_null(strstr(err.msg, "confidence"), "%s", err.msg);
	st_request(&r, good);
	r.group = "nogroup";
	cr_assert_eq(sched_bisect(st.sched, &r, &id, &existing, &err),
	    -EINVAL);
	st_request(&r, good);
	r.ngood = 0;
	cr_assert_eq(sched_bisect(st.sched, &r, &id, &existing, &err),
	    -EINVAL);
	cr_assert_eq(json_array_size(st.sink.events), 0,
	    "a refused request emitted events");

	st_request(&r, good);
	cr_assert_eq(sched_bisect(st.sched, &r, &id, &existing, &err), 0,
	    "%s", err.msg);
	cr_assert_not(existing);
	cr_assert_eq(sched_bisect(st.sched, &r, &id2, &existing, &err), 0);
	cr_assert(existing, "an identical request is the same bisection");
	cr_assert_eq(id2, id);

	uv_run(&st.loop, UV_RUN_DEFAULT);
	cr_assert(st.sink.done, "the loop ended without a done event");

	/*
	 * The engine started with candidates, then probes, then samples.  A
	 * child that verification may start for a second culprit has events
	 * of its own, left out here.
	 */
	ev = st_events("bisection", id);
	cr_assert_eq(json_array_size(ev), 1);
	e = json_array_get(ev, 0);
	cr_assert_eq(json_integer_value(json_object_get(e, "bisection")), id);
	cr_assert_str_eq(json_string_value(json_object_get(e, "state")),
	    "running");
	cr_assert_gt(json_integer_value(json_object_get(e, "candidates")), 1);
	json_decref(ev);

	/* Every sample belongs to a run whose probe was announced before. */
	started = json_array();
	json_array_foreach(st.sink.events, i, e) {
		const char *kind = json_string_value(json_object_get(e,
		    "kind"));
		json_t *s;
		int seen = 0;

		int64_t of = json_integer_value(json_object_get(e,
		    "bisection"));

		if (of != id) {
			cr_assert_eq(st_parent_of(of), id, "event %s of another "
			    "bisection", kind);
			continue;
		}
		if (strcmp(kind, "probe-started") == 0)
			json_array_append_new(started, json_integer(
			    json_integer_value(json_object_get(e, "run"))));
		if (strcmp(kind, "sample") != 0)
			continue;
		cr_assert_str_eq(json_string_value(json_object_get(e,
		    "metric")), "ops_per_sec");
		cr_assert(json_is_real(json_object_get(e, "value")));
		json_array_foreach(started, j, s)
			if (json_integer_value(s) == json_integer_value(
			    json_object_get(e, "run")))
				seen = 1;
		cr_assert(seen, "a sample of run %lld before its probe",
		    (long long)json_integer_value(json_object_get(e, "run")));
	}
	cr_assert_gt(json_array_size(started), 6);
	json_decref(started);
	ev = st_events("sample", id);
	cr_assert_gt(json_array_size(ev), 6);
	json_decref(ev);

	/* The verdict names the planted culprit and the store agrees. */
	ev = st_events("verdict", id);
	cr_assert_eq(json_array_size(ev), 1);
	e = json_array_get(ev, 0);
	cr_assert_str_eq(json_string_value(json_object_get(e, "verdict")),
	    "culprit");
	cr_assert_str_eq(json_string_value(json_object_get(e, "culprit")),
	    st.culprit);
	json_decref(ev);
	ev = st_events("done", id);
	cr_assert_eq(json_array_size(ev), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(ev,
	    0), "state")), "done");
	json_decref(ev);
	store_bisection_init(&rec);
	cr_assert_eq(store_bisection_get(st.store, id, &rec, &err), 0);
	cr_assert_eq(rec.state, STORE_BISECTION_DONE);
	cr_assert_str_eq(rec.culprit, st.culprit);
	cr_assert_eq(rec.created_by, getuid());
	store_bisection_release(&rec);
}

/*
 * A scheduler stopped mid-bisection and made again over the same store
 * replays the stored results through the same feed as the live path and
 * goes on to the culprit.
 */
Test(sched, a_new_scheduler_resumes_from_the_store)
{
	const char *good[] = { NULL };
	struct sched_request r;
	struct store_bisection rec;
	struct bd_error err;
	json_t *ev;
	int64_t id = 0;
	int existing = 0;
	size_t before;

	st_setup("sched-resume");
	good[0] = st.good;
	st_request(&r, good);
	st.sink.stop_at = 4;
	cr_assert_eq(sched_bisect(st.sched, &r, &id, &existing, &err), 0,
	    "%s", err.msg);
	uv_run(&st.loop, UV_RUN_DEFAULT);
	cr_assert_not(st.sink.done, "finished before the restart");
	st_sched_shutdown();
	before = st_count_samples(id);
	cr_assert_geq(before, 4);

	st.sink.resumed = id;
	st_sched_start();
	ev = st_events("bisection", id);
	cr_assert_eq(json_array_size(ev), 1, "resumed before the loop ran");
	json_decref(ev);
	uv_run(&st.loop, UV_RUN_DEFAULT);
	cr_assert(st.sink.done, "the loop ended without a done event");
	ev = st_events("bisection", id);
	cr_assert_eq(json_array_size(ev), 2, "the new scheduler resumed it");
	json_decref(ev);
	cr_assert_eq(st.sink.replayed, before, "the engine replayed %zu of "
	    "%zu stored samples", st.sink.replayed, before);
	cr_assert_gt(st_count_samples(id), before);
	store_bisection_init(&rec);
	cr_assert_eq(store_bisection_get(st.store, id, &rec, &err), 0);
	cr_assert_eq(rec.state, STORE_BISECTION_DONE);
	cr_assert_str_eq(rec.culprit, st.culprit);
	store_bisection_release(&rec);
}

/* A sweep run ended: its result must be a sample of the benchmark. */
static void
st_sweep_done(void *arg, int64_t row, int64_t job,
    const struct step_result *r, const char *where)
{
	struct st_sink *sink = arg;

	(void)where;
	cr_assert_eq(row, sink->sweep_row);
	cr_assert_gt(job, 0, "a sweep run without its stored row");
	if (r != NULL && r->outcome == STEP_OK &&
	    metrics_find(&r->metrics, "ops_per_sec") != NULL)
		sink->sweeps_ok++;
	if (++sink->sweeps_back == sink->sweep_runs && sink->done)
		uv_stop(sink->loop);
}

/* Queues the sink's sweep runs at the bad commit, while probes are out. */
static void
st_sweeps_queue(struct st_sink *sink)
{
	struct store_sweep_ref row = { .ref = "refs/tags/next-1",
	    .commit = st.bad, .event = 1, .state = STORE_SWEEP_PENDING };
	struct sched_sweep_run req = {
		.sweep = "s", .benchmark = "spin", .group = "lab",
		.commit = st.bad, .priority = sink->sweep_priority,
		.done = st_sweep_done, .arg = sink,
	};
	struct bd_error err;
	unsigned i;

	cr_assert_eq(store_sweep_advance(st.store, "s", 1, &row, 1,
	    &sink->sweep_row, &err), 0, "%s", err.msg);
	req.row = sink->sweep_row;
	sink->sweep_queued_at = json_array_size(sink->events);
	for (i = 0; i < sink->sweep_runs; i++)
		cr_assert_eq(sched_run_sweep(st.sched, &req, &err), 0, "%s",
		    err.msg);
}

/*
 * Sweep runs of a priority above a bisection's take the hosts it frees
 * before it gets another probe; they run through the same backend and
 * bring back the benchmark's metrics, and the bisection still ends.
 */
Test(sched, sweep_runs_above_a_bisection_get_its_freed_hosts_first)
{
	const char *good[] = { NULL };
	struct sched_request r;
	struct bd_error err;
	json_t *e;
	int64_t id = 0;
	int existing = 0;
	size_t i, first_probe = SIZE_MAX, last_sweep = 0, started = 0;

	st_setup("sched-sweep");
	good[0] = st.good;
	st_request(&r, good);
	st.sink.sweep_runs = 3;
	st.sink.second_probe = st_sweeps_queue;
	st.sink.sweep_priority = 1;
	cr_assert_eq(sched_bisect(st.sched, &r, &id, &existing, &err), 0,
	    "%s", err.msg);
	uv_run(&st.loop, UV_RUN_DEFAULT);
	cr_assert(st.sink.done, "the loop ended without a done event");
	cr_assert_eq(st.sink.sweeps_back, 3);
	cr_expect_eq(st.sink.sweeps_ok, 3);
	json_array_foreach(st.sink.events, i, e) {
		const char *kind = json_string_value(json_object_get(e,
		    "kind"));

		if (i < st.sink.sweep_queued_at)
			continue;
		if (strcmp(kind, "probe-started") == 0 && first_probe ==
		    SIZE_MAX)
			first_probe = i;
		if (strcmp(kind, "sweep-run") == 0 && strcmp(json_string_value(
		    json_object_get(e, "state")), "started") == 0) {
			started++;
			last_sweep = i;
			cr_expect_str_eq(json_string_value(json_object_get(e,
			    "commit")), st.bad);
		}
	}
	cr_assert_eq(started, 3);
	cr_expect_lt(last_sweep, first_probe, "a probe started at event %zu "
	    "before the last sweep run at %zu", first_probe, last_sweep);
}
