/* SPDX-License-Identifier: MIT */
/*
 * More than one culprit: when the verdict's culprit explains too little of
 * the range's change, or the culprit and bad still differ, the remaining
 * sub-ranges (culprit..bad, and good..parent when the parent differs from
 * good) are bisected as child bisections within what is left of the
 * budget, and every culprit found is reported with its share.
 *
 * A child is an ordinary bisection whose stored params name its parent,
 * so after a restart the parent finds the children it already has.
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
#include "sched/confirm.h"
#include "sched/sched.h"
#include "sched/sched_int.h"
#include "sched/verify.h"
#include "sched/verify_int.h"

/* A sub-range is bisected only with at least this many samples for it. */
#define SPLIT_MIN_BUDGET	12
/* Two levels differ when the test says so at this level... */
#define SPLIT_ALPHA		0.01
/*
 * A culprit and bad that do not differ at SPLIT_ALPHA but at this level
 * leave a second culprit between them open: both get VERIFY_MAX_RUNS runs
 * before the split is decided.  With the runs a bisection leaves, one
 * with 40% of the change was missed in 2 of 8 runs of the verify test.
 */
#define SPLIT_HINT		0.25

/* Robust level of a sample set (the engine's test's location). */
static double
split_level(const struct verify_values *v, const struct verify_values *ref)
{
	struct stats_cmp c;

	if (v->n < 2 || ref->n < 2)
		return NAN;
	stats_compare(ref->v, ref->n, v->v, v->n, &c);
	return c.loc_b;
}

/* 1 when a and b differ significantly by at least min_change. */
static int
split_differ(const struct verify_values *a, const struct verify_values *b,
    double min_change)
{
	struct stats_cmp c;

	if (a->n < 2 || b->n < 2)
		return 0;
	stats_compare(a->v, a->n, b->v, b->n, &c);
	return c.p < SPLIT_ALPHA && c.loc_a != 0 &&
	    fabs(c.loc_b - c.loc_a) / fabs(c.loc_a) >= min_change;
}

int
verify_split_unsure(struct sched *s, struct verify *v)
{
	struct bisection *b = v->b;
	struct verify_values cul, bad;
	struct stats_cmp c;
	int unsure = 0;

	if (b->parent_id != 0 || b->rec.culprit == NULL ||
	    strcmp(b->rec.culprit, b->rec.bad) == 0)
		return 0;
	verify_values(s, b, b->rec.culprit, &cul);
	verify_values(s, b, b->rec.bad, &bad);
	if (cul.n >= 2 && bad.n >= 2) {
		stats_compare(cul.v, cul.n, bad.v, bad.n, &c);
		unsure = !(c.p < SPLIT_ALPHA) && c.p < SPLIT_HINT;
	}
	free(cul.v);
	free(bad.v);
	return unsure;
}

struct split_find {
	int64_t		 parent;
	const char	*good, *bad;
	int64_t		 found;
};

/* A child of this parent and range from before a restart. */
static int
split_find_cb(void *arg, const struct store_bisection *rec)
{
	struct split_find *f = arg;
	json_t *p = json_loads(rec->params ? rec->params : "{}", 0, NULL);

	if (json_integer_value(json_object_get(p, "parent")) == f->parent &&
	    rec->ngood == 1 && strcmp(rec->good[0], f->good) == 0 &&
	    strcmp(rec->bad, f->bad) == 0)
		f->found = rec->id;
	json_decref(p);
	return 0;
}

/* Starts (or finds again) the child bisecting good..bad. */
static int
split_child(struct sched *s, struct verify *v, const char *good,
    const char *bad, int64_t budget)
{
	struct bisection *b = v->b;
	struct split_find f = { b->id, good, bad, 0 };
	struct sched_request r;
	struct bd_error err;
	const char *goods[1] = { good };
	int existing;

	store_bisection_list(sched_store(s), ~0u, split_find_cb, &f, &err);
	if (f.found == 0) {
		memset(&r, 0, sizeof(r));
		r.good = goods;
		r.ngood = 1;
		r.bad = bad;
		r.benchmark = b->rec.benchmark;
		r.metric = b->rec.metric;
		r.group = b->rec.group;
		r.confidence = b->confidence;
		r.has_confidence = 1;
		r.max_samples = budget;
		r.has_max_samples = 1;
		r.first_parent = b->first_parent;
		r.priority = b->priority;
		r.uid = (uid_t)b->rec.created_by;
		r.parent = b->id;
		if (sched_bisect(s, &r, &f.found, &existing, &err) < 0) {
			log_warnx("bisection %" PRId64 ": cannot bisect %s..%s: "
			    "%s", b->id, good, bad, err.msg);
			return -1;
		}
	}
	log_info("bisection %" PRId64 ": bisecting %.12s..%.12s as %" PRId64
	    " for another culprit", b->id, good, bad, f.found);
	v->child[v->nchild++] = f.found;
	return 0;
}

/* The share of the range's change made between from and to. */
static double
split_share(struct sched *s, const struct bisection *owner, const char *from,
    const char *to, const struct verify *v)
{
	struct verify_values a, c;
	double share = NAN;

	verify_values(s, owner, from, &a);
	verify_values(s, owner, to, &c);
	if (a.n >= 2 && c.n >= 2 && isfinite(v->range))
		share = (split_level(&c, &a) - split_level(&a, &c)) / v->range;
	free(a.v);
	free(c.v);
	return share;
}

