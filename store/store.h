/* SPDX-License-Identifier: MIT */
/*
 * The SQLite store: every piece of state bisectd keeps, and the only place
 * in the tree that speaks SQL.
 *
 * Durability.  The database runs in WAL mode with synchronous=NORMAL.  A
 * transaction that COMMIT has returned for is in the WAL file in the kernel's
 * page cache, so it survives the death of the daemon at any moment, kill -9
 * included: "no sample lost after kill -9" holds.  What NORMAL gives up
 * against FULL is the fsync at every commit: on a power loss or kernel crash
 * the last few commits can be lost (the database stays consistent, it only
 * goes back in time).  For bisectd that costs at most a re-run of the runs
 * whose results were lost, since a run that is not recorded as finished is
 * run again; it never stores a sample twice.  FULL would add an fsync per
 * commit (measured 13 to 26 times slower per finished run on the
 * development machine), and the store runs on the event-loop thread, so
 * each fsync would stall the control socket too: NORMAL it is.
 *
 * Schema.  The schema is a list of migrations in code (store_migrations),
 * applied in order through PRAGMA user_version, each in its own transaction
 * together with the version bump.  A database whose version is newer than
 * the list is refused with -EPROTO and a message naming both versions.
 * Foreign keys are on; a migration that has to rebuild a table cannot turn
 * them off (the pragma is a no-op inside a transaction) and must use
 * PRAGMA defer_foreign_keys instead.
 *
 * Conventions.  Every function returns 0 or a negative errno value and, on
 * failure, fills err (which may be NULL).  -ENOENT: no such row, or the
 * row a new one refers to (bisection, run) does not exist.  -EEXIST: a
 * unique key is taken.  -EALREADY: the row is past the state the call needs.
 * -EINVAL: a value the schema refuses.  -EBUSY: another process held the
 * database for longer than the busy timeout.  A failed write changes
 * nothing: each write is one transaction.
 *
 * Ownership.  Structs filled by store_*_get() and store_build_lookup() own
 * their strings until the matching store_*_release().  Structs passed to a list callback, and their
 * strings, belong to the store and are freed when the callback returns: copy
 * what you keep.  A callback returns 0 to go on or a negative errno to stop;
 * the list function then returns that value.  A callback must not call into
 * the same store (collect ids, act after the list returns).  Input structs
 * are only read during the call.
 *
 * Times are milliseconds since the epoch (CLOCK_REALTIME).  Revisions are
 * full hexadecimal commit ids.  A struct store belongs to one thread.
 */
#ifndef STORE_STORE_H
#define STORE_STORE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "common/agg.h"
#include "common/error.h"

struct store;

/* One schema step: the SQL that takes version - 1 to version. */
struct store_migration {
	int		 version;	/* 1, 2, 3, ... in order */
	const char	*sql;		/* one or more statements */
};

/* The migrations this binary knows; the last one is its schema version. */
extern const struct store_migration store_migrations[];
extern const size_t store_nmigrations;

/*
 * Claims the database file at path for this process before it is opened:
 * refuses a symlink or a file with hard links, creates it 0600 when
 * missing, leaves an existing one at most group-readable (-wal and -shm
 * too), and takes an exclusive flock on the file itself.  *fdp holds the
 * lock until the process closes it, which it must do only after
 * store_close (closing any descriptor of the file drops SQLite's locks).
 * -EBUSY when another process holds it.
 */
int	store_lock(const char *path, int *fdp, struct bd_error *err);
/*
 * Opens (creating if needed) and migrates the database at path.  Before
 * migrating a database that has a schema already, it takes an online
 * backup beside it, PATH.vFROM-to-vTO.bak (PATH.vFROM-to-vTO.N.bak when
 * that name is taken), and refuses to migrate when the backup fails; a
 * failed migration's message names the backup.
 */
int	store_open(struct store **sp, const char *path, struct bd_error *err);
/*
 * As store_open, with the migration list m[0..n-1] instead of the built-in
 * one: the test hook for "a v1 database meets a v2 binary".  The list must
 * run 1..n without gaps and must contain the built-in schema, since the
 * statements are prepared against it.
 */
int	store_open_with(struct store **sp, const char *path,
	    const struct store_migration *m, size_t n, struct bd_error *err);
