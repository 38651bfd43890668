/* SPDX-License-Identifier: MIT */
#include <sys/stat.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "sched/bisection.h"
#include "sched/buildcache.h"
#include "common/log.h"
#include "common/proto_cmd.h"
#include "sched/sched.h"
#include "sched/sched_int.h"
#include "sched/verify.h"
#include "remote/backend.h"
#include "remote/job.h"
#include "remote/labbuild.h"
#include "remote/lava.h"
#include "remote/pool.h"
#include "repo/fixup.h"
#include "repo/rev.h"
#include "store/store.h"

/* The store is borrowed from the environment, like everything in it. */
struct store *
sched_store(struct sched *s)
{
	return s->env.store;
}

/* Asked at every use: a reload replaces the configuration whole. */
const struct config *
sched_config(struct sched *s)
{
	return s->env.config(s->env.config_arg);
}

/* The sink decides who hears of it; without one the event is dropped. */
void
sched_emit(struct sched *s, const char *kind, json_t *fields)
{
	if (fields == NULL)
		return;
	if (s->env.events.emit == NULL) {
		json_decref(fields);
		return;
	}
	s->env.events.emit(s->env.events.arg, kind, fields);
}

/* Durations only: the loop's clock never jumps with the wall clock. */
int64_t
sched_clock_ms(struct sched *s)
{
	return (int64_t)uv_now(s->env.loop);
}

struct pool *
sched_pool(struct sched *s)
{
	return s->pool;
}

git_repository *
sched_repo(struct sched *s)
{
	return s->env.repo;
}

/* A mirror cloned after startup is lent once it exists. */
void
sched_set_repo(struct sched *s, git_repository *repo)
{
	s->env.repo = repo;
}

/*
 * Marks a bisection that cannot go on, with the reason for status: the
 * log keeps the store's own words, status gets them for a person.
 */
void
sched_fail(struct sched *s, struct bisection *b, const char *full)
{
	char why[BD_ERROR_MAX];
	struct store_verdict_info v = { STORE_VERDICT_NONE, NULL, 0, why };
	struct bd_error err;

	log_errx("bisection %" PRId64 " failed: %s", b->id, full);
	snprintf(why, sizeof(why), "%s", full);
	store_scrub(store_path(sched_store(s)), why, sizeof(why));
	bd_utf8_fix(why);
	if (store_bisection_set_state(sched_store(s), b->id,
	    STORE_BISECTION_FAILED, &v, &err) < 0)
		log_warnx("bisection %" PRId64 ": %s", b->id, err.msg);
	b->rec.state = STORE_BISECTION_FAILED;
	free((char *)b->rec.detail);
	b->rec.detail = xstrdup(why);
	b->phase = BISECTION_FINISHED;
	sched_emit(s, "done", json_pack("{s:I, s:s, s:s}", "bisection",
	    (json_int_t)b->id, "state", "failed", "message", why));
	verify_child_ended(s, b);
}

/* Starts loading one stored bisection; the loop continues meanwhile. */
static int
sched_activate(struct sched *s, int64_t id, struct bd_error *err)
{
	const struct config *cfg = sched_config(s);
	struct bisection *b;
	int rc;

	if ((rc = bisection_new(s, sched_store(s), id, &b, err)) < 0)
		return rc;
	TAILQ_INSERT_TAIL(&s->active, b, entry);
	if (cfg->repo.path == NULL) {
		sched_fail(s, b, "no [repo] path is configured");
		return 0;
	}
	if ((rc = bisection_load(b, s->env.loop, cfg->repo.path,
	    sched_loaded)) < 0) {
		sched_fail(s, b, uv_strerror(rc));
		return 0;
	}
	return 0;
}

struct sched_ids {
	int64_t	*id;
	size_t	 n;
};

/* Store callbacks may not nest: ids are collected, then acted on. */
static int
sched_collect_id(void *arg, const struct store_bisection *rec)
{
	struct sched_ids *ids = arg;

	ids->id = xreallocarray(ids->id, ids->n + 1, sizeof(int64_t));
	ids->id[ids->n++] = rec->id;
	return 0;
}

/* Lab events go to the watch stream like the scheduler's own. */
static void
sched_lab_event(void *arg, const char *kind, json_t *fields)
{
	sched_emit(arg, kind, fields);
}

static void
sched_lab_avail(void *arg)
{
	sched_kick(arg);
}

