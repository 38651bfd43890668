/* SPDX-License-Identifier: MIT */
/*
 * Bisections: the requests, their life cycle and their verdicts.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "store/store_int.h"

struct store_bisection_each {
	store_bisection_cb	 cb;
	void			*arg;
};

void
store_bisection_init(struct store_bisection *b)
{
	memset(b, 0, sizeof(*b));
}

void
store_bisection_release(struct store_bisection *b)
{
	size_t i;

	for (i = 0; i < b->ngood; i++)
		store_free_str(b->good[i]);
	free(b->good);
	store_free_str(b->params);
	store_free_str(b->bad);
	store_free_str(b->benchmark);
	store_free_str(b->metric);
	store_free_str(b->group);
	store_free_str(b->dedup_key);
	store_free_str(b->culprit);
	store_free_str(b->detail);
	store_free_str(b->origin);
	store_bisection_init(b);
}

/*
 * The good revisions live in one column, separated by spaces: commit ids
 * have none, and one column keeps a bisection one row.
 */
static void
store_bisection_split_good(struct store_bisection *b, const char *text)
{
	const char *p = text, *e;

	while (*p != '\0') {
		e = strchr(p, ' ');
		if (e == NULL)
			e = p + strlen(p);
		if (e > p) {
			b->good = xreallocarray(b->good, b->ngood + 1,
			    sizeof(*b->good));
			b->good[b->ngood++] = xstrndup(p, e - p);
		}
		p = *e == ' ' ? e + 1 : e;
	}
}

/* Reads a row of the BISECTION_COLS columns into b (owned copies). */
static void
store_bisection_read(sqlite3_stmt *st, struct store_bisection *b)
{
	const char *good = (const char *)sqlite3_column_text(st, 2);

	store_bisection_init(b);
	b->id = sqlite3_column_int64(st, 0);
	b->params = store_col_text(st, 1);
	store_bisection_split_good(b, good ? good : "");
	b->bad = store_col_text(st, 3);
	b->benchmark = store_col_text(st, 4);
	b->metric = store_col_text(st, 5);
	b->group = store_col_text(st, 6);
	b->dedup_key = store_col_text(st, 7);
	b->state = store_col_enum(st, 8, store_bisection_state_names,
	    STORE_BISECTION_NSTATES);
	b->verdict = store_col_enum(st, 9, store_verdict_names,
	    STORE_VERDICT_N);
	b->culprit = store_col_text(st, 10);
	b->confidence = sqlite3_column_double(st, 11);
	b->detail = store_col_text(st, 12);
	b->priority = sqlite3_column_int(st, 13);
	b->created_by = (uid_t)sqlite3_column_int64(st, 14);
	b->created_ms = sqlite3_column_int64(st, 15);
	b->updated_ms = sqlite3_column_int64(st, 16);
	b->origin = store_col_text(st, 17);
}

/* Joins the good revisions, refusing what the one-column form cannot hold. */
static int
store_bisection_join_good(const struct store_bisection *b, char **outp,
    struct bd_error *err)
{
	size_t i, len = 0;
	char *out;

	if (b->ngood == 0)
		return bd_error_set(err, -EINVAL, "store: a bisection needs a "
		    "good revision");
	for (i = 0; i < b->ngood; i++) {
		if (b->good[i] == NULL || b->good[i][0] == '\0' ||
		    strchr(b->good[i], ' ') != NULL)
			return bd_error_set(err, -EINVAL, "store: bad good "
			    "revision '%s'", b->good[i] ? b->good[i] : "");
		len += strlen(b->good[i]) + 1;
	}
	out = xmalloc(len);
	out[0] = '\0';
	for (i = 0; i < b->ngood; i++) {
		if (i > 0)
			strcat(out, " ");
		strcat(out, b->good[i]);
	}
	*outp = out;
	return 0;
}

/*
 * Inside a transaction: looks for an active twin (-EEXIST, *idp the twin)
 * or inserts b, so two identical requests racing each other still get
 * one bisection.
 */
