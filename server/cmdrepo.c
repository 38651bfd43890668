/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "common/xmalloc.h"
#include "server/cmdrepo.h"
#include "server/ctl.h"
#include "server/server.h"
#include "sweep/sweep.h"
#include "sweep/watcher.h"
#include "repo/rev.h"

/* A reply waiting for a fetch: fetch --wait, or a bisect request. */
struct cmdrepo_wait {
	struct cmd_pending	*pending;
	struct server		*srv;
	json_t			*req;		/* a copy, for the retry */
	cmdrepo_retry_fn	*retry;		/* NULL: fetch --wait */
	uid_t			 uid;		/* who asked */
};

/* The mirror's state; with since, the ref events after that seq too. */
int
cmdrepo_repo(struct cmd_ctx *ctx)
{
	json_t *since = json_object_get(ctx->req, "since");

	cmd_put(ctx, ctx->reply, "repo", watcher_state(ctx->srv->watcher));
	if (since != NULL)
		cmd_put(ctx, ctx->reply, "events", watcher_events(
		    ctx->srv->watcher, json_integer_value(since)));
	return 0;
}

/* The fetch ended: reply with its outcome and the state after it. */
static void
cmdrepo_fetched(void *arg, int rc, const char *msg)
{
	struct cmdrepo_wait *w = arg;

	if (w->retry != NULL)
		w->retry(w->srv, w->pending, w->req, w->uid, rc, msg);
	else if (rc < 0)
		cmd_pending_fail(w->pending, PROTO_E_INTERNAL, "%s", msg);
	else {
		cmd_pending_put(w->pending, "repo",
		    watcher_state(w->srv->watcher));
		cmd_pending_done(w->pending);
	}
	json_decref(w->req);
	free(w);
}

/* Starts (or joins) a fetch; the reply waits when wait is set. */
int
cmdrepo_fetch(struct cmd_ctx *ctx)
{
	int wait = json_is_true(json_object_get(ctx->req, "wait"));
	struct cmdrepo_wait *w;
	struct bd_error err;

	if (!wait) {
		if (watcher_fetch(ctx->srv->watcher, NULL, NULL, &err) < 0)
			return cmd_fail(ctx, err.code == -ENOTSUP ?
			    PROTO_E_CONFLICT : PROTO_E_INTERNAL, "%s",
			    err.msg);
		cmd_put(ctx, ctx->reply, "fetching", json_true());
		return 0;
	}
	w = xcalloc(1, sizeof(*w));
	w->srv = ctx->srv;
	if (watcher_fetch(ctx->srv->watcher, cmdrepo_fetched, w, &err) < 0) {
		free(w);
		return cmd_fail(ctx, err.code == -ENOTSUP ? PROTO_E_CONFLICT :
		    PROTO_E_INTERNAL, "%s", err.msg);
	}
	w->pending = cmd_defer(ctx);
	return CMD_DEFERRED;
}

/* Whether the daemon's repository resolves rev. */
static int
cmdrepo_has(struct server *srv, const char *rev)
{
	git_oid oid;

	return srv->repo != NULL && rev != NULL &&
	    repo_rev_resolve(srv->repo, rev, &oid, NULL) == 0;
}

int
cmdrepo_wait_revisions(struct cmd_ctx *ctx, cmdrepo_retry_fn *retry)
{
	const json_t *good = json_object_get(ctx->req, "good");
	struct cmdrepo_wait *w;
	struct bd_error err;
	json_t *v;
	size_t i;
	int missing;

	if (server_config(ctx->srv)->repo.url == NULL)
		return 0;
	missing = !cmdrepo_has(ctx->srv, json_string_value(json_object_get(
	    ctx->req, "bad")));
	json_array_foreach(good, i, v)
		missing |= !cmdrepo_has(ctx->srv, json_string_value(v));
	if (!missing)
		return 0;
	w = xcalloc(1, sizeof(*w));
	w->srv = ctx->srv;
	w->retry = retry;
	w->uid = ctx->conn->uid;
	w->req = json_deep_copy(ctx->req);
	if (watcher_fetch(ctx->srv->watcher, cmdrepo_fetched, w, &err) < 0) {
		json_decref(w->req);
		free(w);
		return 0;
	}
	w->pending = cmd_defer(ctx);
	return CMD_DEFERRED;
}

/* Each sweep's last ref, state, next run and changes found. */
int
cmdrepo_sweeps(struct cmd_ctx *ctx)
{
	struct bd_error err;
	json_t *r = sweeper_list(ctx->srv->sweeper, &err);

	if (r == NULL)
		return cmd_fail(ctx, PROTO_E_INTERNAL, "%s", err.msg);
	json_object_update(ctx->reply, r);
	json_decref(r);
	return 0;
}

/* One sweep and its refs; with now, the newest matching ref is queued. */
int
cmdrepo_sweep(struct cmd_ctx *ctx)
{
	const char *name = json_string_value(json_object_get(ctx->req, "name"));
	struct bd_error err;
	json_t *r;

	if (json_is_true(json_object_get(ctx->req, "now")) &&
	    sweeper_now(ctx->srv->sweeper, name, &err) < 0)
		return cmd_fail(ctx, err.code == -ENOENT ?
		    PROTO_E_INVALID_ARGUMENT : PROTO_E_INTERNAL, "%s", err.msg);
	if ((r = sweeper_show(ctx->srv->sweeper, name, &err)) == NULL)
		return cmd_fail(ctx, err.code == -ENOENT ?
		    PROTO_E_INVALID_ARGUMENT : PROTO_E_INTERNAL, "%s", err.msg);
	json_object_update(ctx->reply, r);
	json_decref(r);
	return 0;
}
