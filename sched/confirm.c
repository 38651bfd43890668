/* SPDX-License-Identifier: MIT */
/*
 * A culprit measured on other host groups; see confirm.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/engine.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "sched/bisection.h"
#include "sched/confirm.h"
#include "sched/sched.h"
#include "sched/sched_int.h"
#include "sched/verify.h"
#include "sched/verify_int.h"

/* One stored child of a bisection that measures it on another group. */
struct confirm_child {
	int64_t	 id;
	char	*group;
	char	*good, *bad;
	enum store_bisection_state state;
};

struct confirm_list {
	int64_t			 parent;
	const char		*group;	/* NULL: every group */
	struct confirm_child	*v;
	size_t			 n;
};

/* Whether stored params are those of a confirmation child: its parent. */
static int64_t
confirm_parent_of(const char *params)
{
	json_t *p = json_loads(params ? params : "{}", 0, NULL);
	int64_t parent = 0;

	if (json_is_true(json_object_get(p, "confirm")))
		parent = json_integer_value(json_object_get(p, "parent"));
	json_decref(p);
	return parent;
}

static int
confirm_list_cb(void *arg, const struct store_bisection *rec)
{
	struct confirm_list *l = arg;
	struct confirm_child *c;

	if (rec->ngood != 1 ||
	    (l->group != NULL && strcmp(rec->group, l->group) != 0))
		return 0;
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	c = &l->v[l->n++];
	c->id = rec->id;
	c->group = xstrdup(rec->group);
	c->good = xstrdup(rec->good[0]);
	c->bad = xstrdup(rec->bad);
	c->state = rec->state;
	return 0;
}

/* The stored children of parent on group (NULL: all), by id. */
static void
confirm_list(struct sched *s, int64_t parent, const char *group,
    struct confirm_list *l)
{
	struct bd_error err;

	memset(l, 0, sizeof(*l));
	l->parent = parent;
	l->group = group;
	if (store_bisection_confirms(sched_store(s), parent, confirm_list_cb,
	    l, &err) < 0)
		log_warnx("bisection %" PRId64 ": %s", parent, err.msg);
}

static void
confirm_list_free(struct confirm_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].group);
		free(l->v[i].good);
		free(l->v[i].bad);
	}
	free(l->v);
}

static int
confirm_running(enum store_bisection_state st)
{
	return st == STORE_BISECTION_QUEUED || st == STORE_BISECTION_RUNNING;
}

/* 1 while a child of b is still measuring. */
static int
confirm_pending(struct sched *s, const struct bisection *b)
{
	struct confirm_list l;
	size_t i;
	int pending = 0;

	confirm_list(s, b->id, NULL, &l);
	for (i = 0; i < l.n; i++)
		pending |= confirm_running(l.v[i].state);
	confirm_list_free(&l);
	return pending;
}

/* The culprit's first parent, "" when it has none or is unknown. */
static void
confirm_parent_sha(struct sched *s, const char *sha, char *out)
{
	git_commit *c = NULL;
	git_oid oid;

	out[0] = '\0';
	if (sched_repo(s) == NULL || git_oid_fromstr(&oid, sha) < 0 ||
	    git_commit_lookup(&c, sched_repo(s), &oid) < 0)
		return;
	if (git_commit_parentcount(c) > 0)
		git_oid_tostr(out, GIT_OID_HEXSZ + 1, git_commit_parent_id(c, 0));
	git_commit_free(c);
}

int
confirm_request(struct sched *s, struct bisection *b, const char *group,
    uid_t uid, int64_t *child, int *existing, struct bd_error *err)
{
	struct confirm_list l;
	struct sched_request r;
	char parent[GIT_OID_HEXSZ + 1];
	const char *goods[1] = { parent };

	*existing = 0;
	if (b->rec.culprit == NULL || (b->phase == BISECTION_FINISHED &&
	    b->rec.verdict != STORE_VERDICT_CULPRIT))
		return bd_error_set(err, -EINVAL, "bisection %" PRId64 " has "
		    "no culprit to confirm", b->id);
	if (b->parent_id != 0)
		return bd_error_set(err, -EINVAL, "bisection %" PRId64 " is "
		    "part of bisection %" PRId64 "; confirm that one", b->id,
		    b->parent_id);
	if (strcmp(group, b->rec.group) == 0)
		return bd_error_set(err, -EINVAL, "on: the culprit was found "
		    "on group %s already", group);
	confirm_list(s, b->id, group, &l);
	if (l.n > 0) {
		*child = l.v[l.n - 1].id;
		*existing = 1;
		confirm_list_free(&l);
		return 0;
	}
	confirm_list_free(&l);
	confirm_parent_sha(s, b->rec.culprit, parent);
	if (parent[0] == '\0')
		return bd_error_set(err, -EINVAL, "culprit %s has no parent to "
		    "compare with", b->rec.culprit);
	memset(&r, 0, sizeof(r));
	r.good = goods;
	r.ngood = 1;
	r.bad = b->rec.culprit;
	r.benchmark = b->rec.benchmark;
	r.metric = b->rec.metric;
	r.group = group;
	r.confidence = b->confidence;
	r.has_confidence = 1;
	if (b->max_samples > 0) {
		r.max_samples = b->max_samples;
		r.has_max_samples = 1;
	}
	r.priority = b->priority;
	r.uid = uid;
	r.parent = b->id;
	r.confirm = 1;
	if (sched_bisect(s, &r, child, existing, err) < 0)
		return err->code;
	log_info("bisection %" PRId64 ": confirming %.12s on group %s as %"
	    PRId64, b->id, b->rec.culprit, group, *child);
	sched_emit(s, "confirming", json_pack("{s:I, s:s, s:I}", "bisection",
	    (json_int_t)b->id, "group", group, "child", (json_int_t)*child));
	return 0;
}

