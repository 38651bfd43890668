/* SPDX-License-Identifier: MIT */
/*
 * Revision names (ref names, full or abbreviated hex ids, with ~N/^N
 * suffixes) to commit ids.  The repository is borrowed for the call.
 */
#ifndef REPO_REV_H
#define REPO_REV_H

#include <git2.h>

#include "common/error.h"

/*
 * Checks that a revision has one of the accepted forms: a ref name or a
 * hex id, then any number of ~N or ^N.  -EINVAL naming the accepted forms
 * for anything else (:/regex, REV^{...}, @{...}, ranges).
 */
int	repo_rev_check(const char *rev, struct bd_error *err);

/*
 * Resolves a revision (name, sha, tag) to a commit id.  -ENOENT for an
 * unknown revision, -EINVAL when it does not name a commit or has a form
 * repo_rev_check refuses.
 */
int	repo_rev_resolve(git_repository *repo, const char *rev, git_oid *out,
	    struct bd_error *err);

#endif
