/* SPDX-License-Identifier: MIT */
/*
 * The SQLite store's schema: migrations from empty and from older
 * versions, the backup taken before each, failed and newer ones, bad
 * migration lists, and the enum names against the schema's CHECK lists.
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

TestSuite(store_migrations, .init = stest_setup, .fini = stest_teardown);

Test(store_migrations, migrate_from_empty)
{
	struct store_host h, got;
	struct bd_error err;
	struct stat sb;
	char *wal;
	int n = 0;

	int from, to;

	stest_db = stest_open();
	cr_assert_eq(store_schema_version(stest_db),
	    store_migrations[store_nmigrations - 1].version);
	/* A new database has nothing to keep: no backup. */
	cr_assert_null(store_migration_backup(stest_db, &from, &to));
	cr_assert_eq(store_event_add(stest_db, 1234, 1000, "ping", "ok", &err),
	    0, "%s", err.msg);
	cr_assert_eq(store_event_list(stest_db, 0, 0, stest_count_event, &n,
	    &err), 0);
	cr_assert_eq(n, 1);

	store_host_init(&h);
	h.name = "h1";
	h.group = "g1";
	h.state = STORE_HOST_UP;
	h.last_seen_ms = 77;
	cr_assert_eq(store_host_put(stest_db, &h, &err), 0, "%s", err.msg);
	cr_assert_eq(store_host_get(stest_db, "h1", &got, &err), 0, "%s",
	    err.msg);
	cr_assert_str_eq(got.group, "g1");
	cr_assert_eq(got.state, STORE_HOST_UP);
	cr_assert_eq(got.last_seen_ms, 77);
	store_host_release(&got);

	/* WAL mode: the write-ahead log sits beside the database. */
	xasprintf(&wal, "%s-wal", stest_dbpath);
	cr_assert_eq(stat(wal, &sb), 0, "no %s: not in WAL mode", wal);
	free(wal);
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

Test(store_migrations, second_migration_on_v1_database)
{
	struct store_migration *m;
	struct bd_error err;
	size_t n;
	char *g;
	int64_t bis;

	stest_db = stest_open();
	put_host(stest_db, "h1", "g");
	bis = stest_add_bisection(stest_db, NULL, 0);
	stest_add_done_run(stest_db, bis, STEST_C, 3);
	store_close(stest_db);
	stest_db = NULL;

	/* v2 rewrites existing rows: its effect is visible through the API. */
	m = with_extra("ALTER TABLE hosts ADD COLUMN note TEXT;"
	    "UPDATE hosts SET grp = grp || '-v2', note = 'migrated';", &n);
	cr_assert_eq(store_open_with(&stest_db, stest_dbpath, m, n, &err), 0,
	    "%s", err.msg);
	cr_assert_eq(store_schema_version(stest_db), (int)n);
	g = host_group(stest_db, "h1");
	cr_assert_str_eq(g, "g-v2");
	free(g);
	cr_assert_eq(stest_stats(stest_db, bis).samples, 2);
	store_close(stest_db);

	/* Opening again applies nothing twice. */
	cr_assert_eq(store_open_with(&stest_db, stest_dbpath, m, n, &err), 0,
	    "%s", err.msg);
	g = host_group(stest_db, "h1");
	cr_assert_str_eq(g, "g-v2");
	free(g);
	free(m);
}

/*
 * An upgrade copies the database beside itself first, named with both
 * versions; the copy is the old schema with its rows, and opening the
 * migrated database again copies nothing.
 */
Test(store_migrations, backup_before_migration)
{
	struct store_migration *m;
	struct bd_error err;
	char *want, *taken;
	size_t n;
	int from = 0, to = 0, version, events;

	stest_db = stest_open();
	cr_assert_eq(store_event_add(stest_db, 1234, 1000, "ping", "ok", &err),
	    0, "%s", err.msg);
	store_close(stest_db);
	stest_db = NULL;

	m = with_extra("CREATE TABLE later (x INTEGER);", &n);
	cr_assert_eq(store_open_with(&stest_db, stest_dbpath, m, n, &err), 0,
	    "%s", err.msg);
	xasprintf(&want, "%s.v%zu-to-v%zu.bak", stest_dbpath, store_nmigrations,
	    n);
	cr_assert_not_null(store_migration_backup(stest_db, &from, &to));
	cr_assert_str_eq(store_migration_backup(stest_db, &from, &to), want);
	cr_assert_eq(from, (int)store_nmigrations);
	cr_assert_eq(to, (int)n);
	stest_db_facts(want, &version, &events);
	cr_assert_eq(version, (int)store_nmigrations);
	cr_assert_eq(events, 1);
	store_close(stest_db);
	stest_db = NULL;

	cr_assert_eq(store_open_with(&stest_db, stest_dbpath, m, n, &err), 0,
	    "%s", err.msg);
	cr_assert_null(store_migration_backup(stest_db, &from, &to));
	store_close(stest_db);
	stest_db = NULL;

	/* A name an earlier upgrade took is kept; the next copy gets a number. */
	cr_assert_eq(unlink(stest_dbpath), 0);
	xasprintf(&taken, "%s-wal", stest_dbpath);
	unlink(taken);
	free(taken);
	stest_old_db(stest_dbpath, (int)store_nmigrations);
	cr_assert_eq(store_open_with(&stest_db, stest_dbpath, m, n, &err), 0,
	    "%s", err.msg);
	xasprintf(&taken, "%s.v%zu-to-v%zu.2.bak", stest_dbpath,
	    store_nmigrations, n);
	cr_assert_str_eq(store_migration_backup(stest_db, &from, &to), taken);
	stest_db_facts(want, &version, &events);
	cr_assert_eq(events, 1);
	free(taken);
	free(want);
	free(m);
}

