/* SPDX-License-Identifier: MIT */
/*
 * Builds: one per (commit, benchmark, host group), shared by every
 * bisection, so a commit is built once per group; a failed build is
 * remembered too, so an unbuildable commit is skipped without rebuilding.
 */
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
