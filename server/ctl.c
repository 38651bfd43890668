/* SPDX-License-Identifier: MIT */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "server/ctl.h"
#include "common/log.h"
#include "common/proto.h"

/* Connections accepted per loop iteration, so reads are not starved. */
#define CTL_ACCEPT_BURST	16
#define CTL_IN_START	4096
#define CTL_IN_MAX	(PROTO_LINE_MAX + 1)	/* a full line and its newline */

/* One queued write; the bytes live in the same allocation as the request. */
struct ctl_write {
	uv_write_t	 req;
	struct ctl_conn	*conn;
	size_t		 len;
	char		 data[];
};

static void	ctl_conn_abort(struct ctl_conn *);

/* Frees a connection once libuv is done with its handle. */
static void
ctl_conn_closed(uv_handle_t *h)
{
	struct ctl_conn *conn = h->data;
	struct ctl_server *srv = conn->srv;

	log_debug("client %u closed", conn->serial);
	TAILQ_REMOVE(&srv->conns, conn, entry);
	free(conn->in);
	free(conn);
	if (srv->stopping && TAILQ_EMPTY(&srv->conns) &&
	    !uv_is_closing((uv_handle_t *)&srv->drain))
		uv_close((uv_handle_t *)&srv->drain, NULL);
}

/* Drops a connection now, discarding whatever output is still queued. */
static void
ctl_conn_abort(struct ctl_conn *conn)
{
	conn->closing = 1;
	if (uv_is_closing((uv_handle_t *)&conn->pipe))
		return;
	uv_read_stop((uv_stream_t *)&conn->pipe);
	uv_close((uv_handle_t *)&conn->pipe, ctl_conn_closed);
}

/* Closes once the queued output has gone out (or was cancelled). */
static void
ctl_conn_shut(uv_shutdown_t *req, int status)
{
	struct ctl_conn *conn = req->handle->data;

	(void)status;
	free(req);
	if (!uv_is_closing((uv_handle_t *)&conn->pipe))
		uv_close((uv_handle_t *)&conn->pipe, ctl_conn_closed);
}

/* uv_shutdown waits for queued writes, so the last reply still arrives. */
void
ctl_conn_close(struct ctl_conn *conn)
{
	uv_shutdown_t *req;

	if (conn->closing)
		return;
	if (conn->held > 0) {
		/* The owed reply goes out first; unhold closes. */
		conn->close_when_free = 1;
		uv_read_stop((uv_stream_t *)&conn->pipe);
		return;
	}
	conn->closing = 1;
	uv_read_stop((uv_stream_t *)&conn->pipe);
	req = xmalloc(sizeof(*req));
	if (uv_shutdown(req, (uv_stream_t *)&conn->pipe, ctl_conn_shut) < 0) {
		free(req);
		ctl_conn_abort(conn);
	}
}

static void	ctl_conn_read(uv_stream_t *, ssize_t, const uv_buf_t *);
static void	ctl_conn_alloc(uv_handle_t *, size_t, uv_buf_t *);

/* Resumes a paused reader once its replies have mostly drained. */
static void
ctl_conn_wrote(uv_write_t *req, int status)
{
	struct ctl_write *w = (struct ctl_write *)req;
	struct ctl_conn *conn = w->conn;

	conn->queued -= w->len;
	free(w);
	if (status < 0) {
		if (status != UV_ECANCELED)
			log_debug("client %u: write: %s", conn->serial,
			    uv_strerror(status));
		ctl_conn_abort(conn);
		return;
	}
	if (conn->paused && !conn->closing && conn->held == 0 &&
	    !conn->close_when_free && conn->queued <= CTL_OUTPUT_HIGH / 2) {
		conn->paused = 0;
		uv_read_start((uv_stream_t *)&conn->pipe, ctl_conn_alloc,
		    ctl_conn_read);
	}
}

/*
 * Never blocks: libuv writes what the socket takes and queues the rest.  A
 * client that sends but does not read is paused, then dropped at the cap.
 */