static int
store_bisection_insert(struct store *s, const struct store_bisection *b,
    const char *good, int64_t *idp, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	if (b->dedup_key != NULL) {
		st = store_stmt(s, STMT_BISECTION_ACTIVE);
		store_bind_text(st, 1, b->dedup_key);
		error = store_row(s, st, err, "look up an active twin");
		if (error == 0) {
			*idp = sqlite3_column_int64(st, 0);
			sqlite3_reset(st);
			return bd_error_set(err, -EEXIST, "bisection %lld is "
			    "already running this request", (long long)*idp);
		}
		if (error != -ENOENT)
			return error;
		bd_error_clear(err);
	}
	st = store_stmt(s, STMT_BISECTION_ADD);
	store_bind_text(st, 1, b->params);
	store_bind_text(st, 2, good);
	store_bind_text(st, 3, b->bad);
	store_bind_text(st, 4, b->benchmark);
	store_bind_text(st, 5, b->metric);
	store_bind_text(st, 6, b->group);
	sqlite3_bind_int(st, 7, b->priority);
	sqlite3_bind_int64(st, 8, (int64_t)b->created_by);
	sqlite3_bind_int64(st, 9, store_now_ms());
	store_bind_text(st, 10, b->dedup_key);
	store_bind_text(st, 11, b->origin);
	if ((error = store_exec(s, st, err, "create bisection")) != 0)
		return error;
	*idp = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int
store_bisection_create(struct store *s, const struct store_bisection *b,
    int64_t *idp, struct bd_error *err)
{
	char *good = NULL;
	int error;

	if ((error = store_bisection_join_good(b, &good, err)) != 0)
		return error;
	if ((error = store_begin(s, err)) != 0)
		goto out;
	if ((error = store_bisection_insert(s, b, good, idp, err)) == 0)
		error = store_commit(s, err);
out:
	store_rollback(s);
	free(good);
	return error;
}

/* The run numbers of a sweep row's samples, collected before any insert. */
static int
store_bisection_reuse_run(void *arg, sqlite3_stmt *st)
{
	struct { int64_t *v; size_t n; } *runs = arg;

	runs->v = xreallocarray(runs->v, runs->n + 1, sizeof(int64_t));
	runs->v[runs->n++] = sqlite3_column_int64(st, 0);
	return 0;
}

/* Copies every run of sweep row ref into bisection id as a done run. */
static int
store_bisection_reuse(struct store *s, int64_t id, int64_t ref,
    struct bd_error *err)
{
	struct { int64_t *v; size_t n; } runs = { NULL, 0 };
	int64_t now = store_now_ms(), run;
	sqlite3_stmt *st;
	size_t i;
	int error;

	/* A row that does not exist is an error, not a row without runs. */
	if ((error = store_sweep_ref_link_in(s, ref, 0, &run, err)) != 0)
		return error;
	st = store_stmt(s, STMT_SWEEP_REUSE_RUNS);
	sqlite3_bind_int64(st, 1, ref);
	if ((error = store_each(s, st, store_bisection_reuse_run, &runs, err,
	    "list sweep runs")) != 0)
		goto out;
	for (i = 0; i < runs.n; i++) {
		st = store_stmt(s, STMT_RUN_REUSE_ADD);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, ref);
		sqlite3_bind_int64(st, 3, now);
		if ((error = store_exec(s, st, err, "reuse a sweep run")) != 0)
			goto out;
		if (store_changes(s) == 0) {
			error = bd_error_set(err, -ENOENT, "store: no sweep "
			    "ref %lld", (long long)ref);
			goto out;
		}
		run = sqlite3_last_insert_rowid(s->db);
		st = store_stmt(s, STMT_SAMPLE_REUSE_ADD);
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int64(st, 2, ref);
		sqlite3_bind_int64(st, 3, runs.v[i]);
		if ((error = store_exec(s, st, err, "reuse sweep samples")) != 0)
			goto out;
	}
out:
	free(runs.v);
	return error;
}

