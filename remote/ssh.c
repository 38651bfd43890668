/* SPDX-License-Identifier: MIT */
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "remote/link.h"
#include "remote/oneshot.h"
#include "remote/pump.h"
#include "remote/ssh.h"

#define SSH_BACKOFF_MIN_MS	100
#define SSH_BACKOFF_MAX_MS	2000
#define SSH_DRIVE_ROUNDS	8
#define SSH_SLICE_NS		(2 * 1000 * 1000)	/* per loop turn */

enum ssh_state {
	SSH_IDLE = 0,		/* no link */
	SSH_BACKOFF,		/* waiting before the next attempt */
	SSH_RESOLVING,
	SSH_LOGIN,		/* connect, handshake, host key, auth */
	SSH_READY,
};

struct ssh_conn {
	uv_loop_t		*loop;
	char			*name, *address, *user, *identity;
	char			*passphrase_file, *known_hosts;
	struct link_params	 params;	/* points at the strings above */
	uint64_t		 connect_ms, keepalive_ms;

	enum ssh_state		 state;
	struct link		*link;
	struct link_meter	 meter;
	uv_timer_t		 timer;		/* attempt timeout, backoff */
	uv_timer_t		 katimer;	/* keepalive */
	uv_prepare_t		 prep;		/* resets the time slice */
	uv_idle_t		 kick;
	uv_getaddrinfo_t	 gai;
	int			 gai_active;
	int			 handles;	/* open handles, for free */
	int			 closing;
	uint64_t		 backoff_ms;
	struct bd_error		 last_err;

	struct ssh_waiter	*waiters;
	struct pump		 pump;		/* the ops on the link */

	uint64_t		 probe_started;
	int			 probing;

	struct ssh_stats	 stats;
};

/*
 * Time spent on SSH work since the loop last polled, over all connections:
 * when hundreds of sessions stream at once, the loop still polls (and
 * serves the control socket) every SSH_SLICE_NS or so.  Each connection's
 * prepare handle resets it just before the poll.  One loop thread only.
 */
static uint64_t		 ssh_slice_used;

static void	ssh_attempt(struct ssh_conn *);
static void	ssh_drive(struct ssh_conn *);
static void	ssh_on_keepalive(uv_timer_t *);
static void	ssh_on_poll(uv_poll_t *, int, int);
static void	ssh_on_prepare(uv_prepare_t *);
static void	ssh_login_step(struct ssh_conn *);

/* Copies the host fields so a config reload cannot pull them away. */
int
ssh_conn_new(uv_loop_t *loop, const struct config_host *h,
    struct ssh_conn **out)
{
	static int initialised;
	struct ssh_conn *c;

	if (h->address == NULL || h->user == NULL || h->identity == NULL ||
	    h->known_hosts == NULL)
		return -EINVAL;		/* config validation requires them */
	if (!initialised) {
		if (libssh2_init(0) != 0)
			return -EIO;
		initialised = 1;
	}
	c = xcalloc(1, sizeof(*c));
	c->loop = loop;
	c->name = xstrdup(h->name != NULL ? h->name : h->address);
	c->address = xstrdup(h->address);
	c->user = xstrdup(h->user);
	c->identity = xstrdup(h->identity);
	c->passphrase_file = h->passphrase_file ?
	    xstrdup(h->passphrase_file) : NULL;
	c->known_hosts = xstrdup(h->known_hosts);
	c->params.name = c->name;
	c->params.address = c->address;
	c->params.port = h->port;
	c->params.user = c->user;
	c->params.identity = c->identity;
	c->params.passphrase_file = c->passphrase_file;
	c->params.known_hosts = c->known_hosts;
	c->params.policy = h->host_key;
	c->connect_ms = h->connect_timeout_ms;
	c->keepalive_ms = h->keepalive_ms;
	c->backoff_ms = SSH_BACKOFF_MIN_MS;
	c->meter.loop = loop;
	pump_init(&c->pump);
	uv_timer_init(loop, &c->timer);
	uv_timer_init(loop, &c->katimer);
	uv_idle_init(loop, &c->kick);
	uv_prepare_init(loop, &c->prep);
	c->timer.data = c->katimer.data = c->kick.data = c->prep.data = c;
	c->handles = 4;
	uv_prepare_start(&c->prep, ssh_on_prepare);
	uv_unref((uv_handle_t *)&c->prep);
	*out = c;
	return 0;
}

/*
 * Frees the connection only when libuv has let go of every handle and no
 * keepalive probe can call back any more.
 */
