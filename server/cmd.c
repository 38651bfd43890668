/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "server/audit.h"
#include "server/cmd.h"
#include "server/cmdops.h"
#include "server/cmdrepo.h"
#include "server/cmdsvc.h"
#include "server/ctl.h"
#include "server/server.h"
#include "server/perm.h"
#include "common/log.h"
#include "sched/sched.h"
#include "remote/lava.h"
#include "remote/pool.h"
#include "store/store.h"

static cmd_fn	cmd_ping;
static cmd_fn	cmd_version;
static cmd_fn	cmd_config;
static cmd_fn	cmd_hosts;
static cmd_fn	cmd_reload;

/*
 * The handler of every command; common/proto_cmd.c has the rest of each
 * row (fields, flags) and docs/protocol.md describes them.
 */
static cmd_fn *const cmd_handlers[PROTO_CMD_COUNT] = {
	[PROTO_CMD_PING] = cmd_ping,
	[PROTO_CMD_VERSION] = cmd_version,
	[PROTO_CMD_CONFIG] = cmd_config,
	[PROTO_CMD_HOSTS] = cmd_hosts,
	[PROTO_CMD_RELOAD] = cmd_reload,
	[PROTO_CMD_BACKUP] = cmdops_backup,
	[PROTO_CMD_REPO] = cmdrepo_repo,
	[PROTO_CMD_FETCH] = cmdrepo_fetch,
	[PROTO_CMD_BISECT] = cmdsvc_bisect,
	[PROTO_CMD_STATUS] = cmdsvc_status,
	[PROTO_CMD_LIST] = cmdsvc_list,
	[PROTO_CMD_CANCEL] = cmdsvc_cancel,
	[PROTO_CMD_VERIFY] = cmdsvc_verify,
	[PROTO_CMD_LOG] = cmdsvc_log,
	[PROTO_CMD_SAMPLES] = cmdsvc_samples,
	[PROTO_CMD_DRAIN] = cmdsvc_drain,
	[PROTO_CMD_UNDRAIN] = cmdsvc_undrain,
	[PROTO_CMD_WATCH] = cmdsvc_watch,
	[PROTO_CMD_REPORT] = cmdsvc_report,
	[PROTO_CMD_SWEEPS] = cmdrepo_sweeps,
	[PROTO_CMD_SWEEP] = cmdrepo_sweep,
};

/* The protocol table names the commands; this adds who answers them. */
cmd_fn *
cmd_find(const char *name)
{
	int id = proto_cmd_find(name);

	return id < 0 ? NULL : cmd_handlers[id];
}

/*
 * Error replies go to any local client and speak to a person: the store's
 * own prefix ("store /var/lib/bisectd/state.db: list samples: ...") and
 * the database path stay internal (store_scrub), a failure of the
 * database itself is said in words with the details kept for the
 * daemon's log, and a character cut by the buffer is dropped.
 */
static void
cmd_scrub(const struct server *srv, enum proto_error e, char *msg,
    size_t size)
{
	const char *db = srv != NULL ? server_config(srv)->daemon.database : NULL;
	char *orig = xstrdup(msg), *rest;

	if (store_scrub(db, msg, size) && e == PROTO_E_INTERNAL) {
		log_warnx("request failed: %s", orig);
		rest = xstrdup(msg);
		snprintf(msg, size, "the daemon's database failed (%s); its "
		    "log has the details", rest);
		free(rest);
	}
	free(orig);
	bd_utf8_fix(msg);
}

/* Loud in test builds, an `internal` reply in production. */
static void
cmd_json_broken(const char *what)
{
	log_warnx("cannot build the reply: %s", what);
	if (getenv("BISECTD_STRICT_JSON") != NULL)
		abort();
}

/* Handlers fail through one function so every error has a code and text. */
int
cmd_fail(struct cmd_ctx *ctx, enum proto_error e, const char *fmt, ...)
{
	va_list ap;

	ctx->error = e;
	va_start(ap, fmt);
	vsnprintf(ctx->message, sizeof(ctx->message), fmt, ap);
	va_end(ap);
	cmd_scrub(ctx->srv, e, ctx->message, sizeof(ctx->message));
	return -1;
}

int
cmd_json_check(struct cmd_ctx *ctx, int status, const char *what)
{
	if (status >= 0)
		return 0;
	cmd_json_broken(what);
	ctx->broken = 1;
	return -1;
}

