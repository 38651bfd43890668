/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "repo/rev.h"
#include "sched/bisection.h"
#include "sched/confirm.h"
#include "server/cmdbisect.h"
#include "server/cmdrepo.h"
#include "server/cmdsvc.h"
#include "server/ctl.h"
#include "server/server.h"
#include "server/perm.h"
#include "sched/sched.h"
#include "remote/pool.h"
#include "store/store.h"

/* Library errors map onto protocol codes by their errno. */
static enum proto_error
cmdsvc_code(const struct bd_error *err)
{
	enum proto_error e = PROTO_E_INTERNAL;

	switch (err->code) {
	case -ENOENT:
		e = PROTO_E_NOT_FOUND;
		break;
	case -EINVAL:
	case -ERANGE:
		e = PROTO_E_INVALID_ARGUMENT;
		break;
	case -EALREADY:
	case -EEXIST:
		e = PROTO_E_CONFLICT;
		break;
	}
	return e;
}

static int
cmdsvc_fail(struct cmd_ctx *ctx, const struct bd_error *err)
{
	return cmd_fail(ctx, cmdsvc_code(err), "%s", err->msg);
}

/*
 * A bisection id as the client sent it: ids start at 1, and one the store
 * does not have reads "no bisection N", not the store's own words.
 */
static int
cmdsvc_id_error(int64_t id, int rc, struct bd_error *err)
{
	if (id < 1)
		return bd_error_set(err, -EINVAL, "bisection: ids start at 1, "
		    "not %lld", (long long)id);
	if (rc == -ENOENT)
		return bd_error_set(err, -ENOENT, "no bisection %lld",
		    (long long)id);
	return rc;
}

static struct bisection *
cmdsvc_find(struct cmd_ctx *ctx, struct bd_error *err)
{
	int64_t id = json_integer_value(json_object_get(ctx->req, "bisection"));
	struct bisection *b;

	bd_error_clear(err);
	if (id < 1) {
		cmdsvc_id_error(id, 0, err);
		return NULL;
	}
	if ((b = sched_find(ctx->srv->sched, id, err)) == NULL)
		cmdsvc_id_error(id, err->code ? err->code : -ENOENT, err);
	return b;
}

/*
 * The request's JSON becomes a struct sched_request here and nowhere
 * else; the table has checked every field's type.  good points into req;
 * a revision given twice is kept once, so the graph work per request stays
 * bounded by CMDSVC_GOOD_MAX.
 */
static int
cmdsvc_bisect_request(const json_t *req, uid_t uid, struct sched_request *r,
    const char **good, struct bd_error *err)
{
	json_int_t prio;
	json_t *v;
	size_t i, j;

	memset(r, 0, sizeof(*r));
	json_array_foreach(json_object_get(req, "good"), i, v) {
		for (j = 0; j < r->ngood; j++)
			if (strcmp(good[j], json_string_value(v)) == 0)
				break;
		if (j < r->ngood)
			continue;
		if (r->ngood == CMDSVC_GOOD_MAX)
			return bd_error_set(err, -EINVAL, "good: at most %d "
			    "different revisions", CMDSVC_GOOD_MAX);
		good[r->ngood++] = json_string_value(v);
	}
	r->good = good;
	r->bad = json_string_value(json_object_get(req, "bad"));
	r->benchmark = json_string_value(json_object_get(req, "benchmark"));
	r->metric = json_string_value(json_object_get(req, "metric"));
	r->group = json_string_value(json_object_get(req, "group"));
	if ((v = json_object_get(req, "confidence")) != NULL) {
		r->confidence = json_number_value(v);
		r->has_confidence = 1;
	}
	if ((v = json_object_get(req, "max_samples")) != NULL) {
		r->max_samples = json_integer_value(v);
		r->has_max_samples = 1;
	}
	r->first_parent = json_is_true(json_object_get(req, "first_parent"));
	prio = json_integer_value(json_object_get(req, "priority"));
	if (prio < CMDSVC_PRIORITY_MIN || prio > CMDSVC_PRIORITY_MAX)
		return bd_error_set(err, -EINVAL, "priority: %lld is outside "
		    "%d to %d", (long long)prio, CMDSVC_PRIORITY_MIN,
		    CMDSVC_PRIORITY_MAX);
	r->priority = (int)prio;
	r->uid = uid;
	return 0;
}

