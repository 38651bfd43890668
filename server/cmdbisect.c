/* SPDX-License-Identifier: MIT */
#include <string.h>
#include <stdlib.h>

#include <git2.h>
#include <uv.h>

#include "common/xmalloc.h"
#include "server/cmd.h"
#include "server/cmdbisect.h"
#include "server/server.h"
#include "repo/rev.h"

/* One check on the pool; everything it reads is its own. */
struct cmdbisect {
	uv_work_t		 work;
	struct server		*srv;
	struct cmd_pending	*pending;
	json_t			*req;		/* a copy */
	uid_t			 uid;
	int			 fetch_rc;
	char			*fetch_msg;
	cmdrepo_retry_fn	*next;
	char			*repo_path;
	char			 refused[512];	/* "" when none */
};

/*
 * On a worker thread, with a repository handle of its own.  Revisions
 * that do not resolve are left to the scheduler, which names them.
 */
static void
cmdbisect_work(uv_work_t *w)
{
	struct cmdbisect *c = w->data;
	git_repository *repo = NULL;
	struct bd_error err;
	char gs[GIT_OID_HEXSZ + 1], bs[GIT_OID_HEXSZ + 1];
	git_oid bad, good;
	const char *badrev = json_string_value(json_object_get(c->req, "bad"));
	json_t *v;
	size_t i;

	if (git_repository_open(&repo, c->repo_path) < 0 ||
	    repo_rev_resolve(repo, badrev, &bad, &err) < 0)
		goto out;
	json_array_foreach(json_object_get(c->req, "good"), i, v) {
		if (repo_rev_resolve(repo, json_string_value(v), &good,
		    &err) < 0 || git_oid_equal(&good, &bad) ||
		    git_graph_descendant_of(repo, &good, &bad) != 1)
			continue;
		git_oid_tostr(gs, sizeof(gs), &good);
		git_oid_tostr(bs, sizeof(bs), &bad);
		snprintf(c->refused, sizeof(c->refused), "good %.100s (%.12s) "
		    "descends from bad %.100s (%.12s): nothing to bisect; are "
		    "they swapped?", json_string_value(v), gs, badrev, bs);
		break;
	}
out:
	git_repository_free(repo);
}

/* Back on the loop: refuse, or let the request go on. */
static void
cmdbisect_done(uv_work_t *w, int status)
{
	struct cmdbisect *c = w->data;

	if (status == 0 && c->refused[0] != '\0')
		cmd_pending_fail(c->pending, PROTO_E_INVALID_ARGUMENT, "%s",
		    c->refused);
	else
		c->next(c->srv, c->pending, c->req, c->uid, c->fetch_rc,
		    c->fetch_msg);
	json_decref(c->req);
	free(c->fetch_msg);
	free(c->repo_path);
	free(c);
}

int
cmdbisect_check(struct server *srv, const char *repo_path,
    struct cmd_ctx *ctx, struct cmd_pending *p, const json_t *req,
    uid_t uid, int fetch_rc, const char *fetch_msg, cmdrepo_retry_fn *next)
{
	struct cmdbisect *c;

	if (repo_path == NULL)
		return -1;
	c = xcalloc(1, sizeof(*c));
	c->work.data = c;
	c->srv = srv;
	c->pending = p;
	c->req = json_deep_copy(req);
	c->uid = uid;
	c->fetch_rc = fetch_rc;
	c->fetch_msg = xstrdup(fetch_msg != NULL ? fetch_msg : "");
	c->next = next;
	c->repo_path = xstrdup(repo_path);
	if (uv_queue_work(srv->loop, &c->work, cmdbisect_work,
	    cmdbisect_done) < 0) {
		json_decref(c->req);
		free(c->fetch_msg);
		free(c->repo_path);
		free(c);
		return -1;
	}
	/* The work's callback runs on a later loop turn, never before. */
	if (ctx != NULL)
		c->pending = cmd_defer(ctx);
	return 0;
}
