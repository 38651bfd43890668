/* SPDX-License-Identifier: MIT */
/*
 * A small file system to fill, for tests of a full disk: the test worker
 * enters a private mount namespace (so nothing outside sees the mount, and
 * the daemon and sshds it starts afterwards share it), mounts a tmpfs and
 * fills it up.  One mount per test worker; tmpfs_fini (svc_fini calls it)
 * unmounts it.
 */
#ifndef TESTS_SUPPORT_TMPFS_H
#define TESTS_SUPPORT_TMPFS_H

/*
 * Enters a private mount namespace; skips the test where there is none.
 * Call before starting any process that must see the mount.
 */
void	tmpfs_private(void);
/* Mounts a tmpfs of size ("1m") at dir (made if missing); returns dir. */
const char *tmpfs_mount(const char *dir, const char *size);
/* Writes into path until the file system says ENOSPC. */
void	tmpfs_fill(const char *path);
/* Unmounts (detached: a process may still be in it); no-op when none. */
void	tmpfs_fini(void);

#endif
