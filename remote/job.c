/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "remote/job.h"

struct job {
	struct job_queue	*q;
	struct job_spec		 spec;		/* strings below are copies */
	char			*commit, *run_id, *group, *log_dir;
	char			*tree;		/* NULL: not given */
	job_done_cb		*cb;
	void			*arg;
	unsigned		 attempts;
	struct pool_host	*exclude[16];
	size_t			 nexclude;
	struct pool_host	*test, *build;
	struct pool_host	*avoid;		/* asked to retry: elsewhere */
	struct step		*step;
	int			 cancelled;
	int			 building;	/* builds its commit now */
	struct job		*next;		/* in the waiting queue */
	struct job		*rnext;		/* in the running list */
};

struct job_queue {
	struct pool		*pool;
	struct job		*head, *tail;
	struct job		*run_head;	/* jobs with a step */
	size_t			 running;
	uv_timer_t		 timer;		/* deferred dispatch */
	pool_avail_cb		*avail;
	void			*avail_arg;
};

static void	job_dispatch(struct job_queue *);

/* Frees a job that no callback can reach any more. */
static void
job_free(struct job *j)
{
	free(j->commit);
	free(j->tree);
	free(j->run_id);
	free(j->group);
	free(j->log_dir);
	free(j);
}

/* Places what can run, then lets the owner submit more. */
static void
job_on_dispatch(uv_timer_t *t)
{
	struct job_queue *q = t->data;

	job_dispatch(q);
	if (q->avail != NULL)
		q->avail(q->avail_arg);
}

/* Dispatch runs on its own loop turn: releases happen inside callbacks. */
static void
job_soon(void *arg)
{
	struct job_queue *q = arg;

	uv_timer_start(&q->timer, job_on_dispatch, 0, 0);
}

/* The queue listens to the pool for hosts becoming free. */
struct job_queue *
job_queue_new(struct pool *p)
{
	struct job_queue *q = xcalloc(1, sizeof(*q));

	q->pool = p;
	uv_timer_init(pool_loop(p), &q->timer);
	q->timer.data = q;
	pool_set_avail_cb(p, job_soon, q);
	return q;
}

/* The timer is closed: the queue can go. */
static void
job_queue_freed(uv_handle_t *h)
{
	free(h->data);
}

/* Stops listening to the pool and frees the queue asynchronously. */
void
job_queue_free(struct job_queue *q)
{
	pool_set_avail_cb(q->pool, NULL, NULL);
	uv_close((uv_handle_t *)&q->timer, job_queue_freed);
}

/* The owner hears when more work could be placed. */
void
job_queue_set_avail_cb(struct job_queue *q, pool_avail_cb *cb, void *arg)
{
	q->avail = cb;
	q->avail_arg = arg;
}

/* Tells status views where a job runs. */
const char *
job_host(const struct job *j)
{
	return j->test != NULL ? pool_host_config(j->test)->name : NULL;
}

/* Retries go to the front: they have waited their turn already. */
static void
job_enqueue(struct job_queue *q, struct job *j, int front)
{
	if (front) {
		j->next = q->head;
		q->head = j;
		if (q->tail == NULL)
			q->tail = j;
	} else {
		j->next = NULL;
		if (q->tail != NULL)
			q->tail->next = j;
		else
			q->head = j;
		q->tail = j;
	}
	job_soon(q);
}

/* Takes a job out of the waiting list, wherever it is. */
static void
job_unqueue(struct job_queue *q, struct job *j)
{
	struct job **pp, *prev = NULL;

	for (pp = &q->head; *pp != NULL; prev = *pp, pp = &(*pp)->next) {
		if (*pp == j) {
			*pp = j->next;
			if (q->tail == j)
				q->tail = prev;
			j->next = NULL;
			return;
		}
	}
}

/* A job with a step joins the running list, where builds are found. */
static void
job_running_add(struct job_queue *q, struct job *j)
{
	j->rnext = q->run_head;
	q->run_head = j;
	q->running++;
}

/* Leaves the running list once its step has ended. */
static void
job_running_del(struct job_queue *q, struct job *j)
{
	struct job **pp;

	for (pp = &q->run_head; *pp != NULL; pp = &(*pp)->rnext)
		if (*pp == j) {
			*pp = j->rnext;
			break;
		}
	j->rnext = NULL;
	j->building = 0;
	q->running--;
}

