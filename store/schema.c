/* SPDX-License-Identifier: MIT */
/*
 * The schema and every SQL statement of the store, in one place so that a
 * column change is one diff.  Migrations are append-only: a released
 * version's SQL never changes, a new version is added at the end.
 */
#include "store/store_int.h"

/*
 * Version 1: everything issues 2 to 7 need.  Column "rev" holds a full
 * commit id ("commit" is an SQL keyword).  The dedup index is partial so a
 * request may be repeated once the earlier bisection has ended.  runs.seq
 * numbers finished runs in finish order, so replaying samples replays the
 * engine's input in the order it first saw it.
 */
static const char store_schema_v1[] =
"CREATE TABLE hosts ("
"  name TEXT PRIMARY KEY,"
"  grp TEXT NOT NULL,"
"  state TEXT NOT NULL CHECK (state IN"
"    ('unknown', 'up', 'down', 'quarantined', 'draining')),"
"  consecutive_failures INTEGER NOT NULL DEFAULT 0"
"    CHECK (consecutive_failures >= 0),"
"  last_seen_ms INTEGER"
") STRICT;"
"CREATE TABLE bisections ("
"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
"  params TEXT NOT NULL CHECK (json_valid(params)),"
"  good TEXT NOT NULL CHECK (good <> ''),"
"  bad TEXT NOT NULL CHECK (bad <> ''),"
"  benchmark TEXT NOT NULL,"
"  metric TEXT NOT NULL,"
"  grp TEXT NOT NULL,"
"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN"
"    ('queued', 'running', 'done', 'cancelled', 'failed')),"
"  verdict TEXT NOT NULL DEFAULT 'none' CHECK (verdict IN"
"    ('none', 'culprit', 'inconclusive', 'not-reproduced')),"
"  culprit TEXT,"
"  confidence REAL NOT NULL DEFAULT 0 CHECK (confidence BETWEEN 0 AND 1),"
"  detail TEXT,"
"  priority INTEGER NOT NULL DEFAULT 0,"
"  created_by INTEGER NOT NULL,"
"  created_ms INTEGER NOT NULL,"
"  updated_ms INTEGER NOT NULL,"
"  dedup_key TEXT"
") STRICT;"
"CREATE UNIQUE INDEX bisections_dedup ON bisections (dedup_key)"
"  WHERE state IN ('queued', 'running');"
"CREATE INDEX bisections_state ON bisections (state);"
"CREATE TABLE probes ("
"  id INTEGER PRIMARY KEY,"
"  bisection INTEGER NOT NULL REFERENCES bisections (id),"
"  rev TEXT NOT NULL,"
"  requested_ms INTEGER NOT NULL"
") STRICT;"
"CREATE INDEX probes_bisection ON probes (bisection);"
"CREATE TABLE builds ("
"  id INTEGER PRIMARY KEY,"
"  rev TEXT NOT NULL,"
"  benchmark TEXT NOT NULL,"
"  grp TEXT NOT NULL,"
"  host TEXT,"
"  artifact TEXT,"
"  checksum TEXT,"
"  state TEXT NOT NULL CHECK (state IN ('building', 'ok', 'failed')),"
"  created_ms INTEGER NOT NULL,"
"  updated_ms INTEGER NOT NULL,"
"  UNIQUE (rev, benchmark, grp)"
") STRICT;"
"CREATE TABLE runs ("
"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
"  bisection INTEGER NOT NULL REFERENCES bisections (id),"
"  rev TEXT NOT NULL,"
"  host TEXT,"
"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued',"
"    'running', 'done', 'failed-infra', 'skipped', 'cancelled')),"
"  attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1),"
"  build INTEGER REFERENCES builds (id),"
"  seq INTEGER UNIQUE,"
"  queued_ms INTEGER NOT NULL,"
"  started_ms INTEGER,"
"  finished_ms INTEGER,"
"  exit_status INTEGER,"
"  log_path TEXT,"
"  timings TEXT CHECK (timings IS NULL OR json_valid(timings))"
") STRICT;"
"CREATE INDEX runs_bisection ON runs (bisection, rev);"
"CREATE INDEX runs_state ON runs (state);"
"CREATE TABLE samples ("
"  run INTEGER NOT NULL REFERENCES runs (id),"
"  metric TEXT NOT NULL CHECK (metric <> ''),"
"  value REAL NOT NULL,"
"  UNIQUE (run, metric)"
") STRICT;"
"CREATE TABLE sweeps ("
"  name TEXT PRIMARY KEY,"
"  last_tag TEXT,"
"  state TEXT NOT NULL,"
"  updated_ms INTEGER NOT NULL"
") STRICT;"
"CREATE TABLE events ("
"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
"  time_ms INTEGER NOT NULL,"
"  uid INTEGER NOT NULL,"
"  request TEXT NOT NULL,"
"  outcome TEXT NOT NULL"
") STRICT;"
"CREATE TABLE reports ("
"  bisection INTEGER PRIMARY KEY REFERENCES bisections (id),"
"  text TEXT NOT NULL,"
"  json TEXT CHECK (json IS NULL OR json_valid(json)),"
"  created_ms INTEGER NOT NULL"
") STRICT;";

