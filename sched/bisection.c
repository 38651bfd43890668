/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/agg.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "sched/bisection.h"
#include "sched/sched.h"
#include "sched/sched_int.h"
#include "sched/verify.h"
#include "repo/fixup.h"
#include "repo/graph.h"
#include "repo/rev.h"

/* The parent of stored params already parsed (0: none). */
static int64_t
bisection_parent_in(const json_t *p)
{
	const json_t *v = json_object_get(p, "parent");

	return json_is_integer(v) ? json_integer_value(v) : 0;
}

/* Request options live in the stored params so a restart sees them. */
static void
bisection_read_params(struct bisection *b)
{
	json_t *p = json_loads(b->rec.params ? b->rec.params : "{}", 0, NULL);
	json_t *v;
	size_t i;

	b->confidence = 0.99;
	b->max_samples = 0;
	b->first_parent = 0;
	b->priority = b->rec.priority;
	if (p == NULL)
		return;
	if ((v = json_object_get(p, "confidence")) != NULL &&
	    json_is_number(v))
		b->confidence = json_number_value(v);
	if ((v = json_object_get(p, "max_samples")) != NULL &&
	    json_is_integer(v) && json_integer_value(v) > 0)
		b->max_samples = (unsigned)json_integer_value(v);
	if ((v = json_object_get(p, "first_parent")) != NULL)
		b->first_parent = json_is_true(v);
	b->parent_id = bisection_parent_in(p);
	json_array_foreach(json_object_get(p, "fixups"), i, v)
		if (json_is_string(v) && b->nfixups < REPO_FIXUP_MAX) {
			b->fixups = xreallocarray(b->fixups, b->nfixups + 1,
			    sizeof(*b->fixups));
			b->fixups[b->nfixups++] = xstrdup(json_string_value(v));
		}
	json_decref(p);
}

int64_t
bisection_params_parent(const char *params)
{
	json_t *p;
	int64_t parent;

	if (params == NULL || (p = json_loads(params, 0, NULL)) == NULL)
		return 0;
	parent = bisection_parent_in(p);
	json_decref(p);
	return parent;
}

/* Only what was asked is stored, so defaults may change for new requests. */
char *
bisection_params_encode(const struct sched_request *req, const char *bad,
    const char *group)
{
	json_t *p, *good = json_array();
	char *text;
	size_t i;

	for (i = 0; i < req->ngood; i++)
		json_array_append_new(good, json_string(req->good[i]));
	p = json_pack("{s:o, s:s, s:s, s:s, s:s}", "good", good, "bad", bad,
	    "benchmark", req->benchmark, "metric", req->metric, "group",
	    group);
	if (req->has_confidence)
		json_object_set_new(p, "confidence", json_real(req->confidence));
	if (req->has_max_samples)
		json_object_set_new(p, "max_samples",
		    json_integer(req->max_samples));
	if (req->first_parent)
		json_object_set_new(p, "first_parent", json_true());
	if (req->priority != 0)
		json_object_set_new(p, "priority", json_integer(req->priority));
	if (req->parent != 0)
		json_object_set_new(p, "parent", json_integer(req->parent));
	if (req->confirm)
		json_object_set_new(p, "confirm", json_true());
	if (req->nfixups > 0) {
		json_t *f = json_array();

		for (i = 0; i < req->nfixups; i++)
			json_array_append_new(f, json_string(req->fixups[i]));
		json_object_set_new(p, "fixups", f);
	}
	text = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(p);
	return text;
}

/* The stored origin, which the status and the report read back. */
char *
bisection_origin_encode(const struct sched_origin *o)
{
	json_t *j, *metrics = json_array(), *reused = json_array();
	char *text;
	size_t i;

	for (i = 0; i < o->nmetrics; i++)
		json_array_append_new(metrics, json_string(o->metrics[i]));
	for (i = 0; i < o->nreuse; i++)
		json_array_append_new(reused, json_integer(o->reuse[i]));
	j = json_pack("{s:s?, s:s?, s:s?, s:I, s:I, s:o, s:o}", "sweep",
	    o->sweep, "ref", o->ref, "prev_ref", o->prev_ref, "row",
	    (json_int_t)o->row, "prev_row", (json_int_t)o->prev_row,
	    "metrics", metrics, "reused_from", reused);
	text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	return text;
}

int
bisection_new(struct sched *s, struct store *st, int64_t id,
    struct bisection **out, struct bd_error *err)
{
	struct bisection *b = xcalloc(1, sizeof(*b));
	int rc;

	b->id = id;
	b->s = s;
	store_bisection_init(&b->rec);
	TAILQ_INIT(&b->probes);
	if ((rc = store_bisection_get(st, id, &b->rec, err)) < 0) {
		store_bisection_release(&b->rec);
		free(b);
		return rc;
	}
	bisection_read_params(b);
	b->phase = BISECTION_LOADING;
	*out = b;
	return 0;
}