static void
ssh_unref(struct ssh_conn *c)
{
	if (--c->handles > 0)
		return;
	free(c->name);
	free(c->address);
	free(c->user);
	free(c->identity);
	free(c->passphrase_file);
	free(c->known_hosts);
	free(c);
}

/* Each closed handle gives back its reference. */
static void
ssh_handle_closed(uv_handle_t *h)
{
	ssh_unref(h->data);
}

/* Forgets the link and everything that only made sense on it. */
static void
ssh_link_close(struct ssh_conn *c, int graceful)
{
	c->pump.open_owner = c->pump.out_owner = NULL;
	c->pump.broken = 0;
	if (c->link != NULL) {
		link_close(c->link, graceful);
		c->link = NULL;
	}
}

/* Takes a waiter out of the list; safe when it is not in it. */
static void
ssh_waiter_unlink(struct ssh_waiter *w)
{
	struct ssh_conn *c = w->conn;

	if (c == NULL)
		return;
	if (w->prev != NULL)
		w->prev->next = w->next;
	else
		c->waiters = w->next;
	if (w->next != NULL)
		w->next->prev = w->prev;
	w->prev = w->next = NULL;
	w->conn = NULL;
}

/*
 * Tells the waiters that are due (all, or those whose time is over), one
 * at a time from the head: a callback may add or cancel waiters.
 */
static void
ssh_waiters_notify(struct ssh_conn *c, int rc, const struct bd_error *err,
    int all)
{
	struct ssh_waiter *w;
	uint64_t now = uv_now(c->loop);

	for (;;) {
		for (w = c->waiters; w != NULL; w = w->next) {
			if (all || w->deadline <= now)
				break;
		}
		if (w == NULL)
			return;
		ssh_waiter_unlink(w);
		w->cb(w->arg, rc, err);
		if (c->closing && !all)
			return;
	}
}

/* Detaches every op and tells it, one at a time, so owners may free others. */
static void
ssh_ops_lost(struct ssh_conn *c, const struct bd_error *err)
{
	struct ssh_op *op;

	while ((op = c->pump.ops) != NULL) {
		ssh_op_detach(op);
		op->lost(op, err);
	}
}

/* A link in use died: tear it down first, then tell the ops. */
static void
ssh_link_lost(struct ssh_conn *c, const struct bd_error *why)
{
	struct bd_error err = *why;

	if (c->state != SSH_READY)
		return;
	c->stats.lost++;
	c->state = SSH_IDLE;
	c->last_err = err;
	uv_timer_stop(&c->katimer);
	ssh_link_close(c, 0);
	ssh_ops_lost(c, &err);
}

/* The backoff is over: try again. */
static void
ssh_on_backoff(uv_timer_t *t)
{
	ssh_attempt(t->data);
}

/*
 * Ends a failed attempt.  Waiters whose time is over hear the error (all
 * of them when it is final); the others wait for a retry after an
 * exponential backoff, never past the earliest deadline.
 */
static void
ssh_attempt_failed(struct ssh_conn *c, int final, const struct bd_error *err)
{
	struct ssh_waiter *w;
	uint64_t delay, now = uv_now(c->loop);

	c->last_err = *err;
	uv_timer_stop(&c->timer);
	ssh_link_close(c, 0);
	c->state = SSH_IDLE;
	ssh_waiters_notify(c, err->code, err, final);
	if (c->closing || c->state != SSH_IDLE || c->waiters == NULL)
		return;
	delay = c->backoff_ms;
	for (w = c->waiters; w != NULL; w = w->next) {
		if (w->deadline > now && w->deadline - now < delay)
			delay = w->deadline - now;
	}
	if (c->backoff_ms < SSH_BACKOFF_MAX_MS)
		c->backoff_ms *= 2;
	c->state = SSH_BACKOFF;
	uv_timer_start(&c->timer, ssh_on_backoff, delay ? delay : 1, 0);
}

/* Connect, handshake and authentication together took too long. */
static void
ssh_on_attempt_timeout(uv_timer_t *t)
{
	struct ssh_conn *c = t->data;
	struct bd_error err;

	bd_error_set(&err, -ETIMEDOUT, "%s: no answer from %s port %u "
	    "within %llu ms", c->name, c->address, c->params.port,
	    (unsigned long long)c->connect_ms);
	ssh_attempt_failed(c, 0, &err);
}

