#include <sys/stat.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "daemon/bisection.h"
#include "daemon/buildcache.h"
#include "daemon/daemon.h"
#include "common/log.h"
#include "daemon/reporter.h"
#include "daemon/sched.h"
#include "daemon/sched_int.h"
#include "daemon/watch.h"
#include "remote/job.h"
#include "remote/pool.h"
#include "store/store.h"

struct store *
sched_store(struct sched *s)
{
	return s->d->store;
}

struct pool *
sched_pool(struct sched *s)
{
	return s->pool;
}

git_repository *
sched_repo(struct sched *s)
{
	return s->repo;
}

/* Marks a bisection that cannot go on, with the reason for status. */
void
sched_fail(struct sched *s, struct bisection *b, const char *why)
{
	struct store_verdict_info v = { STORE_VERDICT_NONE, NULL, 0, why };
	struct bd_error err;

	log_warnx("bisection %" PRId64 " failed: %s", b->id, why);
	if (store_bisection_set_state(sched_store(s), b->id,
	    STORE_BISECTION_FAILED, &v, &err) < 0)
		log_warnx("bisection %" PRId64 ": %s", b->id, err.msg);
	b->rec.state = STORE_BISECTION_FAILED;
	free((char *)b->rec.detail);
	b->rec.detail = xstrdup(why);
	b->phase = BISECTION_FINISHED;
	watch_emit(s->d, "done", json_pack("{s:I, s:s, s:s}", "bisection",
	    (json_int_t)b->id, "state", "failed", "message", why));
}

