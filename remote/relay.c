/* SPDX-License-Identifier: MIT */
#include <libssh2_sftp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "remote/exec.h"
#include "remote/quote.h"
#include "remote/relay.h"

#define RELAY_PART	".bisectd-part"

#define side_of(p) \
	((struct relay_side *)((char *)(p) - offsetof(struct relay_side, op)))

enum relay_phase {
	SP_CONNECT = 0,
	SP_INIT,
	SP_OPEN,
	SP_XFER,
	SP_CLOSE,
	SP_SHUTDOWN,
	SP_DONE,
};

enum relay_stage {
	RS_MKDIR = 0,
	RS_XFER,
	RS_SUM,
	RS_MOVE,
	RS_DONE,
};

/* One end of a transfer: an SFTP session and a file handle on one host. */
struct relay_side {
	struct relay		*r;
	enum relay_side_id	 id;
	struct ssh_conn		*conn;
	struct ssh_waiter	 waiter;
	struct ssh_op		 op;
	LIBSSH2_SFTP		*sftp;
	LIBSSH2_SFTP_HANDLE	*h;
	/* A host without SFTP: cat on an exec channel instead. */
	int			 via_exec;
	LIBSSH2_CHANNEL		*ch;
	int			 ch_step;	/* how far the close got */
	enum relay_phase	 phase;
	char			*path;
	int			 active;
	struct exec		*ex;		/* mkdir, checksum or rename */
	uint64_t		 size;
	char			 sum[65];
	char			 fx[48];	/* an SFTP status in words */
};

struct relay {
	uv_loop_t		*loop;
	relay_done_cb		*cb;
	void			*arg;
	uint64_t		 wait_ms;
	struct relay_side	 side[2];
	int			 fetch;
	size_t			 max;
	char			*final;		/* destination after rename */
	enum relay_stage	 stage;
	int			 execs;
	char			*buf;
	size_t			 len, off;
	int			 eof;
	char			*data;
	struct relay_result	 res;
	int			 failed;
	uv_timer_t		 timer;
	int			 report_due;
};

static void	relay_next(struct relay *);

/* The timer is closed: the relay can go. */
static void
relay_freed(uv_handle_t *h)
{
	struct relay *r = h->data;
	int i;

	for (i = 0; i < 2; i++)
		free(r->side[i].path);
	free(r->final);
	free(r->buf);
	free(r->data);
	free(r);
}

/* Reports outside any pump, then frees. */
static void
relay_on_report(uv_timer_t *t)
{
	struct relay *r = t->data;

	ssh_op_detach(&r->side[0].op);
	ssh_op_detach(&r->side[1].op);
	r->res.data = r->data;
	r->res.via_exec = r->side[r->fetch ? RELAY_SRC : RELAY_DST].via_exec;
	r->cb(r->arg, &r->res);
	uv_close((uv_handle_t *)&r->timer, relay_freed);
}

/* Reports on the next loop turn once nothing is running any more. */
static void
relay_maybe_report(struct relay *r)
{
	if (r->report_due || r->side[0].active || r->side[1].active ||
	    r->execs > 0)
		return;
	r->report_due = 1;
	uv_timer_start(&r->timer, relay_on_report, 0, 0);
}

/* First failure wins; the other side winds down when next pumped. */
static void
relay_fail(struct relay *r, enum relay_side_id id, int infra,
    const struct bd_error *err)
{
	int i;

	if (!r->failed) {
		r->failed = 1;
		r->res.rc = err->code ? err->code : -EIO;
		r->res.failed = id;
		r->res.infra = infra;
		r->res.err = *err;
	}
	for (i = 0; i < 2; i++) {
		struct relay_side *sd = &r->side[i];

		if (sd->conn == NULL)
			continue;
		if (sd->ex != NULL)
			exec_cancel(sd->ex);
		if (sd->active && sd->phase == SP_CONNECT) {
			ssh_waiter_cancel(&sd->waiter);
			sd->active = 0;
		} else if (sd->active)
			ssh_kick(sd->conn);
	}
	relay_maybe_report(r);
}

/*
 * SFTP status codes in words; the rest are I/O errors, with their number
 * (OpenSSH's server answers a full disk with plain "failure", 4).
 */
