/* SPDX-License-Identifier: MIT */
/*
 * bisectctl's side of the control socket: connect, send one request line,
 * read one reply line.  Blocking I/O; the client does one thing at a time.
 *
 * struct client owns its descriptor and read buffer; client_release()
 * closes and frees them.  Reply lines and parsed replies handed out by
 * client_request() belong to the caller.
 */
#ifndef CTL_CLIENT_H
#define CTL_CLIENT_H

#include <stddef.h>
#include <time.h>

#include <jansson.h>

#include "common/error.h"

/*
 * What a request came to.  The values are bisectctl's exit statuses, so a
 * command can return the result as it is.
 */
enum client_result {
	CLIENT_OK = 0,			/* the reply has "ok": true */
	CLIENT_ERROR_REPLY = 1,		/* the daemon answered with an error */
	CLIENT_UNREACHED = 2,		/* no connection, or it broke */
};

/* Longest reply line the client accepts. */
#define CLIENT_REPLY_MAX	(16 * 1024 * 1024)

struct client {
	int	 fd;
	char	*path;
	char	*buf;		/* bytes read past the last reply line */
	size_t	 len;
	size_t	 cap;
};

void	client_init(struct client *c);
void	client_release(struct client *c);

/* The socket bisectctl uses without -s: $BISECTD_SOCKET or the default. */
const char *client_default_socket(void);

/*
 * Connects to the daemon's socket.  Returns 0, or a negative errno with a
 * message that names the path (the daemon is not running, no permission).
 */
int	client_connect(struct client *c, const char *path,
	    struct bd_error *err);
/*
 * Sends req as one line and waits for the reply line.  On success *linep
 * (newline stripped) and *replyp (a JSON object) are the caller's to free;
 * either pointer may be NULL when not wanted.  Fails with -EPIPE when the
 * daemon closed the connection, -EPROTO on a reply that is not a JSON
 * object, or another negative errno, with err filled.
 */
int	client_request(struct client *c, const json_t *req, char **linep,
	    json_t **replyp, struct bd_error *err);
/*
 * client_request for commands: the reply line and object are the caller's
 * (NULL when unreached; the reply is kept for an error reply so the caller
 * can print it), and err says why the daemon was unreached.
 */
enum client_result client_ask(struct client *c, const json_t *req,
	    char **linep, json_t **replyp, struct bd_error *err);
/* client_connect to path, then client_ask; the same ownership. */
enum client_result client_call(struct client *c, const char *path,
	    const json_t *req, char **linep, json_t **replyp,
	    struct bd_error *err);
/*
 * Sends req as one line without waiting for a reply, for a client that
 * reads replies and streamed events itself.
 */
int	client_send(struct client *c, const json_t *req, struct bd_error *err);
/*
 * Reads the next line the daemon sends, for replies and streamed events.
 * *linep (newline stripped) is the caller's to free.  Bytes after the line
 * stay buffered for the next call.
 */
int	client_read_line(struct client *c, char **linep, struct bd_error *err);
/*
 * As client_read_line, but waits only until deadline (CLOCK_MONOTONIC; a
 * deadline already past reads only what has arrived; NULL waits forever).
 * Returns -ETIMEDOUT, with *linep untouched and no message, when no whole
 * line came in time; a partial line stays buffered for the next call.
 */
int	client_read_line_until(struct client *c,
	    const struct timespec *deadline, char **linep,
	    struct bd_error *err);
/* The CLOCK_MONOTONIC time ms milliseconds from now, for deadlines. */
void	client_deadline(struct timespec *ts, int ms);

#endif