int
cmd_put(struct cmd_ctx *ctx, json_t *obj, const char *key, json_t *v)
{
	if (v == NULL)
		return cmd_json_check(ctx, -1, key);
	return cmd_json_check(ctx, json_object_set_new(obj, key, v), key);
}

int
cmd_append(struct cmd_ctx *ctx, json_t *a, json_t *v)
{
	if (v == NULL)
		return cmd_json_check(ctx, -1, "an array element");
	return cmd_json_check(ctx, json_array_append_new(a, v),
	    "an array element");
}

/* The cheapest way for a client or a test to see the daemon answer. */
static int
cmd_ping(struct cmd_ctx *ctx)
{
	cmd_put(ctx, ctx->reply, "pong", json_true());
	return 0;
}

/* Lets a client check what it talks to, and tests which process. */
static int
cmd_version(struct cmd_ctx *ctx)
{
	int64_t up = (ctx->srv->now_ms() - ctx->srv->started_ms) / 1000;

	cmd_put(ctx, ctx->reply, "version", json_string(BISECTD_VERSION));
	cmd_put(ctx, ctx->reply, "protocol", json_integer(PROTO_VERSION));
	cmd_put(ctx, ctx->reply, "pid", json_integer(getpid()));
	cmd_put(ctx, ctx->reply, "uptime_s", json_integer(up));
	return 0;
}

/* Shows what the daemon really uses: defaults filled, secrets left out. */
static int
cmd_config(struct cmd_ctx *ctx)
{
	json_t *c = config_to_json(server_config(ctx->srv));

	if (c == NULL)
		return cmd_fail(ctx, PROTO_E_INTERNAL,
		    "cannot encode the configuration");
	cmd_put(ctx, ctx->reply, "config", c);
	return 0;
}

/* The pool's view of a host; a host added by a reload is not in it yet. */
static int
cmd_host_info(const struct server *srv, const struct config_host *h,
    struct pool_host_info *hi)
{
	struct pool *p = srv->sched ? sched_pool(srv->sched) : NULL;
	size_t i;

	for (i = 0; p != NULL && i < pool_count(p); i++) {
		pool_info(p, i, hi);
		if (strcmp(hi->name, h->name) == 0)
			return 0;
	}
	return -ENOENT;
}

/* Role bits as the configuration file spells them. */
static json_t *
cmd_host_roles(unsigned roles)
{
	const struct name_value *r;
	json_t *a = json_array();

	for (r = config_role_words; r->name != NULL; r++)
		if (roles & (unsigned)r->value)
			json_array_append_new(a, json_string(r->name));
	return a;
}

/*
 * One host as the protocol shows it: the pool supplies its health
 * ("unknown" until a restart puts a reloaded host in the pool), its
 * failures and the work it does now.
 */
static json_t *
cmd_host_json(struct cmd_ctx *ctx, const struct config_host *h)
{
	const struct server *srv = ctx->srv;
	struct pool_host_info hi;
	int known = cmd_host_info(srv, h, &hi) == 0;
	json_t *o = json_pack("{s:s, s:s, s:I, s:s, s:o, s:s}",
	    "name", h->name, "address", h->address, "port", (json_int_t)h->port,
	    "group", h->group ? h->group : "", "roles", cmd_host_roles(h->roles),
	    "state", known ? pool_health_name(hi.health) : "unknown");
	json_t *cur = srv->sched ? sched_host_current(srv->sched, h->name) : NULL;

	if (o == NULL) {
		json_decref(cur);
		return NULL;
	}
	cmd_put(ctx, o, "current", cur ? cur : json_null());
	if (known) {
		cmd_put(ctx, o, "infra_failures",
		    json_integer(hi.infra_failures));
		cmd_put(ctx, o, "leased", json_boolean(hi.leased));
		cmd_put(ctx, o, "last_error", json_string(hi.last_error));
		cmd_put(ctx, o, "last_error_ms", hi.last_error_ms ?
		    json_integer(hi.last_error_ms) : json_null());
		cmd_put(ctx, o, "receives", hi.receives ?
		    json_string(hi.receives) : json_null());
		cmd_put(ctx, o, "copy_failures",
		    json_integer(hi.copy_failures));
		cmd_put(ctx, o, "copy_error", json_string(hi.copy_error));
	}
	return o;
}

