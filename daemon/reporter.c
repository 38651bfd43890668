/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/report.h"
#include "common/xmalloc.h"
#include "sched/bisection.h"
#include "daemon/hook.h"
#include "daemon/mail.h"
#include "common/log.h"
#include "daemon/reporter.h"
#include "sched/confirm.h"
#include "daemon/reporter_tested.h"
#include "sched/verify.h"
#include "repo/mirror.h"
#include "repo/touched.h"
#include "store/store.h"
#include "daemon/reporter_fixup.h"

/* Everything the input points to, so one release frees it. */
struct reporter_data {
	struct report_input	 in;
	struct report_value	*base, *head;
	size_t			 nbase, nhead;
	double			*good, *bad;
	size_t			 ngood, nbad;
	struct report_sample	*samples;
	size_t			 nsamples;
	struct report_candidate	*cands;
	size_t			 ncands;
	struct report_commit	*parents;
	size_t			 nparents;
	const char		**log;
	size_t			 nlog;
	char			**strings;	/* owned strings */
	size_t			 nstrings;
	const char		*base_sha;
	double			 machine_s;
	size_t			 reused;	/* headline samples from a sweep */
	json_t			*origin;	/* the stored origin, parsed */
	const char		**swept;	/* its metrics */
	struct bisection	*b;
	const char		**hosts;	/* test hosts that ran it */
	size_t			 nhosts;
	size_t			 base_runs, head_runs;
	struct reporter_tested	 tested;
	const char		**fixups;	/* kept lines */
	struct mail		 mail;
	struct confirm_rows	 confirm;	/* other host groups */
};

/*
 * Keeps s for the report's lifetime, as text a JSON document may hold:
 * a subject or an author from the repository need not be UTF-8 (old
 * commits in Latin-1), and jansson refuses a string that is not.
 */
static const char *
rd_keep(struct reporter_data *rd, char *s)
{
	bd_utf8_fix(s);
	rd->strings = xreallocarray(rd->strings, rd->nstrings + 1,
	    sizeof(char *));
	rd->strings[rd->nstrings++] = s;
	return s;
}

static void
rd_push_value(struct report_value **v, size_t *n, const char *metric,
    double value)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[*n].metric = metric;
	(*v)[(*n)++].value = value;
}

static void
rd_push_double(double **v, size_t *n, double x)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = x;
}

/* The test hosts that ran the bisection, each once, for "test machine". */
static void
rd_host(struct reporter_data *rd, const char *host)
{
	size_t i;

	if (host == NULL)
		return;
	for (i = 0; i < rd->nhosts; i++)
		if (strcmp(rd->hosts[i], host) == 0)
			return;
	rd->hosts = xreallocarray(rd->hosts, rd->nhosts + 1,
	    sizeof(*rd->hosts));
	rd->hosts[rd->nhosts++] = rd_keep(rd, xstrdup(host));
}

/* One sample row: which side of the table and which plot it feeds. */
static int
rd_sample(void *arg, const struct store_sample *sm)
{
	struct reporter_data *rd = arg;
	struct bisection *b = rd->b;
	int64_t idx = bisection_commit_index(b, sm->commit);
	int headline = strcmp(sm->metric, b->rec.metric) == 0;
	const char *metric = rd_keep(rd, xstrdup(sm->metric));
	const double *pb;
	int head, base;

	if (idx < 0)
		return 0;
	head = (rd->in.culprit.sha && strcmp(sm->commit,
	    rd->in.culprit.sha) == 0) || (rd->in.kind != REPORT_CULPRIT &&
	    idx == (int64_t)b->g.n - 1);
	base = (rd->base_sha && strcmp(sm->commit, rd->base_sha) == 0) ||
	    (rd->base_sha == NULL && idx == ENGINE_GOOD);
	if (head)
		rd_push_value(&rd->head, &rd->nhead, metric, sm->value);
	if (base)
		rd_push_value(&rd->base, &rd->nbase, metric, sm->value);
	if (!headline)
		return 0;
	/* One headline value a run: these count the runs of each side. */
	rd->head_runs += head;
	rd->base_runs += base;
	rd_host(rd, sm->host);
	if (sm->reused_from != 0)
		rd->reused++;
	if (idx == ENGINE_GOOD)
		rd_push_double(&rd->good, &rd->ngood, sm->value);
	else if (idx == (int64_t)b->g.n - 1)
		rd_push_double(&rd->bad, &rd->nbad, sm->value);
	rd->samples = xreallocarray(rd->samples, rd->nsamples + 1,
	    sizeof(*rd->samples));
	rd->samples[rd->nsamples].sha = rd_keep(rd, xstrdup(sm->commit));
	rd->samples[rd->nsamples].position = idx == ENGINE_GOOD ? 0 : idx + 1;
	rd->samples[rd->nsamples].value = sm->value;
	rd->samples[rd->nsamples].nvalues = sm->nvalues;
	pb = b->engine_ready ? engine_prob_bad(&b->e) : NULL;
	rd->samples[rd->nsamples].cls = idx == ENGINE_GOOD ? REPORT_GOOD :
	    pb == NULL ? REPORT_UNCLASSIFIED : pb[idx] >= 0.5 ? REPORT_BAD :
	    REPORT_GOOD;
	rd->nsamples++;
	return 0;
}

