/* SPDX-License-Identifier: MIT */
/*
 * Probes with fix-ups: the patched commit is made on the thread pool
 * (repo/fixup.c), then the probe's job builds it.  A fix-up that
 * conflicts, or that touches a file the candidates touch, makes the run a
 * skip with the reason; the engine sees the probed commit either way.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/names.h"
#include "common/xmalloc.h"
#include "repo/fixup.h"
#include "sched/bisection.h"
#include "sched/sched_int.h"
#include "sched/verify.h"

struct sched_fixup {
	uv_work_t		 w;
	struct sched		*s;
	struct bisection_probe	*p;
	int			 resumed;
	int64_t			 p_run;		/* p's, for a failed submit */
	uint32_t		 p_commit;
	char			*repo_path;
	char			**specs;
	size_t			 nspecs;
	git_oid			 probed, bad, *goods;
	size_t			 ngoods;
	struct repo_fixup_result r;
	int			 rc;
	struct bd_error		 err;
};

/* The request's fix-ups, then the benchmark's; *out (may be NULL) lists. */
size_t
sched_fixup_specs(struct sched *s, const struct bisection *b, char ***out)
{
	const struct config *cfg = sched_config(s);
	const struct config_benchmark *bench =
	    config_benchmark_find(cfg, b->rec.benchmark);
	size_t i, n = 0;

	if (out != NULL)
		*out = xcalloc(REPO_FIXUP_MAX + 1, sizeof(**out));
	for (i = 0; i < b->nfixups && n < REPO_FIXUP_MAX; i++, n++)
		if (out != NULL)
			(*out)[n] = xstrdup(b->fixups[i]);
	for (i = 0; i < b->nauto_fixups && n < REPO_FIXUP_MAX; i++, n++)
		if (out != NULL)
			(*out)[n] = xstrdup(b->auto_fixups[i]);
	n += names_split(bench != NULL ? bench->fixups : NULL,
	    out != NULL ? *out + n : NULL, REPO_FIXUP_MAX - n);
	return n;
}

/* Whether sha (full hex) was found for a failing commit. */
static int
sched_fixup_is_auto(const struct bisection *b, const char *sha)
{
	size_t i;

	for (i = 0; i < b->nauto_fixups; i++)
		if (strcmp(b->auto_fixups[i], sha) == 0)
			return 1;
	return 0;
}

/* A run's timings, and what it built when fix-ups were picked onto it. */
char *
sched_timings(const struct bisection_probe *p, int64_t wall_ms, int built,
    const char *phase, const char *skip)
{
	json_t *o = json_pack("{s:I, s:b, s:s}", "wall_ms", (json_int_t)wall_ms,
	    "built", built, "phase", phase);
	char *text;

	if (p->fixups != NULL && json_array_size(p->fixups) > 0) {
		json_object_set(o, "fixups", p->fixups);
		json_object_set_new(o, "built_commit", json_string(p->built));
		if (p->auto_fixups != NULL &&
		    json_array_size(p->auto_fixups) > 0)
			json_object_set(o, "auto_fixups", p->auto_fixups);
	}
	if (skip != NULL)
		json_object_set_new(o, "fixup_skip", json_string(skip));
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}

/* Thread-pool side: the cherry-picks walk the object database. */
static void
sched_fixup_work(uv_work_t *w)
{
	struct sched_fixup *f = w->data;
	git_repository *repo = NULL;

	if (git_repository_open(&repo, f->repo_path) < 0) {
		f->rc = bd_error_set(&f->err, -ENOENT, "cannot open "
		    "repository %s", f->repo_path);
		return;
	}
	f->rc = repo_fixup_make(repo, &f->probed, (const char *const *)
	    f->specs, f->nspecs, &f->bad, f->goods, f->ngoods, &f->r, &f->err);
	git_repository_free(repo);
}

static void
sched_fixup_free(struct sched_fixup *f)
{
	size_t i;

	for (i = 0; i < f->nspecs; i++)
		free(f->specs[i]);
	free(f->specs);
	free(f->goods);
	free(f->repo_path);
	repo_fixup_result_release(&f->r);
	free(f);
}