static int
relay_sftp_error(struct relay_side *sd, const char **what)
{
	unsigned long fx = sd->sftp ? libssh2_sftp_last_error(sd->sftp) : 0;

	switch (fx) {
	case LIBSSH2_FX_NO_SUCH_FILE:
	case LIBSSH2_FX_NO_SUCH_PATH:
		*what = "no such file";
		return -ENOENT;
	case LIBSSH2_FX_PERMISSION_DENIED:
		*what = "permission denied";
		return -EACCES;
	case LIBSSH2_FX_NO_SPACE_ON_FILESYSTEM:
	case LIBSSH2_FX_QUOTA_EXCEEDED:
		*what = "no space left";
		return -ENOSPC;
	case LIBSSH2_FX_FAILURE:
		*what = "the host could not do it (SFTP status 4, as for "
		    "a full disk)";
		return -EIO;
	default:
		snprintf(sd->fx, sizeof(sd->fx), "SFTP status %lu", fx);
		*what = sd->fx;
		return -EIO;
	}
}

/* A failed SFTP call: file problems end the relay, link problems too. */
static enum ssh_pump
relay_side_fail(struct relay_side *sd, int rc, const char *what)
{
	struct bd_error err;
	const char *why;
	int code;

	if (rc == LIBSSH2_ERROR_SFTP_PROTOCOL) {
		code = relay_sftp_error(sd, &why);
		bd_error_set(&err, code, "%s: %s %s: %s", ssh_name(sd->conn),
		    what, sd->path, why);
		relay_fail(sd->r, sd->id, 0, &err);
	} else if (ssh_op_failed(&sd->op, rc, what, &err)) {
		relay_fail(sd->r, sd->id, 1, &err);
		return SSH_PUMP_WAIT;	/* lost() follows */
	} else
		relay_fail(sd->r, sd->id, 1, &err);
	sd->phase = sd->h != NULL || sd->ch != NULL ? SP_CLOSE :
	    sd->sftp != NULL ? SP_SHUTDOWN : SP_DONE;
	return SSH_PUMP_PROGRESS;
}

/* The exit code of the source's cat when the file is not there. */
#define RELAY_EXIT_MISSING	66

/*
 * The command of an exec side: the source reads the file to stdout, the
 * destination writes stdin to the part file, executable like an SFTP copy.
 */
static char *
relay_cat_cmd(const struct relay_side *sd)
{
	char *q = quote_shell(sd->path), *cmd;

	if (sd->id == RELAY_SRC)
		xasprintf(&cmd, "[ -r %s ] || exit %d; cat < %s", q,
		    RELAY_EXIT_MISSING, q);
	else
		xasprintf(&cmd, "cat > %s && chmod 0755 %s", q, q);
	free(q);
	return cmd;
}

/* Opens the exec channel and starts cat; EAGAIN resumes where it was. */
static int
relay_cat_start(struct relay_side *sd, LIBSSH2_SESSION *s)
{
	char *cmd;
	int rc;

	if (sd->ch == NULL) {
		sd->ch = libssh2_channel_open_session(s);
		if (sd->ch == NULL)
			return libssh2_session_last_errno(s);
	}
	cmd = relay_cat_cmd(sd);
	rc = libssh2_channel_exec(sd->ch, cmd);
	free(cmd);
	return rc;
}

/*
 * Ends an exec side: the destination sends EOF and waits for cat to
 * finish, then the channel closes and its exit status is judged.  Returns
 * EAGAIN, 0, or a libssh2 error; *status gets the exit status.
 */
static int
relay_cat_close(struct relay_side *sd, int *status)
{
	int rc = 0, clean = sd->id == RELAY_DST && !sd->r->failed;

	switch (sd->ch_step) {
	case 0:
		if (clean && (rc = libssh2_channel_send_eof(sd->ch)) < 0)
			return rc;
		sd->ch_step = 1;
		/* FALLTHROUGH */
	case 1:
		if (clean && (rc = libssh2_channel_wait_eof(sd->ch)) < 0)
			return rc;
		sd->ch_step = 2;
		/* FALLTHROUGH */
	case 2:
		if ((rc = libssh2_channel_close(sd->ch)) < 0)
			return rc;
		sd->ch_step = 3;
		/* FALLTHROUGH */
	case 3:
		if ((rc = libssh2_channel_wait_closed(sd->ch)) < 0)
			return rc;
		sd->ch_step = 4;
		*status = libssh2_channel_get_exit_status(sd->ch);
		/* FALLTHROUGH */
	default:
		if ((rc = libssh2_channel_free(sd->ch)) < 0)
			return rc;
		sd->ch = NULL;
	}
	return 0;
}

