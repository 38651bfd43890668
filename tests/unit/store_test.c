/*
 * The SQLite store: schema and migrations, constraints, the run life
 * cycle, and what a second process sees while one writes or dies.
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
#include "tests/support/tst.h"

static char		*dir;
static char		*dbpath;
static struct store	*st;
static pid_t		 child = -1;

/* Each test gets its own directory; fini cleans up also after a failure. */
static void
store_setup(void)
{
	dir = tst_tmpdir("store");
	cr_assert_not_null(dir);
	xasprintf(&dbpath, "%s/state.db", dir);
}

static void
store_teardown(void)
{
	int status;

	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		child = -1;
	}
	store_close(st);
	st = NULL;
	tst_rmrf(dir);
	free(dir);
	free(dbpath);
	dir = dbpath = NULL;
	tst_leak_check();
}

TestSuite(store, .init = store_setup, .fini = store_teardown);

static const char *const A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char *const B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
static const char *const C = "cccccccccccccccccccccccccccccccccccccccc";

/* Opens the test database, failing the test with the store's message. */
static struct store *
open_db(void)
{
	struct bd_error err;
	struct store *s;
	int rc;

	bd_error_clear(&err);
	rc = store_open(&s, dbpath, &err);
	cr_assert_eq(rc, 0, "store_open: %s", err.msg);
	return s;
}

static const char *goods[] = { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "cccccccccccccccccccccccccccccccccccccccc" };

/* A request from uid 1000 for goods..B with dedup key key (NULL: none). */
static void
fill_bisection(struct store_bisection *b, const char *key, int priority)
{
	store_bisection_init(b);
	b->params = "{\"benchmark\":\"hackbench\"}";
	b->good = goods;
	b->ngood = 2;
	b->bad = B;
	b->benchmark = "hackbench";
	b->metric = "throughput";
	b->group = "g1";
	b->dedup_key = key;
	b->priority = priority;
	b->created_by = 1000;
}

/* A queued bisection with dedup key key (NULL: none). */
static int64_t
add_bisection(struct store *s, const char *key, int priority)
{
	struct store_bisection b;
	struct bd_error err;
	int64_t id = 0;
	int rc;

	fill_bisection(&b, key, priority);
	rc = store_bisection_create(s, &b, &id, &err);
	cr_assert_eq(rc, 0, "create: %s", err.msg);
	cr_assert_gt(id, 0);
	return id;
}

