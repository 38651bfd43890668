/* SPDX-License-Identifier: MIT */
/*
 * The scheduler's work: engine decisions to runs on free hosts, results
 * back to the store and the engine, verdicts to reports.
 */
#include <sys/stat.h>

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "sched/bisection.h"
#include "common/log.h"
#include "sched/sched.h"
#include "sched/sched_int.h"
#include "sched/verify.h"
#include "remote/backend.h"
#include "remote/pool.h"
#include "store/store.h"

static void	sched_job_record(void *arg, const struct step_result *r,
		    const char *host);
static void	sched_job_done(void *arg, const struct step_result *last,
		    unsigned attempts);
static void	sched_probe_end(struct sched *s, struct bisection_probe *p,
		    const char *outcome);

static const struct config_benchmark *
sched_bench(struct sched *s, const struct bisection *b)
{
	return config_benchmark_find(sched_config(s), b->rec.benchmark);
}

/* Makes the per-bisection log directory the steps write into. */
static char *
sched_log_dir(struct sched *s, int64_t id)
{
	const char *workdir = sched_config(s)->daemon.workdir;
	char *dir, *top;

	xasprintf(&top, "%s/logs", workdir);
	mkdir(workdir, 0755);
	mkdir(top, 0755);
	xasprintf(&dir, "%s/%" PRId64, top, id);
	mkdir(dir, 0755);
	free(top);
	return dir;
}

/*
 * A step's phase began on host: the first is the run's start, stored
 * (state running, started_ms) when it happens, so that the store, the
 * status and the measured durations tell the truth.
 */
static void
sched_job_progress(void *arg, enum step_phase phase, const char *host)
{
	struct bisection_probe *p = arg;
	struct sched *s = p->b->s;
	struct bd_error err;

	if (!p->started) {
		p->started = 1;
		p->started_ms = sched_clock_ms(s);
		if (store_run_start(sched_store(s), p->run, host, &err) < 0 &&
		    err.code != -EALREADY)
			log_debug("run %" PRId64 ": %s", p->run, err.msg);
	}
	p->phase = (int)phase;
	p->phase_ms = sched_clock_ms(s);
	snprintf(p->phase_host, sizeof(p->phase_host), "%s", host);
	sched_emit(s, "phase", json_pack("{s:I, s:I, s:s, s:s, s:s}",
	    "bisection", (json_int_t)p->b->id, "run", (json_int_t)p->run,
	    "commit", p->sha, "host", host, "phase", step_phase_name(phase)));
}

/* A lab accepted the run's job: stored before it is followed. */
static void
sched_job_lab(void *arg, const char *lab, const char *job)
{
	struct bisection_probe *p = arg;
	struct bd_error err;

	if (store_lab_job_put(sched_store(p->b->s), p->run, lab, job,
	    &err) < 0)
		log_warnx("run %" PRId64 ": %s", p->run, err.msg);
}

/*
 * Hands one stored run to its group's backend; the row exists before the
 * work.  resumed: the run may have been in flight before a restart, so a
 * lab is asked for its job instead of getting a second one.
 */
static int
sched_submit(struct sched *s, struct bisection *b, int64_t run,
    uint32_t commit, const char *sha, int resumed)
{
	const struct config_benchmark *bench = sched_bench(s, b);
	struct bisection_probe *p;

	if (bench == NULL) {
		sched_fail(s, b, "its benchmark is no longer configured");
		return -ENOENT;
	}
	p = xcalloc(1, sizeof(*p));
	p->cfg_hold = config_hold(s->env.config(s->env.config_arg));
	p->run = run;
	p->commit = commit;
	p->b = b;
	p->started_ms = sched_clock_ms(s);
	p->phase = -1;
	snprintf(p->sha, sizeof(p->sha), "%s", sha);
	snprintf(p->built, sizeof(p->built), "%s", sha);
	TAILQ_INSERT_TAIL(&b->probes, p, entry);
	b->nprobes++;
	/* The verification's runs at the culprit need its fix-ups too; a
	 * revert on top of bad contains them, so none applies there. */
	if (sched_fixup_specs(s, b, NULL) > 0)
		return sched_fixup_start(s, p, resumed);
	return sched_submit_job(s, p, resumed);
}

