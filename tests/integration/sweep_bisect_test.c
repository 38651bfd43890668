/* SPDX-License-Identifier: MIT */
/*
 * A sweep's change becomes one bisection (sweep/sweep_bisect.c), run by a
 * real scheduler over sshd hosts on loopback and the fixture repository
 * with its planted culprit.  The sweep's rows and samples are put in the
 * store as the sweep would have left them; the samples at the two tags
 * are real measurements of the fixture's benchmark at those commits.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <jansson.h>

#include "common/xmalloc.h"
#include "sched/bisection.h"
#include "sched/sched.h"
#include "sweep/sweep_bisect.h"
#include "store/store.h"
#include "tests/support/st.h"
#include "tests/support/tst.h"

TestSuite(sweep_bisect, .fini = st_fini, .timeout = 900);

#define SB_RUNS		8	/* sweep runs per tag */
#define SB_PREV		"refs/tags/next-20260101"
#define SB_NEXT		"refs/tags/next-20260102"

static const char *const sb_metrics[] = { "ops_per_sec", "runtime_ms" };

/*
 * Runs the fixture's benchmark n times at commit on this machine, as a
 * sweep's runs would, and stores each run's metrics as the row's runs.
 */
static void
sb_measure(int64_t row, const char *commit, unsigned n)
{
	char *dir, *cnt, *out, *line, *save = NULL;
	struct store_metric m[2];
	struct bd_error err;
	unsigned run = 0;
	int status;
	json_t *j;

	xasprintf(&dir, "%s/measure-%.12s", st.dir, commit);
	xasprintf(&cnt, "%u", n);
	{
		char *argv[] = { "sh", "-c", "set -e; mkdir -p \"$1\"; "
		    "git -C \"$2\" archive \"$3\" | tar -x -C \"$1\"; "
		    "cc -O2 -o \"$1/bench\" \"$1/bench.c\"; i=0; "
		    "while [ $i -lt \"$4\" ]; do \"$1/bench\"; i=$((i+1)); done",
		    "measure", dir, st.repo_path, (char *)commit, cnt, NULL };

		out = tst_run_capture(argv, &status);
	}
	cr_assert_not_null(out);
	cr_assert_eq(status, 0, "measuring %s failed:\n%s", commit, out);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		cr_assert_not_null(j = json_loads(line, 0, NULL), "%s", line);
		m[0].name = "ops_per_sec";
		m[0].value = json_number_value(json_object_get(j,
		    "ops_per_sec"));
		m[0].index = 0;
		m[1].name = "runtime_ms";
		m[1].value = json_number_value(json_object_get(j,
		    "runtime_ms"));
		m[1].index = 0;
		cr_assert_eq(store_sweep_sample_add(st.store, row, ++run, m, 2,
		    &err), 0, "%s", err.msg);
		json_decref(j);
	}
	cr_assert_eq(run, n);
	free(out);
	free(cnt);
	free(dir);
}

/* Made-up sweep runs for rows whose bisection never runs. */
static void
sb_fake_runs(int64_t row, unsigned n, double ops)
{
	struct store_metric m[2] = {
		{ "ops_per_sec", 0, 0 }, { "runtime_ms", 0, 0 },
	};
	struct bd_error err;
	unsigned i;

	for (i = 1; i <= n; i++) {
		m[0].value = ops + i;
		m[1].value = 1e3 / (ops + i);
		cr_assert_eq(store_sweep_sample_add(st.store, row, i, m, 2,
		    &err), 0, "%s", err.msg);
	}
}

/* The sweep's two rows (previous and new ref), as compared rows. */
static void
sb_rows(const char *sweep, const char *prev, const char *next,
    int64_t ids[2])
{
	static int64_t cursor;
	struct store_sweep_ref rows[2];
	struct bd_error err;

	memset(rows, 0, sizeof(rows));
	rows[0].ref = SB_PREV;
	rows[0].commit = prev;
	rows[0].event = ++cursor;
	rows[0].state = STORE_SWEEP_BASELINE;
	rows[1].ref = SB_NEXT;
	rows[1].commit = next;
	rows[1].event = ++cursor;
	rows[1].state = STORE_SWEEP_PENDING;
	cr_assert_eq(store_sweep_advance(st.store, sweep, cursor, rows, 2, ids,
	    &err), 0, "%s", err.msg);
	cr_assert(ids[0] > 0 && ids[1] > 0);
}

