/* SPDX-License-Identifier: MIT */
/*
 * What a person sees of a bisection: the status summary and the
 * `git bisect log` lines, both derived from the engine and the store.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xmalloc.h"
#include "sched/confirm.h"
#include "sched/bisection.h"
#include "sched/sched.h"
#include "sched/sched_int.h"
#include "sched/verify.h"
#include "remote/backend.h"

/* The wall clock the store's times are in, for the elapsed time. */
static int64_t
bisection_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *
bisection_phase_name(const struct bisection *b, const struct engine_status *es)
{
	if (b->phase == BISECTION_LOADING)
		return "loading";
	if (b->phase == BISECTION_FINISHED || b->rec.state >=
	    STORE_BISECTION_DONE)
		return "finished";
	if (b->phase == BISECTION_VERIFYING)
		return "verifying";
	if (es != NULL && es->phase == ENGINE_PHASE_REPRO)
		return "reproducing";
	return "bisecting";
}

static json_t *
bisection_goods_json(const struct bisection *b)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < b->rec.ngood; i++)
		json_array_append_new(a, json_string(b->rec.good[i]));
	return a;
}

static json_t *
bisection_runs_json(const struct store_bisection_stats *bs)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < STORE_RUN_NSTATES; i++)
		json_object_set_new(o, store_run_state_name(i),
		    json_integer(bs->runs[i]));
	return o;
}

/* The leading candidates of a stored report, as status shows them. */
static json_t *
bisection_stored_top(const json_t *rep, double confidence)
{
	const json_t *c = json_object_get(rep, "culprit"), *v;
	json_t *top = json_array();
	size_t i;

	if (json_is_object(c)) {
		json_array_append_new(top, json_pack("{s:O, s:O, s:f}",
		    "commit", json_object_get(c, "sha"), "subject",
		    json_object_get(c, "subject"), "probability", confidence));
		return top;
	}
	json_array_foreach(json_object_get(rep, "candidates"), i, v) {
		if (i == 3)
			break;
		json_array_append_new(top, json_pack("{s:O, s:O, s:O}",
		    "commit", json_object_get(v, "sha"), "subject",
		    json_object_get(v, "subject"), "probability",
		    json_object_get(v, "probability")));
	}
	return top;
}

/*
 * A bisection that ended before the last restart has no engine: its
 * candidates and leaders come from the report stored with its verdict
 * (the candidate positions of the report's plot), so status does not show
 * "0 left of 0".  Without a report (failed, cancelled) they stay empty.
 */
static void
bisection_stored_summary(const struct bisection *b, struct store *st,
    json_t *o)
{
	char *text = NULL, *jtext = NULL;
	json_t *rep = NULL, *top;
	json_int_t n = 0, left = 0;
	struct bd_error err;

	if (store_report_get(st, b->id, &text, &jtext, &err) == 0 &&
	    jtext != NULL)
		rep = json_loads(jtext, 0, NULL);
	top = rep ? bisection_stored_top(rep, b->rec.confidence) :
	    json_array();
	if (rep != NULL) {
		n = json_integer_value(json_object_get(rep, "n_positions"));
		left = json_object_get(rep, "candidates_total") ?
		    json_integer_value(json_object_get(rep,
		    "candidates_total")) : (json_int_t)json_array_size(top);
	}
	json_object_set_new(o, "candidates", json_integer(n));
	json_object_set_new(o, "candidates_left", json_integer(left));
	json_object_set_new(o, "misfits", json_integer(0));
	json_object_set_new(o, "drift", json_null());
	/* A culprit was a confirmed change, "not reproduced" was not one. */
	json_object_set_new(o, "change_confirmed",
	    b->rec.verdict == STORE_VERDICT_CULPRIT ? json_true() :
	    b->rec.verdict == STORE_VERDICT_NOT_REPRODUCED ? json_false() :
	    json_null());
	json_object_set_new(o, "change_log10_bf", json_null());
	json_object_set_new(o, "est_samples_left", json_real(0));
	json_object_set_new(o, "est_seconds_left", json_null());
	json_object_set_new(o, "top", top);
	json_decref(rep);
	free(text);
	free(jtext);
}

