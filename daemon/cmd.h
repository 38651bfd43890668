/*
 * Request dispatch: every control command is one row of the protocol table
 * (common/proto_cmd.h) saying whether it changes state (then the request,
 * the caller's uid and the outcome are stored as an event) and declaring
 * its fields with their types; cmd.c maps each row to its handler.
 *
 * cmd_dispatch() parses a line, checks "cmd", "id" and the declared fields,
 * runs the handler and sends exactly one reply.  A handler only adds its
 * payload to ctx->reply, or calls cmd_fail() and returns -1; it never sends
 * the reply itself.  Streaming commands (watch) will keep the connection by
 * setting bits in ctx->conn->subscriptions before returning.
 */
#ifndef DAEMON_CMD_H
#define DAEMON_CMD_H

#include <jansson.h>

#include "common/proto.h"
#include "common/proto_cmd.h"

struct ctl_conn;
struct daemon;

struct cmd_ctx {
	struct daemon	*d;
	struct ctl_conn	*conn;
	json_t		*req;		/* borrowed; valid during the call */
	json_t		*reply;		/* {"ok":true,"id":...}: add payload */
	enum proto_error error;		/* set by cmd_fail() */
	char		 message[512];
	json_t		*detail;	/* extra members of "error", owned */
};

typedef int cmd_fn(struct cmd_ctx *ctx);

/* A ctl_line_cb: arg is the struct daemon. */
void	cmd_dispatch(struct ctl_conn *conn, char *line, size_t len, void *arg);
/* The handler of the protocol command called name, or NULL. */
cmd_fn	*cmd_find(const char *name);
/* Records an error for the reply and returns -1 for the handler to return. */
int	cmd_fail(struct cmd_ctx *ctx, enum proto_error e, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

#endif
