/* SPDX-License-Identifier: MIT */
/*
 * Inside the watcher: its state and the fetch job, shared by watcher.c
 * (timers and the job's life) and watcher_state.c (comparing refs, state
 * and events).  Not for use outside sweep/watcher*.c.
 */
#ifndef SWEEP_WATCHER_INT_H
#define SWEEP_WATCHER_INT_H

#include <pthread.h>

#include "common/queue.h"
#include "sweep/watcher.h"
#include "repo/mirror.h"
#include "store/store.h"

struct watcher_waiter {
	watcher_done_fn			*fn;
	void				*arg;
	TAILQ_ENTRY(watcher_waiter)	 entry;
};

struct watcher_listener {
	ref_event_fn	*fn;
	void		*arg;
};

/* One fetch: the worker owns it between queue and done. */
struct watcher_job {
	uv_work_t		 work;
	struct watcher		*w;
	struct mirror_fetch_opts opts;	/* strings owned */
	char			**globs;
	size_t			 nglobs;
	size_t			*matches;	/* refs per glob, after the fetch */
	struct mirror_ref	*old;		/* the stored snapshot */
	size_t			 nold;
	struct mirror_ref	*now;		/* the mirror after the fetch */
	size_t			 nnow;
	struct store_ref_event	*ev;		/* strings point into old/now */
	size_t			 nev;
	volatile int		 cancel;
	struct watcher_clone	*clone;		/* the git child, or NULL */
	char			*shown;		/* opts.url without user-info */
	char			**skipped;	/* refs the fetch left out */
	size_t			 nskipped;
	int			 timed_out;
	uint64_t		 timeout_ms;
	uint64_t		 started_loop_ms;
	int			 rc;
	struct bd_error		 err;
};

struct watcher {
	struct watcher_env	 env;
	uv_timer_t		 timer;		/* the next fetch */
	uv_timer_t		 tick;		/* progress and timeout */
	struct watcher_job	*job;		/* running fetch, or NULL */
	TAILQ_HEAD(, watcher_waiter) waiters;
	struct watcher_listener	*listeners;
	size_t			 nlisteners;
	pthread_mutex_t		 lock;		/* guards progress */
	struct mirror_progress	 progress;
	uint64_t		 progress_seq;
	uint64_t		 last_emitted_seq;
	int64_t			 started_ms;	/* of the running or last fetch */
	int64_t			 finished_ms;	/* of the last; 0: none yet */
	int			 last_rc;
	char			 last_error[BD_ERROR_MAX];
	char			*last_url;	/* without user-info */
	char			**skipped;	/* by the last fetch, shown */
	size_t			 nskipped;
	int64_t			 last_ok_ms;
	size_t			 last_events;
	unsigned		 failures;	/* in a row */
	int64_t			 next_ms;	/* 0: none planned */
	char			**globs;	/* of the last good fetch */
	size_t			*matches;	/* refs each glob matched */
	size_t			 nglobs;
	int			 stopping;
};

struct watcher_clone;

void	watcher_work(uv_work_t *work);
void	watcher_done(uv_work_t *work, int status);
/*
 * Whether the first clone is git's: no mirror yet, not ssh://, no
 * user-info in the url (clone.c).
 */
int	watcher_clone_wanted(const struct watcher_job *j);
/* Spawns git clone --mirror; the job goes on when it exits. */
int	watcher_clone_start(struct watcher_job *j, struct bd_error *err);
/* Stops a running clone child (timeout, shutdown). */
void	watcher_clone_cancel(struct watcher_job *j);
void	watcher_timer(uv_timer_t *t);
void	watcher_progress(void *arg, const struct mirror_progress *p);
/* Splits a blank-separated glob list (NULL: every head and tag). */
void	watcher_globs(const char *list, char ***globsp, size_t *np);
/* Loads the stored snapshot into j->old. */
int	watcher_snapshot(struct watcher *w, struct watcher_job *j,
	    struct bd_error *err);
/* Worker: j->ev from j->old against j->now, and j->matches. */
void	watcher_diff(struct watcher_job *j);
/* Loop: the job's outcome into the watcher's state. */
void	watcher_record(struct watcher *w, struct watcher_job *j);
/* Loop: the end of a fetch to `watch` and to the listeners. */
void	watcher_announce(struct watcher *w, struct watcher_job *j);
/* Loop: a "repo" progress event when the progress changed. */
void	watcher_emit_progress(struct watcher *w);

#endif
