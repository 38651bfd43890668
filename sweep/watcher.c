/* SPDX-License-Identifier: MIT */
/*
 * The watcher: timers, one fetch at a time on the thread pool, backoff,
 * and the ref events each fetch produces (see sweep/watcher.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "sweep/watcher.h"
#include "sweep/watcher_int.h"
#include "repo/mirror.h"
#include "store/store.h"

/* First retry after a failure, doubled per failure up to the cap. */
#define WATCHER_RETRY_MS	1000
#define WATCHER_RETRY_CAP_MS	(3600 * 1000)
/* How often a running fetch reports its progress and checks its timeout. */
#define WATCHER_TICK_MS		250

/* The configuration in effect now. */
static const struct config *
watcher_cfg(struct watcher *w)
{
	return w->env.config(w->env.config_arg);
}

/* Worker thread: a ref the fetch left out, logged when the fetch ends. */
static void
watcher_skip(void *arg, const char *ref, const char *why)
{
	struct watcher_job *j = arg;
	char *shown = mirror_ref_shown(ref);

	j->skipped = xreallocarray(j->skipped, j->nskipped + 1,
	    sizeof(*j->skipped));
	xasprintf(&j->skipped[j->nskipped++], "%s (%s)", shown, why);
	free(shown);
}

/* Copies what the worker needs, so a reload meanwhile changes nothing. */
static struct watcher_job *
watcher_job_new(struct watcher *w, const struct config_repo *rc)
{
	struct watcher_job *j = xcalloc(1, sizeof(*j));

	j->w = w;
	j->opts.url = xstrdup(rc->url);
	j->opts.path = xstrdup(rc->path);
	j->opts.identity = rc->identity ? xstrdup(rc->identity) : NULL;
	j->opts.known_hosts = rc->known_hosts ? xstrdup(rc->known_hosts) :
	    NULL;
	j->opts.cancel = &j->cancel;
	j->opts.progress = watcher_progress;
	j->opts.skip = watcher_skip;
	j->opts.arg = j;
	j->shown = mirror_url_shown(rc->url);
	watcher_globs(rc->watch_refs, &j->globs, &j->nglobs);
	j->work.data = j;
	return j;
}

static void
watcher_job_free(struct watcher_job *j)
{
	size_t i;

	free((char *)j->opts.url);
	free((char *)j->opts.path);
	free((char *)j->opts.identity);
	free((char *)j->opts.known_hosts);
	free(j->shown);
	for (i = 0; i < j->nskipped; i++)
		free(j->skipped[i]);
	free(j->skipped);
	for (i = 0; i < j->nglobs; i++)
		free(j->globs[i]);
	free(j->globs);
	free(j->matches);
	mirror_refs_free(j->old, j->nold);
	mirror_refs_free(j->now, j->nnow);
	free(j->ev);
	free(j);
}

/* Worker thread: the progress of the running fetch, under the lock. */
void
watcher_progress(void *arg, const struct mirror_progress *p)
{
	struct watcher *w = ((struct watcher_job *)arg)->w;

	pthread_mutex_lock(&w->lock);
	w->progress = *p;
	w->progress_seq++;
	pthread_mutex_unlock(&w->lock);
}

/*
 * Worker thread: fetch, read the watched refs, compare them with the
 * stored snapshot and keep every old id reachable before the loop stores
 * the events; so an event is stored only once its old objects are safe.
 */
void
watcher_work(uv_work_t *work)
{
	struct watcher_job *j = work->data;
	size_t i;

	if ((j->rc = mirror_fetch(&j->opts, &j->err)) < 0)
		return;
	if ((j->rc = mirror_refs(j->opts.path, (const char *const *)j->globs,
	    j->nglobs, &j->now, &j->nnow, &j->err)) < 0)
		return;
	watcher_diff(j);
	for (i = 0; i < j->nev; i++)
		if (j->ev[i].old_id != NULL && (j->rc = mirror_keep(
		    j->opts.path, j->ev[i].old_id, &j->err)) < 0)
			return;
}