static int
rd_run_time(void *arg, const struct store_run *r)
{
	struct reporter_data *rd = arg;

	int64_t start = r->started_ms > 0 ? r->started_ms : r->finished_ms;

	/* A host's time: from the run's start, not from its queueing. */
	if (r->finished_ms > start)
		rd->machine_s += (double)(r->finished_ms - start) / 1e3;
	return 0;
}

/* "Name <mail>" of a signature, kept for the report's lifetime. */
static const char *
rd_person(struct reporter_data *rd, const git_signature *sig)
{
	char *s;

	if (sig == NULL)
		return NULL;
	xasprintf(&s, "%s <%s>", sig->name, sig->email);
	return rd_keep(rd, s);
}

/* The culprit's identity and its parents, read from the repository. */
static void
rd_culprit(struct reporter_data *rd, git_repository *repo, const char *sha)
{
	git_commit *c = NULL, *pc;
	git_oid oid;
	char psha[GIT_OID_HEXSZ + 1], date[64];
	unsigned i;
	int64_t idx;
	time_t t;
	struct tm tm;

	rd->in.culprit.sha = sha;
	rd->in.culprit.subject = "";
	if (repo == NULL || git_oid_fromstr(&oid, sha) < 0 ||
	    git_commit_lookup(&c, repo, &oid) < 0)
		return;
	rd->in.culprit.subject = rd_keep(rd, xstrdup(git_commit_summary(c) ?
	    git_commit_summary(c) : ""));
	rd->in.culprit.author = rd_person(rd, git_commit_author(c));
	rd->in.culprit.committer = rd_person(rd, git_commit_committer(c));
	t = (time_t)git_commit_time(c);
	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y +0000", &tm);
	rd->in.culprit.date = rd_keep(rd, xstrdup(date));
	for (i = 0; i < git_commit_parentcount(c); i++) {
		if (git_commit_parent(&pc, c, i) < 0)
			continue;
		git_oid_tostr(psha, sizeof(psha), git_commit_id(pc));
		rd->parents = xreallocarray(rd->parents, rd->nparents + 1,
		    sizeof(*rd->parents));
		memset(&rd->parents[rd->nparents], 0, sizeof(*rd->parents));
		rd->parents[rd->nparents].sha = rd_keep(rd, xstrdup(psha));
		rd->parents[rd->nparents].subject = rd_keep(rd, xstrdup(
		    git_commit_summary(pc) ? git_commit_summary(pc) : ""));
		idx = bisection_commit_index(rd->b, psha);
		/* The base is the first parent measured inside the range. */
		if (rd->base_sha == NULL && idx >= 0 && idx != ENGINE_GOOD)
			rd->base_sha = rd->parents[rd->nparents].sha;
		rd->nparents++;
		git_commit_free(pc);
	}
	git_commit_free(c);
}

