/* SPDX-License-Identifier: MIT */
/*
 * The mirror's socket stream, registered with libgit2 for plain sockets:
 * git:// and http:// read through it, TLS wraps it, and ssh:// hands its
 * descriptor to libssh2.  libgit2 1.5's own stream blocks in recv() with
 * no timeout, so a server that accepts and never answers held a fetch,
 * and the daemon's shutdown, for as long as it liked.  This one waits in
 * slices: a read or write gives up after MIRROR_IDLE_MS without a byte,
 * a connect after MIRROR_CONNECT_MS, and either stops within a slice of
 * the fetch being cancelled.  mirror_cancel() also shuts the sockets
 * down, which ends a wait inside libssh2 as well.
 *
 * libgit2's ssh transport reads the descriptor of the stream as its own
 * git_socket_stream (parent, host, port, s): struct mirror_sock begins
 * with the same fields.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>
#include <git2/sys/stream.h>

#include "common/xmalloc.h"
#include "repo/mirror.h"
#include "repo/mirror_int.h"

/* How often a wait looks at the cancel flag. */
#define MIRROR_NET_SLICE_MS	100
#define MIRROR_NET_MAX		16

struct mirror_sock {
	git_stream	 parent;	/* as libgit2's git_socket_stream */
	char		*host;
	char		*port;
	int		 s;
	volatile int	*cancel;	/* of the fetch that made it */
};

/* The open sockets of every fetch, for mirror_cancel from another thread. */
static pthread_mutex_t	 mirror_net_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mirror_sock *mirror_net_open[MIRROR_NET_MAX];

/* The cancel flag of the fetch running on this thread, or NULL. */
static __thread volatile int *mirror_net_cancel;

void
mirror_net_begin(volatile int *cancel)
{
	mirror_net_cancel = cancel;
}

/* Whether the fetch that made m was cancelled. */
static int
mirror_net_cancelled(const struct mirror_sock *m)
{
	return m->cancel != NULL && __atomic_load_n(m->cancel,
	    __ATOMIC_SEQ_CST);
}

/* libgit2's error for this stream, with the host it talks to. */
static int
mirror_net_error(const struct mirror_sock *m, const char *what, int rc)
{
	char msg[512];

	if (mirror_net_cancelled(m))
		snprintf(msg, sizeof(msg), "%s:%s: cancelled", m->host,
		    m->port);
	else
		snprintf(msg, sizeof(msg), "%s:%s: %s", m->host, m->port,
		    what);
	git_error_set_str(GIT_ERROR_NET, msg);
	return rc;
}

/* Enters m's socket into the table; -1 when the fetch was cancelled. */
static int
mirror_net_add(struct mirror_sock *m)
{
	size_t i;
	int rc = -1;

	pthread_mutex_lock(&mirror_net_lock);
	for (i = 0; i < MIRROR_NET_MAX && !mirror_net_cancelled(m); i++)
		if (mirror_net_open[i] == NULL) {
			mirror_net_open[i] = m;
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&mirror_net_lock);
	return rc;
}

/* Takes m's socket out of the table and closes it: nobody shuts it now. */
static void
mirror_net_drop(struct mirror_sock *m)
{
	size_t i;

	pthread_mutex_lock(&mirror_net_lock);
	for (i = 0; i < MIRROR_NET_MAX; i++)
		if (mirror_net_open[i] == m)
			mirror_net_open[i] = NULL;
	pthread_mutex_unlock(&mirror_net_lock);
	if (m->s >= 0)
		close(m->s);
	m->s = -1;
}

void
mirror_cancel(volatile int *cancel)
{
	size_t i;

	if (cancel == NULL)
		return;
	pthread_mutex_lock(&mirror_net_lock);
	__atomic_store_n(cancel, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < MIRROR_NET_MAX; i++)
		if (mirror_net_open[i] != NULL &&
		    mirror_net_open[i]->cancel == cancel)
			(void)shutdown(mirror_net_open[i]->s, SHUT_RDWR);
	pthread_mutex_unlock(&mirror_net_lock);
}

/*
 * Waits until the socket is ready for events: 0, or a libgit2 error once
 * limit_ms passed without, the fetch was cancelled, or poll failed.
 */
static int
mirror_net_wait(struct mirror_sock *m, short events, int limit_ms,
    const char *what)
{
	struct pollfd pfd = { .fd = m->s, .events = events };
	char msg[128];
	int waited, rc;

	for (waited = 0;; waited += MIRROR_NET_SLICE_MS) {
		if (mirror_net_cancelled(m))
			return mirror_net_error(m, "", GIT_EUSER);
		if (waited >= limit_ms) {
			snprintf(msg, sizeof(msg), "%s: nothing for %d s", what,
			    limit_ms / 1000);
			return mirror_net_error(m, msg, -1);
		}
		rc = poll(&pfd, 1, MIRROR_NET_SLICE_MS);
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR) {
			snprintf(msg, sizeof(msg), "%s: %s", what,
			    strerror(errno));
			return mirror_net_error(m, msg, -1);
		}
	}
}

