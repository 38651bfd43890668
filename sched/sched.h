/* SPDX-License-Identifier: MIT */
/*
 * The bisection service: active bisections, the host pool and the job
 * queue, and the loop that turns the engines' probes into runs on free
 * hosts and stored samples back into engine events.
 *
 * Every state change reaches the store before it is acted on: a run row
 * exists before its job is submitted, a result is stored (with its samples,
 * in one transaction) before the engine sees it, and a verdict is stored
 * before the report is handed to the hook.  After a restart, running runs
 * go back to queued and are submitted again.
 *
 * The scheduler knows nothing of the control socket or the daemon: it is
 * given a struct sched_env (the loop, the store, the repository, a way to
 * read the configuration in effect and a sink for its events) and owns
 * only its pool, its queue and its bisections.  Whoever made the
 * environment keeps everything in it alive until sched_free().
 */
#ifndef SCHED_SCHED_H
#define SCHED_SCHED_H

#include <sys/types.h>
#include <stdint.h>

#include <git2.h>
#include <jansson.h>
#include <uv.h>

#include "common/error.h"
#include "config/config.h"

struct sched;
struct bisection;
struct pool;
struct store;

/*
 * Where the scheduler's events go (probe-started, probe-finished, sample,
 * skip, bisection, verifying, verdict, done): kind names the event and fields (stolen
 * by emit, never NULL) says which bisection, run and commit.  emit may be
 * NULL: the events are dropped.
 */
struct sched_events {
	void	(*emit)(void *arg, const char *kind, json_t *fields);
	/*
	 * A bisection's verdict is stored: the report is written (may be
	 * NULL).  b stays valid for the call; the callee may start work on
	 * the loop that reads b only through what it copies.
	 */
	void	(*verdict)(void *arg, struct bisection *b);
	void	 *arg;
};

/* What the scheduler uses; borrowed, alive until sched_free(). */
struct sched_env {
	uv_loop_t		*loop;
	struct store		*store;
	git_repository		*repo;		/* NULL: none could be opened */
	/* The configuration in effect, asked again at every use so that a
	 * reload is seen; what it returns lives as long as the env. */
	const struct config	*(*config)(void *arg);
	void			*config_arg;
	struct sched_events	 events;
};

/*
 * Where a bisection started by a sweep came from, stored with it (its
 * row's origin) so that its status and report name the sweep and the
 * tags.  row is linked to the bisection in the transaction that creates
 * it; the reuse rows' sweep samples become its first runs (see
 * store_bisection_create_linked).  Strings are borrowed for the call.
 */
struct sched_origin {
	const char		*sweep;
	const char		*ref;		/* the new swept ref: bad */
	const char		*prev_ref;	/* the previous one: good */
	int64_t			 row, prev_row;	/* their sweep_refs ids */
	const char *const	*metrics;	/* every changed metric */
	size_t			 nmetrics;
	const int64_t		*reuse;		/* rows whose samples count */
	size_t			 nreuse;
};

/*
 * A bisection request as the service takes it, from the control socket
 * or a sweep.  Strings are borrowed for the call.  confidence and
 * max_samples are only checked and used when has_confidence and
 * has_max_samples are set.
 */
struct sched_request {
	const char *const	*good;		/* revisions, at least one */
	size_t			 ngood;
	const char		*bad;
	const char		*benchmark;
	const char		*metric;
	const char		*group;		/* NULL: CONFIG_DEFAULT_GROUP */
	double			 confidence;	/* in (0.5, 1) */
	int			 has_confidence;
	int64_t			 max_samples;	/* in [6, 1000000] */
	int			 has_max_samples;
	int			 first_parent;
	int			 priority;	/* higher runs first */
	uid_t			 uid;		/* who asked */
	/* Another culprit's sub-range of this bisection (verification); 0. */
	int64_t			 parent;
	/* With parent: the culprit confirmed on another group (confirm.h). */
	int			 confirm;
	/* Fix-ups ("SHA" or "SHA:BROKEN") to pick onto probed commits. */
	const char *const	*fixups;
	size_t			 nfixups;
	/* A sweep's change; NULL: an operator's request. */
	const struct sched_origin *origin;
};