/* A probe that ran no job ends; the verification hears of its own. */
static void
sched_fixup_ended(struct sched *s, struct bisection *b,
    struct bisection_probe *p)
{
	int extra = p->commit == BISECTION_EXTRA;

	sched_probe_free(b, p);
	if (extra && b->phase == BISECTION_VERIFYING)
		verify_run_ended(b);
	sched_kick(s);
}

/* The probed commit stays a skip, with the reason in the store and events. */
static void
sched_fixup_skip(struct sched *s, struct bisection_probe *p, const char *why)
{
	struct bisection *b = p->b;
	struct store_run_result res;
	struct bd_error err;
	char *timings = sched_timings(p, 0, 0, "build", why);

	memset(&res, 0, sizeof(res));
	res.state = STORE_RUN_SKIPPED;
	res.timings = timings;
	log_info("bisection %" PRId64 ": %s is a skip: %s", b->id, p->sha, why);
	if (store_run_finish(sched_store(s), p->run, &res, NULL, 0, &err) < 0)
		sched_store_error(s, b, &err);
	else {
		sched_emit(s, "skip", json_pack("{s:I, s:I, s:s, s:n, s:s}",
		    "bisection", (json_int_t)b->id, "run", (json_int_t)p->run,
		    "commit", p->sha, "host", "message", why));
		if (b->engine_ready && b->phase == BISECTION_ACTIVE)
			sched_feed_skip(s, b, p->commit, p->sha, why);
	}
	free(timings);
	sched_fixup_ended(s, b, p);
}

/* A run that will not be submitted: not left queued for a restart. */
static void
sched_fixup_cancel_run(struct sched *s, int64_t run)
{
	struct bd_error err;

	if (store_run_finish(sched_store(s), run, &(struct store_run_result){
	    .state = STORE_RUN_CANCELLED }, NULL, 0, &err) < 0)
		log_debug("run %" PRId64 ": %s", run, err.msg);
}

/* Back on the loop: build the patched commit, or skip the probed one. */
static void
sched_fixup_done(uv_work_t *w, int status)
{
	struct sched_fixup *f = w->data;
	struct sched *s = f->s;
	struct bisection_probe *p = f->p;
	struct bisection *b = p->b;
	char *why = NULL;
	size_t i;

	if (s->stopping || p->recorded || b->phase != (p->commit ==
	    BISECTION_EXTRA ? BISECTION_VERIFYING : BISECTION_ACTIVE)) {
		/*
		 * Stopping, it stays queued: a restart submits it again.  A
		 * phase that moved on (verification began) cancels it, as the
		 * store did the probes that had a job.
		 */
		if (!s->stopping && !p->recorded)
			sched_fixup_cancel_run(s, p->run);
		sched_probe_free(b, p);
		if (s->stopping)
			sched_stop_check(s);
		goto out;
	}
	if (status < 0 || f->rc < 0)
		xasprintf(&why, "fix-ups could not be applied: %s",
		    status < 0 ? uv_strerror(status) : f->err.msg);
	else if (f->r.conflict != NULL)
		xasprintf(&why, "fix-up %.12s conflicts on %s in %s",
		    f->r.conflict, p->sha, f->r.conflict_path ?
		    f->r.conflict_path : "the index");
	else if (f->r.overlap != NULL)
		xasprintf(&why, "fix-up %.12s touches %s, which a candidate "
		    "touches: its samples would not be the commit's own",
		    f->r.overlap, f->r.overlap_path);
	if (why != NULL) {
		sched_fixup_skip(s, p, why);
		goto out;
	}
	if (f->r.napplied > 0) {
		p->fixups = json_array();
		p->auto_fixups = json_array();
		for (i = 0; i < f->r.napplied; i++) {
			json_array_append_new(p->fixups,
			    json_string(f->r.applied[i]));
			if (sched_fixup_is_auto(b, f->r.applied[i]))
				json_array_append_new(p->auto_fixups,
				    json_string(f->r.applied[i]));
		}
		snprintf(p->built, sizeof(p->built), "%s", f->r.commit);
		snprintf(p->tree, sizeof(p->tree), "%s", f->r.tree);
		log_info("bisection %" PRId64 ": %s is built as %s with %zu "
		    "fix-up(s)", b->id, p->sha, p->built, f->r.napplied);
	}
	if (sched_submit_job(s, p, f->resumed) < 0) {
		if (f->p_commit != BISECTION_EXTRA)
			sched_submit_failed(s, b, f->p_run, f->p_commit);
		else {
			sched_fixup_cancel_run(s, f->p_run);
			verify_run_ended(b);
		}
	}
out:
	free(why);
	sched_fixup_free(f);
}

