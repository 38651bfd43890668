/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "remote/oneshot.h"

#define ONESHOT_WINDOW	4096

enum oneshot_phase {
	OS_OPEN = 0,
	OS_EXEC,
	OS_READ,
	OS_CLOSE,
	OS_WAITCLOSED,
	OS_FREE,
};

struct oneshot {
	struct ssh_op	 op;		/* first: the op is the oneshot */
	struct ssh_conn	*conn;
	LIBSSH2_CHANNEL	*ch;
	enum oneshot_phase phase;
	char		*cmd;
	oneshot_done_cb	*cb;
	void		*arg;
	uv_timer_t	 timer;		/* defers the report */
	int		 rc;
};

/* The timer is closed: the oneshot can go. */
static void
oneshot_freed(uv_handle_t *h)
{
	struct oneshot *o = h->data;

	free(o->cmd);
	free(o);
}

/* Reports outside any pump, then frees. */
static void
oneshot_on_report(uv_timer_t *t)
{
	struct oneshot *o = t->data;

	ssh_op_detach(&o->op);
	o->cb(o->arg, o->rc);
	uv_close((uv_handle_t *)&o->timer, oneshot_freed);
}

/* Reports on the next loop turn, outside any pump. */
static void
oneshot_end(struct oneshot *o, int rc)
{
	o->rc = rc;
	uv_timer_start(&o->timer, oneshot_on_report, 0, 0);
}

/* A failure: a broken link is told through lost(), else wind down. */
static enum ssh_pump
oneshot_fail(struct oneshot *o, LIBSSH2_SESSION *s)
{
	struct bd_error err;

	if (ssh_op_failed(&o->op, libssh2_session_last_errno(s),
	    o->cmd ? "running a helper command" : "keepalive probe", &err))
		return SSH_PUMP_WAIT;
	o->rc = err.code;
	if (o->ch != NULL && o->phase < OS_CLOSE) {
		o->phase = OS_CLOSE;
		return SSH_PUMP_PROGRESS;
	}
	oneshot_end(o, err.code);
	return SSH_PUMP_DONE;
}

/* Each phase resumes where libssh2 said EAGAIN. */
static enum ssh_pump
oneshot_pump(struct ssh_op *op, LIBSSH2_SESSION *s)
{
	struct oneshot *o = (struct oneshot *)op;
	char drain[256];
	ssize_t n;
	int rc;

	switch (o->phase) {
	case OS_OPEN:
		if (!ssh_open_lock(o->conn, op))
			return SSH_PUMP_WAIT;
		o->ch = libssh2_channel_open_ex(s, "session", 7,
		    ONESHOT_WINDOW, ONESHOT_WINDOW, NULL, 0);
		if (o->ch == NULL &&
		    libssh2_session_last_errno(s) == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		ssh_open_unlock(o->conn, op);
		if (o->ch == NULL)
			return oneshot_fail(o, s);
		o->phase = o->cmd != NULL ? OS_EXEC : OS_CLOSE;
		return SSH_PUMP_PROGRESS;
	case OS_EXEC:
		rc = libssh2_channel_process_startup(o->ch, "exec", 4, o->cmd,
		    (unsigned)strlen(o->cmd));
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		if (rc != 0)
			return oneshot_fail(o, s);
		o->phase = OS_READ;
		/* FALLTHROUGH */
	case OS_READ:
		n = libssh2_channel_read(o->ch, drain, sizeof(drain));
		if (n == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		if (n > 0)
			return SSH_PUMP_PROGRESS;
		if (n < 0)
			return oneshot_fail(o, s);
		if (!libssh2_channel_eof(o->ch))
			return SSH_PUMP_AGAIN;
		o->phase = OS_CLOSE;
		/* FALLTHROUGH */
	case OS_CLOSE:
		if (libssh2_channel_close(o->ch) == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		o->phase = OS_WAITCLOSED;
		/* FALLTHROUGH */
	case OS_WAITCLOSED:
		if (libssh2_channel_wait_closed(o->ch) == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		o->phase = OS_FREE;
		/* FALLTHROUGH */
	case OS_FREE:
		if (libssh2_channel_free(o->ch) == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		o->ch = NULL;
		break;
	}
	oneshot_end(o, o->rc);
	return SSH_PUMP_DONE;
}

/* The link died with the channel: report the failure. */
static void
oneshot_lost(struct ssh_op *op, const struct bd_error *err)
{
	struct oneshot *o = (struct oneshot *)op;

	o->ch = NULL;
	oneshot_end(o, err->code ? err->code : -ECONNRESET);
}

/* Copies cmd; the channel is opened when the op gets its turn. */
void
oneshot_start(struct ssh_conn *c, const char *cmd, oneshot_done_cb *cb,
    void *arg)
{
	struct oneshot *o = xcalloc(1, sizeof(*o));

	o->conn = c;
	o->cmd = cmd != NULL ? xstrdup(cmd) : NULL;
	o->cb = cb;
	o->arg = arg;
	uv_timer_init(ssh_loop(c), &o->timer);
	o->timer.data = o;
	o->op.pump = oneshot_pump;
	o->op.lost = oneshot_lost;
	ssh_op_attach(c, &o->op);
}

/*
 * Runs under /bin/sh whatever the login shell; `kill -0` ends the wait
 * early once nothing of the group is left.
 */
void
oneshot_kill_cmd(char *buf, size_t bufsz, long pgid, uint64_t grace_ms)
{
	snprintf(buf, bufsz, "exec /bin/sh -c 'kill -TERM -%ld 2>/dev/null "
	    "|| exit 0; n=0; while kill -0 -%ld 2>/dev/null && [ $n -lt %llu ]; "
	    "do sleep 0.1; n=$((n+1)); done; kill -KILL -%ld 2>/dev/null; "
	    "exit 0'", pgid, pgid, (unsigned long long)(grace_ms / 100), pgid);
}
