/* SPDX-License-Identifier: MIT */
/*
 * Opening, migrating and closing the database, and the small helpers the
 * table modules share (errors, transactions, binding, reading rows).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xmalloc.h"
#include "store/store_int.h"

/* Long enough to ride out a checkpoint or a second process's write. */
#define STORE_BUSY_MS	5000

/* SQLite result codes as errno values; extended codes are tried first. */
static const struct {
	int	sqlite;
	int	code;
} store_errnos[] = {
	{ SQLITE_CONSTRAINT_UNIQUE,	-EEXIST },
	{ SQLITE_CONSTRAINT_PRIMARYKEY,	-EEXIST },
	{ SQLITE_CONSTRAINT_FOREIGNKEY,	-ENOENT },
	{ SQLITE_CONSTRAINT,		-EINVAL },
	{ SQLITE_MISMATCH,		-EINVAL },
	{ SQLITE_RANGE,			-EINVAL },
	{ SQLITE_NOTADB,		-EINVAL },
	{ SQLITE_CORRUPT,		-EIO },
	{ SQLITE_BUSY,			-EBUSY },
	{ SQLITE_LOCKED,		-EBUSY },
	{ SQLITE_NOMEM,			-ENOMEM },
	{ SQLITE_READONLY,		-EROFS },
	{ SQLITE_FULL,			-ENOSPC },
	{ SQLITE_TOOBIG,		-E2BIG },
	{ SQLITE_PERM,			-EACCES },
	{ SQLITE_AUTH,			-EACCES },
	{ SQLITE_CANTOPEN,		-ENOENT },
};

/* Maps a SQLite code to the errno the store's callers switch on. */
static int
store_errno(int rc)
{
	size_t i;

	for (i = 0; i < sizeof(store_errnos) / sizeof(store_errnos[0]); i++)
		if (store_errnos[i].sqlite == rc)
			return store_errnos[i].code;
	for (i = 0; i < sizeof(store_errnos) / sizeof(store_errnos[0]); i++)
		if (store_errnos[i].sqlite == (rc & 0xff))
			return store_errnos[i].code;
	return -EIO;
}

/*
 * Turns a failed SQLite call into the store's error: the caller's words,
 * then SQLite's, so a message says both what was attempted and why it
 * failed.
 */
int
store_fail(struct store *s, int rc, struct bd_error *err, const char *fmt,
    ...)
{
	char what[BD_ERROR_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return bd_error_set(err, store_errno(rc), "store %s: %s: %s", s->path,
	    what, sqlite3_errstr(rc));
}

/* Hands out a statement in a clean state so no call sees another's bindings. */
sqlite3_stmt *
store_stmt(struct store *s, enum store_stmt_id id)
{
	sqlite3_stmt *st = s->st[id];

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return st;
}

/* Runs a statement that returns no rows (or whose rows do not matter). */
int
store_exec(struct store *s, sqlite3_stmt *st, struct bd_error *err,
    const char *what)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, rc, err, "%s", what);
	return 0;
}

/*
 * Steps to the one row a lookup expects and leaves it there for the
 * caller to read (and reset): -ENOENT when there is none.
 */
int
store_row(struct store *s, sqlite3_stmt *st, struct bd_error *err,
    const char *fmt, ...)
{
	char what[BD_ERROR_MAX / 2];
	va_list ap;
	int rc;

	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 0;
	sqlite3_reset(st);
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (rc == SQLITE_DONE)
		return bd_error_set(err, -ENOENT, "store %s: %s: not found",
		    s->path, what);
	return store_fail(s, rc, err, "%s", what);
}

/* The loop of every list function: one callback per row, stop on error. */
int
store_each(struct store *s, sqlite3_stmt *st, store_row_fn fn, void *arg,
    struct bd_error *err, const char *what)
{
	int rc, error = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((error = fn(arg, st)) != 0)
			break;
	}
	sqlite3_reset(st);
	if (error != 0)
		return bd_error_set(err, error, "store %s: %s: stopped by the "
		    "caller (%s)", s->path, what, strerror(-error));
	if (rc != SQLITE_DONE)
		return store_fail(s, rc, err, "%s", what);
	return 0;
}