/* A cat that ended badly: the source's file is gone, or the write failed. */
static void
relay_cat_status(struct relay_side *sd, int status)
{
	struct bd_error err;

	if (status == 0 || sd->r->failed)
		return;
	if (sd->id == RELAY_SRC && status == RELAY_EXIT_MISSING)
		bd_error_set(&err, -ENOENT, "%s: reading %s: no such file "
		    "(over exec)", ssh_name(sd->conn), sd->path);
	else
		bd_error_set(&err, -EIO, "%s: %s %s over exec: cat exited "
		    "with status %d", ssh_name(sd->conn), sd->id == RELAY_SRC ?
		    "reading" : "writing", sd->path, status);
	relay_fail(sd->r, sd->id, 0, &err);
}

/* The source fills the one buffer only when the destination emptied it. */
static enum ssh_pump
relay_read(struct relay_side *sd)
{
	struct relay *r = sd->r;
	struct bd_error err;
	ssize_t n;

	if (!r->fetch && r->len > 0)
		return SSH_PUMP_WAIT;
	if (sd->via_exec) {
		n = libssh2_channel_read(sd->ch, r->buf, RELAY_BUFSZ);
		if (n == 0 && !libssh2_channel_eof(sd->ch))
			return SSH_PUMP_AGAIN;
	} else
		n = libssh2_sftp_read(sd->h, r->buf, RELAY_BUFSZ);
	if (n == LIBSSH2_ERROR_EAGAIN)
		return SSH_PUMP_AGAIN;
	if (n < 0)
		return relay_side_fail(sd, (int)n, "reading");
	if (n == 0) {
		r->eof = 1;
		sd->phase = SP_CLOSE;
		if (!r->fetch)
			ssh_kick(r->side[RELAY_DST].conn);
		return SSH_PUMP_PROGRESS;
	}
	r->res.bytes += (uint64_t)n;
	if (r->fetch) {
		if (r->res.len + (size_t)n > r->max) {
			bd_error_set(&err, -EFBIG, "%s: %s is larger than %zu "
			    "bytes", ssh_name(sd->conn), sd->path, r->max);
			relay_fail(r, sd->id, 0, &err);
			sd->phase = SP_CLOSE;
			return SSH_PUMP_PROGRESS;
		}
		memcpy(r->data + r->res.len, r->buf, (size_t)n);
		r->res.len += (size_t)n;
		r->data[r->res.len] = '\0';
		return SSH_PUMP_PROGRESS;
	}
	r->len = (size_t)n;
	r->off = 0;
	ssh_kick(r->side[RELAY_DST].conn);
	return SSH_PUMP_WAIT;
}

