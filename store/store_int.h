/* SPDX-License-Identifier: MIT */
/*
 * Inside the store: the connection, its prepared statements and the helpers
 * every table module shares.  Not for use outside store/.
 *
 * Statement discipline: store_stmt() hands out a statement reset and with
 * its bindings cleared; whoever took it calls sqlite3_reset() before
 * returning, so that no half-read SELECT keeps a WAL snapshot pinned.
 */
#ifndef STORE_STORE_INT_H
#define STORE_STORE_INT_H

#include <sqlite3.h>

#include "store/store.h"

/* Every statement the store runs, prepared once in store_open. */
enum store_stmt_id {
	STMT_BEGIN,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_EVENT_ADD,
	STMT_EVENT_LIST,
	STMT_EVENT_PRUNE_AGE,
	STMT_EVENT_PRUNE_ROWS,
	STMT_BISECTION_ACTIVE,
	STMT_BISECTION_ADD,
	STMT_BISECTION_GET,
	STMT_BISECTION_LIST,
	STMT_BISECTION_CONFIRMS,
	STMT_BISECTION_STATE,
	STMT_BISECTION_SET,
	STMT_BISECTION_STATS,
	STMT_RUN_PACE,
	STMT_PROBE_ADD,
	STMT_PROBE_LIST,
	STMT_RUN_ADD,
	STMT_RUN_START,
	STMT_RUN_STATE,
	STMT_RUN_FINISH,
	STMT_RUN_REQUEUE,
	STMT_RUN_CANCEL,
	STMT_RUN_GET,
	STMT_RUN_LIST,
	STMT_SAMPLE_ADD,
	STMT_SAMPLE_LIST,
	STMT_BUILD_GET,
	STMT_BUILD_PUT,
	STMT_BUILD_COPY_PUT,
	STMT_BUILD_COPY_DEL,
	STMT_BUILD_COPY_LIST,
	STMT_HOST_PUT,
	STMT_HOST_GET,
	STMT_HOST_LIST,
	STMT_SWEEP_PUT,
	STMT_SWEEP_GET,
	STMT_SWEEP_CURSOR,
	STMT_SWEEP_REF_ADD,
	STMT_SWEEP_REF_REWRITE,
	STMT_SWEEP_REF_SET,
	STMT_SWEEP_REF_LIST,
	STMT_SWEEP_SAMPLE_ADD,
	STMT_SWEEP_RUNS,
	STMT_SWEEP_SAMPLE_LIST,
	STMT_SWEEP_REF_BISECTION,
	STMT_SWEEP_REF_LINK,
	STMT_SWEEP_REUSE_RUNS,
	STMT_RUN_REUSE_ADD,
	STMT_SAMPLE_REUSE_ADD,
	STMT_REPORT_PUT,
	STMT_REPORT_GET,
	STMT_REF_EVENT_ADD,
	STMT_REF_EVENT_LIST,
	STMT_REF_EVENT_LAST,
	STMT_REF_PUT,
	STMT_REF_DEL,
	STMT_REF_LIST,
	STMT_LAB_JOB_PUT,
	STMT_LAB_JOB_GET,
	STMT_SWEEP_JOB_ADD,
	STMT_SWEEP_JOB_LAB,
	STMT_SWEEP_JOB_DEL,
	STMT_SWEEP_JOB_FORGET,
	STMT_SWEEP_JOB_LIST,
	STMT_INSTANCE_GET,
	STMT_HOST_DESC_PUT,
	STMT_HOST_DESC_GET,
	STMT_COUNT
};

struct store {
	sqlite3		*db;
	char		*path;
	int		 version;
	char		*migration_backup;	/* copy taken before migrating */
	int		 migrated_from;		/* its schema version */
	sqlite3_stmt	*st[STMT_COUNT];
};

/* The SQL of each statement, indexed by enum store_stmt_id (schema.c). */
extern const char *const store_sql[STMT_COUNT];

/* Enum names as stored in the database (schema.c). */
extern const char *const store_bisection_state_names[STORE_BISECTION_NSTATES];
extern const char *const store_verdict_names[STORE_VERDICT_N];
extern const char *const store_run_state_names[STORE_RUN_NSTATES];
extern const char *const store_host_state_names[STORE_HOST_NSTATES];
extern const char *const store_build_state_names[STORE_BUILD_NSTATES];
extern const char *const store_sweep_ref_state_names[STORE_SWEEP_REF_NSTATES];
#define STORE_REF_NCHANGES 3
extern const char *const store_ref_change_names[STORE_REF_NCHANGES];

/* store_backup without the absolute-path rule (backup.c). */
int	 store_backup_copy(const char *db_path, const char *dest,
	    struct store_backup_info *info, struct bd_error *err);
/*
 * Copies the database at db_path, about to be migrated from version from
 * to version to, into a new file beside it; *destp is its path (caller
 * frees).  A failure leaves no file.
 */
int	 store_backup_before_migration(const char *db_path, int from, int to,
	    char **destp, struct bd_error *err);

/* Reads one row into a module's struct and hands it to the user callback. */
typedef int (*store_row_fn)(void *arg, sqlite3_stmt *st);

sqlite3_stmt *store_stmt(struct store *s, enum store_stmt_id id);
int	 store_fail(struct store *s, int rc, struct bd_error *err,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int	 store_exec(struct store *s, sqlite3_stmt *st, struct bd_error *err,
	    const char *what);
int	 store_row(struct store *s, sqlite3_stmt *st, struct bd_error *err,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int	 store_each(struct store *s, sqlite3_stmt *st, store_row_fn fn,
	    void *arg, struct bd_error *err, const char *what);
int	 store_begin(struct store *s, struct bd_error *err);
int	 store_commit(struct store *s, struct bd_error *err);
void	 store_rollback(struct store *s);
int	 store_changes(struct store *s);
int64_t	 store_now_ms(void);
/*
 * Binds (key, lab, job, now) as ?1..?4 of statement id, for a run's or a
 * sweep run's lab job; NULL with err set when the lab or job is missing.
 */
sqlite3_stmt *store_lab_job_bind(struct store *s, enum store_stmt_id id,
	    int64_t key, const char *lab, const char *job, struct bd_error *err);
void	 store_bind_text(sqlite3_stmt *st, int idx, const char *text);
void	 store_bind_opt(sqlite3_stmt *st, int idx, int64_t v);
void	 store_bind_mask(sqlite3_stmt *st, int idx, const char *const *names,
	    int n, unsigned mask);
char	*store_col_text(sqlite3_stmt *st, int col);
int	 store_col_enum(sqlite3_stmt *st, int col, const char *const *names,
	    int n);
void	 store_free_str(const char *p);
/* Inside a transaction: reads a sweep row's link and sets an empty one. */
int	 store_sweep_ref_link_in(struct store *s, int64_t id,
	    int64_t bisection, int64_t *linked, struct bd_error *err);

#endif
