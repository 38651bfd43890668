/* SPDX-License-Identifier: MIT */
/*
 * Builds: one per (commit, benchmark, host group), shared by every
 * bisection, so a commit is built once per group; a failed build is
 * remembered too, so an unbuildable commit is skipped without rebuilding.
 * build_hosts lists every host that keeps a build's artifact.
 */
#include <errno.h>
#include <string.h>

#include "store/store_int.h"

void
store_build_init(struct store_build *b)
{
	memset(b, 0, sizeof(*b));
}

void
store_build_release(struct store_build *b)
{
	store_free_str(b->commit);
	store_free_str(b->benchmark);
	store_free_str(b->group);
	store_free_str(b->host);
	store_free_str(b->artifact);
	store_free_str(b->checksum);
	store_build_init(b);
}

int
store_build_lookup(struct store *s, const char *commit, const char *benchmark,
    const char *group, struct store_build *b, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	st = store_stmt(s, STMT_BUILD_GET);
	store_bind_text(st, 1, commit);
	store_bind_text(st, 2, benchmark);
	store_bind_text(st, 3, group);
	if ((error = store_row(s, st, err, "build of %s for %s on %s", commit,
	    benchmark, group)) != 0)
		return error;
	store_build_init(b);
	b->id = sqlite3_column_int64(st, 0);
	b->commit = store_col_text(st, 1);
	b->benchmark = store_col_text(st, 2);
	b->group = store_col_text(st, 3);
	b->host = store_col_text(st, 4);
	b->artifact = store_col_text(st, 5);
	b->checksum = store_col_text(st, 6);
	b->state = store_col_enum(st, 7, store_build_state_names,
	    STORE_BUILD_NSTATES);
	b->updated_ms = sqlite3_column_int64(st, 8);
	sqlite3_reset(st);
	return 0;
}

/* An upsert, so a rebuild after a lost artifact replaces the old row. */
int
store_build_record(struct store *s, const struct store_build *b,
    int64_t *idp, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	if (b->commit == NULL || b->benchmark == NULL || b->group == NULL ||
	    (int)b->state < 0 || b->state >= STORE_BUILD_NSTATES)
		return bd_error_set(err, -EINVAL, "store: a build needs a "
		    "commit, a benchmark, a group and a valid state");
	st = store_stmt(s, STMT_BUILD_PUT);
	store_bind_text(st, 1, b->commit);
	store_bind_text(st, 2, b->benchmark);
	store_bind_text(st, 3, b->group);
	store_bind_text(st, 4, b->host);
	store_bind_text(st, 5, b->artifact);
	store_bind_text(st, 6, b->checksum);
	store_bind_text(st, 7, store_build_state_names[b->state]);
	sqlite3_bind_int64(st, 8, store_now_ms());
	if ((error = store_row(s, st, err, "record build")) != 0)
		return error;
	if (idp != NULL)
		*idp = sqlite3_column_int64(st, 0);
	return store_exec(s, st, err, "record build");
}

/* A host that checked and kept the artifact may serve it from now on. */
int
store_build_copy_put(struct store *s, int64_t build,
    const struct store_build_copy *c, struct bd_error *err)
{
	sqlite3_stmt *st;

	if (build <= 0 || c->host == NULL || c->host[0] == '\0' ||
	    c->artifact == NULL)
		return bd_error_set(err, -EINVAL, "store: a kept copy needs a "
		    "build, a host and a path");
	st = store_stmt(s, STMT_BUILD_COPY_PUT);
	sqlite3_bind_int64(st, 1, build);
	store_bind_text(st, 2, c->host);
	store_bind_text(st, 3, c->artifact);
	store_bind_text(st, 4, c->sha256);
	sqlite3_bind_int64(st, 5, store_now_ms());
	return store_exec(s, st, err, "keep a build's copy");
}

/* A copy found gone or different is never offered again. */
int
store_build_copy_forget(struct store *s, int64_t build, const char *host,
    struct bd_error *err)
{
	sqlite3_stmt *st;

	st = store_stmt(s, STMT_BUILD_COPY_DEL);
	sqlite3_bind_int64(st, 1, build);
	store_bind_text(st, 2, host);
	return store_exec(s, st, err, "forget a build's copy");
}

struct store_build_copy_each {
	store_build_copy_cb	 cb;
	void			*arg;
};

/* The row's strings live until the statement steps again. */
static int
store_build_copy_row(void *arg, sqlite3_stmt *st)
{
	struct store_build_copy_each *e = arg;
	struct store_build_copy c;

	c.host = (const char *)sqlite3_column_text(st, 0);
	c.artifact = (const char *)sqlite3_column_text(st, 1);
	c.sha256 = (const char *)sqlite3_column_text(st, 2);
	c.updated_ms = sqlite3_column_int64(st, 3);
	return e->cb(e->arg, &c);
}

/* Newest first, so a lookup tries the copy kept last before older ones. */
int
store_build_copy_list(struct store *s, int64_t build, store_build_copy_cb cb,
    void *arg, struct bd_error *err)
{
	struct store_build_copy_each e = { cb, arg };
	sqlite3_stmt *st;

	st = store_stmt(s, STMT_BUILD_COPY_LIST);
	sqlite3_bind_int64(st, 1, build);
	return store_each(s, st, store_build_copy_row, &e, err,
	    "list a build's copies");
}
