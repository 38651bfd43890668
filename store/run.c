/* SPDX-License-Identifier: MIT */
/*
 * Runs: one benchmark execution of one commit for one bisection, from
 * queued through running to an end, and the samples it produced.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "common/names.h"
#include "store/store_int.h"

struct store_run_each {
	store_run_cb	 cb;
	void		*arg;
};

void
store_run_init(struct store_run *r)
{
	memset(r, 0, sizeof(*r));
}

void
store_run_release(struct store_run *r)
{
	store_free_str(r->commit);
	store_free_str(r->host);
	store_free_str(r->log_path);
	store_free_str(r->timings);
	store_run_init(r);
}

/* Reads a row of the RUN_COLS columns into r (owned copies). */
static void
store_run_read(sqlite3_stmt *st, struct store_run *r)
{
	store_run_init(r);
	r->id = sqlite3_column_int64(st, 0);
	r->bisection = sqlite3_column_int64(st, 1);
	r->commit = store_col_text(st, 2);
	r->host = store_col_text(st, 3);
	r->state = store_col_enum(st, 4, store_run_state_names,
	    STORE_RUN_NSTATES);
	r->attempt = sqlite3_column_int(st, 5);
	r->build = sqlite3_column_int64(st, 6);
	r->seq = sqlite3_column_int64(st, 7);
	r->queued_ms = sqlite3_column_int64(st, 8);
	r->started_ms = sqlite3_column_int64(st, 9);
	r->finished_ms = sqlite3_column_int64(st, 10);
	r->has_exit = sqlite3_column_type(st, 11) != SQLITE_NULL;
	r->exit_status = sqlite3_column_int(st, 11);
	r->log_path = store_col_text(st, 12);
	r->timings = store_col_text(st, 13);
	r->reused_from = sqlite3_column_int64(st, 14);
}

/*
 * Reads a run's state (and what a retry copies) for the callers that must
 * decide on it or explain why a guarded update matched nothing.
 */
static int
store_run_state(struct store *s, int64_t id, enum store_run_state *statep,
    struct store_run *copy, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	st = store_stmt(s, STMT_RUN_STATE);
	sqlite3_bind_int64(st, 1, id);
	if ((error = store_row(s, st, err, "run %lld", (long long)id)) != 0)
		return error;
	*statep = store_col_enum(st, 0, store_run_state_names,
	    STORE_RUN_NSTATES);
	if (copy != NULL) {
		store_run_init(copy);
		copy->bisection = sqlite3_column_int64(st, 1);
		copy->commit = store_col_text(st, 2);
		copy->attempt = sqlite3_column_int(st, 3);
	}
	sqlite3_reset(st);
	return 0;
}

/* The error for an update that found the run past the state it needs. */
static int
store_run_unchanged(struct store *s, int64_t id, const char *needed,
    struct bd_error *err)
{
	enum store_run_state state;
	int error;

	if ((error = store_run_state(s, id, &state, NULL, err)) != 0)
		return error;
	return bd_error_set(err, -EALREADY, "run %lld is %s, not %s",
	    (long long)id, store_run_state_names[state], needed);
}

