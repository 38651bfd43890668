/* SPDX-License-Identifier: MIT */
/*
 * One stateless step of `git bisect next`: revisions in, what to do out.
 * git keeps state files (BISECT_ANCESTORS_OK, BISECT_EXPECTED_REV); the
 * caller passes every good and skipped revision each time instead, which
 * gives git's answers: the merge-base check runs while some good revision
 * is not an ancestor of bad and one of the merge bases is still untested.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/graph.h"
#include "common/xmalloc.h"
#include "repo/commits.h"
#include "repo/graph.h"
#include "repo/next.h"
#include "repo/walk.h"

/* A zeroed answer can always be released. */
void
repo_next_init(struct repo_next *nx)
{
	memset(nx, 0, sizeof(*nx));
}

/* Frees the candidate and skipped merge-base lists. */
void
repo_next_release(struct repo_next *nx)
{
	free(nx->cands);
	free(nx->skipped_mb);
	memset(nx, 0, sizeof(*nx));
}

/* Revision lists are short: a linear scan is enough. */
static int
oid_in(const git_oid *oid, const git_oid *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (git_oid_equal(oid, &set[i]))
			return 1;
	return 0;
}

/* git's words for a merge base that tested bad, with the commits named. */
static int
bad_merge_base(const struct repo_revs *revs, struct bd_error *err)
{
	char bad[GIT_OID_HEXSZ + 1], hex[GIT_OID_HEXSZ + 1];
	char goods[BD_ERROR_MAX];
	size_t i, len = 0;

	git_oid_tostr(bad, sizeof(bad), &revs->bad);
	goods[0] = '\0';
	for (i = 0; i < revs->ngood && len + GIT_OID_HEXSZ + 2 < sizeof(goods);
	    i++) {
		git_oid_tostr(hex, sizeof(hex), &revs->good[i]);
		len += (size_t)snprintf(goods + len, sizeof(goods) - len,
		    "%s%s", i ? " " : "", hex);
	}
	return bd_error_set(err, -EINVAL, "The merge base %s is bad. This "
	    "means the bug has been fixed between %s and [%s]. (The bad "
	    "revision is an ancestor of a good one: if it was not a merge base "
	    "you were asked to test, good and bad are swapped.)", bad, bad,
	    goods);
}

/*
 * git's check_good_are_ancestors_of_bad: when the walk `^BAD GOOD...` is
 * not empty, go through the merge bases of bad and the good revisions in
 * git's order; the first one neither good nor skipped must be tested.
 * Sets *done when nx holds that answer.
 */
static int
check_merge_bases(struct repo_commits *st, const struct repo_revs *revs,
    struct repo_next *nx, int *done, struct bd_error *err)
{
	uint32_t *starts, *list = NULL, *mbs = NULL;
	uint8_t *neg;
	size_t i, nlist = 0, nmb = 0;
	const git_oid *mb;
	int rc;

	*done = 0;
	if (revs->ngood == 0)
		return 0;
	starts = xcalloc(revs->ngood + 1, sizeof(uint32_t));
	neg = xcalloc(revs->ngood + 1, 1);
	starts[0] = repo_commits_lookup(st, &revs->bad);
	neg[0] = 1;
	for (i = 0; i < revs->ngood; i++)
		starts[i + 1] = repo_commits_lookup(st, &revs->good[i]);
	rc = repo_walk_limit(st, starts, neg, revs->ngood + 1, 0, &list,
	    &nlist, err);
	if (rc != 0 || nlist == 0)
		goto out;
	repo_commits_clear(st, CF_WALK_FLAGS);
	rc = repo_walk_merge_bases(st, starts[0], starts + 1, revs->ngood,
	    &mbs, &nmb, err);
	for (i = 0; rc == 0 && i < nmb; i++) {
		mb = &st->c[mbs[i]].oid;
		if (mbs[i] == starts[0]) {
			rc = bad_merge_base(revs, err);
			break;
		}
		if (oid_in(mb, revs->good, revs->ngood))
			continue;
		if (oid_in(mb, revs->skip, revs->nskip)) {
			nx->skipped_mb = xreallocarray(nx->skipped_mb,
			    nx->nskipped_mb + 1, sizeof(git_oid));
			git_oid_cpy(&nx->skipped_mb[nx->nskipped_mb++], mb);
			continue;
		}
		nx->kind = REPO_NEXT_TEST_MERGE_BASE;
		git_oid_cpy(&nx->commit, mb);
		*done = 1;
		break;
	}
out:
	free(mbs);
	free(list);
	free(starts);
	free(neg);
	repo_commits_clear(st, CF_WALK_FLAGS | CF_PAINT_FLAGS);
	return rc;
}

