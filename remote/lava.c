/*
 * The LAVA backend: the lab's health, its runs and their jobs (see
 * remote/lava.h for the contract).  Every wait is a timer and every
 * request goes through remote/http, so the loop never blocks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/queue.h"
#include "common/xmalloc.h"
#include "remote/http.h"
#include "remote/lava.h"
#include "remote/lava_result.h"

#define LAVA_TIMEOUT_MS		30000
#define LAVA_MAX_ATTEMPTS	3
#define LAVA_TOKEN_MAX		512

const struct name_value lava_health_words[] = {
	{ "unknown", LAVA_UNKNOWN },
	{ "ok", LAVA_OK },
	{ "token refused", LAVA_TOKEN_REFUSED },
	{ "device type unknown", LAVA_DEVICE_TYPE_UNKNOWN },
	{ "lab unreachable", LAVA_UNREACHABLE },
	{ "token unreadable", LAVA_TOKEN_UNREADABLE },
	{ "job refused", LAVA_JOB_REFUSED },
	{ NULL, 0 },
};

/* What a run waits for. */
enum lava_phase {
	LAVA_LOOKUP,		/* a job of its description, after a restart */
	LAVA_SUBMIT,
	LAVA_POLL,
	LAVA_TESTS,
	LAVA_PAUSE,		/* timer before the next poll or attempt */
};

struct lava;

struct lava_run {
	struct backend_run base;		/* first */
	struct lava	*l;
	const struct config_benchmark *bench;
	char		*commit, *run_id, *desc, *job;
	backend_record_cb *record;
	backend_job_cb	*jobcb;
	void		*arg;
	backend_done_cb	*done;
	void		*done_arg;
	enum lava_phase	 phase, after;		/* after: what PAUSE leads to */
	struct http_req	*req;
	uv_timer_t	 timer;
	uint64_t	 delay_ms;
	unsigned	 attempts, max_attempts;
	int		 cancelled, detached;
	char		 state[16];		/* LAVA's state of the job */
	struct lava_result res;
	TAILQ_ENTRY(lava_run) entry;
};
TAILQ_HEAD(lava_run_list, lava_run);

struct lava {
	struct backend	 be;
	struct lava_env	 env;
	char		*instance;
	struct config_lab lab;			/* strings owned */
	char		*base;			/* url without a trailing '/' */
	char		*token;			/* NULL until read */
	struct http	*http;
	enum lava_health health;
	char		 last_error[BD_ERROR_MAX];
	uv_timer_t	 probe;
	struct http_req	*probe_req;
	struct lava_run_list runs;
	size_t		 nruns;
};

static void	lava_run_start(struct lava_run *r);
static void	lava_poll(struct lava_run *r);
static void	lava_probe_cb(uv_timer_t *t);
static void	lava_run_pause(struct lava_run *r, enum lava_phase after,
		    uint64_t ms);

/* Reads the token file again: it is never kept in the configuration. */
static int
lava_read_token(struct lava *l)
{
	FILE *f = fopen(l->lab.token_file, "r");
	char buf[LAVA_TOKEN_MAX];
	size_t n;

	free(l->token);
	l->token = NULL;
	if (f == NULL) {
		snprintf(l->last_error, sizeof(l->last_error), "cannot read "
		    "token_file %s: %s", l->lab.token_file, strerror(errno));
		l->health = LAVA_TOKEN_UNREADABLE;
		return -1;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
	    buf[n - 1] == ' '))
		buf[--n] = '\0';
	if (n == 0 || strpbrk(buf, "\r\n") != NULL) {
		snprintf(l->last_error, sizeof(l->last_error), "token_file %s "
		    "holds no token on one line", l->lab.token_file);
		l->health = LAVA_TOKEN_UNREADABLE;
		return -1;
	}
	l->token = xstrdup(buf);
	return 0;
}

static void
lava_emit(struct lava *l, const char *kind, json_t *fields)
{
	json_object_set_new(fields, "lab", json_string(l->lab.name));
	if (l->env.event != NULL)
		l->env.event(l->env.arg, kind, fields);
	else
		json_decref(fields);
}

/* Health changes are events too; back to OK the scheduler may submit. */
static void
lava_set_health(struct lava *l, enum lava_health h, const char *why)
{
	enum lava_health old = l->health;

	l->health = h;
	if (why != NULL)
		snprintf(l->last_error, sizeof(l->last_error), "%s", why);
	if (old != h)
		lava_emit(l, "lab-health", json_pack("{s:s, s:s}", "health",
		    name_of(lava_health_words, h), "message",
		    l->last_error));
	if (h != LAVA_OK && !uv_is_active((uv_handle_t *)&l->probe))
		uv_timer_start(&l->probe, lava_probe_cb,
		    l->lab.poll_interval_ms * 3, 0);
	if (h == LAVA_OK && old != LAVA_OK && l->env.avail != NULL)
		l->env.avail(l->env.arg);
}

