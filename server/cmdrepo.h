/* SPDX-License-Identifier: MIT */
/*
 * Control commands of the mirror: repo (its state) and fetch (now, and
 * with wait until it ends); sweeps and sweep, which follow its refs; and the wait of a bisect request whose
 * revisions the mirror lacks.  Handlers of cmd.c's table; fields in
 * common/proto_cmd.c.
 */
#ifndef SERVER_CMDREPO_H
#define SERVER_CMDREPO_H

#include "server/cmd.h"

cmd_fn	cmdrepo_repo;
cmd_fn	cmdrepo_fetch;
/* The nightly sweeps, which follow the mirror's refs (sweep/sweep.c). */
cmd_fn	cmdrepo_sweeps;
cmd_fn	cmdrepo_sweep;

#include <sys/types.h>

struct server;

/* Runs a request again once the fetch it waited for ends. */
typedef void cmdrepo_retry_fn(struct server *srv, struct cmd_pending *p,
    const json_t *req, uid_t uid, int fetch_rc, const char *fetch_msg);

/*
 * When a revision of a bisect request (bad, good) is not in the mirror
 * and the daemon can fetch: starts a fetch, defers the reply and returns
 * CMD_DEFERRED; retry is called after the fetch with a copy of the
 * request (the callee owns neither).  Otherwise returns 0.
 */
int	cmdrepo_wait_revisions(struct cmd_ctx *ctx, cmdrepo_retry_fn *retry);

#endif
