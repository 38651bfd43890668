/* SPDX-License-Identifier: MIT */
/*
 * One bisection as the daemon runs it: its stored record, its candidate
 * graph, its engine rebuilt from the stored samples, and the probes it has
 * on the fleet.
 *
 * A bisection is created from its store row; bisection_load() builds the
 * graph on libuv's thread pool (libgit2 walks block) and replays every
 * stored sample into a fresh engine, so after a restart it continues where
 * it stopped.  The scheduler (sched.c) owns every struct bisection and
 * frees it with bisection_free() once it has no probe in flight.
 */
#ifndef SCHED_BISECTION_H
#define SCHED_BISECTION_H

#include "common/queue.h"
#include <stdint.h>

#include <git2.h>
#include <jansson.h>
#include <uv.h>

#include "bisect/engine.h"
#include "bisect/graph.h"
#include "common/error.h"
#include "config/config.h"
#include "store/store.h"

struct sched;
struct sched_request;
struct backend_run;
struct verify;

/* The commit of a probe outside the range (verification's runs). */
#define BISECTION_EXTRA	(UINT32_MAX - 1)

enum bisection_phase {
	BISECTION_LOADING,	/* graph being built on the thread pool */
	BISECTION_ACTIVE,	/* the engine asks for probes */
	BISECTION_VERIFYING,	/* a culprit, checked before the verdict */
	BISECTION_FINISHED,	/* verdict stored, or cancelled, or failed */
};

/* One run on the fleet; owned by its bisection until the job ends. */
struct sched_result;

struct bisection_probe {
	int64_t			 run;
	uint32_t		 commit;	/* engine index, ENGINE_GOOD or
						   BISECTION_EXTRA */
	char			 sha[GIT_OID_HEXSZ + 1];
	struct backend_run	*job;		/* NULL once it ended */
	/* The configuration its job points into, held until the probe ends. */
	struct config_hold	*cfg_hold;
	int64_t			 started_ms;	/* submitted, then started */
	int			 started;	/* a host works on it */
	int			 phase;		/* enum step_phase; -1: waiting */
	int64_t			 phase_ms;	/* when that phase began */
	char			 phase_host[64];
	int			 recorded;	/* a result reached the store */
	/* What is built: sha itself, or sha with fix-ups picked onto it. */
	char			 built[GIT_OID_HEXSZ + 1];
	char			 tree[GIT_OID_HEXSZ + 1];	/* "" unknown */
	json_t			*fixups;	/* applied fix-ups, or NULL */
	json_t			*auto_fixups;	/* those of them found */
	/* A result the store refused, written again on its retry. */
	struct sched_result	*unstored;
	struct bisection	*b;
	TAILQ_ENTRY(bisection_probe) entry;
};
TAILQ_HEAD(bisection_probe_list, bisection_probe);

typedef void bisection_loaded_cb(struct bisection *b, int rc,
    const struct bd_error *err);

struct bisection {
	int64_t			 id;
	struct sched		*s;
	struct store_bisection	 rec;		/* owned copy of the row */
	enum bisection_phase	 phase;
	/* From the request. */
	double			 confidence;
	unsigned		 max_samples;
	int			 first_parent;
	int			 priority;
	int64_t			 parent_id;	/* bisects a sub-range of it; 0 */
	unsigned		 followups;	/* reports made again after the
						   verdict's (a confirmation on
						   demand): each replies to it */
	char			**fixups;	/* the request's fix-up specs */
	size_t			 nfixups;
	/* Fix-ups found for failing commits (fixup.c), and the commits
	 * (engine index bits) already searched for. */
	char			**auto_fixups;
	size_t			 nauto_fixups;
	uint8_t			*fixup_searched;
	/* From the repository. */
	git_oid			 bad;
	git_oid			*goods;		/* where good samples run */
	size_t			 ngoods;
	unsigned		 good_next;	/* round robin over goods */
	struct graph		 g;
	struct engine		 e;
	int			 engine_ready;
	struct bisection_probe_list probes;
	size_t			 nprobes;
	enum agg_kind		 agg;		/* the metric's values in one
						   run as one sample */
	/* Per commit (index g.n: the good side), runs that gave a result
	 * and runs that failed, in finish order: a commit is skipped only
	 * once it failed twice and more often than it succeeded. */
	unsigned		*run_oks, *run_fails;
	/* Attempts that gave no sample (failed, timed out, asked for a
	 * retry) against the benchmark's retry_budget, and the last why. */
	unsigned		 failures;
	struct verify		*verify;	/* owned; NULL until a culprit */
	/* Loading on the thread pool. */
	uv_work_t		 work;
	char			*repo_path;
	int			 load_rc;
	struct bd_error		 load_err;
	/* Set on the loop (cancel, shutdown), read by the loading thread. */
	_Atomic int		 load_abort;
	bisection_loaded_cb	*loaded;
	TAILQ_ENTRY(bisection)	 entry;
};