/* Candidates of an inconclusive verdict, from the stored detail. */
static void
rd_candidates(struct reporter_data *rd, git_repository *repo)
{
	json_t *d = json_loads(rd->b->rec.detail ? rd->b->rec.detail : "{}",
	    0, NULL);
	json_t *c;
	char subj[256];
	size_t i;

	json_array_foreach(json_object_get(d, "candidates"), i, c) {
		const char *sha = json_string_value(json_object_get(c,
		    "commit"));

		if (sha == NULL)
			continue;
		rd->cands = xreallocarray(rd->cands, rd->ncands + 1,
		    sizeof(*rd->cands));
		rd->cands[rd->ncands].sha = rd_keep(rd, xstrdup(sha));
		rd->cands[rd->ncands].subject = rd_keep(rd, xstrdup(
		    bisection_subject(repo, sha, subj, sizeof(subj))));
		rd->cands[rd->ncands].probability = json_number_value(
		    json_object_get(c, "probability"));
		rd->ncands++;
	}
	rd->in.n_candidates_total = (size_t)json_integer_value(
	    json_object_get(d, "set_size"));
	json_decref(d);
}

/* The benchmark's steps as configured, for the reproduce section. */
static const char *
rd_bench_config(struct reporter_data *rd, const struct config_benchmark *bc)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "build", offsetof(struct config_benchmark, build) },
		{ "artifact", offsetof(struct config_benchmark, artifact) },
		{ "install", offsetof(struct config_benchmark, install) },
		{ "reboot", offsetof(struct config_benchmark, reboot) },
		{ "boot_check", offsetof(struct config_benchmark, boot_check) },
		{ "run", offsetof(struct config_benchmark, run) },
		{ "collect", offsetof(struct config_benchmark, collect) },
		{ "result_file", offsetof(struct config_benchmark,
		    result_file) },
	};
	char *text, *t;
	const char *v;
	size_t i;

	xasprintf(&text, "[benchmark %s]\n", bc->name);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = *(const char *const *)((const char *)bc + keys[i].off);
		if (v == NULL)
			continue;
		xasprintf(&t, "%s%s = %s\n", text, keys[i].key, v);
		free(text);
		text = t;
	}
	return rd_keep(rd, text);
}

static void
rd_release(struct reporter_data *rd)
{
	size_t i;

	for (i = 0; i < rd->nstrings; i++)
		free(rd->strings[i]);
	free(rd->strings);
	free(rd->base);
	free(rd->head);
	free(rd->good);
	free(rd->bad);
	free(rd->samples);
	free(rd->cands);
	free(rd->parents);
	free(rd->log);
	free(rd->swept);
	free(rd->hosts);
	free(rd->fixups);
	reporter_tested_release(&rd->tested);
	confirm_rows_release(&rd->confirm);
	json_decref(rd->origin);
	mail_release(&rd->mail);
}

/*
 * lkp's "[linux-next:master]" for a swept tag: the tree (the repository's
 * name, from its url or its path) and the new ref's short name.
 */
static const char *
rd_branch(struct reporter_data *rd, const struct config *cfg,
    const char *ref)
{
	static const char *const prefixes[] = { "refs/tags/", "refs/heads/",
	    "refs/remotes/", "refs/" };
	const char *where, *base;
	size_t i, len;
	char *s;

	/* Never the url's user-info, whatever shape the url has. */
	where = cfg->repo.url ? rd_keep(rd, mirror_url_shown(cfg->repo.url)) :
	    cfg->repo.path;
	if (where == NULL || ref == NULL)
		return NULL;
	len = strlen(where);
	while (len > 1 && where[len - 1] == '/')
		len--;
	for (base = where + len; base > where && base[-1] != '/' &&
	    base[-1] != ':'; base--)
		;
	len -= (size_t)(base - where);
	if (len > 4 && strncmp(base + len - 4, ".git", 4) == 0)
		len -= 4;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(ref, prefixes[i], strlen(prefixes[i])) == 0) {
			ref += strlen(prefixes[i]);
			break;
		}
	xasprintf(&s, "%.*s:%s", (int)len, base, ref);
	return rd_keep(rd, s);
}

/*
 * "[tree:branch]" for any bisection whose bad revision names a branch or
 * a tag, or is a commit a ref of the repository points at.
 */