/*
 * Takes the write lock up front (BEGIN IMMEDIATE), so a transaction never
 * fails half-way because another writer got there first.
 */
int
store_begin(struct store *s, struct bd_error *err)
{
	return store_exec(s, store_stmt(s, STMT_BEGIN), err, "begin");
}

int
store_commit(struct store *s, struct bd_error *err)
{
	int error;

	if ((error = store_exec(s, store_stmt(s, STMT_COMMIT), err,
	    "commit")) != 0)
		store_rollback(s);
	return error;
}

/* Rolls back when a transaction is open; harmless when none is. */
void
store_rollback(struct store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		store_exec(s, store_stmt(s, STMT_ROLLBACK), NULL, "rollback");
}

/* Rows the last write touched: how a guarded UPDATE tells it matched. */
int
store_changes(struct store *s)
{
	return sqlite3_changes(s->db);
}

int64_t
store_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Binds text, or NULL for a NULL pointer; the text is copied. */
void
store_bind_text(sqlite3_stmt *st, int idx, const char *text)
{
	if (text == NULL)
		sqlite3_bind_null(st, idx);
	else
		sqlite3_bind_text(st, idx, text, -1, SQLITE_TRANSIENT);
}

/* Binds an optional integer: 0 means "not set" and is stored as NULL. */
void
store_bind_opt(sqlite3_stmt *st, int idx, int64_t v)
{
	if (v == 0)
		sqlite3_bind_null(st, idx);
	else
		sqlite3_bind_int64(st, idx, v);
}

/*
 * Binds the names of the states in mask as a JSON array, which the list
 * statements unpack with json_each: one statement serves every mask.
 */
void
store_bind_mask(sqlite3_stmt *st, int idx, const char *const *names, int n,
    unsigned mask)
{
	char buf[512];
	size_t len = 0;
	int i;

	buf[len++] = '[';
	for (i = 0; i < n; i++) {
		if ((mask & (1u << i)) == 0)
			continue;
		len += snprintf(buf + len, sizeof(buf) - len, "%s\"%s\"",
		    len > 1 ? "," : "", names[i]);
	}
	snprintf(buf + len, sizeof(buf) - len, "]");
	sqlite3_bind_text(st, idx, buf, -1, SQLITE_TRANSIENT);
}

/* A copy of a text column, NULL for SQL NULL. */
char *
store_col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t == NULL ? NULL : xstrdup((const char *)t);
}

/*
 * Reads an enum stored as its name.  The CHECK constraints keep unknown
 * names out, so one here means the schema and the code disagree.
 */
int
store_col_enum(sqlite3_stmt *st, int col, const char *const *names, int n)
{
	const char *t = (const char *)sqlite3_column_text(st, col);
	int i;

	for (i = 0; t != NULL && i < n; i++)
		if (strcmp(t, names[i]) == 0)
			return i;
	fprintf(stderr, "store: unknown state '%s' in column %s\n",
	    t ? t : "NULL", sqlite3_column_name(st, col));
	abort();
}

/* Frees a string a get function duplicated into a const field. */
void
store_free_str(const char *p)
{
	free((void *)(uintptr_t)p);
}

/* Runs one PRAGMA and returns its first column as an integer. */
static int
store_pragma_int(struct store *s, const char *sql, int *valp,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return store_fail(s, rc, err, "%s", sql);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && valp != NULL)
		*valp = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(s, rc, err, "%s", sql);
	return 0;
}

