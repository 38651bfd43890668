/* SPDX-License-Identifier: MIT */
/*
 * A full disk under the database, for real: the test worker enters a
 * private mount namespace (unshare -m), mounts a 4 MiB tmpfs there and
 * starts the daemon (which inherits the namespace) with its database on
 * it.  Filling the tmpfs makes SQLite answer "database or disk is full";
 * the bisection shows it as trouble, and once the filler is removed the
 * work resumes by itself, without a restart, up to its verdict.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "common/xmalloc.h"
#include "tests/support/svc.h"
#include "tests/support/tmpfs.h"
#include "tests/support/tst.h"

TestSuite(store_full, .fini = svc_fini, .timeout = 900);

/* The bisection's "trouble", or "" (static storage). */
static const char *
full_trouble(int64_t id)
{
	static char text[1024];
	json_t *b = svc_status(id);
	const char *t = json_string_value(json_object_get(b, "trouble"));

	snprintf(text, sizeof(text), "%s", t ? t : "");
	json_decref(b);
	return text;
}

/* What status tells a person names neither the store nor its file. */
static void
full_assert_words(const char *text)
{
	cr_assert(strstr(text, svc.td.db) == NULL, "the path: %s", text);
	cr_assert(strstr(text, "store the database") == NULL &&
	    strstr(text, "store /") == NULL, "the store's prefix: %s", text);
}

/* Issue 35 item 7: a full disk is trouble, then work resumes by itself. */
Test(store_full, a_full_disk_is_retried_and_work_resumes)
{
	char *sections, *filler, *extra, *log, *small;
	const char *full_mnt;
	int64_t id;
	json_t *b;
	int i, seen = 0;

	tmpfs_private();
	svc_setup("full", 1, "2:3", 0);
	cr_assert_eq(tst_daemon_stop(&svc.td, SIGTERM), 0);

	/* The database moves to a 4 MiB tmpfs seen only in here. */
	xasprintf(&small, "%s/small", svc.dir);
	full_mnt = tmpfs_mount(small, "4m");
	free(small);
	free(svc.td.db);
	xasprintf(&svc.td.db, "%s/state.db", full_mnt);
	sections = svc_sections(NULL);
	xasprintf(&extra, "report_hook = cat > %s/hook.txt\n", svc.dir);
	cr_assert_eq(tst_daemon_write_config(&svc.td, extra, sections), 0);
	free(extra);
	free(sections);
	cr_assert_eq(tst_daemon_start(&svc.td), 0, "bisectd did not start");

	id = svc_bisect("runtime_ms", NULL);
	/* Some runs first, so the disk fills in the middle of the work. */
	for (i = 0; i < SVC_WAIT_MS / 100; i++) {
		b = svc_status(id);
		seen = svc_runs_ended(b) >= 2;
		json_decref(b);
		if (seen)
			break;
		usleep(100 * 1000);
	}
	cr_assert(seen, "no runs ended");

	xasprintf(&filler, "%s/filler", full_mnt);
	tmpfs_fill(filler);
	for (seen = 0, i = 0; i < SVC_WAIT_MS / 100 && !seen; i++) {
		seen = strstr(full_trouble(id), "full") != NULL;
		if (!seen)
			usleep(100 * 1000);
	}
	cr_assert(seen, "status never showed the full disk as trouble");
	full_assert_words(full_trouble(id));

	/* Space comes back: the same daemon finishes the bisection. */
	cr_assert_eq(unlink(filler), 0);
	free(filler);
	b = svc_wait(id);
	cr_assert_str_eq(json_string_value(json_object_get(b, "state")),
	    "done", "%s", json_string_value(json_object_get(b, "message")));
	svc_assert_culprit(b);
	/* A result the full disk refused was kept and written later, not
	 * dropped and counted a failure of the fleet. */
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(b,
	    "runs"), "failed-infra")), 0, "%s", json_dumps(json_object_get(b,
	    "runs"), 0));
	log = tst_read_file(svc.td.log);
	cr_assert(log != NULL && strstr(log, "failed on the fleet") == NULL,
	    "%s", log ? log : "(no log)");
	free(log);
	json_decref(b);
}

/*
 * Issue 33: a store error that no retry can cure (here a trigger that
 * refuses the verdict, as a NaN confidence once did) ends the bisection
 * `failed` with the store's message; it never stays `running` idle.
 */
Test(store_full, a_refused_verdict_fails_the_bisection)
{
	char *sql, *emsg = NULL;
	const char *msg;
	sqlite3 *db;
	int64_t id;
	json_t *b;

	svc_setup("refused", 1, "2:3", 0);
	id = svc_bisect("runtime_ms", NULL);
	cr_assert_eq(sqlite3_open(svc.td.db, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	xasprintf(&sql, "CREATE TRIGGER refuse_verdict BEFORE UPDATE OF state "
	    "ON bisections WHEN OLD.id = %lld AND NEW.state = 'done' BEGIN "
	    "SELECT RAISE(ABORT, 'the test refuses this verdict'); END",
	    (long long)id);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &emsg), SQLITE_OK,
	    "%s", emsg ? emsg : "");
	free(sql);
	sqlite3_close(db);
	b = svc_wait(id);
	cr_assert_str_eq(json_string_value(json_object_get(b, "state")),
	    "failed");
	msg = json_string_value(json_object_get(b, "message"));
	cr_assert(msg != NULL && strstr(msg, "the database refused its "
	    "state: set bisection state: constraint failed") == msg, "%s",
	    msg ? msg : "(no message)");
	full_assert_words(msg);
	json_decref(b);
}