/* Maps git's choice on the loaded graph back to commit ids. */
static int
choose(struct repo_commits *st, const struct repo_revs *revs,
    struct repo_next *nx, struct bd_error *err)
{
	struct graph g;
	struct graph_choice c;
	uint8_t *skip;
	ssize_t x;
	size_t i;
	int rc;

	if ((rc = repo_graph_load_commits(&g, st, &revs->bad, revs->good,
	    revs->ngood, revs->flags, err)) != 0)
		return rc;
	skip = xcalloc(g.n, 1);
	for (i = 0; i < revs->nskip; i++)
		if ((x = repo_graph_find(&g, &revs->skip[i])) >= 0)
			skip[x] = 1;
	rc = graph_git_choice(&g, skip, revs->nskip > 0, &c, err);
	free(skip);
	if (rc != 0) {
		graph_release(&g);
		return rc;
	}
	nx->all = c.all;
	nx->left = c.left;
	nx->steps = c.steps;
	repo_graph_oid(&g, c.commit, &nx->commit);
	switch (c.kind) {
	case GRAPH_CHOICE_TEST:
		nx->kind = REPO_NEXT_TEST;
		break;
	case GRAPH_CHOICE_FOUND:
		nx->kind = REPO_NEXT_FOUND;
		break;
	case GRAPH_CHOICE_ONLY_SKIPPED:
		nx->kind = REPO_NEXT_ONLY_SKIPPED;
		nx->cands = xcalloc(c.ncands ? c.ncands : 1, sizeof(git_oid));
		for (i = 0; i < c.ncands; i++)
			repo_graph_oid(&g, c.cands[i], &nx->cands[i]);
		nx->ncands = c.ncands;
		break;
	}
	graph_choice_release(&c);
	graph_release(&g);
	return 0;
}

/* A commit cache kept across steps, as in one git process. */
struct repo_next_session {
	struct repo_commits st;
};

/* One commit cache for the whole session, as one git process has. */
int
repo_next_session_new(struct repo_next_session **sp, git_repository *repo,
    struct bd_error *err)
{
	struct repo_next_session *s = xcalloc(1, sizeof(*s));
	int rc;

	if ((rc = repo_commits_init(&s->st, repo, err)) != 0) {
		free(s);
		return rc;
	}
	*sp = s;
	return 0;
}

/* Releases the cache and every parsed commit. */
void
repo_next_session_free(struct repo_next_session *s)
{
	if (s == NULL)
		return;
	repo_commits_release(&s->st);
	free(s);
}

/* One step; marks from the last step go, parsed commits stay. */
int
repo_next_session_step(struct repo_next_session *s,
    const struct repo_revs *revs, struct repo_next *nx, struct bd_error *err)
{
	char hex[GIT_OID_HEXSZ + 1];
	int rc = 0, done = 0;

	repo_next_init(nx);
	if (oid_in(&revs->bad, revs->good, revs->ngood)) {
		git_oid_tostr(hex, sizeof(hex), &revs->bad);
		return bd_error_set(err, -EINVAL, "%s was both good and bad: "
		    "a good revision is the same commit as the bad one", hex);
	}
	/* Flags go, parsed commits stay: git clears marks between walks. */
	repo_commits_clear(&s->st, CF_WALK_FLAGS | CF_PAINT_FLAGS);
	if (!(revs->flags & REPO_GRAPH_ANCESTORS_OK))
		rc = check_merge_bases(&s->st, revs, nx, &done, err);
	if (rc == 0 && !done)
		rc = choose(&s->st, revs, nx, err);
	if (rc != 0)
		repo_next_release(nx);
	return rc;
}

/* One step in a fresh session, as one `git bisect` command. */
int
repo_next(git_repository *repo, const struct repo_revs *revs,
    struct repo_next *nx, struct bd_error *err)
{
	struct repo_next_session *s;
	int rc;

	repo_next_init(nx);
	if ((rc = repo_next_session_new(&s, repo, err)) != 0)
		return rc;
	rc = repo_next_session_step(s, revs, nx, err);
	repo_next_session_free(s);
	return rc;
}