/* Finalizes the statements and closes; NULL is ignored. */
void	store_close(struct store *s);
/*
 * The backup store_open took before it migrated s (valid until
 * store_close), with the versions it migrated *fromp to *top; NULL when it
 * migrated nothing, or only a new, empty database.
 */
const char *store_migration_backup(const struct store *s, int *fromp,
	    int *top);

/* The path given to store_open; valid until store_close. */
const char *store_path(const struct store *s);
/*
 * Rewrites msg (of size bytes) for a person: every "store PATH: " goes and
 * any other mention of path becomes "the database".  Returns 1 when msg
 * began with the prefix (the error is the store's own).  No-op for a NULL
 * path.
 */
int	store_scrub(const char *path, char *msg, size_t size);

/* What a backup copied. */
struct store_backup_info {
	size_t	pages;
	size_t	bytes;
};

/*
 * Copies the database at db_path into a new file dest (absolute; refused
 * with -EEXIST when it exists), consistently while another connection
 * writes, and checks the copy.  Blocks: call it off the event loop.  It
 * opens its own connections, so it may run on any thread.  A failed
 * backup leaves no file behind.
 */
int	store_backup(const char *db_path, const char *dest,
	    struct store_backup_info *info, struct bd_error *err);
/* The schema version of the open database. */
int	store_schema_version(const struct store *s);

/* ---- events: the audit trail of state-changing requests ---- */

struct store_event {
	int64_t		 id;
	int64_t		 time_ms;
	uid_t		 uid;
	const char	*request;
	const char	*outcome;
};

typedef int (*store_event_cb)(void *arg, const struct store_event *ev);

int	store_event_add(struct store *s, int64_t time_ms, uid_t uid,
	    const char *request, const char *outcome, struct bd_error *err);
/*
 * The audit trail's retention: removes events older than before_ms (0:
 * none by age) and all but the newest keep (0: no cap).  Returns 0 or a
 * negative errno.
 */
int	store_event_prune(struct store *s, int64_t before_ms, uint64_t keep,
	    struct bd_error *err);
/* Events with id > after_id, oldest first, at most limit (0: all). */
int	store_event_list(struct store *s, int64_t after_id, size_t limit,
	    store_event_cb cb, void *arg, struct bd_error *err);

/* ---- bisections ---- */

enum store_bisection_state {
	STORE_BISECTION_QUEUED,
	STORE_BISECTION_RUNNING,
	STORE_BISECTION_DONE,		/* a verdict was reached */
	STORE_BISECTION_CANCELLED,
	STORE_BISECTION_FAILED,		/* could not go on; detail says why */
	STORE_BISECTION_NSTATES
};
/* Queued and running: the states a dedup key is unique among. */
#define STORE_BISECTION_ACTIVE \
	((1u << STORE_BISECTION_QUEUED) | (1u << STORE_BISECTION_RUNNING))

enum store_verdict {
	STORE_VERDICT_NONE,
	STORE_VERDICT_CULPRIT,
	STORE_VERDICT_INCONCLUSIVE,
	STORE_VERDICT_NOT_REPRODUCED,
	STORE_VERDICT_N
};

struct store_bisection {
	int64_t		 id;		/* set by create */
	const char	*params;	/* the request as JSON */
	const char	**good;		/* ngood revisions, no spaces */
	size_t		 ngood;
	const char	*bad;
	const char	*benchmark;
	const char	*metric;
	const char	*group;
	const char	*dedup_key;	/* NULL: never deduplicated */
	enum store_bisection_state state;
	enum store_verdict verdict;
	const char	*culprit;	/* NULL unless known */
	double		 confidence;	/* of the verdict; 0 when none */
	const char	*detail;	/* JSON or text: candidate set, why failed */
	int		 priority;	/* higher runs first */
	uid_t		 created_by;
	int64_t		 created_ms;
	int64_t		 updated_ms;
	const char	*origin;	/* JSON: the sweep that started it; NULL */
};

/* What set_state records beside the state; strings may be NULL. */
struct store_verdict_info {
	enum store_verdict verdict;
	const char	*culprit;
	double		 confidence;
	const char	*detail;
};

