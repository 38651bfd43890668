/* SPDX-License-Identifier: MIT */
/*
 * Build first, then the lab (see remote/labbuild.h): runs wait for one
 * build of their commit on the builder, then go to the lab with where the
 * artifact is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/queue.h"
#include "common/xmalloc.h"
#include "remote/labbuild.h"

struct labbuild_run;
TAILQ_HEAD(labbuild_run_list, labbuild_run);

/* One build on the builder and the runs waiting for it. */
struct labbuild_build {
	struct labbuild	*lb;
	struct cache_key key;			/* strings below */
	char		*commit, *tree;
	struct backend_run *run;		/* the builder's; NULL once over */
	struct labbuild_run_list waiters;
	int		 outcome;		/* -1: none recorded yet */
	struct step_result res;			/* a failed build, to record */
	char		*host, *artifact;
	TAILQ_ENTRY(labbuild_build) entry;
};
TAILQ_HEAD(labbuild_build_list, labbuild_build);

struct labbuild {
	struct backend	 be;
	struct backend	*builder;		/* owned */
	struct backend	*lab;			/* borrowed */
	char		*build_group;
	char		 trouble[BD_ERROR_MAX];
	struct labbuild_build_list builds;
};

struct labbuild_run {
	struct backend_run base;		/* first */
	struct labbuild	*lb;
	struct labbuild_build *build;		/* while it waits for one */
	struct backend_run *lab;		/* once the lab has it */
	/* The caller's spec; its strings point at the copies below. */
	struct backend_spec spec;
	char		*commit, *tree, *run_id, *group, *log_dir, *lab_job;
	int		 stopped;		/* cancelled while its build stops */
	char		*cached;		/* on a cache hit: whose copy */
	struct cache_key key;			/* its commit is commit above */
	backend_done_cb	*done;
	void		*done_arg;
	TAILQ_ENTRY(labbuild_run) entry;	/* in build->waiters */
};

static char *
labbuild_dup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static void
labbuild_run_free(struct labbuild_run *r)
{
	free(r->commit);
	free(r->tree);
	free(r->run_id);
	free(r->group);
	free(r->log_dir);
	free(r->lab_job);
	free(r->cached);
	free(r);
}

/* The handle goes before the caller hears the end. */
static void
labbuild_end(struct labbuild_run *r, const struct step_result *last,
    unsigned attempts)
{
	backend_done_cb *done = r->done;
	void *arg = r->done_arg;

	labbuild_run_free(r);
	done(arg, last, attempts);
}

/* Ends a run that never reached the lab with outcome o and msg. */
static void
labbuild_end_with(struct labbuild_run *r, enum step_outcome o,
    const char *host, const char *msg, unsigned attempts)
{
	struct step_result last;

	memset(&last, 0, sizeof(last));
	last.outcome = o;
	last.phase = STEP_PHASE_BUILD;
	last.host = host;
	bd_error_set(&last.err, o == STEP_OK ? 0 : -EIO, "%s", msg);
	labbuild_end(r, &last, attempts);
}

/*
 * A lab that could not run a job on a cached artifact may have found it
 * gone (a build host wiped, its file server moved): the cache forgets it,
 * so the next attempt builds it again.  When the lab was at fault, that
 * costs one build.
 */
static void
labbuild_lab_done(void *arg, const struct step_result *last,
    unsigned attempts)
{
	struct labbuild_run *r = arg;

	if (r->cached != NULL && last->outcome == STEP_INFRA)
		cache_forget(r->spec.cache, &r->key, r->cached);
	labbuild_end(r, last, attempts);
}

/* The run goes to the lab with where its artifact is (NULL: not built). */
static int
labbuild_to_lab(struct labbuild_run *r, const char *artifact,
    const char *host, struct bd_error *err)
{
	struct backend_spec spec = r->spec;

	spec.artifact = artifact;
	spec.build_host = host;
	return backend_submit(r->lb->lab, &spec, labbuild_lab_done, r,
	    &r->lab, err);
}

static void
labbuild_build_free(struct labbuild_build *b)
{
	free(b->commit);
	free(b->tree);
	free(b->host);
	free(b->artifact);
	free(b);
}

/* The builder's result: kept until the build is over. */
static void
labbuild_build_record(void *arg, const struct step_result *r,
    const char *host)
{
	struct labbuild_build *b = arg;

	b->outcome = r->outcome;
	free(b->host);
	b->host = labbuild_dup(host);
	free(b->artifact);
	b->artifact = labbuild_dup(r->artifact);
	memset(&b->res, 0, sizeof(b->res));
	b->res.outcome = r->outcome;
	b->res.phase = STEP_PHASE_BUILD;
	b->res.built = r->built;
	b->res.err = r->err;
}