/*
 * Sorts an HTTP failure into health: 401/403 is the token, a 400 or 404
 * naming devices is the device type, no reply is the lab unreachable.
 * Returns 1 when it was one of those.
 */
static int
lava_classify(struct lava *l, long status, const char *body,
    const struct bd_error *err, const char *what)
{
	char msg[BD_ERROR_MAX];

	if (status == 0) {
		snprintf(msg, sizeof(msg), "lab unreachable: %s: %.200s", what,
		    err->msg);
		lava_set_health(l, LAVA_UNREACHABLE, msg);
		return 1;
	}
	if (status == 401 || status == 403) {
		snprintf(msg, sizeof(msg), "token refused by %s (HTTP %ld): "
		    "%.120s", l->base, status, body);
		lava_set_health(l, LAVA_TOKEN_REFUSED, msg);
		return 1;
	}
	if ((status == 400 && strstr(body, "evice") != NULL) ||
	    (status == 404 && strcmp(what, "device type") == 0)) {
		snprintf(msg, sizeof(msg), "device type %s unknown to %s: "
		    "%.120s", l->lab.device_type, l->base, body);
		lava_set_health(l, LAVA_DEVICE_TYPE_UNKNOWN, msg);
		return 1;
	}
	return 0;
}

static void
lava_probe_done(void *arg, long status, const char *body, size_t len,
    const struct bd_error *err)
{
	struct lava *l = arg;

	(void)len;
	l->probe_req = NULL;
	if (status == 200) {
		l->last_error[0] = '\0';
		lava_set_health(l, LAVA_OK, NULL);
	} else if (!lava_classify(l, status, body, err, "device type")) {
		char msg[200];

		snprintf(msg, sizeof(msg), "device type check: HTTP %ld",
		    status);
		lava_set_health(l, LAVA_UNREACHABLE, msg);
	}
}

/* GET /devicetypes/NAME/ with the token checks both at once. */
static void
lava_probe_cb(uv_timer_t *t)
{
	struct lava *l = t->data;
	struct bd_error err;
	char *url;

	if (l->probe_req != NULL)
		return;
	if (l->health != LAVA_OK && l->health != LAVA_UNKNOWN)
		uv_timer_start(&l->probe, lava_probe_cb,
		    l->lab.poll_interval_ms * 3, 0);
	if (lava_read_token(l) < 0) {
		lava_set_health(l, LAVA_TOKEN_UNREADABLE, NULL);
		return;
	}
	xasprintf(&url, "%s/api/v0.2/devicetypes/%s/", l->base,
	    l->lab.device_type);
	if (http_request(l->http, "GET", url, l->token, NULL,
	    LAVA_TIMEOUT_MS, lava_probe_done, l, &l->probe_req, &err) < 0)
		lava_set_health(l, LAVA_UNREACHABLE, err.msg);
	free(url);
}

static void
lava_run_closed(uv_handle_t *h)
{
	struct lava_run *r = h->data;

	lava_result_release(&r->res);
	free(r->commit);
	free(r->run_id);
	free(r->desc);
	free(r->job);
	free(r);
}

/* The end of a run: the handle goes, then the caller hears of it. */
static void
lava_run_end(struct lava_run *r, enum step_outcome o, enum step_phase ph,
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
	uv_close((uv_handle_t *)&r->timer, lava_run_closed);
	if (l->env.avail != NULL)
		l->env.avail(l->env.arg);
}

/* An infrastructure failure: another attempt after a pause, or the end. */
static void
lava_run_infra(struct lava_run *r, const char *msg)
{
	if (r->attempts >= r->max_attempts || r->l->health != LAVA_OK) {
		lava_run_end(r, STEP_INFRA, STEP_PHASE_RUN, msg);
		return;
	}
	lava_emit(r->l, "lab-job", json_pack("{s:s, s:s?, s:s, s:s}", "run",
	    r->run_id, "job", r->job, "state", "retry", "message", msg));
	free(r->job);
	r->job = NULL;
	lava_result_release(&r->res);
	lava_run_pause(r, LAVA_SUBMIT, r->l->lab.poll_interval_ms);
}

/* Results are recorded once, then the run ends. */
static void
lava_run_finished(struct lava_run *r)
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
		lava_run_infra(r, msg);
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
	lava_run_end(r, sr.outcome, sr.phase, msg);
}