/* One backend per [lab], made like the pool from the startup config. */
static int
sched_labs_new(struct sched *s, const struct config *cfg,
    struct bd_error *err)
{
	struct lava_env env = { .loop = s->env.loop, .event = sched_lab_event,
	    .avail = sched_lab_avail, .arg = s };
	char *instance = NULL;
	size_t i;
	int rc;

	if (cfg->nlabs == 0)
		return 0;
	if ((rc = store_instance_id(s->env.store, &instance, err)) < 0)
		return rc;
	env.instance = instance;
	s->labs = xcalloc(cfg->nlabs, sizeof(*s->labs));
	s->fronts = xcalloc(cfg->nlabs, sizeof(*s->fronts));
	for (i = 0; i < cfg->nlabs; i++) {
		if ((rc = lava_new(&env, &cfg->labs[i], &s->labs[s->nlabs],
		    err)) < 0)
			break;
		/* Its commits are built on SSH build hosts first. */
		if (cfg->labs[i].build_group != NULL)
			s->fronts[s->nlabs] = labbuild_new(
			    backend_ssh_build_new(s->pool, s->jobs),
			    cfg->labs[i].build_group, s->labs[s->nlabs]);
		s->nlabs++;
	}
	free(instance);
	return rc;
}

/*
 * The pool is made from the hosts configured now: a reload that changes
 * them takes effect after a restart.  Stored runs that were in flight go
 * back to queued and every active bisection starts loading.
 */
int
sched_new(const struct sched_env *env, struct sched **out,
    struct bd_error *err)
{
	struct sched *s = xcalloc(1, sizeof(*s));
	struct sched_ids ids = { NULL, 0 };
	const struct config *cfg;
	struct bd_error lerr;
	int64_t requeued = 0;
	size_t i;
	int rc;

	s->env = *env;
	TAILQ_INIT(&s->active);
	TAILQ_INIT(&s->sweeps);
	cfg = sched_config(s);
	if ((rc = pool_new(env->loop, cfg->hosts, cfg->nhosts, 0,
	    &s->pool, err)) < 0)
		goto fail;
	sched_hosts_bind(s);
	s->jobs = job_queue_new(s->pool);
	job_queue_set_avail_cb(s->jobs, (void (*)(void *))sched_kick, s);
	s->ssh = backend_ssh_new(s->pool, s->jobs);
	if ((rc = sched_labs_new(s, cfg, err)) < 0)
		goto fail;
	buildcache_bind(&s->cache, env->store);
	uv_timer_init(env->loop, &s->kick);
	s->kick.data = s;
	sched_store_init(s, env->loop);
	s->kick_ready = 1;
	if ((rc = store_runs_requeue_inflight(env->store, &requeued, err)) < 0)
		goto fail;
	if (requeued > 0)
		log_info("%" PRId64 " runs were in flight at the last stop; "
		    "they run again", requeued);
	if ((rc = store_bisection_list(env->store, STORE_BISECTION_ACTIVE,
	    sched_collect_id, &ids, err)) < 0)
		goto fail;
	for (i = 0; i < ids.n; i++)
		if (sched_activate(s, ids.id[i], &lerr) < 0)
			log_errx("cannot resume bisection %" PRId64 ": %s",
			    ids.id[i], lerr.msg);
	free(ids.id);
	*out = s;
	return 0;
fail:
	*out = s;
	return rc;
}

void
sched_probe_free(struct bisection *b, struct bisection_probe *p)
{
	TAILQ_REMOVE(&b->probes, p, entry);
	b->nprobes--;
	sched_result_free(p->unstored);
	json_decref(p->fixups);
	json_decref(p->auto_fixups);
	/* The run no longer points into the configuration it started with. */
	if (config_drop(p->cfg_hold))
		log_info("a replaced configuration was freed (%zu still kept)",
		    config_retired_count());
	free(p);
}

/* Closes the fleet once no job is left to call back into it. */
static void
sched_teardown(struct sched *s)
{
	size_t i;

	if (s->torn)
		return;
	s->torn = 1;
	for (i = 0; i < s->nlabs; i++) {
		if (s->fronts[i] != NULL)
			s->fronts[i]->ops->free(s->fronts[i]);
		s->labs[i]->ops->free(s->labs[i]);
	}
	free(s->labs);
	free(s->fronts);
	s->labs = NULL;
	s->fronts = NULL;
	s->nlabs = 0;
	if (s->ssh != NULL)
		s->ssh->ops->free(s->ssh);
	s->ssh = NULL;
	if (s->jobs != NULL)
		job_queue_free(s->jobs);
	s->jobs = NULL;
	if (s->pool != NULL)
		pool_free(s->pool);
	s->pool = NULL;
	if (s->kick_ready) {
		uv_close((uv_handle_t *)&s->kick, NULL);
		sched_store_close(s);
	}
}