/*
 * Whether another job builds j's commit for the same group and build
 * configuration now: j then waits for that build instead of starting a
 * second one, and takes the cached artifact when it is done.
 */
static int
job_build_running(const struct job *j)
{
	const struct job *o;

	for (o = j->q->run_head; o != NULL; o = o->rnext)
		if (o != j && o->building &&
		    strcmp(o->commit, j->commit) == 0 &&
		    strcmp(o->group, j->group) == 0 &&
		    strcmp(o->spec.bench->name, j->spec.bench->name) == 0 &&
		    cache_config_hash(o->spec.bench) ==
		    cache_config_hash(j->spec.bench))
			return 1;
	return 0;
}

/* The build of the job's commit is over: waiting runs may take it. */
static void
job_on_built(void *arg)
{
	struct job *j = arg;

	if (j->building) {
		j->building = 0;
		job_soon(j->q);
	}
}

/* Ends a job that never ran (or cannot run again) with a message. */
static void
job_end(struct job *j, enum step_outcome o, const char *msg)
{
	struct step_result r;

	memset(&r, 0, sizeof(r));
	r.outcome = o;
	r.phase = STEP_PHASE_BUILD;
	r.err.code = o == STEP_OK ? 0 : -EIO;
	snprintf(r.err.msg, sizeof(r.err.msg), "%s", msg);
	j->cb(j->arg, &r, j->attempts);
	job_free(j);
}

/* The outcome that concerns one host: blame goes only where it is due. */
static enum step_outcome
job_host_outcome(const struct step_result *r, struct pool_host *h)
{
	if (!step_outcome_retryable(r->outcome))
		return r->outcome;
	/* A benchmark that hangs or asks for a retry is no fault of the
	 * host: the retry budgets bound it, not quarantine. */
	if (r->outcome == STEP_RETRY || (r->outcome == STEP_TIMEOUT &&
	    r->phase >= STEP_PHASE_RUN))
		return STEP_CANCELLED;
	if (r->host == NULL ||
	    strcmp(r->host, pool_host_config(h)->name) == 0)
		return r->outcome;
	return STEP_CANCELLED;		/* neutral for the other host */
}

/* The host to avoid on the retry: the one the step blamed. */
static struct pool_host *
job_blamed(struct job *j, const struct step_result *r)
{
	if (r->host != NULL && j->build != NULL &&
	    strcmp(r->host, pool_host_config(j->build)->name) == 0)
		return j->build;
	if (r->host != NULL) {
		struct pool_host *h = pool_find(j->q->pool, r->host);

		if (h != NULL)
			return h;
	}
	return j->test;
}

/* Charges hosts, retries infrastructure failures, records the rest once. */
static void
job_on_step(void *arg, const struct step_result *r)
{
	struct job *j = arg;
	struct job_queue *q = j->q;
	struct pool_host *blamed = job_blamed(j, r);
	const char *host = pool_host_config(j->test)->name;

	j->step = NULL;
	job_running_del(q, j);
	if (r->copied)
		pool_note_copy(q->pool, j->test, r->copy_via_exec,
		    r->copy_failed, r->err.msg);
	pool_release(q->pool, j->test, job_host_outcome(r, j->test),
	    r->err.msg);
	if (j->build != NULL && j->build != j->test)
		pool_release(q->pool, j->build, job_host_outcome(r, j->build),
		    r->err.msg);
	j->test = j->build = NULL;
	if (step_outcome_retryable(r->outcome) && !j->cancelled &&
	    j->attempts < j->spec.max_attempts &&
	    j->nexclude < sizeof(j->exclude) / sizeof(j->exclude[0])) {
		if (r->outcome == STEP_RETRY)
			j->avoid = blamed;
		else
			j->exclude[j->nexclude++] = blamed;
		job_enqueue(q, j, 1);
		return;
	}
	if (r->outcome == STEP_OK || r->outcome == STEP_FAILED) {
		if (j->spec.record != NULL)
			j->spec.record(j->spec.record_arg, r, host);
	}
	j->cb(j->arg, r, j->attempts);
	job_free(j);
}

/*
 * A cached artifact is only worth taking from a host that may work (one
 * not yet heard from after a start included: a failed relay blames it).
 */
