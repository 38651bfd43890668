/* SPDX-License-Identifier: MIT */
/*
 * Online backups: a consistent copy of the database while the daemon keeps
 * writing.  The copy is taken through SQLite's backup API from a connection
 * of its own, in one step, so it reads one snapshot of the WAL database
 * (a read transaction) and never blocks the daemon's writer; it runs on a
 * worker thread, never on the loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/xmalloc.h"
#include "store/store_int.h"

/* Turns a SQLite failure into the store's convention, naming the step. */
static int
store_backup_fail(struct bd_error *err, sqlite3 *db, const char *what)
{
	return bd_error_set(err, -EIO, "backup: %s: %s", what,
	    db != NULL ? sqlite3_errmsg(db) : "out of memory");
}

/*
 * The copy itself, for a request's backup and for the one taken before a
 * migration, whose path is the database's own and may be relative.
 */
int
store_backup_copy(const char *db_path, const char *dest,
    struct store_backup_info *info, struct bd_error *err)
{
	sqlite3 *src = NULL, *dst = NULL;
	sqlite3_backup *b;
	struct stat st;
	int fd, rc = -EIO, made = 0;

	memset(info, 0, sizeof(*info));
	/* A backup never replaces a file, least of all the database. */
	if ((fd = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0)
		return bd_error_set(err, -errno, "backup: cannot create %s: %s",
		    dest, strerror(errno));
	close(fd);
	made = 1;
	if (sqlite3_open_v2(db_path, &src, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		rc = store_backup_fail(err, src, "open the database");
		goto out;
	}
	sqlite3_busy_timeout(src, 5000);
	if (sqlite3_open_v2(dest, &dst, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		rc = store_backup_fail(err, dst, "open the copy");
		goto out;
	}
	if ((b = sqlite3_backup_init(dst, "main", src, "main")) == NULL) {
		rc = store_backup_fail(err, dst, "start");
		goto out;
	}
	rc = sqlite3_backup_step(b, -1);
	info->pages = (size_t)sqlite3_backup_pagecount(b);
	if (sqlite3_backup_finish(b) != SQLITE_OK || rc != SQLITE_DONE) {
		rc = store_backup_fail(err, dst, "copy");
		goto out;
	}
	/* The copy must open and pass SQLite's own check before it counts. */
	if (sqlite3_exec(dst, "PRAGMA quick_check", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		rc = store_backup_fail(err, dst, "check the copy");
		goto out;
	}
	sqlite3_close(dst);
	dst = NULL;
	if (stat(dest, &st) == 0)
		info->bytes = (size_t)st.st_size;
	rc = 0;
out:
	sqlite3_close(src);
	sqlite3_close(dst);
	if (rc < 0 && made)
		unlink(dest);
	return rc;
}

int
store_backup(const char *db_path, const char *dest,
    struct store_backup_info *info, struct bd_error *err)
{
	if (dest[0] != '/') {
		memset(info, 0, sizeof(*info));
		return bd_error_set(err, -EINVAL,
		    "backup: the path must be absolute");
	}
	return store_backup_copy(db_path, dest, info, err);
}

/*
 * Before a migration: DB.vFROM-to-vTO.bak beside the database, or
 * DB.vFROM-to-vTO.N.bak when an earlier attempt left that name, so an
 * upgrade never fails on, nor replaces, an older copy.
 */
int
store_backup_before_migration(const char *db_path, int from, int to,
    char **destp, struct bd_error *err)
{
	struct store_backup_info info;
	char *dest;
	int i, rc = -EEXIST;

	*destp = NULL;
	for (i = 1; i <= 100 && rc == -EEXIST; i++) {
		if (i == 1)
			xasprintf(&dest, "%s.v%d-to-v%d.bak", db_path, from, to);
		else
			xasprintf(&dest, "%s.v%d-to-v%d.%d.bak", db_path, from,
			    to, i);
		rc = store_backup_copy(db_path, dest, &info, err);
		if (rc == 0)
			*destp = dest;
		else
			free(dest);
	}
	return rc;
}
