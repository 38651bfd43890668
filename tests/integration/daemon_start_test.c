/* SPDX-License-Identifier: MIT */
/*
 * What an administrator reads when the daemon cannot start: the reason,
 * at any log_level, at the error level (issue 38).  A database from a
 * newer bisectd once made `log_level = error` exit 1 without a word.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "tests/support/tst.h"

static char *start_dir;

static void
start_fini(void)
{
	tst_rmrf(start_dir);
	free(start_dir);
	tst_leak_check();
}

TestSuite(daemon_start, .fini = start_fini);

Test(daemon_start, a_failed_start_says_why_at_log_level_error)
{
	char *db, *conf, *text, *out;
	sqlite3 *sq;
	int status;

	start_dir = tst_tmpdir("start");
	cr_assert_not_null(start_dir);
	xasprintf(&db, "%s/db.sqlite", start_dir);
	cr_assert_eq(sqlite3_open(db, &sq), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(sq, "PRAGMA user_version = 999; CREATE "
	    "TABLE later (a);", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sq);
	xasprintf(&text, "[daemon]\nsocket = %s/sock\ndatabase = %s\n"
	    "workdir = %s/work\nlog_level = error\n", start_dir, db,
	    start_dir);
	conf = tst_write_file(start_dir, "bisectd.conf", text);
	{
		char *argv[] = { "sh", "-c", "exec \"$0\" -f -c \"$1\" 2>&1",
		    (char *)tst_env_path("BISECTD_BIN"), conf, NULL };

		out = tst_run_capture(argv, &status);
	}
	cr_assert_not_null(out);
	cr_expect_eq(status, 1, "exit status %d", status);
	cr_expect_not_null(strstr(out, "bisectd[error] cannot start: "),
	    "%s", out);
	cr_expect_not_null(strstr(out, "schema version 999"), "%s", out);
	free(out);
	free(conf);
	free(text);
	free(db);
}