/* The change the sweep worker would hand over for rows ids. */
static void
sb_change(struct sweep_change *c, const char *sweep, const int64_t ids[2],
    const char *prev, const char *next, const char *headline)
{
	memset(c, 0, sizeof(*c));
	c->sweep = sweep;
	c->row = ids[1];
	c->prev_row = ids[0];
	c->ref = SB_NEXT;
	c->commit = next;
	c->prev_ref = SB_PREV;
	c->prev_commit = prev;
	c->benchmark = "spin";
	c->group = "lab";
	c->headline = headline;
	c->metrics = sb_metrics;
	c->nmetrics = 2;
	c->priority = -10;
}

struct sb_link {
	int64_t	row;
	int64_t	bisection;
};

static int
sb_link_cb(void *arg, const struct store_sweep_ref *r)
{
	struct sb_link *l = arg;

	if (r->id == l->row)
		l->bisection = r->bisection;
	return 0;
}

/* The bisection a sweep row is linked to, read back from the store. */
static int64_t
sb_linked(const char *sweep, int64_t row)
{
	struct sb_link l = { row, -1 };
	struct bd_error err;

	cr_assert_eq(store_sweep_ref_list(st.store, sweep, sb_link_cb, &l,
	    &err), 0, "%s", err.msg);
	return l.bisection;
}

/*
 * A new tag pair of sweep (rows of prev and next) handed over as a change
 * of headline; the row ends up linked to the returned bisection.
 */
static int64_t
sb_start(const char *sweep, const char *prev, const char *next,
    const char *headline, int64_t ids[2])
{
	struct sweep_change c;
	struct bd_error err;
	int64_t id = 0;

	sb_rows(sweep, prev, next, ids);
	sb_change(&c, sweep, ids, prev, next, headline);
	cr_assert_eq(sweep_bisect_start(st.sched, st.store, &c, &id, &err), 0,
	    "%s", err.msg);
	cr_assert_gt(id, 0);
	cr_assert_eq(sb_linked(sweep, ids[1]), id);
	return id;
}

static int
sb_count_cb(void *arg, const struct store_bisection *b)
{
	if (bisection_params_parent(b->params) == 0)
		++*(size_t *)arg;
	return 0;
}

/*
 * Every stored bisection, whatever its state, but the children that
 * verification starts: they are not the sweeps'.
 */
static size_t
sb_bisections(void)
{
	struct bd_error err;
	size_t n = 0;

	cr_assert_eq(store_bisection_list(st.store, ~0u, sb_count_cb, &n,
	    &err), 0, "%s", err.msg);
	return n;
}

/* A bisection's samples: by the row they were reused from, and its own. */
struct sb_samples {
	int64_t	rows[2];
	size_t	reused[2];	/* per row of rows */
	size_t	other_reused;	/* from any other row */
	size_t	own;
	const char *commit[2];	/* where each row's samples must be */
	int	misplaced;
};

static int
sb_sample_cb(void *arg, const struct store_sample *sm)
{
	struct sb_samples *s = arg;
	int i;

	if (sm->reused_from == 0) {
		s->own++;
		return 0;
	}
	for (i = 0; i < 2; i++)
		if (sm->reused_from == s->rows[i]) {
			s->reused[i]++;
			if (strcmp(sm->commit, s->commit[i]) != 0)
				s->misplaced = 1;
			return 0;
		}
	s->other_reused++;
	return 0;
}

/* The samples of id by origin; rows[0] lends at prev, rows[1] at next. */
static void
sb_samples(int64_t id, const int64_t rows[2], const char *prev,
    const char *next, struct sb_samples *s)
{
	struct bd_error err;

	memset(s, 0, sizeof(*s));
	s->rows[0] = rows[0];
	s->rows[1] = rows[1];
	s->commit[0] = prev;
	s->commit[1] = next;

	cr_assert_eq(store_sample_list(st.store, id, NULL, sb_sample_cb, s,
	    &err), 0, "%s", err.msg);
	cr_assert_not(s->misplaced, "a reused sample at the wrong commit");
}

