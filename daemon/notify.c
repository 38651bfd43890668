/* SPDX-License-Identifier: MIT */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/notify.h"

static char notify_path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];

/* Children must not talk to our service manager in our name. */
void
notify_init(void)
{
	const char *path = getenv("NOTIFY_SOCKET");

	if (path != NULL && strlen(path) < sizeof(notify_path))
		strcpy(notify_path, path);
	unsetenv("NOTIFY_SOCKET");
}

/* The manager may have gone; a failure to notify never stops the daemon. */
int
notify_send(const char *state)
{
	const char *path = notify_path;
	struct sockaddr_un sun;
	socklen_t len;
	size_t plen;
	ssize_t n;
	int fd, rc = 1;

	if (path == NULL || *path == '\0')
		return 0;
	plen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || plen >= sizeof(sun.sun_path))
		return -EINVAL;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, plen);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen +
	    (path[0] == '/'));
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
	    (struct sockaddr *)&sun, len);
	if (n < 0)
		rc = -errno;
	close(fd);
	return rc;
}