/* The probe's job: what it builds is p->built, with p->tree if known. */
int
sched_submit_job(struct sched *s, struct bisection_probe *p, int resumed)
{
	const struct config_benchmark *bench = sched_bench(s, p->b);
	struct bisection *b = p->b;
	struct backend_spec spec;
	struct bd_error err;
	char run_id[32], *logdir, *lab_job = NULL;
	int64_t run = p->run;
	int rc;

	if (bench == NULL) {
		sched_fail(s, b, "its benchmark is no longer configured");
		sched_probe_free(b, p);
		return -ENOENT;
	}
	snprintf(run_id, sizeof(run_id), "%" PRId64, run);
	logdir = sched_log_dir(s, b->id);
	memset(&spec, 0, sizeof(spec));
	spec.bench = bench;
	spec.commit = p->built;
	spec.tree = p->tree[0] != '\0' ? p->tree : NULL;
	spec.run_id = run_id;
	spec.group = b->rec.group;
	spec.log_dir = logdir;
	spec.cache = &s->cache;
	spec.record = sched_job_record;
	spec.job = sched_job_lab;
	spec.progress = sched_job_progress;
	spec.arg = p;
	spec.resumed = resumed;
	if (resumed && store_lab_job_get(sched_store(s), run, &lab_job,
	    &err) == 0)
		spec.lab_job = lab_job;
	rc = backend_submit(sched_backend(s, b->rec.group), &spec,
	    sched_job_done, p, &p->job, &err);
	free(logdir);
	free(lab_job);
	if (rc < 0) {
		log_warnx("bisection %" PRId64 ": cannot submit run %" PRId64
		    ": %s", b->id, run, err.msg);
		sched_probe_free(b, p);
		return rc;
	}
	sched_emit(s, "probe-started", json_pack("{s:I, s:I, s:s, s:O?}",
	    "bisection", (json_int_t)b->id, "run", (json_int_t)run,
	    "commit", p->sha, "fixups", p->fixups));
	return 0;
}

/* A new probe the engine asked for: a run row first, then the job. */
static void
sched_probe(struct sched *s, struct bisection *b, uint32_t commit)
{
	char sha[GIT_OID_HEXSZ + 1];
	struct bd_error err;
	int64_t run;

	if (b->phase != BISECTION_ACTIVE)	/* a store error ended it */
		return;
	bisection_probe_sha(b, commit, sha);
	if (store_probe_add(sched_store(s), b->id, sha, NULL, &err) < 0 ||
	    store_run_create(sched_store(s), b->id, sha, &run, &err) < 0) {
		engine_probe_dropped(&b->e, commit);
		sched_store_error(s, b, &err);
		return;
	}
	if (sched_submit(s, b, run, commit, sha, 0) < 0)
		sched_submit_failed(s, b, run, commit);
}

/* Not left queued: a restart would submit it again. */
void
sched_submit_failed(struct sched *s, struct bisection *b, int64_t run,
    uint32_t commit)
{
	struct bd_error err;

	store_run_finish(sched_store(s), run, &(struct store_run_result){
	    .state = STORE_RUN_CANCELLED }, NULL, 0, &err);
	engine_probe_dropped(&b->e, commit);
}

struct resubmit {
	int64_t	 run;
	char	 sha[GIT_OID_HEXSZ + 1];
};

struct resubmit_ctx {
	struct resubmit	*r;
	size_t		 n;
};

static int
sched_collect_run(void *arg, const struct store_run *r)
{
	struct resubmit_ctx *c = arg;

	c->r = xreallocarray(c->r, c->n + 1, sizeof(*c->r));
	c->r[c->n].run = r->id;
	snprintf(c->r[c->n].sha, sizeof(c->r[c->n].sha), "%s", r->commit);
	c->n++;
	return 0;
}

int
sched_run_extra(struct sched *s, struct bisection *b, const char *sha,
    struct bd_error *err)
{
	int64_t run;
	int rc;

	if ((rc = store_run_create(sched_store(s), b->id, sha, &run, err)) < 0)
		return rc;
	if ((rc = sched_submit(s, b, run, BISECTION_EXTRA, sha, 0)) < 0) {
		store_run_finish(sched_store(s), run, &(struct store_run_result){
		    .state = STORE_RUN_CANCELLED }, NULL, 0, err);
		return bd_error_set(err, rc, "cannot submit run %" PRId64, run);
	}
	return 0;
}

