/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "remote/exec.h"
#include "remote/oneshot.h"
#include "remote/quote.h"

#define EXEC_WINDOW		(256 * 1024)
#define EXEC_PACKET		32768
#define EXEC_KILL_EXTRA_MS	5000	/* after the grace, then disconnect */
#define EXEC_PGID_MAX		64
#define EXEC_MARKER		"bisectd-pgid "

/*
 * Runs in the login shell that sshd made a session leader, so $$ is the
 * process group; exec keeps that pid for the command itself.
 */
#define EXEC_WRAPPER \
	"printf 'bisectd-pgid %s\\n' \"$$\" >&2; " \
	"if [ -n \"$1\" ]; then mkdir -p -- \"$1\" && cd -- \"$1\" || " \
	"exit 125; fi; exec /bin/sh -c \"$2\""

#define exec_of(p, field) \
	((struct exec *)((char *)(p) - offsetof(struct exec, field)))

enum exec_phase {
	EP_CONNECT = 0,
	EP_OPEN,
	EP_EXEC,
	EP_READ,
	EP_CLOSE,
	EP_WAITCLOSED,
	EP_FREE,
	EP_DONE,
};

/* The last max bytes of a stream, as a ring rotated in place at the end. */
struct exec_ring {
	char	*buf;
	size_t	 max, len, head;
};

struct exec {
	struct ssh_conn		*conn;
	uv_loop_t		*loop;
	exec_done_cb		*cb;
	void			*arg;
	char			*wrapped;
	uint64_t		 timeout_ms, grace_ms, connect_wait_ms;
	struct ssh_waiter	 waiter;
	struct ssh_op		 op;		/* the command's channel */
	LIBSSH2_CHANNEL		*ch;
	enum exec_phase		 phase;
	int			 exec_sent;
	int			 relinked;	/* reconnected once already */
	int			 killing, kill_started, kill_active;
	enum exec_status	 kill_reason;
	int			 failed;
	enum exec_status	 fail_status;
	uv_timer_t		 timer;		/* timeout, kill deadline, report */
	int			 report_due;
	int			 logfd;
	uv_fs_t			 wreq;
	int			 writing;
	int			 next_stream;
	int			 main_done;
	char			 pgline[EXEC_PGID_MAX];
	size_t			 pglen;
	int			 pgdone;
	struct exec_ring	 tail;		/* stdout's last bytes */
	uint64_t		 log_max;	/* 0: the log is not capped */
	uint64_t		 log_written;	/* bytes of the head written */
	uint64_t		 log_over;	/* bytes beyond the head */
	struct exec_ring	 log_tail;	/* the log's last bytes */
	struct exec_result	 res;
	char			 buf[EXEC_BUFSZ];
};

static void	exec_maybe_report(struct exec *);
static void	exec_kill(struct exec *, enum exec_status, const char *);
static void	exec_on_connected(void *, int, const struct bd_error *);

/* Keeps the last r->max bytes of what passes through it. */
static void
exec_ring_add(struct exec_ring *r, const char *p, size_t n)
{
	size_t room;

	if (r->max == 0)
		return;
	if (n > r->max) {
		p += n - r->max;
		n = r->max;
	}
	while (n > 0) {
		room = r->max - r->head;
		if (room > n)
			room = n;
		memcpy(r->buf + r->head, p, room);
		r->head = (r->head + room) % r->max;
		r->len = r->len + room > r->max ? r->max : r->len + room;
		p += room;
		n -= room;
	}
}