/* Runs the loop until the next "done" event, which must be a culprit. */
static void
sb_run_to_culprit(int64_t id)
{
	struct store_bisection rec;
	struct bd_error err;

	st.sink.done = 0;
	uv_run(&st.loop, UV_RUN_DEFAULT);
	cr_assert(st.sink.done, "the loop ended without a done event");
	store_bisection_init(&rec);
	cr_assert_eq(store_bisection_get(st.store, id, &rec, &err), 0);
	cr_assert_eq(rec.state, STORE_BISECTION_DONE);
	cr_assert_eq(rec.verdict, STORE_VERDICT_CULPRIT, "verdict %s",
	    store_verdict_name(rec.verdict));
	cr_assert_str_eq(rec.culprit, st.culprit);
	store_bisection_release(&rec);
}

/* Runs the bisection did on the fleet, not counting reused ones. */
static int64_t
sb_own_runs(int64_t id)
{
	struct store_bisection_stats bs;
	struct bd_error err;

	cr_assert_eq(store_bisection_stats(st.store, id, &bs, &err), 0);
	return bs.runs[STORE_RUN_DONE] + bs.runs[STORE_RUN_SKIPPED] +
	    bs.runs[STORE_RUN_FAILED_INFRA] - bs.reused;
}

static int
sb_endpoint_cb(void *arg, const struct store_run *r)
{
	if (r->reused_from == 0 && (strcmp(r->commit, st.good) == 0 ||
	    strcmp(r->commit, st.bad) == 0))
		++*(int64_t *)arg;
	return 0;
}

/* The endpoint flags of the first SB_FIRST own runs, by run id. */
#define SB_FIRST 4

struct sb_first {
	int64_t	id[SB_FIRST];
	int	end[SB_FIRST];
	size_t	n;
};

static int
sb_first_cb(void *arg, const struct store_run *r)
{
	struct sb_first *f = arg;
	size_t i, at;

	if (r->reused_from != 0)
		return 0;
	for (at = 0; at < f->n && f->id[at] < r->id; at++)
		;
	if (at == SB_FIRST)
		return 0;
	if (f->n < SB_FIRST)
		f->n++;
	for (i = f->n - 1; i > at; i--) {
		f->id[i] = f->id[i - 1];
		f->end[i] = f->end[i - 1];
	}
	f->id[at] = r->id;
	f->end[at] = strcmp(r->commit, st.good) == 0 ||
	    strcmp(r->commit, st.bad) == 0;
	return 0;
}

/*
 * How many of the bisection's first SB_FIRST own runs were at the
 * endpoints: the engine's first look (2 a side) when it starts from
 * nothing, none when the sweep's samples stand in for it.
 */
static int
sb_first_look_runs(int64_t id)
{
	struct sb_first f = { { 0 }, { 0 }, 0 };
	struct bd_error err;
	size_t i;
	int n = 0;

	cr_assert_eq(store_run_list(st.store, id, 1u << STORE_RUN_DONE,
	    sb_first_cb, &f, &err), 0, "%s", err.msg);
	cr_assert_eq(f.n, SB_FIRST);
	for (i = 0; i < f.n; i++)
		n += f.end[i];
	return n;
}

/* Own runs at the two endpoints, where the sweep's samples are. */
static int64_t
sb_endpoint_runs(int64_t id)
{
	struct bd_error err;
	int64_t n = 0;

	cr_assert_eq(store_run_list(st.store, id, 1u << STORE_RUN_DONE,
	    sb_endpoint_cb, &n, &err), 0, "%s", err.msg);
	return n;
}

/*
 * The whole path: the sweep's samples become the bisection's own (marked
 * reused, replayed after a restart that neither loses the row's link nor
 * doubles the bisection), it finds the planted culprit with fewer runs
 * than the same bisection without them, its report names the sweep and
 * the tags under a 0-day subject, and a later overlapping change of the
 * same metric links to it.
 */