/* Runs that were queued or in flight at the last stop run again. */
static void
sched_resubmit(struct sched *s, struct bisection *b)
{
	struct resubmit_ctx c = { NULL, 0 };
	struct store_run_result cancel = { .state = STORE_RUN_CANCELLED };
	struct bd_error err;
	int64_t idx;
	size_t i;

	store_run_list(sched_store(s), b->id, (1u << STORE_RUN_QUEUED) |
	    (1u << STORE_RUN_RUNNING), sched_collect_run, &c, &err);
	for (i = 0; i < c.n; i++) {
		idx = bisection_commit_index(b, c.r[i].sha);
		if (idx < 0) {
			store_run_finish(sched_store(s), c.r[i].run, &cancel,
			    NULL, 0, &err);
			continue;
		}
		engine_probe_restore(&b->e, (uint32_t)idx);
		sched_submit(s, b, c.r[i].run, (uint32_t)idx, c.r[i].sha, 1);
	}
	free(c.r);
}

void
sched_loaded(struct bisection *b, int rc, const struct bd_error *lerr)
{
	struct sched *s = b->s;
	const struct config_benchmark *bench = sched_bench(s, b);
	const struct config_metric *m;
	struct engine_params p;
	struct bd_error err;

	if (s->stopping)
		return;
	/* Cancelled while its graph was loading: it must start no run. */
	if (b->phase == BISECTION_FINISHED)
		return;
	if (rc < 0) {
		sched_fail(s, b, lerr->msg);
		return;
	}
	if (bench == NULL || (m = config_metric_find(bench,
	    b->rec.metric)) == NULL) {
		sched_fail(s, b, "its benchmark or metric is no longer "
		    "configured");
		return;
	}
	bisection_engine_params(b, m, bench->min_change, &p);
	b->agg = m->agg;
	if (engine_init(&b->e, &b->g, &p, &err) < 0) {
		sched_fail(s, b, err.msg);
		return;
	}
	b->engine_ready = 1;
	if (bisection_replay(b, sched_store(s), &err) < 0) {
		sched_fail(s, b, err.msg);
		return;
	}
	b->phase = BISECTION_ACTIVE;
	if (b->rec.state == STORE_BISECTION_QUEUED) {
		store_bisection_set_state(sched_store(s), b->id,
		    STORE_BISECTION_RUNNING, NULL, &err);
		b->rec.state = STORE_BISECTION_RUNNING;
	}
	log_info("bisection %" PRId64 ": %zu candidates, %s", b->id, b->g.n,
	    b->rec.metric);
	sched_resubmit(s, b);
	sched_emit(s, "bisection", json_pack("{s:I, s:s, s:I}",
	    "bisection", (json_int_t)b->id, "state", "running",
	    "candidates", (json_int_t)b->g.n));
	sched_kick(s);
}

/* Asks one engine for up to n probes and submits them. */
static unsigned
sched_ask(struct sched *s, struct bisection *b, unsigned n)
{
	struct engine_action a;
	unsigned used = 0;
	size_t i;

	engine_next(&b->e, n, &a);
	switch (a.kind) {
	case ENGINE_SAMPLE:
		for (i = 0; i < a.nprobes; i++, used++)
			sched_probe(s, b, a.probes[i]);
		break;
	case ENGINE_WAIT:
		break;
	default:
		sched_finish(s, b, &a);
		break;
	}
	return used;
}