/* One bisect request into the scheduler: the id, new or existing. */
static int
cmdsvc_bisect_run(struct server *srv, const json_t *req, uid_t uid,
    int64_t *id, int *existing, struct bd_error *err)
{
	size_t ngood = json_array_size(json_object_get(req, "good"));
	const json_t *fx = json_object_get(req, "fixups");
	const char **good = xcalloc(ngood ? ngood : 1, sizeof(*good));
	const char **fixups = xcalloc(json_array_size(fx) + 1,
	    sizeof(*fixups));
	struct sched_request r;
	json_t *v;
	size_t i;
	int rc;

	bd_error_clear(err);
	*id = 0;
	*existing = 0;
	if ((rc = cmdsvc_bisect_request(req, uid, &r, good, err)) == 0) {
		json_array_foreach(fx, i, v)
			fixups[r.nfixups++] = json_string_value(v);
		r.fixups = fixups;
		rc = sched_bisect(srv->sched, &r, id, existing, err);
	}
	free(fixups);
	free(good);
	return rc;
}

/* fetch_rc when no fetch was waited for. */
#define CMDSVC_NO_FETCH	1

/*
 * After the ancestry check (and the fetch a request may have waited for):
 * the revisions resolve now, or the error names the one still missing
 * (and the fetch's failure).
 */
static void
cmdsvc_bisect_finish(struct server *srv, struct cmd_pending *p,
    const json_t *req, uid_t uid, int fetch_rc, const char *fetch_msg)
{
	struct bd_error err;
	int64_t id;
	int existing;

	if (cmdsvc_bisect_run(srv, req, uid, &id, &existing, &err) == 0) {
		cmd_pending_put(p, "bisection", json_integer(id));
		cmd_pending_put(p, "existing", json_boolean(existing));
		cmd_pending_done(p);
	}
	else if (fetch_rc == CMDSVC_NO_FETCH)
		cmd_pending_fail(p, cmdsvc_code(&err), "%s", err.msg);
	else if (fetch_rc < 0)
		cmd_pending_fail(p, cmdsvc_code(&err), "%s (after a failed "
		    "fetch: %s)", err.msg, fetch_msg);
	else
		cmd_pending_fail(p, cmdsvc_code(&err), "%s (even after a "
		    "fetch)", err.msg);
}

/* The ancestry check on the pool, then the rest (or the rest at once). */
static void
cmdsvc_bisect_checked(struct server *srv, struct cmd_pending *p,
    const json_t *req, uid_t uid, int fetch_rc, const char *fetch_msg)
{
	if (cmdbisect_check(srv, server_config(srv)->repo.path, NULL, p, req, uid, fetch_rc,
	    fetch_msg, cmdsvc_bisect_finish) < 0)
		cmdsvc_bisect_finish(srv, p, req, uid, fetch_rc, fetch_msg);
}

/*
 * Validated up front; the reply carries the id, new or existing.  A
 * revision the mirror lacks makes the reply wait for a fetch, and every
 * request waits for the ancestry check (cmdbisect.h) before it is stored.
 */
int
cmdsvc_bisect(struct cmd_ctx *ctx)
{
	struct bd_error err;
	int64_t id;
	int existing, rc;

	if ((rc = cmdrepo_wait_revisions(ctx, cmdsvc_bisect_checked)) != 0)
		return rc;
	if (cmdbisect_check(ctx->srv, server_config(ctx->srv)->repo.path, ctx, NULL,
	    ctx->req, ctx->conn->uid, CMDSVC_NO_FETCH, NULL,
	    cmdsvc_bisect_finish) == 0)
		return CMD_DEFERRED;
	if (cmdsvc_bisect_run(ctx->srv, ctx->req, ctx->conn->uid, &id,
	    &existing, &err) < 0)
		return cmdsvc_fail(ctx, &err);
	cmd_put(ctx, ctx->reply, "bisection", json_integer(id));
	cmd_put(ctx, ctx->reply, "existing", json_boolean(existing));
	return 0;
}