/*
 * Version 2: the mirror's watched refs.  repo_refs is the snapshot the
 * last stored fetch saw; ref_events the changes, in the order they were
 * seen (seq), written in one transaction with the snapshot.
 */
static const char store_schema_v2[] =
"CREATE TABLE repo_refs ("
"  ref TEXT PRIMARY KEY,"
"  id TEXT NOT NULL CHECK (length(id) = 40)"
") STRICT;"
"CREATE TABLE ref_events ("
"  seq INTEGER PRIMARY KEY,"
"  ref TEXT NOT NULL,"
"  old_id TEXT CHECK (old_id IS NULL OR length(old_id) = 40),"
"  new_id TEXT CHECK (new_id IS NULL OR length(new_id) = 40),"
"  change TEXT NOT NULL CHECK (change IN"
"    ('appeared', 'moved', 'disappeared')),"
"  seen_ms INTEGER NOT NULL,"
"  CHECK ((change = 'appeared') = (old_id IS NULL)),"
"  CHECK ((change = 'disappeared') = (new_id IS NULL))"
") STRICT;";

/*
 * Version 3: a run may hold several samples of one metric (LKP's results
 * give one value per iteration), numbered by idx; metric names are at
 * most 255 bytes.  The table is rebuilt with its rowids, which keep the
 * order samples were stored in.
 */
static const char store_schema_v3[] =
"CREATE TABLE samples_v3 ("
"  run INTEGER NOT NULL REFERENCES runs (id),"
"  metric TEXT NOT NULL CHECK (metric <> '' AND length(metric) <= 255),"
"  idx INTEGER NOT NULL DEFAULT 0 CHECK (idx >= 0),"
"  value REAL NOT NULL,"
"  UNIQUE (run, metric, idx)"
") STRICT;"
"INSERT INTO samples_v3 (rowid, run, metric, idx, value)"
"  SELECT rowid, run, metric, 0, value FROM samples;"
"DROP TABLE samples;"
"ALTER TABLE samples_v3 RENAME TO samples;";

/*
 * Version 4: what each sweep did with each matching ref.  sweeps.cursor is
 * the seq of the last ref event the sweep handled, moved in the same
 * transaction as the sweep_refs rows it led to; sweep_samples holds every
 * run's metrics at a swept ref.
 */