static const char *
rd_branch_of(struct reporter_data *rd, const struct config *cfg,
    git_repository *repo, const char *rev)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	git_object *obj;
	git_oid oid;
	const char *found = NULL;
	char *name = NULL;

	if (rev == NULL || strcmp(rev, "HEAD") == 0 ||
	    strpbrk(rev, "~^:@{") != NULL)
		return NULL;
	if (strspn(rev, "0123456789abcdef") != strlen(rev) || strlen(rev) < 4)
		return rd_branch(rd, cfg, rev);
	if (repo == NULL || git_revparse_single(&obj, repo, rev) < 0)
		return NULL;
	git_oid_cpy(&oid, git_object_id(obj));
	git_object_free(obj);
	if (git_reference_iterator_new(&it, repo) < 0)
		return NULL;
	while (name == NULL && git_reference_next(&ref, it) == 0) {
		if (strncmp(git_reference_name(ref), "refs/heads/", 11) == 0 ||
		    strncmp(git_reference_name(ref), "refs/tags/", 10) == 0) {
			if (git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) ==
			    0) {
				if (git_oid_equal(git_object_id(obj), &oid))
					name = xstrdup(git_reference_name(ref));
				git_object_free(obj);
			}
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	if (name != NULL)
		found = rd_branch(rd, cfg, name);
	free(name);
	return found;
}

/* The compared commits' subjects, for the table's "commit:" block. */
static void
rd_sides(struct reporter_data *rd, git_repository *repo)
{
	struct report_input *in = &rd->in;
	char subj[256];

	if (in->base.sha != NULL)
		in->base.subject = rd_keep(rd, xstrdup(bisection_subject(repo,
		    in->base.sha, subj, sizeof(subj))));
	if (in->kind == REPORT_CULPRIT)
		in->head.subject = in->culprit.subject;
	else if (in->head.sha != NULL)
		in->head.subject = rd_keep(rd, xstrdup(bisection_subject(repo,
		    in->head.sha, subj, sizeof(subj))));
}

/* A bisection a sweep started names the sweep, its refs and metrics. */
static void
rd_origin(struct reporter_data *rd, const struct config *cfg)
{
	struct report_input *in = &rd->in;
	json_t *o, *v;
	size_t i;

	if (rd->b->rec.origin == NULL ||
	    (o = json_loads(rd->b->rec.origin, 0, NULL)) == NULL)
		return;
	rd->origin = o;
	if ((in->sweep = json_string_value(json_object_get(o, "sweep"))) ==
	    NULL)
		return;
	in->sweep_ref = json_string_value(json_object_get(o, "ref"));
	in->sweep_prev_ref = json_string_value(json_object_get(o,
	    "prev_ref"));
	in->branch = rd_branch(rd, cfg, in->sweep_ref);
	rd->swept = xcalloc(json_array_size(json_object_get(o, "metrics")) +
	    1, sizeof(char *));
	json_array_foreach(json_object_get(o, "metrics"), i, v)
		if (json_is_string(v))
			rd->swept[in->n_sweep_metrics++] = json_string_value(v);
	in->sweep_metrics = rd->swept;
	in->reused_samples = rd->reused;
}

/*
 * The culprit's touched functions and the mail: its Message-ID, the
 * parent's for a sub-range's report, trailers and recipients.
 */
static void
rd_mail(struct reporter_data *rd, struct store *st, const struct config *cfg)
{
	const struct repo_touched *t = verify_touched(rd->b);
	struct store_bisection parent;
	struct mail_facts f;
	struct bd_error err;

	if (t != NULL && rd->in.kind == REPORT_CULPRIT) {
		rd->in.touched = (const char *const *)t->functions;
		rd->in.n_touched = t->n_functions;
	}
	memset(&f, 0, sizeof(f));
	f.id = rd->b->id;
	f.created_ms = rd->b->rec.created_ms;
	f.parent_id = rd->b->parent_id;
	f.followup = rd->b->followups;
	store_bisection_init(&parent);
	if (f.parent_id != 0 && store_bisection_get(st, f.parent_id, &parent,
	    &err) == 0)
		f.parent_created_ms = parent.created_ms;
	store_bisection_release(&parent);
	f.author = rd->in.culprit.author;
	f.committer = rd->in.culprit.committer;
	f.maint = rd->in.kind == REPORT_CULPRIT ? verify_maint(rd->b) : NULL;
	mail_init(&rd->mail);
	mail_build(&rd->mail, cfg, &f);
	rd->in.mail = &rd->mail.rep;
}