struct cmdsvc_list {
	struct cmd_ctx	*ctx;
	json_t		*list;
};

/* One row of list; a value that cannot be built fails the whole reply. */
static int
cmdsvc_list_one(void *arg, const struct store_bisection *b)
{
	struct cmdsvc_list *l = arg;
	json_t *good = json_array();
	int64_t parent = bisection_params_parent(b->params);
	size_t i;

	for (i = 0; i < b->ngood; i++)
		cmd_append(l->ctx, good, json_string(b->good[i]));
	cmd_append(l->ctx, l->list, json_pack("{s:I, s:o, s:s, s:s, s:s, "
	    "s:s, s:s?, s:s, s:o, s:o, s:I}", "id", (json_int_t)b->id,
	    "parent", parent ? json_integer(parent) : json_null(),
	    "state", store_bisection_state_name(b->state),
	    "verdict", store_verdict_name(b->verdict),
	    "benchmark", b->benchmark, "metric", b->metric,
	    "group", b->group, "bad", b->bad, "good", good,
	    "culprit", b->culprit ? json_string(b->culprit) : json_null(),
	    "created_ms", (json_int_t)b->created_ms));
	return 0;
}

/* Rows by id: ids grow with creation, so this is oldest first. */
static int
cmdsvc_by_id(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a,
	    "id"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b,
	    "id"));

	return x < y ? -1 : x > y;
}

/*
 * Oldest first, as documented: the store lists in scheduling order
 * (priority first), which startup needs and a reader does not.
 */
static void
cmdsvc_oldest_first(json_t *list)
{
	size_t i, n = json_array_size(list);
	json_t **rows = xcalloc(n ? n : 1, sizeof(*rows));

	for (i = 0; i < n; i++)
		rows[i] = json_incref(json_array_get(list, i));
	qsort(rows, n, sizeof(*rows), cmdsvc_by_id);
	json_array_clear(list);
	for (i = 0; i < n; i++)
		json_array_append_new(list, rows[i]);
	free(rows);
}

int
cmdsvc_list(struct cmd_ctx *ctx)
{
	json_t *list = json_array(), *b;
	struct cmdsvc_list l = { .ctx = ctx, .list = list };
	struct store_bisection_stats bs;
	struct bd_error err;
	size_t i;

	if (store_bisection_list(ctx->srv->store, ~0u, cmdsvc_list_one, &l,
	    &err) < 0) {
		json_decref(list);
		return cmdsvc_fail(ctx, &err);
	}
	cmdsvc_oldest_first(list);
	/* Counts come after the listing: store callbacks may not nest. */
	json_array_foreach(list, i, b) {
		memset(&bs, 0, sizeof(bs));
		store_bisection_stats(ctx->srv->store, json_integer_value(
		    json_object_get(b, "id")), &bs, &err);
		cmd_put(ctx, b, "samples",
		    json_integer(bs.runs[STORE_RUN_DONE]));
	}
	cmd_put(ctx, ctx->reply, "bisections", list);
	return 0;
}

int
cmdsvc_status(struct cmd_ctx *ctx)
{
	struct bisection *b;
	struct bd_error err;

	if (json_object_get(ctx->req, "bisection") == NULL)
		return cmdsvc_list(ctx);
	if ((b = cmdsvc_find(ctx, &err)) == NULL)
		return cmdsvc_fail(ctx, &err);
	cmd_put(ctx, ctx->reply, "bisection", bisection_status_json(b,
	    ctx->srv->store, sched_repo(ctx->srv->sched)));
	return 0;
}

/*
 * Operators act on their own work: a bisection another uid started is
 * changed only by an admin (cmdsvc_owner); the refusal names both uids.
 */
static int
cmdsvc_owner(struct cmd_ctx *ctx, const struct bisection *b)
{
	uid_t owner = (uid_t)b->rec.created_by;

	if (perm_owner(server_config(ctx->srv)->daemon.admin_group, ctx->conn->uid, owner))
		return 0;
	return cmd_fail(ctx, PROTO_E_PERMISSION_DENIED, "%s: bisection %lld "
	    "was started by uid %u, not %u: only root and members of "
	    "admin_group%s%s may act on another uid's bisection",
	    ctx->row->name, (long long)b->id, (unsigned)owner,
	    (unsigned)ctx->conn->uid,
	    server_config(ctx->srv)->daemon.admin_group ? " " : " (unset)",
	    server_config(ctx->srv)->daemon.admin_group ? server_config(ctx->srv)->daemon.admin_group :
	    "");
}