/* The link is up: tell the waiters, start the keepalive. */
static void
ssh_ready(struct ssh_conn *c)
{
	uv_timer_stop(&c->timer);
	c->state = SSH_READY;
	c->stats.connects++;
	c->stats.host_key_added |= c->link->key_added;
	c->backoff_ms = SSH_BACKOFF_MIN_MS;
	c->meter.last_rx = uv_now(c->loop);
	bd_error_clear(&c->last_err);
	if (c->keepalive_ms > 0)
		uv_timer_start(&c->katimer, ssh_on_keepalive,
		    c->keepalive_ms / 2 + 1, c->keepalive_ms / 2 + 1);
	ssh_kick(c);
}

/* The loop is about to poll: a new time slice begins. */
static void
ssh_on_prepare(uv_prepare_t *h)
{
	(void)h;
	ssh_slice_used = 0;
}

/* Over the slice: stop polling and continue on the next loop turn. */
static int
ssh_defer(struct ssh_conn *c)
{
	if (ssh_slice_used < SSH_SLICE_NS)
		return 0;
	link_poll(c->link, 0, ssh_on_poll);
	ssh_kick(c);
	return 1;
}

/* One step of connect, handshake, host key check and authentication. */
static void
ssh_login_step(struct ssh_conn *c)
{
	struct bd_error err;
	uint64_t t0;
	int rc, final;

	if (ssh_defer(c))
		return;
	t0 = uv_hrtime();
	rc = link_login(c->link, &c->params, ssh_on_poll, &final, &err);
	ssh_slice_used += uv_hrtime() - t0;
	if (rc == 0)
		ssh_ready(c);
	else if (rc != LIBSSH2_ERROR_EAGAIN)
		ssh_attempt_failed(c, final, &err);
}

/* Socket events go to the login or to the ops, by state. */
static void
ssh_on_poll(uv_poll_t *p, int status, int events)
{
	struct link *l = p->data;
	struct ssh_conn *c = l->data;
	struct bd_error err;

	(void)events;
	if (l->meter == NULL || c->link != l)
		return;
	if (c->state == SSH_READY && status < 0) {
		bd_error_set(&err, -ECONNRESET, "%s: connection lost: %s",
		    c->name, link_socket_error(l));
		ssh_link_lost(c, &err);
	} else if (c->state == SSH_READY)
		ssh_drive(c);
	else if (c->state == SSH_LOGIN)
		ssh_login_step(c);
}

/* Starts the TCP connect; the poll reports when it completes. */
static void
ssh_tcp_start(struct ssh_conn *c, const struct sockaddr *sa, socklen_t len)
{
	struct bd_error err;

	if (link_open(c->loop, sa, len, &c->params, &c->meter, c, &c->link,
	    &err) != 0) {
		ssh_attempt_failed(c, 0, &err);
		return;
	}
	c->state = SSH_LOGIN;
	link_poll(c->link, UV_WRITABLE, ssh_on_poll);
}

/* A name resolved (off the loop thread): connect to it. */
static void
ssh_on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
	struct ssh_conn *c = req->data;
	struct bd_error err;

	c->gai_active = 0;
	if (c->closing || c->state != SSH_RESOLVING) {
		uv_freeaddrinfo(res);
		if (c->closing)
			ssh_handle_closed((uv_handle_t *)&c->timer);
		return;
	}
	if (status < 0 || res == NULL) {
		bd_error_set(&err, -EHOSTUNREACH, "%s: cannot resolve %s: %s",
		    c->name, c->address, uv_strerror(status));
		uv_freeaddrinfo(res);
		ssh_attempt_failed(c, 0, &err);
		return;
	}
	ssh_tcp_start(c, res->ai_addr, res->ai_addrlen);
	uv_freeaddrinfo(res);
}

/* One attempt: numeric addresses connect at once, names resolve first. */
static void
ssh_attempt(struct ssh_conn *c)
{
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	struct addrinfo hints;
	char port[16];

	c->stats.attempts++;
	uv_timer_start(&c->timer, ssh_on_attempt_timeout, c->connect_ms, 0);
	memset(&sin, 0, sizeof(sin));
	memset(&sin6, 0, sizeof(sin6));
	if (inet_pton(AF_INET, c->address, &sin.sin_addr) == 1) {
		sin.sin_family = AF_INET;
		sin.sin_port = htons((uint16_t)c->params.port);
		ssh_tcp_start(c, (struct sockaddr *)&sin, sizeof(sin));
	} else if (inet_pton(AF_INET6, c->address, &sin6.sin6_addr) == 1) {
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons((uint16_t)c->params.port);
		ssh_tcp_start(c, (struct sockaddr *)&sin6, sizeof(sin6));
	} else {
		memset(&hints, 0, sizeof(hints));
		hints.ai_socktype = SOCK_STREAM;
		snprintf(port, sizeof(port), "%u", c->params.port);
		c->state = SSH_RESOLVING;
		c->gai.data = c;
		c->gai_active = 1;
		uv_getaddrinfo(c->loop, &c->gai, ssh_on_resolved, c->address,
		    port, &hints);
	}
}