static const char store_schema_v4[] =
"ALTER TABLE sweeps ADD COLUMN cursor INTEGER NOT NULL DEFAULT 0;"
"CREATE TABLE sweep_refs ("
"  id INTEGER PRIMARY KEY,"
"  sweep TEXT NOT NULL CHECK (sweep <> ''),"
"  ref TEXT NOT NULL CHECK (ref <> ''),"
"  rev TEXT NOT NULL CHECK (length(rev) = 40),"
"  event INTEGER NOT NULL,"
"  state TEXT NOT NULL CHECK (state IN ('baseline', 'pending',"
"    'sampling', 'compared', 'failed', 'rewritten')),"
"  runs INTEGER NOT NULL DEFAULT 0,"
"  result TEXT CHECK (result IS NULL OR json_valid(result)),"
"  bisection INTEGER REFERENCES bisections (id),"
"  created_ms INTEGER NOT NULL,"
"  updated_ms INTEGER NOT NULL,"
"  UNIQUE (sweep, ref, rev)"
") STRICT;"
"CREATE INDEX sweep_refs_sweep ON sweep_refs (sweep, id);"
"CREATE TABLE sweep_samples ("
"  sweep_ref INTEGER NOT NULL REFERENCES sweep_refs (id),"
"  run INTEGER NOT NULL CHECK (run >= 1),"
"  metric TEXT NOT NULL CHECK (metric <> ''),"
"  value REAL NOT NULL,"
"  UNIQUE (sweep_ref, run, metric)"
") STRICT;";

/*
 * Version 5: lab jobs.  A run served by a lab records the lab's job id as
 * soon as the lab accepted it; the instance id (random, made once) goes
 * into every job's description so that a job submitted just before a
 * crash is found again by it, and never confused with another database's.
 */
static const char store_schema_v5[] =
"CREATE TABLE lab_jobs ("
"  run INTEGER PRIMARY KEY REFERENCES runs (id),"
"  lab TEXT NOT NULL,"
"  job TEXT NOT NULL CHECK (job <> ''),"
"  updated_ms INTEGER NOT NULL"
") STRICT;"
"CREATE TABLE instance ("
"  id TEXT NOT NULL"
") STRICT;"
"INSERT INTO instance (id) VALUES (lower(hex(randomblob(8))));";

/*
 * Version 6: bisections started by a sweep.  bisections.origin says what
 * started one (the sweep, its two refs, the other changed metrics), NULL
 * for an operator's request; runs.reused_from marks a done run copied
 * from a sweep's samples at that sweep_refs row, so the bisection does
 * not pay for it again and its report can say so.
 */
static const char store_schema_v6[] =
"ALTER TABLE bisections ADD COLUMN origin TEXT"
"  CHECK (origin IS NULL OR json_valid(origin));"
"ALTER TABLE runs ADD COLUMN reused_from INTEGER REFERENCES sweep_refs (id);";

/*
 * Version 7: sweep runs in flight.  A row exists from before a sweep run is
 * handed to its backend until its result is stored (in the transaction
 * that stores it) or it ended without one; the lab's job id joins it once
 * the lab accepted the job.  After a restart the sweep follows these runs'
 * jobs instead of submitting new ones.
 */
static const char store_schema_v7[] =
"CREATE TABLE sweep_jobs ("
"  id INTEGER PRIMARY KEY,"
"  sweep_ref INTEGER NOT NULL REFERENCES sweep_refs (id),"
"  lab TEXT,"
"  job TEXT CHECK (job IS NULL OR job <> ''),"
"  created_ms INTEGER NOT NULL,"
"  updated_ms INTEGER NOT NULL"
") STRICT;"
"CREATE INDEX sweep_jobs_ref ON sweep_jobs (sweep_ref, id);";

/*
 * Version 8: what each test host said about itself.  A benchmark's
 * describe command runs once per host; its output is kept per (host,
 * command), so a changed command runs again and reports read the rest.
 */
static const char store_schema_v8[] =
"CREATE TABLE host_descriptions ("
"  host TEXT NOT NULL,"
"  command TEXT NOT NULL,"
"  output TEXT NOT NULL,"
"  described_ms INTEGER NOT NULL,"
"  PRIMARY KEY (host, command)"
") STRICT;";