/*
 * The verification phase of status: live from memory, or from the stored
 * verdict detail of a bisection finished before the last restart.
 */
static void
bisection_verification_json(const struct bisection *b, json_t *o)
{
	json_t *v = verify_status_json(b), *d;

	if (v == NULL && b->rec.detail != NULL &&
	    (d = json_loads(b->rec.detail, 0, NULL)) != NULL) {
		v = json_incref(json_object_get(d, "verification"));
		json_decref(d);
	}
	if (v != NULL)
		json_object_set_new(o, "verification", v);
}

/*
 * Seconds left at the measured pace (the store's runs of this benchmark
 * on this group, from start to finish): a build for each commit likely
 * still to be built (about log2 of the candidates left, plus both
 * endpoints before the first sample) and a run for each expected sample,
 * spread over the group's test hosts.  A build takes the mean of the runs
 * that built, less a run, and at least as long as a build under way has
 * taken so far, so a first long build is not mistaken for a short one.
 * Negative when nothing is measured and nothing builds.
 */
static double
bisection_eta(struct bisection *b, struct store *st,
    const struct engine_status *es, const struct store_bisection_stats *bs)
{
	struct store_run_pace pace;
	struct bisection_probe *p;
	struct bd_error err;
	double run = 0, build = 0, builds, hosts;
	int known = 0;

	if (store_run_pace(st, b->rec.benchmark, b->rec.group, &pace,
	    &err) < 0)
		memset(&pace, 0, sizeof(pace));
	if (pace.cached_n > 0) {
		run = (double)pace.cached_ms / (double)pace.cached_n;
		known = 1;
	}
	if (pace.built_n > 0) {
		build = fmax((double)pace.built_ms / (double)pace.built_n - run,
		    0);
		known = 1;
	}
	TAILQ_FOREACH(p, &b->probes, entry)
		if (b->s != NULL && p->phase == STEP_PHASE_BUILD) {
			build = fmax(build, (double)(sched_clock_ms(b->s) -
			    p->phase_ms));
			known = 1;
		}
	if (!known || !isfinite(es->est_samples_left))
		return -1;
	builds = ceil(log2(fmax((double)es->candidates_left, 1)));
	if (bs->runs[STORE_RUN_DONE] == 0)
		builds += 2;
	builds = fmin(builds, ceil(es->est_samples_left));
	hosts = b->s != NULL ? (double)sched_group_test_hosts(b->s,
	    b->rec.group) : 1;
	return (builds * build + es->est_samples_left * run) /
	    fmax(hosts, 1) / 1e3;
}

