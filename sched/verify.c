/* SPDX-License-Identifier: MIT */
/*
 * The checks of a culprit after the engine found it; see verify.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/stats.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "sched/bisection.h"
#include "sched/buildcache.h"
#include "sched/confirm.h"
#include "sched/sched.h"
#include "sched/sched_int.h"
#include "sched/verify.h"
#include "sched/verify_int.h"
#include "remote/cache.h"
#include "repo/revert.h"

/*
 * The report's evidence from the same diff: the functions it touches and
 * whom MAINTAINERS names for its paths.  Neither is needed for the
 * verdict, so a failure only leaves them out.
 */
static void
verify_evidence(git_repository *repo, struct verify *v)
{
	struct bd_error err;

	if (repo_touched_get(repo, &v->culprit, &v->touched, &err) < 0)
		return;
	repo_maint_get(repo, &v->culprit, (const char *const *)
	    v->touched.paths, v->touched.n_paths, &v->maint, &err);
}

/* Thread-pool side: the diff and the revert walk the object database. */
static void
verify_work(uv_work_t *w)
{
	struct verify *v = w->data;
	git_repository *repo = NULL;
	git_commit *c = NULL;
	int rc;

	if (git_repository_open(&repo, v->repo_path) < 0) {
		v->work_rc = bd_error_set(&v->work_err, -ENOENT, "cannot open "
		    "repository %s", v->repo_path);
		return;
	}
	if ((rc = repo_suspect(repo, &v->culprit, v->arch, &v->suspect,
	    &v->work_err)) < 0)
		goto out;
	verify_evidence(repo, v);
	if (git_commit_lookup(&c, repo, &v->culprit) == 0 &&
	    git_commit_parentcount(c) > 0)
		git_oid_tostr(v->parent_sha, sizeof(v->parent_sha),
		    git_commit_parent_id(c, 0));
	if (v->do_revert)
		rc = repo_revert_make(repo, &v->culprit, &v->b->bad, v->b->id,
		    &v->rv, &v->work_err);
out:
	v->work_rc = rc;
	git_commit_free(c);
	git_repository_free(repo);
}

static int
verify_collect(void *arg, const struct store_sample *sm)
{
	struct verify_values *c = arg;

	if (strcmp(sm->metric, c->b->rec.metric) != 0)
		return 0;
	if (c->good && bisection_commit_index(c->b, sm->commit) != ENGINE_GOOD)
		return 0;
	c->v = xreallocarray(c->v, c->n + 1, sizeof(double));
	c->v[c->n++] = sm->value;
	return 0;
}

/* The headline metric's values at sha, one a run (NULL: at the good
 * boundaries). */
void
verify_values(struct sched *s, const struct bisection *b, const char *sha,
    struct verify_values *out)
{
	struct bd_error err;

	memset(out, 0, sizeof(*out));
	out->b = b;
	out->good = sha == NULL;
	if (store_run_value_list(sched_store(s), b->id, sha, b->rec.metric,
	    bisection_agg_of, (void *)b, verify_collect, out, &err) < 0)
		log_warnx("bisection %" PRId64 ": %s", b->id, err.msg);
}

struct verify_count {
	const char	*sha;
	unsigned	 done, skipped;
};

static int
verify_count_run(void *arg, const struct store_run *r)
{
	struct verify_count *c = arg;

	if (strcmp(r->commit, c->sha) != 0)
		return 0;
	if (r->state == STORE_RUN_DONE)
		c->done++;
	else
		c->skipped++;
	return 0;
}

/* Stored results at sha, also those from before a restart. */
static void
verify_count(struct sched *s, struct verify *v, const char *sha,
    struct verify_count *c)
{
	struct bd_error err;

	memset(c, 0, sizeof(*c));
	c->sha = sha;
	store_run_list(sched_store(s), v->b->id, (1u << STORE_RUN_DONE) |
	    (1u << STORE_RUN_SKIPPED), verify_count_run, c, &err);
}

/* 1 when the builds table holds equal checksums for culprit and parent. */
static int
verify_noop(struct sched *s, struct verify *v)
{
	const struct config_benchmark *bc = config_benchmark_find(
	    sched_config(s), v->b->rec.benchmark);
	const char *group = config_build_group(sched_config(s),
	    v->b->rec.group);
	char *a = NULL, *p = NULL;
	int same;

	if (bc == NULL || v->parent_sha[0] == '\0' ||
	    buildcache_checksum(sched_store(s), group, bc,
	    v->b->rec.culprit ? v->b->rec.culprit : "", &a) < 0)
		return 0;
	same = buildcache_checksum(sched_store(s), group, bc,
	    v->parent_sha, &p) == 0 && strcmp(a, p) == 0;
	free(a);
	free(p);
	return same;
}

