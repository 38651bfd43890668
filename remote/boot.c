/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "remote/boot.h"
#include "remote/exec.h"

#define BOOT_KERNEL_MAX	128

enum boot_state {
	BS_CONNECT = 0,
	BS_CHECK,
	BS_PAUSE,
	BS_POWER,
	BS_DONE,
};

struct boot {
	struct ssh_conn		*conn;
	uv_loop_t		*loop;
	boot_done_cb		*cb;
	void			*arg;
	char			*check, *expect, *cwd, *power_cycle, *log_path;
	uint64_t		 timeout_ms, retry_ms, deadline;
	enum boot_state		 state;
	struct ssh_waiter	 waiter;
	struct exec		*ex;
	uv_timer_t		 timer;
	uv_process_t		 proc;
	int			 proc_open;
	int			 cancelled;
	char			 kernel[BOOT_KERNEL_MAX];
	char			 last[BD_ERROR_MAX];
	struct boot_result	 res;
};

static void	boot_connect(struct boot *);

/* The last handle is closed: nothing can reach the boot any more. */
static void
boot_freed(uv_handle_t *h)
{
	struct boot *b = h->data;

	free(b->check);
	free(b->expect);
	free(b->cwd);
	free(b->power_cycle);
	free(b->log_path);
	free(b);
}

/* The power-cycle process handle must close before the timer, which frees. */
static void
boot_proc_closed(uv_handle_t *h)
{
	struct boot *b = h->data;

	b->proc_open = 0;
	uv_close((uv_handle_t *)&b->timer, boot_freed);
}

/* Reports once; handles close afterwards and then the boot is freed. */
static void
boot_finish(struct boot *b, int rc, const struct bd_error *err)
{
	if (b->state == BS_DONE)
		return;
	b->state = BS_DONE;
	ssh_waiter_cancel(&b->waiter);
	uv_timer_stop(&b->timer);
	b->res.rc = rc;
	b->res.kernel = b->kernel;
	if (err != NULL)
		b->res.err = *err;
	b->cb(b->arg, &b->res);
	if (b->proc_open)
		uv_close((uv_handle_t *)&b->proc, boot_proc_closed);
	else
		uv_close((uv_handle_t *)&b->timer, boot_freed);
}

/* Every wait is bounded by what is left of the boot timeout. */
static uint64_t
boot_left(struct boot *b)
{
	uint64_t now = uv_now(b->loop);

	return b->deadline > now ? b->deadline - now : 0;
}

/* The host was power cycled: the wait starts over with a full timeout. */
static void
boot_on_power_exit(uv_process_t *p, int64_t status, int sig)
{
	struct boot *b = p->data;

	uv_timer_stop(&b->timer);
	snprintf(b->last, sizeof(b->last), "power cycle command %s %lld",
	    sig ? "killed by signal" : "exited with status",
	    (long long)(sig ? sig : status));
	uv_close((uv_handle_t *)p, NULL);
	b->proc_open = 0;
	if (b->state == BS_DONE)
		return;
	b->deadline = uv_now(b->loop) + b->timeout_ms;
	boot_connect(b);
}

/* A power-cycle command that hangs must not hang the boot wait. */
static void
boot_on_power_timeout(uv_timer_t *t)
{
	struct boot *b = t->data;

	if (b->proc_open)
		uv_process_kill(&b->proc, SIGKILL);
}

/*
 * Runs the configured power-cycle template; its output goes to the log.
 * The link is dropped first, since the host is about to lose power.
 */
static int
boot_power_cycle(struct boot *b)
{
	uv_process_options_t o;
	uv_stdio_container_t stdio[3];
	char *argv[] = { "/bin/sh", "-c", b->power_cycle, NULL };
	int fd = -1, rc;

	ssh_disconnect(b->conn, "power cycling");
	if (b->log_path != NULL)
		fd = open(b->log_path, O_WRONLY | O_CREAT | O_APPEND |
		    O_CLOEXEC, 0644);
	memset(&o, 0, sizeof(o));
	memset(stdio, 0, sizeof(stdio));
	stdio[0].flags = UV_IGNORE;
	stdio[1].flags = stdio[2].flags = fd >= 0 ? UV_INHERIT_FD : UV_IGNORE;
	stdio[1].data.fd = stdio[2].data.fd = fd;
	o.file = argv[0];
	o.args = argv;
	o.stdio = stdio;
	o.stdio_count = 3;
	o.exit_cb = boot_on_power_exit;
	b->proc.data = b;
	rc = uv_spawn(b->loop, &b->proc, &o);
	if (fd >= 0)
		close(fd);
	if (rc != 0) {
		uv_close((uv_handle_t *)&b->proc, NULL);
		return rc;
	}
	b->proc_open = 1;
	b->res.power_cycled = true;
	b->state = BS_POWER;
	uv_timer_start(&b->timer, boot_on_power_timeout, BOOT_POWER_TIMEOUT_MS,
	    0);
	return 0;
}

/* The wait is over: power cycle once, else it is a boot timeout. */
static void
boot_expired(struct boot *b)
{
	struct bd_error err;

	if (b->power_cycle != NULL && !b->res.power_cycled &&
	    boot_power_cycle(b) == 0)
		return;
	bd_error_set(&err, -ETIMEDOUT, "boot timeout: %s did not come back%s%s"
	    " within %llu ms%s (last: %s)", ssh_name(b->conn),
	    b->expect ? " running " : "", b->expect ? b->expect : "",
	    (unsigned long long)b->timeout_ms,
	    b->res.power_cycled ? " after a power cycle" : "",
	    b->last[0] ? b->last : "no answer");
	boot_finish(b, -ETIMEDOUT, &err);
}

