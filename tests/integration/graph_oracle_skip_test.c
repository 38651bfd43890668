/* SPDX-License-Identifier: MIT */
/*
 * Skipping the commit git chose, again and again, against a real `git
 * bisect start/skip --no-checkout`: with skipped commits git sorts every
 * candidate by distance, then object id (best_bisection_sorted), so each
 * skip of the best commit lands on an equal-distance neighbour when there
 * is one.  Linear history has such ties at every step; the merge-heavy
 * fixtures add them by accident, and skewed committer dates (children
 * older than their parents) change git's list order, which must not
 * matter once commits are skipped.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/integration/graph_oracle.h"
#include "tests/support/tst.h"

TestSuite(graph_oracle_skip, .fini = tst_leak_check);

#define STEST(name) Test(graph_oracle_skip, name, \
    .fini = graph_oracle_cleanup, .timeout = 240)

/* git's answer to `git bisect skip SHA` in the clone. */
static void
git_skip(const char *sha, struct step *gs)
{
	struct av a;
	char *out;
	int st;

	graph_oracle_av_git(&a, graph_oracle.clone);
	graph_oracle_av_add(&a, "bisect");
	graph_oracle_av_add(&a, "skip");
	graph_oracle_av_add(&a, "%s", sha);
	out = graph_oracle_run_out(&a, &st);
	graph_oracle_parse_git_step(out, st, gs);
	free(out);
}

/*
 * Rounds of: start, then skip whatever git offers up to maxskips times,
 * comparing each step with repo_next given the same skips.  Returns how
 * many skip steps were compared.
 */
static size_t
chase_skips(int rounds, size_t maxskips, int first_parent_too)
{
	struct commits all;
	struct revs rv;
	struct step gs, os;
	char *out;
	size_t k, compared = 0;
	int r, st;

	graph_oracle_commits_of(&all, "--all", NULL);
	graph_oracle_make_clone();
	for (r = 0; r < rounds; r++) {
		if (graph_oracle_pick_revs(&rv, &all, NULL) != 0)
			continue;
		if (!first_parent_too)
			rv.fp = 0;
		out = graph_oracle_git_bisect_start(&rv, &st);
		graph_oracle_parse_git_step(out, st, &gs);
		free(out);
		for (k = 0; k < maxskips && gs.kind == SK_TEST &&
		    rv.nskip < MAXREV; k++) {
			snprintf(rv.skip[rv.nskip++], HEXSZ + 1, "%s",
			    gs.commit);
			git_skip(gs.commit, &gs);
			graph_oracle_our_step(&rv, graph_oracle_ancestors_ok() ?
			    REPO_GRAPH_ANCESTORS_OK : 0, &os);
			graph_oracle_assert_same_step(&gs, &os, "skip", r);
			compared++;
		}
		graph_oracle_git_bisect_reset();
	}
	graph_oracle_commits_free(&all);
	return compared;
}

/* Every step of a linear range has two commits at the same distance. */
STEST(skipping_the_best_of_linear_ties)
{
	graph_oracle_fixture("linear", "normal", 41, 300);
	cr_assert_gt(chase_skips(10, 8, 0), 30);
}

STEST(skipping_the_best_of_linear_ties_with_dates_going_backwards)
{
	graph_oracle_fixture("linear", "skew", 42, 400);
	cr_assert_gt(chase_skips(10, 8, 1), 30);
}

STEST(skipping_the_best_with_merges_and_dates_going_backwards)
{
	graph_oracle_fixture("mixed", "skew", 43, 800);
	cr_assert_gt(chase_skips(10, 6, 1), 20);
}

STEST(skipping_the_best_with_merges_and_equal_dates)
{
	graph_oracle_fixture("topics", "equal", 44, 800);
	cr_assert_gt(chase_skips(10, 6, 1), 20);
}

STEST(skipping_the_best_in_linux_next_with_dates_going_backwards)
{
	graph_oracle_fixture("next", "skew", 45, 1500);
	cr_assert_gt(chase_skips(8, 6, 1), 15);
}