/* Hands the build's end to every run waiting for it. */
static void
labbuild_build_done(void *arg, const struct step_result *last,
    unsigned attempts)
{
	struct labbuild_build *b = arg;
	struct labbuild_run *r;
	struct bd_error err;
	char msg[BD_ERROR_MAX];

	b->run = NULL;
	TAILQ_REMOVE(&b->lb->builds, b, entry);
	/* A waiter's end may cancel another: always take the first. */
	while ((r = TAILQ_FIRST(&b->waiters)) != NULL) {
		TAILQ_REMOVE(&b->waiters, r, entry);
		r->build = NULL;
		if (r->stopped)
			labbuild_end_with(r, STEP_CANCELLED, NULL, "cancelled "
			    "while building", attempts);
		else if (b->outcome == STEP_OK && last->outcome == STEP_OK) {
			if (labbuild_to_lab(r, b->artifact, b->host, &err) < 0)
				labbuild_end_with(r, STEP_INFRA, NULL, err.msg,
				    attempts);
		} else if (b->outcome == STEP_FAILED) {
			b->res.host = b->host;
			r->spec.record(r->spec.arg, &b->res, b->host);
			snprintf(msg, sizeof(msg), "%s", b->res.err.msg);
			labbuild_end_with(r, STEP_FAILED, NULL, msg, attempts);
		} else
			labbuild_end(r, last, attempts);
	}
	labbuild_build_free(b);
}

/* A phase of a shared build: each run waiting for it hears of it. */
static void
labbuild_build_progress(void *arg, enum step_phase phase, const char *host)
{
	struct labbuild_build *b = arg;
	struct labbuild_run *r;

	TAILQ_FOREACH(r, &b->waiters, entry)
		if (r->spec.progress != NULL)
			r->spec.progress(r->spec.arg, phase, host);
}

/* The build of r's commit under way, or a new one; NULL when it fails. */
static struct labbuild_build *
labbuild_build_for(struct labbuild *lb, struct labbuild_run *r,
    const struct cache_key *k, struct bd_error *err)
{
	struct labbuild_build *b;
	struct backend_spec spec;

	/* The same commit with fix-ups is another tree: another build. */
	TAILQ_FOREACH(b, &lb->builds, entry)
		if (cache_key_eq(&b->key, k))
			return b;
	b = xcalloc(1, sizeof(*b));
	b->lb = lb;
	b->commit = xstrdup(r->commit);
	b->tree = labbuild_dup(r->tree);
	b->key = *k;
	b->key.commit = b->commit;
	b->key.tree = b->tree;
	b->key.group = lb->build_group;
	b->outcome = -1;
	TAILQ_INIT(&b->waiters);
	/* The run's own spec, on the build group, reporting here. */
	spec = r->spec;
	spec.group = lb->build_group;
	spec.max_attempts = 0;
	spec.lab_job = NULL;
	spec.resumed = 0;
	spec.record = labbuild_build_record;
	spec.job = NULL;
	/* Its phases are told to every run waiting for it, not to the
	 * first run's argument, which the build may outlive. */
	spec.progress = labbuild_build_progress;
	spec.arg = b;
	if (backend_submit(lb->builder, &spec, labbuild_build_done, b,
	    &b->run, err) < 0) {
		labbuild_build_free(b);
		return NULL;
	}
	TAILQ_INSERT_TAIL(&lb->builds, b, entry);
	return b;
}

static int
labbuild_submit(struct backend *be, const struct backend_spec *spec,
    backend_done_cb *cb, void *arg, struct backend_run **out,
    struct bd_error *err)
{
	struct labbuild *lb = be->impl;
	struct labbuild_run *r = xcalloc(1, sizeof(*r));
	struct cache_key k;
	struct cache_hit hit;
	int rc;

	r->base.be = be;
	r->lb = lb;
	r->spec = *spec;
	r->spec.commit = r->commit = xstrdup(spec->commit);
	r->spec.tree = r->tree = labbuild_dup(spec->tree);
	r->spec.run_id = r->run_id = xstrdup(spec->run_id);
	r->spec.group = r->group = labbuild_dup(spec->group);
	r->spec.log_dir = r->log_dir = labbuild_dup(spec->log_dir);
	r->spec.lab_job = r->lab_job = labbuild_dup(spec->lab_job);
	r->done = cb;
	r->done_arg = arg;
	*out = &r->base;
	if (spec->bench->build == NULL) {
		rc = labbuild_to_lab(r, NULL, NULL, err);
		goto out;
	}
	cache_key_init(&k, lb->build_group, spec->bench, r->commit, r->tree);
	if (cache_lookup(spec->cache, &k, &hit) == 0) {
		r->cached = xstrdup(hit.copies[0].host);
		r->key = k;
		rc = labbuild_to_lab(r, hit.copies[0].artifact,
		    hit.copies[0].host, err);
		cache_hit_release(&hit);
		goto out;
	}
	if ((r->build = labbuild_build_for(lb, r, &k, err)) == NULL) {
		rc = err->code < 0 ? err->code : -EIO;
		goto out;
	}
	TAILQ_INSERT_TAIL(&r->build->waiters, r, entry);
	rc = 0;
out:
	if (rc < 0) {
		labbuild_run_free(r);
		*out = NULL;
	}
	return rc;
}