static void
lava_tests_done(void *arg, long status, const char *body, size_t len,
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
		lava_run_infra(r, msg);
		return;
	}
	if (lava_result_page(&r->res, body, len, r->l->lab.build_case, &next,
	    &perr) < 0) {
		struct step_result sr = { .outcome = STEP_FAILED,
		    .phase = STEP_PHASE_COLLECT, .host = r->l->lab.name };

		bd_error_set(&sr.err, -EINVAL, "job %s: %s", r->job, perr.msg);
		r->record(r->arg, &sr, r->l->lab.name);
		snprintf(msg, sizeof(msg), "%s", sr.err.msg);
		lava_run_end(r, STEP_FAILED, STEP_PHASE_COLLECT, msg);
		return;
	}
	if (next == NULL) {
		lava_run_finished(r);
		return;
	}
	rc = http_request(r->l->http, "GET", next, r->l->token, NULL,
	    LAVA_TIMEOUT_MS, lava_tests_done, r, &r->req, &perr);
	free(next);
	if (rc < 0)
		lava_run_infra(r, perr.msg);
}

/* Reads every page of the job's test cases. */
static void
lava_tests(struct lava_run *r)
{
	struct bd_error err;
	char *url;

	r->phase = LAVA_TESTS;
	lava_result_release(&r->res);
	xasprintf(&url, "%s/api/v0.2/jobs/%s/tests/?limit=500", r->l->base,
	    r->job);
	if (http_request(r->l->http, "GET", url, r->l->token, NULL,
	    LAVA_TIMEOUT_MS, lava_tests_done, r, &r->req, &err) < 0)
		lava_run_infra(r, err.msg);
	free(url);
}

static void
lava_poll_done(void *arg, long status, const char *body, size_t len,
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
			lava_run_pause(r, LAVA_POLL, cap);
			return;
		}
		snprintf(msg, sizeof(msg), "job %s: HTTP %ld", r->job, status);
		lava_run_infra(r, msg);
		return;
	}
	root = json_loadb(body, len, 0, NULL);
	state = json_string_value(json_object_get(root, "state"));
	health = json_string_value(json_object_get(root, "health"));
	if (state == NULL || health == NULL) {
		json_decref(root);
		snprintf(msg, sizeof(msg), "job %s: a reply without state",
		    r->job);
		lava_run_infra(r, msg);
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
		lava_run_pause(r, LAVA_POLL, r->delay_ms);
		return;
	}
	if (strcmp(health, "Canceled") == 0) {
		snprintf(msg, sizeof(msg), "job %s was canceled in the lab",
		    r->job);
		json_decref(root);
		lava_run_infra(r, msg);
		return;
	}
	json_decref(root);
	lava_tests(r);
}

static void
lava_poll(struct lava_run *r)
{
	struct bd_error err;
	char *url;

	r->phase = LAVA_POLL;
	xasprintf(&url, "%s/api/v0.2/jobs/%s/", r->l->base, r->job);
	if (http_request(r->l->http, "GET", url, r->l->token, NULL,
	    LAVA_TIMEOUT_MS, lava_poll_done, r, &r->req, &err) < 0)
		lava_run_infra(r, err.msg);
	free(url);
}

static void
lava_timer_cb(uv_timer_t *t)
{
	struct lava_run *r = t->data;

	if (r->after == LAVA_POLL)
		lava_poll(r);
	else
		lava_run_start(r);
}

static void
lava_run_pause(struct lava_run *r, enum lava_phase after, uint64_t ms)
{
	r->phase = LAVA_PAUSE;
	r->after = after;
	uv_timer_start(&r->timer, lava_timer_cb, ms, 0);
}

/* A job the lab holds for this run: follow it from now on. */
static void
lava_follow(struct lava_run *r, const char *job, int fresh)
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
	lava_run_pause(r, LAVA_POLL, fresh ? r->delay_ms : 0);
}

/* Fire and forget: the run is over for us once we asked. */
static void
lava_cancel_done(void *arg, long status, const char *body, size_t len,
    const struct bd_error *err)
{
	(void)arg;
	(void)status;
	(void)body;
	(void)len;
	(void)err;
}

static void
lava_cancel_job(struct lava *l, const char *job)
{
	struct bd_error err;
	char *url;

	xasprintf(&url, "%s/api/v0.2/jobs/%s/cancel/", l->base, job);
	http_request(l->http, "GET", url, l->token, NULL, LAVA_TIMEOUT_MS,
	    lava_cancel_done, l, NULL, &err);
	free(url);
}