/* Each lab group: where it is, its jobs and its health. */
static json_t *
cmd_labs_json(struct cmd_ctx *ctx, const char *want)
{
	const struct server *srv = ctx->srv;
	struct backend *const *labs;
	struct lava_info li;
	json_t *a = json_array();
	size_t i, n = srv->sched ? sched_labs(srv->sched, &labs) : 0;

	for (i = 0; i < n; i++) {
		const struct config_lab *cl;

		lava_info(labs[i], &li);
		if (want != NULL && strcmp(want, li.group) != 0)
			continue;
		cl = config_lab_find(server_config(srv), li.name);
		if (cmd_append(ctx, a, json_pack("{s:s, s:s, s:s, s:s, "
		    "s:s, s:I, s:I, s:I, s:s, s:s, s:o}", "name", li.name,
		    "type", "lava", "url", li.url, "device_type",
		    li.device_type, "group", li.group,
		    "queued", (json_int_t)li.queued,
		    "running", (json_int_t)li.running,
		    "max_jobs", (json_int_t)li.max_jobs,
		    "health", name_of(lava_health_words, li.health),
		    "last_error", li.last_error, "build_group",
		    cl != NULL && cl->build_group != NULL ?
		    json_string(cl->build_group) : json_null())) < 0)
			break;
	}
	return a;
}

/* The fleet as configured; the optional group narrows it. */
static int
cmd_hosts(struct cmd_ctx *ctx)
{
	const struct config *cfg = server_config(ctx->srv);
	json_t *group = json_object_get(ctx->req, "group");
	const char *want = group ? json_string_value(group) : NULL;
	json_t *hosts = json_array(), *h;
	size_t i;

	for (i = 0; i < cfg->nhosts; i++) {
		if (want != NULL && (cfg->hosts[i].group == NULL ||
		    strcmp(cfg->hosts[i].group, want) != 0))
			continue;
		h = cmd_host_json(ctx, &cfg->hosts[i]);
		if (cmd_append(ctx, hosts, h) < 0)
			break;
	}
	cmd_put(ctx, ctx->reply, "hosts", hosts);
	cmd_put(ctx, ctx->reply, "labs", cmd_labs_json(ctx, want));
	return 0;
}

/* The same reload as SIGHUP, but the caller learns what went wrong. */
static int
cmd_reload(struct cmd_ctx *ctx)
{
	struct config_errors errs = { NULL, 0 };
	json_t *restart = json_array(), *list, *not_applied = json_array();
	size_t i;

	if (ctx->srv->reload(ctx->srv->arg, &errs, restart, not_applied) < 0) {
		list = json_array();
		for (i = 0; i < errs.n; i++)
			json_array_append_new(list, json_string(errs.msgs[i]));
		ctx->detail = json_pack("{s:o}", "errors", list);
		cmd_fail(ctx, PROTO_E_INVALID_CONFIG,
		    "%zu error%s in the configuration file; the old "
		    "configuration stays", errs.n, errs.n == 1 ? "" : "s");
		config_errors_release(&errs);
		json_decref(restart);
		json_decref(not_applied);
		return -1;
	}
	config_errors_release(&errs);
	cmd_put(ctx, ctx->reply, "reloaded", json_true());
	cmd_put(ctx, ctx->reply, "restart_needed", restart);
	cmd_put(ctx, ctx->reply, "not_applied", not_applied);
	return 0;
}

/*
 * Finds the command and checks the fields its row declares before a
 * handler runs, so handlers may take their fields' types for granted.
 */
static int
cmd_check(struct cmd_ctx *ctx, int *idp)
{
	struct bd_error err;
	enum proto_error code;
	json_t *cmd;

	cmd = json_object_get(ctx->req, "cmd");
	if (cmd == NULL)
		return cmd_fail(ctx, PROTO_E_MISSING_FIELD,
		    "field cmd is required");
	if (!json_is_string(cmd))
		return cmd_fail(ctx, PROTO_E_BAD_TYPE,
		    "field cmd must be a string");
	*idp = proto_cmd_find(json_string_value(cmd));
	if (*idp >= 0 && cmd_handlers[*idp] == NULL)
		*idp = -1;	/* a row without a handler: a test catches it */
	if (*idp < 0)
		return cmd_fail(ctx, PROTO_E_UNKNOWN_COMMAND,
		    "unknown command %.64s", json_string_value(cmd));
	if (proto_cmd_changes_state((enum proto_cmd_id)*idp, ctx->req) &&
	    !perm_operator(server_config(ctx->srv)->daemon.operators, ctx->conn->uid))
		return cmd_fail(ctx, PROTO_E_PERMISSION_DENIED, "%s changes "
		    "state: only members of the operators groups (%s) may "
		    "use it", proto_cmd_table[*idp].name,
		    server_config(ctx->srv)->daemon.operators);
	bd_error_clear(&err);
	if (proto_cmd_check((enum proto_cmd_id)*idp, ctx->req, &code,
	    &err) < 0)
		return cmd_fail(ctx, code, "%s", err.msg);
	return 0;
}