void
bisection_free(struct bisection *b)
{
	if (b == NULL)
		return;
	if (b->engine_ready)
		engine_release(&b->e);
	graph_release(&b->g);
	verify_free(b->verify);
	while (b->nfixups > 0)
		free(b->fixups[--b->nfixups]);
	free(b->fixups);
	while (b->nauto_fixups > 0)
		free(b->auto_fixups[--b->nauto_fixups]);
	free(b->auto_fixups);
	free(b->fixup_searched);
	free(b->run_oks);
	free(b->run_fails);
	free(b->goods);
	free(b->repo_path);
	store_bisection_release(&b->rec);
	free(b);
}

/*
 * Where good samples are taken: a good revision that is an ancestor of bad
 * stands for itself; one that is not (every linux-next tag) is replaced by
 * its merge bases with bad, the commits git asks to test first.
 */
static int
bisection_good_boundary(struct bisection *b, git_repository *repo,
    const git_oid *good, size_t ngood, struct bd_error *err)
{
	git_oidarray bases;
	size_t i, j;
	int rc;

	for (i = 0; i < ngood; i++) {
		for (j = 0; j < i; j++)
			if (git_oid_equal(&good[j], &good[i]))
				break;
		if (j < i)
			continue;	/* two names of one commit */
		if (atomic_load(&b->load_abort))
			return bd_error_set(err, -ECANCELED,
			    "loading was cancelled");
		if (git_oid_equal(&good[i], &b->bad))
			return bd_error_set(err, -EINVAL,
			    "good and bad are the same commit");
		if (git_graph_descendant_of(repo, &good[i], &b->bad) == 1)
			return bd_error_set(err, -EINVAL, "bad %s is an "
			    "ancestor of good %s: nothing to bisect",
			    b->rec.bad, git_oid_tostr_s(&good[i]));
		rc = git_graph_descendant_of(repo, &b->bad, &good[i]);
		if (rc == 1) {
			b->goods = xreallocarray(b->goods, b->ngoods + 1,
			    sizeof(git_oid));
			git_oid_cpy(&b->goods[b->ngoods++], &good[i]);
			continue;
		}
		if (rc < 0 || git_merge_bases(&bases, repo, &b->bad,
		    &good[i]) < 0)
			return bd_error_set(err, -EINVAL,
			    "no merge base between good %s and bad: %s",
			    git_oid_tostr_s(&good[i]),
			    git_error_last() ? git_error_last()->message : "");
		for (j = 0; j < bases.count; j++) {
			b->goods = xreallocarray(b->goods, b->ngoods + 1,
			    sizeof(git_oid));
			git_oid_cpy(&b->goods[b->ngoods++], &bases.ids[j]);
		}
		git_oidarray_dispose(&bases);
	}
	return 0;
}

/* Thread-pool side: everything here blocks on the object database. */
static void
bisection_load_work(uv_work_t *w)
{
	struct bisection *b = w->data;
	git_repository *repo = NULL;
	git_oid *good = NULL;
	size_t i;
	int rc;

	if (git_repository_open(&repo, b->repo_path) < 0) {
		rc = bd_error_set(&b->load_err, -ENOENT,
		    "cannot open repository %s: %s", b->repo_path,
		    git_error_last() ? git_error_last()->message : "");
		goto out;
	}
	if ((rc = repo_rev_resolve(repo, b->rec.bad, &b->bad,
	    &b->load_err)) < 0)
		goto out;
	good = xcalloc(b->rec.ngood, sizeof(git_oid));
	for (i = 0; i < b->rec.ngood; i++)
		if ((rc = repo_rev_resolve(repo, b->rec.good[i], &good[i],
		    &b->load_err)) < 0)
			goto out;
	if (atomic_load(&b->load_abort)) {
		rc = bd_error_set(&b->load_err, -ECANCELED,
		    "loading was cancelled");
		goto out;
	}
	if ((rc = bisection_good_boundary(b, repo, good, b->rec.ngood,
	    &b->load_err)) < 0)
		goto out;
	rc = repo_graph_load(&b->g, repo, &b->bad, good, b->rec.ngood,
	    b->first_parent ? REPO_GRAPH_FIRST_PARENT : 0, &b->load_err);
out:
	b->load_rc = rc;
	free(good);
	git_repository_free(repo);
}

static void
bisection_load_done(uv_work_t *w, int status)
{
	struct bisection *b = w->data;

	if (status < 0 && b->load_rc == 0)
		b->load_rc = bd_error_set(&b->load_err, -ECANCELED,
		    "loading was cancelled");
	b->loaded(b, b->load_rc, &b->load_err);
}