json_t *
bisection_status_json(struct bisection *b, struct store *st,
    git_repository *repo)
{
	struct store_bisection_stats bs;
	struct engine_status es;
	struct bisection_probe *p;
	struct bd_error err;
	char sha[GIT_OID_HEXSZ + 1], subj[256];
	json_t *o, *fl, *top, *cf;
	double eta;
	size_t i;

	memset(&bs, 0, sizeof(bs));
	store_bisection_stats(st, b->id, &bs, &err);
	o = json_pack("{s:I, s:o, s:s, s:s, s:s, s:s, s:s, s:o, s:s, s:I, "
	    "s:o, s:I, s:I}",
	    "id", (json_int_t)b->id,
	    "parent", b->parent_id ? json_integer(b->parent_id) : json_null(),
	    "state", store_bisection_state_name(b->rec.state),
	    "verdict", store_verdict_name(b->rec.verdict),
	    "benchmark", b->rec.benchmark, "metric", b->rec.metric,
	    "group", b->rec.group, "good", bisection_goods_json(b),
	    "bad", b->rec.bad,
	    "samples", (json_int_t)bs.runs[STORE_RUN_DONE],
	    "runs", bisection_runs_json(&bs),
	    "created_ms", (json_int_t)b->rec.created_ms,
	    "updated_ms", (json_int_t)b->rec.updated_ms);
	fl = json_array();
	TAILQ_FOREACH(p, &b->probes, entry) {
		const char *host = p->job ? backend_where(p->job) : NULL;
		json_t *f;

		/* Where the work is now: the build host while it builds. */
		if (p->phase >= 0 && p->phase_host[0] != '\0')
			host = p->phase_host;
		f = json_pack("{s:I, s:s, s:o}",
		    "run", (json_int_t)p->run, "commit", p->sha,
		    "host", host ? json_string(host) : json_null());
		json_object_set_new(f, "phase", p->phase >= 0 ? json_string(
		    step_phase_name((enum step_phase)p->phase)) :
		    json_null());
		if (p->phase >= 0 && b->s != NULL)
			json_object_set_new(f, "phase_seconds", json_integer(
			    (sched_clock_ms(b->s) - p->phase_ms) / 1000));
		json_array_append_new(fl, f);
	}
	json_object_set_new(o, "in_flight", fl);
	json_object_set_new(o, "elapsed_seconds", json_integer(
	    ((b->phase == BISECTION_FINISHED ? b->rec.updated_ms :
	    bisection_now_ms()) - b->rec.created_ms) / 1000));
	/* A sweep's bisection says which sweep and how much it reused. */
	if (b->rec.origin != NULL) {
		json_t *origin = json_loads(b->rec.origin, 0, NULL);

		if (origin != NULL)
			json_object_set_new(o, "origin", origin);
		json_object_set_new(o, "reused_runs", json_integer(
		    (json_int_t)bs.reused));
	}
	/* A store error being retried, or a lab that cannot take runs,
	 * says why the bisection waits. */
	if (b->phase != BISECTION_FINISHED && b->s != NULL &&
	    *sched_store_trouble(b->s) != '\0')
		json_object_set_new(o, "trouble", json_string(
		    sched_store_trouble(b->s)));
	else if (b->phase != BISECTION_FINISHED && b->s != NULL &&
	    *sched_group_trouble(b->s, b->rec.group) != '\0')
		json_object_set_new(o, "trouble", json_string(
		    sched_group_trouble(b->s, b->rec.group)));
	if (b->rec.culprit != NULL) {
		json_object_set_new(o, "culprit", json_string(b->rec.culprit));
		json_object_set_new(o, "confidence",
		    json_real(b->rec.confidence));
	}
	if (b->rec.detail != NULL && b->rec.state == STORE_BISECTION_FAILED)
		json_object_set_new(o, "message", json_string(b->rec.detail));
	bisection_verification_json(b, o);
	if ((cf = confirm_status_json(b)) != NULL)
		json_object_set_new(o, "confirmation", cf);
	json_object_set_new(o, "fixups", sched_fixup_status(b, st));
	if (!b->engine_ready) {
		json_object_set_new(o, "phase",
		    json_string(bisection_phase_name(b, NULL)));
		bisection_stored_summary(b, st, o);
		return o;
	}
	engine_status(&b->e, &es);
	json_object_set_new(o, "phase",
	    json_string(bisection_phase_name(b, &es)));
	json_object_set_new(o, "candidates", json_integer((json_int_t)b->g.n));
	json_object_set_new(o, "candidates_left",
	    json_integer((json_int_t)es.candidates_left));
	json_object_set_new(o, "misfits", json_integer((json_int_t)es.misfits));
	/* Drift the engine found and adjusts for, in noise sd; null: none. */
	json_object_set_new(o, "drift", es.drift ? json_real(es.drift_size) :
	    json_null());
	/*
	 * Whether the change is confirmed yet (the shared mode bisects
	 * before), and the evidence for one over all samples, log10 of the
	 * Bayes factor; null where the engine does not compute it.
	 */
	json_object_set_new(o, "change_confirmed", json_boolean(es.reproduced));
	json_object_set_new(o, "change_log10_bf", isfinite(es.change_lbf) ?
	    json_real(es.change_lbf / M_LN10) : json_null());
	json_object_set_new(o, "est_samples_left",
	    json_real(isfinite(es.est_samples_left) ? es.est_samples_left : 0));
	eta = bisection_eta(b, st, &es, &bs);
	json_object_set_new(o, "est_seconds_left", eta >= 0 ? json_real(eta) :
	    json_null());
	top = json_array();
	for (i = 0; i < es.ntop; i++) {
		graph_oid_tostr(sha, sizeof(sha), &b->g.oids[es.top[i].commit]);
		json_array_append_new(top, json_pack("{s:s, s:s, s:f}",
		    "commit", sha, "subject",
		    bisection_subject(repo, sha, subj, sizeof(subj)),
		    "probability", es.top[i].mass));
	}
	json_object_set_new(o, "top", top);
	return o;
}

