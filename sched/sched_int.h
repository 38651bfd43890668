/* SPDX-License-Identifier: MIT */
/* Shared between the scheduler's files; not for other modules. */
#ifndef SCHED_SCHED_INT_H
#define SCHED_SCHED_INT_H

#include "common/queue.h"

#include <uv.h>

#include "bisect/engine.h"
#include "sched/sched.h"
#include "remote/cache.h"

struct bisection;
struct bisection_probe;

TAILQ_HEAD(bisection_list, bisection);
struct sched_sweep_job;
TAILQ_HEAD(sched_sweep_list, sched_sweep_job);

struct sched {
	struct sched_env	 env;		/* borrowed, see sched.h */
	struct pool		*pool;
	struct job_queue	*jobs;
	struct backend		*ssh;		/* over pool and jobs */
	struct backend		**labs;		/* one per [lab] */
	/* Per [lab]: what its group submits to when it has a build_group
	 * (remote/labbuild.h, over labs[i]), else NULL. */
	struct backend		**fronts;
	size_t			 nlabs;
	struct cache		 cache;
	struct bisection_list	 active;
	struct sched_sweep_list	 sweeps;	/* sched_sweep.c */
	uv_timer_t		 kick;
	int			 kick_ready;
	int			 stopping;
	int			 torn;		/* pool and queue closed */
	unsigned		 rr;		/* rotates the fair share */
	/* Store errors being retried (sched_store.c). */
	uv_timer_t		 store_retry;
	uint64_t		 store_backoff_ms;	/* the next wait */
	int			 store_failing;		/* since_ms is set */
	int64_t			 store_since_ms;	/* trouble began */
	int64_t			 store_last_ms;		/* the last error */
	char			 store_trouble[600];	/* "" when none */
};

struct store	*sched_store(struct sched *s);
const struct config *sched_config(struct sched *s);
/* Hands an event to the sink; fields (never NULL) is stolen. */
void		 sched_emit(struct sched *s, const char *kind, json_t *fields);
/* Milliseconds on a clock that only goes forward, for durations. */
int64_t		 sched_clock_ms(struct sched *s);
void		 sched_fail(struct sched *s, struct bisection *b,
		    const char *why);

/* The first wait after a store error, the longest, and when to give up. */
#define SCHED_STORE_BACKOFF_MS		1000
#define SCHED_STORE_BACKOFF_MAX_MS	60000
#define SCHED_STORE_GIVEUP_MS		(60 * 60 * 1000)
void		 sched_store_init(struct sched *s, uv_loop_t *loop);
void		 sched_store_close(struct sched *s);
/*
 * A store write on b's path failed with err: retried with back-off when
 * the disk may recover (returns 0), else b fails with the message
 * (returns -1).
 */
int		 sched_store_error(struct sched *s, struct bisection *b,
		    const struct bd_error *err);
void		 sched_probe_free(struct bisection *b,
		    struct bisection_probe *p);
struct sched_result;
void		 sched_result_free(struct sched_result *r);
/*
 * Writes again every result the store refused (sched_store_retry); one
 * still refused waits for the next retry.
 */
void		 sched_unstored_retry(struct sched *s);
void		 sched_kick_cb(uv_timer_t *t);
void		 sched_stop_check(struct sched *s);
unsigned	 sched_free_hosts(struct sched *s, const char *group);
/* Restores stored host health into the pool and persists its changes. */
void		 sched_hosts_bind(struct sched *s);
struct backend	*sched_backend(struct sched *s, const char *group);
void		 sched_loaded(struct bisection *b, int rc,
		    const struct bd_error *err);
/* Cancels the jobs of an ended bisection; they record nothing more. */
void		 sched_end_probes(struct bisection *b);
void		 sched_finish(struct sched *s, struct bisection *b,
		    const struct engine_action *a);
/*
 * One run of b's benchmark at sha, a commit outside its range (the
 * verification's revert): stored and submitted, never fed to the engine;
 * verify_run_ended() hears when it ends.
 */
int		 sched_run_extra(struct sched *s, struct bisection *b,
		    const char *sha, struct bd_error *err);

/*
 * A probe's job, once p->built (and p->tree) say what to build; on failure
 * p is freed and the caller ends the run with sched_submit_failed().
 */
int		 sched_submit_job(struct sched *s, struct bisection_probe *p,
		    int resumed);
void		 sched_submit_failed(struct sched *s, struct bisection *b,
		    int64_t run, uint32_t commit);
/* The engine hears of a skip that no job ran (a fix-up's conflict). */
void		 sched_feed_skip(struct sched *s, struct bisection *b,
		    uint32_t commit, const char *sha, const char *why);
/*
 * A probe failed (why): looks on the thread pool for fix-ups of its
 * commit, then feeds the skip.  -1 when no search was started (the
 * caller feeds the skip itself).
 */
int		 sched_fixup_search(struct sched *s, struct bisection_probe *p,
		    const char *why);

/*
 * Fix-ups (fixup.c): the specs that apply to b's probes (the request's,
 * then its benchmark's), copied to *out when out is not NULL; making the
 * patched commit of p on the thread pool and then submitting its job; a
 * run's timings JSON with what it built and why it was skipped (NULL).
 */
size_t		 sched_fixup_specs(struct sched *s, const struct bisection *b,
		    char ***out);
int		 sched_fixup_start(struct sched *s, struct bisection_probe *p,
		    int resumed);
/* Status's "fixups": given, found, measured (per commit), skipped. */
json_t		*sched_fixup_status(struct bisection *b, struct store *st);
char		*sched_timings(const struct bisection_probe *p, int64_t wall_ms,
		    int built, const char *phase, const char *skip);

/*
 * Sweep runs (sched_sweep.c).  give hands up to nfree free hosts of group
 * to queued sweep runs of priority above prio (or equal to it, when eq)
 * and returns how many it used; waiting counts those submitted that have
 * no host yet.
 */
unsigned	 sched_sweep_give(struct sched *s, const char *group, int prio,
		    int eq, unsigned nfree);
unsigned	 sched_sweep_waiting(struct sched *s, const char *group);
/* Shutdown: detaches the running ones; whether any is still out. */
void		 sched_sweep_stop(struct sched *s);
int		 sched_sweep_busy(struct sched *s);
/* {"sweep","row","commit"} of the sweep run on host, or NULL. */
json_t		*sched_sweep_on_host(struct sched *s, const char *host);
void		 sched_sweep_free(struct sched *s);

#endif