void
ctl_conn_send(struct ctl_conn *conn, const char *data, size_t len)
{
	struct ctl_write *w;
	uv_buf_t buf;

	if (conn->closing)
		return;
	if (conn->queued + len > CTL_OUTPUT_MAX) {
		log_warnx("client %u (uid %u) does not read its replies; "
		    "dropping it with %zu bytes queued", conn->serial,
		    (unsigned)conn->uid, conn->queued);
		ctl_conn_abort(conn);
		return;
	}
	w = xmalloc(sizeof(*w) + len);
	w->conn = conn;
	w->len = len;
	memcpy(w->data, data, len);
	buf = uv_buf_init(w->data, (unsigned)len);
	if (uv_write(&w->req, (uv_stream_t *)&conn->pipe, &buf, 1,
	    ctl_conn_wrote) < 0) {
		free(w);
		ctl_conn_abort(conn);
		return;
	}
	conn->queued += len;
	if (conn->queued > CTL_OUTPUT_HIGH && !conn->paused) {
		conn->paused = 1;
		uv_read_stop((uv_stream_t *)&conn->pipe);
	}
}

/* Replies with a protocol error and closes: for rejections and overflows. */
static void
ctl_conn_refuse(struct ctl_conn *conn, enum proto_error e, const char *msg)
{
	json_t *r = proto_reply_error(NULL, e, msg);
	size_t len;
	char *line = r != NULL ? proto_encode(r, &len) : NULL;

	if (line != NULL)
		ctl_conn_send(conn, line, len);
	free(line);
	json_decref(r);
	ctl_conn_close(conn);
}

/* Grows the input buffer up to one maximal line, never beyond. */
static void
ctl_conn_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct ctl_conn *conn = h->data;

	(void)suggested;
	if (conn->inlen == conn->incap && conn->incap < CTL_IN_MAX) {
		conn->incap = conn->incap ? conn->incap * 2 : CTL_IN_START;
		if (conn->incap > CTL_IN_MAX)
			conn->incap = CTL_IN_MAX;
		conn->in = xreallocarray(conn->in, conn->incap, 1);
	}
	*buf = uv_buf_init(conn->in + conn->inlen,
	    (unsigned)(conn->incap - conn->inlen));
}

/* Hands every complete line to the server and keeps the partial rest. */
static void
ctl_conn_lines(struct ctl_conn *conn)
{
	struct ctl_server *srv = conn->srv;
	size_t start = 0, len;
	char *line, *nl;
	char msg[128];

	while (!conn->closing && conn->held == 0 && (nl = memchr(conn->in +
	    start, '\n', conn->inlen - start)) != NULL) {
		line = conn->in + start;
		len = (size_t)(nl - line);
		*nl = '\0';
		start += len + 1;
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		srv->on_line(conn, line, len, srv->arg);
	}
	if (conn->closing)
		return;
	memmove(conn->in, conn->in + start, conn->inlen - start);
	conn->inlen -= start;
	if (start > 0 && conn->inlen > 0)	/* a new line began */
		conn->partial_ms = uv_now(srv->loop);
	if (conn->inlen > PROTO_LINE_MAX) {
		snprintf(msg, sizeof(msg),
		    "request line longer than %d bytes; closing the connection",
		    PROTO_LINE_MAX);
		log_info("client %u (uid %u): %s", conn->serial,
		    (unsigned)conn->uid, msg);
		ctl_conn_refuse(conn, PROTO_E_LINE_TOO_LONG, msg);
	}
}

/* Called by a command that will answer later, before it returns. */
unsigned
ctl_conn_hold(struct ctl_conn *conn)
{
	if (conn->held++ == 0)
		uv_read_stop((uv_stream_t *)&conn->pipe);
	return conn->serial;
}

