/* SPDX-License-Identifier: MIT */
/*
 * The database file (issue 35, items 6 and 10): the real daemon locks
 * the file itself, so a second daemon reaching it through a symlink or a
 * hard link never starts; and the database, its -wal and its -shm are
 * private to the daemon's user.
 */
#include <sys/stat.h>

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/daemon.h"
#include "tests/support/tst.h"

static struct tst_daemon	first, second;

static void
dbfile_fini(void)
{
	tst_daemon_release(&first);
	tst_daemon_release(&second);
	tst_leak_check();
}

TestSuite(dbfile, .fini = dbfile_fini, .timeout = 120);

/* The first daemon runs on its database; the second is set up only. */
static void
two_daemons(void)
{
	umask(022);
	cr_assert_eq(tst_daemon_setup(&first, "db1", NULL, NULL), 0);
	cr_assert_eq(tst_daemon_start(&first), 0, "bisectd did not start");
	cr_assert_eq(tst_daemon_setup(&second, "db2", NULL, NULL), 0);
}

/* Starts the second daemon, expecting a refusal whose log names why. */
static void
second_refused(const char *why)
{
	char *path, *log;

	cr_assert_neq(tst_daemon_start(&second), 0,
	    "a second daemon started on the first one's database");
	xasprintf(&path, "%s/bisectd.log", second.dir);
	log = tst_read_file(path);
	cr_assert(log != NULL && strstr(log, why) != NULL,
	    "the refusal does not say \"%s\": %s", why, log ? log : "");
	free(log);
	free(path);
	/* The first is untouched and still serves. */
	free(tst_daemon_request(&first, "{\"cmd\":\"ping\"}"));
	cr_assert_neq(kill(first.pid, 0), -1);
}

Test(dbfile, a_second_daemon_through_a_symlink_never_starts)
{
	two_daemons();
	cr_assert_eq(symlink(first.db, second.db), 0);
	second_refused("symbolic link");
}

Test(dbfile, a_second_daemon_through_a_hard_link_never_starts)
{
	two_daemons();
	cr_assert_eq(link(first.db, second.db), 0);
	second_refused("hard links");
}

/* The permission bits of path (which must exist). */
static unsigned
mode_of(const char *path, const char *suffix)
{
	struct stat sb;
	char *p;

	xasprintf(&p, "%s%s", path, suffix);
	cr_assert_eq(stat(p, &sb), 0, "%s is missing", p);
	free(p);
	return (unsigned)(sb.st_mode & 07777);
}

Test(dbfile, the_database_and_its_journal_are_private)
{
	char *line;

	umask(022);
	cr_assert_eq(tst_daemon_setup(&first, "dbmode", NULL, NULL), 0);
	cr_assert_eq(tst_daemon_start(&first), 0, "bisectd did not start");
	/* A write, so that the -wal and -shm files exist. */
	line = tst_daemon_request(&first, "{\"cmd\":\"ping\"}");
	cr_assert_not_null(line);
	free(line);
	cr_assert_eq(mode_of(first.db, ""), 0600, "database mode %04o",
	    mode_of(first.db, ""));
	cr_assert_eq(mode_of(first.db, "-wal"), 0600, "-wal mode %04o",
	    mode_of(first.db, "-wal"));
	cr_assert_eq(mode_of(first.db, "-shm"), 0600, "-shm mode %04o",
	    mode_of(first.db, "-shm"));
	cr_assert_eq(tst_daemon_stop(&first, SIGTERM), 0);

	/* A database an older daemon left world-readable is tightened. */
	cr_assert_eq(chmod(first.db, 0664), 0);
	cr_assert_eq(tst_daemon_start(&first), 0, "bisectd did not restart");
	cr_assert_eq(mode_of(first.db, ""), 0640, "database mode %04o",
	    mode_of(first.db, ""));
}