/* The Fix-ups section's lines, kept with the report's other strings. */
static void
rd_fixups(struct reporter_data *rd, struct store *st, git_repository *repo)
{
	char **lines;
	size_t i, n;

	reporter_fixup_lines(st, repo, rd->b, rd->in.kind ==
	    REPORT_INCONCLUSIVE, rd->in.n_candidates_total, &lines, &n);
	rd->fixups = xcalloc(n + 1, sizeof(*rd->fixups));
	for (i = 0; i < n; i++)
		rd->fixups[i] = rd_keep(rd, lines[i]);
	free(lines);
	rd->in.fixup_lines = rd->fixups;
	rd->in.n_fixup_lines = n;
}

/* Collects every field the report module needs for one bisection. */
static void
reporter_gather(struct store *st, const struct config *cfg,
    git_repository *repo, struct bisection *b, struct reporter_data *rd,
    json_t *log)
{
	const struct config_benchmark *bc = config_benchmark_find(cfg,
	    b->rec.benchmark);
	const struct config_metric *m = bc ? config_metric_find(bc,
	    b->rec.metric) : NULL;
	struct report_input *in = &rd->in;
	struct bd_error err;
	json_t *v;
	size_t i;
	char *id;

	rd->b = b;
	report_input_init(in);
	in->kind = b->rec.verdict == STORE_VERDICT_CULPRIT ? REPORT_CULPRIT :
	    b->rec.verdict == STORE_VERDICT_INCONCLUSIVE ? REPORT_INCONCLUSIVE :
	    REPORT_NOT_REPRODUCED;
	xasprintf(&id, "%" PRId64, b->id);
	in->id = rd_keep(rd, id);
	in->benchmark = b->rec.benchmark;
	in->host_group = b->rec.group;
	in->metric = b->rec.metric;
	in->direction = reporter_direction(m);
	in->repo_url = cfg->repo.url != NULL ? rd_keep(rd,
	    mirror_url_shown(cfg->repo.url)) : NULL;
	in->run_aggregate = name_of(agg_names, (int)b->agg);
	if (in->kind == REPORT_CULPRIT && b->rec.culprit != NULL)
		rd_culprit(rd, repo, b->rec.culprit);
	if (in->kind == REPORT_INCONCLUSIVE)
		rd_candidates(rd, repo);
	/* The run is the unit: one value a run, as the engine saw them. */
	store_run_value_list(st, b->id, NULL, NULL, bisection_agg_of, b,
	    rd_sample, rd, &err);
	store_run_list(st, b->id, ~0u, rd_run_time, rd, &err);
	in->parents = rd->parents;
	in->n_parents = rd->nparents;
	in->good_revs = (const char *const *)b->rec.good;
	in->n_good_revs = b->rec.ngood;
	in->bad_rev = b->rec.bad;
	in->confidence = b->rec.confidence;
	in->target_confidence = b->confidence;
	in->max_samples = b->max_samples;
	in->first_parent = b->first_parent;
	/* The verification's runs count in the cost and are shown apart. */
	in->total_samples = rd->nsamples + verify_runs(b);
	in->verification = verify_report(b);
	rd_mail(rd, st, cfg);
	rd_origin(rd, cfg);
	in->machine_seconds = rd->machine_s;
	if (b->engine_ready) {
		struct engine_status es;

		engine_status(&b->e, &es);
		in->drift_sd = es.drift ? es.drift_size : 0;
	}
	in->base.sha = rd->base_sha ? rd->base_sha : b->rec.good[0];
	in->base.values = rd->base;
	in->base.n_values = rd->nbase;
	in->head.sha = in->kind == REPORT_CULPRIT ? in->culprit.sha :
	    b->rec.bad;
	in->head.values = rd->head;
	in->head.n_values = rd->nhead;
	in->good_samples = rd->good;
	in->n_good_samples = rd->ngood;
	in->bad_samples = rd->bad;
	in->n_bad_samples = rd->nbad;
	in->samples = rd->samples;
	in->n_samples = rd->nsamples;
	in->n_positions = b->engine_ready ? (long)b->g.n : 0;
	in->culprit_position = -1;
	if (in->kind == REPORT_CULPRIT && b->engine_ready)
		in->culprit_position = bisection_commit_index(b,
		    b->rec.culprit) + 1;
	in->candidates = rd->cands;
	in->n_candidates = rd->ncands;
	if (bc != NULL) {
		in->bench_config = rd_bench_config(rd, bc);
		in->min_change = bc->min_change;
	}
	rd->log = xcalloc(json_array_size(log) + 1, sizeof(char *));
	json_array_foreach(log, i, v)
		rd->log[rd->nlog++] = json_string_value(v);
	in->bisect_log = rd->log;
	in->n_bisect_log = rd->nlog;
	in->base.runs = rd->base_runs;
	in->head.runs = rd->head_runs;
	rd_sides(rd, repo);
	if (in->branch == NULL)
		in->branch = rd_branch_of(rd, cfg, repo, in->bad_rev);
	reporter_tested_fill(&rd->tested, in, st, cfg, bc, b->rec.group,
	    rd->hosts, rd->nhosts);
	reporter_tested_confirm(&rd->tested, &rd->confirm, in, st, bc, b);
	rd_fixups(rd, st, repo);
}