/*
 * One transaction for the row's check, the bisection, its reused runs and
 * the link: a restart finds all of them or none.
 */
int
store_bisection_create_linked(struct store *s,
    const struct store_bisection *b, const struct store_sweep_link *l,
    int64_t *idp, struct bd_error *err)
{
	int64_t linked = 0;
	char *good = NULL;
	size_t i;
	int error, twin = 0;

	if ((error = store_bisection_join_good(b, &good, err)) != 0)
		return error;
	if ((error = store_begin(s, err)) != 0)
		goto out;
	if (l->row != 0 && (error = store_sweep_ref_link_in(s, l->row, 0,
	    &linked, err)) != 0)
		goto out;
	if (linked != 0) {
		*idp = linked;
		error = bd_error_set(err, -EALREADY, "sweep ref %lld is "
		    "already linked to bisection %lld", (long long)l->row,
		    (long long)linked);
		goto out;
	}
	error = store_bisection_insert(s, b, good, idp, err);
	if (error == -EEXIST)
		twin = 1;
	else if (error != 0)
		goto out;
	for (i = 0; !twin && i < l->nreuse; i++)
		if ((error = store_bisection_reuse(s, *idp, l->reuse[i],
		    err)) != 0)
			goto out;
	if (l->row != 0 && (error = store_sweep_ref_link_in(s, l->row, *idp,
	    &linked, err)) != 0)
		goto out;
	if ((error = store_commit(s, err)) == 0 && twin)
		error = bd_error_set(err, -EEXIST, "bisection %lld is "
		    "already running this request", (long long)*idp);
out:
	store_rollback(s);
	free(good);
	return error;
}

int
store_bisection_get(struct store *s, int64_t id, struct store_bisection *b,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	st = store_stmt(s, STMT_BISECTION_GET);
	sqlite3_bind_int64(st, 1, id);
	if ((error = store_row(s, st, err, "bisection %lld",
	    (long long)id)) != 0)
		return error;
	store_bisection_read(st, b);
	sqlite3_reset(st);
	return 0;
}

static int
store_bisection_row(void *arg, sqlite3_stmt *st)
{
	struct store_bisection_each *e = arg;
	struct store_bisection b;
	int error;

	store_bisection_read(st, &b);
	error = e->cb(e->arg, &b);
	store_bisection_release(&b);
	return error;
}

/* Calls cb for every bisection row the bound statement st selects. */
static int
store_bisection_each_row(struct store *s, sqlite3_stmt *st,
    store_bisection_cb cb, void *arg, struct bd_error *err,
    const char *what)
{
	struct store_bisection_each e = { cb, arg };

	return store_each(s, st, store_bisection_row, &e, err, what);
}

int
store_bisection_list(struct store *s, unsigned state_mask,
    store_bisection_cb cb, void *arg, struct bd_error *err)
{
	sqlite3_stmt *st = store_stmt(s, STMT_BISECTION_LIST);

	store_bind_mask(st, 1, store_bisection_state_names,
	    STORE_BISECTION_NSTATES, state_mask);
	return store_bisection_each_row(s, st, cb, arg, err,
	    "list bisections");
}

/* The confirmation children of parent, by id. */
int
store_bisection_confirms(struct store *s, int64_t parent,
    store_bisection_cb cb, void *arg, struct bd_error *err)
{
	sqlite3_stmt *st = store_stmt(s, STMT_BISECTION_CONFIRMS);

	sqlite3_bind_int64(st, 1, parent);
	return store_bisection_each_row(s, st, cb, arg, err,
	    "list confirmations");
}

/*
 * Explains why a guarded update matched nothing: the row is missing, or
 * it has left the states the update accepts.
 */
