/* SPDX-License-Identifier: MIT */
/*
 * Lab jobs: which job of a lab serves a run, so that a restart follows the
 * job it already has instead of submitting another, and the instance id
 * that marks this database's jobs in the lab.
 */
#include "store/store_int.h"

/* One check and one binding for the runs' and the sweep runs' lab jobs. */
sqlite3_stmt *
store_lab_job_bind(struct store *s, enum store_stmt_id id, int64_t key,
    const char *lab, const char *job, struct bd_error *err)
{
	sqlite3_stmt *st;

	if (lab == NULL || job == NULL || job[0] == '\0') {
		bd_error_set(err, -EINVAL, "store: a lab job needs a lab and a "
		    "job id");
		return NULL;
	}
	st = store_stmt(s, id);
	sqlite3_bind_int64(st, 1, key);
	store_bind_text(st, 2, lab);
	store_bind_text(st, 3, job);
	sqlite3_bind_int64(st, 4, store_now_ms());
	return st;
}

int
store_lab_job_put(struct store *s, int64_t run, const char *lab,
    const char *job, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	if ((st = store_lab_job_bind(s, STMT_LAB_JOB_PUT, run, lab, job,
	    err)) == NULL)
		return -EINVAL;
	if ((error = store_exec(s, st, err, "record lab job")) == -ENOENT)
		bd_error_set(err, error, "store %s: no run %lld for a lab job",
		    s->path, (long long)run);
	return error;
}

int
store_lab_job_get(struct store *s, int64_t run, char **job,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	*job = NULL;
	st = store_stmt(s, STMT_LAB_JOB_GET);
	sqlite3_bind_int64(st, 1, run);
	if ((error = store_row(s, st, err, "lab job of run %lld",
	    (long long)run)) != 0)
		return error;
	*job = store_col_text(st, 0);
	sqlite3_reset(st);
	return 0;
}

int
store_instance_id(struct store *s, char **id, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	*id = NULL;
	st = store_stmt(s, STMT_INSTANCE_GET);
	if ((error = store_row(s, st, err, "instance id")) != 0)
		return error;
	*id = store_col_text(st, 0);
	sqlite3_reset(st);
	return 0;
}