/*
 * Shutdown: remote work is cancelled without recording anything (its runs
 * stay queued in the store and run again after the restart); the pool
 * closes when the last job has called back.
 */
void
sched_stop(struct sched *s)
{
	struct bisection *b;
	struct bisection_probe *p, *tp;

	if (s == NULL || s->stopping)
		return;
	s->stopping = 1;
	if (s->kick_ready) {
		uv_timer_stop(&s->kick);
		uv_timer_stop(&s->store_retry);
	}
	TAILQ_FOREACH(b, &s->active, entry) {
		if (b->phase == BISECTION_LOADING)
			bisection_load_abort(b);
		TAILQ_FOREACH_SAFE(p, &b->probes, entry, tp)
			if (p->job != NULL)
				backend_detach(p->job);
			else if (p->unstored != NULL)	/* runs again */
				sched_probe_free(b, p);
	}
	sched_sweep_stop(s);
	sched_stop_check(s);
}

/* Called as jobs end during shutdown. */
void
sched_stop_check(struct sched *s)
{
	struct bisection *b;

	if (!s->stopping)
		return;
	TAILQ_FOREACH(b, &s->active, entry)
		if (b->nprobes > 0)
			return;
	if (sched_sweep_busy(s))
		return;
	sched_teardown(s);
}

/* After the loop ended: only memory is left to free. */
void
sched_free(struct sched *s)
{
	struct bisection *b;

	if (s == NULL)
		return;
	while ((b = TAILQ_FIRST(&s->active)) != NULL) {
		TAILQ_REMOVE(&s->active, b, entry);
		bisection_free(b);
	}
	sched_sweep_free(s);
	free(s);
}

void
sched_kick(struct sched *s)
{
	if (s->stopping || !s->kick_ready || uv_is_active(
	    (uv_handle_t *)&s->kick))
		return;
	uv_timer_start(&s->kick, sched_kick_cb, 0, 0);
}

unsigned
sched_group_test_hosts(struct sched *s, const char *group)
{
	struct backend *be = sched_backend(s, group);
	unsigned n = be->ops->capacity(be, group);

	return n ? n : 1;
}

/* Runs group could start now, less runs still waiting for a host. */
unsigned
sched_free_hosts(struct sched *s, const char *group)
{
	struct backend *be = sched_backend(s, group);
	struct bisection *b;
	struct bisection_probe *p;
	unsigned n = be->ops->free_slots(be, group), waiting = 0;

	TAILQ_FOREACH(b, &s->active, entry)
		if (strcmp(b->rec.group, group) == 0)
			TAILQ_FOREACH(p, &b->probes, entry)
				if (p->job != NULL &&
				    backend_where(p->job) == NULL)
					waiting++;
	waiting += sched_sweep_waiting(s, group);
	return n > waiting ? n - waiting : 0;
}

/* The lab serving group (behind its builds, if any), else the SSH hosts. */
struct backend *
sched_backend(struct sched *s, const char *group)
{
	struct lava_info li;
	size_t i;

	for (i = 0; i < s->nlabs; i++) {
		lava_info(s->labs[i], &li);
		if (strcmp(li.group, group) == 0)
			return s->fronts[i] != NULL ? s->fronts[i] :
			    s->labs[i];
	}
	return s->ssh;
}

size_t
sched_labs(struct sched *s, struct backend *const **out)
{
	*out = s->labs;
	return s->nlabs;
}

/* Why group cannot run now, "" when it can. */
const char *
sched_group_trouble(struct sched *s, const char *group)
{
	struct backend *be = sched_backend(s, group);

	return be->ops->trouble(be, group);
}

json_t *
sched_host_current(struct sched *s, const char *host)
{
	struct bisection *b;
	struct bisection_probe *p;
	const char *h;

	TAILQ_FOREACH(b, &s->active, entry)
		TAILQ_FOREACH(p, &b->probes, entry) {
			h = p->job ? backend_where(p->job) : NULL;
			if (h != NULL && strcmp(h, host) == 0)
				return json_pack("{s:I, s:I, s:s}",
				    "bisection", (json_int_t)b->id,
				    "run", (json_int_t)p->run,
				    "commit", p->sha);
		}
	return sched_sweep_on_host(s, host);
}