/*
 * A run still waiting for its build leaves it at once while others wait
 * too.  The last one stops the build and ends with it, so the run is not
 * over before the work on the build host is: the scheduler tears the
 * pool down only once every run has ended.  The build (and the run) may
 * end inside stopping it, so neither is touched after.
 */
static void
labbuild_leave(struct labbuild_run *r, int detach, const char *why)
{
	struct labbuild_build *b = r->build;

	if (TAILQ_FIRST(&b->waiters) == r && TAILQ_NEXT(r, entry) == NULL &&
	    b->run != NULL) {
		if (r->stopped)
			return;
		r->stopped = 1;
		if (detach)
			backend_detach(b->run);
		else
			backend_cancel(b->run);
		return;
	}
	TAILQ_REMOVE(&b->waiters, r, entry);
	r->build = NULL;
	labbuild_end_with(r, STEP_CANCELLED, NULL, why, 0);
}

static void
labbuild_cancel(struct backend_run *br)
{
	struct labbuild_run *r = (struct labbuild_run *)br;

	if (r->build != NULL)
		labbuild_leave(r, 0, "cancelled while building");
	else if (r->lab != NULL)
		backend_cancel(r->lab);
	/* Otherwise its build just ended and it is ending too. */
}

static void
labbuild_detach(struct backend_run *br)
{
	struct labbuild_run *r = (struct labbuild_run *)br;

	if (r->build != NULL)
		labbuild_leave(r, 1, "stopped while building");
	else if (r->lab != NULL)
		backend_detach(r->lab);
}

/* The build host while building, the lab after; NULL while waiting. */
static const char *
labbuild_where(const struct backend_run *br)
{
	const struct labbuild_run *r = (const struct labbuild_run *)br;

	if (r->build != NULL)
		return r->build->run != NULL ? backend_where(r->build->run) :
		    NULL;
	return r->lab != NULL ? backend_where(r->lab) : NULL;
}

/* Runs on a build host right now: they take lab slots soon. */
static unsigned
labbuild_building(struct labbuild *lb)
{
	struct labbuild_build *b;
	struct labbuild_run *r;
	unsigned n = 0;

	TAILQ_FOREACH(b, &lb->builds, entry)
		if (b->run != NULL && backend_where(b->run) != NULL)
			TAILQ_FOREACH(r, &b->waiters, entry)
				n++;
	return n;
}

/* No slot while no build host can build. */
static unsigned
labbuild_free_slots(struct backend *be, const char *group)
{
	struct labbuild *lb = be->impl;
	unsigned n, busy;

	if (lb->builder->ops->capacity(lb->builder, lb->build_group) == 0)
		return 0;
	n = lb->lab->ops->free_slots(lb->lab, group);
	busy = labbuild_building(lb);
	return n > busy ? n - busy : 0;
}

static unsigned
labbuild_capacity(struct backend *be, const char *group)
{
	struct labbuild *lb = be->impl;

	return lb->lab->ops->capacity(lb->lab, group);
}

/* The lab's trouble first, else build hosts that cannot build. */
static const char *
labbuild_trouble(struct backend *be, const char *group)
{
	struct labbuild *lb = be->impl;
	const char *t = lb->lab->ops->trouble(lb->lab, group);

	if (*t != '\0')
		return t;
	if (lb->builder->ops->capacity(lb->builder, lb->build_group) > 0)
		return "";
	snprintf(lb->trouble, sizeof(lb->trouble), "no usable build host in "
	    "build_group %s", lb->build_group);
	return lb->trouble;
}

static void
labbuild_free(struct backend *be)
{
	struct labbuild *lb = be->impl;

	lb->builder->ops->free(lb->builder);
	free(lb->build_group);
	free(lb);
}

static const struct backend_ops labbuild_ops = {
	.kind = "lab-build",
	.submit = labbuild_submit,
	.cancel = labbuild_cancel,
	.detach = labbuild_detach,
	.where = labbuild_where,
	.free_slots = labbuild_free_slots,
	.capacity = labbuild_capacity,
	.trouble = labbuild_trouble,
	.free = labbuild_free,
};

struct backend *
labbuild_new(struct backend *builder, const char *build_group,
    struct backend *lab)
{
	struct labbuild *lb = xcalloc(1, sizeof(*lb));

	lb->be.ops = &labbuild_ops;
	lb->be.impl = lb;
	lb->builder = builder;
	lb->lab = lab;
	lb->build_group = xstrdup(build_group);
	TAILQ_INIT(&lb->builds);
	return &lb->be;
}