/* Resumes the stored active bisections; *out is set even on failure. */
int	sched_new(const struct sched_env *env, struct sched **out,
	    struct bd_error *err);
/* Shutdown: stops remote work without recording it (it reruns later). */
void	sched_stop(struct sched *s);
void	sched_free(struct sched *s);

/*
 * Validates a bisect request (revisions, benchmark, metric, group) and
 * records it; *existing is set when an identical bisection already runs,
 * whose id is returned.  Errors: -EINVAL (bad request, err says which
 * field), -ENOENT (unknown revision or name).  With an origin whose row
 * is already linked, *existing is set and the id is the linked one.
 */
int	sched_bisect(struct sched *s, const struct sched_request *req,
	    int64_t *idp, int *existing, struct bd_error *err);
/* An active or finished bisection by id (loaded on demand), or NULL. */
struct bisection *sched_find(struct sched *s, int64_t id,
	    struct bd_error *err);
/* Stops a bisection's remote work and marks it cancelled. */
int	sched_cancel(struct sched *s, int64_t id, struct bd_error *err);
/* Runs engine decisions now (coalesced on the loop). */
void	sched_kick(struct sched *s);

unsigned	 sched_group_test_hosts(struct sched *s, const char *group);
struct pool	*sched_pool(struct sched *s);
struct backend;
/* The lab backends (remote/lava.h), *out borrowed. */
size_t		 sched_labs(struct sched *s, struct backend *const **out);
/* Why group cannot run now (a lab's health), "" when it can. */
const char	*sched_group_trouble(struct sched *s, const char *group);
/* The store error being retried, "" when none (sched_store.c). */
const char	*sched_store_trouble(const struct sched *s);
git_repository	*sched_repo(struct sched *s);
/* Lends the repository when none was open at startup (a first clone). */
void		 sched_set_repo(struct sched *s, git_repository *repo);
/*
 * {"bisection","run","commit"} of the work on host, {"sweep","row",
 * "commit"} for a sweep's run, or NULL.
 */
json_t		*sched_host_current(struct sched *s, const char *host);

/*
 * One benchmark run for a sweep (sweep/sweep_run.c).  done is called
 * exactly once per run, never from inside sched_run_sweep: with the
 * result worth storing (STEP_OK with its metrics, or STEP_FAILED: the
 * commit did not build or its benchmark failed) and the host or lab it
 * ran on, or with r NULL when the run ended without one (infrastructure
 * failures after the backend's retries, a cancel, shutdown).
 */
struct step_result;
typedef void sched_sweep_cb(void *arg, int64_t row, int64_t job,
    const struct step_result *r, const char *where);

/* What sched_run_sweep takes; strings are copied. */
struct sched_sweep_run {
	const char	*sweep;		/* its name, for logs */
	int64_t		 row;		/* the sweep_refs row it samples */
	const char	*benchmark;
	const char	*group;
	const char	*commit;	/* 40 hex digits */
	int		 priority;	/* against bisections: higher first */
	/*
	 * The sweep_jobs row of a run stored before a restart, followed
	 * again (its lab job, lab_job when recorded, or the one its run id
	 * finds); 0 stores a new row.  done gets the row's id as job.
	 */
	int64_t		 job;
	const char	*lab_job;
	sched_sweep_cb	*done;
	void		*arg;
};

/*
 * Queues one sweep run.  It waits in the scheduler until its group has a
 * free host that no bisection of higher priority wants (equal priorities
 * take turns), then goes through the group's backend with the build cache
 * as bisection probes do.  -ENOENT for an unknown benchmark.
 */
int	sched_run_sweep(struct sched *s, const struct sched_sweep_run *req,
	    struct bd_error *err);
/* Ends every sweep run of row, queued or running; each gets done(NULL). */
void	sched_cancel_sweep(struct sched *s, int64_t row);
/* Whether a run of sweep_jobs row job is queued or running here. */
int	sched_sweep_holds(struct sched *s, int64_t job);

#endif