/* Starts loading one stored bisection; the loop continues meanwhile. */
static int
sched_activate(struct sched *s, int64_t id, struct bd_error *err)
{
	struct bisection *b;
	int rc;

	if ((rc = bisection_new(s, sched_store(s), id, &b, err)) < 0)
		return rc;
	TAILQ_INSERT_TAIL(&s->active, b, entry);
	if (s->d->cfg.repo.path == NULL) {
		sched_fail(s, b, "no [repo] path is configured");
		return 0;
	}
	if ((rc = bisection_load(b, &s->d->loop, s->d->cfg.repo.path,
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

int
sched_new(struct daemon *d, struct sched **out, struct bd_error *err)
{
	struct sched *s = xcalloc(1, sizeof(*s));
	struct sched_ids ids = { NULL, 0 };
	struct bd_error lerr;
	int64_t requeued = 0;
	size_t i;
	int rc;

	s->d = d;
	TAILQ_INIT(&s->active);
	if (d->cfg.repo.path != NULL &&
	    git_repository_open(&s->repo, d->cfg.repo.path) < 0) {
		log_warnx("cannot open repository %s: %s", d->cfg.repo.path,
		    git_error_last() ? git_error_last()->message : "");
		s->repo = NULL;
	}
	if ((rc = pool_new(&d->loop, d->cfg.hosts, d->cfg.nhosts, 0,
	    &s->pool, err)) < 0)
		goto fail;
	s->jobs = job_queue_new(s->pool);
	job_queue_set_avail_cb(s->jobs, (void (*)(void *))sched_kick, s);
	buildcache_bind(&s->cache, d->store);
	uv_timer_init(&d->loop, &s->kick);
	s->kick.data = s;
	s->kick_ready = 1;
	if ((rc = store_runs_requeue_inflight(d->store, &requeued, err)) < 0)
		goto fail;
	if (requeued > 0)
		log_info("%" PRId64 " runs were in flight at the last stop; "
		    "they run again", requeued);
	if ((rc = store_bisection_list(d->store, STORE_BISECTION_ACTIVE,
	    sched_collect_id, &ids, err)) < 0)
		goto fail;
	for (i = 0; i < ids.n; i++)
		if (sched_activate(s, ids.id[i], &lerr) < 0)
			log_warnx("cannot resume bisection %" PRId64 ": %s",
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
	daemon_config_drop(p->cfg_hold);
	free(p);
}

/* Closes the fleet once no job is left to call back into it. */
static void
sched_teardown(struct sched *s)
{
	if (s->torn)
		return;
	s->torn = 1;
	if (s->jobs != NULL)
		job_queue_free(s->jobs);
	s->jobs = NULL;
	if (s->pool != NULL)
		pool_free(s->pool);
	s->pool = NULL;
	if (s->kick_ready)
		uv_close((uv_handle_t *)&s->kick, NULL);
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
	if (s->kick_ready)
		uv_timer_stop(&s->kick);
	TAILQ_FOREACH(b, &s->active, entry)
		TAILQ_FOREACH_SAFE(p, &b->probes, entry, tp)
			if (p->job != NULL)
				job_cancel(p->job);
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
	git_repository_free(s->repo);
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
	struct pool_host_info hi;
	unsigned n = 0;
	size_t i;

	for (i = 0; i < pool_count(s->pool); i++) {
		pool_info(s->pool, i, &hi);
		if ((hi.roles & CONFIG_ROLE_TEST) &&
		    strcmp(hi.group, group) == 0 && hi.health == POOL_UP)
			n++;
	}
	return n ? n : 1;
}

/* Hosts of group that could start a run now, less runs still waiting. */
unsigned
sched_free_hosts(struct sched *s, const char *group)
{
	struct pool_host_info hi;
	struct bisection *b;
	struct bisection_probe *p;
	unsigned n = 0, waiting = 0;
	size_t i;

	for (i = 0; i < pool_count(s->pool); i++) {
		pool_info(s->pool, i, &hi);
		if ((hi.roles & CONFIG_ROLE_TEST) && !hi.leased &&
		    hi.health == POOL_UP && strcmp(hi.group, group) == 0)
			n++;
	}
	TAILQ_FOREACH(b, &s->active, entry)
		if (strcmp(b->rec.group, group) == 0)
			TAILQ_FOREACH(p, &b->probes, entry)
				if (p->job != NULL && job_host(p->job) == NULL)
					waiting++;
	return n > waiting ? n - waiting : 0;
}

json_t *
sched_host_current(struct sched *s, const char *host)
{
	struct bisection *b;
	struct bisection_probe *p;
	const char *h;

	TAILQ_FOREACH(b, &s->active, entry)
		TAILQ_FOREACH(p, &b->probes, entry) {
			h = p->job ? job_host(p->job) : NULL;
			if (h != NULL && strcmp(h, host) == 0)
				return json_pack("{s:I, s:I, s:s}",
				    "bisection", (json_int_t)b->id,
				    "run", (json_int_t)p->run,
				    "commit", p->sha);
		}
	return NULL;
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
    double conf, json_int_t max)
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

	if ((rc = graph_resolve(s->repo, rev, oid, &gerr)) < 0)
		return bd_error_set(err, rc, "%s: %s", what, gerr.msg);
	git_oid_tostr(out, GIT_OID_HEXSZ + 1, oid);
	return 0;
}

int
sched_bisect(struct sched *s, const json_t *req, uid_t uid, int64_t *idp,
    int *existing, struct bd_error *err)
{
	const struct config *cfg = &s->d->cfg;
	const struct config_benchmark *bench;
	const char *bad = json_string_value(json_object_get(req, "bad"));
	const char *bname = json_string_value(json_object_get(req, "benchmark"));
	const char *metric = json_string_value(json_object_get(req, "metric"));
	const char *group = json_string_value(json_object_get(req, "group"));
	json_t *goods = json_object_get(req, "good"), *v, *params = NULL;
	json_t *jconf = json_object_get(req, "confidence");
	json_t *jmax = json_object_get(req, "max_samples");
	json_t *jprio = json_object_get(req, "priority");
	double conf = jconf ? json_number_value(jconf) : 0.99;
	json_int_t max = jmax ? json_integer_value(jmax) : 0;
	int fp = json_is_true(json_object_get(req, "first_parent"));
	struct store_bisection rec;
	char **good = NULL, badsha[GIT_OID_HEXSZ + 1];
	git_oid badoid, goid;
	char *key = NULL, *ptext = NULL;
	size_t i, ngood = json_array_size(goods);
	int rc;

	*existing = 0;
	if (ngood == 0)
		return bd_error_set(err, -EINVAL, "good: at least one good "
		    "revision is needed");
	if ((bench = config_benchmark_find(cfg, bname)) == NULL)
		return bd_error_set(err, -ENOENT, "benchmark: no [benchmark %s] "
		    "in the configuration", bname);
	if (config_metric_find(bench, metric) == NULL)
		return bd_error_set(err, -ENOENT, "metric: benchmark %s has no "
		    "metric %s", bname, metric);
	if (group == NULL)
		group = CONFIG_DEFAULT_GROUP;
	if ((config_group_roles(cfg, group) & (CONFIG_ROLE_BUILD |
	    CONFIG_ROLE_TEST)) != (CONFIG_ROLE_BUILD | CONFIG_ROLE_TEST))
		return bd_error_set(err, -EINVAL, "group: host group %s needs "
		    "a build host and a test host", group);
	if (jconf != NULL && !(conf > 0.5 && conf < 1))
		return bd_error_set(err, -EINVAL, "confidence: must be between "
		    "0.5 and 1");
	if (jmax != NULL && (max < 6 || max > 1000000))
		return bd_error_set(err, -EINVAL, "max_samples: must be between "
		    "6 and 1000000");
	if (s->repo == NULL)
		return bd_error_set(err, -ENOENT, "repo: no repository is "
		    "configured or it cannot be opened");
	if ((rc = sched_resolve(s, "bad", bad, &badoid, badsha, err)) < 0)
		return rc;
	good = xcalloc(ngood, sizeof(*good));
	json_array_foreach(goods, i, v) {
		good[i] = xcalloc(1, GIT_OID_HEXSZ + 1);
		if ((rc = sched_resolve(s, "good", json_string_value(v), &goid,
		    good[i], err)) < 0)
			goto out;
		if (git_oid_equal(&goid, &badoid)) {
			rc = bd_error_set(err, -EINVAL, "good %s and bad are "
			    "the same commit", json_string_value(v));
			goto out;
		}
	}
	key = sched_dedup_key(good, ngood, badsha, bname, metric, group, fp,
	    conf, max);
	params = json_deep_copy(req);
	json_object_del(params, "id");
	json_object_set_new(params, "bad", json_string(badsha));
	json_object_set_new(params, "group", json_string(group));
	ptext = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
	store_bisection_init(&rec);
	rec.params = ptext;
	rec.good = (const char **)good;
	rec.ngood = ngood;
	rec.bad = badsha;
	rec.benchmark = bname;
	rec.metric = metric;
	rec.group = group;
	rec.dedup_key = key;
	rec.priority = jprio ? (int)json_integer_value(jprio) : 0;
	rec.created_by = uid;
	rc = store_bisection_create(sched_store(s), &rec, idp, err);
	if (rc == -EEXIST) {
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
	json_decref(params);
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
	struct bisection_probe *p, *tp;
	int rc;

	if (b == NULL || b->phase == BISECTION_FINISHED)
		return bd_error_set(err, -ENOENT, "bisection %lld is not "
		    "running", (long long)id);
	if ((rc = store_bisection_set_state(sched_store(s), id,
	    STORE_BISECTION_CANCELLED, NULL, err)) < 0)
		return rc;
	b->rec.state = STORE_BISECTION_CANCELLED;
	b->phase = BISECTION_FINISHED;
	TAILQ_FOREACH_SAFE(p, &b->probes, entry, tp) {
		p->recorded = 1;	/* the store cancelled its run */
		if (p->job != NULL)
			job_cancel(p->job);
	}
	watch_emit(s->d, "done", json_pack("{s:I, s:s}", "bisection",
	    (json_int_t)id, "state", "cancelled"));
	sched_kick(s);
	return 0;
}