static void
lava_submit_done(void *arg, long status, const char *body, size_t len,
    const struct bd_error *err)
{
	struct lava_run *r = arg;
	json_t *root, *id;
	char job[32], msg[BD_ERROR_MAX];

	r->req = NULL;
	if (status != 201) {
		if (lava_classify(r->l, status, body, err, "submit")) {
			lava_run_end(r, STEP_INFRA, STEP_PHASE_RUN,
			    r->l->last_error);
			return;
		}
		/* The template is at fault: no run goes until it is fixed. */
		snprintf(msg, sizeof(msg), "%s refused the job of run %s (HTTP "
		    "%ld): %.200s", r->l->base, r->run_id, status, body);
		lava_set_health(r->l, LAVA_JOB_REFUSED, msg);
		lava_run_end(r, STEP_INFRA, STEP_PHASE_RUN, msg);
		return;
	}
	root = json_loadb(body, len, 0, NULL);
	id = json_array_get(json_object_get(root, "job_ids"), 0);
	if (!json_is_integer(id)) {
		json_decref(root);
		lava_run_infra(r, "submit: a reply without job_ids");
		return;
	}
	snprintf(job, sizeof(job), "%" JSON_INTEGER_FORMAT,
	    json_integer_value(id));
	json_decref(root);
	if (r->cancelled) {
		lava_cancel_job(r->l, job);
		lava_run_end(r, STEP_CANCELLED, STEP_PHASE_RUN, "cancelled");
		return;
	}
	lava_follow(r, job, 1);
}

static void
lava_submit(struct lava_run *r)
{
	struct config_lab_values v = { .commit = r->commit,
	    .run_id = r->run_id, .benchmark = r->bench ? r->bench->name : "",
	    .job_name = r->desc };
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
		lava_run_end(r, STEP_FAILED, STEP_PHASE_RUN, sr.err.msg);
		return;
	}
	o = json_pack("{s:s}", "definition", def);
	body = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	free(def);
	xasprintf(&url, "%s/api/v0.2/jobs/", r->l->base);
	if (http_request(r->l->http, "POST", url, r->l->token, body,
	    LAVA_TIMEOUT_MS, lava_submit_done, r, &r->req, &err) < 0)
		lava_run_end(r, STEP_INFRA, STEP_PHASE_RUN, err.msg);
	free(url);
	free(body);
}