/* The next fetch: the interval after a success, backoff after a failure. */
static void
watcher_schedule(struct watcher *w)
{
	const struct config_repo *rc = &watcher_cfg(w)->repo;
	uint64_t delay, cap;
	unsigned i;

	w->next_ms = 0;
	if (w->stopping || rc->url == NULL)
		return;
	if (w->failures > 0) {
		cap = rc->fetch_interval_ms && rc->fetch_interval_ms <
		    WATCHER_RETRY_CAP_MS ? rc->fetch_interval_ms :
		    WATCHER_RETRY_CAP_MS;
		delay = WATCHER_RETRY_MS;
		for (i = 1; i < w->failures && delay < cap; i++)
			delay *= 2;
		if (delay > cap)
			delay = cap;
	} else if (rc->fetch_interval_ms > 0)
		delay = rc->fetch_interval_ms;
	else
		return;
	w->next_ms = w->env.now_ms() + (int64_t)delay;
	uv_timer_start(&w->timer, watcher_timer, delay, 0);
}

/* Calls everyone who waited for this fetch, then forgets them. */
static void
watcher_wake(struct watcher *w, int rc, const char *msg)
{
	struct watcher_waiter *wt;

	while ((wt = TAILQ_FIRST(&w->waiters)) != NULL) {
		TAILQ_REMOVE(&w->waiters, wt, entry);
		wt->fn(wt->arg, rc, msg);
		free(wt);
	}
}

/*
 * Loop: the events go to the store (with the snapshot, one transaction)
 * before anyone hears of them; a fetch whose events cannot be stored
 * counts as failed, and the next one finds them again.
 */
void
watcher_done(uv_work_t *work, int status)
{
	struct watcher_job *j = work->data;
	struct watcher *w = j->w;

	uv_timer_stop(&w->tick);
	if (status < 0 && j->rc == 0)
		j->rc = bd_error_set(&j->err, -ECANCELED, "fetch cancelled");
	if (j->rc == 0 && j->timed_out)
		j->rc = bd_error_set(&j->err, -ETIMEDOUT, "fetch timed out");
	if (j->rc == 0 && j->nev > 0)
		j->rc = store_ref_event_add(w->env.store, j->ev, j->nev,
		    w->env.now_ms(), &j->err);
	if (j->rc == -ECANCELED && j->timed_out)
		j->rc = bd_error_set(&j->err, -ETIMEDOUT, "fetch from %s "
		    "cancelled after fetch_timeout (%llu ms)", j->shown,
		    (unsigned long long)j->timeout_ms);
	watcher_record(w, j);
	w->job = NULL;
	watcher_schedule(w);
	watcher_announce(w, j);
	watcher_wake(w, j->rc, j->rc < 0 ? j->err.msg : NULL);
	if (j->rc == 0 && w->env.fetched != NULL)
		w->env.fetched(w->env.fetched_arg);
	watcher_job_free(j);
}

/* Loop: progress events while a fetch runs, and its timeout. */
static void
watcher_tick(uv_timer_t *t)
{
	struct watcher *w = t->data;
	struct watcher_job *j = w->job;

	if (j == NULL)
		return;
	if (j->timeout_ms > 0 && !j->cancel &&
	    uv_now(w->env.loop) - j->started_loop_ms >= j->timeout_ms) {
		log_warnx("fetch from %s: fetch_timeout reached, cancelling",
		    j->shown);
		j->timed_out = 1;
		mirror_cancel(&j->cancel);
		watcher_clone_cancel(j);
	}
	watcher_emit_progress(w);
}

