/* SPDX-License-Identifier: MIT */
/*
 * Sweeps: the last ref event each sweep handled, the refs it swept with
 * their state and result, and every run's samples at them, so that a
 * restart neither measures a tag twice nor skips one.
 */
#include <inttypes.h>
#include <string.h>

#include "store/store_int.h"

void
store_sweep_init(struct store_sweep *sw)
{
	memset(sw, 0, sizeof(*sw));
}

void
store_sweep_release(struct store_sweep *sw)
{
	store_free_str(sw->name);
	store_free_str(sw->last_tag);
	store_free_str(sw->state);
	store_sweep_init(sw);
}

int
store_sweep_put(struct store *s, const struct store_sweep *sw,
    struct bd_error *err)
{
	sqlite3_stmt *st;

	if (sw->name == NULL || sw->state == NULL)
		return bd_error_set(err, -EINVAL, "store: a sweep needs a name "
		    "and a state");
	st = store_stmt(s, STMT_SWEEP_PUT);
	store_bind_text(st, 1, sw->name);
	store_bind_text(st, 2, sw->last_tag);
	store_bind_text(st, 3, sw->state);
	sqlite3_bind_int64(st, 4, store_now_ms());
	return store_exec(s, st, err, "store sweep");
}

int
store_sweep_get(struct store *s, const char *name, struct store_sweep *sw,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	st = store_stmt(s, STMT_SWEEP_GET);
	store_bind_text(st, 1, name);
	if ((error = store_row(s, st, err, "sweep %s", name)) != 0)
		return error;
	store_sweep_init(sw);
	sw->name = store_col_text(st, 0);
	sw->last_tag = store_col_text(st, 1);
	sw->state = store_col_text(st, 2);
	sw->updated_ms = sqlite3_column_int64(st, 3);
	sw->cursor = sqlite3_column_int64(st, 4);
	sqlite3_reset(st);
	return 0;
}

/* One new row, and older commits of its ref marked rewritten. */
static int
store_sweep_ref_one(struct store *s, const char *sweep,
    const struct store_sweep_ref *r, int64_t now, int64_t *idp,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	if (r->ref == NULL || r->commit == NULL || (int)r->state < 0 ||
	    r->state >= STORE_SWEEP_REF_NSTATES)
		return bd_error_set(err, -EINVAL, "store: a sweep ref needs a "
		    "ref, a commit and a state");
	st = store_stmt(s, STMT_SWEEP_REF_REWRITE);
	store_bind_text(st, 1, sweep);
	store_bind_text(st, 2, r->ref);
	store_bind_text(st, 3, r->commit);
	sqlite3_bind_int64(st, 4, now);
	if ((error = store_exec(s, st, err, "sweep rewritten refs")) != 0)
		return error;
	st = store_stmt(s, STMT_SWEEP_REF_ADD);
	store_bind_text(st, 1, sweep);
	store_bind_text(st, 2, r->ref);
	store_bind_text(st, 3, r->commit);
	sqlite3_bind_int64(st, 4, r->event);
	store_bind_text(st, 5, store_sweep_ref_state_names[r->state]);
	sqlite3_bind_int64(st, 6, now);
	if ((error = store_exec(s, st, err, "add sweep ref")) != 0)
		return error;
	if (idp != NULL)
		*idp = store_changes(s) > 0 ? sqlite3_last_insert_rowid(s->db) :
		    0;
	return 0;
}

int
store_sweep_advance(struct store *s, const char *sweep, int64_t cursor,
    const struct store_sweep_ref *rows, size_t n, int64_t *ids,
    struct bd_error *err)
{
	int64_t now = store_now_ms();
	sqlite3_stmt *st;
	size_t i;
	int error;