Test(sweep_bisect, a_change_is_bisected_once_with_the_sweep_samples)
{
	const char *good[1];
	struct sweep_change c;
	struct sched_request r;
	struct sb_samples sm;
	struct bd_error err;
	int64_t ids[2], ids2[2], id = 0, id2 = 0, plain = 0, mine;
	char *text = NULL, *jtext = NULL, *want;
	json_t *rep, *o;
	int existing = 0;

	st_setup("sweepbis-reuse");
	sb_rows("nightly", st.good, st.bad, ids);
	sb_measure(ids[0], st.good, SB_RUNS);
	sb_measure(ids[1], st.bad, SB_RUNS);
	sb_change(&c, "nightly", ids, st.good, st.bad, "ops_per_sec");
	cr_assert_eq(sweep_bisect_start(st.sched, st.store, &c, &id, &err), 0,
	    "%s", err.msg);
	cr_assert_gt(id, 0);
	cr_assert_eq(sb_linked("nightly", ids[1]), id);

	/* Both tags' runs are the bisection's, at good and at bad. */
	sb_samples(id, ids, st.good, st.bad, &sm);
	cr_assert_eq(sm.reused[0], 2 * SB_RUNS);
	cr_assert_eq(sm.reused[1], 2 * SB_RUNS);
	cr_assert_eq(sm.own + sm.other_reused, 0);

	/* A restart keeps the link and starts nothing new. */
	st_sched_shutdown();
	st.sink.resumed = id;
	st_sched_start();
	cr_assert_eq(sweep_bisect_start(st.sched, st.store, &c, &id2, &err),
	    0, "%s", err.msg);
	cr_assert_eq(id2, id);
	cr_assert_eq(sb_bisections(), 1);
	cr_assert_eq(sb_linked("nightly", ids[1]), id);

	sb_run_to_culprit(id);
	/* The engine started from the sweep's headline samples, both sides. */
	cr_assert_eq(st.sink.replayed, 2 * SB_RUNS, "the engine replayed %zu",
	    st.sink.replayed);
	st.sink.resumed = 0;
	mine = sb_own_runs(id);
	sb_samples(id, ids, st.good, st.bad, &sm);
	cr_assert_eq(sm.reused[0] + sm.reused[1], 4 * SB_RUNS,
	    "the reused samples changed");
	cr_assert_gt(sm.own, 0);

	/* The report: sweep, tags, saving, subject, the other metric. */
	cr_assert_eq(store_report_get(st.store, id, &text, &jtext, &err), 0,
	    "%s", err.msg);
	cr_assert_not_null(strstr(text, "sweep: nightly, a change from "
	    SB_PREV " to " SB_NEXT), "%s", text);
	xasprintf(&want, "of them reused from sweep nightly");
	cr_assert_not_null(strstr(text, want), "%s", text);
	free(want);
	xasprintf(&want, "[linux:next-20260102] [subsys2] %.10s: "
	    "spin.ops_per_sec ",
	    st.culprit);
	cr_assert_eq(strncmp(text, want, strlen(want)), 0, "%s", text);
	free(want);
	cr_assert_not_null(strstr(strchr(text, '\n'), "regression"));
	cr_assert_not_null(strstr(text, "runtime_ms"), "%s", text);
	cr_assert_not_null(rep = json_loads(jtext, 0, NULL));
	o = json_object_get(rep, "sweep");
	cr_assert_str_eq(json_string_value(json_object_get(o, "name")),
	    "nightly");
	cr_assert_eq(json_integer_value(json_object_get(o, "reused_samples")),
	    2 * SB_RUNS);
	cr_assert_not_null(strstr(json_string_value(json_object_get(rep,
	    "subject")), "regression"));
	/* The sweep's other metric changed over the same tags: also affects. */
	o = json_array_get(json_object_get(rep, "also_affects"), 0);
	cr_assert_not_null(o, "%s", jtext);
	cr_expect_str_eq(json_string_value(json_object_get(o, "metric")),
	    "runtime_ms");
	cr_expect_str_eq(json_string_value(json_object_get(o, "sweep")),
	    "nightly");
	cr_expect_not_null(strstr(text, "| testcase: change | spin: "
	    "spin.runtime_ms "), "%s", text);
	json_decref(rep);
	free(text);
	free(jtext);

	/*
	 * The same range without the sweep's samples starts with the first
	 * look at the endpoints, which the reuse saves.  Fewer runs in all,
	 * or at the endpoints in all, is what the reuse usually buys, but it
	 * is no property of one pair: the candidates', the re-checks' and
	 * verification's runs of two bisections on real timings vary by more
	 * than the runs saved (19 against 17 in all in one full run of four;
	 * 4 against 4 at the endpoints in one CI run), so those are only
	 * shown.
	 */
	good[0] = st.good;
	st_request(&r, good);
	cr_assert_eq(sched_bisect(st.sched, &r, &plain, &existing, &err), 0,
	    "%s", err.msg);
	cr_assert_not(existing);
	cr_assert_neq(plain, id);
	sb_run_to_culprit(plain);
	cr_log_info("with the sweep's samples %lld runs (%lld at the "
	    "endpoints), without %lld (%lld)", (long long)mine,
	    (long long)sb_endpoint_runs(id), (long long)sb_own_runs(plain),
	    (long long)sb_endpoint_runs(plain));
	cr_assert_eq(sb_first_look_runs(plain), SB_FIRST);
	cr_assert_lt(sb_first_look_runs(id), SB_FIRST / 2);

	/* Another sweep's change over the same range joins the culprit's. */
	id2 = sb_start("weekly", st.good, st.bad, "ops_per_sec", ids2);
	cr_assert(id2 == id || id2 == plain, "linked to %lld", (long long)id2);
	cr_assert_eq(sb_bisections(), 2);
}

