/*
 * One stateless step of `git bisect next`: revisions in, what to do out.
 * git keeps state files (BISECT_ANCESTORS_OK, BISECT_EXPECTED_REV); the
 * caller passes every good and skipped revision each time instead, which
 * gives git's answers: the merge-base check runs while some good revision
 * is not an ancestor of bad and one of the merge bases is still untested.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/graph.h"
#include "bisect/graph_int.h"
#include "common/xmalloc.h"

/* A zeroed answer can always be released. */
void
graph_next_init(struct graph_next *nx)
{
	memset(nx, 0, sizeof(*nx));
}

/* Frees the candidate and skipped merge-base lists. */
void
graph_next_release(struct graph_next *nx)
{
	free(nx->cands);
	free(nx->skipped_mb);
	memset(nx, 0, sizeof(*nx));
}

/* Users name revisions; the graph works on commit ids. */
int
graph_resolve(git_repository *repo, const char *rev, git_oid *out,
    struct bd_error *err)
{
	git_object *obj, *commit;

	if (git_revparse_single(&obj, repo, rev) != 0)
		return bd_error_set(err, -ENOENT, "unknown revision '%s'", rev);
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) != 0) {
		git_object_free(obj);
		return bd_error_set(err, -EINVAL, "'%s' does not name a commit",
		    rev);
	}
	git_oid_cpy(out, git_object_id(commit));
	git_object_free(commit);
	git_object_free(obj);
	return 0;
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
bad_merge_base(const struct graph_revs *revs, struct bd_error *err)
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
check_merge_bases(struct graph_store *st, const struct graph_revs *revs,
    struct graph_next *nx, int *done, struct bd_error *err)
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
	starts[0] = graph_store_lookup(st, &revs->bad);
	neg[0] = 1;
	for (i = 0; i < revs->ngood; i++)
		starts[i + 1] = graph_store_lookup(st, &revs->good[i]);
	rc = graph_walk_limit(st, starts, neg, revs->ngood + 1, 0, &list,
	    &nlist, err);
	if (rc != 0 || nlist == 0)
		goto out;
	graph_store_clear(st, GS_WALK_FLAGS);
	rc = graph_walk_merge_bases(st, starts[0], starts + 1, revs->ngood,
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
		nx->kind = GRAPH_NEXT_TEST_MERGE_BASE;
		git_oid_cpy(&nx->commit, mb);
		*done = 1;
		break;
	}
out:
	free(mbs);
	free(list);
	free(starts);
	free(neg);
	graph_store_clear(st, GS_WALK_FLAGS | GS_PAINT_FLAGS);
	return rc;
}

/* Maps git's choice on the loaded graph back to commit ids. */
static int
choose(struct graph_store *st, const struct graph_revs *revs,
    struct graph_next *nx, struct bd_error *err)
{
	struct graph g;
	struct graph_choice c;
	uint8_t *skip;
	ssize_t x;
	size_t i;
	int rc;

	if ((rc = graph_load_store(&g, st, &revs->bad, revs->good,
	    revs->ngood, revs->flags, err)) != 0)
		return rc;
	skip = xcalloc(g.n, 1);
	for (i = 0; i < revs->nskip; i++)
		if ((x = graph_find(&g, &revs->skip[i])) >= 0)
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
	git_oid_cpy(&nx->commit, &g.oids[c.commit]);
	switch (c.kind) {
	case GRAPH_CHOICE_TEST:
		nx->kind = GRAPH_NEXT_TEST;
		break;
	case GRAPH_CHOICE_FOUND:
		nx->kind = GRAPH_NEXT_FOUND;
		break;
	case GRAPH_CHOICE_ONLY_SKIPPED:
		nx->kind = GRAPH_NEXT_ONLY_SKIPPED;
		nx->cands = xcalloc(c.ncands ? c.ncands : 1, sizeof(git_oid));
		for (i = 0; i < c.ncands; i++)
			git_oid_cpy(&nx->cands[i], &g.oids[c.cands[i]]);
		nx->ncands = c.ncands;
		break;
	}
	graph_choice_release(&c);
	graph_release(&g);
	return 0;
}

/* A store kept across steps, as in one git process. */
struct graph_session {
	struct graph_store st;
};

/* One store for the whole session, as one git process has. */
int
graph_session_new(struct graph_session **sp, git_repository *repo,
    struct bd_error *err)
{
	struct graph_session *s = xcalloc(1, sizeof(*s));
	int rc;

	if ((rc = graph_store_init(&s->st, repo, err)) != 0) {
		free(s);
		return rc;
	}
	*sp = s;
	return 0;
}

/* Releases the store and every parsed commit. */
void
graph_session_free(struct graph_session *s)
{
	if (s == NULL)
		return;
	graph_store_release(&s->st);
	free(s);
}

/* One step; marks from the last step go, parsed commits stay. */
int
graph_session_next(struct graph_session *s, const struct graph_revs *revs,
    struct graph_next *nx, struct bd_error *err)
{
	char hex[GIT_OID_HEXSZ + 1];
	int rc = 0, done = 0;

	graph_next_init(nx);
	if (oid_in(&revs->bad, revs->good, revs->ngood)) {
		git_oid_tostr(hex, sizeof(hex), &revs->bad);
		return bd_error_set(err, -EINVAL, "%s was both good and bad: "
		    "a good revision is the same commit as the bad one", hex);
	}
	/* Flags go, parsed commits stay: git clears marks between walks. */
	graph_store_clear(&s->st, GS_WALK_FLAGS | GS_PAINT_FLAGS);
	if (!(revs->flags & GRAPH_ANCESTORS_OK))
		rc = check_merge_bases(&s->st, revs, nx, &done, err);
	if (rc == 0 && !done)
		rc = choose(&s->st, revs, nx, err);
	if (rc != 0)
		graph_next_release(nx);
	return rc;
}

/* One step in a fresh session, as one `git bisect` command. */
int
graph_next(git_repository *repo, const struct graph_revs *revs,
    struct graph_next *nx, struct bd_error *err)
{
	struct graph_session *s;
	int rc;

	graph_next_init(nx);
	if ((rc = graph_session_new(&s, repo, err)) != 0)
		return rc;
	rc = graph_session_next(s, revs, nx, err);
	graph_session_free(s);
	return rc;
}