static int
sched_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Two requests that would do the same work get the same key. */
static char *
sched_dedup_key(char **good, size_t ngood, const char *bad,
    const char *bench, const char *metric, const char *group, int fp,
    double conf, int64_t max)
{
	char *key, *t;
	size_t i;

	qsort(good, ngood, sizeof(*good), sched_cmp_str);
	xasprintf(&key, "%s|%s|%s|%s|%d|%.6f|%lld|", bad, bench, metric, group,
	    fp, conf, (long long)max);
	for (i = 0; i < ngood; i++) {
		xasprintf(&t, "%s%s,", key, good[i]);
		free(key);
		key = t;
	}
	return key;
}

/*
 * Resolves one revision of a request to a full sha, or says which.  Only
 * name lookups happen here, on the loop; walks that can take seconds on a
 * kernel history (ancestry, merge bases) run with the graph on the pool.
 */
static int
sched_resolve(struct sched *s, const char *what, const char *rev,
    git_oid *oid, char out[GIT_OID_HEXSZ + 1], struct bd_error *err)
{
	struct bd_error gerr;
	int rc;

	if ((rc = repo_rev_resolve(s->env.repo, rev, oid, &gerr)) < 0)
		return bd_error_set(err, rc, "%s: %s", what, gerr.msg);
	git_oid_tostr(out, GIT_OID_HEXSZ + 1, oid);
	return 0;
}

/*
 * Checks what needs no repository: names and limits.  The host group is
 * checked after the revisions (sched_check_group): a mistyped revision is
 * what a user needs to hear about first.
 */
static int
sched_check(struct sched *s, const struct sched_request *req,
    struct bd_error *err)
{
	const struct config *cfg = sched_config(s);
	const struct config_benchmark *bench;
	struct bd_error ferr;
	git_oid fix, broken;
	size_t i;

	if (req->ngood == 0)
		return bd_error_set(err, -EINVAL, "good: at least one good "
		    "revision is needed");
	if (req->bad == NULL || req->benchmark == NULL || req->metric == NULL)
		return bd_error_set(err, -EINVAL, "bad, benchmark and metric "
		    "are required");
	if ((bench = config_benchmark_find(cfg, req->benchmark)) == NULL)
		return bd_error_set(err, -ENOENT, "benchmark: no [benchmark %s] "
		    "in the configuration", req->benchmark);
	if (config_metric_find(bench, req->metric) == NULL)
		return bd_error_set(err, -ENOENT, "metric: benchmark %s has no "
		    "metric %s", req->benchmark, req->metric);
	if (req->has_confidence &&
	    !(req->confidence > 0.5 && req->confidence < 1))
		return bd_error_set(err, -EINVAL, "confidence: must be between "
		    "0.5 and 1");
	if (req->has_max_samples &&
	    (req->max_samples < PROTO_MAX_SAMPLES_MIN ||
	    req->max_samples > PROTO_MAX_SAMPLES_MAX))
		return bd_error_set(err, -EINVAL, "max_samples: must be between "
		    "%d and %d", PROTO_MAX_SAMPLES_MIN, PROTO_MAX_SAMPLES_MAX);
	if (s->env.repo == NULL)
		return bd_error_set(err, -ENOENT, "repo: no repository is "
		    "configured or it cannot be opened");
	if (req->nfixups > REPO_FIXUP_MAX)
		return bd_error_set(err, -EINVAL, "fixups: at most %d",
		    REPO_FIXUP_MAX);
	for (i = 0; i < req->nfixups; i++)
		if (repo_fixup_resolve(s->env.repo, req->fixups[i], &fix,
		    &broken, &ferr) < 0)
			return bd_error_set(err, -EINVAL, "fixups: %s",
			    ferr.msg);
	return 0;
}

/* A bisection's host group must be able to both build and test. */
static int
sched_check_group(struct sched *s, const char *group, struct bd_error *err)
{
	if ((config_group_roles(sched_config(s), group) & (CONFIG_ROLE_BUILD |
	    CONFIG_ROLE_TEST)) != (CONFIG_ROLE_BUILD | CONFIG_ROLE_TEST))
		return bd_error_set(err, -EINVAL, "group: host group %s needs "
		    "a build host and a test host", group);
	return 0;
}

/*
 * A request from the socket or a sweep: checked, resolved to shas and
 * stored before the bisection starts loading.
 */