/* Passes the rest of the buffer unchanged until SFTP has taken it all. */
static enum ssh_pump
relay_write(struct relay_side *sd)
{
	struct relay *r = sd->r;
	ssize_t n;

	if (r->off < r->len) {
		n = sd->via_exec ? libssh2_channel_write(sd->ch,
		    r->buf + r->off, r->len - r->off) :
		    libssh2_sftp_write(sd->h, r->buf + r->off,
		    r->len - r->off);
		if (n == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		if (n < 0)
			return relay_side_fail(sd, (int)n, "writing");
		r->off += (size_t)n;
		if (r->off == r->len) {
			r->len = r->off = 0;
			ssh_kick(r->side[RELAY_SRC].conn);
		}
		return SSH_PUMP_PROGRESS;
	}
	if (!r->eof)
		return SSH_PUMP_WAIT;
	sd->phase = SP_CLOSE;
	return SSH_PUMP_PROGRESS;
}

/*
 * SFTP start, open, transfer, close: each resumes where libssh2 said
 * EAGAIN.
 */
static enum ssh_pump
relay_pump(struct ssh_op *op, LIBSSH2_SESSION *s)
{
	struct relay_side *sd = side_of(op);
	struct relay *r = sd->r;
	unsigned long flags;
	int rc, status = 0;

	switch (sd->phase) {
	case SP_CONNECT:
	case SP_INIT:
		if (r->failed)
			break;
		if (!ssh_open_lock(sd->conn, op))
			return SSH_PUMP_WAIT;
		if (sd->via_exec) {
			rc = relay_cat_start(sd, s);
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return SSH_PUMP_AGAIN;
			ssh_open_unlock(sd->conn, op);
			if (rc != 0)
				return relay_side_fail(sd, rc, "starting cat for");
			sd->phase = SP_XFER;
			return SSH_PUMP_PROGRESS;
		}
		sd->sftp = libssh2_sftp_init(s);
		if (sd->sftp == NULL) {
			rc = libssh2_session_last_errno(s);
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return SSH_PUMP_AGAIN;
			ssh_open_unlock(sd->conn, op);
			/* No SFTP subsystem on the host: cat over exec. */
			if (rc == LIBSSH2_ERROR_CHANNEL_REQUEST_DENIED ||
			    rc == LIBSSH2_ERROR_CHANNEL_FAILURE) {
				sd->via_exec = 1;
				return SSH_PUMP_PROGRESS;
			}
			return relay_side_fail(sd, rc, "starting SFTP for");
		}
		ssh_open_unlock(sd->conn, op);
		sd->phase = SP_OPEN;
		/* FALLTHROUGH */
	case SP_OPEN:
		if (r->failed) {
			sd->phase = SP_SHUTDOWN;
			return SSH_PUMP_PROGRESS;
		}
		if (sd->via_exec) {
			sd->phase = SP_XFER;
			return SSH_PUMP_PROGRESS;
		}
		flags = sd->id == RELAY_SRC ? LIBSSH2_FXF_READ :
		    LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC;
		/* Artifacts may be programs the run step executes. */
		sd->h = libssh2_sftp_open_ex(sd->sftp, sd->path,
		    (unsigned)strlen(sd->path), flags, 0755,
		    LIBSSH2_SFTP_OPENFILE);
		if (sd->h == NULL) {
			rc = libssh2_session_last_errno(s);
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return SSH_PUMP_AGAIN;
			return relay_side_fail(sd, rc, "opening");
		}
		sd->phase = SP_XFER;
		/* FALLTHROUGH */
	case SP_XFER:
		if (r->failed) {
			sd->phase = SP_CLOSE;
			return SSH_PUMP_PROGRESS;
		}
		return sd->id == RELAY_SRC ? relay_read(sd) : relay_write(sd);
	case SP_CLOSE:
		if (sd->ch != NULL) {
			rc = relay_cat_close(sd, &status);
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return SSH_PUMP_AGAIN;
			sd->phase = SP_DONE;
			if (rc != 0) {
				sd->ch = NULL;
				return relay_side_fail(sd, rc, "closing");
			}
			relay_cat_status(sd, status);
			break;
		}
		rc = libssh2_sftp_close_handle(sd->h);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		sd->h = NULL;
		sd->phase = SP_SHUTDOWN;
		if (rc != 0 && sd->id == RELAY_DST)
			return relay_side_fail(sd, rc, "closing");
		/* FALLTHROUGH */
	case SP_SHUTDOWN:
		rc = libssh2_sftp_shutdown(sd->sftp);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return SSH_PUMP_AGAIN;
		sd->sftp = NULL;
		sd->phase = SP_DONE;
		/* FALLTHROUGH */
	case SP_DONE:
		break;
	}
	sd->active = 0;
	relay_next(r);
	return SSH_PUMP_DONE;
}

/* The link died under one side: the relay fails as infrastructure. */
static void
relay_lost(struct ssh_op *op, const struct bd_error *err)
{
	struct relay_side *sd = side_of(op);

	sd->h = NULL;
	sd->sftp = NULL;
	sd->ch = NULL;
	sd->active = 0;
	relay_fail(sd->r, sd->id, 1, err);
}

/* The side's host answers: its SFTP op can start. */
static void
relay_on_connected(void *arg, int rc, const struct bd_error *err)
{
	struct relay_side *sd = arg;

	if (rc != 0) {
		sd->active = 0;
		relay_fail(sd->r, sd->id, 1, err);
		return;
	}
	sd->phase = SP_INIT;
	ssh_op_attach(sd->conn, &sd->op);
}

/* Connects one side; its op is attached when the link is up. */
static void
relay_side_start(struct relay_side *sd)
{
	sd->active = 1;
	sd->phase = SP_CONNECT;
	sd->op.pump = relay_pump;
	sd->op.lost = relay_lost;
	ssh_connect(sd->conn, &sd->waiter, sd->r->wait_ms, relay_on_connected,
	    sd);
}

/*
 * "N\nHASH  -\n" from the checksum command.  The tail is tail_len bytes
 * with no NUL after them, so it is copied before sscanf reads it.
 */
static int
relay_parse_sum(struct relay_side *sd, const struct exec_result *x)
{
	char hash[80], text[257];
	unsigned long long size;
	size_t n;

	if (x->tail == NULL)
		return -1;
	n = x->tail_len < sizeof(text) - 1 ? x->tail_len : sizeof(text) - 1;
	memcpy(text, x->tail, n);
	text[n] = '\0';
	if (sscanf(text, "%llu %79s", &size, hash) != 2 || strlen(hash) != 64)
		return -1;
	sd->size = size;
	memcpy(sd->sum, hash, 65);
	return 0;
}

/* A helper command ended: check it, then go to the next stage. */
static void
relay_exec_done(void *arg, const struct exec_result *x)
{
	struct relay_side *sd = arg;
	struct relay *r = sd->r;
	struct bd_error err;
	char how[BD_ERROR_MAX];

	sd->ex = NULL;
	r->execs--;
	if (x->status == EXEC_LOST)
		relay_fail(r, sd->id, 1, &x->err);
	else if (x->status != EXEC_EXITED || x->exit_code != 0) {
		exec_describe(x, how, sizeof(how));
		bd_error_set(&err, x->status == EXEC_CANCELLED ? -ECANCELED :
		    -EIO, "%s: %s step of the relay %s", ssh_name(sd->conn),
		    r->stage == RS_MKDIR ? "mkdir" : r->stage == RS_SUM ?
		    "checksum" : "rename", how);
		relay_fail(r, sd->id, 0, &err);
	} else if (r->stage == RS_SUM && relay_parse_sum(sd, x) != 0) {
		bd_error_set(&err, -EIO, "%s: unexpected sha256sum output",
		    ssh_name(sd->conn));
		relay_fail(r, sd->id, 0, &err);
	}
	relay_next(r);
}

/* Runs a helper command (mkdir, checksum, rename) on one side. */
static void
relay_exec(struct relay_side *sd, char *cmd)
{
	struct relay *r = sd->r;
	struct exec_opts o;
	struct bd_error err;

	memset(&o, 0, sizeof(o));
	o.command = cmd;
	o.tail_max = 256;
	o.timeout_ms = 600000;
	o.connect_wait_ms = r->wait_ms;
	r->execs++;
	if (exec_start(sd->conn, &o, relay_exec_done, sd, &sd->ex, &err) != 0) {
		r->execs--;
		sd->ex = NULL;
		relay_fail(r, sd->id, 0, &err);
	}
	free(cmd);
}

/* The checksum command: "wc -c" then "sha256sum" of path, read once each. */
static char *
relay_sum_cmd(const char *path)
{
	char *q = quote_shell(path), *cmd;

	xasprintf(&cmd, "wc -c < %s && sha256sum < %s", q, q);
	free(q);
	return cmd;
}

/* "CMD -- 'a' ['b']" with both arguments quoted. */
static char *
relay_cmd2(const char *cmd, const char *a, const char *b)
{
	char *qa = quote_shell(a), *qb = b ? quote_shell(b) : xstrdup(""), *s;

	xasprintf(&s, "%s -- %s %s", cmd, qa, qb);
	free(qa);
	free(qb);
	return s;
}

/* Both ends must agree with each other and with what passed through. */
static void
relay_compare(struct relay *r)
{
	struct relay_side *s = &r->side[RELAY_SRC], *d = &r->side[RELAY_DST];
	struct bd_error err;

	if (s->size != d->size || s->size != r->res.bytes ||
	    strcmp(s->sum, d->sum) != 0) {
		bd_error_set(&err, -EIO, "relay %s:%s -> %s:%s corrupted: "
		    "%llu bytes sent, %llu/%llu on disk, sha256 %.12s vs %.12s",
		    ssh_name(s->conn), s->path, ssh_name(d->conn), r->final,
		    (unsigned long long)r->res.bytes,
		    (unsigned long long)s->size, (unsigned long long)d->size,
		    s->sum, d->sum);
		relay_fail(r, RELAY_DST, 0, &err);
		return;
	}
	memcpy(r->res.sha256, s->sum, sizeof(r->res.sha256));
}

/* Moves through mkdir, transfer, checksums and rename, one stage at a time. */
static void
relay_next(struct relay *r)
{
	if (r->failed || r->side[0].active || r->side[1].active ||
	    r->execs > 0) {
		relay_maybe_report(r);
		return;
	}
	switch (r->stage) {
	case RS_MKDIR:
		r->stage = RS_XFER;
		if (!r->fetch)
			relay_side_start(&r->side[RELAY_DST]);
		relay_side_start(&r->side[RELAY_SRC]);
		return;
	case RS_XFER:
		if (r->fetch)
			break;
		r->stage = RS_SUM;
		relay_exec(&r->side[RELAY_SRC],
		    relay_sum_cmd(r->side[RELAY_SRC].path));
		relay_exec(&r->side[RELAY_DST],
		    relay_sum_cmd(r->side[RELAY_DST].path));
		return;
	case RS_SUM:
		relay_compare(r);
		if (r->failed)
			break;
		r->stage = RS_MOVE;
		relay_exec(&r->side[RELAY_DST],
		    relay_cmd2("mv -f", r->side[RELAY_DST].path, r->final));
		return;
	case RS_MOVE:
	case RS_DONE:
		break;
	}
	r->stage = RS_DONE;
	relay_maybe_report(r);
}

/* The parts that copy and fetch share. */
static struct relay *
relay_new(struct ssh_conn *src, const char *src_path, uint64_t wait_ms,
    relay_done_cb *cb, void *arg)
{
	struct relay *r = xcalloc(1, sizeof(*r));
	int i;

	r->loop = ssh_loop(src);
	r->cb = cb;
	r->arg = arg;
	r->wait_ms = wait_ms;
	r->buf = xmalloc(RELAY_BUFSZ);
	for (i = 0; i < 2; i++) {
		r->side[i].r = r;
		r->side[i].id = (enum relay_side_id)i;
	}
	r->side[RELAY_SRC].conn = src;
	r->side[RELAY_SRC].path = xstrdup(src_path);
	uv_timer_init(r->loop, &r->timer);
	r->timer.data = r;
	return r;
}

/* Creates the destination directory first, then streams. */
int
relay_copy(struct ssh_conn *src, const char *src_path, struct ssh_conn *dst,
    const char *dst_path, uint64_t wait_ms, relay_done_cb *cb, void *arg,
    struct relay **out, struct bd_error *err)
{
	struct relay *r;
	char *dir, *slash;

	if (*src_path == '\0' || *dst_path == '\0')
		return bd_error_set(err, -EINVAL, "relay: empty path");
	r = relay_new(src, src_path, wait_ms, cb, arg);
	r->side[RELAY_DST].conn = dst;
	r->final = xstrdup(dst_path);
	xasprintf(&r->side[RELAY_DST].path, "%s%s", dst_path, RELAY_PART);
	if (out != NULL)
		*out = r;
	dir = xstrdup(dst_path);
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		relay_exec(&r->side[RELAY_DST], relay_cmd2("mkdir -p", dir,
		    NULL));
	} else
		relay_next(r);
	free(dir);
	return 0;
}

/* Reads into a buffer of max bytes, allocated once. */
int
relay_fetch(struct ssh_conn *c, const char *path, size_t max,
    uint64_t wait_ms, relay_done_cb *cb, void *arg, struct relay **out,
    struct bd_error *err)
{
	struct relay *r;

	if (*path == '\0')
		return bd_error_set(err, -EINVAL, "fetch: empty path");
	r = relay_new(c, path, wait_ms, cb, arg);
	r->fetch = 1;
	r->max = max;
	r->data = xmalloc(max + 1);
	r->data[0] = '\0';
	if (out != NULL)
		*out = r;
	relay_next(r);
	return 0;
}

/* Cancelling is a failure with its own code. */
void
relay_cancel(struct relay *r)
{
	struct bd_error err;

	bd_error_set(&err, -ECANCELED, "relay cancelled");
	relay_fail(r, RELAY_DST, 0, &err);
}
