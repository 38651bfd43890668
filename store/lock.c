/* SPDX-License-Identifier: MIT */
/*
 * One daemon per database file: the lock is on the file itself (its
 * inode), never on a name derived from the path, so two daemons cannot
 * share a database through a symlink, a hard link or a directory reached
 * two ways.  Symlinks and hard links to the database are refused: SQLite
 * names its -wal and -shm files after the path it was given, and two
 * names for one database would give it two journals.  The file is made
 * 0600 (umask permitting); an existing one keeps at most group read, so
 * SQLite, which gives -wal and -shm the database's mode, makes those
 * private too.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "store/store.h"

/* What a database file may not be, with the reason; NULL when it is fine. */
static const char *
store_lock_refused(const struct stat *sb)
{
	if (S_ISLNK(sb->st_mode))
		return "is a symbolic link: name the file itself";
	if (!S_ISREG(sb->st_mode))
		return "is not a regular file";
	if (sb->st_nlink > 1)
		return "has more than one name (hard links): give it one";
	return NULL;
}

/* The same bits off the -wal and -shm files an older daemon left. */
static void
store_lock_chmod(const char *path, const char *suffix, mode_t mode)
{
	struct stat sb;
	char *p;

	xasprintf(&p, "%s%s", path, suffix);
	if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (sb.st_mode & 07777) != mode)
		(void)chmod(p, mode);
	free(p);
}

int
store_lock(const char *path, int *fdp, struct bd_error *err)
{
	struct stat sb;
	const char *why;
	mode_t mode;
	int fd, rc;

	*fdp = -1;
	if (lstat(path, &sb) == 0 && (why = store_lock_refused(&sb)) != NULL)
		return bd_error_set(err, -EINVAL, "database %s %s", path, why);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1)
		return bd_error_set(err, -errno, "cannot open database %s: %s",
		    path, strerror(errno));
	if (fstat(fd, &sb) == -1) {
		rc = bd_error_set(err, -errno, "database %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	if ((why = store_lock_refused(&sb)) != NULL) {
		rc = bd_error_set(err, -EINVAL, "database %s %s", path, why);
		goto fail;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
		bd_error_set(err, rc, "database %s is locked by another "
		    "process", path);
		goto fail;
	}
	mode = sb.st_mode & 0740 & ~(mode_t)S_IWGRP;
	if ((sb.st_mode & 07777) != mode && fchmod(fd, mode) == -1) {
		rc = bd_error_set(err, -errno, "database %s: cannot make it "
		    "private (mode %04o): %s", path, (unsigned)mode,
		    strerror(errno));
		goto fail;
	}
	store_lock_chmod(path, "-wal", mode);
	store_lock_chmod(path, "-shm", mode);
	*fdp = fd;
	return 0;
fail:
	close(fd);
	return rc;
}