/* A linear walk: connections are capped at max_clients. */
struct ctl_conn *
ctl_server_find(struct ctl_server *srv, unsigned serial)
{
	struct ctl_conn *c;

	TAILQ_FOREACH(c, &srv->conns, entry)
		if (c->serial == serial)
			return c->closing ? NULL : c;
	return NULL;
}

/* Dispatches what arrived meanwhile, then reads (or closes) again. */
void
ctl_conn_unhold(struct ctl_conn *conn)
{
	if (conn->held == 0 || --conn->held > 0 || conn->closing)
		return;
	ctl_conn_lines(conn);
	if (conn->closing || conn->held > 0)
		return;
	if (conn->close_when_free) {
		conn->close_when_free = 0;
		ctl_conn_close(conn);
	} else if (!conn->paused)
		uv_read_start((uv_stream_t *)&conn->pipe, ctl_conn_alloc,
		    ctl_conn_read);
}

/* EOF is a normal end; any other read error drops the connection. */
static void
ctl_conn_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct ctl_conn *conn = s->data;

	(void)buf;
	if (nread == UV_EOF) {
		/* A half-closed client still gets its pending replies. */
		ctl_conn_close(conn);
		return;
	}
	if (nread < 0) {
		log_debug("client %u: read: %s", conn->serial,
		    uv_strerror((int)nread));
		ctl_conn_abort(conn);
		return;
	}
	if (conn->inlen == 0 && nread > 0)
		conn->partial_ms = uv_now(conn->srv->loop);
	conn->inlen += (size_t)nread;
	ctl_conn_lines(conn);
}

/*
 * Counts admitted connections that are not closing, all or from one uid:
 * a refused connection waiting for libuv to close it holds no place.
 */
static unsigned
ctl_server_count(const struct ctl_server *srv, const uid_t *uid)
{
	const struct ctl_conn *c;
	unsigned n = 0;

	TAILQ_FOREACH(c, &srv->conns, entry)
		if (c->accepted && !c->closing &&
		    (uid == NULL || c->uid == *uid))
			n++;
	return n;
}

/*
 * Refuses a connection before any libuv handle exists: the short reply
 * goes out at once (an empty socket buffer takes it) and the descriptor
 * is closed now, so a uid that reconnects in a loop costs two system
 * calls and holds nothing.
 */
static void
ctl_reject(int fd, unsigned serial, uid_t uid, const char *msg)
{
	json_t *r = proto_reply_error(NULL, PROTO_E_TOO_MANY_CONNECTIONS, msg);
	size_t len;
	char *line = r != NULL ? proto_encode(r, &len) : NULL;

	log_debug("client %u (uid %u) refused: %s", serial, (unsigned)uid,
	    msg);
	if (line != NULL)
		(void)send(fd, line, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	free(line);
	json_decref(r);
	close(fd);
}

/*
 * The caps for a peer: per uid first, so a flooding uid is refused on its
 * own cap (the message names the global cap too when that is reached as
 * well).  Returns 0 to admit, or -1 with msg filled.
 */
static int
ctl_admit(const struct ctl_server *srv, uid_t uid, char *msg, size_t size)
{
	int full = srv->max_clients != 0 &&
	    ctl_server_count(srv, NULL) >= srv->max_clients;

	if (srv->max_per_uid != 0 &&
	    ctl_server_count(srv, &uid) >= srv->max_per_uid) {
		snprintf(msg, size, "uid %u already has %u connections "
		    "(max_clients_per_uid)%s", (unsigned)uid, srv->max_per_uid,
		    full ? ", and the daemon serves at most that many "
		    "(max_clients)" : "");
		return -1;
	}
	if (full) {
		snprintf(msg, size, "the daemon serves at most %u connections "
		    "(max_clients)", srv->max_clients);
		return -1;
	}
	return 0;
}

/* One accepted descriptor: checked against the caps, then served. */
static void
ctl_accept_one(struct ctl_server *srv, int fd)
{
	struct ctl_conn *conn;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	unsigned serial = ++srv->serial;
	char msg[200];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == -1) {
		log_warn("client %u: SO_PEERCRED", serial);
		close(fd);
		return;
	}
	if (ctl_admit(srv, cred.uid, msg, sizeof(msg)) < 0) {
		ctl_reject(fd, serial, cred.uid, msg);
		return;
	}
	conn = xcalloc(1, sizeof(*conn));
	conn->srv = srv;
	conn->serial = serial;
	conn->uid = cred.uid;
	conn->pid = cred.pid;
	uv_pipe_init(srv->loop, &conn->pipe, 0);
	conn->pipe.data = conn;
	TAILQ_INSERT_TAIL(&srv->conns, conn, entry);
	if (uv_pipe_open(&conn->pipe, fd) < 0) {
		close(fd);
		ctl_conn_abort(conn);
		return;
	}
	log_debug("client %u connected: uid %u pid %ld", conn->serial,
	    (unsigned)conn->uid, (long)conn->pid);
	conn->accepted = 1;
	uv_read_start((uv_stream_t *)&conn->pipe, ctl_conn_alloc,
	    ctl_conn_read);
}

