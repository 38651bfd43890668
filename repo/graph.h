/* SPDX-License-Identifier: MIT */
/*
 * Loading the candidate DAG of a bisection (bisect/graph.h) from a git
 * repository, and converting between its commit ids and libgit2's.
 *
 * Ownership: the repository is borrowed for the call; the loaded graph
 * belongs to the caller (graph_release).
 */
#ifndef REPO_GRAPH_H
#define REPO_GRAPH_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <git2.h>

#include "bisect/graph.h"
#include "common/error.h"

enum repo_graph_flags {
	REPO_GRAPH_FIRST_PARENT = 1 << 0,	/* only first parents, as git */
	/*
	 * repo_next: the merge bases passed the check in an earlier step, so
	 * skip it, as git does once it has written BISECT_ANCESTORS_OK.  Only
	 * matters for replaying a session exactly: git's first step walks
	 * with the commits the check parsed, later steps afresh, and with
	 * badly skewed dates the two walks can differ.
	 */
	REPO_GRAPH_ANCESTORS_OK = 1 << 1,
};

/*
 * Loads `git rev-list BAD --not GOOD...` from repo, exactly as git's
 * limited revision walk computes it (same commits, same list order, even
 * with skewed commit dates).  Reads commits from the repository's
 * commit-graph file when there is one and through libgit2's object
 * database otherwise.  flags: enum repo_graph_flags.  Errors: -EINVAL for
 * an empty range, -EIO for missing or corrupt objects.
 */
int	repo_graph_load(struct graph *g, git_repository *repo,
	    const git_oid *bad, const git_oid *good, size_t ngood,
	    unsigned flags, struct bd_error *err);

struct repo_commits;

/*
 * repo_graph_load on an existing commit cache, whose parsed commits it
 * reuses, as git does when one process runs the merge-base check and then
 * the walk.  Every record's aux field is overwritten.
 */
int	repo_graph_load_commits(struct graph *g, struct repo_commits *st,
	    const git_oid *bad, const git_oid *good, size_t ngood,
	    unsigned flags, struct bd_error *err);

/* Index of oid in g (which must have oids), or -1. */
ssize_t	repo_graph_find(const struct graph *g, const git_oid *oid);

/* libgit2's id of candidate x of a loaded graph. */
void	repo_graph_oid(const struct graph *g, uint32_t x, git_oid *out);

/* The two id types hold the same bytes. */
void	repo_graph_oid_from_git(struct graph_oid *out, const git_oid *in);
void	repo_graph_oid_to_git(git_oid *out, const struct graph_oid *in);

#endif