static int
job_usable(const struct job *j, const struct pool_host *h)
{
	size_t i;

	for (i = 0; i < j->nexclude; i++) {
		if (j->exclude[i] == h)
			return 0;
	}
	return pool_usable(pool_host_health(h)) ||
	    pool_host_health(h) == POOL_DRAINING;
}

/*
 * The host whose kept copy serves the job, or NULL: the test host itself
 * when it keeps one (test NULL: not leased yet), else the first usable
 * host of the group that does, relayed from.  An artifact without a
 * recorded hash cannot be checked, so such a copy is not taken.
 */
static struct pool_host *
job_copy(const struct job *j, const struct cache_hit *hit,
    struct pool_host *test, const struct cache_copy **out)
{
	const struct config_benchmark *b = j->spec.bench;
	struct pool_host *h;
	size_t i;
	int pass;

	*out = NULL;
	for (pass = test != NULL ? 0 : 1; pass < 2; pass++)
		for (i = 0; i < hit->ncopies; i++) {
			if (b->artifact != NULL && hit->copies[i].sha256 == NULL)
				continue;
			if ((h = pool_find(j->q->pool,
			    hit->copies[i].host)) == NULL ||
			    (pass == 0 && h != test) ||
			    (pass == 1 && !job_usable(j, h)))
				continue;
			*out = &hit->copies[i];
			return h;
		}
	return NULL;
}

/*
 * Leases a host of the group with roles, avoiding the host a run asked to
 * leave when another could serve (it is taken when it is the only one).
 */
static int
job_lease_one(struct job *j, unsigned roles, struct pool_host **out)
{
	struct pool_host *ex[sizeof(j->exclude) / sizeof(j->exclude[0]) + 1];
	int rc;

	if (j->avoid != NULL) {
		memcpy(ex, j->exclude, j->nexclude * sizeof(ex[0]));
		ex[j->nexclude] = j->avoid;
		rc = pool_lease(j->q->pool, j->group, roles, ex,
		    j->nexclude + 1, out);
		if (rc != -ENOENT)
			return rc;
	}
	return pool_lease(j->q->pool, j->group, roles, j->exclude,
	    j->nexclude, out);
}

/*
 * Leases what the job needs: a test host, plus a build host when the
 * commit is not cached and the test host cannot build; *cached and *copy
 * name the kept copy that serves it (NULL: build).  Returns 0 when leased, -EBUSY to keep waiting (also while another job builds the
 * commit), -ENOENT when the group cannot serve.
 */
static int
job_lease(struct job *j, struct cache_hit *hit, struct pool_host **cached,
    const struct cache_copy **copy)
{
	const struct config_benchmark *b = j->spec.bench;
	struct cache_key k;
	unsigned roles = CONFIG_ROLE_TEST;
	int rc, need_build;

	*cached = NULL;
	*copy = NULL;
	hit->copies = NULL;
	hit->ncopies = 0;
	if (j->spec.build_only) {
		rc = job_lease_one(j, CONFIG_ROLE_BUILD, &j->test);
		j->build = j->test;
		return rc;
	}
	cache_key_init(&k, j->group, b, j->commit, j->tree);
	if (b->build != NULL && cache_lookup(j->spec.cache, &k, hit) == 0)
		*cached = job_copy(j, hit, NULL, copy);
	need_build = *cached == NULL && b->build != NULL;
	if (need_build && job_build_running(j)) {
		rc = -EBUSY;
		goto fail;
	}
	if (need_build && b->artifact == NULL)
		roles |= CONFIG_ROLE_BUILD;	/* nothing to relay */
	rc = job_lease_one(j, roles, &j->test);
	if (rc != 0)
		goto fail;
	if (*cached != NULL)
		*cached = job_copy(j, hit, j->test, copy);
	j->build = j->test;
	j->building = need_build;
	if (need_build &&
	    !(pool_host_config(j->test)->roles & CONFIG_ROLE_BUILD)) {
		rc = job_lease_one(j, CONFIG_ROLE_BUILD, &j->build);
		if (rc != 0) {
			pool_unlease(j->test);
			j->test = j->build = NULL;
			j->building = 0;
			goto fail;
		}
	}
	return 0;
fail:
	cache_hit_release(hit);
	*cached = NULL;
	*copy = NULL;
	return rc;
}

