/* SPDX-License-Identifier: MIT */
/*
 * The store tests' shared fixture: see stest.h.
 */
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "store/store.h"
#include "tests/support/stest.h"
#include "tests/support/tst.h"

char		*stest_dir;
char		*stest_dbpath;
struct store	*stest_db;
pid_t		 stest_child = -1;

/* Each test gets its own directory; fini cleans up also after a failure. */
void
stest_setup(void)
{
	stest_dir = tst_tmpdir("store");
	cr_assert_not_null(stest_dir);
	xasprintf(&stest_dbpath, "%s/state.db", stest_dir);
}

/* Kills a forked writer, closes the store, removes the files. */
void
stest_teardown(void)
{
	int status;

	if (stest_child > 0) {
		kill(stest_child, SIGKILL);
		waitpid(stest_child, &status, 0);
		stest_child = -1;
	}
	store_close(stest_db);
	stest_db = NULL;
	tst_rmrf(stest_dir);
	free(stest_dir);
	free(stest_dbpath);
	stest_dir = stest_dbpath = NULL;
	tst_leak_check();
}

/* Opens the test database, failing the test with the store's message. */
struct store *
stest_open(void)
{
	struct bd_error err;
	struct store *s;
	int rc;

	bd_error_clear(&err);
	rc = store_open(&s, stest_dbpath, &err);
	cr_assert_eq(rc, 0, "store_open: %s", err.msg);
	return s;
}

static const char *goods[] = { STEST_A, STEST_C };

/* A request from uid 1000 for A C..B with dedup key key (NULL: none). */
void
stest_fill_bisection(struct store_bisection *b, const char *key, int priority)
{
	store_bisection_init(b);
	b->params = "{\"benchmark\":\"hackbench\"}";
	b->good = goods;
	b->ngood = 2;
	b->bad = STEST_B;
	b->benchmark = "hackbench";
	b->metric = "throughput";
	b->group = "g1";
	b->dedup_key = key;
	b->priority = priority;
	b->created_by = 1000;
}

/* A queued bisection with dedup key key (NULL: none). */
int64_t
stest_add_bisection(struct store *s, const char *key, int priority)
{
	struct store_bisection b;
	struct bd_error err;
	int64_t id = 0;
	int rc;

	stest_fill_bisection(&b, key, priority);
	rc = store_bisection_create(s, &b, &id, &err);
	cr_assert_eq(rc, 0, "create: %s", err.msg);
	cr_assert_gt(id, 0);
	return id;
}

/* A done run of commit with two metrics (value v and 2v). */
int64_t
stest_add_done_run(struct store *s, int64_t bis, const char *commit,
    double v)
{
	struct store_metric m[2] = {
		{ "throughput", v, 0 }, { "latency", 2 * v, 0 },
	};
	struct store_run_result res = {
		.state = STORE_RUN_DONE, .has_exit = 1,
	};
	struct bd_error err;
	int64_t id;

	cr_assert_eq(store_run_create(s, bis, commit, &id, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(store_run_start(s, id, "host1", &err), 0, "%s", err.msg);
	cr_assert_eq(store_run_finish(s, id, &res, m, 2, &err), 0, "%s",
	    err.msg);
	return id;
}

/* The bisection's counters, failing the test on an error. */
struct store_bisection_stats
stest_stats(struct store *s, int64_t bis)
{
	struct store_bisection_stats sb;
	struct bd_error err;

	cr_assert_eq(store_bisection_stats(s, bis, &sb, &err), 0, "%s",
	    err.msg);
	return sb;
}

/* A list callback counting events into the int arg. */
int
stest_count_event(void *arg, const struct store_event *ev)
{
	(void)ev;
	(*(int *)arg)++;
	return 0;
}


/* A list callback filling the struct stest_collect arg. */
int
stest_collect_sample(void *arg, const struct store_sample *sm)
{
	struct stest_collect *c = arg;

	if (strcmp(sm->metric, c->metric) != 0)
		return 0;
	cr_assert_lt(c->n, 64);
	cr_assert_str_eq(sm->host, "host1");
	c->seq[c->n] = sm->seq;
	c->v[c->n++] = sm->value;
	return 0;
}

/* The schema text itself, as the older binary ran it. */
void
stest_old_db(const char *path, int version)
{
	sqlite3 *db;
	char *sql;
	int i;

	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL,
	    NULL), SQLITE_OK);
	for (i = 0; i < version; i++)
		cr_assert_eq(sqlite3_exec(db, store_migrations[i].sql, NULL,
		    NULL, NULL), SQLITE_OK, "migration %d: %s", i + 1,
		    sqlite3_errmsg(db));
	xasprintf(&sql, "PRAGMA user_version = %d;"
	    "INSERT INTO events (time_ms, uid, request, outcome)"
	    " VALUES (1, 1000, 'ping', 'ok')", version);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s",
	    sqlite3_errmsg(db));
	free(sql);
	sqlite3_close(db);
}

/* Read-only, so looking at a backup never changes it. */
void
stest_db_facts(const char *path, int *versionp, int *eventsp)
{
	sqlite3_stmt *st;
	sqlite3 *db;

	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
	    SQLITE_OK, "%s", path);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM"
	    " pragma_user_version), (SELECT count(*) FROM events)", -1, &st,
	    NULL), SQLITE_OK, "%s: %s", path, sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	*versionp = sqlite3_column_int(st, 0);
	*eventsp = sqlite3_column_int(st, 1);
	sqlite3_finalize(st);
	sqlite3_close(db);
}