/* The suspicious flags in the report's words. */
static void
verify_suspicions(struct verify *v)
{
	unsigned bit;

	for (bit = 1; bit != 0 && v->rep.n_suspicions < 8; bit <<= 1)
		if ((v->suspect & bit) && repo_suspect_text(bit) != NULL)
			v->susp[v->rep.n_suspicions++] = repo_suspect_text(bit);
	v->rep.suspicions = v->susp;
}

/* The revert against bad and against the parent, with the engine's test. */
static void
verify_compare(struct sched *s, struct verify *v)
{
	struct bisection *b = v->b;
	struct verify_values rev, bad, par;
	struct stats_cmp cb, cp;

	verify_values(s, b, v->revert_sha, &rev);
	verify_values(s, b, b->rec.bad, &bad);
	verify_values(s, b, v->parent_sha[0] ? v->parent_sha : NULL, &par);
	if (par.n < 2) {
		free(par.v);
		verify_values(s, b, NULL, &par);
	}
	v->rsamples = rev.v;
	v->rep.revert_samples = rev.v;
	v->rep.n_revert_samples = rev.n;
	v->rep.restored = v->rep.back_pct = NAN;
	v->rep.p_bad = v->rep.p_parent = NAN;
	v->rep.revert = REPORT_REVERT_NOT_RESTORED;
	if (rev.n >= 2 && bad.n >= 2) {
		stats_compare(bad.v, bad.n, rev.v, rev.n, &cb);
		v->rep.p_bad = cb.p;
		if (cb.loc_a != 0)
			v->rep.back_pct = 100 * (cb.loc_b - cb.loc_a) /
			    fabs(cb.loc_a);
		if (par.n >= 2) {
			stats_compare(par.v, par.n, rev.v, rev.n, &cp);
			v->rep.p_parent = cp.p;
			if (cp.loc_a != cb.loc_a)
				v->rep.restored = (cb.loc_b - cb.loc_a) /
				    (cp.loc_a - cb.loc_a);
		}
		if (cb.p < VERIFY_ALPHA && isfinite(v->rep.restored) &&
		    v->rep.restored >= VERIFY_MIN_RESTORED)
			v->rep.revert = REPORT_REVERT_RESTORES;
	}
	free(bad.v);
	free(par.v);
}

/* The checks are over: the verdict goes to the store and the report out. */
void
verify_conclude(struct sched *s, struct verify *v)
{
	struct engine_action a;

	if (confirm_wait(s, v->b))
		return;
	v->phase = VERIFY_DONE;
	v->b->phase = BISECTION_ACTIVE;
	engine_next(&v->b->e, 0, &a);
	if (a.kind != ENGINE_DONE) {
		sched_fail(s, v->b, "the culprit was lost during verification");
		return;
	}
	sched_finish(s, v->b, &a);
}

/*
 * Submits runs at sha until want of them are done; 1 while some are still
 * to come, 0 when there are enough or no more can be had.
 */
static int
verify_runs_at(struct sched *s, struct verify *v, const char *sha,
    struct verify_count *c)
{
	struct bd_error err;

	verify_count(s, v, sha, c);
	/*
	 * As a probed commit is skipped: once its runs failed twice and
	 * more often than they succeeded, no more are asked for, so a
	 * commit that fails from some point on never loops.
	 */
	if (c->done >= v->want || (c->skipped >= 2 && c->skipped > c->done) ||
	    v->lost > VERIFY_MAX_LOST)
		return 0;
	while (c->done + v->inflight < v->want) {
		if (sched_run_extra(s, v->b, sha, &err) < 0) {
			log_warnx("bisection %" PRId64 ": %s", v->b->id,
			    err.msg);
			v->lost++;
			return v->inflight > 0;
		}
		v->inflight++;
	}
	return 1;
}

/*
 * Whether the culprit and bad still differ is only told with enough
 * samples at the culprit: a bisection may have stopped with two.  Where
 * those hint at a difference without showing one, the culprit and then
 * bad get VERIFY_MAX_RUNS runs each before the split is decided.
 */