static int
sched_by_priority(const void *x, const void *y)
{
	const struct bisection *a = *(struct bisection *const *)x;
	const struct bisection *b = *(struct bisection *const *)y;

	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/*
 * Shares the free hosts of one group: higher priority first, equal
 * priorities in turn (the starting point rotates every round), and what a
 * bisection does not want goes to the next one.  Queued sweep runs get
 * hosts before each priority level below theirs (at an equal one, before
 * or after it in alternate rounds) and whatever is left at the end.
 */
static void
sched_group(struct sched *s, const char *group)
{
	struct bisection *b, **v = NULL;
	unsigned nfree = sched_free_hosts(s, group), *share, got;
	size_t n = 0, i, k, start, lo, hi;
	int progress = 1;

	TAILQ_FOREACH(b, &s->active, entry)
		if (b->phase == BISECTION_ACTIVE &&
		    strcmp(b->rec.group, group) == 0) {
			v = xreallocarray(v, n + 1, sizeof(*v));
			v[n++] = b;
		}
	if (n == 0) {
		free(v);
		sched_sweep_give(s, group, INT_MIN, 1, nfree);
		return;
	}
	qsort(v, n, sizeof(*v), sched_by_priority);
	share = xcalloc(n, sizeof(*share));
	/* Finished engines are noticed even with no host free. */
	if (nfree == 0)
		for (i = 0; i < n; i++)
			sched_ask(s, v[i], 0);
	while (nfree > 0 && progress) {
		progress = 0;
		for (lo = 0; lo < n && nfree > 0; lo = hi) {
			size_t nact = 0;

			for (hi = lo; hi < n && v[hi]->priority ==
			    v[lo]->priority; hi++)
				if (v[hi]->phase == BISECTION_ACTIVE)
					nact++;
			if (nact == 0)
				continue;
			nfree -= sched_sweep_give(s, group, v[lo]->priority,
			    s->rr & 1, nfree);
			memset(share, 0, n * sizeof(*share));
			start = s->rr++;
			for (k = 0; nfree > 0; k++) {
				i = lo + (start + k) % (hi - lo);
				if (v[i]->phase != BISECTION_ACTIVE)
					continue;
				share[i]++;
				nfree--;
			}
			for (i = lo; i < hi; i++) {
				if (share[i] == 0)
					continue;
				got = v[i]->phase == BISECTION_ACTIVE ?
				    sched_ask(s, v[i], share[i]) : 0;
				nfree += share[i] - got;
				if (got > 0)
					progress = 1;
			}
		}
	}
	sched_sweep_give(s, group, INT_MIN, 1, nfree);
	free(share);
	free(v);
}

void
sched_kick_cb(uv_timer_t *t)
{
	struct sched *s = t->data;
	const struct config *cfg = sched_config(s);
	const char **groups = NULL;
	size_t ng = 0, i;

	for (i = 0; i < cfg->nhosts; i++) {
		size_t j;

		for (j = 0; j < ng; j++)
			if (strcmp(groups[j], cfg->hosts[i].group) == 0)
				break;
		if (j == ng) {
			groups = xreallocarray(groups, ng + 1, sizeof(*groups));
			groups[ng++] = cfg->hosts[i].group;
		}
	}
	for (i = 0; i < cfg->nlabs; i++) {
		groups = xreallocarray(groups, ng + 1, sizeof(*groups));
		groups[ng++] = cfg->labs[i].group;
	}
	for (i = 0; i < ng; i++)
		sched_group(s, groups[i]);
	free(groups);
}

/* The engine hears of a stored result only while it is still deciding. */
static void
sched_feed(struct sched *s, struct bisection *b, uint32_t commit,
    const char *sha, enum store_run_state state, const struct store_metric *m,
    size_t n, const char *why)
{
	struct bd_error err;
	char *msg;
	int rc;

	if (!b->engine_ready || b->phase != BISECTION_ACTIVE)
		return;
	rc = bisection_feed(b, commit, state, m, n, &err);
	if (rc == -ENOEXEC) {
		xasprintf(&msg, "%s: %s: %s", err.msg, sha, why);
		sched_fail(s, b, msg);
		free(msg);
	} else if (rc < 0)
		log_warnx("bisection %" PRId64 ": %s", b->id, err.msg);
}

void
sched_feed_skip(struct sched *s, struct bisection *b, uint32_t commit,
    const char *sha, const char *why)
{
	sched_feed(s, b, commit, sha, STORE_RUN_SKIPPED, NULL, 0, why);
}

/* What a finished run measured, kept while the store refuses it. */
struct sched_result {
	enum store_run_state	 state;
	char			*log_path, *timings, *host, *why;
	const char		*outcome;	/* step_outcome_name's */
	struct store_metric	*m;		/* names owned */
	size_t			 n;
	unsigned		 pass;		/* the last retry that tried it */
};

void
sched_result_free(struct sched_result *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->n; i++)
		free((char *)r->m[i].name);
	free(r->m);
	free(r->log_path);
	free(r->timings);
	free(r->host);
	free(r->why);
	free(r);
}

/*
 * Stores r and hands it on (the skip, or the sample to the engine).  1
 * when the store refused it and will be asked again (r is kept by the
 * caller), else 0 (r may go).
 */