/* Loop: starts a fetch unless one runs; -EBUSY is never returned. */
static int
watcher_start(struct watcher *w, struct bd_error *err)
{
	const struct config_repo *rc = &watcher_cfg(w)->repo;
	struct watcher_job *j;
	int rc2;

	if (w->job != NULL)
		return 0;
	if (rc->url == NULL || rc->path == NULL)
		return bd_error_set(err, -ENOTSUP, "no [repo] url is "
		    "configured: the daemon never fetches");
	if (w->stopping)
		return bd_error_set(err, -ESHUTDOWN, "the daemon is stopping");
	j = watcher_job_new(w, rc);
	if ((rc2 = watcher_snapshot(w, j, err)) < 0) {
		watcher_job_free(j);
		return rc2;
	}
	j->timeout_ms = rc->fetch_timeout_ms;
	j->started_loop_ms = uv_now(w->env.loop);
	uv_timer_stop(&w->timer);
	pthread_mutex_lock(&w->lock);
	memset(&w->progress, 0, sizeof(w->progress));
	w->progress_seq = 0;
	pthread_mutex_unlock(&w->lock);
	w->last_emitted_seq = (uint64_t)-1;
	w->started_ms = w->env.now_ms();
	if (watcher_clone_wanted(j))
		rc2 = watcher_clone_start(j, err);
	else if ((rc2 = uv_queue_work(w->env.loop, &j->work, watcher_work,
	    watcher_done)) < 0)
		rc2 = bd_error_set(err, -EIO, "cannot start a fetch: %s",
		    uv_strerror(rc2));
	if (rc2 < 0) {
		watcher_job_free(j);
		return rc2;
	}
	w->job = j;
	w->next_ms = 0;
	log_debug("fetching %s into %s", j->shown, j->opts.path);
	uv_timer_start(&w->tick, watcher_tick, WATCHER_TICK_MS,
	    WATCHER_TICK_MS);
	watcher_emit_progress(w);
	return 0;
}

/* The fetch timer: a failure is already recorded and rescheduled. */
void
watcher_timer(uv_timer_t *t)
{
	struct watcher *w = t->data;
	struct bd_error err;

	if (watcher_start(w, &err) < 0 && err.code != -ESHUTDOWN)
		log_warnx("fetch: %s", err.msg);
}

int
watcher_new(const struct watcher_env *env, struct watcher **wp,
    struct bd_error *err)
{
	struct watcher *w = xcalloc(1, sizeof(*w));

	(void)err;
	w->env = *env;
	TAILQ_INIT(&w->waiters);
	pthread_mutex_init(&w->lock, NULL);
	uv_timer_init(env->loop, &w->timer);
	uv_timer_init(env->loop, &w->tick);
	w->timer.data = w;
	w->tick.data = w;
	*wp = w;
	/* The first fetch runs at once: the mirror may not even exist yet. */
	if (watcher_cfg(w)->repo.url != NULL) {
		w->next_ms = w->env.now_ms();
		uv_timer_start(&w->timer, watcher_timer, 0, 0);
	}
	return 0;
}

void
watcher_stop(struct watcher *w)
{
	if (w == NULL || w->stopping)
		return;
	w->stopping = 1;
	w->next_ms = 0;
	if (w->job != NULL) {
		mirror_cancel(&w->job->cancel);
		watcher_clone_cancel(w->job);
	}
	uv_close((uv_handle_t *)&w->timer, NULL);
	uv_close((uv_handle_t *)&w->tick, NULL);
}

void
watcher_free(struct watcher *w)
{
	size_t i;

	if (w == NULL)
		return;
	watcher_wake(w, -ESHUTDOWN, "the daemon stopped");
	for (i = 0; i < w->nglobs; i++)
		free(w->globs[i]);
	free(w->globs);
	free(w->matches);
	free(w->listeners);
	free(w->last_url);
	for (i = 0; i < w->nskipped; i++)
		free(w->skipped[i]);
	free(w->skipped);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

void
watcher_listen(struct watcher *w, ref_event_fn *fn, void *arg)
{
	w->listeners = xreallocarray(w->listeners, w->nlisteners + 1,
	    sizeof(*w->listeners));
	w->listeners[w->nlisteners].fn = fn;
	w->listeners[w->nlisteners].arg = arg;
	w->nlisteners++;
}

int
watcher_fetch(struct watcher *w, watcher_done_fn *done, void *arg,
    struct bd_error *err)
{
	struct watcher_waiter *wt;
	int rc;

	if ((rc = watcher_start(w, err)) < 0)
		return rc;
	if (done != NULL) {
		wt = xcalloc(1, sizeof(*wt));
		wt->fn = done;
		wt->arg = arg;
		TAILQ_INSERT_TAIL(&w->waiters, wt, entry);
	}
	return 0;
}

int
watcher_busy(const struct watcher *w)
{
	return w->job != NULL;
}
