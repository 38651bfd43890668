/*
 * Revision names (branch, tag, sha, any git revision syntax) to commit ids.
 * The repository is borrowed for the call.
 */
#ifndef REPO_REV_H
#define REPO_REV_H

#include <git2.h>

#include "common/error.h"

/*
 * Resolves a revision (name, sha, tag) to a commit id.  -ENOENT for an
 * unknown revision, -EINVAL when it does not name a commit.
 */
int	repo_rev_resolve(git_repository *repo, const char *rev, git_oid *out,
	    struct bd_error *err);

#endif