int
sched_bisect(struct sched *s, const struct sched_request *req, int64_t *idp,
    int *existing, struct bd_error *err)
{
	const char *group = req->group ? req->group : CONFIG_DEFAULT_GROUP;
	struct store_bisection rec;
	char **good = NULL, badsha[GIT_OID_HEXSZ + 1];
	git_oid badoid, goid;
	char *key = NULL, *ptext = NULL, *otext = NULL;
	size_t i, ngood = req->ngood;
	int rc;

	*existing = 0;
	if ((rc = sched_check(s, req, err)) < 0)
		return rc;
	if ((rc = sched_resolve(s, "bad", req->bad, &badoid, badsha, err)) < 0)
		return rc;
	good = xcalloc(ngood, sizeof(*good));
	for (i = 0; i < ngood; i++) {
		good[i] = xcalloc(1, GIT_OID_HEXSZ + 1);
		if ((rc = sched_resolve(s, "good", req->good[i], &goid,
		    good[i], err)) < 0)
			goto out;
		if (git_oid_equal(&goid, &badoid)) {
			rc = bd_error_set(err, -EINVAL, "good %s and bad are "
			    "the same commit", req->good[i]);
			goto out;
		}
	}
	if ((rc = sched_check_group(s, group, err)) < 0)
		goto out;
	key = sched_dedup_key(good, ngood, badsha, req->benchmark, req->metric,
	    group, req->first_parent, req->has_confidence ? req->confidence :
	    0.99, req->has_max_samples ? req->max_samples : 0);
	ptext = bisection_params_encode(req, badsha, group);
	store_bisection_init(&rec);
	rec.params = ptext;
	rec.good = (const char **)good;
	rec.ngood = ngood;
	rec.bad = badsha;
	rec.benchmark = req->benchmark;
	rec.metric = req->metric;
	rec.group = group;
	rec.dedup_key = key;
	rec.priority = req->priority;
	rec.created_by = req->uid;
	if (req->origin != NULL) {
		struct store_sweep_link link = { req->origin->row,
		    req->origin->reuse, req->origin->nreuse };

		otext = bisection_origin_encode(req->origin);
		rec.origin = otext;
		rc = store_bisection_create_linked(sched_store(s), &rec, &link,
		    idp, err);
	} else
		rc = store_bisection_create(sched_store(s), &rec, idp, err);
	if (rc == -EEXIST || rc == -EALREADY) {
		*existing = 1;
		rc = 0;
		goto out;
	}
	if (rc < 0)
		goto out;
	rc = sched_activate(s, *idp, err);
out:
	for (i = 0; i < ngood && good != NULL; i++)
		free(good[i]);
	free(good);
	free(key);
	free(ptext);
	free(otext);
	return rc;
}

/*
 * Bisections stay in memory once seen; one that finished before the last
 * restart is read back from its row, without graph or engine: its status
 * and report come from the store.
 */
struct bisection *
sched_find(struct sched *s, int64_t id, struct bd_error *err)
{
	struct bisection *b;

	TAILQ_FOREACH(b, &s->active, entry)
		if (b->id == id)
			return b;
	if (bisection_new(s, sched_store(s), id, &b, err) < 0)
		return NULL;
	if (b->rec.state == STORE_BISECTION_QUEUED ||
	    b->rec.state == STORE_BISECTION_RUNNING) {
		/* Active rows are loaded at startup; this one failed to. */
		bisection_free(b);
		bd_error_set(err, -EIO, "bisection %lld could not be loaded",
		    (long long)id);
		return NULL;
	}
	b->phase = BISECTION_FINISHED;
	TAILQ_INSERT_TAIL(&s->active, b, entry);
	return b;
}

int
sched_cancel(struct sched *s, int64_t id, struct bd_error *err)
{
	struct bisection *b = sched_find(s, id, err);
	int rc;

	if (b == NULL)
		return err && err->code ? err->code : -ENOENT;
	if (b->phase == BISECTION_FINISHED)
		return bd_error_set(err, -EALREADY, "bisection %lld has "
		    "already ended (%s)", (long long)id,
		    store_bisection_state_name(b->rec.state));
	if ((rc = store_bisection_set_state(sched_store(s), id,
	    STORE_BISECTION_CANCELLED, NULL, err)) < 0)
		return rc;
	b->rec.state = STORE_BISECTION_CANCELLED;
	if (b->phase == BISECTION_LOADING)
		bisection_load_abort(b);
	b->phase = BISECTION_FINISHED;
	sched_end_probes(b);
	sched_emit(s, "done", json_pack("{s:I, s:s}", "bisection",
	    (json_int_t)id, "state", "cancelled"));
	verify_child_ended(s, b);
	verify_cancel_children(s, b);
	sched_kick(s);
	return 0;
}