/* Ready links answer on the next turn, others after connecting. */
void
ssh_connect(struct ssh_conn *c, struct ssh_waiter *w, uint64_t wait_ms,
    ssh_connect_cb *cb, void *arg)
{
	if (c->closing)
		return;		/* documented: never called back */
	w->cb = cb;
	w->arg = arg;
	w->conn = c;
	w->deadline = uv_now(c->loop) + wait_ms;
	w->prev = NULL;
	w->next = c->waiters;
	if (c->waiters != NULL)
		c->waiters->prev = w;
	c->waiters = w;
	if (c->state == SSH_READY)
		ssh_kick(c);
	else if (c->state == SSH_IDLE)
		ssh_attempt(c);
}

/* A caller that gave up must not be called back; the attempt goes on. */
void
ssh_waiter_cancel(struct ssh_waiter *w)
{
	struct ssh_conn *c = w->conn;

	ssh_waiter_unlink(w);
	if (c != NULL && c->state == SSH_BACKOFF && c->waiters == NULL) {
		uv_timer_stop(&c->timer);
		c->state = SSH_IDLE;
	}
}

/* A deliberate close: ops are told, no retry is started. */
void
ssh_disconnect(struct ssh_conn *c, const char *why)
{
	struct bd_error err;

	if (c->state != SSH_READY)
		return;
	bd_error_set(&err, -ECONNABORTED, "%s: disconnected: %s", c->name,
	    why);
	c->state = SSH_IDLE;
	uv_timer_stop(&c->katimer);
	ssh_link_close(c, 1);
	ssh_ops_lost(c, &err);
}

/* For callers that decide whether a kill channel can be opened. */
int
ssh_is_ready(const struct ssh_conn *c)
{
	return c->state == SSH_READY;
}

/* The host name for messages. */
const char *
ssh_name(const struct ssh_conn *c)
{
	return c->name;
}

/* The loop, for modules that need their own timers. */
uv_loop_t *
ssh_loop(const struct ssh_conn *c)
{
	return c->loop;
}

/* Counters for tests and the benchmark. */
void
ssh_get_stats(const struct ssh_conn *c, struct ssh_stats *st)
{
	*st = c->stats;
	st->rx_bytes = c->meter.rx_bytes;
	st->heap_now = c->meter.heap_now;
	st->heap_peak = c->meter.heap_peak;
}

/* Which cipher or MAC was negotiated, for the benchmark. */
const char *
ssh_method(const struct ssh_conn *c, int type)
{
	const char *m = NULL;

	if (c->state == SSH_READY && c->link != NULL)
		m = libssh2_session_methods(c->link->s, type);
	return m != NULL ? m : "";
}

/* Why the last attempt failed, for host status views. */
const char *
ssh_last_error(const struct ssh_conn *c)
{
	return c->last_err.msg;
}

/* The op gets its first turn on the next loop turn. */
void
ssh_op_attach(struct ssh_conn *c, struct ssh_op *op)
{
	op->conn = c;
	pump_add(&c->pump, op);
	ssh_kick(c);
}

/* Others may now get the turn or the lock the op held. */
void
ssh_op_detach(struct ssh_op *op)
{
	struct ssh_conn *c = op->conn;

	if (c == NULL)
		return;
	pump_remove(&c->pump, op);
	ssh_kick(c);
}

/* Deferred work: a login step, waiters, then the ops. */
static void
ssh_on_kick(uv_idle_t *h)
{
	struct ssh_conn *c = h->data;

	uv_idle_stop(h);
	if (c->state == SSH_LOGIN)
		ssh_login_step(c);
	if (c->state != SSH_READY)
		return;
	ssh_waiters_notify(c, 0, NULL, 1);
	if (!c->closing)
		ssh_drive(c);
}

/* Work for the next loop turn, never from inside the caller. */
void
ssh_kick(struct ssh_conn *c)
{
	if (!c->closing)
		uv_idle_start(&c->kick, ssh_on_kick);
}

/* Channel opens share session state in libssh2. */
int
ssh_open_lock(struct ssh_conn *c, struct ssh_op *op)
{
	return pump_lock(&c->pump, op);
}

