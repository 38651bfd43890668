/* SPDX-License-Identifier: MIT */
/*
 * One run's LAVA job: submitted (or, after a restart, found by its
 * description), polled with backoff until Finished, its test cases read
 * page by page, and resubmitted after an infrastructure failure.  Every
 * wait is a timer, every request goes through remote/http.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "remote/lava_int.h"

static void	lava_job_start(struct lava_run *r);
static void	lava_job_poll(struct lava_run *r);
static void	lava_job_pause(struct lava_run *r, enum lava_phase after,
		    uint64_t ms);
static void	lava_job_cancel_remote(struct lava *l, const char *job);

static void
lava_job_closed(uv_handle_t *h)
{
	struct lava_run *r = h->data;

	lava_result_release(&r->res);
	free(r->commit);
	free(r->run_id);
	free(r->desc);
	free(r->job);
	free(r->artifact);
	free(r->build_host);
	free(r);
}

/* The end of a run: the handle goes, then the caller hears of it. */
static void
lava_job_end(struct lava_run *r, enum step_outcome o, enum step_phase ph,
    const char *msg)
{
	struct lava *l = r->l;
	struct step_result last;

	if (r->req != NULL)
		http_cancel(r->req);
	r->req = NULL;
	uv_timer_stop(&r->timer);
	TAILQ_REMOVE(&l->runs, r, entry);
	l->nruns--;
	memset(&last, 0, sizeof(last));
	last.outcome = o;
	last.phase = ph;
	last.host = l->lab.name;
	bd_error_set(&last.err, o == STEP_OK ? 0 : -EIO, "%s", msg);
	lava_emit(l, "lab-job", json_pack("{s:s, s:s?, s:s, s:s}", "run",
	    r->run_id, "job", r->job, "state", "ended", "outcome",
	    step_outcome_name(o)));
	r->done(r->done_arg, &last, r->attempts);
	uv_close((uv_handle_t *)&r->timer, lava_job_closed);
	if (l->env.avail != NULL)
		l->env.avail(l->env.arg);
}

/* An infrastructure failure: another attempt after a pause, or the end. */
static void
lava_job_infra(struct lava_run *r, const char *msg)
{
	if (r->attempts >= r->max_attempts || r->l->health != LAVA_OK) {
		lava_job_end(r, STEP_INFRA, STEP_PHASE_RUN, msg);
		return;
	}
	lava_emit(r->l, "lab-job", json_pack("{s:s, s:s?, s:s, s:s}", "run",
	    r->run_id, "job", r->job, "state", "retry", "message", msg));
	free(r->job);
	r->job = NULL;
	r->state[0] = '\0';
	lava_result_release(&r->res);
	lava_job_pause(r, LAVA_SUBMIT, r->l->lab.poll_interval_ms);
}

/* Results are recorded once, then the run ends. */
static void
lava_job_finished(struct lava_run *r)
{
	struct step_result sr;
	char msg[BD_ERROR_MAX];
	size_t i;

	memset(&sr, 0, sizeof(sr));
	sr.host = r->l->lab.name;
	sr.built = true;
	if (strcmp(r->res.error_type, "Infrastructure") == 0) {
		snprintf(msg, sizeof(msg), "job %s: infrastructure error: %s",
		    r->job, r->res.error_msg);
		lava_job_infra(r, msg);
		return;
	}
	sr.outcome = STEP_FAILED;
	sr.phase = STEP_PHASE_RUN;
	if (r->res.build_failed) {
		sr.phase = STEP_PHASE_BUILD;
		bd_error_set(&sr.err, -EIO, "job %s: test case %s failed",
		    r->job, r->l->lab.build_case);
	} else if (r->res.error_type[0] != '\0')
		bd_error_set(&sr.err, -EIO, "job %s incomplete (%s): %s",
		    r->job, r->res.error_type, r->res.error_msg);
	else {
		sr.outcome = STEP_OK;
		sr.phase = STEP_PHASE_DONE;
		for (i = 0; r->bench != NULL && i < r->bench->nmetrics; i++)
			if (metrics_find(&r->res.metrics,
			    r->bench->metrics[i].name) == NULL) {
				sr.outcome = STEP_FAILED;
				sr.phase = STEP_PHASE_COLLECT;
				bd_error_set(&sr.err, -EINVAL, "job %s reported "
				    "no test case %s with a measurement",
				    r->job, r->bench->metrics[i].name);
				break;
			}
		if (sr.outcome == STEP_OK)
			sr.metrics = r->res.metrics;
	}
	r->record(r->arg, &sr, r->l->lab.name);
	snprintf(msg, sizeof(msg), "%s", sr.err.msg);
	lava_job_end(r, sr.outcome, sr.phase, msg);
}

