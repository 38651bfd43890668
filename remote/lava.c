/* SPDX-License-Identifier: MIT */
/*
 * The LAVA backend: the lab's token and health, and the backend ops (see
 * remote/lava.h for the contract; remote/lava_job.c follows each run).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "remote/lava_int.h"

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

static void	lava_probe_cb(uv_timer_t *t);

int
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

void
lava_emit(struct lava *l, const char *kind, json_t *fields)
{
	json_object_set_new(fields, "lab", json_string(l->lab.name));
	if (l->env.event != NULL)
		l->env.event(l->env.arg, kind, fields);
	else
		json_decref(fields);
}

/* Health changes are events too; back to OK the scheduler may submit. */
void
lava_set_health(struct lava *l, enum lava_health h, const char *why)
{
	enum lava_health old = l->health;

	l->health = h;
	/* Quotes of the lab's body are cut by bytes, maybe mid-character,
	 * and an event or a reply holds UTF-8 only. */
	if (why != NULL) {
		snprintf(l->last_error, sizeof(l->last_error), "%s", why);
		bd_utf8_fix(l->last_error);
	}
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
int
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
	.submit = lava_job_submit,
	.cancel = lava_job_cancel,
	.detach = lava_job_detach,
	.where = lava_job_where,
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
	l->lab.build_group = lava_dup(lab->build_group);
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