static void	ctl_accept(uv_poll_t *, int, int);

/* The back-off is over: listen again (the poll fires if work waits). */
static void
ctl_accept_resume(uv_timer_t *t)
{
	struct ctl_server *srv = t->data;

	srv->backing_off = 0;
	if (!srv->stopping)
		uv_poll_start(&srv->listener, UV_READABLE, ctl_accept);
}

/*
 * Out of descriptors: the pending connection stays in the backlog and the
 * level-triggered poll would fire again at once, so accepting pauses for
 * CTL_ACCEPT_BACKOFF_MS.  One log line a minute says how often it happened.
 */
static void
ctl_accept_backoff(struct ctl_server *srv, int error)
{
	uint64_t now = uv_now(srv->loop);

	srv->emfile_count++;
	if (srv->emfile_logged_ms == 0 ||
	    now - srv->emfile_logged_ms >= CTL_EMFILE_LOG_MS) {
		log_warnx("accept: %s: not accepting connections for %d ms at "
		    "a time (%u times since the last such line; at most one "
		    "a minute)", strerror(error), CTL_ACCEPT_BACKOFF_MS,
		    srv->emfile_count);
		srv->emfile_logged_ms = now;
		srv->emfile_count = 0;
	}
	uv_poll_stop(&srv->listener);
	srv->backing_off = 1;
	uv_timer_start(&srv->backoff, ctl_accept_resume,
	    CTL_ACCEPT_BACKOFF_MS, 0);
}

/*
 * Accepts at most CTL_ACCEPT_BURST connections per loop iteration: libuv's
 * own listener accepts until the backlog is empty, which a client that
 * reconnects in a loop never lets happen, and then no reply is ever read
 * or written.  The poll is level-triggered, so the rest waits one turn.
 */
static void
ctl_accept(uv_poll_t *h, int status, int events)
{
	struct ctl_server *srv = h->data;
	int i, fd;

	(void)events;
	if (status < 0) {
		log_warnx("accept: %s", uv_strerror(status));
		return;
	}
	for (i = 0; i < CTL_ACCEPT_BURST; i++) {
		fd = accept4(srv->listen_fd, NULL, NULL, SOCK_NONBLOCK |
		    SOCK_CLOEXEC);
		if (fd == -1) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				ctl_accept_backoff(srv, errno);
			else if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				log_warn("accept");
			return;
		}
		ctl_accept_one(srv, fd);
	}
}

/* The listening descriptor is ours to close once libuv lets go of it. */
static void
ctl_listener_closed(uv_handle_t *h)
{
	struct ctl_server *srv = h->data;

	if (srv->listen_fd >= 0)
		close(srv->listen_fd);
	srv->listen_fd = -1;
}