int
cmdsvc_cancel(struct cmd_ctx *ctx)
{
	int64_t id = json_integer_value(json_object_get(ctx->req, "bisection"));
	struct bisection *b;
	struct bd_error err;

	if ((b = cmdsvc_find(ctx, &err)) == NULL)
		return cmdsvc_fail(ctx, &err);
	if (cmdsvc_owner(ctx, b) < 0)
		return -1;
	if (sched_cancel(ctx->srv->sched, id, &err) < 0)
		return cmdsvc_fail(ctx, &err);
	cmd_put(ctx, ctx->reply, "cancelled", json_true());
	return 0;
}

/*
 * Like bisect, new work that changes nothing of the bisection's own: any
 * operator may ask for it, whoever started the bisection.
 */
int
cmdsvc_verify(struct cmd_ctx *ctx)
{
	const char *group = json_string_value(json_object_get(ctx->req, "on"));
	struct bisection *b;
	struct bd_error err;
	int64_t child;
	int existing;

	if ((b = cmdsvc_find(ctx, &err)) == NULL)
		return cmdsvc_fail(ctx, &err);
	if (confirm_request(ctx->srv->sched, b, group, ctx->conn->uid, &child,
	    &existing, &err) < 0)
		return cmdsvc_fail(ctx, &err);
	cmd_put(ctx, ctx->reply, "child", json_integer(child));
	cmd_put(ctx, ctx->reply, "existing", json_boolean(existing));
	return 0;
}

/* A finished bisection from before a restart has its log in the report. */
int
cmdsvc_log(struct cmd_ctx *ctx)
{
	struct bisection *b;
	struct bd_error err;
	char *text = NULL, *jtext = NULL;
	json_t *j, *lines;

	if ((b = cmdsvc_find(ctx, &err)) == NULL)
		return cmdsvc_fail(ctx, &err);
	if (!b->engine_ready &&
	    store_report_get(ctx->srv->store, b->id, &text, &jtext, &err) == 0 &&
	    jtext != NULL && (j = json_loads(jtext, 0, NULL)) != NULL) {
		lines = json_object_get(j, "bisect_log");
		cmd_put(ctx, ctx->reply, "lines", lines ? json_incref(lines) :
		    json_array());
		json_decref(j);
	} else
		cmd_put(ctx, ctx->reply, "lines", bisection_log_json(b,
		    ctx->srv->store, sched_repo(ctx->srv->sched)));
	free(text);
	free(jtext);
	return 0;
}

static int
cmdsvc_sample_one(void *arg, const struct store_sample *sm)
{
	struct cmdsvc_list *l = arg;

	cmd_append(l->ctx, l->list, json_pack("{s:I, s:s, s:s, s:s, s:I, s:f, "
	    "s:i, s:I, s:I}", "run", (json_int_t)sm->run, "commit",
	    sm->commit, "host", sm->host ? sm->host : "", "metric",
	    sm->metric, "index", (json_int_t)sm->index, "value", sm->value,
	    "attempt", sm->attempt, "seq", (json_int_t)sm->seq,
	    "reused_from", (json_int_t)sm->reused_from));
	return 0;
}

/*
 * samples --commit takes any revision (an abbreviated sha, a tag) as git
 * does; the store keeps full shas, so it is resolved first.  Without a
 * repository yet, the text is matched as it is.
 */
static int
cmdsvc_samples_commit(struct server *srv, const char **commit,
    char sha[GIT_OID_HEXSZ + 1], struct bd_error *err)
{
	struct bd_error gerr;
	git_oid oid;
	int rc;

	if (*commit == NULL || srv->repo == NULL)
		return 0;
	if ((rc = repo_rev_resolve(srv->repo, *commit, &oid, &gerr)) < 0)
		return bd_error_set(err, rc, "commit: %s", gerr.msg);
	git_oid_tostr(sha, GIT_OID_HEXSZ + 1, &oid);
	*commit = sha;
	return 0;
}

