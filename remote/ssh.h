/* SPDX-License-Identifier: MIT */
/*
 * SSH connections to build and test hosts, driven by the libuv loop.
 *
 * One struct ssh_conn per configured host lives as long as the pool.  It
 * holds at most one link (TCP socket + libssh2 session in non-blocking mode)
 * and re-establishes it on demand: ssh_connect() with a waiting time tries,
 * backs off and tries again until the link is up or the time is over.  The
 * socket is watched with one uv_poll_t whose events follow
 * libssh2_session_block_directions(); every deadline is a uv_timer_t.
 *
 * Work on a link is done by ops (struct ssh_op): a channel running a
 * command, an SFTP transfer, the keepalive probe.  The connection pumps
 * every attached op whenever the socket is ready or an op asks with
 * ssh_kick().  A pump resumes exactly where libssh2 said EAGAIN; while a
 * partly sent packet is pending, only the op that sent it is pumped, because
 * libssh2 1.10 cannot interleave two senders on one session.  Channel opens
 * (and SFTP start-up) share session state in libssh2 too, so an op takes
 * the open lock around them.
 *
 * When the link dies (socket error, keepalive finds no answer, disconnect)
 * every attached op is detached and told through its lost() callback.
 *
 * Ownership: the caller owns each struct ssh_op and struct ssh_waiter and
 * must detach or cancel it before freeing it.  Callbacks are never invoked
 * from inside the call that registered them.
 */
#ifndef REMOTE_SSH_H
#define REMOTE_SSH_H

#include <stddef.h>
#include <stdint.h>

#include <libssh2.h>
#include <uv.h>

#include "common/error.h"
#include "config/config.h"

#define SSH_KEEPALIVE_COUNT	3	/* unanswered intervals before dead */

struct ssh_conn;

enum ssh_pump {
	SSH_PUMP_AGAIN,		/* libssh2 said EAGAIN: wait for the socket */
	SSH_PUMP_PROGRESS,	/* did some work: pump again soon */
	SSH_PUMP_WAIT,		/* waits for something else; will ssh_kick() */
	SSH_PUMP_DONE,		/* finished: the connection detaches the op */
};

struct ssh_op {
	/* Called with the live session; must not block. */
	enum ssh_pump	(*pump)(struct ssh_op *op, LIBSSH2_SESSION *s);
	/* The link died; the op is already detached, its channels are gone. */
	void		(*lost)(struct ssh_op *op, const struct bd_error *err);
	/* Private to ssh.c. */
	struct ssh_conn	*conn;
	struct ssh_op	*prev, *next;
	unsigned	 gen;
};

/* rc is 0 when the link is up, else negative errno with err set. */
typedef void ssh_connect_cb(void *arg, int rc, const struct bd_error *err);

struct ssh_waiter {
	ssh_connect_cb		*cb;
	void			*arg;
	/* Private to ssh.c. */
	struct ssh_conn		*conn;
	uint64_t		 deadline;
	struct ssh_waiter	*prev, *next;
};

struct ssh_stats {
	uint64_t	attempts;	/* connection attempts started */
	uint64_t	connects;	/* links established */
	uint64_t	lost;		/* links that died while in use */
	uint64_t	probes;		/* keepalive probes answered */
	uint64_t	rx_bytes;	/* bytes read from sockets */
	size_t		heap_now;	/* libssh2 heap of the current link */
	size_t		heap_peak;	/* highest libssh2 heap of any link */
	int		host_key_added;	/* accept-new recorded a key */
};

/*
 * Copies what it needs from host; the config may be freed afterwards.  Port
 * and connect timeout are used as given: config_load (or, for a host built
 * by hand, config_host_defaults) fills them; keepalive_ms 0 sends none.
 */
int	 ssh_conn_new(uv_loop_t *loop, const struct config_host *host,
	    struct ssh_conn **out);
/*
 * Closes the link (ops get lost()), fails waiters with -ECANCELED and frees
 * the connection once its handles are closed: keep running the loop.
 */
void	 ssh_conn_free(struct ssh_conn *c);

/*
 * Calls cb once the link is up: at once (deferred) if it is, else after
 * connecting, retrying with backoff for up to wait_ms.  A refused host key
 * or failed authentication is final and not retried.  On a connection
 * being freed the call does nothing and cb is never called.
 */
void	 ssh_connect(struct ssh_conn *c, struct ssh_waiter *w,
	    uint64_t wait_ms, ssh_connect_cb *cb, void *arg);
void	 ssh_waiter_cancel(struct ssh_waiter *w);
/* Drops the link (a host about to reboot); ops get lost() with why. */
void	 ssh_disconnect(struct ssh_conn *c, const char *why);

int	 ssh_is_ready(const struct ssh_conn *c);
const char *ssh_name(const struct ssh_conn *c);
uv_loop_t *ssh_loop(const struct ssh_conn *c);
void	 ssh_get_stats(const struct ssh_conn *c, struct ssh_stats *st);
/* A negotiated method (LIBSSH2_METHOD_CRYPT_CS, ...); "" when not up. */
const char *ssh_method(const struct ssh_conn *c, int type);
/* The message of the last failed attempt (empty if none). */
const char *ssh_last_error(const struct ssh_conn *c);

/* Attaching needs a ready link; the op is pumped soon after. */
void	 ssh_op_attach(struct ssh_conn *c, struct ssh_op *op);
/* Safe to call on a detached op. */
void	 ssh_op_detach(struct ssh_op *op);
/* Asks for a pump on the next loop iteration. */
void	 ssh_kick(struct ssh_conn *c);
/* 1 when op holds (or now took) the lock for opening channels. */
int	 ssh_open_lock(struct ssh_conn *c, struct ssh_op *op);
void	 ssh_open_unlock(struct ssh_conn *c, struct ssh_op *op);

/*
 * Records a libssh2 failure rc of an op doing what: fills err with
 * libssh2's message and, when rc means the link itself is broken, marks it
 * so that every op is told after this pump.  Returns 1 in that case (the op
 * should return SSH_PUMP_WAIT and wait for lost()), else 0.
 */
int	 ssh_op_failed(struct ssh_op *op, int rc, const char *what,
	    struct bd_error *err);

#endif
