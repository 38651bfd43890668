/* SPDX-License-Identifier: MIT */
/*
 * Whole bisections against a planted culprit: the graph module, driven as
 * the engine would drive it, tests the same commits with the same
 * verdicts as `git bisect run` and ends where it ends, on the culprit
 * when nothing is skipped.  Fixtures as in graph_oracle_test.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "bisect/graph.h"
#include "tests/integration/graph_oracle.h"
#include "tests/support/tst.h"

#define STEST(name) Test(graph_oracle, name, \
    .fini = graph_oracle_cleanup, .timeout = 240)


/* Is the culprit an ancestor of (or) x: then x is bad. */
static int
is_bad(const char *culprit, const char *x)
{
	git_oid c, o;

	if (strcmp(culprit, x) == 0)
		return 1;
	graph_oracle_oid_of(culprit, &c);
	graph_oracle_oid_of(x, &o);
	return git_graph_descendant_of(graph_oracle.r, &o, &c) == 1;
}

/*
 * Our loop, as the engine would drive it: each tested commit becomes a
 * good, the new bad or a skip.  The merge-base check runs until it has
 * passed once (git's BISECT_ANCESTORS_OK).  The session lives as long as
 * the git process it mirrors: `git bisect start` is one, each `git bisect
 * run` another, and git 2.39's run stops after a step that asks for a
 * merge base (the test runs it again, a new process).
 */
static void
our_session(struct revs *start, const char *culprit, char broken[][HEXSZ + 1],
    size_t nbroken, struct session *s)
{
	struct repo_next_session *gs = NULL;
	struct bd_error err;
	struct revs rv = *start;
	struct step st;
	unsigned flags = 0;
	const char *x;

	memset(s, 0, sizeof(*s));
	rv.nskip = 0;
	for (;;) {
		if (s->n <= 1 || st.kind == SK_MERGE_BASE) {
			repo_next_session_free(gs);
			cr_assert_eq(repo_next_session_new(&gs, graph_oracle.r,
			    &err), 0);
		}
		graph_oracle_session_step(gs, &rv, flags, &st);
		if (st.kind != SK_TEST && st.kind != SK_MERGE_BASE) {
			s->end = st;
			break;
		}
		if (st.kind == SK_TEST)
			flags = REPO_GRAPH_ANCESTORS_OK;
		cr_assert_lt(s->n, 255, "session does not end");
		x = st.commit;
		snprintf(s->commit[s->n], HEXSZ + 1, "%s", x);
		if (graph_oracle_in_list(broken, nbroken, x)) {
			s->verdict[s->n++] = 's';
			cr_assert_lt(rv.nskip, MAXREV);
			snprintf(rv.skip[rv.nskip++], HEXSZ + 1, "%s", x);
		} else if (is_bad(culprit, x)) {
			s->verdict[s->n++] = 'b';
			snprintf(rv.bad, sizeof(rv.bad), "%s", x);
		} else {
			s->verdict[s->n++] = 'g';
			cr_assert_lt(rv.ngood, MAXREV);
			snprintf(rv.good[rv.ngood++], HEXSZ + 1, "%s", x);
		}
	}
	repo_next_session_free(gs);
}

/*
 * `git bisect run repogen check CULPRIT BROKEN...`, then its log.  git
 * 2.39's `bisect run` stops when a second merge base must be tested
 * ("bisect run cannot continue any more"), so it is run again from where
 * it stopped until the bisection ends.
 */
static void
git_session(struct revs *rv, const char *culprit, char broken[][HEXSZ + 1],
    size_t nbroken, struct session *s)
{
	struct av a;
	char *out, **l;
	size_t i, n;
	int st, runs;

	memset(s, 0, sizeof(*s));
	out = graph_oracle_git_bisect_start(rv, &st);
	graph_oracle_parse_git_step(out, st, &s->end);
	free(out);
	for (runs = 0; runs < 20 && (s->end.kind == SK_TEST ||
	    s->end.kind == SK_MERGE_BASE); runs++) {
		graph_oracle_av_git(&a, graph_oracle.clone);
		graph_oracle_av_add(&a, "bisect");
		graph_oracle_av_add(&a, "run");
		graph_oracle_av_word(&a, graph_oracle_repogen());
		graph_oracle_av_add(&a, "check");
		graph_oracle_av_add(&a, "%s", culprit);
		for (i = 0; i < nbroken; i++)
			graph_oracle_av_add(&a, "%s", broken[i]);
		out = graph_oracle_run_out(&a, &st);
		graph_oracle_parse_git_step(out, 0, &s->end);
		free(out);
	}
	out = graph_oracle_git(graph_oracle.clone, "bisect", "log", NULL);
	n = graph_oracle_lines(out, &l);
	for (i = 0; i < n; i++) {
		char v = 0;

		if (strncmp(l[i], "git bisect good ", 16) == 0)
			v = 'g';
		else if (strncmp(l[i], "git bisect bad ", 15) == 0)
			v = 'b';
		else if (strncmp(l[i], "git bisect skip ", 16) == 0)
			v = 's';
		if (v == 0)
			continue;
		cr_assert_lt(s->n, 255);
		s->verdict[s->n] = v;
		snprintf(s->commit[s->n++], HEXSZ + 1, "%s",
		    strrchr(l[i], ' ') + 1);
	}
	free(l);
	free(out);
	graph_oracle_git_bisect_reset();
}

