/* SPDX-License-Identifier: MIT */
/*
 * The one check of a bisect request that walks history, done on the
 * thread pool before anything is stored: a good revision that descends
 * from bad leaves nothing to bisect, and the request is refused naming
 * both.  The walk can take a while on a kernel history, so it never runs
 * on the loop; the reply waits for it (cmd_defer).
 */
#ifndef SERVER_CMDBISECT_H
#define SERVER_CMDBISECT_H

#include <sys/types.h>

#include <jansson.h>

#include "server/cmdrepo.h"

struct cmd_ctx;
struct cmd_pending;
struct server;

/*
 * Checks req's revisions in the repository at repo_path on the pool, then
 * on the loop either fails the pending reply with invalid-argument or
 * calls next(srv, pending, req, uid, fetch_rc, fetch_msg).  The pending
 * reply is p, or with ctx (then p is NULL) made by cmd_defer(ctx) once
 * the work is queued, so nothing ever answers before the handler
 * returns.  req is copied.  Returns 0, or -1 when the work cannot be
 * queued (nothing was deferred; the caller goes on without the check).
 */
int	cmdbisect_check(struct server *srv, const char *repo_path,
	    struct cmd_ctx *ctx, struct cmd_pending *p, const json_t *req,
	    uid_t uid, int fetch_rc, const char *fetch_msg,
	    cmdrepo_retry_fn *next);

#endif
