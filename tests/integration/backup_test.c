/* SPDX-License-Identifier: MIT */
/*
 * `bisectctl backup` against the real daemon holding real content: a
 * finished bisection with its culprit and report, and a cancelled one.
 * The copy, taken while the daemon runs, restored under a second daemon,
 * answers list, samples and report exactly as the original does.
 */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "common/xmalloc.h"
#include "store/store.h"
#include "tests/support/daemon.h"
#include "tests/support/stest.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

static struct tst_daemon restored;

static void
backup_fini(void)
{
	tst_daemon_release(&restored);
	svc_fini();
}

TestSuite(backup, .fini = backup_fini, .timeout = 900);

/* A reply of td to line with the members that differ by nature removed. */
static char *
backup_answer(struct tst_daemon *td, const char *line)
{
	json_t *r = tst_daemon_reply(tst_daemon_request(td, line));
	char *text;

	cr_assert_not_null(r, "no reply to %s", line);
	cr_assert(json_is_true(json_object_get(r, "ok")), "%s failed", line);
	text = json_dumps(r, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(r);
	return text;
}

Test(backup, a_copy_taken_while_running_restores_every_bisection)
{
	const char *queries[] = {
		"{\"cmd\":\"list\"}",
		"{\"cmd\":\"samples\",\"bisection\":1}",
		"{\"cmd\":\"report\",\"bisection\":1}",
		"{\"cmd\":\"log\",\"bisection\":1}",
		"{\"cmd\":\"samples\",\"bisection\":2}",
	};
	char *out, *want, *got, *copy, *sections, *named;
	json_t *b, *r;
	int64_t done, cancelled;
	int status;
	size_t i;

	svc_setup("backup", 2, "2:3", 0);
	done = svc_bisect("ops_per_sec", NULL);
	b = svc_wait(done);
	svc_assert_culprit(b);
	json_decref(b);
	cancelled = svc_bisect("runtime_ms", NULL);
	r = svc_req("{\"cmd\":\"cancel\",\"bisection\":%lld}",
	    (long long)cancelled);
	cr_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	json_decref(svc_wait(cancelled));
	svc_wait_quiet(cancelled);

	/* A relative FILE is the client's: bisectctl makes it absolute. */
	cr_assert_eq(chdir(svc.dir), 0);
	{
		char *argv[] = { (char *)tst_env_path("BISECTCTL_BIN"), "-s",
		    svc.td.sock, "backup", "copy.db", NULL };

		out = tst_run_capture(argv, &status);
	}
	cr_assert_eq(status, 0, "bisectctl backup: %s", out);
	/* The reply names the file, made absolute. */
	xasprintf(&copy, "%s/copy.db", svc.dir);
	xasprintf(&named, "backup written to %s (", copy);
	cr_assert_not_null(strstr(out, named), "%s", out);
	free(named);
	free(out);
	cr_assert_eq(access(copy, R_OK), 0);
	/* A second backup to the same file is refused, the first kept. */
	r = svc_req("{\"cmd\":\"backup\",\"path\":\"%s\"}", copy);
	cr_assert_str_eq(tst_daemon_error_code(r), "invalid-argument");
	json_decref(r);
	r = svc_req("{\"cmd\":\"backup\",\"path\":\"copy.db\"}");
	cr_assert_str_eq(tst_daemon_error_code(r), "invalid-argument");
	json_decref(r);

	/* The restored daemon: the same configuration, the copy as database. */
	sections = svc_sections(NULL);
	cr_assert_eq(tst_daemon_setup(&restored, "restored", NULL, sections),
	    0);
	free(sections);
	{
		char *argv[] = { "cp", copy, restored.db, NULL };

		cr_assert_eq(tst_run(argv), 0);
	}
	cr_assert_eq(tst_daemon_start(&restored), 0, "restored daemon");
	for (i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		want = backup_answer(&svc.td, queries[i]);
		got = backup_answer(&restored, queries[i]);
		cr_expect_str_eq(got, want, "%s differs after restore:\n"
		    "original %s\nrestored %s", queries[i], want, got);
		free(want);
		free(got);
	}
	free(copy);
}

/*
 * Upgrades: the daemon copies an older database beside itself and says so
 * in the log, then migrates it at start (the first migration alone stands
 * for the old release); putting the copy back restores the old database.
 * A database written by a newer bisectd is refused, naming both versions,
 * without being touched.
 */
Test(backup, upgrades_migrate_and_a_newer_database_is_refused)
{
	struct store_migration *m;
	struct store *s;
	struct bd_error err;
	char want[64], *bak, *line;
	int status, version, events;

	cr_assert_eq(tst_daemon_setup(&restored, "upgrade", NULL, NULL), 0);
	/* Written as the first release wrote it: its schema, version 1. */
	stest_old_db(restored.db, 1);
	cr_assert_eq(tst_daemon_start(&restored), 0, "the old database");
	/* Before migrating, a copy beside it, named and logged. */
	xasprintf(&bak, "%s.v1-to-v%zu.bak", restored.db, store_nmigrations);
	xasprintf(&line, "database migrated from schema version 1 to %zu; the "
	    "database before the migration is in %s", store_nmigrations, bak);
	cr_assert(tst_daemon_log_wait(&restored, "bisectd.log", line),
	    "no log line: %s", line);
	free(line);
	stest_db_facts(bak, &version, &events);
	cr_assert_eq(version, 1);
	cr_assert_eq(events, 1);
	cr_assert_eq(tst_daemon_stop(&restored, SIGTERM), 0);
	cr_assert_eq(store_open(&s, restored.db, &err), 0, "%s", err.msg);
	cr_assert_eq(store_schema_version(s), (int)store_nmigrations);
	store_close(s);

	/* Restoring is stop, copy, start: the old database is back, and
	 * migrated again, its first copy kept. */
	{
		char *argv[] = { "cp", bak, restored.db, NULL };

		cr_assert_eq(tst_run(argv), 0);
	}
	stest_db_facts(restored.db, &version, &events);
	cr_assert_eq(version, 1);
	cr_assert_eq(tst_daemon_start(&restored), 0, "the restored database");
	cr_assert_eq(tst_daemon_stop(&restored, SIGTERM), 0);
	xasprintf(&line, "%s.v1-to-v%zu.2.bak", restored.db,
	    store_nmigrations);
	stest_db_facts(line, &version, &events);
	cr_assert_eq(version, 1);
	cr_assert_eq(events, 1);
	free(line);
	free(bak);

	m = xcalloc(store_nmigrations + 1, sizeof(*m));
	memcpy(m, store_migrations, store_nmigrations * sizeof(*m));
	m[store_nmigrations].version = (int)store_nmigrations + 1;
	m[store_nmigrations].sql = "CREATE TABLE later (x INTEGER);";
	cr_assert_eq(store_open_with(&s, restored.db, m, store_nmigrations + 1,
	    &err), 0, "%s", err.msg);
	store_close(s);
	status = tst_daemon_wait(tst_daemon_spawn(&restored, "newer.log"));
	cr_assert_eq(status, 1, "a newer database must stop the start");
	snprintf(want, sizeof(want), "version %zu", store_nmigrations + 1);
	cr_assert(tst_daemon_log_wait(&restored, "newer.log", want));
	snprintf(want, sizeof(want), "up to %zu", store_nmigrations);
	cr_assert(tst_daemon_log_wait(&restored, "newer.log", want));
	free(m);
}