/*
 * Version 9: every host that keeps a build's artifact.  A copy relayed to
 * a test host and checked there is kept by its sha256 like the build
 * host's, so a commit is not built again while any host of the group
 * keeps it; each row carries the kept copy's path and hash.
 */
static const char store_schema_v9[] =
"CREATE TABLE build_hosts ("
"  build INTEGER NOT NULL REFERENCES builds (id),"
"  host TEXT NOT NULL CHECK (host <> ''),"
"  artifact TEXT NOT NULL,"
"  sha256 TEXT,"
"  updated_ms INTEGER NOT NULL,"
"  PRIMARY KEY (build, host)"
") STRICT;"
"INSERT INTO build_hosts (build, host, artifact, sha256, updated_ms)"
"  SELECT id, host, coalesce(artifact, ''), nullif(checksum, ''),"
"  updated_ms FROM builds"
"  WHERE state = 'ok' AND host IS NOT NULL AND host <> '';";

const struct store_migration store_migrations[] = {
	{ 1, store_schema_v1 },
	{ 2, store_schema_v2 },
	{ 3, store_schema_v3 },
	{ 4, store_schema_v4 },
	{ 5, store_schema_v5 },
	{ 6, store_schema_v6 },
	{ 7, store_schema_v7 },
	{ 8, store_schema_v8 },
	{ 9, store_schema_v9 },
};
const size_t store_nmigrations =
    sizeof(store_migrations) / sizeof(store_migrations[0]);

/* The names below must match the CHECK lists above; a test round-trips each. */
const char *const store_bisection_state_names[STORE_BISECTION_NSTATES] = {
	"queued", "running", "done", "cancelled", "failed",
};
const char *const store_verdict_names[STORE_VERDICT_N] = {
	"none", "culprit", "inconclusive", "not-reproduced",
};
const char *const store_run_state_names[STORE_RUN_NSTATES] = {
	"queued", "running", "done", "failed-infra", "skipped", "cancelled",
};
const char *const store_host_state_names[STORE_HOST_NSTATES] = {
	"unknown", "up", "down", "quarantined", "draining",
};
const char *const store_build_state_names[STORE_BUILD_NSTATES] = {
	"building", "ok", "failed",
};
const char *const store_sweep_ref_state_names[STORE_SWEEP_REF_NSTATES] = {
	"baseline", "pending", "sampling", "compared", "failed", "rewritten",
};
const char *const store_ref_change_names[STORE_REF_NCHANGES] = {
	"appeared", "moved", "disappeared",
};

#define BISECTION_COLS \
	"id, params, good, bad, benchmark, metric, grp, dedup_key, state," \
	" verdict, culprit, confidence, detail, priority, created_by," \
	" created_ms, updated_ms, origin"
#define RUN_COLS \
	"id, bisection, rev, host, state, attempt, build, seq, queued_ms," \
	" started_ms, finished_ms, exit_status, log_path, timings, reused_from"
#define HOST_COLS "name, grp, state, consecutive_failures, last_seen_ms"