static void
lava_job_tests_done(void *arg, long status, const char *body, size_t len,
    const struct bd_error *err)
{
	struct lava_run *r = arg;
	struct bd_error perr;
	char *next = NULL, msg[BD_ERROR_MAX];
	int rc;

	r->req = NULL;
	if (status != 200) {
		lava_classify(r->l, status, body, err, "test cases");
		snprintf(msg, sizeof(msg), "job %s: test cases: HTTP %ld %.200s",
		    r->job, status, err->msg);
		lava_job_infra(r, msg);
		return;
	}
	if (lava_result_page(&r->res, body, len, r->l->lab.build_case,
	    r->l->base, &next, &perr) < 0) {
		struct step_result sr = { .outcome = STEP_FAILED,
		    .phase = STEP_PHASE_COLLECT, .host = r->l->lab.name };

		bd_error_set(&sr.err, -EINVAL, "job %s: %s", r->job, perr.msg);
		r->record(r->arg, &sr, r->l->lab.name);
		snprintf(msg, sizeof(msg), "%s", sr.err.msg);
		lava_job_end(r, STEP_FAILED, STEP_PHASE_COLLECT, msg);
		return;
	}
	if (next == NULL) {
		lava_job_finished(r);
		return;
	}
	rc = http_request(r->l->http, "GET", next, r->l->token, NULL,
	    LAVA_TIMEOUT_MS, lava_job_tests_done, r, &r->req, &perr);
	free(next);
	if (rc < 0)
		lava_job_infra(r, perr.msg);
}

/* Reads every page of the job's test cases. */
static void
lava_job_tests(struct lava_run *r)
{
	struct bd_error err;
	char *url;

	r->phase = LAVA_TESTS;
	lava_result_release(&r->res);
	xasprintf(&url, "%s/api/v0.2/jobs/%s/tests/?limit=500", r->l->base,
	    r->job);
	if (http_request(r->l->http, "GET", url, r->l->token, NULL,
	    LAVA_TIMEOUT_MS, lava_job_tests_done, r, &r->req, &err) < 0)
		lava_job_infra(r, err.msg);
	free(url);
}

static void
lava_job_poll_done(void *arg, long status, const char *body, size_t len,
    const struct bd_error *err)
{
	struct lava_run *r = arg;
	const char *state, *health;
	uint64_t cap = r->l->lab.poll_interval_ms * 4;
	json_t *root;
	char msg[BD_ERROR_MAX];

	r->req = NULL;
	if (status != 200) {
		if (lava_classify(r->l, status, body, err, "job status") ||
		    status >= 500) {
			/* The lab is away: keep following, it may come back. */
			lava_job_pause(r, LAVA_POLL, cap);
			return;
		}
		snprintf(msg, sizeof(msg), "job %s: HTTP %ld", r->job, status);
		lava_job_infra(r, msg);
		return;
	}
	root = json_loadb(body, len, 0, NULL);
	state = json_string_value(json_object_get(root, "state"));
	health = json_string_value(json_object_get(root, "health"));
	if (state == NULL || health == NULL) {
		json_decref(root);
		snprintf(msg, sizeof(msg), "job %s: a reply without state",
		    r->job);
		lava_job_infra(r, msg);
		return;
	}
	if (strcmp(state, r->state) != 0) {
		snprintf(r->state, sizeof(r->state), "%s", state);
		lava_emit(r->l, "lab-job", json_pack("{s:s, s:s, s:s, s:s}",
		    "run", r->run_id, "job", r->job, "state", state,
		    "health", health));
	}
	if (strcmp(state, "Finished") != 0) {
		json_decref(root);
		r->delay_ms = r->delay_ms * 2 > cap ? cap : r->delay_ms * 2;
		lava_job_pause(r, LAVA_POLL, r->delay_ms);
		return;
	}
	if (strcmp(health, "Canceled") == 0) {
		snprintf(msg, sizeof(msg), "job %s was canceled in the lab",
		    r->job);
		json_decref(root);
		lava_job_infra(r, msg);
		return;
	}
	json_decref(root);
	lava_job_tests(r);
}