static void
reporter_hook(uv_loop_t *loop, const struct config_daemon *dc,
    struct bisection *b, const char *text, const struct reporter_data *rd);

void
reporter_run(struct store *st, const struct config *cfg,
    git_repository *repo, uv_loop_t *loop, struct bisection *b)
{
	struct reporter_data rd;
	struct bd_error err;
	json_t *log, *j = NULL;
	char *text = NULL, *jtext = NULL;

	memset(&rd, 0, sizeof(rd));
	log = bisection_log_json(b, st, repo);
	reporter_gather(st, cfg, repo, b, &rd, log);
	if (report_render_text(&rd.in, &text, &err) < 0 ||
	    (j = report_render_json(&rd.in, &err)) == NULL) {
		log_errx("bisection %" PRId64 ": no report: %s", b->id,
		    err.msg);
		goto out;
	}
	json_object_set(j, "bisect_log", log);
	jtext = json_dumps(j, JSON_COMPACT);
	if (store_report_put(st, b->id, text, jtext, &err) < 0) {
		log_errx("bisection %" PRId64 ": %s", b->id, err.msg);
		goto out;
	}
	/* A sub-range's culprit reaches the hook in its parent's report. */
	if (cfg->daemon.report_hook != NULL && b->parent_id == 0)
		reporter_hook(loop, &cfg->daemon, b, text, &rd);
out:
	free(text);
	free(jtext);
	json_decref(j);
	json_decref(log);
	rd_release(&rd);
}

/* The hook learns whom to mail from the environment, never from argv. */
static void
reporter_hook(uv_loop_t *loop, const struct config_daemon *dc,
    struct bisection *b, const char *text, const struct reporter_data *rd)
{
	const struct report_input *in = &rd->in;
	char *subject = report_subject(in);
	char *env[8 + MAIL_ENV_MAX];
	size_t n = 0, i;

	xasprintf(&env[n++], "BISECTD_BISECTION=%" PRId64, b->id);
	xasprintf(&env[n++], "BISECTD_VERDICT=%s",
	    store_verdict_name(b->rec.verdict));
	xasprintf(&env[n++], "BISECTD_CULPRIT=%s",
	    b->rec.culprit ? b->rec.culprit : "");
	xasprintf(&env[n++], "BISECTD_CULPRIT_AUTHOR=%s",
	    in->culprit.author ? in->culprit.author : "");
	xasprintf(&env[n++], "BISECTD_CULPRIT_COMMITTER=%s",
	    in->culprit.committer ? in->culprit.committer : "");
	xasprintf(&env[n++], "BISECTD_SUBJECT=%s", subject ? subject : "");
	mail_env(&rd->mail, env, &n);
	env[n] = NULL;
	if (hook_run(loop, dc->report_hook, env, text,
	    dc->report_hook_timeout_ms) < 0)
		log_errx("bisection %" PRId64 ": report hook did not start",
		    b->id);
	for (i = 0; i < n; i++)
		free(env[i]);
	free(subject);
}