struct log_ctx {
	struct bisection *b;
	git_repository	*repo;
	json_t		*lines;
	char		*seen;		/* candidates already logged */
	uint8_t		 good_seen;
};

static void
log_line(struct log_ctx *c, const char *word, const char *sha)
{
	char subj[256];
	char *s;

	xasprintf(&s, "# %s: [%s] %s", word, sha,
	    bisection_subject(c->repo, sha, subj, sizeof(subj)));
	json_array_append_new(c->lines, json_string(s));
	free(s);
	xasprintf(&s, "git bisect %s %s", word, sha);
	json_array_append_new(c->lines, json_string(s));
	free(s);
}

/*
 * A commit is logged once, when first measured, with the side the final
 * posterior puts it on: P(bad) is monotone along ancestry, so the lines
 * agree with one culprit and `git bisect replay` accepts them.
 */
static int
log_run(void *arg, const struct store_run *r)
{
	struct log_ctx *c = arg;
	int64_t idx = bisection_commit_index(c->b, r->commit);
	const double *pb;

	if (idx < 0 || idx == ENGINE_GOOD || c->seen[idx])
		return 0;
	c->seen[idx] = 1;
	if (idx == (int64_t)c->b->g.n - 1)
		return 0;	/* the bad endpoint is logged first */
	if (r->state == STORE_RUN_SKIPPED) {
		log_line(c, "skip", r->commit);
		return 0;
	}
	pb = engine_prob_bad(&c->b->e);
	log_line(c, pb[idx] >= 0.5 ? "bad" : "good", r->commit);
	return 0;
}

static int
bisection_is_requested_good(const struct bisection *b, const char *sha)
{
	size_t i;

	for (i = 0; i < b->rec.ngood; i++)
		if (strcmp(b->rec.good[i], sha) == 0)
			return 1;
	return 0;
}

json_t *
bisection_log_json(struct bisection *b, struct store *st,
    git_repository *repo)
{
	struct log_ctx c = { b, repo, json_array(), NULL, 0 };
	struct bd_error err;
	char sha[GIT_OID_HEXSZ + 1], subj[256];
	char *s;
	size_t i;

	json_array_append_new(c.lines, json_string("git bisect start"));
	if (!b->engine_ready)
		return c.lines;
	log_line(&c, "bad", b->rec.bad);
	for (i = 0; i < b->rec.ngood; i++)
		log_line(&c, "good", b->rec.good[i]);
	/* Merge bases stood in for good revisions that are not ancestors. */
	for (i = 0; i < b->ngoods; i++) {
		git_oid_tostr(sha, sizeof(sha), &b->goods[i]);
		if (!bisection_is_requested_good(b, sha))
			log_line(&c, "good", sha);
	}
	c.seen = xcalloc(b->g.n, 1);
	store_run_list(st, b->id, (1u << STORE_RUN_DONE) |
	    (1u << STORE_RUN_SKIPPED), log_run, &c, &err);
	free(c.seen);
	if (b->rec.verdict == STORE_VERDICT_CULPRIT && b->rec.culprit) {
		xasprintf(&s, "# first bad commit: [%s] %s", b->rec.culprit,
		    bisection_subject(repo, b->rec.culprit, subj,
		    sizeof(subj)));
		json_array_append_new(c.lines, json_string(s));
		free(s);
	}
	return c.lines;
}