/* Records which file is ours before anything can fail, for release. */
int
ctl_server_init(struct ctl_server *srv, uv_loop_t *loop, int fd,
    const char *path, ctl_line_cb *cb, void *arg, struct bd_error *err)
{
	struct stat st;
	int rc;

	memset(srv, 0, sizeof(*srv));
	TAILQ_INIT(&srv->conns);
	srv->loop = loop;
	srv->path = xstrdup(path);
	srv->on_line = cb;
	srv->arg = arg;
	if (stat(path, &st) == 0) {
		srv->dev = st.st_dev;
		srv->ino = st.st_ino;
	}
	uv_timer_init(loop, &srv->drain);
	srv->drain.data = srv;
	uv_timer_init(loop, &srv->sweep);
	srv->sweep.data = srv;
	uv_timer_init(loop, &srv->backoff);
	srv->backoff.data = srv;
	srv->listen_fd = fd;
	if ((rc = uv_poll_init(loop, &srv->listener, fd)) < 0)
		return bd_error_set(err, -EIO, "cannot serve %s: %s", path,
		    uv_strerror(rc));
	srv->listener.data = srv;
	srv->listening = 1;
	if ((rc = uv_poll_start(&srv->listener, UV_READABLE, ctl_accept)) < 0)
		return bd_error_set(err, -EIO, "cannot serve %s: %s", path,
		    uv_strerror(rc));
	return 0;
}

/*
 * Closes connections whose partial line has waited too long: a client that
 * opens connections and sends half a line holds nothing forever.
 */
static void
ctl_server_sweep(uv_timer_t *t)
{
	struct ctl_server *srv = t->data;
	uint64_t now = uv_now(srv->loop);
	struct ctl_conn *c;
	char msg[160];

	/* Refusing never unlinks a connection at once: a plain walk. */
	TAILQ_FOREACH(c, &srv->conns, entry) {
		if (c->closing || c->inlen == 0 || c->held > 0 || c->paused ||
		    now - c->partial_ms <= srv->line_timeout_ms)
			continue;
		snprintf(msg, sizeof(msg), "no complete request line within "
		    "%llu ms (client_timeout); closing the connection",
		    (unsigned long long)srv->line_timeout_ms);
		log_info("client %u (uid %u): %s", c->serial,
		    (unsigned)c->uid, msg);
		ctl_conn_refuse(c, PROTO_E_TIMEOUT, msg);
	}
}

/*
 * The connection cap the descriptor limit allows: the soft limit is
 * raised towards the hard one if need be; past that the cap is lowered,
 * and said so, rather than accept failing with EMFILE later.
 */
static unsigned
ctl_fd_cap(unsigned max_clients)
{
	rlim_t need = (rlim_t)max_clients + CTL_FD_RESERVE;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return max_clients;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > rl.rlim_cur) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >
		    need ? need : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur >= need) {
			log_info("raised the open files limit to %llu for "
			    "max_clients %u", (unsigned long long)rl.rlim_cur,
			    max_clients);
			return max_clients;
		}
		if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
			return max_clients;
	}
	if (rl.rlim_cur <= CTL_FD_RESERVE + 1) {
		log_warnx("max_clients %u: the open files limit (%llu, "
		    "RLIMIT_NOFILE) leaves room for one control connection; "
		    "raise it (LimitNOFILE= or ulimit -n)", max_clients,
		    (unsigned long long)rl.rlim_cur);
		return 1;
	}
	log_warnx("max_clients %u needs an open files limit of %llu, and it "
	    "is %llu (RLIMIT_NOFILE); serving at most %llu connections "
	    "(raise LimitNOFILE= or ulimit -n)", max_clients,
	    (unsigned long long)need, (unsigned long long)rl.rlim_cur,
	    (unsigned long long)(rl.rlim_cur - CTL_FD_RESERVE));
	return (unsigned)(rl.rlim_cur - CTL_FD_RESERVE);
}