	if (sweep == NULL)
		return bd_error_set(err, -EINVAL, "store: no sweep name");
	if ((error = store_begin(s, err)) != 0)
		return error;
	for (i = 0; i < n; i++)
		if ((error = store_sweep_ref_one(s, sweep, &rows[i], now,
		    ids != NULL ? &ids[i] : NULL, err)) != 0)
			goto fail;
	st = store_stmt(s, STMT_SWEEP_CURSOR);
	store_bind_text(st, 1, sweep);
	sqlite3_bind_int64(st, 2, cursor);
	sqlite3_bind_int64(st, 3, now);
	if ((error = store_exec(s, st, err, "sweep cursor")) != 0)
		goto fail;
	if ((error = store_commit(s, err)) == 0)
		return 0;
fail:
	store_rollback(s);
	return error;
}

struct store_sweep_each {
	store_sweep_ref_cb	 rcb;
	store_sweep_sample_cb	 scb;
	void			*arg;
};

/* Strings point into the row for the callback. */
static int
store_sweep_ref_row(void *arg, sqlite3_stmt *st)
{
	struct store_sweep_each *e = arg;
	struct store_sweep_ref r;

	memset(&r, 0, sizeof(r));
	r.id = sqlite3_column_int64(st, 0);
	r.sweep = (const char *)sqlite3_column_text(st, 1);
	r.ref = (const char *)sqlite3_column_text(st, 2);
	r.commit = (const char *)sqlite3_column_text(st, 3);
	r.event = sqlite3_column_int64(st, 4);
	r.state = store_col_enum(st, 5, store_sweep_ref_state_names,
	    STORE_SWEEP_REF_NSTATES);
	r.runs = (unsigned)sqlite3_column_int64(st, 6);
	r.result = (const char *)sqlite3_column_text(st, 7);
	r.bisection = sqlite3_column_int64(st, 8);
	r.created_ms = sqlite3_column_int64(st, 9);
	r.updated_ms = sqlite3_column_int64(st, 10);
	return e->rcb(e->arg, &r);
}

int
store_sweep_ref_list(struct store *s, const char *sweep,
    store_sweep_ref_cb cb, void *arg, struct bd_error *err)
{
	struct store_sweep_each e = { .rcb = cb, .arg = arg };
	sqlite3_stmt *st = store_stmt(s, STMT_SWEEP_REF_LIST);

	store_bind_text(st, 1, sweep);
	return store_each(s, st, store_sweep_ref_row, &e, err,
	    "list sweep refs");
}

int
store_sweep_ref_set(struct store *s, int64_t id,
    enum store_sweep_ref_state state, const char *result, int64_t bisection,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	if ((int)state < 0 || state >= STORE_SWEEP_REF_NSTATES)
		return bd_error_set(err, -EINVAL, "store: bad sweep ref state");
	st = store_stmt(s, STMT_SWEEP_REF_SET);
	sqlite3_bind_int64(st, 1, id);
	store_bind_text(st, 2, store_sweep_ref_state_names[state]);
	store_bind_text(st, 3, result);
	store_bind_opt(st, 4, bisection);
	sqlite3_bind_int64(st, 5, store_now_ms());
	if ((error = store_exec(s, st, err, "set sweep ref")) != 0)
		return error;
	if (store_changes(s) == 0)
		return bd_error_set(err, -ENOENT, "no sweep ref %" PRId64, id);
	/* A row that is done with has no run to follow after a restart. */
	if (state == STORE_SWEEP_COMPARED || state == STORE_SWEEP_FAILED ||
	    state == STORE_SWEEP_REWRITTEN) {
		st = store_stmt(s, STMT_SWEEP_JOB_FORGET);
		sqlite3_bind_int64(st, 1, id);
		return store_exec(s, st, err, "forget sweep jobs");
	}
	return 0;
}

/*
 * Inside a transaction: the row's bisection (0: none) into *linked, and
 * when it has none and bisection is not 0, the link to bisection.
 */