/* The audit trail: who asked for what state change, and how it ended. */
static void
cmd_record(struct server *srv, uid_t uid, const struct proto_cmd *e,
    const char *summary, const char *outcome)
{
	audit_retention(srv->audit, server_config(srv)->daemon.audit_keep_ms,
	    server_config(srv)->daemon.audit_max_rows);
	audit_record(srv->audit, srv->store, srv->now_ms(), uid, e->name,
	    summary, outcome);
}

/*
 * One way out for every reply, now or deferred.  A reply that cannot be
 * encoded is a bug, but the daemon keeps serving: the client gets an
 * `internal` error instead.
 */
/* The longest reply sent: half the queue a connection may hold. */
#define CMD_REPLY_MAX	(CTL_OUTPUT_MAX / 2)

static void
cmd_send(struct ctl_conn *conn, const struct proto_cmd *e, json_t *reply,
    const char *rawid)
{
	static const char fallback[] = "{\"ok\":false,\"error\":{\"code\":"
	    "\"internal\",\"message\":\"cannot encode the reply\"}}\n";
	json_t *big;
	char *out;
	size_t outlen;

	if (reply != NULL)
		proto_add_times(reply);
	out = reply != NULL ? proto_encode_id(reply, rawid, &outlen) : NULL;
	if (out == NULL) {
		log_warnx("cannot encode a reply to %s",
		    e ? e->name : "a request");
		if (getenv("BISECTD_STRICT_JSON") != NULL)
			abort();
		ctl_conn_send(conn, fallback, sizeof(fallback) - 1);
		return;
	}
	if (outlen > CMD_REPLY_MAX) {
		/*
		 * A client cannot take it (the connection's queue would
		 * overflow and drop it without a word): say so instead.
		 */
		log_info("a reply to %s of %zu bytes was refused",
		    e ? e->name : "a request", outlen);
		free(out);
		big = proto_reply_error(json_object_get(reply, "id"),
		    PROTO_E_INVALID_ARGUMENT, "the reply would be too large "
		    "for one line; narrow the request (samples: --commit)");
		out = proto_encode_id(big, rawid, &outlen);
		json_decref(big);
		if (out == NULL) {
			ctl_conn_send(conn, fallback, sizeof(fallback) - 1);
			return;
		}
	}
	ctl_conn_send(conn, out, outlen);
	free(out);
}

struct cmd_pending {
	struct server		*owner;		/* what the command acts on */
	struct ctl_server	*srv;
	unsigned		 serial;
	uid_t			 uid;
	const struct proto_cmd	*row;
	json_t			*id;		/* the request's, or NULL */
	json_t			*reply;
	char			*summary;	/* for the audit trail */
	char			 rawid[64];
	int			 broken;	/* a cmd_pending_put failed */
	int			 changes;	/* audited: it changes state */
};

struct cmd_pending *
cmd_defer(struct cmd_ctx *ctx)
{
	struct cmd_pending *p = xcalloc(1, sizeof(*p));

	p->owner = ctx->srv;
	p->srv = ctx->conn->srv;
	p->serial = ctl_conn_hold(ctx->conn);
	p->uid = ctx->conn->uid;
	p->row = ctx->row;
	p->id = json_incref(json_object_get(ctx->req, "id"));
	p->reply = ctx->reply;
	ctx->reply = NULL;
	p->summary = audit_summary(ctx->req);
	p->changes = proto_cmd_changes_state((enum proto_cmd_id)(ctx->row -
	    proto_cmd_table), ctx->req);
	memcpy(p->rawid, ctx->rawid, sizeof(p->rawid));
	return p;
}

/* Sends, records, releases the connection and frees p. */
static void
cmd_pending_finish(struct cmd_pending *p, json_t *reply, const char *outcome)
{
	struct ctl_conn *conn = ctl_server_find(p->srv, p->serial);

	if (p->changes)
		cmd_record(p->owner, p->uid, p->row, p->summary, outcome);
	if (conn != NULL) {
		cmd_send(conn, p->row, reply, p->rawid);
		ctl_conn_unhold(conn);
	} else
		log_debug("uid %u: %s: the client left before its reply",
		    (unsigned)p->uid, p->row->name);
	json_decref(reply);
	json_decref(p->id);
	free(p->summary);
	free(p);
}