int
sched_fixup_start(struct sched *s, struct bisection_probe *p, int resumed)
{
	struct bisection *b = p->b;
	struct sched_fixup *f = xcalloc(1, sizeof(*f));
	int rc;

	f->s = s;
	f->p = p;
	f->p_run = p->run;
	f->p_commit = p->commit;
	f->resumed = resumed;
	f->repo_path = xstrdup(b->repo_path);
	f->nspecs = sched_fixup_specs(s, b, &f->specs);
	git_oid_fromstr(&f->probed, p->sha);
	git_oid_cpy(&f->bad, &b->bad);
	f->ngoods = b->ngoods;
	f->goods = xcalloc(b->ngoods + 1, sizeof(*f->goods));
	memcpy(f->goods, b->goods, b->ngoods * sizeof(*f->goods));
	f->w.data = f;
	if ((rc = uv_queue_work(s->env.loop, &f->w, sched_fixup_work,
	    sched_fixup_done)) < 0) {
		log_warnx("bisection %" PRId64 ": fix-ups: %s", b->id,
		    uv_strerror(rc));
		sched_probe_free(b, p);
		sched_fixup_free(f);
		return -EIO;
	}
	return 0;
}

/* Commits looked at in one search, at most: a bound on a kernel history. */
#define SCHED_FIXUP_SEARCH_LIMIT	200000

struct sched_fixup_find {
	uv_work_t		 w;
	struct sched		*s;
	struct bisection	*b;
	uint32_t		 commit;
	char			 sha[GIT_OID_HEXSZ + 1];
	char			*why;
	char			*repo_path;
	git_oid			 failing, bad;
	char			**found;
	size_t			 nfound;
	int			 rc;
	struct bd_error		 err;
};

/* Thread-pool side: the walk reads every commit message it passes. */
static void
sched_fixup_find_work(uv_work_t *w)
{
	struct sched_fixup_find *f = w->data;
	git_repository *repo = NULL;

	if (git_repository_open(&repo, f->repo_path) < 0) {
		f->rc = bd_error_set(&f->err, -ENOENT, "cannot open "
		    "repository %s", f->repo_path);
		return;
	}
	f->rc = repo_fixup_find(repo, &f->failing, &f->bad,
	    SCHED_FIXUP_SEARCH_LIMIT, &f->found, &f->nfound, &f->err);
	git_repository_free(repo);
}

/*
 * Back on the loop: what was found joins the bisection's fix-ups, then the
 * skip is fed as any other.  A first failure only drops the probe, so the
 * engine's retry of the commit is built with what was found.
 */
static void
sched_fixup_find_done(uv_work_t *w, int status)
{
	struct sched_fixup_find *f = w->data;
	struct bisection *b = f->b;
	struct sched *s = f->s;
	json_t *added = json_array();
	size_t i;

	if (s->stopping || b->phase != BISECTION_ACTIVE)
		goto out;
	if (status < 0 || f->rc < 0)
		log_warnx("bisection %" PRId64 ": fix-up search at %s: %s",
		    b->id, f->sha, status < 0 ? uv_strerror(status) :
		    f->err.msg);
	for (i = 0; i < f->nfound; i++)
		if (bisection_fixup_add(b, f->found[i]))
			json_array_append_new(added, json_string(f->found[i]));
	if (json_array_size(added) > 0) {
		log_info("bisection %" PRId64 ": %s failed; %zu fix-up(s) "
		    "found for it", b->id, f->sha, json_array_size(added));
		sched_emit(s, "fixups-found", json_pack("{s:I, s:s, s:O}",
		    "bisection", (json_int_t)b->id, "commit", f->sha,
		    "fixups", added));
	}
	sched_feed_skip(s, b, f->commit, f->sha, f->why);
	sched_kick(s);
out:
	json_decref(added);
	for (i = 0; i < f->nfound; i++)
		free(f->found[i]);
	free(f->found);
	free(f->why);
	free(f->repo_path);
	free(f);
}

