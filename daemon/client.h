/*
 * bisectctl's side of the control socket: connect, send one request line,
 * read one reply line.  Blocking I/O; the client does one thing at a time.
 *
 * struct client owns its descriptor and read buffer; client_release()
 * closes and frees them.  Reply lines and parsed replies handed out by
 * client_request() belong to the caller.
 */
#ifndef DAEMON_CLIENT_H
#define DAEMON_CLIENT_H

#include <stddef.h>

#include <jansson.h>

#include "common/error.h"

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
/* Reads the next line the daemon sends, for replies and streamed events. */
int	client_read_line(struct client *c, char **linep, struct bd_error *err);

#endif
