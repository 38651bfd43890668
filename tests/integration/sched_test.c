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
#include "daemon/bisection.h"
#include "daemon/sched.h"
#include "remote/metrics.h"
#include "remote/step.h"
#include "store/store.h"
#include "tests/support/sshd.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

#define ST_NHOSTS	2

/* Every event the scheduler emitted, in order, as {"kind": ..., fields}. */
struct st_sink {
	json_t		*events;
	uv_loop_t	*loop;
	int		 done;		/* a "done" event arrived */
	size_t		 nsamples;
	size_t		 stop_at;	/* samples after which to stop; 0: none */
	int64_t		 resumed;	/* bisection whose engine is looked at */
	size_t		 replayed;	/* its engine's samples once loaded */
	/* Sweep runs queued at the second probe-started, and their ends. */
	unsigned	 sweep_runs;
	int		 sweep_priority;
	unsigned	 probes, sweeps_ok, sweeps_back;
	size_t		 sweep_queued_at;	/* index in events */
};

struct st {
	struct sshd	 host[ST_NHOSTS];
	int		 nhosts;
	char		*dir;
	char		*repo_path;
	char		 good[41], bad[41], culprit[41];
	struct config	 cfg;
	struct store	*store;
	git_repository	*repo;
	uv_loop_t	 loop;
	int		 loop_ready;
	int		 git_ready;
	struct sched	*sched;
	struct st_sink	 sink;
};

static struct st st;

static void st_sweeps_queue(struct st_sink *sink);

/* Stops and frees in the order the scheduler's header asks for. */
static void
st_fini(void)
{
	int i;

	if (st.sched != NULL) {
		sched_stop(st.sched);
		uv_run(&st.loop, UV_RUN_DEFAULT);
		sched_free(st.sched);
	}
	if (st.loop_ready)
		uv_loop_close(&st.loop);
	git_repository_free(st.repo);
	if (st.store != NULL)
		store_close(st.store);
	if (st.git_ready)
		git_libgit2_shutdown();
	config_release(&st.cfg);
	json_decref(st.sink.events);
	for (i = 0; i < st.nhosts; i++)
		sshd_cleanup(&st.host[i]);
	tst_rmrf(st.dir);
	free(st.dir);
	free(st.repo_path);
	memset(&st, 0, sizeof(st));
	tst_leak_check();
}

TestSuite(sched, .fini = st_fini, .timeout = 900);

/* What the engine holds right after loading: the replayed samples. */
static void
st_look_at_engine(struct st_sink *sink)
{
	struct engine_status es;
	struct bisection *b;
	struct bd_error err;

	cr_assert_not_null(b = sched_find(st.sched, sink->resumed, &err));
	cr_assert(b->engine_ready);
	engine_status(&b->e, &es);
	sink->replayed = es.samples;
}

/* The recording sink; the first "done" ends the loop's run. */
static void
st_emit(void *arg, const char *kind, json_t *fields)
{
	struct st_sink *sink = arg;

	cr_assert_not_null(fields, "event %s without fields", kind);
	if (strcmp(kind, "bisection") == 0 && sink->resumed != 0)
		st_look_at_engine(sink);
	json_object_set_new(fields, "kind", json_string(kind));
	json_array_append_new(sink->events, fields);
	if (strcmp(kind, "sample") == 0 && ++sink->nsamples == sink->stop_at)
		uv_stop(sink->loop);
	if (strcmp(kind, "probe-started") == 0 && ++sink->probes == 2 &&
	    sink->sweep_runs > 0)
		st_sweeps_queue(sink);
	if (strcmp(kind, "done") == 0) {
		sink->done = 1;
		if (sink->sweeps_back == sink->sweep_runs)
			uv_stop(sink->loop);
	}
}

/* What a reload would replace; the test never reloads. */
static const struct config *
st_config(void *arg)
{
	return arg;
}

/* A configuration file with the fixture's benchmark and one [host] per sshd. */
static char *
st_config_text(void)
{
	struct passwd *pw = getpwuid(getuid());
	char *text, *t;
	int i;

	xasprintf(&text, "[daemon]\nsocket = %s/unused.sock\n"
	    "database = %s/state.db\nworkdir = %s/work\n\n"
	    "[repo]\npath = %s\n\n"
	    "[benchmark spin]\n"
	    "build = mkdir -p {workdir}/src-{short} && git -C %s archive "
	    "{commit} | tar -x -C {workdir}/src-{short} && cc -O2 -o "
	    "{workdir}/src-{short}/bench {workdir}/src-{short}/bench.c\n"
	    "artifact = {workdir}/src-{short}/bench\n"
	    "run = {artifact}\n"
	    "metrics = runtime_ms:lower, ops_per_sec:higher\n"
	    "min_change = 5%%\n"
	    "build_timeout = 2m\nrun_timeout = 1m\n\n",
	    st.dir, st.dir, st.dir, st.repo_path, st.repo_path);
	for (i = 0; i < st.nhosts; i++) {
		xasprintf(&t, "%s[host h%d]\naddress = 127.0.0.1\nport = %d\n"
		    "user = %s\nidentity = %s\nknown_hosts = %s\n"
		    "group = lab\nroles = build,test\nworkdir = %s/w%d\n"
		    "connect_timeout = 5s\nkeepalive = 2s\n\n", text, i,
		    st.host[i].port, pw->pw_name, st.host[i].user_key,
		    st.host[i].known_hosts, st.dir, i);
		free(text);
		text = t;
	}
	return text;
}