int
cmdsvc_samples(struct cmd_ctx *ctx)
{
	int64_t id = json_integer_value(json_object_get(ctx->req, "bisection"));
	const char *commit = json_string_value(json_object_get(ctx->req,
	    "commit"));
	char sha[GIT_OID_HEXSZ + 1];
	struct store_bisection rec;
	struct cmdsvc_list l;
	json_t *list;
	struct bd_error err;

	store_bisection_init(&rec);
	if (id < 1 || store_bisection_get(ctx->srv->store, id, &rec, &err) < 0) {
		cmdsvc_id_error(id, id < 1 ? 0 : err.code, &err);
		return cmdsvc_fail(ctx, &err);
	}
	store_bisection_release(&rec);
	if (cmdsvc_samples_commit(ctx->srv, &commit, sha, &err) < 0)
		return cmdsvc_fail(ctx, &err);
	list = json_array();
	l.ctx = ctx;
	l.list = list;
	if (store_sample_list(ctx->srv->store, id, commit, cmdsvc_sample_one,
	    &l, &err) < 0) {
		json_decref(list);
		return cmdsvc_fail(ctx, &err);
	}
	cmd_put(ctx, ctx->reply, "samples", list);
	return 0;
}

static int
cmdsvc_drain_common(struct cmd_ctx *ctx, int drain)
{
	const char *host = json_string_value(json_object_get(ctx->req, "host"));
	struct pool *p = sched_pool(ctx->srv->sched);
	struct pool_host *h = p ? pool_find(p, host) : NULL;
	int rc;

	if (h == NULL)
		return cmd_fail(ctx, PROTO_E_NOT_FOUND, "no host %s", host);
	rc = drain ? pool_drain(p, host) : pool_undrain(p, host);
	if (rc == -EALREADY)
		return cmd_fail(ctx, PROTO_E_CONFLICT, "host %s is already "
		    "draining", host);
	if (rc < 0)
		return cmd_fail(ctx, PROTO_E_CONFLICT, "%s %s: %s",
		    drain ? "drain" : "undrain", host, strerror(-rc));
	cmd_put(ctx, ctx->reply, "host", json_string(host));
	cmd_put(ctx, ctx->reply, "state",
	    json_string(pool_health_name(pool_host_health(h))));
	ctx->srv->event(ctx->srv->arg, "host", json_pack("{s:s, s:s}", "host", host,
	    "state", pool_health_name(pool_host_health(h))));
	if (!drain)
		sched_kick(ctx->srv->sched);
	return 0;
}

int
cmdsvc_drain(struct cmd_ctx *ctx)
{
	return cmdsvc_drain_common(ctx, 1);
}

int
cmdsvc_undrain(struct cmd_ctx *ctx)
{
	return cmdsvc_drain_common(ctx, 0);
}

/* The reply comes first; events follow on the same connection. */
int
cmdsvc_watch(struct cmd_ctx *ctx)
{
	ctx->conn->subscriptions |= CTL_SUB_EVENTS;
	cmd_put(ctx, ctx->reply, "watching", json_true());
	return 0;
}

int
cmdsvc_report(struct cmd_ctx *ctx)
{
	int64_t id = json_integer_value(json_object_get(ctx->req, "bisection"));
	char *text = NULL, *jtext = NULL;
	struct bd_error err;
	json_t *j;

	if (store_report_get(ctx->srv->store, id, &text, &jtext, &err) < 0) {
		if (err.code == -ENOENT)
			return cmd_fail(ctx, PROTO_E_NOT_FOUND, "bisection %lld "
			    "has no report yet", (long long)id);
		return cmdsvc_fail(ctx, &err);
	}
	j = jtext ? json_loads(jtext, 0, NULL) : NULL;
	/* Ids are integers; a report stored by an older daemon has text. */
	if (json_is_object(j))
		json_object_set_new(j, "id", json_integer(id));
	cmd_put(ctx, ctx->reply, "text", json_string(text ? text : ""));
	cmd_put(ctx, ctx->reply, "report", j ? j : json_null());
	free(text);
	free(jtext);
	return 0;
}