static int
sched_result_store(struct sched *s, struct bisection_probe *p,
    const struct sched_result *r)
{
	struct bisection *b = p->b;
	struct store_run_result res;
	const struct store_metric *mv;
	struct bd_error err;

	if (p->recorded) {	/* the bisection ended; the store cancelled it */
		log_debug("run %" PRId64 ": a result after the bisection "
		    "ended is dropped", p->run);
		return 0;
	}
	memset(&res, 0, sizeof(res));
	res.log_path = r->log_path;
	res.timings = r->timings;
	res.state = r->state;
	if (store_run_finish(sched_store(s), p->run, &res, r->m, r->n,
	    &err) < 0) {
		log_warnx("run %" PRId64 ": %s", p->run, err.msg);
		return sched_store_error(s, b, &err) == 0 && !s->stopping &&
		    b->phase != BISECTION_FINISHED;
	}
	p->recorded = 1;
	if (r->state == STORE_RUN_SKIPPED) {
		sched_emit(s, "skip", json_pack("{s:I, s:I, s:s, s:s, s:s}",
		    "bisection", (json_int_t)b->id, "run", (json_int_t)p->run,
		    "commit", p->sha, "host", r->host, "message", r->why));
		/* A search for fix-ups feeds the skip once it has looked. */
		if (sched_fixup_search(s, p, r->why) < 0)
			sched_feed(s, b, p->commit, p->sha, r->state, NULL, 0,
			    r->why);
		return 0;
	}
	mv = bisection_metric(b, r->m, r->n);
	sched_emit(s, "sample", json_pack("{s:I, s:I, s:s, s:s, s:s, s:o}",
	    "bisection", (json_int_t)b->id, "run", (json_int_t)p->run,
	    "commit", p->sha, "host", r->host, "metric", b->rec.metric,
	    "value", mv ? json_real(mv->value) : json_null()));
	sched_feed(s, b, p->commit, p->sha, r->state, r->m, r->n, NULL);
	return 0;
}

/*
 * Stores a result first; only a stored result reaches the engine.  One
 * the store refuses (a full disk) stays on the probe, and the probe with
 * it, until the store's retry writes it: the run is not done again.
 */
static void
sched_job_record(void *arg, const struct step_result *r, const char *host)
{
	struct bisection_probe *p = arg;
	struct bisection *b = p->b;
	struct sched *s = b->s;
	struct sched_result *res;
	struct bd_error err;
	int64_t wall_ms = sched_clock_ms(s) - p->started_ms;
	size_t i;

	if (p->recorded) {	/* the bisection ended; the store cancelled it */
		log_debug("run %" PRId64 ": a result after the bisection "
		    "ended is dropped", p->run);
		return;
	}
	res = xcalloc(1, sizeof(*res));
	/* Step logs are LOG_DIR/RUN-PHASE.log; the prefix names them all. */
	xasprintf(&res->log_path, "%s/logs/%" PRId64 "/%" PRId64 "-",
	    sched_config(s)->daemon.workdir, b->id, p->run);
	res->timings = sched_timings(p, wall_ms, r->built,
	    step_phase_name(r->phase), NULL);
	res->state = r->outcome == STEP_OK ? STORE_RUN_DONE :
	    STORE_RUN_SKIPPED;
	res->host = xstrdup(host);
	res->why = xstrdup(r->err.msg);
	res->outcome = step_outcome_name(r->outcome);
	if (store_run_start(sched_store(s), p->run, host, &err) < 0 &&
	    err.code != -EALREADY)
		log_debug("run %" PRId64 ": %s", p->run, err.msg);
	if (res->state == STORE_RUN_DONE) {
		res->n = r->metrics.n;
		res->m = xcalloc(res->n ? res->n : 1, sizeof(*res->m));
		for (i = 0; i < res->n; i++) {
			res->m[i].name = xstrdup(r->metrics.v[i].name);
			res->m[i].value = r->metrics.v[i].value;
			res->m[i].index = r->metrics.v[i].index;
		}
	}
	sched_result_free(p->unstored);
	p->unstored = NULL;
	if (sched_result_store(s, p, res))
		p->unstored = res;
	else
		sched_result_free(res);
}

/*
 * Charges a probe's failed attempts (failed, timed out, asked for a retry,
 * lost its host) to the bisection's retry budget; a spent budget ends the
 * bisection failed with the last reason, so a hung or always failing
 * benchmark neither loops nor wears the hosts out.
 */
