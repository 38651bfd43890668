/* SPDX-License-Identifier: MIT */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "common/proto.h"
#include "ctl/client.h"

/* A cleared client can always be released, connected or not. */
void
client_init(struct client *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Safe twice, so every exit path may call it. */
void
client_release(struct client *c)
{
	if (c->fd != -1)
		close(c->fd);
	free(c->path);
	free(c->buf);
	client_init(c);
}

/* One place decides the default, so the daemon and client always agree. */
const char *
client_default_socket(void)
{
	const char *env = getenv("BISECTD_SOCKET");

	return env != NULL && *env != '\0' ? env : PROTO_DEFAULT_SOCKET;
}

/* The message names the path: that is what a user needs to check first. */
int
client_connect(struct client *c, const char *path, struct bd_error *err)
{
	struct sockaddr_un sun;
	int s, e;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path))
		return bd_error_set(err, -ENAMETOOLONG,
		    "socket path %s is too long", path);
	strcpy(sun.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s == -1)
		return bd_error_set(err, -errno, "socket: %s", strerror(errno));
	if (connect(s, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		e = errno;
		close(s);
		if (e == ENOENT || e == ECONNREFUSED)
			return bd_error_set(err, -e, "cannot reach bisectd at "
			    "%s: %s (is the daemon running?)", path,
			    strerror(e));
		if (e == EACCES || e == EPERM)
			return bd_error_set(err, -e, "cannot reach bisectd at "
			    "%s: %s (the socket is for the daemon's "
			    "socket_group: ask to be added to it)", path,
			    strerror(e));
		return bd_error_set(err, -e, "cannot reach bisectd at %s: %s",
		    path, strerror(e));
	}
	c->fd = s;
	free(c->path);
	c->path = xstrdup(path);
	return 0;
}

/* A request line may exceed one send() on a busy socket. */
static int
client_write_all(struct client *c, const char *p, size_t n,
    struct bd_error *err)
{
	ssize_t w;

	while (n > 0) {
		w = send(c->fd, p, n, MSG_NOSIGNAL);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			return bd_error_set(err, errno == EPIPE ? -EPIPE :
			    -errno, "bisectd at %s: %s", c->path,
			    strerror(errno));
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Deadlines rather than timeouts, so waking early never stretches a wait. */
void
client_deadline(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

/*
 * Waits for input with poll(2) so a caller can refresh on a timer without
 * sleeping; 1 when readable (or no deadline), 0 once the deadline passed.
 */
static int
client_wait_input(struct client *c, const struct timespec *deadline,
    struct bd_error *err)
{
	struct timespec now;
	struct pollfd pfd;
	long long ms;
	int n;

	if (deadline == NULL)
		return 1;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
		    (deadline->tv_nsec - now.tv_nsec) / 1000000;
		pfd.fd = c->fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		n = poll(&pfd, 1, ms > 0 ? (int)ms : 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return bd_error_set(err, -errno, "poll: %s",
			    strerror(errno));
		return n > 0;
	}
}

/* Keeps bytes after the newline: a streamed event may follow a reply. */
int
client_read_line_until(struct client *c, const struct timespec *deadline,
    char **linep, struct bd_error *err)
{
	char *nl;
	size_t len;
	ssize_t n;
	int rc;

	for (;;) {
		nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
		if (nl != NULL)
			break;
		if (c->len >= CLIENT_REPLY_MAX)
			return bd_error_set(err, -EPROTO, "bisectd at %s sent "
			    "a line longer than %d bytes", c->path,
			    CLIENT_REPLY_MAX);
		rc = client_wait_input(c, deadline, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return -ETIMEDOUT;
		if (c->cap - c->len < 4096) {
			c->cap = c->cap ? c->cap * 2 : 8192;
			c->buf = xreallocarray(c->buf, c->cap, 1);
		}
		n = read(c->fd, c->buf + c->len, c->cap - c->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return bd_error_set(err, -errno, "bisectd at %s: %s",
			    c->path, strerror(errno));
		if (n == 0)
			return bd_error_set(err, -EPIPE, "bisectd at %s closed "
			    "the connection", c->path);
		c->len += (size_t)n;
	}
	len = (size_t)(nl - c->buf);
	*linep = xstrndup(c->buf, len);
	memmove(c->buf, nl + 1, c->len - len - 1);
	c->len -= len + 1;
	return 0;
}

/* The blocking form most commands need. */
int
client_read_line(struct client *c, char **linep, struct bd_error *err)
{
	return client_read_line_until(c, NULL, linep, err);
}

/* One encoded line; the reply is read separately (or never, for watch). */
int
client_send(struct client *c, const json_t *req, struct bd_error *err)
{
	char *out;
	size_t outlen;
	int rc;

	out = proto_encode(req, &outlen);
	if (out == NULL)
		return bd_error_set(err, -EINVAL, "cannot encode the request");
	rc = client_write_all(c, out, outlen, err);
	free(out);
	return rc;
}

/* One request and its reply, the whole job of most bisectctl commands. */
int
client_request(struct client *c, const json_t *req, char **linep,
    json_t **replyp, struct bd_error *err)
{
	json_error_t jerr;
	json_t *reply;
	char *line;
	int rc, rrc;

	rc = client_send(c, req, err);
	if (rc == -EINVAL)
		return rc;
	/*
	 * A daemon that refuses the connection (too many clients) says why
	 * and closes, possibly before our request arrived: read it anyway.
	 */
	rrc = client_read_line(c, &line, rc < 0 ? NULL : err);
	if (rrc == -EPIPE && rc == 0)
		bd_error_set(err, rrc, "bisectd at %s closed the connection "
		    "without a reply", c->path);
	if (rrc < 0)
		return rc < 0 ? rc : rrc;
	reply = json_loads(line, 0, &jerr);
	if (reply == NULL || !json_is_object(reply)) {
		json_decref(reply);
		rc = bd_error_set(err, -EPROTO, "bisectd at %s sent a reply "
		    "that is not a JSON object: %.80s", c->path, line);
		free(line);
		return rc;
	}
	if (replyp != NULL)
		*replyp = reply;
	else
		json_decref(reply);
	if (linep != NULL)
		*linep = line;
	else
		free(line);
	return 0;
}

/* Sorts a request's outcome into the three ends bisectctl reports. */
enum client_result
client_ask(struct client *c, const json_t *req, char **linep,
    json_t **replyp, struct bd_error *err)
{
	*linep = NULL;
	*replyp = NULL;
	if (client_request(c, req, linep, replyp, err) < 0)
		return CLIENT_UNREACHED;
	return json_is_true(json_object_get(*replyp, "ok")) ? CLIENT_OK :
	    CLIENT_ERROR_REPLY;
}

/* The first request of a connection, which most commands make alone. */
enum client_result
client_call(struct client *c, const char *path, const json_t *req,
    char **linep, json_t **replyp, struct bd_error *err)
{
	*linep = NULL;
	*replyp = NULL;
	if (client_connect(c, path, err) < 0)
		return CLIENT_UNREACHED;
	return client_ask(c, req, linep, replyp, err);
}