int
bisection_load(struct bisection *b, uv_loop_t *loop, const char *repo_path,
    bisection_loaded_cb *cb)
{
	b->repo_path = xstrdup(repo_path);
	b->loaded = cb;
	b->work.data = b;
	return uv_queue_work(loop, &b->work, bisection_load_work,
	    bisection_load_done);
}

void
bisection_load_abort(struct bisection *b)
{
	atomic_store(&b->load_abort, 1);
}

int64_t
bisection_commit_index(const struct bisection *b, const char *sha)
{
	git_oid oid;
	ssize_t i;
	size_t k;

	if (git_oid_fromstr(&oid, sha) < 0)
		return -1;
	for (k = 0; k < b->ngoods; k++)
		if (git_oid_equal(&oid, &b->goods[k]))
			return ENGINE_GOOD;
	i = repo_graph_find(&b->g, &oid);
	return i;
}

void
bisection_probe_sha(struct bisection *b, uint32_t commit,
    char out[GIT_OID_HEXSZ + 1])
{
	const git_oid *oid;

	if (commit == ENGINE_GOOD) {
		oid = &b->goods[b->good_next % b->ngoods];
		b->good_next++;
		git_oid_tostr(out, GIT_OID_HEXSZ + 1, oid);
	} else
		graph_oid_tostr(out, GIT_OID_HEXSZ + 1, &b->g.oids[commit]);
}

/*
 * The aggregate that makes a run's values of metric one value: the
 * headline metric's as the engine was set up, any other's as configured.
 */
enum agg_kind
bisection_agg_of(void *arg, const char *metric)
{
	const struct bisection *b = arg;
	const struct config_benchmark *bc;
	const struct config_metric *m;

	if (strcmp(metric, b->rec.metric) == 0)
		return b->agg;
	bc = config_benchmark_find(sched_config(b->s), b->rec.benchmark);
	m = bc ? config_metric_find(bc, metric) : NULL;
	return m ? m->agg : AGG_MEAN;
}

/* The one place a result's metric is matched to the bisection's. */
const struct store_metric *
bisection_metric(const struct bisection *b, const struct store_metric *m,
    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(m[i].name, b->rec.metric) == 0)
			return &m[i];
	return NULL;
}

/*
 * Live results and replayed ones take this one path, so the engine after a
 * restart is the engine that was stopped.
 */
int
bisection_feed(struct bisection *b, uint32_t commit,
    enum store_run_state state, const struct store_metric *m, size_t n,
    struct bd_error *err)
{
	double *v = NULL, value;
	size_t i, nv = 0, at = commit == ENGINE_GOOD ? b->g.n : commit;
	int rc;

	if (b->run_oks == NULL) {
		b->run_oks = xcalloc(b->g.n + 1, sizeof(*b->run_oks));
		b->run_fails = xcalloc(b->g.n + 1, sizeof(*b->run_fails));
	}
	if (at > b->g.n)
		return bd_error_set(err, -EINVAL, "no commit %u", commit);
	if (state == STORE_RUN_SKIPPED) {
		/* One failure is worth another try: flaky boots happen. */
		if (++b->run_fails[at] < 2 ||
		    b->run_fails[at] <= b->run_oks[at]) {
			engine_probe_dropped(&b->e, commit);
			return 0;
		}
		if (commit == ENGINE_GOOD || commit == b->g.n - 1)
			return bd_error_set(err, -ENOEXEC, "the %s endpoint "
			    "cannot be built or run", commit == ENGINE_GOOD ?
			    "good" : "bad");
		return engine_add_skip(&b->e, commit, err);
	}
	if (state != STORE_RUN_DONE)
		return 0;
	b->run_oks[at]++;
	/*
	 * The run is the unit: its values of the metric (LKP: one per
	 * iteration, all from one boot) are one sample, their aggregate.
	 */
	for (i = 0; i < n; i++)
		if (strcmp(m[i].name, b->rec.metric) == 0) {
			v = xreallocarray(v, nv + 1, sizeof(*v));
			v[nv++] = m[i].value;
		}
	if (nv == 0)
		return 0;	/* a done run without this metric adds nothing */
	if (agg_apply(b->agg, v, nv, &value) < 0)
		rc = bd_error_set(err, -ERANGE, "a value of %s is beyond "
		    "%g in magnitude", b->rec.metric, BD_VALUE_MAX);
	else
		rc = engine_add_sample(&b->e, commit, value, err);
	free(v);
	return rc;
}

struct replay_ctx {
	struct bisection *b;
	struct store_sample *sm;	/* every sample, in finish order */
	struct store_metric *m;		/* scratch: one run's metrics */
	size_t	n, cap, pos, mcap;
	int	rc;
	struct bd_error ferr;		/* the engine's, not the store's */
};

