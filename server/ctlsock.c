/* SPDX-License-Identifier: MIT */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "server/ctlsock.h"

#define CTLSOCK_BACKLOG	128

/* Fills a sockaddr_un, refusing paths the kernel would truncate. */
static int
ctlsock_addr(const char *path, struct sockaddr_un *sun, struct bd_error *err)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path))
		return bd_error_set(err, -ENAMETOOLONG,
		    "socket path %s is too long (at most %zu bytes)", path,
		    sizeof(sun->sun_path) - 1);
	strcpy(sun->sun_path, path);
	return 0;
}

/* A fresh install has no /run/bisectd yet; make it rather than fail. */
static int
ctlsock_mkparent(const char *path, struct bd_error *err)
{
	char *dir = xstrdup(path), *p, c;
	int rc = 0;

	p = strrchr(dir, '/');
	if (p == NULL || p == dir)
		goto out;
	*p = '\0';
	for (p = dir + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
			rc = bd_error_set(err, -errno, "cannot create %s: %s",
			    dir, strerror(errno));
			goto out;
		}
		*p = c;
		if (c == '\0')
			break;
	}
out:
	free(dir);
	return rc;
}

/*
 * Decides what an existing file at path means: a daemon answering there is
 * an error, a socket nobody listens on is left over from a crash and goes.
 */
static int
ctlsock_probe(const char *path, const struct sockaddr_un *sun,
    struct bd_error *err)
{
	struct stat st;
	int s, rc;

	if (lstat(path, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		return bd_error_set(err, -errno, "cannot stat %s: %s", path,
		    strerror(errno));
	}
	if (!S_ISSOCK(st.st_mode))
		return bd_error_set(err, -EEXIST,
		    "%s exists and is not a socket; not touching it", path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s == -1)
		return bd_error_set(err, -errno, "socket: %s", strerror(errno));
	rc = connect(s, (const struct sockaddr *)sun, sizeof(*sun));
	if (rc == 0) {
		close(s);
		return bd_error_set(err, -EADDRINUSE,
		    "another bisectd is already running on %s", path);
	}
	rc = errno;
	close(s);
	if (rc != ECONNREFUSED)
		return bd_error_set(err, -rc, "cannot check %s: %s", path,
		    strerror(rc));
	log_info("removing stale socket %s", path);
	if (unlink(path) == -1 && errno != ENOENT)
		return bd_error_set(err, -errno, "cannot remove stale %s: %s",
		    path, strerror(errno));
	return 0;
}

/* Mode and group decide who may talk to the daemon; also used by reload. */
int
ctlsock_perms(const char *path, mode_t mode, const char *group,
    struct bd_error *err)
{
	struct group gr, *grp = NULL;
	char buf[4096];
	int rc = 0;

	/* The mode goes first: a group that fails must not keep an old mode. */
	if (chmod(path, mode) == -1)
		return bd_error_set(err, -errno, "cannot chmod %s to %04o: %s",
		    path, (unsigned)mode, strerror(errno));
	if (group == NULL)
		return 0;
	rc = getgrnam_r(group, &gr, buf, sizeof(buf), &grp);
	if (grp == NULL)
		return bd_error_set(err, rc ? -rc : -ENOENT,
		    "socket_group %s: no such group", group);
	if (chown(path, (uid_t)-1, grp->gr_gid) == -1)
		return bd_error_set(err, -errno, "cannot give %s to group %s: %s",
		    path, group, strerror(errno));
	return 0;
}

/*
 * Plain system calls before the loop exists, so that every reason not to
 * start is reported to whoever started the daemon.
 */
int
ctlsock_listen(const char *path, mode_t mode, const char *group, int *fdp,
    struct bd_error *err)
{
	struct sockaddr_un sun;
	mode_t old;
	int s = -1, rc;

	if ((rc = ctlsock_addr(path, &sun, err)) < 0 ||
	    (rc = ctlsock_mkparent(path, err)) < 0 ||
	    (rc = ctlsock_probe(path, &sun, err)) < 0)
		return rc;
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s == -1)
		return bd_error_set(err, -errno, "socket: %s", strerror(errno));
	/* Nobody may connect before the configured mode is in place. */
	old = umask(0177);
	rc = bind(s, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (rc == -1) {
		rc = bd_error_set(err, -errno, "cannot bind %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	if ((rc = ctlsock_perms(path, mode, group, err)) < 0) {
		unlink(path);
		goto fail;
	}
	if (listen(s, CTLSOCK_BACKLOG) == -1) {
		rc = bd_error_set(err, -errno, "cannot listen on %s: %s", path,
		    strerror(errno));
		unlink(path);
		goto fail;
	}
	*fdp = s;
	return 0;
fail:
	close(s);
	return rc;
}