/* A commit with parent's tree and parent as its only parent (no ref). */
static void
sb_commit_on(const char *parent, const char *msg, char out[41])
{
	git_commit *p = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid poid, oid;

	cr_assert_eq(git_oid_fromstr(&poid, parent), 0);
	cr_assert_eq(git_commit_lookup(&p, st.repo, &poid), 0);
	cr_assert_eq(git_commit_tree(&tree, p), 0);
	cr_assert_eq(git_signature_new(&sig, "Fixture Author",
	    "author@example.org", 1800000000, 0), 0);
	cr_assert_eq(git_commit_create_v(&oid, st.repo, NULL, sig, sig, NULL,
	    msg, tree, 1, p), 0);
	git_oid_tostr(out, 41, &oid);
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(p);
}

/*
 * A previous tag that is not an ancestor of the new one gives no good
 * samples (its merge base needs its own); a range that shares no commit
 * with a running bisection starts its own; one that does joins it.
 */
Test(sweep_bisect, only_an_ancestor_lends_good_samples_and_only_overlap_joins)
{
	struct sweep_change c;
	struct sb_samples sm;
	struct store_bisection rec;
	struct bd_error err;
	char side[41], child[41];
	int64_t ids[2], ids2[2], ids3[2], id = 0, id2 = 0, id3 = 0;
	json_t *origin;

	st_setup("sweepbis-side");
	sb_commit_on(st.good, "side: a tag rebuilt off the old base", side);
	sb_commit_on(st.bad, "after: one more commit", child);

	sb_rows("side", side, st.bad, ids);
	sb_fake_runs(ids[0], 4, 5e5);
	sb_fake_runs(ids[1], 5, 3e5);
	sb_change(&c, "side", ids, side, st.bad, "ops_per_sec");
	cr_assert_eq(sweep_bisect_start(st.sched, st.store, &c, &id, &err), 0,
	    "%s", err.msg);
	sb_samples(id, ids, side, st.bad, &sm);
	cr_assert_eq(sm.reused[0], 0, "a non-ancestor lent good samples");
	cr_assert_eq(sm.reused[1], 2 * 5);
	store_bisection_init(&rec);
	cr_assert_eq(store_bisection_get(st.store, id, &rec, &err), 0);
	cr_assert_not_null(origin = json_loads(rec.origin, 0, NULL));
	cr_assert_str_eq(json_string_value(json_object_get(origin, "sweep")),
	    "side");
	cr_assert_str_eq(json_string_value(json_object_get(origin,
	    "prev_ref")), SB_PREV);
	cr_assert_eq(json_array_size(json_object_get(origin, "reused_from")),
	    1);
	cr_assert_eq(json_array_size(json_object_get(origin, "metrics")), 2);
	json_decref(origin);
	store_bisection_release(&rec);

	/* bad..child shares no commit with side..bad: its own bisection. */
	id2 = sb_start("after", st.bad, child, "ops_per_sec", ids2);
	cr_assert_neq(id2, id);
	/* good..bad has side..bad's candidates: it joins that bisection. */
	cr_assert_eq(sb_start("weekly", st.good, st.bad, "ops_per_sec", ids3),
	    id);
	/* Another metric over the same range is another bisection. */
	id3 = sb_start("monthly", st.good, st.bad, "runtime_ms", ids3);
	cr_assert_neq(id3, id);
	cr_assert_neq(id3, id2);
	cr_assert_eq(sb_bisections(), 3);

	cr_assert_eq(sched_cancel(st.sched, id, &err), 0, "%s", err.msg);
	cr_assert_eq(sched_cancel(st.sched, id2, &err), 0, "%s", err.msg);
	cr_assert_eq(sched_cancel(st.sched, id3, &err), 0, "%s", err.msg);
	/* Each "done" asked the sink to stop the loop: one turn takes that. */
	uv_run(&st.loop, UV_RUN_NOWAIT);
}