static void
verify_topup(struct sched *s, struct verify *v)
{
	struct verify_count c;

	if (verify_runs_at(s, v, v->b->rec.culprit, &c))
		return;
	if (v->want < VERIFY_MAX_RUNS && verify_split_unsure(s, v)) {
		v->want = VERIFY_MAX_RUNS;
		v->lost = 0;
		if (verify_runs_at(s, v, v->b->rec.culprit, &c))
			return;
	}
	if (v->want >= VERIFY_MAX_RUNS &&
	    verify_runs_at(s, v, v->b->rec.bad, &c))
		return;
	if (!verify_split_start(s, v))
		verify_conclude(s, v);
}

/* After the revert: the other culprits, if any, then the verdict. */
static void
verify_checked(struct sched *s, struct verify *v)
{
	struct verify_values cul;

	verify_values(s, v->b, v->b->rec.culprit, &cul);
	free(cul.v);
	if (v->b->parent_id == 0 && (cul.n < VERIFY_MIN_RUNS ||
	    verify_split_unsure(s, v))) {
		v->phase = VERIFY_TOPUP;
		v->want = cul.n < VERIFY_MIN_RUNS ? VERIFY_MIN_RUNS :
		    VERIFY_MAX_RUNS;
		v->lost = 0;
		verify_topup(s, v);
		return;
	}
	if (!verify_split_start(s, v))
		verify_conclude(s, v);
}

/* Submits what is missing of the runs at the revert. */
static void
verify_sample(struct sched *s, struct verify *v)
{
	struct verify_count c;
	int more = verify_runs_at(s, v, v->revert_sha, &c);

	v->rep.revert_runs = c.done + c.skipped;
	if (more)
		return;
	if (c.done < 2)
		v->rep.revert = REPORT_REVERT_UNBUILDABLE;
	else
		verify_compare(s, v);
	verify_checked(s, v);
}

/* Back on the loop: sample the revert, or conclude at once. */
static void
verify_work_done(uv_work_t *w, int status)
{
	struct verify *v = w->data;
	struct sched *s = v->b->s;
	struct verify_values bad;
	size_t i;

	if (s->stopping || v->b->phase != BISECTION_VERIFYING)
		return;
	if (status < 0 || v->work_rc < 0) {
		log_warnx("bisection %" PRId64 ": verification: %s", v->b->id,
		    status < 0 ? uv_strerror(status) : v->work_err.msg);
		v->do_revert = 0;
	}
	verify_suspicions(v);
	v->rep.noop = verify_noop(s, v);
	if (!v->do_revert) {
		verify_checked(s, v);
		return;
	}
	if (!v->rv.applied) {
		v->rep.revert = REPORT_REVERT_CONFLICTS;
		v->rep.conflicts = (const char *const *)v->rv.conflicts;
		v->rep.n_conflicts = v->rv.nconflicts;
		v->rep.n_conflicts_total = v->rv.nconflicts_total;
		for (i = 0; i < v->rv.nconflicts; i++)
			log_info("bisection %" PRId64 ": the revert conflicts "
			    "in %s", v->b->id, v->rv.conflicts[i]);
		verify_checked(s, v);
		return;
	}
	git_oid_tostr(v->revert_sha, sizeof(v->revert_sha), &v->rv.commit);
	v->rep.revert_sha = v->revert_sha;
	verify_values(s, v->b, v->b->rec.bad, &bad);
	v->want = bad.n < VERIFY_MIN_RUNS ? VERIFY_MIN_RUNS :
	    bad.n > VERIFY_MAX_RUNS ? VERIFY_MAX_RUNS : (unsigned)bad.n;
	free(bad.v);
	log_info("bisection %" PRId64 ": verifying %s with its revert %s on "
	    "top of bad, %u runs", v->b->id, v->b->rec.culprit ?
	    v->b->rec.culprit : "", v->revert_sha, v->want);
	v->phase = VERIFY_SAMPLING;
	verify_sample(s, v);
}

/*
 * The culprit's sha must be known to the checks before the verdict is
 * stored: it is kept in the bisection's record from the engine's answer.
 */
