/* SPDX-License-Identifier: MIT */
/*
 * One SSH transport: a non-blocking TCP socket, its uv_poll_t and a libssh2
 * session, from connect() through handshake, host key check and public key
 * authentication.
 *
 * struct ssh_conn (ssh.c) owns at most one link at a time and decides when
 * to make or drop one; this module does the socket and libssh2 work.  The
 * session allocates through counting functions, so the libssh2 heap of a
 * link is known (struct link_meter), and every received byte is noted for
 * the keepalive.  The link also keeps the list of those allocations and
 * frees whatever libssh2 left behind when the session is freed.  Closing
 * never blocks the loop: the socket is shut down before libssh2 frees the
 * session, and the link itself is freed when libuv has closed the poll
 * handle.
 */
#ifndef REMOTE_LINK_H
#define REMOTE_LINK_H

#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>

#include <libssh2.h>
#include <uv.h>

#include "common/error.h"
#include "config/config.h"

/* Counters a link updates as it works; owned by the caller. */
struct link_meter {
	uv_loop_t	*loop;
	uint64_t	 last_rx;	/* uv_now() of the last byte received */
	uint64_t	 rx_bytes;
	size_t		 heap_now;	/* libssh2 heap of the live link */
	size_t		 heap_peak;
};

/* Who to log in as and how to trust the host; strings stay the caller's. */
struct link_params {
	const char	*name;
	const char	*address;
	unsigned	 port;
	const char	*user;
	const char	*identity;
	const char	*passphrase_file;
	const char	*known_hosts;
	enum config_host_key_policy policy;
};

enum link_phase {
	LINK_CONNECTING = 0,
	LINK_HANDSHAKE,
	LINK_AUTH,
	LINK_UP,
};

struct link_block;

struct link {
	uv_poll_t		 poll;
	int			 fd;
	int			 polling;
	int			 events;
	enum link_phase		 phase;
	LIBSSH2_SESSION		*s;
	size_t			 heap;
	struct link_block	*blocks;	/* libssh2's live allocations */
	struct link_meter	*meter;		/* NULL once closing */
	char			*passphrase;	/* while authenticating */
	int			 key_added;	/* accept-new wrote a key */
	void			*data;		/* the owner's */
};

/*
 * Creates the socket and starts connect(); poll for UV_WRITABLE and call
 * link_login() when it fires.  Returns 0 or negative errno with err set (no
 * link is created then).
 */
int	 link_open(uv_loop_t *loop, const struct sockaddr *sa, socklen_t len,
	    const struct link_params *p, struct link_meter *meter, void *data,
	    struct link **out, struct bd_error *err);

/*
 * Advances connect, handshake, host key check and authentication.  Returns
 * 0 when the link is up, LIBSSH2_ERROR_EAGAIN while it waits (the poll is
 * set), or negative errno with err set; *final says retrying cannot help
 * (refused host key, rejected key).
 */
int	 link_login(struct link *l, const struct link_params *p,
	    uv_poll_cb cb, int *final, struct bd_error *err);

/* Polls for events (0 stops polling). */
void	 link_poll(struct link *l, int events, uv_poll_cb cb);
/* The poll events session s is blocked on after an EAGAIN. */
int	 link_events(LIBSSH2_SESSION *s);
/* Why the socket failed, in words (libuv only says "bad fd"). */
const char *link_socket_error(const struct link *l);
/* Frees the session and, asynchronously, the link. */
void	 link_close(struct link *l, int graceful);

#endif