typedef int (*store_bisection_cb)(void *arg, const struct store_bisection *b);

void	store_bisection_init(struct store_bisection *b);
void	store_bisection_release(struct store_bisection *b);
/*
 * Records a queued bisection from b (id, state, verdict and times are
 * ignored) and sets *idp.  When a queued or running bisection has the same
 * dedup_key, nothing is stored, *idp is that bisection's id and the return
 * is -EEXIST.
 */
int	store_bisection_create(struct store *s, const struct store_bisection *b,
	    int64_t *idp, struct bd_error *err);

/*
 * What a bisection started by a sweep adds to its creation.  row (a
 * sweep_refs id, 0: none) is linked to the bisection; every run of the
 * reuse[0..nreuse-1] rows' sweep samples becomes a done run of the
 * bisection at that row's commit, marked reused_from the row, with all its
 * metrics as samples (index 0), ahead of any run of its own.
 */
struct store_sweep_link {
	int64_t		 row;
	const int64_t	*reuse;
	size_t		 nreuse;
};

/*
 * store_bisection_create and the link, in one transaction, so that a
 * kill -9 leaves either the bisection with its reused runs and the row
 * pointing at it, or none of them.  A row already linked gives -EALREADY
 * and *idp its bisection, storing nothing; an active twin (same dedup_key)
 * gives -EEXIST and *idp the twin, to which the row is then linked.
 */
int	store_bisection_create_linked(struct store *s,
	    const struct store_bisection *b, const struct store_sweep_link *l,
	    int64_t *idp, struct bd_error *err);
int	store_bisection_get(struct store *s, int64_t id,
	    struct store_bisection *b, struct bd_error *err);
/* Bisections whose state is in state_mask (bits 1 << state), by priority. */
int	store_bisection_list(struct store *s, unsigned state_mask,
	    store_bisection_cb cb, void *arg, struct bd_error *err);
/*
 * The bisections whose params say {"confirm":true,"parent":parent} (a
 * culprit's confirmation on another group), by id, in any state.
 */
int	store_bisection_confirms(struct store *s, int64_t parent,
	    store_bisection_cb cb, void *arg, struct bd_error *err);
/*
 * Moves a bisection to state and, when v is not NULL, records the verdict.
 * Done, cancelled and failed are final: leaving them is -EALREADY, and
 * entering one cancels the bisection's queued and running runs in the same
 * transaction (stop their remote work first: list the running runs).
 */
int	store_bisection_set_state(struct store *s, int64_t id,
	    enum store_bisection_state state, const struct store_verdict_info *v,
	    struct bd_error *err);

/* ---- probes: the engine's decisions, one row per commit it asked for ---- */

struct store_probe {
	int64_t		 id;
	int64_t		 bisection;
	const char	*commit;
	int64_t		 requested_ms;
};

typedef int (*store_probe_cb)(void *arg, const struct store_probe *p);

int	store_probe_add(struct store *s, int64_t bisection, const char *commit,
	    int64_t *idp, struct bd_error *err);
int	store_probe_list(struct store *s, int64_t bisection, store_probe_cb cb,
	    void *arg, struct bd_error *err);

/* ---- runs and their samples ---- */

enum store_run_state {
	STORE_RUN_QUEUED,
	STORE_RUN_RUNNING,
	STORE_RUN_DONE,			/* has its samples */
	STORE_RUN_FAILED_INFRA,		/* host trouble: not a result */
	STORE_RUN_SKIPPED,		/* commit cannot be built or booted */
	STORE_RUN_CANCELLED,
	STORE_RUN_NSTATES
};

struct store_run {
	int64_t		 id;
	int64_t		 bisection;
	const char	*commit;
	const char	*host;		/* NULL while queued */
	enum store_run_state state;
	int		 attempt;	/* 1, then +1 per requeue or retry */
	int64_t		 build;		/* builds row, 0 when none */
	int64_t		 seq;		/* finish order, 0 until finished */
	int64_t		 queued_ms;
	int64_t		 started_ms;	/* 0 until started */
	int64_t		 finished_ms;	/* 0 until finished */
	int		 has_exit;	/* exit_status is known */
	int		 exit_status;
	const char	*log_path;
	const char	*timings;	/* JSON object of step durations */
	int64_t		 reused_from;	/* sweep_refs row it was copied from; 0 */
};

