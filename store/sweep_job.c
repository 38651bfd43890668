/* SPDX-License-Identifier: MIT */
/*
 * Sweep jobs: the sweep runs in flight, stored before their backend gets
 * them, so that a restart follows the lab jobs it already has (by id, or
 * by the description their stable run id gives) instead of submitting
 * more, and no run's result is stored twice.
 */
#include "store/store_int.h"

int
store_sweep_job_add(struct store *s, int64_t sweep_ref, int64_t *id,
    struct bd_error *err)
{
	sqlite3_stmt *st = store_stmt(s, STMT_SWEEP_JOB_ADD);
	int error;

	*id = 0;
	sqlite3_bind_int64(st, 1, sweep_ref);
	sqlite3_bind_int64(st, 2, store_now_ms());
	if ((error = store_exec(s, st, err, "add sweep job")) != 0)
		return error;
	*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int
store_sweep_job_lab(struct store *s, int64_t id, const char *lab,
    const char *job, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	if ((st = store_lab_job_bind(s, STMT_SWEEP_JOB_LAB, id, lab, job,
	    err)) == NULL)
		return -EINVAL;
	if ((error = store_exec(s, st, err, "record sweep lab job")) != 0)
		return error;
	if (store_changes(s) == 0)
		return bd_error_set(err, -ENOENT, "store %s: no sweep job %lld",
		    s->path, (long long)id);
	return 0;
}

int
store_sweep_job_del(struct store *s, int64_t id, struct bd_error *err)
{
	sqlite3_stmt *st = store_stmt(s, STMT_SWEEP_JOB_DEL);

	sqlite3_bind_int64(st, 1, id);
	return store_exec(s, st, err, "forget sweep job");
}

struct store_sweep_job_each {
	store_sweep_job_cb	 cb;
	void			*arg;
};

/* Strings point into the row for the callback. */
static int
store_sweep_job_row(void *arg, sqlite3_stmt *st)
{
	struct store_sweep_job_each *e = arg;
	struct store_sweep_job j;

	j.id = sqlite3_column_int64(st, 0);
	j.sweep_ref = sqlite3_column_int64(st, 1);
	j.lab = (const char *)sqlite3_column_text(st, 2);
	j.job = (const char *)sqlite3_column_text(st, 3);
	return e->cb(e->arg, &j);
}

int
store_sweep_job_list(struct store *s, int64_t sweep_ref,
    store_sweep_job_cb cb, void *arg, struct bd_error *err)
{
	struct store_sweep_job_each e = { cb, arg };
	sqlite3_stmt *st = store_stmt(s, STMT_SWEEP_JOB_LIST);

	sqlite3_bind_int64(st, 1, sweep_ref);
	return store_each(s, st, store_sweep_job_row, &e, err,
	    "list sweep jobs");
}
