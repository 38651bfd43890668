/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "server/cmdops.h"
#include "server/server.h"
#include "store/store.h"

/* One backup on the thread pool; the reply waits for it. */
struct cmdops_backup {
	uv_work_t		 work;
	struct cmd_pending	*pending;
	char			*db_path;
	char			*dest;
	uint64_t		 started_ms;
	uint64_t		 took_ms;
	int			 rc;
	struct store_backup_info info;
	struct bd_error		 err;
};

/* Runs on a worker thread: only the job's own fields are touched. */
static void
cmdops_backup_work(uv_work_t *w)
{
	struct cmdops_backup *b = w->data;

	b->rc = store_backup(b->db_path, b->dest, &b->info, &b->err);
}

/*
 * A path the daemon cannot create (it exists, its directory does not, or
 * is not the daemon's to write) is the request's fault, not the daemon's.
 */
static enum proto_error
cmdops_backup_code(int rc)
{
	switch (rc) {
	case -EEXIST:
	case -EINVAL:
	case -ENOENT:
	case -ENOTDIR:
	case -EISDIR:
	case -EACCES:
	case -EROFS:
		return PROTO_E_INVALID_ARGUMENT;
	}
	return PROTO_E_INTERNAL;
}

/* Back on the loop: the reply, the audit record and the log line. */
static void
cmdops_backup_done(uv_work_t *w, int status)
{
	struct cmdops_backup *b = w->data;
	struct cmd_pending *p = b->pending;

	b->took_ms = uv_now(w->loop) - b->started_ms;
	if (status < 0)
		cmd_pending_fail(b->pending, PROTO_E_INTERNAL,
		    "backup was cancelled");
	else if (b->rc < 0)
		cmd_pending_fail(b->pending, cmdops_backup_code(b->rc), "%s",
		    b->err.msg);
	else {
		log_info("backup written to %s (%zu bytes)", b->dest,
		    b->info.bytes);
		cmd_pending_put(p, "path", json_string(b->dest));
		cmd_pending_put(p, "bytes",
		    json_integer((json_int_t)b->info.bytes));
		cmd_pending_put(p, "pages",
		    json_integer((json_int_t)b->info.pages));
		cmd_pending_put(p, "took_ms",
		    json_integer((json_int_t)b->took_ms));
		cmd_pending_done(p);
	}
	free(b->db_path);
	free(b->dest);
	free(b);
}

/*
 * A consistent copy of the database while everything keeps running.  The
 * path is the daemon's: it must be absolute and new, and the daemon's user
 * must be able to write there (under systemd, its StateDirectory).
 */
int
cmdops_backup(struct cmd_ctx *ctx)
{
	const char *path = json_string_value(json_object_get(ctx->req,
	    "path"));
	struct cmdops_backup *b;

	if (path[0] != '/')
		return cmd_fail(ctx, PROTO_E_INVALID_ARGUMENT,
		    "path must be absolute (the daemon's working directory "
		    "is not yours)");
	if (ctx->srv->store == NULL)
		return cmd_fail(ctx, PROTO_E_INTERNAL, "no database is open");
	b = xcalloc(1, sizeof(*b));
	b->db_path = xstrdup(server_config(ctx->srv)->daemon.database);
	b->dest = xstrdup(path);
	b->started_ms = uv_now(ctx->srv->loop);
	b->work.data = b;
	if (uv_queue_work(ctx->srv->loop, &b->work, cmdops_backup_work,
	    cmdops_backup_done) < 0) {
		free(b->db_path);
		free(b->dest);
		free(b);
		return cmd_fail(ctx, PROTO_E_INTERNAL,
		    "cannot start the backup");
	}
	b->pending = cmd_defer(ctx);
	return CMD_DEFERRED;
}
