/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>

#include <sys/mount.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/tmpfs.h"

static char *tmpfs_dir;

/* A mount made outside the namespace would outlive the test. */
void
tmpfs_private(void)
{
	if (unshare(CLONE_NEWNS) != 0)
		cr_skip_test("no private mount namespace here: %s",
		    strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0,
	    "%s", strerror(errno));
}

const char *
tmpfs_mount(const char *dir, const char *size)
{
	char *opts;

	cr_assert_null(tmpfs_dir, "one tmpfs per test");
	if (mkdir(dir, 0700) != 0)
		cr_assert_eq(errno, EEXIST, "%s: %s", dir, strerror(errno));
	xasprintf(&opts, "size=%s", size);
	cr_assert_eq(mount("tmpfs", dir, "tmpfs", 0, opts), 0, "%s: %s", dir,
	    strerror(errno));
	free(opts);
	tmpfs_dir = xstrdup(dir);
	return tmpfs_dir;
}

/* Smaller writes after the first ENOSPC take the last partial block. */
void
tmpfs_fill(const char *path)
{
	static char block[16384];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t n;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	memset(block, 'f', sizeof(block));
	do
		n = write(fd, block, sizeof(block));
	while (n > 0);
	cr_assert_eq(errno, ENOSPC, "filling: %s", strerror(errno));
	while (write(fd, block, 512) > 0)
		;
	close(fd);
}

void
tmpfs_fini(void)
{
	if (tmpfs_dir == NULL)
		return;
	umount2(tmpfs_dir, MNT_DETACH);
	free(tmpfs_dir);
	tmpfs_dir = NULL;
}