static void
lava_job_poll(struct lava_run *r)
{
	struct bd_error err;
	char *url;

	r->phase = LAVA_POLL;
	xasprintf(&url, "%s/api/v0.2/jobs/%s/", r->l->base, r->job);
	if (http_request(r->l->http, "GET", url, r->l->token, NULL,
	    LAVA_TIMEOUT_MS, lava_job_poll_done, r, &r->req, &err) < 0)
		lava_job_infra(r, err.msg);
	free(url);
}

/*
 * How long a job may take from submission to Finished: the benchmark's
 * timeouts of what the job does (it builds unless build_group did) plus
 * the lab's allowance for its queue.  LAVA bounds a Running job by its
 * definition; this bounds a job the lab keeps or loses.
 */
static uint64_t
lava_job_deadline_ms(const struct lava_run *r)
{
	const struct config_benchmark *b = r->bench;
	uint64_t ms = r->l->lab.queue_allowance_ms;

	if (b == NULL)
		return ms;
	ms += b->install_timeout_ms + b->boot_timeout_ms + b->run_timeout_ms;
	if (r->l->lab.build_group == NULL)
		ms += b->build_timeout_ms;
	return ms;
}

/*
 * Past its deadline a job is cancelled at the lab and forgotten: the
 * cancel is not waited for, so a lab that never answers it holds no
 * slot, and the run counts an infrastructure failure.
 */
static void
lava_job_expire(struct lava_run *r)
{
	uint64_t ms = lava_job_deadline_ms(r);
	char msg[BD_ERROR_MAX];

	snprintf(msg, sizeof(msg), "job %s: not finished %" PRIu64 " %s after "
	    "it was submitted (the benchmark's timeouts plus the lab's "
	    "queue_allowance); cancelled at the lab", r->job,
	    ms % 1000 == 0 ? ms / 1000 : ms, ms % 1000 == 0 ? "s" : "ms");
	lava_job_cancel_remote(r->l, r->job);
	lava_job_infra(r, msg);
}

static void
lava_job_timer_cb(uv_timer_t *t)
{
	struct lava_run *r = t->data;

	if (r->after != LAVA_POLL)
		lava_job_start(r);
	else if (uv_now(r->l->env.loop) >= r->deadline)
		lava_job_expire(r);
	else
		lava_job_poll(r);
}

/* A job followed is polled no later than its deadline. */
static void
lava_job_pause(struct lava_run *r, enum lava_phase after, uint64_t ms)
{
	uint64_t now = uv_now(r->l->env.loop);

	r->phase = LAVA_PAUSE;
	r->after = after;
	if (after == LAVA_POLL && r->deadline < now + ms)
		ms = r->deadline > now ? r->deadline - now : 0;
	uv_timer_start(&r->timer, lava_job_timer_cb, ms, 0);
}

/* A job the lab holds for this run: follow it from now on. */
static void
lava_job_follow(struct lava_run *r, const char *job, int fresh)
{
	char *copy = xstrdup(job);

	free(r->job);
	r->job = copy;
	r->state[0] = '\0';
	if (r->jobcb != NULL)
		r->jobcb(r->arg, r->l->lab.name, r->job);
	lava_emit(r->l, "lab-job", json_pack("{s:s, s:s, s:s}", "run",
	    r->run_id, "job", r->job, "state", fresh ? "submitted" :
	    "found"));
	r->delay_ms = r->l->lab.poll_interval_ms;
	r->deadline = uv_now(r->l->env.loop) + lava_job_deadline_ms(r);
	lava_job_pause(r, LAVA_POLL, fresh ? r->delay_ms : 0);
}