/* Both sessions side by side, for a person reading a failure. */
static void
dump_sessions(const struct revs *rv, const char *culprit,
    const struct session *gs, const struct session *os)
{
	size_t i;

	fprintf(stderr, "bad %s fp %d culprit %s goods", rv->bad, rv->fp,
	    culprit);
	for (i = 0; i < rv->ngood; i++)
		fprintf(stderr, " %s", rv->good[i]);
	fprintf(stderr, "\n");
	for (i = 0; i < gs->n || i < os->n; i++)
		fprintf(stderr, "  %2zu git %c %s | ours %c %s\n", i,
		    i < gs->n ? gs->verdict[i] : ' ',
		    i < gs->n ? gs->commit[i] : "",
		    i < os->n ? os->verdict[i] : ' ',
		    i < os->n ? os->commit[i] : "");
	fprintf(stderr, "  end git %s %s | ours %s %s\n",
	    graph_oracle_step_names[gs->end.kind], gs->end.commit,
	    graph_oracle_step_names[os->end.kind], os->end.commit);
}

/* Random endpoints and culprits; broken commits in every other session. */
static void
bisect_run_sessions(int sessions, int with_tags)
{
	struct commits all, tags, range;
	struct revs rv;
	struct session gs, os;
	char culprit[HEXSZ + 1], broken[MAXREV][HEXSZ + 1];
	struct av a;
	size_t i, nbroken, k;
	int r, st, found = 0;

	graph_oracle_commits_of(&all, "--all", NULL);
	if (with_tags)
		graph_oracle_next_tags(&tags);
	graph_oracle_make_clone();
	for (r = 0; r < sessions; r++) {
		if (graph_oracle_pick_revs(&rv, &all, with_tags ? &tags :
		    NULL) != 0)
			continue;
		rv.fp = r % 4 == 3;
		graph_oracle_av_git(&a, graph_oracle.repo);
		graph_oracle_av_add(&a, "rev-list");
		graph_oracle_av_range(&a, &rv, 1);
		range.buf = graph_oracle_run_out(&a, &st);
		range.n = graph_oracle_lines(range.buf, &range.v);
		if (range.n < 2) {
			graph_oracle_commits_free(&range);
			continue;
		}
		snprintf(culprit, sizeof(culprit), "%s",
		    range.v[graph_oracle_rndn(range.n)]);
		/* Half the sessions have unbuildable commits. */
		nbroken = 0;
		k = r % 2 ? range.n / 12 + 1 : 0;
		for (i = 0; i < k && nbroken < MAXREV; i++) {
			const char *x = range.v[graph_oracle_rndn(range.n)];

			if (!graph_oracle_in_list(broken, nbroken, x))
				snprintf(broken[nbroken++], HEXSZ + 1, "%s", x);
		}
		graph_oracle_commits_free(&range);
		git_session(&rv, culprit, broken, nbroken, &gs);
		our_session(&rv, culprit, broken, nbroken, &os);
		if (getenv("GRAPH_DEBUG") != NULL)
			dump_sessions(&rv, culprit, &gs, &os);
		cr_assert_eq(os.n, gs.n, "session %d: git tested %zu commits, "
		    "we %zu", r, gs.n, os.n);
		for (i = 0; i < gs.n; i++) {
			cr_assert_str_eq(os.commit[i], gs.commit[i],
			    "session %d step %zu", r, i);
			cr_assert_eq(os.verdict[i], gs.verdict[i]);
		}
		graph_oracle_assert_same_step(&gs.end, &os.end, "session end",
		    r);
		if (nbroken == 0 && !rv.fp && gs.end.kind != SK_ERROR) {
			cr_assert_eq(os.end.kind, SK_FOUND);
			cr_assert_str_eq(os.end.commit, culprit,
			    "session %d did not end on the culprit", r);
			found++;
		}
	}
	graph_oracle_commits_free(&all);
	if (with_tags)
		graph_oracle_commits_free(&tags);
	cr_assert_gt(found, 0, "no session ended on a planted culprit");
}

STEST(bisect_run_sessions_topics_and_octopus)
{
	graph_oracle_fixture("mixed", "normal", 21, 2000);
	bisect_run_sessions(8, 0);
}

STEST(bisect_run_sessions_linux_next)
{
	graph_oracle_fixture("next", "normal", 22, 2500);
	bisect_run_sessions(8, 1);
}

STEST(bisect_run_sessions_skewed_dates)
{
	graph_oracle_fixture("mixed", "skew", 23, 2000);
	bisect_run_sessions(8, 0);
}

