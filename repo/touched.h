/* SPDX-License-Identifier: MIT */
/*
 * The functions a commit's diff touches, as `git diff -W` shows them: every
 * changed line belongs to the function whose header is the nearest line
 * above it that git's funcname rule for C takes as a header (a line that
 * starts with a letter, '_' or '$' and is not a goto label), unless that
 * function's body closed before the line.  Deleted lines are looked up in
 * the parent's file, added lines in the commit's.  Reports put the
 * perf-profile rows of these functions first.
 *
 * The repository is borrowed for the call, which blocks on the object
 * database: the daemon makes it on its thread pool.
 */
#ifndef REPO_TOUCHED_H
#define REPO_TOUCHED_H

#include <stdbool.h>
#include <stddef.h>

#include <git2.h>

#include "common/error.h"

/* Functions kept of one diff; the rest are counted only. */
#define REPO_TOUCHED_MAX	64
/* Blobs larger than this are not searched for functions. */
#define REPO_TOUCHED_MAX_BLOB	(8u << 20)

/*
 * The touched functions (sorted, each once) and the paths the diff changes
 * (old and new names, sorted, each once).  Owned by the caller, freed with
 * repo_touched_release().
 */
struct repo_touched {
	char	**functions;
	size_t	  n_functions;
	size_t	  n_functions_total;	/* before REPO_TOUCHED_MAX */
	char	**paths;
	size_t	  n_paths;
};

void	repo_touched_init(struct repo_touched *t);
void	repo_touched_release(struct repo_touched *t);
/*
 * Fills t from commit's diff against its first parent (against the empty
 * tree for a root commit).  Returns 0 or a negative errno with err set.
 */
int	repo_touched_get(git_repository *repo, const git_oid *commit,
	    struct repo_touched *t, struct bd_error *err);

/*
 * Whether line (len bytes, no newline) is a function-context header for
 * git's C rule; when it is and names a function, its name (the identifier
 * before the first '(') goes to name (size namelen, "" otherwise).
 */
bool	repo_touched_header(const char *line, size_t len, char *name,
	    size_t namelen);

#endif