/* Others waiting to open a channel may go on. */
void
ssh_open_unlock(struct ssh_conn *c, struct ssh_op *op)
{
	if (pump_unlock(&c->pump, op))
		ssh_kick(c);
}

/* One place decides whether an error ends the op or the link. */
int
ssh_op_failed(struct ssh_op *op, int rc, const char *what,
    struct bd_error *err)
{
	struct ssh_conn *c = op->conn;
	char *msg = NULL;

	if (c->link != NULL && c->link->s != NULL)
		libssh2_session_last_error(c->link->s, &msg, NULL, 0);
	bd_error_set(err, pump_fatal(rc) ? -ECONNRESET : -EIO,
	    "%s: %s: %s (libssh2 %d)", c->name, what,
	    msg != NULL && *msg != '\0' ? msg : "failed", rc);
	if (!pump_fatal(rc))
		return 0;
	pump_break(&c->pump, c->name, err->msg);
	return 1;
}

/*
 * Gives the ops their turns, then watches the socket for what the waiting
 * ones need.  A round limit keeps one busy link from starving the others,
 * the time slice keeps all of them from starving the loop; what is left
 * continues on a later iteration.
 */
static void
ssh_drive(struct ssh_conn *c)
{
	uint64_t t0;
	int events, more;

	if (c->pump.running) {
		c->pump.again = 1;
		return;
	}
	if (ssh_defer(c))
		return;
	t0 = uv_hrtime();
	events = pump_run(&c->pump, c->link->s, SSH_DRIVE_ROUNDS, &more);
	ssh_slice_used += uv_hrtime() - t0;
	if (c->pump.broken) {
		ssh_link_lost(c, &c->pump.broken_err);
		return;
	}
	if (c->state != SSH_READY)
		return;
	if (more)
		ssh_kick(c);
	link_poll(c->link, events, ssh_on_poll);
}

/* The probe's channel went through (or not): either way it is over. */
static void
ssh_on_probed(void *arg, int rc)
{
	struct ssh_conn *c = arg;

	if (rc == 0)
		c->stats.probes++;
	c->probing = 0;
	ssh_unref(c);
}

/*
 * Bytes from the peer count as answers, so a link busy with output needs no
 * probe; a silent one is probed and declared dead after SSH_KEEPALIVE_COUNT
 * intervals without a byte.  The probe opens a channel and closes it: a
 * round trip through the peer's SSH layer at any interval, where libssh2's
 * own keepalive counts whole seconds and never reports the reply.
 */
static void
ssh_on_keepalive(uv_timer_t *t)
{
	struct ssh_conn *c = t->data;
	uint64_t now = uv_now(c->loop), since;
	struct bd_error err;

	if (c->state != SSH_READY)
		return;
	if (c->probing) {
		since = c->meter.last_rx > c->probe_started ? c->meter.last_rx :
		    c->probe_started;
		if (now - since < c->keepalive_ms * SSH_KEEPALIVE_COUNT)
			return;
		bd_error_set(&err, -ETIMEDOUT, "%s: connection lost: no answer "
		    "from the host for %llu ms (keepalive)", c->name,
		    (unsigned long long)(now - since));
		ssh_link_lost(c, &err);
		return;
	}
	if (now - c->meter.last_rx < c->keepalive_ms)
		return;
	c->probing = 1;
	c->probe_started = now;
	c->handles++;		/* until ssh_on_probed */
	oneshot_start(c, NULL, ssh_on_probed, c);
}

/* Everything waiting hears -ECANCELED; memory goes when handles close. */
void
ssh_conn_free(struct ssh_conn *c)
{
	struct bd_error err;

	bd_error_set(&err, -ECANCELED, "%s: connection closed", c->name);
	c->closing = 1;
	uv_idle_stop(&c->kick);
	ssh_disconnect(c, "closing");
	ssh_waiters_notify(c, -ECANCELED, &err, 1);
	if (c->state != SSH_IDLE)
		ssh_link_close(c, 0);
	c->state = SSH_IDLE;
	if (c->gai_active) {
		c->handles++;	/* released by ssh_on_resolved */
		uv_cancel((uv_req_t *)&c->gai);
	}
	uv_close((uv_handle_t *)&c->timer, ssh_handle_closed);
	uv_close((uv_handle_t *)&c->katimer, ssh_handle_closed);
	uv_close((uv_handle_t *)&c->prep, ssh_handle_closed);
	uv_close((uv_handle_t *)&c->kick, ssh_handle_closed);
}
