/* SPDX-License-Identifier: MIT */
/*
 * Whom a culprit's mail should reach, from the MAINTAINERS file of the tree
 * at the culprit, read as data (never by running scripts/get_maintainer.pl
 * or anything else from the repository): each section whose F: or N:
 * patterns match a path the diff changes, and whose X: patterns do not,
 * gives its M: maintainers as To and its R: reviewers and L: lists as Cc.
 * Patterns match as get_maintainer.pl's basic file matching does: a glob
 * ('*', '?') matched from the start of the path; one that ends in '/' or
 * names a directory of the tree matches everything under it, any other
 * only paths as deep as itself.  "THE REST" counts only when no other
 * section matched.
 */
#ifndef REPO_MAINTAINERS_H
#define REPO_MAINTAINERS_H

#include <stdbool.h>
#include <stddef.h>

#include <git2.h>

#include "common/error.h"

/* Addresses kept of each kind; a mail to more helps nobody. */
#define REPO_MAINT_MAX	32

/*
 * Proposed recipients, "Name <mail>" or "mail" (lists without their
 * "(moderated ...)" note), each address once, in MAINTAINERS order.  Owned
 * by the caller, freed with repo_maint_release().
 */
struct repo_maint {
	char	**to;
	size_t	  n_to;
	char	**cc;
	size_t	  n_cc;
};

void	repo_maint_init(struct repo_maint *m);
void	repo_maint_release(struct repo_maint *m);
/*
 * Adds addr to to (cc false) or cc unless its address is already in either
 * list; the lists stay within REPO_MAINT_MAX.
 */
void	repo_maint_add(struct repo_maint *m, bool cc, const char *addr);

/*
 * Matches paths against the MAINTAINERS text (len bytes) and adds the
 * recipients to m.  is_dir tells whether a pattern without a trailing '/'
 * names a directory (NULL: never).
 */
void	repo_maint_match(const char *text, size_t len,
	    const char *const *paths, size_t n_paths,
	    bool (*is_dir)(void *arg, const char *path), void *arg,
	    struct repo_maint *m);
/*
 * The same for the MAINTAINERS file at commit's tree; a tree without one
 * adds nothing.  Returns 0 or a negative errno with err set.
 */
int	repo_maint_get(git_repository *repo, const git_oid *commit,
	    const char *const *paths, size_t n_paths, struct repo_maint *m,
	    struct bd_error *err);

#endif