/* Counters of one bisection, read from one snapshot. */
struct store_bisection_stats {
	int64_t		 runs[STORE_RUN_NSTATES];
	int64_t		 samples;
	int64_t		 probes;
	int64_t		 reused;	/* done runs copied from a sweep */
};

/* How a run ended; strings may be NULL. */
struct store_run_result {
	enum store_run_state state;	/* done, failed-infra or skipped */
	int		 has_exit;
	int		 exit_status;
	const char	*log_path;
	const char	*timings;	/* JSON, or NULL */
	int64_t		 build;		/* 0: none */
};

/* One measured value of a run. */
struct store_metric {
	const char	*name;		/* bd_metric_name_valid */
	double		 value;		/* finite */
	unsigned	 index;		/* which of the run's values of name */
};

struct store_sample {
	int64_t		 run;
	const char	*commit;
	const char	*host;
	const char	*metric;
	double		 value;
	int		 attempt;
	int64_t		 seq;		/* the run's finish order */
	unsigned	 index;		/* which of the run's values of metric */
	int64_t		 reused_from;	/* sweep_refs row of a reused run; 0 */
	unsigned	 nvalues;	/* raw values behind value: 1, or more
					   from store_run_value_list */
};

typedef int (*store_run_cb)(void *arg, const struct store_run *r);
typedef int (*store_sample_cb)(void *arg, const struct store_sample *sm);

void	store_run_init(struct store_run *r);
void	store_run_release(struct store_run *r);
/* A queued run of commit for bisection. */
int	store_run_create(struct store *s, int64_t bisection, const char *commit,
	    int64_t *idp, struct bd_error *err);
/* Queued to running on host; -EALREADY when the run is not queued. */
int	store_run_start(struct store *s, int64_t id, const char *host,
	    struct bd_error *err);
/*
 * Ends a queued or running run with res and stores its n samples (only a
 * done run has samples), all in one transaction.  An ended run gives
 * -EALREADY; a metric twice gives -EEXIST; either way nothing is stored.
 */
int	store_run_finish(struct store *s, int64_t id,
	    const struct store_run_result *res, const struct store_metric *m,
	    size_t n, struct bd_error *err);
/* A new queued run of the same commit after a failed-infra run. */
int	store_run_retry(struct store *s, int64_t id, int64_t *newidp,
	    struct bd_error *err);
/* At startup: running runs back to queued, next attempt; *countp of them. */
int	store_runs_requeue_inflight(struct store *s, int64_t *countp,
	    struct bd_error *err);
/* Queued and running runs of a bisection to cancelled; *countp of them. */
int	store_runs_cancel(struct store *s, int64_t bisection, int64_t *countp,
	    struct bd_error *err);
int	store_run_get(struct store *s, int64_t id, struct store_run *r,
	    struct bd_error *err);
/*
 * Runs of a bisection (0: of all) whose state is in state_mask, finished
 * runs first in finish order, then the others by id.
 */
int	store_run_list(struct store *s, int64_t bisection, unsigned state_mask,
	    store_run_cb cb, void *arg, struct bd_error *err);
/*
 * Samples of a bisection, of one commit when commit is not NULL, in the
 * order they were stored (runs in finish order): replaying them rebuilds
 * the engine exactly.
 */
int	store_sample_list(struct store *s, int64_t bisection, const char *commit,
	    store_sample_cb cb, void *arg, struct bd_error *err);
/* The aggregate of a metric's values in one run (common/agg.h). */
typedef enum agg_kind (*store_agg_cb)(void *arg, const char *metric);
/*
 * The same samples with the run as the unit: one per run and metric, its
 * value the aggregate agg_of gives for the metric of that run's values
 * (index 0, nvalues the count).  metric, when not NULL, keeps that one.
 */
int	store_run_value_list(struct store *s, int64_t bisection,
	    const char *commit, const char *metric, store_agg_cb agg_of,
	    void *agg_arg, store_sample_cb cb, void *arg,
	    struct bd_error *err);

/* Run counts by state, samples and probes, consistent with each other. */
int	store_bisection_stats(struct store *s, int64_t id,
	    struct store_bisection_stats *st, struct bd_error *err);

