/* SPDX-License-Identifier: MIT */
/* The in-process scheduler fixture (see st.h). */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "bisect/engine.h"
#include "sched/bisection.h"
#include "daemon/reporter.h"
#include "tests/support/st.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

struct st st;

/* Stops and frees in the order the scheduler's header asks for. */
void
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

/* The bisection that started id to verify its culprit, or 0. */
int64_t
st_parent_of(int64_t id)
{
	struct bisection *b;
	struct bd_error err;

	if ((b = sched_find(st.sched, id, &err)) == NULL)
		return 0;
	return b->parent_id;
}

/* The recording sink; the first "done" of a parent ends the loop's run. */
static void
st_emit(void *arg, const char *kind, json_t *fields)
{
	struct st_sink *sink = arg;

	cr_assert_not_null(fields, "event %s without fields", kind);
	/*
	 * Only the resumed bisection's first event follows its load: a child
	 * that verification starts later announces itself the same way.
	 */
	if (strcmp(kind, "bisection") == 0 && sink->resumed != 0 &&
	    json_integer_value(json_object_get(fields, "bisection")) ==
	    sink->resumed) {
		st_look_at_engine(sink);
		sink->resumed = 0;
	}
	json_object_set_new(fields, "kind", json_string(kind));
	json_array_append_new(sink->events, fields);
	if (strcmp(kind, "sample") == 0 && ++sink->nsamples == sink->stop_at)
		uv_stop(sink->loop);
	if (strcmp(kind, "probe-started") == 0 && ++sink->probes == 2 &&
	    sink->second_probe != NULL)
		sink->second_probe(sink);
	/* A child that verification started ends before its parent. */
	if (strcmp(kind, "done") == 0 && st_parent_of(json_integer_value(
	    json_object_get(fields, "bisection"))) == 0) {
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
	char *text, *sections;

	sections = svc_sections_for(st.repo_path, NULL, st.host, st.nhosts,
	    st.dir, "");
	xasprintf(&text, "[daemon]\nsocket = %s/unused.sock\n"
	    "database = %s/state.db\nworkdir = %s/work\n\n%s", st.dir, st.dir,
	    st.dir, sections);
	free(sections);
	return text;
}

/* Verdicts are reported as the daemon reports them. */
static void
st_verdict(void *arg, struct bisection *b)
{
	(void)arg;
	reporter_run(st.store, &st.cfg, st.repo, &st.loop, b);
}

/* A scheduler over the test's loop, store and repository. */
void
st_sched_start(void)
{
	struct sched_env env = {
		.loop = &st.loop,
		.store = st.store,
		.repo = st.repo,
		.config = st_config,
		.config_arg = &st.cfg,
		.events = { .emit = st_emit, .verdict = st_verdict,
		    .arg = &st.sink },
	};
	struct bd_error err;

	cr_assert_eq(sched_new(&env, &st.sched, &err), 0, "%s", err.msg);
}

/* The shutdown a restart begins with: remote work stops, unrecorded. */
void
st_sched_shutdown(void)
{
	sched_stop(st.sched);
	uv_run(&st.loop, UV_RUN_DEFAULT);
	sched_free(st.sched);
	st.sched = NULL;
}

/* Fixture repository, hosts, configuration, store, repository, scheduler. */
void
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
json_t *
st_events(const char *kind, int64_t id)
{
	json_t *list = json_array(), *e;
	size_t i;

	json_array_foreach(st.sink.events, i, e)
		if (strcmp(json_string_value(json_object_get(e, "kind")),
		    kind) == 0 && (id == 0 || json_integer_value(
		    json_object_get(e, "bisection")) == id))
			json_array_append(list, e);
	return list;
}

/* A request with the fixture's own range; the caller may change fields. */
void
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

/* Done runs of a bisection: each stored one sample of its metric. */
size_t
st_count_samples(int64_t id)
{
	struct store_bisection_stats bs;
	struct bd_error err;

	memset(&bs, 0, sizeof(bs));
	cr_assert_eq(store_bisection_stats(st.store, id, &bs, &err), 0);
	return (size_t)bs.runs[STORE_RUN_DONE];
}