/* A done run of commit with two metrics (value v and 2v). */
static int64_t
add_done_run(struct store *s, int64_t bis, const char *commit, double v)
{
	struct store_metric m[2] = { { "throughput", v }, { "latency", 2 * v } };
	struct store_run_result res = { .state = STORE_RUN_DONE, .has_exit = 1 };
	struct bd_error err;
	int64_t id;

	cr_assert_eq(store_run_create(s, bis, commit, &id, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(store_run_start(s, id, "host1", &err), 0, "%s", err.msg);
	cr_assert_eq(store_run_finish(s, id, &res, m, 2, &err), 0, "%s",
	    err.msg);
	return id;
}

static struct store_bisection_stats
stats(struct store *s, int64_t bis)
{
	struct store_bisection_stats sb;
	struct bd_error err;

	cr_assert_eq(store_bisection_stats(s, bis, &sb, &err), 0, "%s",
	    err.msg);
	return sb;
}

static int
count_event(void *arg, const struct store_event *ev)
{
	(void)ev;
	(*(int *)arg)++;
	return 0;
}

/* Collects the values of one metric, in the order the store returns them. */
struct collect {
	const char	*metric;
	double		 v[64];
	int64_t		 seq[64];
	int		 n;
};

static int
collect_sample(void *arg, const struct store_sample *sm)
{
	struct collect *c = arg;

	if (strcmp(sm->metric, c->metric) != 0)
		return 0;
	cr_assert_lt(c->n, 64);
	cr_assert_str_eq(sm->host, "host1");
	c->seq[c->n] = sm->seq;
	c->v[c->n++] = sm->value;
	return 0;
}

Test(store, migrate_from_empty)
{
	struct store_host h, got;
	struct bd_error err;
	struct stat sb;
	char *wal;
	int n = 0;

	st = open_db();
	cr_assert_eq(store_schema_version(st),
	    store_migrations[store_nmigrations - 1].version);
	cr_assert_eq(store_event_add(st, 1234, 1000, "ping", "ok", &err), 0,
	    "%s", err.msg);
	cr_assert_eq(store_event_list(st, 0, 0, count_event, &n, &err), 0);
	cr_assert_eq(n, 1);

	store_host_init(&h);
	h.name = "h1";
	h.group = "g1";
	h.state = STORE_HOST_UP;
	h.last_seen_ms = 77;
	cr_assert_eq(store_host_put(st, &h, &err), 0, "%s", err.msg);
	cr_assert_eq(store_host_get(st, "h1", &got, &err), 0, "%s", err.msg);
	cr_assert_str_eq(got.group, "g1");
	cr_assert_eq(got.state, STORE_HOST_UP);
	cr_assert_eq(got.last_seen_ms, 77);
	store_host_release(&got);

	/* WAL mode: the write-ahead log sits beside the database. */
	xasprintf(&wal, "%s-wal", dbpath);
	cr_assert_eq(stat(wal, &sb), 0, "no %s: not in WAL mode", wal);
	free(wal);
}

Test(store, reopen_keeps_data)
{
	struct store_bisection b;
	struct store_build bu, bg;
	struct store_sweep sw, sg;
	struct collect c = { .metric = "throughput" };
	struct bd_error err;
	char *text, *json;
	int64_t bis, build, run;
	int n = 0;

	st = open_db();
	bis = add_bisection(st, "k1", 5);
	run = add_done_run(st, bis, C, 10.5);
	store_build_init(&bu);
	bu.commit = C;
	bu.benchmark = "hackbench";
	bu.group = "g1";
	bu.host = "host1";
	bu.artifact = "/w/c.tar";
	bu.checksum = "sha256:00";
	bu.state = STORE_BUILD_OK;
	cr_assert_eq(store_build_record(st, &bu, &build, &err), 0, "%s",
	    err.msg);
	store_sweep_init(&sw);
	sw.name = "next";
	sw.last_tag = "next-20260101";
	sw.state = "idle";
	cr_assert_eq(store_sweep_put(st, &sw, &err), 0, "%s", err.msg);
	cr_assert_eq(store_report_put(st, bis, "report text", "{\"a\":1}",
	    &err), 0, "%s", err.msg);
	cr_assert_eq(store_event_add(st, 1, 0, "bisect", "ok", &err), 0);
	store_close(st);

	st = open_db();
	cr_assert_eq(store_bisection_get(st, bis, &b, &err), 0, "%s", err.msg);
	cr_assert_eq(b.ngood, 2);
	cr_assert_str_eq(b.good[0], A);
	cr_assert_str_eq(b.good[1], C);
	cr_assert_str_eq(b.bad, B);
	cr_assert_str_eq(b.metric, "throughput");
	cr_assert_str_eq(b.dedup_key, "k1");
	cr_assert_eq(b.priority, 5);
	cr_assert_eq(b.created_by, 1000);
	cr_assert_eq(b.state, STORE_BISECTION_QUEUED);
	store_bisection_release(&b);

	cr_assert_eq(store_sample_list(st, bis, NULL, collect_sample, &c,
	    &err), 0, "%s", err.msg);
	cr_assert_eq(c.n, 1);
	cr_assert_float_eq(c.v[0], 10.5, 1e-12);
	cr_assert_eq(stats(st, bis).runs[STORE_RUN_DONE], 1);
	cr_assert_gt(run, 0);

	cr_assert_eq(store_build_lookup(st, C, "hackbench", "g1", &bg, &err),
	    0, "%s", err.msg);
	cr_assert_eq(bg.id, build);
	cr_assert_str_eq(bg.artifact, "/w/c.tar");
	cr_assert_str_eq(bg.checksum, "sha256:00");
	cr_assert_eq(bg.state, STORE_BUILD_OK);
	store_build_release(&bg);
	cr_assert_eq(store_build_lookup(st, C, "hackbench", "g2", &bg, &err),
	    -ENOENT);

	cr_assert_eq(store_sweep_get(st, "next", &sg, &err), 0, "%s", err.msg);
	cr_assert_str_eq(sg.last_tag, "next-20260101");
	cr_assert_str_eq(sg.state, "idle");
	store_sweep_release(&sg);

	cr_assert_eq(store_report_get(st, bis, &text, &json, &err), 0);
	cr_assert_str_eq(text, "report text");
	cr_assert_str_eq(json, "{\"a\":1}");
	free(text);
	free(json);
	cr_assert_eq(store_event_list(st, 0, 0, count_event, &n, &err), 0);
	cr_assert_eq(n, 1);
}

/* The built-in migrations plus one more: what a later binary would bring. */
static struct store_migration *
with_extra(const char *sql, size_t *np)
{
	struct store_migration *m;

	m = xcalloc(store_nmigrations + 1, sizeof(*m));
	memcpy(m, store_migrations, store_nmigrations * sizeof(*m));
	m[store_nmigrations].version = (int)store_nmigrations + 1;
	m[store_nmigrations].sql = sql;
	*np = store_nmigrations + 1;
	return m;
}

static void
put_host(struct store *s, const char *name, const char *group)
{
	struct store_host h;
	struct bd_error err;

	store_host_init(&h);
	h.name = name;
	h.group = group;
	h.state = STORE_HOST_DRAINING;
	h.consecutive_failures = 2;
	cr_assert_eq(store_host_put(s, &h, &err), 0, "%s", err.msg);
}

static char *
host_group(struct store *s, const char *name)
{
	struct store_host h;
	struct bd_error err;
	char *g;

	cr_assert_eq(store_host_get(s, name, &h, &err), 0, "%s", err.msg);
	g = xstrdup(h.group);
	cr_assert_eq(h.consecutive_failures, 2);
	store_host_release(&h);
	return g;
}

Test(store, second_migration_on_v1_database)
{
	struct store_migration *m;
	struct bd_error err;
	size_t n;
	char *g;
	int64_t bis;

	st = open_db();
	put_host(st, "h1", "g");
	bis = add_bisection(st, NULL, 0);
	add_done_run(st, bis, C, 3);
	store_close(st);
	st = NULL;

	/* v2 rewrites existing rows, so its effect is visible through the API. */
	m = with_extra("ALTER TABLE hosts ADD COLUMN note TEXT;"
	    "UPDATE hosts SET grp = grp || '-v2', note = 'migrated';", &n);
	cr_assert_eq(store_open_with(&st, dbpath, m, n, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(store_schema_version(st), (int)n);
	g = host_group(st, "h1");
	cr_assert_str_eq(g, "g-v2");
	free(g);
	cr_assert_eq(stats(st, bis).samples, 2);
	store_close(st);

	/* Opening again applies nothing twice. */
	cr_assert_eq(store_open_with(&st, dbpath, m, n, &err), 0, "%s",
	    err.msg);
	g = host_group(st, "h1");
	cr_assert_str_eq(g, "g-v2");
	free(g);
	free(m);
}

Test(store, failed_migration_changes_nothing)
{
	struct store_migration *m;
	struct bd_error err;
	size_t n;
	char *g;

	st = open_db();
	put_host(st, "h1", "g");
	store_close(st);
	st = NULL;

	m = with_extra("UPDATE hosts SET grp = 'half';"
	    "THIS IS NOT SQL;", &n);
	cr_assert_neq(store_open_with(&st, dbpath, m, n, &err), 0);
	cr_assert_null(st);
	cr_assert(strstr(err.msg, "migration") != NULL, "%s", err.msg);
	free(m);

	st = open_db();
	cr_assert_eq(store_schema_version(st), (int)store_nmigrations);
	g = host_group(st, "h1");
	cr_assert_str_eq(g, "g");
	free(g);
}

Test(store, newer_database_is_a_clear_error)
{
	struct store_migration *m;
	struct bd_error err;
	char want[64];
	size_t n;
	int rc;

	m = with_extra("CREATE TABLE later (x INTEGER);", &n);
	cr_assert_eq(store_open_with(&st, dbpath, m, n, &err), 0, "%s",
	    err.msg);
	put_host(st, "h1", "g");
	store_close(st);
	st = NULL;

	bd_error_clear(&err);
	rc = store_open(&st, dbpath, &err);
	cr_assert_eq(rc, -EPROTO, "rc %d: %s", rc, err.msg);
	cr_assert_null(st);
	snprintf(want, sizeof(want), "version %zu", n);
	cr_assert(strstr(err.msg, want) != NULL, "%s", err.msg);
	snprintf(want, sizeof(want), "up to %zu", store_nmigrations);
	cr_assert(strstr(err.msg, want) != NULL, "%s", err.msg);

	/* The refusal left the newer database as it was. */
	cr_assert_eq(store_open_with(&st, dbpath, m, n, &err), 0, "%s",
	    err.msg);
	free(host_group(st, "h1"));
	free(m);
}

Test(store, not_a_database_and_bad_lists_are_errors)
{
	struct store_migration bad[2] = { { 1, "SELECT 1" }, { 3, "" } };
	struct bd_error err;
	char *p;

	p = tst_write_file(dir, "junk.db", "this is not an SQLite database, "
	    "only some text long enough to fill a header page........\n");
	cr_assert_not_null(p);
	bd_error_clear(&err);
	cr_assert_lt(store_open(&st, p, &err), 0);
	cr_assert_null(st);
	cr_assert(strstr(err.msg, "junk.db") != NULL, "%s", err.msg);
	free(p);

	cr_assert_eq(store_open_with(&st, dbpath, bad, 2, &err), -EINVAL);
	cr_assert_null(st);
	cr_assert_eq(store_open_with(&st, dbpath, bad, 0, &err), -EINVAL);
}

Test(store, foreign_keys_enforced)
{
	struct store_metric m = { "throughput", 1 };
	struct store_run_result res = { .state = STORE_RUN_DONE };
	struct bd_error err;
	int64_t id = 0, bis;

	st = open_db();
	bis = add_bisection(st, NULL, 0);
	cr_assert_eq(store_run_create(st, bis + 100, C, &id, &err), -ENOENT,
	    "%s", err.msg);
	cr_assert_eq(store_probe_add(st, bis + 100, C, &id, &err), -ENOENT);
	cr_assert_eq(store_report_put(st, bis + 100, "x", NULL, &err),
	    -ENOENT);
	cr_assert_eq(store_run_finish(st, 4242, &res, &m, 1, &err), -ENOENT,
	    "%s", err.msg);
	cr_assert_eq(stats(st, bis).samples, 0);
	cr_assert_eq(stats(st, bis).runs[STORE_RUN_QUEUED], 0);
	cr_assert_eq(store_bisection_stats(st, bis + 100, &(struct
	    store_bisection_stats){ 0 }, &err), -ENOENT);
}

Test(store, duplicate_sample_stores_nothing)
{
	struct store_metric dup[3] = { { "a", 1 }, { "b", 2 }, { "a", 3 } };
	struct store_run_result res = { .state = STORE_RUN_DONE };
	struct store_run r;
	struct bd_error err;
	int64_t bis, id;

	st = open_db();
	bis = add_bisection(st, NULL, 0);
	cr_assert_eq(store_run_create(st, bis, C, &id, &err), 0);
	cr_assert_eq(store_run_start(st, id, "host1", &err), 0);
	cr_assert_eq(store_run_finish(st, id, &res, dup, 3, &err), -EEXIST,
	    "%s", err.msg);
	cr_assert_eq(stats(st, bis).samples, 0);
	cr_assert_eq(store_run_get(st, id, &r, &err), 0);
	cr_assert_eq(r.state, STORE_RUN_RUNNING, "rolled back: still running");
	cr_assert_eq(r.seq, 0);
	store_run_release(&r);

	cr_assert_eq(store_run_finish(st, id, &res, dup, 2, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(stats(st, bis).samples, 2);
	/* A second finish, as after a replayed completion: refused, no copy. */
	cr_assert_eq(store_run_finish(st, id, &res, dup, 2, &err), -EALREADY,
	    "%s", err.msg);
	cr_assert_eq(store_run_finish(st, id, &res, dup + 2, 1, &err),
	    -EALREADY);
	cr_assert_eq(stats(st, bis).samples, 2);
}

Test(store, run_life_cycle_refuses_bad_steps)
{
	struct store_metric m = { "a", NAN };
	struct store_run_result done = { .state = STORE_RUN_DONE,
	    .has_exit = 1, .exit_status = 0, .log_path = "/l/1",
	    .timings = "{\"build\":12.5,\"run\":3}" };
	struct store_run_result skip = { .state = STORE_RUN_SKIPPED };
	struct store_run_result bad = { .state = STORE_RUN_QUEUED };
	struct store_run r;
	struct bd_error err;
	int64_t bis, id, id2;

	st = open_db();
	bis = add_bisection(st, NULL, 0);
	cr_assert_eq(store_run_create(st, bis, C, &id, &err), 0);
	cr_assert_eq(store_run_start(st, id, "host1", &err), 0);
	cr_assert_eq(store_run_start(st, id, "host2", &err), -EALREADY);
	cr_assert(strstr(err.msg, "running") != NULL, "%s", err.msg);
	cr_assert_eq(store_run_finish(st, id, &bad, NULL, 0, &err), -EINVAL);
	cr_assert_eq(store_run_finish(st, id, &done, &m, 1, &err), -EINVAL);
	cr_assert_eq(store_run_finish(st, id, &skip, &(struct store_metric){
	    "a", 1 }, 1, &err), -EINVAL);
	done.timings = "{not json";
	cr_assert_eq(store_run_finish(st, id, &done, NULL, 0, &err), -EINVAL);
	done.timings = "{\"build\":12.5,\"run\":3}";
	cr_assert_eq(store_run_finish(st, id, &done, NULL, 0, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(store_run_get(st, id, &r, &err), 0);
	cr_assert_eq(r.state, STORE_RUN_DONE);
	cr_assert_str_eq(r.host, "host1");
	cr_assert_str_eq(r.log_path, "/l/1");
	cr_assert_str_eq(r.timings, "{\"build\":12.5,\"run\":3}");
	cr_assert(r.has_exit && r.exit_status == 0);
	cr_assert_gt(r.finished_ms, 0);
	cr_assert_eq(r.seq, 1);
	store_run_release(&r);

	/* A queued run may be skipped without a host (a cached failed build). */
	cr_assert_eq(store_run_create(st, bis, B, &id2, &err), 0);
	cr_assert_eq(store_run_finish(st, id2, &skip, NULL, 0, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(store_run_get(st, id2, &r, &err), 0);
	cr_assert_eq(r.state, STORE_RUN_SKIPPED);
	cr_assert_null(r.host);
	cr_assert_eq(r.seq, 2);
	store_run_release(&r);
	cr_assert_eq(store_run_start(st, 999, "h", &err), -ENOENT);
}

Test(store, requeue_inflight_runs)
{
	struct store_run_result infra = { .state = STORE_RUN_FAILED_INFRA };
	struct store_run r;
	struct bd_error err;
	int64_t bis, q, r1, r2, d, f, retry, n = -1;

	st = open_db();
	bis = add_bisection(st, NULL, 0);
	cr_assert_eq(store_run_create(st, bis, A, &q, &err), 0);
	cr_assert_eq(store_run_create(st, bis, B, &r1, &err), 0);
	cr_assert_eq(store_run_create(st, bis, C, &r2, &err), 0);
	cr_assert_eq(store_run_start(st, r1, "host1", &err), 0);
	cr_assert_eq(store_run_start(st, r2, "host2", &err), 0);
	d = add_done_run(st, bis, C, 1);
	cr_assert_eq(store_run_create(st, bis, A, &f, &err), 0);
	cr_assert_eq(store_run_start(st, f, "host1", &err), 0);
	cr_assert_eq(store_run_finish(st, f, &infra, NULL, 0, &err), 0);
	store_close(st);

	/* The daemon restarts after a crash. */
	st = open_db();
	cr_assert_eq(store_runs_requeue_inflight(st, &n, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(n, 2);
	cr_assert_eq(store_run_get(st, r1, &r, &err), 0);
	cr_assert_eq(r.state, STORE_RUN_QUEUED);
	cr_assert_eq(r.attempt, 2);
	cr_assert_null(r.host);
	cr_assert_eq(r.started_ms, 0);
	store_run_release(&r);
	cr_assert_eq(store_run_get(st, q, &r, &err), 0);
	cr_assert_eq(r.attempt, 1, "a queued run was not in flight");
	store_run_release(&r);
	cr_assert_eq(store_run_get(st, d, &r, &err), 0);
	cr_assert_eq(r.state, STORE_RUN_DONE);
	store_run_release(&r);
	cr_assert_eq(stats(st, bis).runs[STORE_RUN_QUEUED], 3);
	cr_assert_eq(stats(st, bis).runs[STORE_RUN_RUNNING], 0);
	cr_assert_eq(stats(st, bis).samples, 2);
	cr_assert_eq(store_runs_requeue_inflight(st, &n, &err), 0);
	cr_assert_eq(n, 0);

	/* An infrastructure failure is retried as a new attempt, once asked. */
	cr_assert_eq(store_run_retry(st, d, &retry, &err), -EINVAL);
	cr_assert_eq(store_run_retry(st, f, &retry, &err), 0, "%s", err.msg);
	cr_assert_eq(store_run_get(st, retry, &r, &err), 0);
	cr_assert_eq(r.state, STORE_RUN_QUEUED);
	cr_assert_eq(r.attempt, 2);
	cr_assert_str_eq(r.commit, A);
	store_run_release(&r);
}

static int
count_run(void *arg, const struct store_run *r)
{
	int64_t *ids = arg;

	ids[++ids[0]] = r->id;
	return 0;
}

Test(store, cancel_and_list_runs)
{
	struct bd_error err;
	int64_t bis, other, q, r, d, n, ids[16];

	st = open_db();
	bis = add_bisection(st, NULL, 0);
	other = add_bisection(st, NULL, 0);
	cr_assert_eq(store_run_create(st, bis, A, &q, &err), 0);
	cr_assert_eq(store_run_create(st, bis, B, &r, &err), 0);
	cr_assert_eq(store_run_start(st, r, "host1", &err), 0);
	d = add_done_run(st, bis, C, 1);
	add_done_run(st, other, C, 1);
	cr_assert_eq(store_run_create(st, other, A, &n, &err), 0);

	/* Finished runs first, in finish order, then the others by id. */
	ids[0] = 0;
	cr_assert_eq(store_run_list(st, bis, ~0u, count_run, ids, &err), 0);
	cr_assert_eq(ids[0], 3);
	cr_assert_eq(ids[1], d);
	cr_assert_eq(ids[2], q);
	cr_assert_eq(ids[3], r);
	ids[0] = 0;
	cr_assert_eq(store_run_list(st, 0, 1u << STORE_RUN_QUEUED, count_run,
	    ids, &err), 0);
	cr_assert_eq(ids[0], 2, "queued runs of every bisection");

	cr_assert_eq(store_runs_cancel(st, bis, &n, &err), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(stats(st, bis).runs[STORE_RUN_CANCELLED], 2);
	cr_assert_eq(stats(st, other).runs[STORE_RUN_QUEUED], 1);
	cr_assert_eq(store_run_start(st, q, "host1", &err), -EALREADY);

	/* Ending a bisection ends its pending runs with it, atomically. */
	cr_assert_eq(store_run_create(st, other, B, &r, &err), 0);
	cr_assert_eq(store_run_start(st, r, "host2", &err), 0);
	cr_assert_eq(store_bisection_set_state(st, other,
	    STORE_BISECTION_CANCELLED, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(stats(st, other).runs[STORE_RUN_QUEUED], 0);
	cr_assert_eq(stats(st, other).runs[STORE_RUN_RUNNING], 0);
	cr_assert_eq(stats(st, other).runs[STORE_RUN_CANCELLED], 2);
	cr_assert_eq(stats(st, other).runs[STORE_RUN_DONE], 1);
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

Test(store, bisection_dedup_and_verdict)
{
	struct store_verdict_info v = { STORE_VERDICT_CULPRIT, C, 0.995,
	    "{\"top\":[]}" };
	struct store_bisection b;
	struct bd_error err;
	int64_t id1, id2, id3, dup = 0, ids[8];

	st = open_db();
	id1 = add_bisection(st, "same", 0);
	fill_bisection(&b, "same", 3);
	cr_assert_eq(store_bisection_create(st, &b, &dup, &err), -EEXIST);
	cr_assert_eq(dup, id1);
	b.params = "{not json";
	b.dedup_key = NULL;
	cr_assert_eq(store_bisection_create(st, &b, &dup, &err), -EINVAL);
	b.params = "{}";
	b.ngood = 0;
	cr_assert_eq(store_bisection_create(st, &b, &dup, &err), -EINVAL);

	cr_assert_eq(store_bisection_set_state(st, id1,
	    STORE_BISECTION_RUNNING, NULL, &err), 0, "%s", err.msg);
	id2 = add_bisection(st, "other", 7);
	cr_assert_eq(store_bisection_set_state(st, id1, STORE_BISECTION_DONE,
	    &v, &err), 0, "%s", err.msg);
	cr_assert_eq(store_bisection_set_state(st, id1,
	    STORE_BISECTION_RUNNING, NULL, &err), -EALREADY);
	cr_assert_eq(store_bisection_set_state(st, 99, STORE_BISECTION_DONE,
	    NULL, &err), -ENOENT);
	cr_assert_eq(store_bisection_get(st, id1, &b, &err), 0);
	cr_assert_eq(b.state, STORE_BISECTION_DONE);
	cr_assert_eq(b.verdict, STORE_VERDICT_CULPRIT);
	cr_assert_str_eq(b.culprit, C);
	cr_assert_float_eq(b.confidence, 0.995, 1e-12);
	cr_assert_str_eq(b.detail, "{\"top\":[]}");
	cr_assert_geq(b.updated_ms, b.created_ms);
	store_bisection_release(&b);

	/* Once the first has ended, the same request starts a new one. */
	id3 = add_bisection(st, "same", 0);
	cr_assert_neq(id3, id1);

	ids[0] = 0;
	cr_assert_eq(store_bisection_list(st, STORE_BISECTION_ACTIVE,
	    list_bisection, ids, &err), 0);
	cr_assert_eq(ids[0], 2);
	cr_assert_eq(ids[1], id2, "higher priority first");
	cr_assert_eq(ids[2], id3);
	ids[0] = 0;
	cr_assert_eq(store_bisection_list(st, 1u << STORE_BISECTION_DONE,
	    list_bisection, ids, &err), 0);
	cr_assert_eq(ids[0], 1);
	cr_assert_eq(ids[1], id1);
	cr_assert_eq(store_bisection_list(st, ~0u, stop_early, NULL, &err),
	    -ECANCELED);
	cr_assert_eq(store_bisection_get(st, 1234, &b, &err), -ENOENT);
}

/* Every enum value goes through the database's CHECK lists and back. */
Test(store, enum_names_match_schema)
{
	struct store_verdict_info v = { 0 };
	struct store_bisection b;
	struct store_build bu, bg;
	struct store_host h, hg;
	struct bd_error err;
	int64_t id;
	int i;

	st = open_db();
	for (i = 0; i < STORE_HOST_NSTATES; i++) {
		store_host_init(&h);
		h.name = "h";
		h.group = "g";
		h.state = i;
		cr_assert_eq(store_host_put(st, &h, &err), 0, "%s", err.msg);
		cr_assert_eq(store_host_get(st, "h", &hg, &err), 0);
		cr_assert_eq(hg.state, i);
		store_host_release(&hg);
	}
	for (i = 0; i < STORE_BUILD_NSTATES; i++) {
		store_build_init(&bu);
		bu.commit = C;
		bu.benchmark = "b";
		bu.group = "g";
		bu.state = i;
		cr_assert_eq(store_build_record(st, &bu, NULL, &err), 0, "%s",
		    err.msg);
		cr_assert_eq(store_build_lookup(st, C, "b", "g", &bg, &err), 0);
		cr_assert_eq(bg.state, i);
		store_build_release(&bg);
	}
	for (i = 0; i < STORE_BISECTION_NSTATES; i++) {
		id = add_bisection(st, NULL, 0);
		v.verdict = i % STORE_VERDICT_N;
		cr_assert_eq(store_bisection_set_state(st, id, i, &v, &err), 0,
		    "%s: %s", store_bisection_state_name(i), err.msg);
		cr_assert_eq(store_bisection_get(st, id, &b, &err), 0);
		cr_assert_eq(b.state, i);
		cr_assert_eq(b.verdict, (int)(i % STORE_VERDICT_N));
		store_bisection_release(&b);
	}
	for (i = STORE_VERDICT_NONE; i < STORE_VERDICT_N; i++)
		cr_assert_str_neq(store_verdict_name(i), "?");
	cr_assert_str_eq(store_run_state_name(STORE_RUN_FAILED_INFRA),
	    "failed-infra");
	cr_assert_str_eq(store_run_state_name(STORE_RUN_NSTATES), "?");
}

Test(store, samples_in_finish_order_and_by_commit)
{
	struct store_metric m = { "throughput", 0 };
	struct store_run_result res = { .state = STORE_RUN_DONE };
	struct collect all = { .metric = "throughput" };
	struct collect one = { .metric = "throughput" };
	struct bd_error err;
	int64_t bis, first, second;

	st = open_db();
	bis = add_bisection(st, NULL, 0);
	/* Created first, finished last: the order is the finish order. */
	cr_assert_eq(store_run_create(st, bis, A, &first, &err), 0);
	cr_assert_eq(store_run_create(st, bis, B, &second, &err), 0);
	cr_assert_eq(store_run_start(st, first, "host1", &err), 0);
	cr_assert_eq(store_run_start(st, second, "host1", &err), 0);
	m.value = 2;
	cr_assert_eq(store_run_finish(st, second, &res, &m, 1, &err), 0);
	add_done_run(st, bis, A, 3);
	m.value = 1;
	cr_assert_eq(store_run_finish(st, first, &res, &m, 1, &err), 0);

	cr_assert_eq(store_sample_list(st, bis, NULL, collect_sample, &all,
	    &err), 0);
	cr_assert_eq(all.n, 3);
	cr_assert_float_eq(all.v[0], 2, 0);
	cr_assert_float_eq(all.v[1], 3, 0);
	cr_assert_float_eq(all.v[2], 1, 0);
	cr_assert(all.seq[0] < all.seq[1] && all.seq[1] < all.seq[2]);
	cr_assert_eq(store_sample_list(st, bis, A, collect_sample, &one,
	    &err), 0);
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

Test(store, events_and_probes_lists)
{
	struct bd_error err;
	char order[8] = "";
	int64_t bis;
	int i, n = 0;

	st = open_db();
	for (i = 0; i < 5; i++)
		cr_assert_eq(store_event_add(st, 100 + i, 0, "cancel", "ok",
		    &err), 0);
	cr_assert_eq(store_event_add(st, 1, 0, NULL, "ok", &err), -EINVAL);
	cr_assert_eq(store_event_list(st, 2, 0, count_event, &n, &err), 0);
	cr_assert_eq(n, 3, "events after id 2");
	n = 0;
	cr_assert_eq(store_event_list(st, 0, 2, count_event, &n, &err), 0);
	cr_assert_eq(n, 2, "limit");

	bis = add_bisection(st, NULL, 0);
	cr_assert_eq(store_probe_add(st, bis, C, NULL, &err), 0);
	cr_assert_eq(store_probe_add(st, bis, A, NULL, &err), 0);
	cr_assert_eq(store_probe_add(st, bis, B, NULL, &err), 0);
	cr_assert_eq(store_probe_list(st, bis, probe_commit, order, &err), 0);
	cr_assert_str_eq(order, "cab");
	cr_assert_eq(stats(st, bis).probes, 3);
}

/* The writer of the concurrency tests: runs with two samples each. */
static void
writer(int64_t bis, int nruns, int ackfd)
{
	struct store_metric m[2] = { { "a", 1 }, { "b", 2 } };
	struct store_run_result res = { .state = STORE_RUN_DONE };
	struct store *s;
	int64_t id;
	int i;

	if (store_open(&s, dbpath, NULL) != 0)
		_exit(2);
	for (i = 0; nruns == 0 || i < nruns; i++) {
		if (store_run_create(s, bis, C, &id, NULL) != 0 ||
		    store_run_start(s, id, "host1", NULL) != 0 ||
		    store_run_finish(s, id, &res, m, 2, NULL) != 0)
			_exit(3);
		if (ackfd >= 0 && write(ackfd, &id, sizeof(id)) != sizeof(id))
			_exit(4);
	}
	store_close(s);
	_exit(0);
}

Test(store, reader_sees_consistent_data_while_writer_writes)
{
	struct store_bisection_stats sb;
	int64_t bis, checks = 0;
	int status = 0, nruns = 400;

	st = open_db();
	bis = add_bisection(st, NULL, 0);
	child = fork();
	cr_assert_neq(child, -1);
	if (child == 0)
		writer(bis, nruns, -1);

	/* Each finished run brings its two samples in the same snapshot. */
	while (waitpid(child, &status, WNOHANG) == 0) {
		sb = stats(st, bis);
		cr_assert_eq(sb.samples, 2 * sb.runs[STORE_RUN_DONE],
		    "samples %lld, done runs %lld", (long long)sb.samples,
		    (long long)sb.runs[STORE_RUN_DONE]);
		cr_assert_leq(sb.runs[STORE_RUN_QUEUED] +
		    sb.runs[STORE_RUN_RUNNING], 1);
		checks++;
	}
	child = -1;
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "writer failed: status %d", status);
	sb = stats(st, bis);
	cr_assert_eq(sb.runs[STORE_RUN_DONE], nruns);
	cr_assert_eq(sb.samples, 2 * nruns);
	cr_assert_gt(checks, 0);
}

Test(store, kill_9_loses_no_committed_sample)
{
	struct store_bisection_stats sb;
	struct store_run r;
	struct bd_error err;
	int64_t bis, id, acked[64], n;
	int fds[2], i, status;

	st = open_db();
	bis = add_bisection(st, NULL, 0);
	store_close(st);
	st = NULL;
	cr_assert_eq(pipe(fds), 0);
	child = fork();
	cr_assert_neq(child, -1);
	if (child == 0) {
		close(fds[0]);
		writer(bis, 0, fds[1]);
	}
	close(fds[1]);
	/* Each id arrives after its commit returned: it must survive. */
	for (i = 0; i < 64; i++)
		cr_assert_eq(read(fds[0], &acked[i], sizeof(id)), sizeof(id));
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	child = -1;
	close(fds[0]);
	cr_assert(WIFSIGNALED(status));

	st = open_db();
	for (i = 0; i < 64; i++) {
		cr_assert_eq(store_run_get(st, acked[i], &r, &err), 0, "%s",
		    err.msg);
		cr_assert_eq(r.state, STORE_RUN_DONE);
		store_run_release(&r);
	}
	cr_assert_eq(store_runs_requeue_inflight(st, &n, &err), 0);
	cr_assert_leq(n, 1, "at most the run in flight at the kill");
	sb = stats(st, bis);
	cr_assert_geq(sb.runs[STORE_RUN_DONE], 64);
	cr_assert_eq(sb.samples, 2 * sb.runs[STORE_RUN_DONE]);
}

Test(store, processes_opening_a_new_database_at_once_migrate_once)
{
	pid_t pids[4];
	int i, status, ok = 0;

	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		cr_assert_neq(pids[i], -1);
		if (pids[i] == 0) {
			struct store *s;

			if (store_open(&s, dbpath, NULL) != 0)
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
	st = open_db();
	cr_assert_eq(store_schema_version(st), (int)store_nmigrations);
}