int
verify_start(struct sched *s, struct bisection *b,
    const struct engine_action *a)
{
	const struct config *cfg = sched_config(s);
	const struct config_benchmark *bc = config_benchmark_find(cfg,
	    b->rec.benchmark);
	struct verify *v;
	char sha[GIT_OID_HEXSZ + 1];
	int rc;

	if (a->kind != ENGINE_DONE || b->verify != NULL || bc == NULL ||
	    cfg->repo.path == NULL)
		return 0;
	v = b->verify = xcalloc(1, sizeof(*v));
	v->b = b;
	v->repo_path = xstrdup(cfg->repo.path);
	v->arch = xstrdup(bc->arch ? bc->arch : "x86");
	/* A child bisection's culprit is checked by its parent's revert. */
	v->do_revert = bc->verify == CONFIG_VERIFY_REVERT && b->parent_id == 0;
	graph_oid_tostr(sha, sizeof(sha), &b->g.oids[a->culprit]);
	git_oid_fromstr(&v->culprit, sha);
	free((char *)b->rec.culprit);
	b->rec.culprit = xstrdup(sha);
	v->work.data = v;
	b->phase = BISECTION_VERIFYING;
	if ((rc = uv_queue_work(s->env.loop, &v->work, verify_work,
	    verify_work_done)) < 0) {
		log_warnx("bisection %" PRId64 ": no verification: %s", b->id,
		    uv_strerror(rc));
		v->phase = VERIFY_DONE;
		b->phase = BISECTION_ACTIVE;
		return 0;
	}
	sched_emit(s, "verifying", json_pack("{s:I, s:s}", "bisection",
	    (json_int_t)b->id, "culprit", sha));
	return 1;
}

void
verify_run_ended(struct bisection *b)
{
	struct verify *v = b->verify;

	if (v == NULL || b->phase != BISECTION_VERIFYING ||
	    (v->phase != VERIFY_SAMPLING && v->phase != VERIFY_TOPUP))
		return;
	if (v->inflight > 0)
		v->inflight--;
	if (v->phase == VERIFY_TOPUP)
		verify_topup(b->s, v);
	else
		verify_sample(b->s, v);
}

/* A build identical to its parent's is no culprit unless its revert says so. */
void
verify_adjust(const struct bisection *b, struct store_verdict_info *v)
{
	const struct verify *vf = b->verify;

	if (vf == NULL || !vf->rep.noop || v->verdict != STORE_VERDICT_CULPRIT ||
	    vf->rep.revert == REPORT_REVERT_RESTORES)
		return;
	v->verdict = STORE_VERDICT_INCONCLUSIVE;
	v->culprit = NULL;
}

const struct repo_touched *
verify_touched(const struct bisection *b)
{
	return b->verify != NULL && b->verify->phase == VERIFY_DONE ?
	    &b->verify->touched : NULL;
}

const struct repo_maint *
verify_maint(const struct bisection *b)
{
	return b->verify != NULL && b->verify->phase == VERIFY_DONE ?
	    &b->verify->maint : NULL;
}

const struct report_verification *
verify_report(const struct bisection *b)
{
	return b->verify != NULL && b->verify->phase == VERIFY_DONE ?
	    &b->verify->rep : NULL;
}

size_t
verify_runs(const struct bisection *b)
{
	return b->verify != NULL ? b->verify->rep.revert_runs : 0;
}

static const char *const verify_phase_names[] = {
	[VERIFY_PREPARING] = "preparing",
	[VERIFY_SAMPLING] = "sampling-revert",
	[VERIFY_TOPUP] = "sampling-culprit",
	[VERIFY_SPLITTING] = "bisecting-sub-ranges",
	[VERIFY_CONFIRMING] = "confirming-on-groups",
	[VERIFY_DONE] = "done",
};

json_t *
verify_status_json(const struct bisection *b)
{
	const struct verify *v = b->verify;
	json_t *o;

	if (v == NULL)
		return NULL;
	o = json_pack("{s:s, s:I, s:I}", "phase", verify_phase_names[v->phase],
	    "runs", (json_int_t)v->rep.revert_runs, "want",
	    (json_int_t)v->want);
	if (v->revert_sha[0] != '\0')
		json_object_set_new(o, "revert", json_string(v->revert_sha));
	if (v->nchild > 0) {
		json_t *a = json_array();
		size_t i;

		for (i = 0; i < v->nchild; i++)
			json_array_append_new(a, json_integer(v->child[i]));
		json_object_set_new(o, "children", a);
	}
	json_object_set_new(o, "culprits", json_integer(
	    (json_int_t)v->nshares));
	if (v->phase == VERIFY_DONE)
		json_object_set_new(o, "result", json_string(
		    report_revert_name(v->rep.revert)));
	json_object_set_new(o, "noop", json_boolean(v->rep.noop));
	json_object_set_new(o, "suspicious", json_integer(
	    (json_int_t)v->rep.n_suspicions));
	return o;
}

void
verify_free(struct verify *v)
{
	if (v == NULL)
		return;
	repo_revert_release(&v->rv);
	repo_touched_release(&v->touched);
	repo_maint_release(&v->maint);
	free(v->rsamples);
	free(v->repo_path);
	free(v->arch);
	free(v);
}
