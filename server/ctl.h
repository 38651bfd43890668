/* SPDX-License-Identifier: MIT */
/*
 * The control socket: a unix stream listener on the daemon's libuv loop and
 * one line reader and output queue per client connection.
 *
 * ctl_listen() binds with plain system calls, before the loop exists, so
 * that "another daemon answers here" is reported on the terminal that
 * started bisectd.  ctl_server_init() then takes the listening descriptor
 * over.  Every complete line goes to the server's line callback; lines over
 * PROTO_LINE_MAX get a line-too-long reply and the connection is closed.
 *
 * Ownership: the server owns its connections; a connection is freed on the
 * loop after ctl_conn_close() (or the peer hanging up) once libuv has closed
 * its handle, so a callback may use a connection until it returns.  Output
 * is copied by ctl_conn_send(); the caller keeps its buffer.
 */
#ifndef SERVER_CTL_H
#define SERVER_CTL_H

#include <sys/queue.h>
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <uv.h>

#include "common/error.h"

/* Queued output above this pauses reading the client's requests. */
#define CTL_OUTPUT_HIGH		(256 * 1024)
/* Queued output above this drops the connection (a client that never reads). */
#define CTL_OUTPUT_MAX		(4 * 1024 * 1024)
/* How long shutdown waits for clients to take their last replies. */
#define CTL_DRAIN_MS		5000

/* How long accepting pauses when the process is out of descriptors. */
#define CTL_ACCEPT_BACKOFF_MS	250
/* At most one log line per this long about running out of descriptors. */
#define CTL_EMFILE_LOG_MS	60000
/*
 * Descriptors kept for everything but control connections (database,
 * SSH sessions, step logs, git packs, lab requests) when the connection
 * cap is checked against RLIMIT_NOFILE.
 */
#define CTL_FD_RESERVE		64

/* Bit in struct ctl_conn subscriptions: the watch command's event stream. */
#define CTL_SUB_EVENTS		0x1

struct ctl_conn;
struct ctl_server;

/* One complete request line, newline stripped and NUL-terminated. */
typedef void ctl_line_cb(struct ctl_conn *conn, char *line, size_t len,
    void *arg);

struct ctl_conn {
	uv_pipe_t		 pipe;
	struct ctl_server	*srv;
	uid_t			 uid;		/* SO_PEERCRED */
	pid_t			 pid;
	unsigned		 serial;	/* for log lines */
	int			 accepted;	/* admitted under the caps */
	uint64_t		 partial_ms;	/* loop time a partial line began */
	char			*in;		/* partial input */
	size_t			 inlen;
	size_t			 incap;
	size_t			 queued;	/* bytes written, not yet sent */
	int			 paused;	/* reading stopped for backpressure */
	int			 closing;
	/*
	 * Event subscriptions (CTL_SUB_ bits set by the command layer): a
	 * streaming command such as watch sets bits here and
	 * ctl_server_broadcast() writes events to every connection whose
	 * bits match.
	 */
	unsigned		 subscriptions;
	/*
	 * Replies still owed (a command answering later, see cmd_defer):
	 * while held, no further line is dispatched and nothing is read, so
	 * replies keep the order of requests; a close at EOF waits for it.
	 */
	unsigned		 held;
	int			 close_when_free;
	TAILQ_ENTRY(ctl_conn)	 entry;
};

TAILQ_HEAD(ctl_conn_list, ctl_conn);

struct ctl_server {
	uv_loop_t		*loop;
	uv_poll_t		 listener;	/* on listen_fd; we accept */
	int			 listen_fd;
	int			 listening;	/* listener initialised */
	uv_timer_t		 drain;
	uv_timer_t		 sweep;		/* partial-line timeouts */
	uv_timer_t		 backoff;	/* accepting paused: EMFILE */
	int			 backing_off;
	uint64_t		 emfile_logged_ms;	/* last log line, or 0 */
	unsigned		 emfile_count;	/* times since that line */
	char			*path;		/* socket file we created */
	dev_t			 dev;		/* its identity, so shutdown */
	ino_t			 ino;		/* removes only our own file */
	unsigned		 max_clients;
	unsigned		 max_per_uid;
	uint64_t		 line_timeout_ms;	/* 0: none */
	unsigned		 serial;
	int			 stopping;
	struct ctl_conn_list	 conns;
	ctl_line_cb		*on_line;
	void			*arg;
};

/* Takes over fd from ctlsock_listen() and starts accepting on loop. */
int	ctl_server_init(struct ctl_server *srv, uv_loop_t *loop, int fd,
	    const char *path, ctl_line_cb *cb, void *arg, struct bd_error *err);
/*
 * Connection caps; new limits apply to connections accepted afterwards.
 * max_clients is checked against RLIMIT_NOFILE: the soft limit is raised
 * towards the hard one when CTL_FD_RESERVE more are needed, and when even
 * that is too few the cap is lowered, with a warning, to what it allows.
 * Only admitted connections that are not closing count, and the per-uid
 * cap is checked first, so one uid refused in a loop cannot fill the
 * server.  A connection whose partial line stays incomplete for longer
 * than line_timeout_ms (0: never) gets a timeout error and is closed.
 */
void	ctl_server_set_caps(struct ctl_server *srv, unsigned max_clients,
	    unsigned max_per_uid, uint64_t line_timeout_ms);
/*
 * Stops accepting and closes every connection once its queued output is
 * written (or after CTL_DRAIN_MS).  The loop ends when nothing is left.
 */
void	ctl_server_stop(struct ctl_server *srv);
/* After the loop ended: removes the socket file if it is still ours. */
void	ctl_server_release(struct ctl_server *srv);

/*
 * Sends {"event": kind, ...fields} as one line to every connection
 * subscribed with CTL_SUB_EVENTS.  fields (an object, may be NULL) is
 * stolen.  Only this module walks the connections.
 */
void	ctl_server_broadcast(struct ctl_server *srv, const char *kind,
	    json_t *fields);

/*
 * A connection that owes a reply later: ctl_conn_hold stops dispatching and
 * reading on it and returns its serial; ctl_server_find gives the
 * connection back by serial (NULL once it is gone, so the owner never keeps
 * a pointer), and ctl_conn_unhold resumes it after the reply was sent.
 */
unsigned	ctl_conn_hold(struct ctl_conn *conn);
struct ctl_conn	*ctl_server_find(struct ctl_server *srv, unsigned serial);
void		ctl_conn_unhold(struct ctl_conn *conn);

/* Queues len bytes of output; drops the connection past CTL_OUTPUT_MAX. */
void	ctl_conn_send(struct ctl_conn *conn, const char *data, size_t len);
/* Closes after the queued output is written; reading stops at once. */
void	ctl_conn_close(struct ctl_conn *conn);

#endif