/* The newest job of the run's description, if the lab has one. */
static void
lava_lookup_done(void *arg, long status, const char *body, size_t len,
    const struct bd_error *err)
{
	struct lava_run *r = arg;
	json_t *root, *first;
	char job[32];

	r->req = NULL;
	if (status != 200) {
		lava_classify(r->l, status, body, err, "job lookup");
		lava_run_end(r, STEP_INFRA, STEP_PHASE_RUN, r->l->last_error[0] ?
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
		lava_follow(r, job, 0);
		return;
	}
	json_decref(root);
	lava_submit(r);
}

static void
lava_lookup(struct lava_run *r)
{
	struct bd_error err;
	char *url;

	r->phase = LAVA_LOOKUP;
	xasprintf(&url, "%s/api/v0.2/jobs/?description=%s&ordering=-id&"
	    "limit=1", r->l->base, r->desc);
	if (http_request(r->l->http, "GET", url, r->l->token, NULL,
	    LAVA_TIMEOUT_MS, lava_lookup_done, r, &r->req, &err) < 0)
		lava_run_end(r, STEP_INFRA, STEP_PHASE_RUN, err.msg);
	free(url);
}

/* Called again for every attempt. */
static void
lava_run_start(struct lava_run *r)
{
	if (r->l->token == NULL && lava_read_token(r->l) < 0) {
		lava_set_health(r->l, LAVA_TOKEN_UNREADABLE, NULL);
		lava_run_end(r, STEP_INFRA, STEP_PHASE_RUN, r->l->last_error);
		return;
	}
	if (r->job != NULL)
		lava_follow(r, r->job, 0);
	else if (r->after == LAVA_LOOKUP)
		lava_lookup(r);
	else
		lava_submit(r);
}

static int
lava_be_submit(struct backend *be, const struct backend_spec *spec,
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
	lava_run_pause(r, r->after, 0);
	*out = &r->base;
	return 0;
}

/* A job being submitted is cancelled once the lab names it. */
static void
lava_be_cancel(struct backend_run *br)
{
	struct lava_run *r = (struct lava_run *)br;

	r->cancelled = 1;
	if (r->phase == LAVA_SUBMIT && r->req != NULL)
		return;
	if (r->job != NULL)
		lava_cancel_job(r->l, r->job);
	lava_run_end(r, STEP_CANCELLED, STEP_PHASE_RUN, "cancelled");
}

/* Shutdown: the lab keeps the job; the next start finds it again. */
static void
lava_be_detach(struct backend_run *br)
{
	struct lava_run *r = (struct lava_run *)br;

	r->detached = 1;
	lava_run_end(r, STEP_CANCELLED, STEP_PHASE_RUN, "stopped");
}

static const char *
lava_be_where(const struct backend_run *br)
{
	const struct lava_run *r = (const struct lava_run *)br;

	return r->l->lab.name;
}

static unsigned
lava_be_free_slots(struct backend *be, const char *group)
{
	struct lava *l = be->impl;

	if (strcmp(group, l->lab.group) != 0 || l->health != LAVA_OK)
		return 0;
	return l->nruns >= l->lab.max_jobs ? 0 :
	    l->lab.max_jobs - (unsigned)l->nruns;
}

static unsigned
lava_be_capacity(struct backend *be, const char *group)
{
	struct lava *l = be->impl;

	return strcmp(group, l->lab.group) == 0 ? l->lab.max_jobs : 0;
}

static const char *
lava_be_trouble(struct backend *be, const char *group)
{
	struct lava *l = be->impl;

	if (strcmp(group, l->lab.group) != 0 || l->health == LAVA_OK ||
	    l->health == LAVA_UNKNOWN)
		return "";
	return l->last_error;
}

static void
lava_closed(uv_handle_t *h)
{
	struct lava *l = h->data;

	config_lab_release(&l->lab);
	free(l->instance);
	free(l->base);
	free(l->token);
	free(l);
}

/* Only with no run left (detach them first). */
static void
lava_be_free(struct backend *be)
{
	struct lava *l = be->impl;

	if (l->probe_req != NULL)
		http_cancel(l->probe_req);
	http_free(l->http);
	uv_timer_stop(&l->probe);
	uv_close((uv_handle_t *)&l->probe, lava_closed);
}

static const struct backend_ops lava_ops = {
	.kind = "lava",
	.submit = lava_be_submit,
	.cancel = lava_be_cancel,
	.detach = lava_be_detach,
	.where = lava_be_where,
	.free_slots = lava_be_free_slots,
	.capacity = lava_be_capacity,
	.trouble = lava_be_trouble,
	.free = lava_be_free,
};

static char *
lava_dup(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

int
lava_new(const struct lava_env *env, const struct config_lab *lab,
    struct backend **out, struct bd_error *err)
{
	struct lava *l = xcalloc(1, sizeof(*l));
	size_t n;
	int rc;

	if ((rc = http_new(env->loop, &l->http, err)) < 0) {
		free(l);
		return rc;
	}
	l->be.ops = &lava_ops;
	l->be.impl = l;
	l->env = *env;
	l->instance = xstrdup(env->instance ? env->instance : "0");
	l->lab = *lab;
	l->lab.name = lava_dup(lab->name);
	l->lab.url = lava_dup(lab->url);
	l->lab.token_file = lava_dup(lab->token_file);
	l->lab.device_type = lava_dup(lab->device_type);
	l->lab.tags = lava_dup(lab->tags);
	l->lab.group = lava_dup(lab->group);
	l->lab.job_template = lava_dup(lab->job_template);
	l->lab.artifact_url = lava_dup(lab->artifact_url);
	l->lab.build_case = lava_dup(lab->build_case);
	if (l->lab.poll_interval_ms == 0)
		l->lab.poll_interval_ms = 1000;
	l->base = xstrdup(lab->url);
	n = strlen(l->base);
	while (n > 0 && l->base[n - 1] == '/')
		l->base[--n] = '\0';
	TAILQ_INIT(&l->runs);
	uv_timer_init(env->loop, &l->probe);
	l->probe.data = l;
	uv_timer_start(&l->probe, lava_probe_cb, 0, 0);
	*out = &l->be;
	return 0;
}

bool
lava_is(const struct backend *be)
{
	return be->ops == &lava_ops;
}

void
lava_info(const struct backend *be, struct lava_info *out)
{
	const struct lava *l = be->impl;
	const struct lava_run *r;

	memset(out, 0, sizeof(*out));
	out->name = l->lab.name;
	out->url = l->lab.url;
	out->device_type = l->lab.device_type;
	out->group = l->lab.group;
	out->max_jobs = l->lab.max_jobs;
	out->health = l->health;
	out->last_error = l->last_error;
	TAILQ_FOREACH(r, &l->runs, entry)
		if (strcmp(r->state, "Running") == 0 ||
		    strcmp(r->state, "Canceling") == 0)
			out->running++;
		else
			out->queued++;
}