/* The sweep's confirm_groups for a bisection it started, else the benchmark's. */
static const char *
confirm_groups_of(struct sched *s, const struct bisection *b)
{
	const struct config *cfg = sched_config(s);
	const struct config_benchmark *bc = config_benchmark_find(cfg,
	    b->rec.benchmark);
	const struct config_sweep *sw = NULL;
	json_t *o;

	if (b->rec.origin != NULL &&
	    (o = json_loads(b->rec.origin, 0, NULL)) != NULL) {
		const char *name = json_string_value(json_object_get(o,
		    "sweep"));

		sw = name ? config_sweep_find(cfg, name) : NULL;
		json_decref(o);
	}
	if (sw != NULL && sw->confirm_groups != NULL)
		return sw->confirm_groups;
	return bc != NULL ? bc->confirm_groups : NULL;
}

int
confirm_wait(struct sched *s, struct bisection *b)
{
	const char *groups = confirm_groups_of(s, b);
	struct bd_error err;
	char *copy, *g, *save = NULL;
	int64_t child;
	int existing;

	if (b->parent_id != 0 || b->rec.culprit == NULL)
		return 0;
	copy = xstrdup(groups ? groups : "");
	for (g = strtok_r(copy, " ", &save); g != NULL;
	    g = strtok_r(NULL, " ", &save))
		if (strcmp(g, b->rec.group) != 0 && confirm_request(s, b, g,
		    (uid_t)b->rec.created_by, &child, &existing, &err) < 0)
			log_warnx("bisection %" PRId64 ": cannot confirm on "
			    "group %s: %s", b->id, g, err.msg);
	free(copy);
	if (!confirm_pending(s, b))
		return 0;
	if (b->verify != NULL)
		b->verify->phase = VERIFY_CONFIRMING;
	return 1;
}

void
confirm_cancel_children(struct sched *s, struct bisection *b)
{
	struct confirm_list l;
	struct bd_error err;
	size_t i;

	confirm_list(s, b->id, NULL, &l);
	for (i = 0; i < l.n; i++)
		if (confirm_running(l.v[i].state) &&
		    sched_cancel(s, l.v[i].id, &err) < 0)
			log_debug("bisection %" PRId64 ": child %" PRId64 ": %s",
			    b->id, l.v[i].id, err.msg);
	confirm_list_free(&l);
}

void
confirm_child_ended(struct sched *s, struct bisection *child)
{
	struct bisection *b;
	struct bd_error err;
	int64_t parent;

	if (child->parent_id == 0 ||
	    (parent = confirm_parent_of(child->rec.params)) == 0 ||
	    (b = sched_find(s, parent, &err)) == NULL ||
	    confirm_pending(s, b))
		return;
	if (b->phase == BISECTION_VERIFYING && b->verify != NULL &&
	    b->verify->phase == VERIFY_CONFIRMING) {
		verify_conclude(s, b->verify);
		return;
	}
	/* Asked for after the verdict: the report is written again. */
	if (b->phase != BISECTION_FINISHED ||
	    b->rec.verdict != STORE_VERDICT_CULPRIT)
		return;
	if (!b->engine_ready) {
		log_info("bisection %" PRId64 ": confirmed on other groups; "
		    "its report from before the restart is kept", b->id);
		return;
	}
	/* A follow-up of the verdict's report: a mail that replies to it. */
	b->followups++;
	if (s->env.events.verdict != NULL)
		s->env.events.verdict(s->env.events.arg, b);
}

/* Keeps a string for the rows' lifetime. */
static const char *
confirm_keep(struct confirm_rows *r, char *str)
{
	r->strings = xreallocarray(r->strings, r->nstrings + 1,
	    sizeof(char *));
	r->strings[r->nstrings++] = str;
	return str;
}

struct confirm_values {
	const char	*metric;
	double		*v;
	size_t		 n;
};