/* The pause between two checks is over. */
static void
boot_on_pause(uv_timer_t *t)
{
	boot_connect(t->data);
}

/* Not there yet: try again shortly, or give up when the time is over. */
static void
boot_retry(struct boot *b)
{
	uint64_t left = boot_left(b);

	if (b->cancelled)
		return;
	if (left == 0) {
		boot_expired(b);
		return;
	}
	b->state = BS_PAUSE;
	uv_timer_start(&b->timer, boot_on_pause,
	    left < b->retry_ms ? left : b->retry_ms, 0);
}

/* Copies the check's output without surrounding blanks. */
static void
boot_trim(char *dst, size_t dstsz, const char *s, size_t len)
{
	while (len > 0 && (*s == ' ' || *s == '\t' || *s == '\n' ||
	    *s == '\r'))
		s++, len--;
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' ||
	    s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	if (len >= dstsz)
		len = dstsz - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* The expected kernel ends the wait; anything else means try again. */
static void
boot_on_check(void *arg, const struct exec_result *r)
{
	struct boot *b = arg;
	char how[256];

	b->ex = NULL;
	if (b->state == BS_DONE)
		return;
	if (r->status == EXEC_CANCELLED) {
		boot_finish(b, -ECANCELED, &r->err);
		return;
	}
	if (r->status == EXEC_EXITED && r->exit_code == 0) {
		boot_trim(b->kernel, sizeof(b->kernel), r->tail ? r->tail : "",
		    r->tail_len);
		if (b->expect == NULL || strcmp(b->kernel, b->expect) == 0) {
			boot_finish(b, 0, NULL);
			return;
		}
		snprintf(b->last, sizeof(b->last), "running \"%s\"",
		    b->kernel);
	} else {
		exec_describe(r, how, sizeof(how));
		snprintf(b->last, sizeof(b->last), "boot check %s", how);
	}
	boot_retry(b);
}

/* SSH answers again; a refused key is final, the rest is retried. */
static void
boot_on_connected(void *arg, int rc, const struct bd_error *err)
{
	struct boot *b = arg;
	struct exec_opts o;
	struct bd_error e;
	uint64_t left;

	if (rc == -EPERM) {
		boot_finish(b, rc, err);	/* host key or key refused */
		return;
	}
	if (rc != 0) {
		snprintf(b->last, sizeof(b->last), "%s", err->msg);
		boot_retry(b);
		return;
	}
	if (b->check == NULL) {
		boot_finish(b, 0, NULL);
		return;
	}
	left = boot_left(b);
	memset(&o, 0, sizeof(o));
	o.command = b->check;
	o.cwd = b->cwd;
	o.log_path = b->log_path;
	o.tail_max = BOOT_KERNEL_MAX * 4;
	o.timeout_ms = left < BOOT_CHECK_TIMEOUT_MS ? left + 1 :
	    BOOT_CHECK_TIMEOUT_MS;
	o.kill_grace_ms = 500;
	b->state = BS_CHECK;
	if (exec_start(b->conn, &o, boot_on_check, b, &b->ex, &e) != 0)
		boot_finish(b, e.code, &e);
}

/* Reconnects with backoff for what is left of the timeout. */
static void
boot_connect(struct boot *b)
{
	if (b->cancelled || b->state == BS_DONE)
		return;
	b->state = BS_CONNECT;
	ssh_connect(b->conn, &b->waiter, boot_left(b), boot_on_connected, b);
}

/* Copies the options so the caller may free its strings at once. */
int
boot_wait(struct ssh_conn *c, const struct boot_opts *o, boot_done_cb *cb,
    void *arg, struct boot **out, struct bd_error *err)
{
	struct boot *b;

	if (o->timeout_ms == 0)
		return bd_error_set(err, -EINVAL, "boot timeout is zero");
	b = xcalloc(1, sizeof(*b));
	b->conn = c;
	b->loop = ssh_loop(c);
	b->cb = cb;
	b->arg = arg;
	b->check = o->check ? xstrdup(o->check) : NULL;
	b->expect = o->expect ? xstrdup(o->expect) : NULL;
	b->cwd = o->cwd ? xstrdup(o->cwd) : NULL;
	b->power_cycle = o->power_cycle ? xstrdup(o->power_cycle) : NULL;
	b->log_path = o->log_path ? xstrdup(o->log_path) : NULL;
	b->timeout_ms = o->timeout_ms;
	b->retry_ms = o->retry_ms ? o->retry_ms : BOOT_RETRY_MS;
	b->deadline = uv_now(b->loop) + o->timeout_ms;
	uv_timer_init(b->loop, &b->timer);
	b->timer.data = b;
	if (out != NULL)
		*out = b;
	boot_connect(b);
	return 0;
}

/* A running check is killed on the host; otherwise the wait just ends. */
void
boot_cancel(struct boot *b)
{
	struct bd_error err;

	if (b->state == BS_DONE)
		return;
	b->cancelled = 1;
	if (b->ex != NULL) {
		exec_cancel(b->ex);	/* boot_on_check finishes */
		return;
	}
	if (b->proc_open)
		uv_process_kill(&b->proc, SIGKILL);
	bd_error_set(&err, -ECANCELED, "cancelled while waiting for %s to "
	    "boot", ssh_name(b->conn));
	boot_finish(b, -ECANCELED, &err);
}