/* Fire and forget: the run is over for us once we asked. */
static void
lava_job_cancel_done(void *arg, long status, const char *body, size_t len,
    const struct bd_error *err)
{
	(void)arg;
	(void)status;
	(void)body;
	(void)len;
	(void)err;
}

static void
lava_job_cancel_remote(struct lava *l, const char *job)
{
	struct bd_error err;
	char *url;

	xasprintf(&url, "%s/api/v0.2/jobs/%s/cancel/", l->base, job);
	http_request(l->http, "GET", url, l->token, NULL, LAVA_TIMEOUT_MS,
	    lava_job_cancel_done, l, NULL, &err);
	free(url);
}

static void
lava_job_submit_done(void *arg, long status, const char *body, size_t len,
    const struct bd_error *err)
{
	struct lava_run *r = arg;
	json_t *root, *id;
	char job[32], msg[BD_ERROR_MAX];

	r->req = NULL;
	if (status != 201) {
		if (lava_classify(r->l, status, body, err, "submit")) {
			lava_job_end(r, STEP_INFRA, STEP_PHASE_RUN,
			    r->l->last_error);
			return;
		}
		/* The template is at fault: no run goes until it is fixed. */
		snprintf(msg, sizeof(msg), "%s refused the job of run %s (HTTP "
		    "%ld): %.200s", r->l->base, r->run_id, status, body);
		lava_set_health(r->l, LAVA_JOB_REFUSED, msg);
		lava_job_end(r, STEP_INFRA, STEP_PHASE_RUN, msg);
		return;
	}
	root = json_loadb(body, len, 0, NULL);
	id = json_array_get(json_object_get(root, "job_ids"), 0);
	if (!json_is_integer(id)) {
		json_decref(root);
		lava_job_infra(r, "submit: a reply without job_ids");
		return;
	}
	snprintf(job, sizeof(job), "%" JSON_INTEGER_FORMAT,
	    json_integer_value(id));
	json_decref(root);
	if (r->cancelled) {
		lava_job_cancel_remote(r->l, job);
		lava_job_end(r, STEP_CANCELLED, STEP_PHASE_RUN, "cancelled");
		return;
	}
	lava_job_follow(r, job, 1);
}

static void
lava_job_post(struct lava_run *r)
{
	struct config_lab_values v = { .commit = r->commit,
	    .run_id = r->run_id, .benchmark = r->bench ? r->bench->name : "",
	    .job_name = r->desc, .artifact = r->artifact,
	    .build_host = r->build_host };
	struct bd_error err;
	char *def = NULL, *url, *body;
	json_t *o;

	r->phase = LAVA_SUBMIT;
	r->attempts++;
	if (config_lab_render(&r->l->lab, &v, &def, &err) < 0) {
		struct step_result sr = { .outcome = STEP_FAILED,
		    .phase = STEP_PHASE_RUN, .host = r->l->lab.name };

		bd_error_set(&sr.err, err.code, "job template: %s", err.msg);
		r->record(r->arg, &sr, r->l->lab.name);
		lava_job_end(r, STEP_FAILED, STEP_PHASE_RUN, sr.err.msg);
		return;
	}
	o = json_pack("{s:s}", "definition", def);
	body = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	free(def);
	xasprintf(&url, "%s/api/v0.2/jobs/", r->l->base);
	if (http_request(r->l->http, "POST", url, r->l->token, body,
	    LAVA_TIMEOUT_MS, lava_job_submit_done, r, &r->req, &err) < 0)
		lava_job_end(r, STEP_INFRA, STEP_PHASE_RUN, err.msg);
	free(url);
	free(body);
}

/* The newest job of the run's description, if the lab has one. */
static void
lava_job_lookup_done(void *arg, long status, const char *body, size_t len,
    const struct bd_error *err)
{
	struct lava_run *r = arg;
	json_t *root, *first;
	char job[32];

	r->req = NULL;
	if (status != 200) {
		lava_classify(r->l, status, body, err, "job lookup");
		lava_job_end(r, STEP_INFRA, STEP_PHASE_RUN, r->l->last_error[0] ?
		    r->l->last_error : "job lookup failed");
		return;
	}
	root = json_loadb(body, len, 0, NULL);
	first = json_array_get(json_object_get(root, "results"), 0);
	if (json_is_integer(json_object_get(first, "id"))) {
		snprintf(job, sizeof(job), "%" JSON_INTEGER_FORMAT,
		    json_integer_value(json_object_get(first, "id")));
		json_decref(root);
		r->attempts++;
		lava_job_follow(r, job, 0);
		return;
	}
	json_decref(root);
	lava_job_post(r);
}