static int
confirm_collect(void *arg, const struct store_sample *sm)
{
	struct confirm_values *c = arg;

	if (strcmp(sm->metric, c->metric) != 0)
		return 0;
	c->v = xreallocarray(c->v, c->n + 1, sizeof(double));
	c->v[c->n++] = sm->value;
	return 0;
}

/* The headline metric's values of bisection id at sha, one a run. */
static void
confirm_values(struct bisection *b, int64_t id, const char *sha,
    struct confirm_values *out)
{
	struct bd_error err;

	memset(out, 0, sizeof(*out));
	out->metric = b->rec.metric;
	store_run_value_list(sched_store(b->s), id, sha, b->rec.metric,
	    bisection_agg_of, b, confirm_collect, out, &err);
}

struct confirm_runs {
	size_t	 n;
	char	*hosts;
};

static int
confirm_run_cb(void *arg, const struct store_run *r)
{
	struct confirm_runs *c = arg;
	char *t;

	c->n++;
	if (r->host == NULL || (c->hosts != NULL &&
	    config_names_contain(c->hosts, r->host)))
		return 0;
	xasprintf(&t, "%s%s%s", c->hosts ? c->hosts : "", c->hosts ? " " :
	    "", r->host);
	free(c->hosts);
	c->hosts = t;
	return 0;
}

/* The test's parameters, as the bisection's own endpoint check. */
static void
confirm_params(struct bisection *b, struct repro_params *rp)
{
	const struct config_benchmark *bc = config_benchmark_find(
	    sched_config(b->s), b->rec.benchmark);
	struct engine_params ep;

	bisection_engine_params(b, bc ? config_metric_find(bc,
	    b->rec.metric) : NULL, bc ? bc->min_change : 0.01, &ep);
	engine_repro_params(&ep, rp);
}

/* One row: bisection id's runs at parent and culprit, judged. */
static void
confirm_row(struct bisection *b, struct confirm_rows *out, int64_t id,
    const char *group, const char *parent, const char *culprit,
    int finished)
{
	const unsigned done = (1u << STORE_RUN_DONE) |
	    (1u << STORE_RUN_SKIPPED);
	struct report_confirm *row;
	struct confirm_values pv, cv;
	struct confirm_runs runs = { 0, NULL };
	struct repro_params rp;
	struct bd_error err;

	confirm_params(b, &rp);
	confirm_values(b, id, parent, &pv);
	/* The bisection may not have run the parent: its good side then. */
	if (pv.n < 2 && id == b->id && b->rec.ngood > 0) {
		free(pv.v);
		confirm_values(b, id, b->rec.good[0], &pv);
	}
	confirm_values(b, id, culprit, &cv);
	store_run_list(sched_store(b->s), id, done, confirm_run_cb, &runs,
	    &err);
	out->rows = xreallocarray(out->rows, out->n + 1, sizeof(*out->rows));
	out->hosts = xreallocarray(out->hosts, out->n + 1, sizeof(char *));
	row = &out->rows[out->n];
	memset(row, 0, sizeof(*row));
	row->group = confirm_keep(out, xstrdup(group));
	row->bisection = id;
	confirm_judge(&rp, pv.v, pv.n, cv.v, cv.n, finished, &row->effect);
	/* The own group's bisection ran other commits too. */
	row->runs = id == b->id ? pv.n + cv.n : runs.n;
	out->hosts[out->n++] = runs.hosts ? runs.hosts : xstrdup("");
	free(pv.v);
	free(cv.v);
}

void
confirm_rows_get(struct bisection *b, struct confirm_rows *out)
{
	struct confirm_list l;
	char parent[GIT_OID_HEXSZ + 1];
	size_t i;

	memset(out, 0, sizeof(*out));
	if (b->parent_id != 0 || b->rec.culprit == NULL)
		return;
	confirm_list(b->s, b->id, NULL, &l);
	confirm_parent_sha(b->s, b->rec.culprit, parent);
	if (l.n > 0 && parent[0] != '\0') {
		confirm_row(b, out, b->id, b->rec.group, parent,
		    b->rec.culprit, 1);
		out->rows[0].own = 1;
	}
	for (i = 0; i < l.n && out->n > 0; i++)
		confirm_row(b, out, l.v[i].id, l.v[i].group, l.v[i].good,
		    l.v[i].bad, !confirm_running(l.v[i].state));
	confirm_list_free(&l);
}

void
confirm_rows_release(struct confirm_rows *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->hosts[i]);
	for (i = 0; i < r->nstrings; i++)
		free(r->strings[i]);
	free(r->hosts);
	free(r->strings);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

json_t *
confirm_status_json(struct bisection *b)
{
	struct confirm_rows r;
	json_t *a;
	size_t i;

	confirm_rows_get(b, &r);
	if (r.n == 0) {
		confirm_rows_release(&r);
		return NULL;
	}
	a = json_array();
	for (i = 0; i < r.n; i++)
		json_array_append_new(a, confirm_row_json(&r.rows[i]));
	confirm_rows_release(&r);
	return a;
}