Test(store_migrations, failed_migration_changes_nothing)
{
	struct store_migration *m;
	struct bd_error err;
	size_t n;
	char *g, *bak;

	stest_db = stest_open();
	put_host(stest_db, "h1", "g");
	store_close(stest_db);
	stest_db = NULL;

	m = with_extra("UPDATE hosts SET grp = 'half';"
	    "THIS IS NOT SQL;", &n);
	cr_assert_neq(store_open_with(&stest_db, stest_dbpath, m, n, &err), 0);
	cr_assert_null(stest_db);
	cr_assert(strstr(err.msg, "migration") != NULL, "%s", err.msg);
	/* The message says where the copy taken before it is. */
	xasprintf(&bak, "is in %s.v%zu-to-v%zu.bak)", stest_dbpath,
	    store_nmigrations, n);
	cr_assert(strstr(err.msg, bak) != NULL, "%s", err.msg);
	free(bak);
	free(m);

	stest_db = stest_open();
	cr_assert_eq(store_schema_version(stest_db), (int)store_nmigrations);
	g = host_group(stest_db, "h1");
	cr_assert_str_eq(g, "g");
	free(g);
}

Test(store_migrations, newer_database_is_a_clear_error)
{
	struct store_migration *m;
	struct bd_error err;
	char want[64];
	size_t n;
	int rc;

	m = with_extra("CREATE TABLE later (x INTEGER);", &n);
	cr_assert_eq(store_open_with(&stest_db, stest_dbpath, m, n, &err), 0,
	    "%s", err.msg);
	put_host(stest_db, "h1", "g");
	store_close(stest_db);
	stest_db = NULL;

	bd_error_clear(&err);
	rc = store_open(&stest_db, stest_dbpath, &err);
	cr_assert_eq(rc, -EPROTO, "rc %d: %s", rc, err.msg);
	cr_assert_null(stest_db);
	snprintf(want, sizeof(want), "version %zu", n);
	cr_assert(strstr(err.msg, want) != NULL, "%s", err.msg);
	snprintf(want, sizeof(want), "up to %zu", store_nmigrations);
	cr_assert(strstr(err.msg, want) != NULL, "%s", err.msg);

	/* The refusal left the newer database as it was. */
	cr_assert_eq(store_open_with(&stest_db, stest_dbpath, m, n, &err), 0,
	    "%s", err.msg);
	free(host_group(stest_db, "h1"));
	free(m);
}

Test(store_migrations, not_a_database_and_bad_lists_are_errors)
{
	struct store_migration bad[2] = { { 1, "SELECT 1" }, { 3, "" } };
	struct bd_error err;
	char *p;

	p = tst_write_file(stest_dir, "junk.db",
	    "this is not an SQLite database, "
	    "only some text long enough to fill a header page........\n");
	cr_assert_not_null(p);
	bd_error_clear(&err);
	cr_assert_lt(store_open(&stest_db, p, &err), 0);
	cr_assert_null(stest_db);
	cr_assert(strstr(err.msg, "junk.db") != NULL, "%s", err.msg);
	free(p);

	cr_assert_eq(store_open_with(&stest_db, stest_dbpath, bad, 2, &err),
	    -EINVAL);
	cr_assert_null(stest_db);
	cr_assert_eq(store_open_with(&stest_db, stest_dbpath, bad, 0, &err),
	    -EINVAL);
}

/* Every enum value goes through the database's CHECK lists and back. */
Test(store_migrations, enum_names_match_schema)
{
	struct store_verdict_info v = { 0 };
	struct store_bisection b;
	struct store_build bu, bg;
	struct store_host h, hg;
	struct bd_error err;
	int64_t id;
	int i;

	stest_db = stest_open();
	for (i = 0; i < STORE_HOST_NSTATES; i++) {
		store_host_init(&h);
		h.name = "h";
		h.group = "g";
		h.state = i;
		cr_assert_eq(store_host_put(stest_db, &h, &err), 0, "%s",
		    err.msg);
		cr_assert_eq(store_host_get(stest_db, "h", &hg, &err), 0);
		cr_assert_eq(hg.state, i);
		store_host_release(&hg);
	}
	for (i = 0; i < STORE_BUILD_NSTATES; i++) {
		store_build_init(&bu);
		bu.commit = STEST_C;
		bu.benchmark = "b";
		bu.group = "g";
		bu.state = i;
		cr_assert_eq(store_build_record(stest_db, &bu, NULL, &err), 0,
		    "%s", err.msg);
		cr_assert_eq(store_build_lookup(stest_db, STEST_C, "b", "g",
		    &bg, &err), 0);
		cr_assert_eq(bg.state, i);
		store_build_release(&bg);
	}
	for (i = 0; i < STORE_BISECTION_NSTATES; i++) {
		id = stest_add_bisection(stest_db, NULL, 0);
		v.verdict = i % STORE_VERDICT_N;
		cr_assert_eq(store_bisection_set_state(stest_db, id, i, &v,
		    &err), 0, "%s: %s", store_bisection_state_name(i), err.msg);
		cr_assert_eq(store_bisection_get(stest_db, id, &b, &err), 0);
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