/* Reads the row of id; the caller owns the result. */
int	bisection_new(struct sched *s, struct store *st, int64_t id,
	    struct bisection **out, struct bd_error *err);
void	bisection_free(struct bisection *b);
/* Adds a fix-up found for a failing commit, once; 1 when it is new. */
int	bisection_fixup_add(struct bisection *b, const char *sha);
/*
 * Builds the graph on the thread pool; cb runs on the loop.  On success
 * the engine is ready and every stored sample is replayed.
 */
int	bisection_load(struct bisection *b, uv_loop_t *loop,
	    const char *repo_path, bisection_loaded_cb *cb);
/*
 * Asks a load in progress to stop at its next step (between revisions and
 * graph queries), so that cancel and shutdown do not wait for long graph
 * work; the callback then gets -ECANCELED.
 */
void	bisection_load_abort(struct bisection *b);
/*
 * The stored form of a request's options (what bisection_new() reads
 * back), with bad resolved to a sha and the group filled in.  Caller frees.
 */
char	*bisection_params_encode(const struct sched_request *req,
	    const char *bad, const char *group);
/*
 * The bisection that started one with these stored params to verify its
 * culprit, or 0: list and status name it for every row.
 */
int64_t	bisection_params_parent(const char *params);
/* The stored form of a sweep's origin (bisections.origin).  Caller frees. */
struct sched_origin;
char	*bisection_origin_encode(const struct sched_origin *o);
/* A store_agg_cb (store_run_value_list) for the bisection arg. */
enum agg_kind bisection_agg_of(void *arg, const char *metric);
/* The bisection's metric among a run's metrics (its first value), or NULL. */
const struct store_metric *bisection_metric(const struct bisection *b,
	    const struct store_metric *m, size_t n);
/*
 * Turns one stored result into engine events: a skip (state SKIPPED) or
 * a done run's metrics, of which only the bisection's metric counts.  The
 * live path and the replay after a restart both come through here, so the
 * engine sees the same events either way.  Returns 0 (also when nothing
 * applies), -ENOEXEC when an endpoint was skipped (the bisection cannot go
 * on; err says which), or the engine's error.
 */
int	bisection_feed(struct bisection *b, uint32_t commit,
	    enum store_run_state state, const struct store_metric *m, size_t n,
	    struct bd_error *err);
/* Replays stored samples and skips into the engine in finish order. */
int	bisection_replay(struct bisection *b, struct store *st,
	    struct bd_error *err);
/* The commit a probe runs: a candidate, or the next good boundary. */
void	bisection_probe_sha(struct bisection *b, uint32_t commit,
	    char out[GIT_OID_HEXSZ + 1]);
/* Engine index of sha: a candidate, ENGINE_GOOD, or -1 if neither. */
int64_t	bisection_commit_index(const struct bisection *b, const char *sha);
/* The summary the status command shows. */
json_t	*bisection_status_json(struct bisection *b, struct store *st,
	    git_repository *repo);
/* `git bisect log` lines from the stored runs and the posterior. */
json_t	*bisection_log_json(struct bisection *b, struct store *st,
	    git_repository *repo);
/* Engine parameters for the bisection's benchmark and request. */
void	bisection_engine_params(const struct bisection *b,
	    const struct config_metric *m, double min_change,
	    struct engine_params *p);
/*
 * "subject" of a commit, or "" (buf is filled), as UTF-8: a byte that
 * starts no character is '?', a character cut by len is left out.
 */
const char *bisection_subject(git_repository *repo, const char *sha,
	    char *buf, size_t len);

#endif