static void
sched_charge(struct sched *s, struct bisection *b,
    const struct step_result *last, unsigned attempts)
{
	const struct config_benchmark *bench = sched_bench(s, b);
	unsigned failed = attempts, budget;
	char *why;

	if (last->outcome == STEP_OK || last->outcome == STEP_CANCELLED)
		failed = attempts > 0 ? attempts - 1 : 0;
	b->failures += failed;
	budget = bench != NULL && bench->retry_budget ? bench->retry_budget :
	    12;
	if (failed == 0 || b->failures < budget || !b->engine_ready ||
	    b->phase != BISECTION_ACTIVE)
		return;
	xasprintf(&why, "%u runs failed, timed out or asked for a retry "
	    "(retry_budget %u); the last: %s", b->failures, budget,
	    last->err.msg);
	sched_fail(s, b, why);
	sched_end_probes(b);
	free(why);
}

/* Ends a probe: unrecorded runs are infrastructure failures or cancels. */
static void
sched_job_done(void *arg, const struct step_result *last, unsigned attempts)
{
	struct bisection_probe *p = arg;
	struct bisection *b = p->b;
	struct sched *s = b->s;
	struct store_run_result res;
	struct bd_error err;

	p->job = NULL;
	if (!s->stopping && p->commit != BISECTION_EXTRA)
		sched_charge(s, b, last, attempts);
	/* Its result waits for the store: the probe ends once it is in. */
	if (p->unstored != NULL && !s->stopping && !p->recorded)
		return;
	memset(&res, 0, sizeof(res));
	if (!p->recorded && !s->stopping) {
		res.state = last->outcome == STEP_CANCELLED ?
		    STORE_RUN_CANCELLED : STORE_RUN_FAILED_INFRA;
		if (store_run_finish(sched_store(s), p->run, &res, NULL, 0,
		    &err) < 0 && err.code != -EALREADY)
			log_warnx("run %" PRId64 ": %s", p->run, err.msg);
		if (res.state == STORE_RUN_FAILED_INFRA)
			log_warnx("bisection %" PRId64 ": run %" PRId64 " at %s "
			    "failed on the fleet %u times: %s", b->id, p->run,
			    p->sha, attempts, last->err.msg);
		if (b->engine_ready && b->phase == BISECTION_ACTIVE)
			engine_probe_dropped(&b->e, p->commit);
	}
	sched_probe_end(s, p, step_outcome_name(last->outcome));
}

/* A probe whose job ended and whose result, if any, is in: it goes. */
static void
sched_probe_end(struct sched *s, struct bisection_probe *p,
    const char *outcome)
{
	struct bisection *b = p->b;
	int extra;

	sched_emit(s, "probe-finished", json_pack("{s:I, s:I, s:s, s:s}",
	    "bisection", (json_int_t)b->id, "run", (json_int_t)p->run,
	    "commit", p->sha, "outcome", outcome));
	extra = p->commit == BISECTION_EXTRA;
	sched_probe_free(b, p);
	if (s->stopping)
		sched_stop_check(s);
	else {
		if (extra)
			verify_run_ended(b);
		sched_kick(s);
	}
}

void
sched_unstored_retry(struct sched *s)
{
	/* Numbers the retries: the scan restarts, each result goes once. */
	static unsigned pass;
	struct bisection *b;
	struct bisection_probe *p;
	struct sched_result *r;
	const char *outcome;

	pass++;
again:
	TAILQ_FOREACH(b, &s->active, entry)
		TAILQ_FOREACH(p, &b->probes, entry) {
			if ((r = p->unstored) == NULL || r->pass == pass)
				continue;
			r->pass = pass;		/* once a retry */
			if (sched_result_store(s, p, r))
				continue;	/* still refused */
			p->unstored = NULL;
			outcome = r->outcome;
			sched_result_free(r);
			/* Ending a probe may end its bisection: scan anew. */
			if (p->job == NULL) {
				sched_probe_end(s, p, outcome);
				goto again;
			}
		}
}

/*
 * Cancels what is still running once the bisection has ended (verdict or
 * cancel).  The store cancelled the runs when the bisection's state
 * changed, so the jobs' ends and late results record nothing.
 */
void
sched_end_probes(struct bisection *b)
{
	struct bisection_probe *p, *tp;

	TAILQ_FOREACH_SAFE(p, &b->probes, entry, tp) {
		p->recorded = 1;
		if (p->job != NULL)
			backend_cancel(p->job);
	}
}