/* Starts one leased attempt. */
static void
job_run(struct job *j, const struct cache_copy *copy,
    struct pool_host *cached)
{
	struct step_spec s;
	struct bd_error err;

	memset(&s, 0, sizeof(s));
	s.bench = j->spec.bench;
	s.commit = j->commit;
	s.tree = j->tree;
	s.run_id = j->run_id;
	s.group = j->group;
	s.log_dir = j->log_dir;
	s.test.cfg = pool_host_config(j->test);
	s.test.conn = pool_host_conn(j->test);
	s.build.cfg = pool_host_config(j->build);
	s.build.conn = pool_host_conn(j->build);
	if (cached != NULL) {
		s.cached.cfg = pool_host_config(cached);
		s.cached.conn = pool_host_conn(cached);
		s.cached_artifact = copy->artifact;
		s.cached_sha256 = copy->sha256;
	}
	s.cache = j->spec.cache;
	s.connect_wait_ms = j->spec.connect_wait_ms;
	s.kill_grace_ms = j->spec.kill_grace_ms;
	s.boot_retry_ms = j->spec.boot_retry_ms;
	s.build_only = j->spec.build_only;
	s.built = job_on_built;
	s.built_arg = j;
	s.phase_cb = j->spec.progress;
	s.phase_arg = j->spec.progress_arg;
	j->attempts++;
	job_running_add(j->q, j);
	if (step_start(pool_loop(j->q->pool), &s, job_on_step, j, &j->step,
	    &err) != 0) {
		job_running_del(j->q, j);
		pool_release(j->q->pool, j->test, STEP_CANCELLED, NULL);
		if (j->build != j->test)
			pool_release(j->q->pool, j->build, STEP_CANCELLED,
			    NULL);
		job_end(j, STEP_FAILED, err.msg);
	}
}

/* FIFO, but a job waiting for a busy group does not hold up the others. */
static void
job_dispatch(struct job_queue *q)
{
	struct job *j, *next;
	struct pool_host *cached;
	const struct cache_copy *copy;
	struct cache_hit hit;
	char msg[BD_ERROR_MAX];
	int rc;

	for (j = q->head; j != NULL; j = next) {
		next = j->next;
		rc = job_lease(j, &hit, &cached, &copy);
		if (rc == -EBUSY)
			continue;
		job_unqueue(q, j);
		if (rc != 0) {
			snprintf(msg, sizeof(msg), "no usable %s host left in "
			    "group %s after %u attempt(s)",
			    j->spec.build_only ? "build" :
			    j->spec.bench->build ? "build/test" : "test",
			    j->group, j->attempts);
			job_end(j, STEP_INFRA, msg);
			continue;
		}
		job_run(j, copy, cached);
		cache_hit_release(&hit);
	}
}

/* Copies the spec and queues the job; dispatch happens on a later turn. */
int
job_submit(struct job_queue *q, const struct job_spec *spec,
    job_done_cb *cb, void *arg, struct job **out, struct bd_error *err)
{
	struct job *j;

	if (spec->bench == NULL || spec->commit == NULL ||
	    spec->run_id == NULL)
		return bd_error_set(err, -EINVAL, "job: incomplete spec");
	j = xcalloc(1, sizeof(*j));
	j->q = q;
	j->spec = *spec;
	if (j->spec.max_attempts == 0)
		j->spec.max_attempts = JOB_MAX_ATTEMPTS;
	j->commit = xstrdup(spec->commit);
	j->tree = spec->tree ? xstrdup(spec->tree) : NULL;
	j->run_id = xstrdup(spec->run_id);
	j->group = xstrdup(spec->group ? spec->group : "default");
	j->log_dir = spec->log_dir ? xstrdup(spec->log_dir) : NULL;
	j->cb = cb;
	j->arg = arg;
	if (out != NULL)
		*out = j;
	job_enqueue(q, j, 0);
	return 0;
}

/* A running job is killed on its host; a waiting one just ends. */
void
job_cancel(struct job *j)
{
	j->cancelled = 1;
	if (j->step != NULL) {
		step_cancel(j->step);
		return;
	}
	job_unqueue(j->q, j);
	job_end(j, STEP_CANCELLED, "cancelled before it ran");
}
