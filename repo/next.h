/* SPDX-License-Identifier: MIT */
/*
 * One step of `git bisect` on a repository, without git's state files:
 * the caller passes every good and skipped revision each time.
 *
 * Ownership: revision arrays belong to the caller; a struct repo_next owns
 * its lists until repo_next_release(); a session borrows the repository,
 * which must outlive it, and owns its parsed commits.
 */
#ifndef REPO_NEXT_H
#define REPO_NEXT_H

#include <stddef.h>

#include <git2.h>

#include "common/error.h"
#include "repo/graph.h"

/* Revisions of one stateless bisection step. */
struct repo_revs {
	git_oid		 bad;
	const git_oid	*good;
	size_t		 ngood;
	const git_oid	*skip;
	size_t		 nskip;
	unsigned	 flags;		/* enum repo_graph_flags */
};

enum repo_next_kind {
	REPO_NEXT_TEST,			/* test `commit` */
	REPO_NEXT_TEST_MERGE_BASE,	/* a merge base must be tested first */
	REPO_NEXT_FOUND,		/* `commit` is the first bad commit */
	REPO_NEXT_ONLY_SKIPPED,		/* the culprit is one of cands */
};

struct repo_next {
	enum repo_next_kind kind;
	git_oid		 commit;
	size_t		 all;		/* candidates (0 for a merge base) */
	size_t		 left;		/* revisions left after this one */
	int		 steps;		/* estimated steps left */
	git_oid		*cands;		/* ONLY_SKIPPED, owned */
	size_t		 ncands;
	git_oid		*skipped_mb;	/* skipped merge bases, owned */
	size_t		 nskipped_mb;
};

void	repo_next_init(struct repo_next *nx);
void	repo_next_release(struct repo_next *nx);

/*
 * One step of `git bisect` without its state files: the merge-base check
 * when a good revision is not an ancestor of bad (unless revs->flags has
 * REPO_GRAPH_ANCESTORS_OK), then git's choice.
 * Errors: -EINVAL when good equals bad, when bad is an ancestor of a good
 * revision (a merge base that tested bad: the message names the commits),
 * or for an empty range; -EIO for missing objects.
 */
int	repo_next(git_repository *repo, const struct repo_revs *revs,
	    struct repo_next *nx, struct bd_error *err);

/*
 * A bisection session: like repo_next, but commits parsed in one step are
 * kept for the next ones, as inside one git process (`git bisect run`
 * runs all its steps in one).  Faster, and needed to replay `git bisect
 * run` exactly on histories with badly skewed dates, where what git has
 * parsed decides how far its walk propagates "uninteresting".  One
 * session per repository and thread; free it with repo_next_session_free.
 */
struct repo_next_session;

int	repo_next_session_new(struct repo_next_session **s,
	    git_repository *repo, struct bd_error *err);
void	repo_next_session_free(struct repo_next_session *s);
int	repo_next_session_step(struct repo_next_session *s,
	    const struct repo_revs *revs, struct repo_next *nx,
	    struct bd_error *err);

#endif