static void
lava_job_lookup(struct lava_run *r)
{
	struct bd_error err;
	char *url;

	r->phase = LAVA_LOOKUP;
	xasprintf(&url, "%s/api/v0.2/jobs/?description=%s&ordering=-id&"
	    "limit=1", r->l->base, r->desc);
	if (http_request(r->l->http, "GET", url, r->l->token, NULL,
	    LAVA_TIMEOUT_MS, lava_job_lookup_done, r, &r->req, &err) < 0)
		lava_job_end(r, STEP_INFRA, STEP_PHASE_RUN, err.msg);
	free(url);
}

/* Called again for every attempt. */
static void
lava_job_start(struct lava_run *r)
{
	if (r->l->token == NULL && lava_read_token(r->l) < 0) {
		lava_set_health(r->l, LAVA_TOKEN_UNREADABLE, NULL);
		lava_job_end(r, STEP_INFRA, STEP_PHASE_RUN, r->l->last_error);
		return;
	}
	if (r->job != NULL)
		lava_job_follow(r, r->job, 0);
	else if (r->after == LAVA_LOOKUP)
		lava_job_lookup(r);
	else
		lava_job_post(r);
}

int
lava_job_submit(struct backend *be, const struct backend_spec *spec,
    backend_done_cb *cb, void *arg, struct backend_run **out,
    struct bd_error *err)
{
	struct lava *l = be->impl;
	struct lava_run *r = xcalloc(1, sizeof(*r));

	(void)err;
	r->base.be = be;
	r->l = l;
	r->bench = spec->bench;
	r->commit = xstrdup(spec->commit);
	r->run_id = xstrdup(spec->run_id);
	xasprintf(&r->desc, "bisectd-%s-run-%s", l->instance, spec->run_id);
	r->job = spec->lab_job ? xstrdup(spec->lab_job) : NULL;
	r->artifact = spec->artifact ? xstrdup(spec->artifact) : NULL;
	r->build_host = spec->build_host ? xstrdup(spec->build_host) : NULL;
	r->record = spec->record;
	r->jobcb = spec->job;
	r->arg = spec->arg;
	r->done = cb;
	r->done_arg = arg;
	r->max_attempts = spec->max_attempts ? spec->max_attempts :
	    LAVA_MAX_ATTEMPTS;
	r->after = spec->resumed ? LAVA_LOOKUP : LAVA_SUBMIT;
	lava_result_init(&r->res);
	uv_timer_init(l->env.loop, &r->timer);
	r->timer.data = r;
	TAILQ_INSERT_TAIL(&l->runs, r, entry);
	l->nruns++;
	lava_emit(l, "lab-job", json_pack("{s:s, s:s}", "run", r->run_id,
	    "state", "queued"));
	/* Started from the loop: the caller hears nothing inside submit. */
	lava_job_pause(r, r->after, 0);
	*out = &r->base;
	return 0;
}

/* A job being submitted is cancelled once the lab names it. */
void
lava_job_cancel(struct backend_run *br)
{
	struct lava_run *r = (struct lava_run *)br;

	r->cancelled = 1;
	if (r->phase == LAVA_SUBMIT && r->req != NULL)
		return;
	if (r->job != NULL)
		lava_job_cancel_remote(r->l, r->job);
	lava_job_end(r, STEP_CANCELLED, STEP_PHASE_RUN, "cancelled");
}

/* Shutdown: the lab keeps the job; the next start finds it again. */
void
lava_job_detach(struct backend_run *br)
{
	struct lava_run *r = (struct lava_run *)br;

	r->detached = 1;
	lava_job_end(r, STEP_CANCELLED, STEP_PHASE_RUN, "stopped");
}

const char *
lava_job_where(const struct backend_run *br)
{
	const struct lava_run *r = (const struct lava_run *)br;

	return r->l->lab.name;
}