static int
replay_sample(void *arg, const struct store_sample *sm)
{
	struct replay_ctx *c = arg;

	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->sm = xreallocarray(c->sm, c->cap, sizeof(*c->sm));
	}
	memset(&c->sm[c->n], 0, sizeof(c->sm[c->n]));
	c->sm[c->n].run = sm->run;
	c->sm[c->n].seq = sm->seq;
	c->sm[c->n].metric = xstrdup(sm->metric);
	c->sm[c->n].value = sm->value;
	c->sm[c->n].index = sm->index;
	c->n++;
	return 0;
}

/* The fix-ups a stored run was built with are known again after a restart. */
static void
bisection_fixups_replay(struct bisection *b, const char *timings)
{
	json_t *t, *v;
	size_t i;

	if (timings == NULL || (t = json_loads(timings, 0, NULL)) == NULL)
		return;
	json_array_foreach(json_object_get(t, "auto_fixups"), i, v)
		if (json_is_string(v))
			bisection_fixup_add(b, json_string_value(v));
	json_decref(t);
}

/* Adds an automatic fix-up once; 1 when it is new. */
int
bisection_fixup_add(struct bisection *b, const char *sha)
{
	size_t i;

	for (i = 0; i < b->nauto_fixups; i++)
		if (strcmp(b->auto_fixups[i], sha) == 0)
			return 0;
	if (b->nauto_fixups >= REPO_FIXUP_MAX)
		return 0;
	b->auto_fixups = xreallocarray(b->auto_fixups, b->nauto_fixups + 1,
	    sizeof(*b->auto_fixups));
	b->auto_fixups[b->nauto_fixups++] = xstrdup(sha);
	return 1;
}

/* Feeds one finished run to the engine as it was fed when it finished. */
static int
replay_run(void *arg, const struct store_run *r)
{
	struct replay_ctx *c = arg;
	struct bisection *b = c->b;
	int64_t idx = bisection_commit_index(b, r->commit);
	size_t k = 0;

	/* Both lists are in finish order: one forward walk pairs them. */
	while (c->pos < c->n && c->sm[c->pos].seq < r->seq)
		c->pos++;
	for (; c->pos < c->n && c->sm[c->pos].run == r->id; c->pos++, k++) {
		if (k == c->mcap) {
			c->mcap = c->mcap ? 2 * c->mcap : 8;
			c->m = xreallocarray(c->m, c->mcap, sizeof(*c->m));
		}
		c->m[k].name = c->sm[c->pos].metric;
		c->m[k].value = c->sm[c->pos].value;
		c->m[k].index = c->sm[c->pos].index;
	}
	if (idx < 0)
		return 0;	/* a commit outside the range: ignore */
	bisection_fixups_replay(b, r->timings);
	c->rc = bisection_feed(b, (uint32_t)idx, r->state, c->m, k,
	    &c->ferr);
	return c->rc < 0 ? -1 : 0;
}

int
bisection_replay(struct bisection *b, struct store *st, struct bd_error *err)
{
	struct replay_ctx c;
	size_t i;
	int rc;

	memset(&c, 0, sizeof(c));
	c.b = b;
	rc = store_sample_list(st, b->id, NULL, replay_sample, &c, err);
	if (rc == 0)
		rc = store_run_list(st, b->id, (1u << STORE_RUN_DONE) |
		    (1u << STORE_RUN_SKIPPED), replay_run, &c, err);
	if (c.rc < 0) {
		*err = c.ferr;
		rc = c.rc;
	}
	for (i = 0; i < c.n; i++)
		free((char *)c.sm[i].metric);
	free(c.sm);
	free(c.m);
	return rc;
}

void
bisection_engine_params(const struct bisection *b,
    const struct config_metric *m, double min_change, struct engine_params *p)
{
	engine_params_default(p);
	p->confidence = b->confidence;
	if (b->max_samples > 0)
		p->max_samples = b->max_samples;
	p->min_change = min_change;
	if (m != NULL) {
		p->metric = m->kind == CONFIG_METRIC_PASS_FAIL ?
		    ENGINE_PASSFAIL : ENGINE_NUMERIC;
		p->direction = m->direction == CONFIG_HIGHER_IS_BETTER ? 1 : -1;
	}
}

const char *
bisection_subject(git_repository *repo, const char *sha, char *buf,
    size_t len)
{
	git_commit *c = NULL;
	git_oid oid;
	const char *s;

	buf[0] = '\0';
	if (repo == NULL || git_oid_fromstr(&oid, sha) < 0 ||
	    git_commit_lookup(&c, repo, &oid) < 0)
		return buf;
	s = git_commit_summary(c);
	snprintf(buf, len, "%s", s ? s : "");
	git_commit_free(c);
	/* Not UTF-8, or a character cut by len: a JSON reply refuses it. */
	return bd_utf8_fix(buf);
}