/* Inserts a queued run; shared by create and retry. */
static int
store_run_add(struct store *s, int64_t bisection, const char *commit,
    int attempt, int64_t *idp, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	if (commit == NULL || commit[0] == '\0')
		return bd_error_set(err, -EINVAL, "store: a run needs a commit");
	st = store_stmt(s, STMT_RUN_ADD);
	sqlite3_bind_int64(st, 1, bisection);
	store_bind_text(st, 2, commit);
	sqlite3_bind_int(st, 3, attempt);
	sqlite3_bind_int64(st, 4, store_now_ms());
	if ((error = store_exec(s, st, err, "create run")) != 0) {
		if (error == -ENOENT)
			bd_error_set(err, error, "store %s: no bisection %lld "
			    "for a run of %s", s->path, (long long)bisection,
			    commit);
		return error;
	}
	*idp = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int
store_run_create(struct store *s, int64_t bisection, const char *commit,
    int64_t *idp, struct bd_error *err)
{
	return store_run_add(s, bisection, commit, 1, idp, err);
}

int
store_run_start(struct store *s, int64_t id, const char *host,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	if (host == NULL || host[0] == '\0')
		return bd_error_set(err, -EINVAL, "store: run %lld started "
		    "without a host", (long long)id);
	st = store_stmt(s, STMT_RUN_START);
	sqlite3_bind_int64(st, 1, id);
	store_bind_text(st, 2, host);
	sqlite3_bind_int64(st, 3, store_now_ms());
	if ((error = store_exec(s, st, err, "start run")) != 0)
		return error;
	if (store_changes(s) == 0)
		return store_run_unchanged(s, id, "queued", err);
	return 0;
}

/* Refuses a result the service should never hand over, before any write. */
static int
store_run_check_result(int64_t id, const struct store_run_result *res,
    const struct store_metric *m, size_t n, struct bd_error *err)
{
	size_t i;

	if (res->state != STORE_RUN_DONE &&
	    res->state != STORE_RUN_FAILED_INFRA &&
	    res->state != STORE_RUN_SKIPPED &&
	    res->state != STORE_RUN_CANCELLED)
		return bd_error_set(err, -EINVAL, "store: run %lld cannot end "
		    "as %s", (long long)id, store_run_state_name(res->state));
	if (n > 0 && res->state != STORE_RUN_DONE)
		return bd_error_set(err, -EINVAL, "store: run %lld ended %s "
		    "cannot have samples", (long long)id,
		    store_run_state_name(res->state));
	for (i = 0; i < n; i++) {
		if (m[i].name == NULL || m[i].name[0] == '\0')
			return bd_error_set(err, -EINVAL, "store: run %lld: "
			    "sample %zu has no metric name", (long long)id, i);
		if (!bd_metric_name_valid(m[i].name))
			return bd_error_set(err, -EINVAL, "store: run %lld: "
			    "sample %zu has an invalid metric name",
			    (long long)id, i);
		if (!isfinite(m[i].value))
			return bd_error_set(err, -EINVAL, "store: run %lld: "
			    "metric %s is not a finite number", (long long)id,
			    m[i].name);
	}
	return 0;
}

/*
 * The end of a run and its samples commit together or not at all, and the
 * state guard makes a second finish fail before it can add a sample: that
 * is what keeps a sample from being lost or counted twice across crashes.
 */
int
store_run_finish(struct store *s, int64_t id,
    const struct store_run_result *res, const struct store_metric *m,
    size_t n, struct bd_error *err)
{
	sqlite3_stmt *st;
	size_t i;
	int error;

	if ((error = store_run_check_result(id, res, m, n, err)) != 0)
		return error;
	if ((error = store_begin(s, err)) != 0)
		return error;
	st = store_stmt(s, STMT_RUN_FINISH);
	sqlite3_bind_int64(st, 1, id);
	store_bind_text(st, 2, store_run_state_names[res->state]);
	sqlite3_bind_int64(st, 3, store_now_ms());
	if (res->has_exit)
		sqlite3_bind_int(st, 4, res->exit_status);
	store_bind_text(st, 5, res->log_path);
	store_bind_text(st, 6, res->timings);
	store_bind_opt(st, 7, res->build);
	if ((error = store_exec(s, st, err, "finish run")) != 0)
		goto out;
	if (store_changes(s) == 0) {
		error = store_run_unchanged(s, id, "queued or running", err);
		goto out;
	}
	for (i = 0; i < n; i++) {
		st = store_stmt(s, STMT_SAMPLE_ADD);
		sqlite3_bind_int64(st, 1, id);
		store_bind_text(st, 2, m[i].name);
		sqlite3_bind_double(st, 3, m[i].value);
		sqlite3_bind_int64(st, 4, m[i].index);
		if ((error = store_exec(s, st, err, "store sample")) != 0) {
			if (error == -EEXIST)
				bd_error_set(err, error, "store: run %lld has "
				    "metric %s [%u] twice", (long long)id,
				    m[i].name, m[i].index);
			goto out;
		}
	}
	error = store_commit(s, err);
out:
	store_rollback(s);
	return error;
}

int
store_run_retry(struct store *s, int64_t id, int64_t *newidp,
    struct bd_error *err)
{
	enum store_run_state state;
	struct store_run old;
	int error;

	if ((error = store_begin(s, err)) != 0)
		return error;
	store_run_init(&old);
	if ((error = store_run_state(s, id, &state, &old, err)) != 0)
		goto out;
	if (state != STORE_RUN_FAILED_INFRA) {
		error = bd_error_set(err, -EINVAL, "run %lld is %s: only a "
		    "failed-infra run is retried", (long long)id,
		    store_run_state_names[state]);
		goto out;
	}
	if ((error = store_run_add(s, old.bisection, old.commit,
	    old.attempt + 1, newidp, err)) != 0)
		goto out;
	error = store_commit(s, err);
out:
	store_rollback(s);
	store_run_release(&old);
	return error;
}

/* Runs one bulk state change and reports how many runs it moved. */
static int
store_run_bulk(struct store *s, sqlite3_stmt *st, int64_t *countp,
    struct bd_error *err, const char *what)
{
	int error;

	if ((error = store_exec(s, st, err, what)) != 0)
		return error;
	if (countp != NULL)
		*countp = store_changes(s);
	return 0;
}

/*
 * A run that was running when the daemon died has no result and its host
 * lost track of it: queue it again, counting the attempt.
 */
int
store_runs_requeue_inflight(struct store *s, int64_t *countp,
    struct bd_error *err)
{
	return store_run_bulk(s, store_stmt(s, STMT_RUN_REQUEUE), countp, err,
	    "requeue in-flight runs");
}

int
store_runs_cancel(struct store *s, int64_t bisection, int64_t *countp,
    struct bd_error *err)
{
	sqlite3_stmt *st;

	st = store_stmt(s, STMT_RUN_CANCEL);
	sqlite3_bind_int64(st, 1, bisection);
	sqlite3_bind_int64(st, 2, store_now_ms());
	return store_run_bulk(s, st, countp, err, "cancel runs");
}

int
store_run_get(struct store *s, int64_t id, struct store_run *r,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	st = store_stmt(s, STMT_RUN_GET);
	sqlite3_bind_int64(st, 1, id);
	if ((error = store_row(s, st, err, "run %lld", (long long)id)) != 0)
		return error;
	store_run_read(st, r);
	sqlite3_reset(st);
	return 0;
}

static int
store_run_row(void *arg, sqlite3_stmt *st)
{
	struct store_run_each *e = arg;
	struct store_run r;
	int error;

	store_run_read(st, &r);
	error = e->cb(e->arg, &r);
	store_run_release(&r);
	return error;
}

int
store_run_list(struct store *s, int64_t bisection, unsigned state_mask,
    store_run_cb cb, void *arg, struct bd_error *err)
{
	struct store_run_each e = { cb, arg };
	sqlite3_stmt *st;

	st = store_stmt(s, STMT_RUN_LIST);
	sqlite3_bind_int64(st, 1, bisection);
	store_bind_mask(st, 2, store_run_state_names, STORE_RUN_NSTATES,
	    state_mask);
	return store_each(s, st, store_run_row, &e, err, "list runs");
}