/* Sets the connection up: the settings the header promises, checked. */
static int
store_configure(struct store *s, struct bd_error *err)
{
	sqlite3_stmt *st;
	const char *mode;
	int rc, fk = 0, error, waited;

	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
	if ((error = store_pragma_int(s, "PRAGMA foreign_keys = ON", NULL,
	    err)) != 0 ||
	    (error = store_pragma_int(s, "PRAGMA foreign_keys", &fk, err)) != 0)
		return error;
	if (fk != 1)
		return bd_error_set(err, -ENOTSUP, "store %s: this SQLite "
		    "cannot enforce foreign keys", s->path);

	rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st,
	    NULL);
	if (rc != SQLITE_OK)
		return store_fail(s, rc, err, "cannot set WAL mode");
	/*
	 * Two processes switching a new database to WAL at once can deadlock
	 * on its rollback-journal locks, and SQLite then answers busy without
	 * calling the busy handler: retry here, bounded by the same timeout.
	 * Once in WAL mode the switch is a no-op and never waits.
	 */
	for (waited = 0; (rc = sqlite3_step(st)) == SQLITE_BUSY &&
	    waited < STORE_BUSY_MS; waited += 10) {
		sqlite3_reset(st);
		sqlite3_sleep(10);
	}
	mode = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) :
	    NULL;
	error = mode != NULL && strcmp(mode, "wal") == 0 ? 0 : -ENOTSUP;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return store_fail(s, rc, err, "cannot set WAL mode");
	if (error != 0)
		return bd_error_set(err, error, "store %s: the database cannot "
		    "use WAL mode (a filesystem without shared memory?)",
		    s->path);
	return store_pragma_int(s, "PRAGMA synchronous = NORMAL", NULL, err);
}

/* A list that skips or repeats a version would corrupt the schema. */
static int
store_check_migrations(const struct store_migration *m, size_t n,
    struct bd_error *err)
{
	size_t i;

	if (n == 0)
		return bd_error_set(err, -EINVAL, "store: no migrations");
	for (i = 0; i < n; i++)
		if (m[i].version != (int)i + 1 || m[i].sql == NULL)
			return bd_error_set(err, -EINVAL, "store: migration %zu "
			    "has version %d, expected %zu", i, m[i].version,
			    i + 1);
	return 0;
}

/*
 * Applies one migration with its version bump in one transaction.  The
 * version is read again under the write lock, so two processes opening a
 * new database at once apply each step once.
 */
static int
store_migrate_one(struct store *s, const struct store_migration *m,
    struct bd_error *err)
{
	char *msg = NULL, *bump;
	int rc, cur = 0, error;

	rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return store_fail(s, rc, err, "migration to version %d",
		    m->version);
	if ((error = store_pragma_int(s, "PRAGMA user_version", &cur,
	    err)) != 0)
		goto out;
	if (cur >= m->version)
		goto out;
	rc = sqlite3_exec(s->db, m->sql, NULL, NULL, &msg);
	if (rc == SQLITE_OK) {
		xasprintf(&bump, "PRAGMA user_version = %d", m->version);
		rc = sqlite3_exec(s->db, bump, NULL, NULL, &msg);
		free(bump);
	}
	if (rc != SQLITE_OK) {
		error = bd_error_set(err, store_errno(rc), "store %s: migration "
		    "from version %d to %d failed: %s", s->path, cur,
		    m->version, msg ? msg : sqlite3_errstr(rc));
		goto out;
	}
	rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		error = store_fail(s, rc, err, "commit of migration %d",
		    m->version);
out:
	sqlite3_free(msg);
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, error != 0 ? "ROLLBACK" : "COMMIT", NULL,
		    NULL, NULL);
	return error;
}

/* Brings the schema to the last version of m, refusing a newer database. */
static int
store_migrate(struct store *s, const struct store_migration *m, size_t n,
    struct bd_error *err)
{
	struct bd_error why;
	int cur = 0, last = m[n - 1].version, error;
	size_t i;