/* Caps come from the config and change on reload, hence a setter. */
void
ctl_server_set_caps(struct ctl_server *srv, unsigned max_clients,
    unsigned max_per_uid, uint64_t line_timeout_ms)
{
	uint64_t every;

	srv->max_clients = ctl_fd_cap(max_clients);
	srv->max_per_uid = max_per_uid;
	srv->line_timeout_ms = line_timeout_ms;
	if (srv->stopping || uv_is_closing((uv_handle_t *)&srv->sweep))
		return;
	uv_timer_stop(&srv->sweep);
	if (line_timeout_ms == 0)
		return;
	/* A quarter of the timeout: a line is cut within 1.25 timeouts. */
	every = line_timeout_ms / 4 ? line_timeout_ms / 4 : 1;
	uv_timer_start(&srv->sweep, ctl_server_sweep, every, every);
}

/* The shutdown deadline: a client that will not read loses its replies. */
static void
ctl_server_drained(uv_timer_t *t)
{
	struct ctl_server *srv = t->data;
	struct ctl_conn *conn;

	log_info("closing %u clients that did not take their replies",
	    ctl_server_count(srv, NULL));
	/* Closing never unlinks at once (that waits for libuv), so a plain
	 * walk is safe. */
	TAILQ_FOREACH(conn, &srv->conns, entry)
		ctl_conn_abort(conn);
}

/* The first step of shutdown; the loop finishes the rest. */
void
ctl_server_stop(struct ctl_server *srv)
{
	struct ctl_conn *conn;

	if (srv->stopping)
		return;
	srv->stopping = 1;
	if (srv->listening && !uv_is_closing((uv_handle_t *)&srv->listener))
		uv_close((uv_handle_t *)&srv->listener, ctl_listener_closed);
	if (!uv_is_closing((uv_handle_t *)&srv->sweep))
		uv_close((uv_handle_t *)&srv->sweep, NULL);
	if (!uv_is_closing((uv_handle_t *)&srv->backoff))
		uv_close((uv_handle_t *)&srv->backoff, NULL);
	TAILQ_FOREACH(conn, &srv->conns, entry)
		ctl_conn_close(conn);
	if (TAILQ_EMPTY(&srv->conns))
		uv_close((uv_handle_t *)&srv->drain, NULL);
	else
		uv_timer_start(&srv->drain, ctl_server_drained, CTL_DRAIN_MS,
		    0);
}

/* A connection that asked for events and still takes output. */
static int
ctl_conn_subscribed(const struct ctl_conn *c)
{
	return (c->subscriptions & CTL_SUB_EVENTS) && !c->closing;
}

/* One encoding for all subscribers: events are cheap when nobody watches. */
void
ctl_server_broadcast(struct ctl_server *srv, const char *kind,
    json_t *fields)
{
	struct ctl_conn *c;
	json_t *ev;
	char *line;
	size_t len;
	int any = 0;

	TAILQ_FOREACH(c, &srv->conns, entry)
		if (ctl_conn_subscribed(c))
			any = 1;
	if (!any) {
		json_decref(fields);
		return;
	}
	ev = json_pack("{s:s}", "event", kind);
	if (fields != NULL) {
		json_object_update(ev, fields);
		json_decref(fields);
	}
	line = json_dumps(ev, JSON_COMPACT);
	json_decref(ev);
	if (line == NULL)
		return;
	len = strlen(line);
	/* Sending never unlinks a connection at once: a plain walk. */
	TAILQ_FOREACH(c, &srv->conns, entry)
		if (ctl_conn_subscribed(c)) {
			ctl_conn_send(c, line, len);
			ctl_conn_send(c, "\n", 1);
		}
	free(line);
}

/* Checks the inode so a successor daemon's socket is never removed. */
void
ctl_server_release(struct ctl_server *srv)
{
	struct stat st;

	if (srv->path == NULL)
		return;
	if (lstat(srv->path, &st) == 0 && st.st_dev == srv->dev &&
	    st.st_ino == srv->ino && unlink(srv->path) == -1)
		log_warn("cannot remove %s", srv->path);
	free(srv->path);
	srv->path = NULL;
}