int
store_sweep_ref_link_in(struct store *s, int64_t id, int64_t bisection,
    int64_t *linked, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	st = store_stmt(s, STMT_SWEEP_REF_BISECTION);
	sqlite3_bind_int64(st, 1, id);
	if ((error = store_row(s, st, err, "sweep ref %" PRId64, id)) != 0)
		return error;
	*linked = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (*linked != 0 || bisection == 0)
		return 0;
	st = store_stmt(s, STMT_SWEEP_REF_LINK);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, bisection);
	sqlite3_bind_int64(st, 3, store_now_ms());
	return store_exec(s, st, err, "link sweep ref");
}

/*
 * Links a row to a bisection it did not start (an overlapping one), only
 * when it has none, so a row never points at two bisections.
 */
int
store_sweep_ref_link(struct store *s, int64_t id, int64_t bisection,
    int64_t *linked, struct bd_error *err)
{
	int error;

	if ((error = store_begin(s, err)) != 0)
		return error;
	if ((error = store_sweep_ref_link_in(s, id, bisection, linked,
	    err)) != 0)
		goto out;
	if (*linked != 0) {
		error = bd_error_set(err, -EALREADY, "sweep ref %" PRId64
		    " is already linked to bisection %" PRId64, id, *linked);
		goto out;
	}
	if ((error = store_commit(s, err)) == 0)
		*linked = bisection;
out:
	store_rollback(s);
	return error;
}

int
store_sweep_sample_add(struct store *s, int64_t sweep_ref, unsigned run,
    const struct store_metric *m, size_t n, struct bd_error *err)
{
	return store_sweep_run_record(s, sweep_ref, run, 0, m, n, err);
}

int
store_sweep_run_record(struct store *s, int64_t sweep_ref, unsigned run,
    int64_t job, const struct store_metric *m, size_t n,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	size_t i;
	int error;

	if ((error = store_begin(s, err)) != 0)
		return error;
	if (job != 0) {
		st = store_stmt(s, STMT_SWEEP_JOB_DEL);
		sqlite3_bind_int64(st, 1, job);
		if ((error = store_exec(s, st, err, "forget sweep job")) != 0)
			goto fail;
	}
	st = store_stmt(s, STMT_SWEEP_RUNS);
	sqlite3_bind_int64(st, 1, sweep_ref);
	sqlite3_bind_int64(st, 2, run);
	sqlite3_bind_int64(st, 3, store_now_ms());
	if ((error = store_exec(s, st, err, "count sweep run")) != 0)
		goto fail;
	if (store_changes(s) == 0) {
		error = bd_error_set(err, -EALREADY, "sweep ref %" PRId64
		    ": run %u is not the next one", sweep_ref, run);
		goto fail;
	}
	for (i = 0; i < n; i++) {
		st = store_stmt(s, STMT_SWEEP_SAMPLE_ADD);
		sqlite3_bind_int64(st, 1, sweep_ref);
		sqlite3_bind_int64(st, 2, run);
		store_bind_text(st, 3, m[i].name);
		sqlite3_bind_double(st, 4, m[i].value);
		if ((error = store_exec(s, st, err, "add sweep sample")) != 0)
			goto fail;
	}
	if ((error = store_commit(s, err)) == 0)
		return 0;
fail:
	store_rollback(s);
	return error;
}

static int
store_sweep_sample_row(void *arg, sqlite3_stmt *st)
{
	struct store_sweep_each *e = arg;

	return e->scb(e->arg, (unsigned)sqlite3_column_int64(st, 0),
	    (const char *)sqlite3_column_text(st, 1),
	    sqlite3_column_double(st, 2));
}

int
store_sweep_sample_list(struct store *s, int64_t sweep_ref,
    store_sweep_sample_cb cb, void *arg, struct bd_error *err)
{
	struct store_sweep_each e = { .scb = cb, .arg = arg };
	sqlite3_stmt *st = store_stmt(s, STMT_SWEEP_SAMPLE_LIST);

	sqlite3_bind_int64(st, 1, sweep_ref);
	return store_each(s, st, store_sweep_sample_row, &e, err,
	    "list sweep samples");
}