/* Adds a culprit with its share to the report's list. */
static void
split_add(struct sched *s, struct verify *v, const char *sha, double share)
{
	struct verify_share *vs;

	if (v->nshares >= VERIFY_MAX_SHARES)
		return;
	vs = &v->shares[v->nshares++];
	snprintf(vs->sha, sizeof(vs->sha), "%s", sha);
	bisection_subject(sched_repo(s), sha, vs->subject,
	    sizeof(vs->subject));
	v->rep_shares[v->nshares - 1].sha = vs->sha;
	v->rep_shares[v->nshares - 1].subject = vs->subject;
	v->rep_shares[v->nshares - 1].share = share;
	v->rep.culprits = v->rep_shares;
	v->rep.n_culprits = v->nshares;
}

int
verify_split_start(struct sched *s, struct verify *v)
{
	struct bisection *b = v->b;
	const struct config_benchmark *bc = config_benchmark_find(
	    sched_config(s), b->rec.benchmark);
	struct verify_values good, bad, cul, par;
	struct engine_params ep;
	struct engine_status es;
	const char *parent = v->parent_sha[0] ? v->parent_sha : NULL;
	int64_t budget;
	double share, min_change = bc ? bc->min_change : 0.01;
	int upper, lower;
	char goodsha[GIT_OID_HEXSZ + 1];

	if (b->parent_id != 0 || b->rec.culprit == NULL || b->ngoods == 0)
		return 0;
	git_oid_tostr(goodsha, sizeof(goodsha), &b->goods[0]);
	verify_values(s, b, NULL, &good);
	verify_values(s, b, b->rec.bad, &bad);
	verify_values(s, b, b->rec.culprit, &cul);
	verify_values(s, b, parent, &par);
	if (par.n < 2) {
		free(par.v);
		verify_values(s, b, NULL, &par);
	}
	v->range = split_level(&bad, &good) - split_level(&good, &bad);
	share = split_share(s, b, parent, b->rec.culprit, v);
	split_add(s, v, b->rec.culprit, share);
	upper = strcmp(b->rec.culprit, b->rec.bad) != 0 &&
	    (split_differ(&cul, &bad, min_change) ||
	    (isfinite(share) && share < VERIFY_MIN_SHARE));
	/*
	 * A culprit short of VERIFY_MIN_SHARE leaves the rest on either side
	 * of it: the found one may be the later of two.
	 */
	lower = parent != NULL && strcmp(parent, goodsha) != 0 &&
	    bisection_commit_index(b, parent) != ENGINE_GOOD &&
	    (split_differ(&good, &par, min_change) ||
	    (isfinite(share) && share < VERIFY_MIN_SHARE));
	free(good.v);
	free(bad.v);
	free(cul.v);
	free(par.v);
	if (!upper && !lower)
		return 0;
	engine_params_default(&ep);
	engine_status(&b->e, &es);
	budget = (int64_t)(b->max_samples ? b->max_samples : ep.max_samples) -
	    (int64_t)es.samples - (int64_t)v->rep.revert_runs;
	budget /= upper + lower;
	if (budget < SPLIT_MIN_BUDGET) {
		log_info("bisection %" PRId64 ": another culprit may lie in "
		    "the range, but the budget is spent", b->id);
		return 0;
	}
	if (upper)
		split_child(s, v, b->rec.culprit, b->rec.bad, budget);
	if (lower)
		split_child(s, v, goodsha, parent, budget);
	if (v->nchild == 0)
		return 0;
	v->phase = VERIFY_SPLITTING;
	verify_split_check(s, v);
	return 1;
}

/* The culprits of the finished children join the list. */
static void
split_collect(struct sched *s, struct verify *v)
{
	struct bisection *c;
	struct bd_error err;
	git_commit *cc = NULL;
	git_oid oid;
	char psha[GIT_OID_HEXSZ + 1];
	size_t i;

	for (i = 0; i < v->nchild; i++) {
		if ((c = sched_find(s, v->child[i], &err)) == NULL ||
		    c->rec.verdict != STORE_VERDICT_CULPRIT ||
		    c->rec.culprit == NULL)
			continue;
		psha[0] = '\0';
		if (git_oid_fromstr(&oid, c->rec.culprit) == 0 &&
		    git_commit_lookup(&cc, sched_repo(s), &oid) == 0 &&
		    git_commit_parentcount(cc) > 0)
			git_oid_tostr(psha, sizeof(psha),
			    git_commit_parent_id(cc, 0));
		git_commit_free(cc);
		cc = NULL;
		split_add(s, v, c->rec.culprit, psha[0] ? split_share(s, c,
		    psha, c->rec.culprit, v) : NAN);
	}
}

void
verify_split_check(struct sched *s, struct verify *v)
{
	struct bisection *c;
	struct bd_error err;
	size_t i;

	if (v->phase != VERIFY_SPLITTING)
		return;
	for (i = 0; i < v->nchild; i++)
		if ((c = sched_find(s, v->child[i], &err)) != NULL &&
		    c->phase != BISECTION_FINISHED)
			return;
	split_collect(s, v);
	verify_conclude(s, v);
}

void
verify_child_ended(struct sched *s, struct bisection *child)
{
	struct bisection *b;

	confirm_child_ended(s, child);
	if (child->parent_id == 0)
		return;
	TAILQ_FOREACH(b, &s->active, entry)
		if (b->id == child->parent_id && b->verify != NULL &&
		    b->phase == BISECTION_VERIFYING) {
			verify_split_check(s, b->verify);
			return;
		}
}

void
verify_cancel_children(struct sched *s, struct bisection *b)
{
	struct bd_error err;
	size_t i;

	confirm_cancel_children(s, b);
	if (b->verify == NULL)
		return;
	for (i = 0; i < b->verify->nchild; i++)
		if (sched_cancel(s, b->verify->child[i], &err) < 0)
			log_debug("bisection %" PRId64 ": child %" PRId64 ": %s",
			    b->id, b->verify->child[i], err.msg);
}