/* A dead peer is noticed by the kernel within minutes, even under ssh. */
static void
mirror_net_keepalive(int s)
{
	int on = 1, idle = 60, intvl = 10, cnt = 6;

	(void)setsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	(void)setsockopt(s, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	(void)setsockopt(s, IPPROTO_TCP, TCP_KEEPINTVL, &intvl,
	    sizeof(intvl));
	(void)setsockopt(s, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

/* One address: a non-blocking connect, waited for in slices. */
static int
mirror_net_try(struct mirror_sock *m, const struct addrinfo *ai)
{
	socklen_t len = sizeof(int);
	int rc, soerr = 0;

	m->s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, ai->ai_protocol);
	if (m->s < 0)
		return mirror_net_error(m, strerror(errno), -1);
	if (mirror_net_add(m) < 0) {
		close(m->s);
		m->s = -1;
		return mirror_net_error(m, "too many connections", -1);
	}
	mirror_net_keepalive(m->s);
	if (connect(m->s, ai->ai_addr, ai->ai_addrlen) == 0)
		return 0;
	if (errno != EINPROGRESS)
		rc = mirror_net_error(m, strerror(errno), -1);
	else if ((rc = mirror_net_wait(m, POLLOUT, MIRROR_CONNECT_MS,
	    "connect")) == 0) {
		if (getsockopt(m->s, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
			soerr = errno;
		if (soerr == 0)
			return 0;
		rc = mirror_net_error(m, strerror(soerr), -1);
	}
	mirror_net_drop(m);
	return rc;
}

static int
mirror_net_connect(git_stream *st)
{
	struct mirror_sock *m = (struct mirror_sock *)st;
	struct addrinfo hints, *ai = NULL, *p;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_family = AF_UNSPEC;
	if ((rc = getaddrinfo(m->host, m->port, &hints, &ai)) != 0)
		return mirror_net_error(m, gai_strerror(rc), -1);
	for (rc = -1, p = ai; p != NULL && rc < 0 &&
	    !mirror_net_cancelled(m); p = p->ai_next)
		rc = mirror_net_try(m, p);
	freeaddrinfo(ai);
	return rc < 0 && mirror_net_cancelled(m) ? GIT_EUSER : rc;
}

static ssize_t
mirror_net_read(git_stream *st, void *buf, size_t len)
{
	struct mirror_sock *m = (struct mirror_sock *)st;
	ssize_t n;
	int rc;

	for (;;) {
		if (mirror_net_cancelled(m))
			return mirror_net_error(m, "", GIT_EUSER);
		if ((n = recv(m->s, buf, len, 0)) >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return mirror_net_error(m, strerror(errno), -1);
		if ((rc = mirror_net_wait(m, POLLIN, MIRROR_IDLE_MS,
		    "read")) < 0)
			return rc;
	}
}

/* All of buf, or an error: libgit2 treats a short write as one. */
static ssize_t
mirror_net_write(git_stream *st, const char *buf, size_t len, int flags)
{
	struct mirror_sock *m = (struct mirror_sock *)st;
	size_t done = 0;
	ssize_t n;
	int rc;

	(void)flags;
	while (done < len) {
		if (mirror_net_cancelled(m))
			return mirror_net_error(m, "", GIT_EUSER);
		n = send(m->s, buf + done, len - done, MSG_NOSIGNAL);
		if (n >= 0) {
			done += (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return mirror_net_error(m, strerror(errno), -1);
		if ((rc = mirror_net_wait(m, POLLOUT, MIRROR_IDLE_MS,
		    "write")) < 0)
			return rc;
	}
	return (ssize_t)len;
}

static int
mirror_net_close(git_stream *st)
{
	mirror_net_drop((struct mirror_sock *)st);
	return 0;
}

static void
mirror_net_free(git_stream *st)
{
	struct mirror_sock *m = (struct mirror_sock *)st;

	mirror_net_drop(m);
	free(m->host);
	free(m->port);
	free(m);
}

/* libgit2's constructor for every plain socket, on the fetching thread. */
static int
mirror_net_new(git_stream **out, const char *host, const char *port)
{
	struct mirror_sock *m = xcalloc(1, sizeof(*m));

	m->parent.version = GIT_STREAM_VERSION;
	m->parent.connect = mirror_net_connect;
	m->parent.read = mirror_net_read;
	m->parent.write = mirror_net_write;
	m->parent.close = mirror_net_close;
	m->parent.free = mirror_net_free;
	m->host = xstrdup(host);
	m->port = xstrdup(port != NULL ? port : "0");
	m->s = -1;
	m->cancel = mirror_net_cancel;
	*out = &m->parent;
	return 0;
}

/* Once per process: libgit2's registry is global. */
static void
mirror_net_register_once(void)
{
	static git_stream_registration reg = {
		.version = GIT_STREAM_VERSION,
		.init = mirror_net_new,
	};

	(void)git_stream_register(GIT_STREAM_STANDARD, &reg);
}

void
mirror_net_register(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	(void)pthread_once(&once, mirror_net_register_once);
}