static int
store_bisection_unchanged(struct store *s, int64_t id, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	st = store_stmt(s, STMT_BISECTION_STATE);
	sqlite3_bind_int64(st, 1, id);
	if ((error = store_row(s, st, err, "bisection %lld",
	    (long long)id)) != 0)
		return error;
	error = bd_error_set(err, -EALREADY, "bisection %lld is already %s",
	    (long long)id, (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return error;
}

int
store_bisection_set_state(struct store *s, int64_t id,
    enum store_bisection_state state, const struct store_verdict_info *v,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	if ((int)state < 0 || state >= STORE_BISECTION_NSTATES ||
	    (v != NULL && ((int)v->verdict < 0 ||
	    v->verdict >= STORE_VERDICT_N)))
		return bd_error_set(err, -EINVAL, "store: bad state or "
		    "verdict for bisection %lld", (long long)id);
	if ((error = store_begin(s, err)) != 0)
		return error;
	st = store_stmt(s, STMT_BISECTION_SET);
	sqlite3_bind_int64(st, 1, id);
	store_bind_text(st, 2, store_bisection_state_names[state]);
	sqlite3_bind_int64(st, 3, store_now_ms());
	sqlite3_bind_int(st, 4, v != NULL);
	if (v != NULL) {
		store_bind_text(st, 5, store_verdict_names[v->verdict]);
		store_bind_text(st, 6, v->culprit);
		sqlite3_bind_double(st, 7, v->confidence);
		store_bind_text(st, 8, v->detail);
	}
	if ((error = store_exec(s, st, err, "set bisection state")) != 0)
		goto out;
	if (store_changes(s) == 0) {
		error = store_bisection_unchanged(s, id, err);
		goto out;
	}
	if ((STORE_BISECTION_ACTIVE & (1u << state)) == 0 &&
	    (error = store_runs_cancel(s, id, NULL, err)) != 0)
		goto out;
	error = store_commit(s, err);
out:
	store_rollback(s);
	return error;
}

/* Adds one (kind, state, count) row of the stats statement to st. */
static int
store_bisection_stats_row(void *arg, sqlite3_stmt *stmt)
{
	struct store_bisection_stats *st = arg;
	int64_t n = sqlite3_column_int64(stmt, 2);

	switch (sqlite3_column_int(stmt, 0)) {
	case 0:
		st->runs[store_col_enum(stmt, 1, store_run_state_names,
		    STORE_RUN_NSTATES)] = n;
		break;
	case 1:
		st->samples = n;
		break;
	case 2:
		st->probes = n;
		break;
	case 4:
		st->reused = n;
		break;
	default:
		if (n == 0)
			return -ENOENT;
		break;
	}
	return 0;
}

int
store_bisection_stats(struct store *s, int64_t id,
    struct store_bisection_stats *st, struct bd_error *err)
{
	sqlite3_stmt *stmt;
	int error;

	memset(st, 0, sizeof(*st));
	stmt = store_stmt(s, STMT_BISECTION_STATS);
	sqlite3_bind_int64(stmt, 1, id);
	error = store_each(s, stmt, store_bisection_stats_row, st, err,
	    "bisection stats");
	if (error == -ENOENT)
		bd_error_set(err, error, "store %s: bisection %lld: not found",
		    s->path, (long long)id);
	return error;
}

/* Rows are (built, count, summed ms). */
static int
store_run_pace_row(void *arg, sqlite3_stmt *stmt)
{
	struct store_run_pace *p = arg;

	if (sqlite3_column_int(stmt, 0) != 0) {
		p->built_n += sqlite3_column_int64(stmt, 1);
		p->built_ms += sqlite3_column_int64(stmt, 2);
	} else {
		p->cached_n += sqlite3_column_int64(stmt, 1);
		p->cached_ms += sqlite3_column_int64(stmt, 2);
	}
	return 0;
}

/* What runs took, for estimates that follow measured times. */
int
store_run_pace(struct store *s, const char *benchmark, const char *group,
    struct store_run_pace *p, struct bd_error *err)
{
	sqlite3_stmt *stmt;

	memset(p, 0, sizeof(*p));
	stmt = store_stmt(s, STMT_RUN_PACE);
	store_bind_text(stmt, 1, benchmark);
	store_bind_text(stmt, 2, group);
	return store_each(s, stmt, store_run_pace_row, p, err, "run pace");
}