int
cmd_pending_put(struct cmd_pending *p, const char *key, json_t *v)
{
	if (v != NULL && json_object_set_new(p->reply, key, v) == 0)
		return 0;
	cmd_json_broken(key);
	p->broken = 1;
	return -1;
}

void
cmd_pending_done(struct cmd_pending *p)
{
	if (p->broken) {
		cmd_pending_fail(p, PROTO_E_INTERNAL,
		    "the daemon could not build the reply");
		return;
	}
	cmd_pending_finish(p, p->reply, "ok");
}

void
cmd_pending_fail(struct cmd_pending *p, enum proto_error e, const char *fmt,
    ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cmd_scrub(p->owner, e, msg, sizeof(msg));
	json_decref(p->reply);
	cmd_pending_finish(p, proto_reply_error(p->id, e, msg),
	    proto_error_code(e));
}

/* A numeric id is echoed as the client wrote it; jansson keeps no text. */
static void
cmd_rawid(struct cmd_ctx *ctx, const json_t *id, const char *line,
    size_t len)
{
	if (id != NULL && json_is_number(id) && proto_raw_number(line, len,
	    "id", ctx->rawid, sizeof(ctx->rawid)) < 0)
		ctx->rawid[0] = '\0';
}

/* Blank lines are ignored so that hand-typed sessions stay friendly. */
static int
cmd_blank(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t')
			return 0;
	return 1;
}

/* Parses, checks, runs and replies; every path ends in exactly one reply. */
void
cmd_dispatch(struct ctl_conn *conn, char *line, size_t len, void *arg)
{
	struct cmd_ctx ctx;
	const struct proto_cmd *e = NULL;
	int cmdid = -1;
	json_error_t jerr;
	json_t *id = NULL, *reply, *eobj;
	char *summary;
	int rc = -1;

	if (cmd_blank(line, len))
		return;
	memset(&ctx, 0, sizeof(ctx));
	ctx.srv = arg;
	ctx.conn = conn;
	ctx.req = json_loadb(line, len, JSON_DECODE_ANY |
	    JSON_REJECT_DUPLICATES, &jerr);
	if (ctx.req == NULL)
		cmd_fail(&ctx, PROTO_E_MALFORMED_JSON,
		    "malformed JSON at byte %d: %s", jerr.position, jerr.text);
	else if (!json_is_object(ctx.req))
		cmd_fail(&ctx, PROTO_E_NOT_AN_OBJECT,
		    "a request is a JSON object");
	else if ((id = json_object_get(ctx.req, "id")) != NULL &&
	    !json_is_string(id) && !json_is_number(id)) {
		id = NULL;
		cmd_fail(&ctx, PROTO_E_BAD_TYPE,
		    "field id must be a string or a number");
	} else if (cmd_rawid(&ctx, id, line, len), cmd_check(&ctx,
	    &cmdid) == 0) {
		ctx.reply = proto_reply_ok(id);
		ctx.row = &proto_cmd_table[cmdid];
		ctx.line = line;
		rc = cmd_handlers[cmdid](&ctx);
	}
	if (cmdid >= 0)
		e = &proto_cmd_table[cmdid];
	if (rc == CMD_DEFERRED) {
		json_decref(ctx.detail);
		json_decref(ctx.req);
		return;
	}
	if (rc == 0 && ctx.broken)
		rc = cmd_fail(&ctx, PROTO_E_INTERNAL, "cannot build the reply "
		    "to %s; see the daemon's log", ctx.row->name);
	if (rc == 0)
		reply = ctx.reply;
	else {
		json_decref(ctx.reply);
		reply = proto_reply_error(id, ctx.error, ctx.message);
		eobj = json_object_get(reply, "error");
		if (ctx.detail != NULL)
			json_object_update(eobj, ctx.detail);
	}
	if (e != NULL && proto_cmd_changes_state((enum proto_cmd_id)cmdid,
	    ctx.req)) {
		summary = audit_summary(ctx.req);
		cmd_record(ctx.srv, conn->uid, e, summary, rc == 0 ? "ok" :
		    proto_error_code(ctx.error));
		free(summary);
	}
	cmd_send(conn, e, reply, ctx.rawid);
	json_decref(reply);
	json_decref(ctx.detail);
	json_decref(ctx.req);
}