/*
 * The measured pace of a benchmark on a host group, over every bisection:
 * done runs (reused ones left out) that built their commit and those that
 * ran on a kept artifact, each counted with their summed start-to-finish
 * time.
 */
struct store_run_pace {
	int64_t	built_n, built_ms;
	int64_t	cached_n, cached_ms;
};
int	store_run_pace(struct store *s, const char *benchmark,
	    const char *group, struct store_run_pace *p, struct bd_error *err);

/* ---- builds, shared across bisections ---- */

enum store_build_state {
	STORE_BUILD_BUILDING,
	STORE_BUILD_OK,
	STORE_BUILD_FAILED,		/* the commit does not build: a skip */
	STORE_BUILD_NSTATES
};

struct store_build {
	int64_t		 id;
	const char	*commit;
	const char	*benchmark;	/* name plus whatever changes the build */
	const char	*group;
	const char	*host;		/* where the artifact lives */
	const char	*artifact;
	const char	*checksum;
	enum store_build_state state;
	int64_t		 updated_ms;
};

void	store_build_init(struct store_build *b);
void	store_build_release(struct store_build *b);
/* The build of (commit, benchmark, group), or -ENOENT. */
int	store_build_lookup(struct store *s, const char *commit,
	    const char *benchmark, const char *group, struct store_build *b,
	    struct bd_error *err);
/* Inserts or replaces the build of b's key; *idp (may be NULL) its id. */
int	store_build_record(struct store *s, const struct store_build *b,
	    int64_t *idp, struct bd_error *err);

/*
 * The hosts that keep a build's artifact: the build host and every test
 * host a copy was relayed to and checked on, each with its kept copy's
 * path and sha256 (NULL when not known).  Strings are valid during the
 * callback only.
 */
struct store_build_copy {
	const char	*host;
	const char	*artifact;
	const char	*sha256;
	int64_t		 updated_ms;
};
typedef int (*store_build_copy_cb)(void *arg,
	    const struct store_build_copy *c);
/* Host keeps a copy of build's artifact (replacing what it kept before). */
int	store_build_copy_put(struct store *s, int64_t build,
	    const struct store_build_copy *c, struct bd_error *err);
/* Host (NULL: every host) no longer keeps the artifact. */
int	store_build_copy_forget(struct store *s, int64_t build,
	    const char *host, struct bd_error *err);
/* The copies of build, the most recently kept first. */
int	store_build_copy_list(struct store *s, int64_t build,
	    store_build_copy_cb cb, void *arg, struct bd_error *err);

/* ---- hosts: health that must survive a restart (drain, quarantine) ---- */

enum store_host_state {
	STORE_HOST_UNKNOWN,
	STORE_HOST_UP,
	STORE_HOST_DOWN,
	STORE_HOST_QUARANTINED,
	STORE_HOST_DRAINING,
	STORE_HOST_NSTATES
};

struct store_host {
	const char	*name;
	const char	*group;
	enum store_host_state state;
	int		 consecutive_failures;
	int64_t		 last_seen_ms;	/* 0: never */
};

typedef int (*store_host_cb)(void *arg, const struct store_host *h);

void	store_host_init(struct store_host *h);
void	store_host_release(struct store_host *h);
/* Inserts or replaces the host named h->name. */
int	store_host_put(struct store *s, const struct store_host *h,
	    struct bd_error *err);
int	store_host_get(struct store *s, const char *name, struct store_host *h,
	    struct bd_error *err);
int	store_host_list(struct store *s, store_host_cb cb, void *arg,
	    struct bd_error *err);
/* Keeps what host's describe command printed (replacing an older one). */
int	store_host_describe_put(struct store *s, const char *host,
	    const char *command, const char *output, struct bd_error *err);
/*
 * What host printed for command into *output (caller frees); -ENOENT
 * when it never ran there.
 */
int	store_host_describe_get(struct store *s, const char *host,
	    const char *command, char **output, struct bd_error *err);

/* ---- sweeps: where each linux-next sweep got to ---- */

struct store_sweep {
	const char	*name;
	const char	*last_tag;	/* NULL: none yet */
	const char	*state;		/* the sweep module's own words */
	int64_t		 updated_ms;
	int64_t		 cursor;	/* last ref event handled; 0: none */
};