/*
 * Cancels what is still running when verification takes over: the
 * bisection goes on, so the runs stay the store's to end as cancelled.
 */
static void
sched_cancel_probes(struct bisection *b)
{
	struct bisection_probe *p, *tp;

	TAILQ_FOREACH_SAFE(p, &b->probes, entry, tp)
		if (p->job != NULL)
			backend_cancel(p->job);
}

static const struct {
	enum engine_action_kind	 kind;
	enum store_verdict	 verdict;
} sched_verdicts[] = {
	{ ENGINE_DONE, STORE_VERDICT_CULPRIT },
	{ ENGINE_AMONG, STORE_VERDICT_INCONCLUSIVE },
	{ ENGINE_INCONCLUSIVE, STORE_VERDICT_INCONCLUSIVE },
	{ ENGINE_NOT_REPRODUCED, STORE_VERDICT_NOT_REPRODUCED },
};

/* The verdict is stored before the report goes out. */
void
sched_finish(struct sched *s, struct bisection *b,
    const struct engine_action *a)
{
	struct store_verdict_info v;
	char sha[GIT_OID_HEXSZ + 1];
	json_t *detail, *cands, *vj;
	struct bd_error err;
	char *dtext;
	size_t i;

	if (verify_start(s, b, a)) {
		sched_cancel_probes(b);
		return;
	}
	memset(&v, 0, sizeof(v));
	for (i = 0; i < sizeof(sched_verdicts) / sizeof(sched_verdicts[0]); i++)
		if (sched_verdicts[i].kind == a->kind)
			v.verdict = sched_verdicts[i].verdict;
	cands = json_array();
	for (i = 0; i < a->ncands; i++) {
		graph_oid_tostr(sha, sizeof(sha), &b->g.oids[a->cands[i].commit]);
		json_array_append_new(cands, json_pack("{s:s, s:f}", "commit",
		    sha, "probability", a->cands[i].mass));
	}
	if (a->kind == ENGINE_DONE) {
		graph_oid_tostr(sha, sizeof(sha), &b->g.oids[a->culprit]);
		v.culprit = sha;
	}
	verify_adjust(b, &v);
	/* A culprit demoted by verification stays the one candidate. */
	if (a->kind == ENGINE_DONE && json_array_size(cands) == 0)
		json_array_append_new(cands, json_pack("{s:s, s:f}", "commit",
		    sha, "probability", a->confidence));
	detail = json_pack("{s:s, s:o, s:I}", "kind", a->kind == ENGINE_AMONG ?
	    "among-skipped" : store_verdict_name(v.verdict), "candidates",
	    cands, "set_size", (json_int_t)a->nset);
	if ((vj = verify_status_json(b)) != NULL)
		json_object_set_new(detail, "verification", vj);
	dtext = json_dumps(detail, JSON_COMPACT);
	json_decref(detail);
	v.confidence = a->confidence;
	v.detail = dtext;
	if (store_bisection_set_state(sched_store(s), b->id,
	    STORE_BISECTION_DONE, &v, &err) < 0) {
		free(dtext);
		sched_store_error(s, b, &err);
		return;
	}
	b->phase = BISECTION_FINISHED;
	sched_end_probes(b);
	store_bisection_release(&b->rec);
	store_bisection_init(&b->rec);
	store_bisection_get(sched_store(s), b->id, &b->rec, &err);
	free(dtext);
	log_info("bisection %" PRId64 " done: %s%s%s (%.4f)", b->id,
	    store_verdict_name(v.verdict), v.culprit ? " " : "",
	    v.culprit ? v.culprit : "", v.confidence);
	sched_emit(s, "verdict", json_pack("{s:I, s:s, s:o, s:f}",
	    "bisection", (json_int_t)b->id, "verdict",
	    store_verdict_name(v.verdict), "culprit",
	    b->rec.culprit ? json_string(b->rec.culprit) : json_null(),
	    "confidence", v.confidence));
	if (s->env.events.verdict != NULL)
		s->env.events.verdict(s->env.events.arg, b);
	sched_emit(s, "done", json_pack("{s:I, s:s, s:s}", "bisection",
	    (json_int_t)b->id, "state", "done", "verdict",
	    store_verdict_name(v.verdict)));
	verify_child_ended(s, b);
}