	bd_error_clear(&why);
	if ((error = store_pragma_int(s, "PRAGMA user_version", &cur,
	    err)) != 0)
		return error;
	/* An existing schema is copied first: an upgrade can be undone. */
	if (cur > 0 && cur < last) {
		if ((error = store_backup_before_migration(s->path, cur, last,
		    &s->migration_backup, &why)) != 0)
			return bd_error_set(err, error, "store %s: no migration "
			    "from version %d to %d without a backup: %s",
			    s->path, cur, last, why.msg);
		s->migrated_from = cur;
	}
	for (i = 0; i < n && error == 0; i++)
		if (m[i].version > cur)
			error = store_migrate_one(s, &m[i], &why);
	if (error != 0 && s->migration_backup != NULL)
		return bd_error_set(err, error, "%s (the database before the "
		    "migration is in %s)", why.msg, s->migration_backup);
	if (error != 0)
		return bd_error_set(err, error, "%s", why.msg);
	error = store_pragma_int(s, "PRAGMA user_version", &cur, err);
	if (error == 0 && cur > last)
		return bd_error_set(err, -EPROTO, "store %s: the database has "
		    "schema version %d but this bisectd knows versions up to "
		    "%d only; run a newer bisectd or use another database",
		    s->path, cur, last);
	s->version = cur;
	return error;
}

/* Prepares every statement once, so a schema mismatch shows at startup. */
static int
store_prepare(struct store *s, struct bd_error *err)
{
	int i, rc;

	for (i = 0; i < STMT_COUNT; i++) {
		rc = sqlite3_prepare_v3(s->db, store_sql[i], -1,
		    SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL);
		if (rc != SQLITE_OK)
			return bd_error_set(err, store_errno(rc), "store %s: "
			    "statement %d does not fit the schema: %s",
			    s->path, i, sqlite3_errmsg(s->db));
	}
	return 0;
}

int
store_open_with(struct store **sp, const char *path,
    const struct store_migration *m, size_t n, struct bd_error *err)
{
	struct store *s;
	int rc, error;

	*sp = NULL;
	if ((error = store_check_migrations(m, n, err)) != 0)
		return error;
	s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		error = bd_error_set(err, store_errno(rc), "store %s: cannot "
		    "open: %s", path, s->db ? sqlite3_errmsg(s->db) :
		    sqlite3_errstr(rc));
		goto fail;
	}
	if ((error = store_configure(s, err)) != 0 ||
	    (error = store_migrate(s, m, n, err)) != 0 ||
	    (error = store_prepare(s, err)) != 0)
		goto fail;
	*sp = s;
	return 0;
fail:
	store_close(s);
	return error;
}

/* The daemon's entry point: the built-in schema. */
int
store_open(struct store **sp, const char *path, struct bd_error *err)
{
	return store_open_with(sp, path, store_migrations, store_nmigrations,
	    err);
}

void
store_close(struct store *s)
{
	int i;

	if (s == NULL)
		return;
	for (i = 0; i < STMT_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	free(s->path);
	free(s->migration_backup);
	free(s);
}

int
store_schema_version(const struct store *s)
{
	return s->version;
}

const char *
store_migration_backup(const struct store *s, int *fromp, int *top)
{
	if (s->migration_backup != NULL) {
		*fromp = s->migrated_from;
		*top = s->version;
	}
	return s->migration_backup;
}

/* The enum names, for the protocol and messages; "?" if out of range. */
#define STORE_NAME(fn, type, table, n)					\
const char *								\
fn(type v)								\
{									\
	return (int)v >= 0 && (int)v < (n) ? table[v] : "?";		\
}
STORE_NAME(store_bisection_state_name, enum store_bisection_state,
    store_bisection_state_names, STORE_BISECTION_NSTATES)
STORE_NAME(store_verdict_name, enum store_verdict, store_verdict_names,
    STORE_VERDICT_N)
STORE_NAME(store_run_state_name, enum store_run_state,
    store_run_state_names, STORE_RUN_NSTATES)
STORE_NAME(store_host_state_name, enum store_host_state,
    store_host_state_names, STORE_HOST_NSTATES)
STORE_NAME(store_build_state_name, enum store_build_state,
    store_build_state_names, STORE_BUILD_NSTATES)
STORE_NAME(store_sweep_ref_state_name, enum store_sweep_ref_state,
    store_sweep_ref_state_names, STORE_SWEEP_REF_NSTATES)