/* A scheduler over the test's loop, store and repository. */
static void
st_sched_start(void)
{
	struct sched_env env = {
		.loop = &st.loop,
		.store = st.store,
		.repo = st.repo,
		.config = st_config,
		.config_arg = &st.cfg,
		.events = { .emit = st_emit, .arg = &st.sink },
	};
	struct bd_error err;

	cr_assert_eq(sched_new(&env, &st.sched, &err), 0, "%s", err.msg);
}

/* The shutdown a restart begins with: remote work stops, unrecorded. */
static void
st_sched_shutdown(void)
{
	sched_stop(st.sched);
	uv_run(&st.loop, UV_RUN_DEFAULT);
	sched_free(st.sched);
	st.sched = NULL;
}

/* Fixture repository, hosts, configuration, store, repository, scheduler. */
static void
st_setup(const char *tag)
{
	struct config_errors errs = { NULL, 0 };
	struct bd_error err;
	struct svc_ids ids;
	char *text, *path;
	int i;

	memset(&st, 0, sizeof(st));
	config_init(&st.cfg);
	st.sink.events = json_array();
	cr_assert_not_null(st.dir = tst_tmpdir(tag));
	xasprintf(&st.repo_path, "%s/linux", st.dir);
	svc_generate("make-repo.sh", st.repo_path, "6", "2:3", "0", &ids);
	memcpy(st.good, ids.good, sizeof(st.good));
	memcpy(st.bad, ids.bad, sizeof(st.bad));
	memcpy(st.culprit, ids.culprit, sizeof(st.culprit));
	for (i = 0; i < ST_NHOSTS; i++) {
		char htag[32];

		snprintf(htag, sizeof(htag), "%s-h%d", tag, i);
		cr_assert_eq(sshd_start(&st.host[i], htag), 0);
		st.nhosts++;
	}
	text = st_config_text();
	path = tst_write_file(st.dir, "bisectd.conf", text);
	free(text);
	cr_assert_eq(config_load(&st.cfg, path, &errs), 0, "%s",
	    errs.n ? errs.msgs[0] : "");
	config_errors_release(&errs);
	free(path);
	cr_assert_eq(store_open(&st.store, st.cfg.daemon.database, &err), 0,
	    "%s", err.msg);
	cr_assert_eq(uv_loop_init(&st.loop), 0);
	st.loop_ready = 1;
	st.sink.loop = &st.loop;
	git_libgit2_init();
	st.git_ready = 1;
	cr_assert_eq(git_repository_open(&st.repo, st.repo_path), 0);
	st_sched_start();
}

/* The events of one kind, in order (borrowed from the sink; caller frees). */
static json_t *
st_events(const char *kind)
{
	json_t *list = json_array(), *e;
	size_t i;

	json_array_foreach(st.sink.events, i, e)
		if (strcmp(json_string_value(json_object_get(e, "kind")),
		    kind) == 0)
			json_array_append(list, e);
	return list;
}

/* A request with the fixture's own range; the caller may change fields. */
static void
st_request(struct sched_request *r, const char *const *good)
{
	memset(r, 0, sizeof(*r));
	r->good = good;
	r->ngood = 1;
	r->bad = st.bad;
	r->benchmark = "spin";
	r->metric = "ops_per_sec";
	r->group = "lab";
	r->uid = getuid();
}

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

	/* The engine started with candidates, then probes, then samples. */
	ev = st_events("bisection");
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

		cr_assert_eq(json_integer_value(json_object_get(e,
		    "bisection")), id, "event %s of another bisection", kind);
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
	ev = st_events("sample");
	cr_assert_gt(json_array_size(ev), 6);
	json_decref(ev);

	/* The verdict names the planted culprit and the store agrees. */
	ev = st_events("verdict");
	cr_assert_eq(json_array_size(ev), 1);
	e = json_array_get(ev, 0);
	cr_assert_str_eq(json_string_value(json_object_get(e, "verdict")),
	    "culprit");
	cr_assert_str_eq(json_string_value(json_object_get(e, "culprit")),
	    st.culprit);
	json_decref(ev);
	ev = st_events("done");
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

/* Done runs of a bisection: each stored one sample of its metric. */
static size_t
st_count_samples(int64_t id)
{
	struct store_bisection_stats bs;
	struct bd_error err;

	memset(&bs, 0, sizeof(bs));
	cr_assert_eq(store_bisection_stats(st.store, id, &bs, &err), 0);
	return (size_t)bs.runs[STORE_RUN_DONE];
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
	ev = st_events("bisection");
	cr_assert_eq(json_array_size(ev), 1, "resumed before the loop ran");
	json_decref(ev);
	uv_run(&st.loop, UV_RUN_DEFAULT);
	cr_assert(st.sink.done, "the loop ended without a done event");
	ev = st_events("bisection");
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
st_sweep_done(void *arg, int64_t row, const struct step_result *r,
    const char *where)
{
	struct st_sink *sink = arg;

	(void)where;
	cr_assert_eq(row, 7);
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
	struct sched_sweep_run req = {
		.sweep = "s", .row = 7, .benchmark = "spin", .group = "lab",
		.commit = st.bad, .priority = sink->sweep_priority,
		.done = st_sweep_done, .arg = sink,
	};
	struct bd_error err;
	unsigned i;

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
