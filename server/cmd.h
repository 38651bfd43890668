/* SPDX-License-Identifier: MIT */
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
#ifndef SERVER_CMD_H
#define SERVER_CMD_H

#include <jansson.h>

#include "common/proto.h"
#include "common/proto_cmd.h"

struct ctl_conn;
struct server;

struct cmd_ctx {
	struct server	*srv;
	struct ctl_conn	*conn;
	json_t		*req;		/* borrowed; valid during the call */
	const struct proto_cmd *row;	/* the command's row */
	const char	*line;		/* the request line, for cmd_defer */
	json_t		*reply;		/* {"ok":true,"id":...}: add payload */
	enum proto_error error;		/* set by cmd_fail() */
	char		 message[512];
	json_t		*detail;	/* extra members of "error", owned */
	int		 broken;	/* a reply value could not be built */
	char		 rawid[64];	/* the id's JSON text when a number */
};

/*
 * A handler returns 0 (reply now with ctx->reply), -1 (after cmd_fail), or
 * CMD_DEFERRED after cmd_defer(): the reply is sent later, by
 * cmd_pending_done() or cmd_pending_fail().
 */
typedef int cmd_fn(struct cmd_ctx *ctx);

#define CMD_DEFERRED	1

/*
 * A reply owed by a command that finishes off the loop (a backup, a
 * fetch): it keeps the request's id, the peer's uid and a summary of the request
 * for the audit trail, and finds its connection again by serial, so a
 * client that went away meanwhile loses only its reply.  The connection
 * reads no further request until the reply is sent.
 */
struct cmd_pending;

/*
 * Takes over ctx->reply (and the rest of what the reply needs) and holds
 * the connection.  The handler then returns CMD_DEFERRED, and must call
 * exactly one of cmd_pending_done or cmd_pending_fail later, which frees p.
 */
struct cmd_pending *cmd_defer(struct cmd_ctx *ctx);
/* Adds the payload: p's reply[key] = v (stolen, may be NULL), checked. */
int	 cmd_pending_put(struct cmd_pending *p, const char *key, json_t *v);
void	 cmd_pending_done(struct cmd_pending *p);
void	 cmd_pending_fail(struct cmd_pending *p, enum proto_error e,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A ctl_line_cb: arg is the struct server. */
void	cmd_dispatch(struct ctl_conn *conn, char *line, size_t len, void *arg);
/* The handler of the protocol command called name, or NULL. */
cmd_fn	*cmd_find(const char *name);
/* Records an error for the reply and returns -1 for the handler to return. */
int	cmd_fail(struct cmd_ctx *ctx, enum proto_error e, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/*
 * The one check of every json_pack and json_object_set* / json_array_append*
 * result in a reply: status is the call's result (negative, or ok == 0 for
 * a NULL pointer) and what names it for the log.  A failure aborts when
 * BISECTD_STRICT_JSON is set in the environment (make test sets it) and
 * otherwise turns the reply into an `internal` error.  Returns 0 or -1.
 */
int	cmd_json_check(struct cmd_ctx *ctx, int status, const char *what);
/* obj[key] = v through cmd_json_check; v is stolen and may be NULL. */
int	cmd_put(struct cmd_ctx *ctx, json_t *obj, const char *key, json_t *v);
/* Appends v (stolen, may be NULL) to the array a through cmd_json_check. */
int	cmd_append(struct cmd_ctx *ctx, json_t *a, json_t *v);

#endif