int
sched_fixup_search(struct sched *s, struct bisection_probe *p,
    const char *why)
{
	struct bisection *b = p->b;
	const struct config_benchmark *bench =
	    config_benchmark_find(sched_config(s), b->rec.benchmark);
	struct sched_fixup_find *f;

	if (bench == NULL || bench->auto_fixups != CONFIG_AUTO_FIXUPS_SEARCH ||
	    p->commit == BISECTION_EXTRA || p->commit == ENGINE_GOOD ||
	    !b->engine_ready || b->phase != BISECTION_ACTIVE ||
	    p->commit >= b->g.n || b->repo_path == NULL)
		return -1;
	if (b->fixup_searched == NULL)
		b->fixup_searched = xcalloc(b->g.n, 1);
	if (b->fixup_searched[p->commit])
		return -1;
	b->fixup_searched[p->commit] = 1;
	f = xcalloc(1, sizeof(*f));
	f->s = s;
	f->b = b;
	f->commit = p->commit;
	snprintf(f->sha, sizeof(f->sha), "%s", p->sha);
	f->why = xstrdup(why != NULL ? why : "");
	f->repo_path = xstrdup(b->repo_path);
	git_oid_fromstr(&f->failing, p->sha);
	git_oid_cpy(&f->bad, &b->bad);
	f->w.data = f;
	if (uv_queue_work(s->env.loop, &f->w, sched_fixup_find_work,
	    sched_fixup_find_done) < 0) {
		free(f->why);
		free(f->repo_path);
		free(f);
		return -1;
	}
	return 0;
}

struct sched_fixup_view {
	json_t	*measured;	/* commit -> {built, fixups, runs} */
	json_t	*skipped;	/* commit -> reason */
};

static int
sched_fixup_view_run(void *arg, const struct store_run *r)
{
	struct sched_fixup_view *v = arg;
	json_t *t, *fx, *m;

	if (r->timings == NULL || (t = json_loads(r->timings, 0, NULL)) ==
	    NULL)
		return 0;
	if (json_is_string(json_object_get(t, "fixup_skip")))
		json_object_set(v->skipped, r->commit,
		    json_object_get(t, "fixup_skip"));
	else if (r->state == STORE_RUN_DONE &&
	    json_array_size(fx = json_object_get(t, "fixups")) > 0) {
		if ((m = json_object_get(v->measured, r->commit)) == NULL) {
			m = json_pack("{s:O, s:O, s:I}", "built",
			    json_object_get(t, "built_commit"), "fixups", fx,
			    "runs", (json_int_t)0);
			json_object_set_new(v->measured, r->commit, m);
		}
		json_object_set_new(m, "runs", json_integer(json_integer_value(
		    json_object_get(m, "runs")) + 1));
	}
	json_decref(t);
	return 0;
}

/* What status shows: the fix-ups given and found, and what they did. */
json_t *
sched_fixup_status(struct bisection *b, struct store *st)
{
	struct sched_fixup_view v = { json_object(), json_object() };
	struct bd_error err;
	json_t *o, *given = json_array(), *found = json_array();
	char **specs = NULL;
	size_t i, n = 0;

	if (b->s != NULL)
		n = sched_fixup_specs(b->s, b, &specs);
	for (i = 0; i < n; i++) {
		if (!sched_fixup_is_auto(b, specs[i]))
			json_array_append_new(given, json_string(specs[i]));
		free(specs[i]);
	}
	free(specs);
	for (i = 0; i < b->nauto_fixups; i++)
		json_array_append_new(found, json_string(b->auto_fixups[i]));
	store_run_list(st, b->id, (1u << STORE_RUN_DONE) |
	    (1u << STORE_RUN_SKIPPED), sched_fixup_view_run, &v, &err);
	o = json_pack("{s:o, s:o, s:o, s:o}", "given", given, "found", found,
	    "measured", v.measured, "skipped", v.skipped);
	return o;
}