/* Reverses n bytes in place; three of these rotate the ring. */
static void
exec_reverse(char *p, size_t n)
{
	size_t i;
	char t;

	for (i = 0; i < n / 2; i++) {
		t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

/* Rotates the ring in place so it reads front to back. */
static void
exec_ring_flatten(struct exec_ring *r)
{
	if (r->len < r->max || r->head == 0)
		return;
	exec_reverse(r->buf, r->head);
	exec_reverse(r->buf + r->head, r->max - r->head);
	exec_reverse(r->buf, r->max);
	r->head = 0;
}

/*
 * A capped log ends with what was cut and the last bytes: written at the
 * end, once, with plain writes of at most half the cap.
 */
static void
exec_log_finish(struct exec *e)
{
	struct exec_ring *r = &e->log_tail;
	char note[200];
	size_t off;
	ssize_t n;
	int len;

	if (e->logfd < 0 || e->log_over == 0)
		return;
	exec_ring_flatten(r);
	len = snprintf(note, sizeof(note), "\n[bisectd: %llu bytes of output "
	    "cut here: the log of a step keeps its first %llu and its last "
	    "%zu bytes (log_max)]\n",
	    (unsigned long long)(e->log_over - r->len),
	    (unsigned long long)e->log_written, r->len);
	if (write(e->logfd, note, (size_t)len) != len)
		return;
	for (off = 0; off < r->len; off += (size_t)n)
		if ((n = write(e->logfd, r->buf + off, r->len - off)) <= 0)
			return;
}

/* One wording for how a command ended, used in every message. */
void
exec_describe(const struct exec_result *r, char *buf, size_t bufsz)
{
	switch (r->status) {
	case EXEC_EXITED:
		snprintf(buf, bufsz, "exited with status %d", r->exit_code);
		break;
	case EXEC_SIGNALED:
		snprintf(buf, bufsz, "killed by signal %s", r->signal);
		break;
	default:
		snprintf(buf, bufsz, "%s", r->err.msg);
		break;
	}
}

/* The timer is closed: the exec is no longer referenced anywhere. */
static void
exec_freed(uv_handle_t *h)
{
	struct exec *e = h->data;

	free(e->wrapped);
	free(e->tail.buf);
	free(e->log_tail.buf);
	free(e);
}

/* Deferred to its own loop turn, so no pump ever sees the exec freed. */
static void
exec_on_report(uv_timer_t *t)
{
	struct exec *e = t->data;
	struct exec_result *r = &e->res;

	ssh_op_detach(&e->op);
	ssh_waiter_cancel(&e->waiter);
	if (e->failed)
		r->status = e->fail_status;
	else if (e->killing)
		r->status = e->kill_reason;
	else if (r->signal[0] != '\0')
		r->status = EXEC_SIGNALED;
	else
		r->status = EXEC_EXITED;
	exec_ring_flatten(&e->tail);
	r->tail = e->tail.buf;
	r->tail_len = e->tail.len;
	r->tail_truncated = r->out_bytes > e->tail.len;
	exec_log_finish(e);
	if (e->logfd >= 0)
		close(e->logfd);
	e->logfd = -1;
	e->cb(e->arg, r);
	uv_close((uv_handle_t *)&e->timer, exec_freed);
}

/* Reports once the channel, the kill channel and the last write are done. */
static void
exec_maybe_report(struct exec *e)
{
	if (e->report_due || !e->main_done || e->kill_active || e->writing)
		return;
	e->report_due = 1;
	uv_timer_stop(&e->timer);
	uv_timer_start(&e->timer, exec_on_report, 0, 0);
}

/* First failure wins: later ones are consequences. */
static void
exec_set_failed(struct exec *e, enum exec_status st,
    const struct bd_error *err)
{
	if (e->failed || (e->killing && st == EXEC_LOST))
		return;
	e->failed = 1;
	e->fail_status = st;
	e->res.err = *err;
}

/*
 * A libssh2 error on the channel: a broken link is handled by lost(); any
 * other error ends the exec as an infrastructure failure.
 */
static enum ssh_pump
exec_fail(struct exec *e, int rc, const char *what)
{
	struct bd_error err;

	if (ssh_op_failed(&e->op, rc, what, &err))
		return SSH_PUMP_WAIT;
	exec_set_failed(e, EXEC_LOST, &err);
	if (e->ch != NULL && e->phase < EP_CLOSE) {
		e->phase = EP_CLOSE;
		return SSH_PUMP_PROGRESS;
	}
	e->main_done = 1;
	exec_maybe_report(e);
	return SSH_PUMP_DONE;
}

/* The buffer is free again: the channel may be read once more. */
static void
exec_on_written(uv_fs_t *req)
{
	struct exec *e = req->data;
	struct bd_error err;

	e->writing = 0;
	if (req->result < 0) {
		bd_error_set(&err, -EIO, "cannot write the log: %s",
		    uv_strerror((int)req->result));
		close(e->logfd);
		e->logfd = -1;
		exec_set_failed(e, EXEC_ERROR, &err);
		exec_kill(e, EXEC_ERROR, err.msg);
	}
	uv_fs_req_cleanup(req);
	if (e->main_done)
		exec_maybe_report(e);
	else
		ssh_kick(e->conn);
}

/*
 * Takes the wrapper's first stderr line (the process group) out of the
 * data; returns how many bytes of buf remain to be treated as output.
 */
static size_t
exec_take_pgid(struct exec *e, size_t n)
{
	char *nl = memchr(e->buf, '\n', n);
	size_t take = nl != NULL ? (size_t)(nl - e->buf) + 1 : n, rest;

	if (e->pglen + take >= EXEC_PGID_MAX)
		take = EXEC_PGID_MAX - 1 - e->pglen;
	memcpy(e->pgline + e->pglen, e->buf, take);
	e->pglen += take;
	e->pgline[e->pglen] = '\0';
	rest = n - take;
	if (nl == NULL && e->pglen < EXEC_PGID_MAX - 1)
		return 0;		/* the line goes on in the next read */
	e->pgdone = 1;
	if (strncmp(e->pgline, EXEC_MARKER, strlen(EXEC_MARKER)) == 0) {
		e->res.pgid = strtol(e->pgline + strlen(EXEC_MARKER), NULL, 10);
		memmove(e->buf, e->buf + take, rest);
		if (e->killing && e->res.pgid > 0)
			exec_kill(e, e->kill_reason, NULL);
		return rest;
	}
	/* Not the marker (a login shell's warning): it is output. */
	memmove(e->buf + e->pglen, e->buf + take, rest);
	memcpy(e->buf, e->pgline, e->pglen);
	return e->pglen + rest;
}

/* Hands one chunk to the tail and the log; the buffer is busy until then. */
static void
exec_consume(struct exec *e, int stream, size_t n)
{
	size_t head;
	uv_buf_t b;

	if (stream == 1 && !e->pgdone)
		n = exec_take_pgid(e, n);
	if (n == 0)
		return;
	if (n > e->res.buf_hwm)
		e->res.buf_hwm = n;
	if (stream == 0) {
		e->res.out_bytes += n;
		exec_ring_add(&e->tail, e->buf, n);
	} else
		e->res.err_bytes += n;
	if (e->logfd < 0)
		return;
	if (e->log_max > 0 && e->log_written + n > e->log_max / 2) {
		/* Past the head: the rest goes to the log's tail ring. */
		head = (size_t)(e->log_max / 2 - e->log_written);
		if (e->log_tail.buf == NULL)
			e->log_tail.buf = xmalloc(e->log_tail.max);
		exec_ring_add(&e->log_tail, e->buf + head, n - head);
		e->log_over += n - head;
		if ((n = head) == 0)
			return;
	}
	e->log_written += n;
	b = uv_buf_init(e->buf, (unsigned)n);
	e->wreq.data = e;
	e->writing = 1;
	if (uv_fs_write(e->loop, &e->wreq, e->logfd, &b, 1, -1,
	    exec_on_written) != 0) {
		e->writing = 0;
		close(e->logfd);
		e->logfd = -1;
	}
}

/* Alternates the streams so stderr cannot fill the window behind stdout. */
static enum ssh_pump
exec_read(struct exec *e, LIBSSH2_SESSION *s)
{
	ssize_t n;
	size_t max;
	int i, stream, zero = 0;

	if (e->writing)
		return SSH_PUMP_WAIT;
	for (i = 0; i < 2; i++) {
		stream = e->next_stream;
		e->next_stream ^= 1;
		max = (stream == 1 && !e->pgdone) ?
		    EXEC_BUFSZ - EXEC_PGID_MAX : EXEC_BUFSZ;
		n = libssh2_channel_read_ex(e->ch, stream, e->buf, max);
		if (n == LIBSSH2_ERROR_EAGAIN) {
			if (libssh2_session_block_directions(s) &
			    LIBSSH2_SESSION_BLOCK_OUTBOUND)
				return SSH_PUMP_AGAIN;
			continue;
		}
		if (n < 0)
			return exec_fail(e, (int)n, "reading the output");
		if (n == 0) {
			zero++;
			continue;
		}
		exec_consume(e, stream, (size_t)n);
		return e->writing ? SSH_PUMP_WAIT : SSH_PUMP_PROGRESS;
	}
	if (zero == 2 || libssh2_channel_eof(e->ch)) {
		e->phase = EP_CLOSE;
		return SSH_PUMP_PROGRESS;
	}
	return SSH_PUMP_AGAIN;
}

/* The command ran too long: kill its process group on the host. */
static void
exec_on_timeout(uv_timer_t *t)
{
	struct exec *e = t->data;
	char msg[128];

	snprintf(msg, sizeof(msg), "timed out after %llu ms",
	    (unsigned long long)e->timeout_ms);
	exec_kill(e, EXEC_TIMEOUT, msg);
}

/* Records how the command ended, as sshd reported it. */
static void
exec_exit_status(struct exec *e, LIBSSH2_SESSION *s)
{
	char *sig = NULL;
	size_t siglen = 0;

	e->res.exit_code = libssh2_channel_get_exit_status(e->ch);
	libssh2_channel_get_exit_signal(e->ch, &sig, &siglen, NULL, NULL,
	    NULL, NULL);
	if (sig != NULL) {
		snprintf(e->res.signal, sizeof(e->res.signal), "%.*s",
		    (int)siglen, sig);
		libssh2_free(s, sig);
	}
}

/* Open, start, stream, close: each phase resumes where libssh2 said EAGAIN. */
static enum ssh_pump
exec_pump(struct ssh_op *op, LIBSSH2_SESSION *s)
{
	struct exec *e = exec_of(op, op);
	int rc;

	switch (e->phase) {
	case EP_CONNECT:
	case EP_OPEN:
		if (e->killing) {
			e->main_done = 1;
			exec_maybe_report(e);
			return SSH_PUMP_DONE;
		}
		if (!ssh_open_lock(e->conn, op))
			return SSH_PUMP_WAIT;
		e->ch = libssh2_channel_open_ex(s, "session", 7, EXEC_WINDOW,
		    EXEC_PACKET, NULL, 0);
		if (e->ch == NULL) {
			rc = libssh2_session_last_errno(s);
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return SSH_PUMP_AGAIN;
			ssh_open_unlock(e->conn, op);
			return exec_fail(e, rc, "opening a channel");
		}
		ssh_open_unlock(e->conn, op);
		e->phase = EP_EXEC;
		/* FALLTHROUGH */
	case EP_EXEC:
		if (e->killing && !e->exec_sent) {
			e->phase = EP_CLOSE;
			return SSH_PUMP_PROGRESS;
		}
		e->exec_sent = 1;
		rc = libssh2_channel_process_startup(e->ch, "exec", 4,
		    e->wrapped, (unsigned)strlen(e->wrapped));
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		if (rc != 0)
			return exec_fail(e, rc, "starting the command");
		e->phase = EP_READ;
		if (e->timeout_ms > 0 && !e->killing)
			uv_timer_start(&e->timer, exec_on_timeout,
			    e->timeout_ms, 0);
		/* FALLTHROUGH */
	case EP_READ:
		return exec_read(e, s);
	case EP_CLOSE:
		rc = libssh2_channel_close(e->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		if (rc != 0)
			return exec_fail(e, rc, "closing the channel");
		e->phase = EP_WAITCLOSED;
		/* FALLTHROUGH */
	case EP_WAITCLOSED:
		rc = libssh2_channel_wait_closed(e->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		if (rc != 0)
			return exec_fail(e, rc, "closing the channel");
		exec_exit_status(e, s);
		e->phase = EP_FREE;
		/* FALLTHROUGH */
	case EP_FREE:
		rc = libssh2_channel_free(e->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		e->ch = NULL;
		e->phase = EP_DONE;
		/* FALLTHROUGH */
	case EP_DONE:
		break;
	}
	e->main_done = 1;
	exec_maybe_report(e);
	return SSH_PUMP_DONE;
}

/*
 * A link that died while idle is only noticed by the next command: if the
 * command was not sent yet, it is safe to connect again and send it once
 * more.  After that, a lost link is an infrastructure failure.
 */
static void
exec_lost(struct ssh_op *op, const struct bd_error *err)
{
	struct exec *e = exec_of(op, op);

	e->ch = NULL;
	if (!e->exec_sent && !e->killing && !e->relinked) {
		e->relinked = 1;
		e->phase = EP_CONNECT;
		ssh_connect(e->conn, &e->waiter, e->connect_wait_ms,
		    exec_on_connected, e);
		return;
	}
	exec_set_failed(e, EXEC_LOST, err);
	e->main_done = 1;
	exec_maybe_report(e);
}

/* The kill channel is done; the report may follow. */
static void
exec_on_killed(void *arg, int rc)
{
	struct exec *e = arg;

	(void)rc;	/* the deadline timer handles a kill that failed */
	e->kill_active = 0;
	exec_maybe_report(e);
	ssh_kick(e->conn);
}

/*
 * Last resort when the group does not go away: drop the link, which
 * closes the channel on the host side too.
 */
static void
exec_on_kill_deadline(uv_timer_t *t)
{
	struct exec *e = t->data;

	if (!e->main_done)
		ssh_disconnect(e->conn, "the command did not end after KILL");
}

/*
 * Starts the kill once the process group is known (the wrapper prints it
 * first, so it is known as soon as the command runs).  why becomes the
 * result's message.
 */
static void
exec_kill(struct exec *e, enum exec_status reason, const char *why)
{
	char cmd[512];

	if (e->main_done || e->report_due)
		return;
	if (!e->killing) {
		e->killing = 1;
		e->kill_reason = reason;
		if (why != NULL)
			bd_error_set(&e->res.err, reason == EXEC_TIMEOUT ?
			    -ETIMEDOUT : -ECANCELED, "%s", why);
		uv_timer_stop(&e->timer);
		uv_timer_start(&e->timer, exec_on_kill_deadline,
		    e->grace_ms + EXEC_KILL_EXTRA_MS, 0);
	}
	if (e->phase == EP_CONNECT) {
		ssh_waiter_cancel(&e->waiter);
		e->main_done = 1;
		exec_maybe_report(e);
		return;
	}
	if (e->res.pgid <= 0 || e->kill_started || !ssh_is_ready(e->conn)) {
		ssh_kick(e->conn);
		return;
	}
	e->kill_started = 1;
	e->kill_active = 1;
	oneshot_kill_cmd(cmd, sizeof(cmd), e->res.pgid, e->grace_ms);
	oneshot_start(e->conn, cmd, exec_on_killed, e);
}

/* Cancelling is a kill with another reason. */
void
exec_cancel(struct exec *e)
{
	exec_kill(e, EXEC_CANCELLED, "cancelled");
}

/* The link is up: attach the command channel to it. */
static void
exec_on_connected(void *arg, int rc, const struct bd_error *err)
{
	struct exec *e = arg;

	if (rc != 0) {
		exec_set_failed(e, EXEC_LOST, err);
		e->main_done = 1;
		exec_maybe_report(e);
		return;
	}
	e->phase = EP_OPEN;
	ssh_op_attach(e->conn, &e->op);
}

/* Builds the wrapped command and connects; the rest happens in the loop. */
int
exec_start(struct ssh_conn *c, const struct exec_opts *o, exec_done_cb *cb,
    void *arg, struct exec **out, struct bd_error *err)
{
	struct exec *e;
	char *wrap, *dir, *cmd;
	int fd = -1;

	if (o->log_path != NULL) {
		fd = open(o->log_path, O_WRONLY | O_CREAT | O_APPEND |
		    O_CLOEXEC, 0644);
		if (fd == -1)
			return bd_error_set(err, -errno, "cannot open log %s: "
			    "%s", o->log_path, strerror(errno));
	}
	e = xcalloc(1, sizeof(*e));
	e->conn = c;
	e->loop = ssh_loop(c);
	e->cb = cb;
	e->arg = arg;
	e->logfd = fd;
	e->timeout_ms = o->timeout_ms;
	e->grace_ms = o->kill_grace_ms ? o->kill_grace_ms : EXEC_KILL_GRACE_MS;
	e->connect_wait_ms = o->connect_wait_ms;
	e->tail.max = o->tail_max;
	e->tail.buf = o->tail_max ? xmalloc(o->tail_max) : NULL;
	e->log_max = fd >= 0 ? o->log_max : 0;
	/* The ring is allocated when the head is full, if ever. */
	e->log_tail.max = (size_t)(e->log_max - e->log_max / 2);
	wrap = quote_shell(EXEC_WRAPPER);
	dir = quote_shell(o->cwd != NULL ? o->cwd : "");
	cmd = quote_shell(o->command);
	xasprintf(&e->wrapped, "exec /bin/sh -c %s bisectd %s %s", wrap, dir,
	    cmd);
	free(wrap);
	free(dir);
	free(cmd);
	e->op.pump = exec_pump;
	e->op.lost = exec_lost;
	uv_timer_init(e->loop, &e->timer);
	e->timer.data = e;
	e->phase = EP_CONNECT;
	if (out != NULL)
		*out = e;
	ssh_connect(c, &e->waiter, o->connect_wait_ms, exec_on_connected, e);
	return 0;
}