/* List statements take the wanted states as a JSON array of names. */
const char *const store_sql[STMT_COUNT] = {
	[STMT_BEGIN] = "BEGIN IMMEDIATE",
	[STMT_COMMIT] = "COMMIT",
	[STMT_ROLLBACK] = "ROLLBACK",

	[STMT_EVENT_ADD] =
	    "INSERT INTO events (time_ms, uid, request, outcome)"
	    " VALUES (?1, ?2, ?3, ?4)",
	[STMT_EVENT_LIST] =
	    "SELECT id, time_ms, uid, request, outcome FROM events"
	    " WHERE id > ?1 ORDER BY id LIMIT ?2",
	/*
	 * Times grow with ids, so the expired rows are the oldest ids: the
	 * walk stops at the first row young enough.
	 */
	[STMT_EVENT_PRUNE_AGE] =
	    "DELETE FROM events WHERE id < coalesce((SELECT id FROM events"
	    " WHERE time_ms >= ?1 ORDER BY id LIMIT 1),"
	    " (SELECT max(id) + 1 FROM events), 0)",
	/* Only the oldest rows are ever deleted, so ids stay contiguous. */
	[STMT_EVENT_PRUNE_ROWS] =
	    "DELETE FROM events WHERE id <= (SELECT max(id) FROM events) - ?1",

	[STMT_BISECTION_ACTIVE] =
	    "SELECT id FROM bisections"
	    " WHERE dedup_key = ?1 AND state IN ('queued', 'running')",
	[STMT_BISECTION_ADD] =
	    "INSERT INTO bisections (params, good, bad, benchmark, metric, grp,"
	    " priority, created_by, created_ms, updated_ms, dedup_key, origin)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11)",
	[STMT_BISECTION_GET] =
	    "SELECT " BISECTION_COLS " FROM bisections WHERE id = ?1",
	[STMT_BISECTION_LIST] =
	    "SELECT " BISECTION_COLS " FROM bisections"
	    " WHERE state IN (SELECT value FROM json_each(?1))"
	    " ORDER BY priority DESC, id",
	/* SQLite reads the params: no row goes through the caller's JSON. */
	[STMT_BISECTION_CONFIRMS] =
	    "SELECT " BISECTION_COLS " FROM bisections"
	    " WHERE json_extract(params, '$.confirm') = 1"
	    " AND json_extract(params, '$.parent') = ?1 ORDER BY id",
	[STMT_BISECTION_STATE] = "SELECT state FROM bisections WHERE id = ?1",
	[STMT_BISECTION_SET] =
	    "UPDATE bisections SET state = ?2, updated_ms = ?3,"
	    " verdict = iif(?4, ?5, verdict), culprit = iif(?4, ?6, culprit),"
	    " confidence = iif(?4, ?7, confidence),"
	    " detail = iif(?4, ?8, detail)"
	    " WHERE id = ?1 AND state IN ('queued', 'running')",
	/* One statement, so one snapshot: the counts agree with each other. */
	[STMT_BISECTION_STATS] =
	    "SELECT 0, state, count(*) FROM runs WHERE bisection = ?1"
	    " GROUP BY state"
	    " UNION ALL SELECT 1, NULL, count(*) FROM samples"
	    " JOIN runs ON runs.id = samples.run WHERE runs.bisection = ?1"
	    " UNION ALL SELECT 2, NULL, count(*) FROM probes"
	    " WHERE bisection = ?1"
	    " UNION ALL SELECT 3, NULL, count(*) FROM bisections WHERE id = ?1"
	    " UNION ALL SELECT 4, NULL, count(*) FROM runs WHERE bisection = ?1"
	    " AND reused_from IS NOT NULL",

	/*
	 * How long done runs of a benchmark on a group took from start to
	 * finish, split by whether they built their commit ($.built of the
	 * timings): the status estimate's measured pace.
	 */
	[STMT_RUN_PACE] =
	    "SELECT coalesce(json_extract(runs.timings, '$.built'), 0),"
	    " count(*), sum(runs.finished_ms - runs.started_ms)"
	    " FROM runs JOIN bisections ON bisections.id = runs.bisection"
	    " WHERE bisections.benchmark = ?1 AND bisections.grp = ?2"
	    " AND runs.state = 'done' AND runs.reused_from IS NULL"
	    " AND runs.started_ms IS NOT NULL"
	    " AND runs.finished_ms >= runs.started_ms"
	    " GROUP BY 1",

	[STMT_PROBE_ADD] =
	    "INSERT INTO probes (bisection, rev, requested_ms)"
	    " VALUES (?1, ?2, ?3)",
	[STMT_PROBE_LIST] =
	    "SELECT id, bisection, rev, requested_ms FROM probes"
	    " WHERE bisection = ?1 ORDER BY id",

	[STMT_RUN_ADD] =
	    "INSERT INTO runs (bisection, rev, attempt, queued_ms)"
	    " VALUES (?1, ?2, ?3, ?4)",
	[STMT_RUN_START] =
	    "UPDATE runs SET state = 'running', host = ?2, started_ms = ?3"
	    " WHERE id = ?1 AND state = 'queued'",
	[STMT_RUN_STATE] =
	    "SELECT state, bisection, rev, attempt FROM runs WHERE id = ?1",
	[STMT_RUN_FINISH] =
	    "UPDATE runs SET state = ?2, finished_ms = ?3, exit_status = ?4,"
	    " log_path = ?5, timings = ?6, build = ?7,"
	    " seq = (SELECT coalesce(max(seq), 0) + 1 FROM runs)"
	    " WHERE id = ?1 AND state IN ('queued', 'running')",
	[STMT_RUN_REQUEUE] =
	    "UPDATE runs SET state = 'queued', host = NULL, started_ms = NULL,"
	    " attempt = attempt + 1 WHERE state = 'running'",
	[STMT_RUN_CANCEL] =
	    "UPDATE runs SET state = 'cancelled', finished_ms = ?2"
	    " WHERE bisection = ?1 AND state IN ('queued', 'running')",
	[STMT_RUN_GET] = "SELECT " RUN_COLS " FROM runs WHERE id = ?1",
	[STMT_RUN_LIST] =
	    "SELECT " RUN_COLS " FROM runs"
	    " WHERE (?1 = 0 OR bisection = ?1)"
	    " AND state IN (SELECT value FROM json_each(?2))"
	    " ORDER BY seq IS NULL, seq, id",

	[STMT_SAMPLE_ADD] =
	    "INSERT INTO samples (run, metric, idx, value)"
	    " VALUES (?1, ?2, ?4, ?3)",
	[STMT_SAMPLE_LIST] =
	    "SELECT samples.run, runs.rev, runs.host, samples.metric,"
	    " samples.value, runs.attempt, runs.seq, samples.idx,"
	    " coalesce(runs.reused_from, 0)"
	    " FROM samples JOIN runs ON runs.id = samples.run"
	    " WHERE runs.bisection = ?1 AND (?2 IS NULL OR runs.rev = ?2)"
	    " ORDER BY runs.seq, samples.rowid",

	[STMT_BUILD_GET] =
	    "SELECT id, rev, benchmark, grp, host, artifact, checksum, state,"
	    " updated_ms FROM builds"
	    " WHERE rev = ?1 AND benchmark = ?2 AND grp = ?3",
	[STMT_BUILD_PUT] =
	    "INSERT INTO builds (rev, benchmark, grp, host, artifact, checksum,"
	    " state, created_ms, updated_ms)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)"
	    " ON CONFLICT (rev, benchmark, grp) DO UPDATE SET"
	    " host = excluded.host, artifact = excluded.artifact,"
	    " checksum = excluded.checksum, state = excluded.state,"
	    " updated_ms = excluded.updated_ms"
	    " RETURNING id",

	[STMT_BUILD_COPY_PUT] =
	    "INSERT INTO build_hosts (build, host, artifact, sha256,"
	    " updated_ms) VALUES (?1, ?2, ?3, ?4, ?5)"
	    " ON CONFLICT (build, host) DO UPDATE SET"
	    " artifact = excluded.artifact, sha256 = excluded.sha256,"
	    " updated_ms = excluded.updated_ms",
	[STMT_BUILD_COPY_DEL] =
	    "DELETE FROM build_hosts WHERE build = ?1"
	    " AND (?2 IS NULL OR host = ?2)",
	[STMT_BUILD_COPY_LIST] =
	    "SELECT host, artifact, sha256, updated_ms FROM build_hosts"
	    " WHERE build = ?1 ORDER BY updated_ms DESC, host",

	[STMT_HOST_PUT] =
	    "INSERT INTO hosts (" HOST_COLS ") VALUES (?1, ?2, ?3, ?4, ?5)"
	    " ON CONFLICT (name) DO UPDATE SET grp = excluded.grp,"
	    " state = excluded.state,"
	    " consecutive_failures = excluded.consecutive_failures,"
	    " last_seen_ms = excluded.last_seen_ms",
	[STMT_HOST_GET] = "SELECT " HOST_COLS " FROM hosts WHERE name = ?1",
	[STMT_HOST_LIST] = "SELECT " HOST_COLS " FROM hosts ORDER BY name",
	[STMT_HOST_DESC_PUT] =
	    "INSERT INTO host_descriptions (host, command, output,"
	    " described_ms) VALUES (?1, ?2, ?3, ?4)"
	    " ON CONFLICT (host, command) DO UPDATE SET output = excluded.output,"
	    " described_ms = excluded.described_ms",
	[STMT_HOST_DESC_GET] =
	    "SELECT output FROM host_descriptions WHERE host = ?1"
	    " AND command = ?2",

	[STMT_SWEEP_PUT] =
	    "INSERT INTO sweeps (name, last_tag, state, updated_ms)"
	    " VALUES (?1, ?2, ?3, ?4)"
	    " ON CONFLICT (name) DO UPDATE SET last_tag = excluded.last_tag,"
	    " state = excluded.state, updated_ms = excluded.updated_ms",
	[STMT_SWEEP_GET] =
	    "SELECT name, last_tag, state, updated_ms, cursor FROM sweeps"
	    " WHERE name = ?1",
	[STMT_SWEEP_CURSOR] =
	    "INSERT INTO sweeps (name, state, updated_ms, cursor)"
	    " VALUES (?1, 'watching', ?3, ?2)"
	    " ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor,"
	    " updated_ms = excluded.updated_ms",
	[STMT_SWEEP_REF_ADD] =
	    "INSERT INTO sweep_refs (sweep, ref, rev, event, state, created_ms,"
	    " updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)"
	    " ON CONFLICT (sweep, ref, rev) DO NOTHING",
	[STMT_SWEEP_REF_REWRITE] =
	    "UPDATE sweep_refs SET state = 'rewritten', updated_ms = ?4"
	    " WHERE sweep = ?1 AND ref = ?2 AND rev <> ?3"
	    " AND state <> 'rewritten'",
	[STMT_SWEEP_REF_SET] =
	    "UPDATE sweep_refs SET state = ?2, result = ?3,"
	    " bisection = ?4, updated_ms = ?5 WHERE id = ?1",
	[STMT_SWEEP_REF_LIST] =
	    "SELECT id, sweep, ref, rev, event, state, runs, result,"
	    " bisection, created_ms, updated_ms FROM sweep_refs"
	    " WHERE sweep = ?1 ORDER BY id",
	[STMT_SWEEP_SAMPLE_ADD] =
	    "INSERT INTO sweep_samples (sweep_ref, run, metric, value)"
	    " VALUES (?1, ?2, ?3, ?4)",
	[STMT_SWEEP_RUNS] =
	    "UPDATE sweep_refs SET runs = ?2, state = CASE state"
	    " WHEN 'pending' THEN 'sampling' ELSE state END, updated_ms = ?3"
	    " WHERE id = ?1 AND runs = ?2 - 1",
	[STMT_SWEEP_REF_BISECTION] =
	    "SELECT coalesce(bisection, 0) FROM sweep_refs WHERE id = ?1",
	[STMT_SWEEP_REF_LINK] =
	    "UPDATE sweep_refs SET bisection = ?2, updated_ms = ?3"
	    " WHERE id = ?1",
	[STMT_SWEEP_REUSE_RUNS] =
	    "SELECT DISTINCT run FROM sweep_samples WHERE sweep_ref = ?1"
	    " ORDER BY run",
	/* A reused run took no machine time here: queued = finished. */
	[STMT_RUN_REUSE_ADD] =
	    "INSERT INTO runs (bisection, rev, state, attempt, seq, queued_ms,"
	    " started_ms, finished_ms, reused_from)"
	    " SELECT ?1, rev, 'done', 1,"
	    " (SELECT coalesce(max(seq), 0) + 1 FROM runs), ?3, ?3, ?3, id"
	    " FROM sweep_refs WHERE id = ?2",
	[STMT_SAMPLE_REUSE_ADD] =
	    "INSERT INTO samples (run, metric, idx, value)"
	    " SELECT ?1, metric, 0, value FROM sweep_samples"
	    " WHERE sweep_ref = ?2 AND run = ?3 ORDER BY metric",
	[STMT_SWEEP_SAMPLE_LIST] =
	    "SELECT run, metric, value FROM sweep_samples WHERE sweep_ref = ?1"
	    " ORDER BY run, metric",

	[STMT_REPORT_PUT] =
	    "INSERT INTO reports (bisection, text, json, created_ms)"
	    " VALUES (?1, ?2, ?3, ?4)"
	    " ON CONFLICT (bisection) DO UPDATE SET text = excluded.text,"
	    " json = excluded.json, created_ms = excluded.created_ms",
	[STMT_REPORT_GET] =
	    "SELECT text, json FROM reports WHERE bisection = ?1",

	[STMT_REF_EVENT_ADD] =
	    "INSERT INTO ref_events (ref, old_id, new_id, change, seen_ms)"
	    " VALUES (?1, ?2, ?3, ?4, ?5)",
	[STMT_REF_EVENT_LIST] =
	    "SELECT seq, ref, old_id, new_id, change, seen_ms FROM ref_events"
	    " WHERE seq > ?1 ORDER BY seq",
	[STMT_REF_EVENT_LAST] = "SELECT coalesce(max(seq), 0) FROM ref_events",
	[STMT_REF_PUT] =
	    "INSERT INTO repo_refs (ref, id) VALUES (?1, ?2)"
	    " ON CONFLICT (ref) DO UPDATE SET id = excluded.id",
	[STMT_REF_DEL] = "DELETE FROM repo_refs WHERE ref = ?1",
	[STMT_REF_LIST] = "SELECT ref, id FROM repo_refs ORDER BY ref",
	[STMT_LAB_JOB_PUT] =
	    "INSERT INTO lab_jobs (run, lab, job, updated_ms)"
	    " VALUES (?1, ?2, ?3, ?4) ON CONFLICT (run) DO UPDATE SET"
	    " lab = excluded.lab, job = excluded.job,"
	    " updated_ms = excluded.updated_ms",
	[STMT_LAB_JOB_GET] = "SELECT job FROM lab_jobs WHERE run = ?1",
	[STMT_SWEEP_JOB_ADD] =
	    "INSERT INTO sweep_jobs (sweep_ref, created_ms, updated_ms)"
	    " VALUES (?1, ?2, ?2)",
	[STMT_SWEEP_JOB_LAB] =
	    "UPDATE sweep_jobs SET lab = ?2, job = ?3, updated_ms = ?4"
	    " WHERE id = ?1",
	[STMT_SWEEP_JOB_DEL] = "DELETE FROM sweep_jobs WHERE id = ?1",
	[STMT_SWEEP_JOB_FORGET] = "DELETE FROM sweep_jobs WHERE sweep_ref = ?1",
	[STMT_SWEEP_JOB_LIST] =
	    "SELECT id, sweep_ref, lab, job FROM sweep_jobs"
	    " WHERE sweep_ref = ?1 ORDER BY id",
	[STMT_INSTANCE_GET] = "SELECT id FROM instance LIMIT 1",
};