void	store_sweep_init(struct store_sweep *sw);
void	store_sweep_release(struct store_sweep *sw);
int	store_sweep_put(struct store *s, const struct store_sweep *sw,
	    struct bd_error *err);
int	store_sweep_get(struct store *s, const char *name,
	    struct store_sweep *sw, struct bd_error *err);

/* What a sweep did with one matching ref (a ref and the commit it named). */
enum store_sweep_ref_state {
	STORE_SWEEP_BASELINE = 0,	/* measured only as a first reference */
	STORE_SWEEP_PENDING,		/* to be swept, no run yet */
	STORE_SWEEP_SAMPLING,		/* runs under way */
	STORE_SWEEP_COMPARED,		/* judged; result says what changed */
	STORE_SWEEP_FAILED,		/* did not build: not compared */
	STORE_SWEEP_REWRITTEN,		/* the ref moved on to another commit */
	STORE_SWEEP_REF_NSTATES
};

struct store_sweep_ref {
	int64_t		 id;
	const char	*sweep;
	const char	*ref;		/* full name */
	const char	*commit;	/* 40 hex digits */
	int64_t		 event;		/* ref event seq that brought it */
	enum store_sweep_ref_state state;
	unsigned	 runs;		/* runs stored */
	const char	*result;	/* JSON, NULL until compared */
	int64_t		 bisection;	/* started or linked; 0: none */
	int64_t		 created_ms;
	int64_t		 updated_ms;
};

/* A row borrowed for the callback; nonzero stops the walk. */
typedef int (*store_sweep_ref_cb)(void *arg, const struct store_sweep_ref *r);
typedef int (*store_sweep_sample_cb)(void *arg, unsigned run,
    const char *metric, double value);

/*
 * Records that the sweep handled the ref events up to cursor, and adds the
 * n rows they led to (sweep, ref, commit, event and state are read; a row
 * already there is kept), marking older commits of the same refs
 * rewritten: all in one transaction.  ids[i] (may be NULL) gets each
 * row's id, 0 for one that was already there.
 */
int	store_sweep_advance(struct store *s, const char *sweep, int64_t cursor,
	    const struct store_sweep_ref *rows, size_t n, int64_t *ids,
	    struct bd_error *err);
/* The sweep's rows, oldest first. */
int	store_sweep_ref_list(struct store *s, const char *sweep,
	    store_sweep_ref_cb cb, void *arg, struct bd_error *err);
/* Sets a row's state, result (may be NULL) and bisection (0: none). */
int	store_sweep_ref_set(struct store *s, int64_t id,
	    enum store_sweep_ref_state state, const char *result,
	    int64_t bisection, struct bd_error *err);
/*
 * Sets a row's bisection when it has none (*linked = bisection); a row
 * already linked gives -EALREADY and *linked its bisection, unchanged.
 */
int	store_sweep_ref_link(struct store *s, int64_t id, int64_t bisection,
	    int64_t *linked, struct bd_error *err);
/*
 * Stores run number run (1-based, the row's runs + 1) of a row with its
 * metrics, and counts it, in one transaction: -EALREADY when that run is
 * already stored, so a run replayed after a restart is not counted twice.
 */
int	store_sweep_sample_add(struct store *s, int64_t sweep_ref, unsigned run,
	    const struct store_metric *m, size_t n, struct bd_error *err);
/*
 * store_sweep_sample_add for the run of sweep job job (0: none), which
 * the same transaction forgets: a run whose result is stored is never
 * followed again after a crash.
 */
int	store_sweep_run_record(struct store *s, int64_t sweep_ref,
	    unsigned run, int64_t job, const struct store_metric *m, size_t n,
	    struct bd_error *err);
/* A row's samples by run, then metric. */
int	store_sweep_sample_list(struct store *s, int64_t sweep_ref,
	    store_sweep_sample_cb cb, void *arg, struct bd_error *err);
const char *store_sweep_ref_state_name(enum store_sweep_ref_state st);

/*
 * ---- sweep jobs: the sweep runs in flight ----
 * A sweep run is stored before its backend gets it, and forgotten when its
 * result is stored (store_sweep_run_record), when it ended without one and
 * when its row is compared, failed or rewritten (store_sweep_ref_set).
 * What is left after a crash is what the sweep follows again: the job id
 * names the lab's job once the lab accepted it.
 */
struct store_sweep_job {
	int64_t		 id;
	int64_t		 sweep_ref;
	const char	*lab;		/* NULL until a lab accepted the job */
	const char	*job;		/* the lab's job id, or NULL */
};

/* A row borrowed for the callback; nonzero stops the walk. */
typedef int (*store_sweep_job_cb)(void *arg, const struct store_sweep_job *j);

int	store_sweep_job_add(struct store *s, int64_t sweep_ref, int64_t *id,
	    struct bd_error *err);
/* The lab accepted job for sweep job id. */
int	store_sweep_job_lab(struct store *s, int64_t id, const char *lab,
	    const char *job, struct bd_error *err);
/* Forgets one (0 when it was not there either). */
int	store_sweep_job_del(struct store *s, int64_t id, struct bd_error *err);
/* The sweep jobs of one row, oldest first. */
int	store_sweep_job_list(struct store *s, int64_t sweep_ref,
	    store_sweep_job_cb cb, void *arg, struct bd_error *err);

/* ---- reports: one per bisection, replaced when written again ---- */

int	store_report_put(struct store *s, int64_t bisection, const char *text,
	    const char *json, struct bd_error *err);
/* *textp and *jsonp (may be NULL when none) are the caller's to free. */
int	store_report_get(struct store *s, int64_t bisection, char **textp,
	    char **jsonp, struct bd_error *err);

/* ---- ref events: what each fetch changed among the watched refs ---- */

/*
 * The store's copy of a repo/refs.h event (store/ may not include repo/):
 * change is 0 appeared, 1 moved, 2 disappeared, as enum ref_change.
 */
struct store_ref_event {
	int64_t		 seq;		/* row id, increasing; set by add */
	const char	*ref;
	const char	*old_id;	/* NULL when appeared */
	const char	*new_id;	/* NULL when disappeared */
	int		 change;
	int64_t		 seen_ms;
};

/* One watched ref as the last stored fetch saw it. */
struct store_ref {
	const char	*ref;
	const char	*id;
};

typedef int (*store_ref_event_cb)(void *arg, const struct store_ref_event *ev);
typedef int (*store_ref_cb)(void *arg, const struct store_ref *r);

/*
 * Stores the n events of one fetch and applies them to the ref snapshot
 * (table repo_refs: appeared and moved refs set to new_id, disappeared ones
 * removed), all in one transaction, so a kill -9 leaves either both or
 * neither.  ev[i].seq is set to each event's row id; seq and seen_ms of
 * the input are otherwise ignored (seen_ms is taken from seen_ms).
 */
int	store_ref_event_add(struct store *s, struct store_ref_event *ev,
	    size_t n, int64_t seen_ms, struct bd_error *err);
/* Events with seq > seq, oldest first. */
int	store_ref_event_list_since(struct store *s, int64_t seq,
	    store_ref_event_cb cb, void *arg, struct bd_error *err);
/* The newest event's seq, 0 when none. */
int	store_ref_event_last(struct store *s, int64_t *seqp,
	    struct bd_error *err);
/* The ref snapshot, by ref name. */
int	store_ref_list(struct store *s, store_ref_cb cb, void *arg,
	    struct bd_error *err);

/* The words the database and the protocol use for the enums. */
const char *store_bisection_state_name(enum store_bisection_state st);
const char *store_verdict_name(enum store_verdict v);
const char *store_run_state_name(enum store_run_state st);
const char *store_host_state_name(enum store_host_state st);
const char *store_build_state_name(enum store_build_state st);

/* ---- lab jobs ---- */

/* Records (or replaces) the lab job that serves run. */
int	store_lab_job_put(struct store *s, int64_t run, const char *lab,
	    const char *job, struct bd_error *err);
/* The lab job recorded for run into *job (caller frees); -ENOENT: none. */
int	store_lab_job_get(struct store *s, int64_t run, char **job,
	    struct bd_error *err);
/* This database's random instance id (caller frees). */
int	store_instance_id(struct store *s, char **id, struct bd_error *err);

#endif
