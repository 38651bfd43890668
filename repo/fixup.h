/* SPDX-License-Identifier: MIT */
/*
 * Fix-ups: commits cherry-picked onto a probed commit before it is built,
 * so that a stretch of history broken by an unrelated change can still be
 * measured.  A fix-up "SHA" repairs the commit its "Fixes:" trailer names;
 * "SHA:BROKEN" names the repaired commit itself.  A fix-up applies to a
 * probed commit that contains the commit it repairs and not the fix-up.
 *
 * The patched tree is written as a chain of commits on top of the probed
 * commit, under REPO_FIXUP_REF_FMT, so that build hosts fetch it by sha as
 * they fetch a verification's revert.  The repository is borrowed for each
 * call; every call blocks on the object database (thread pool only).
 */
#ifndef REPO_FIXUP_H
#define REPO_FIXUP_H

#include <stddef.h>

#include <git2.h>

#include "common/error.h"

/* The ref the patched commit of a probed commit (hex) is written under. */
#define REPO_FIXUP_REF_FMT	"refs/bisectd/fixup/%s"

/* At most this many fix-ups per bisection. */
#define REPO_FIXUP_MAX		32

/*
 * Result of repo_fixup_make(), owned by the caller and freed with
 * repo_fixup_result_release().  applied lists the fix-ups (full hex) that
 * were picked, in order; when none applies, commit is the probed commit.
 * A conflict is not an error: conflict names the fix-up and path the file.
 * overlap names a fix-up that touches a file a candidate touches (see
 * repo_fixup_overlap()); the build is not made then.
 */
struct repo_fixup_result {
	char	*applied[REPO_FIXUP_MAX];
	size_t	 napplied;
	char	 commit[GIT_OID_HEXSZ + 1];	/* what is built */
	char	 tree[GIT_OID_HEXSZ + 1];	/* its tree */
	char	*conflict;			/* fix-up sha, or NULL */
	char	*conflict_path;
	char	*overlap;			/* fix-up sha, or NULL */
	char	*overlap_path;
};

void	repo_fixup_result_release(struct repo_fixup_result *r);

/*
 * Resolves spec ("REV" or "REV:BROKEN") to the fix-up's commit and the
 * commit it repairs (from the fix-up's Fixes: trailer when no BROKEN is
 * given).  A fix-up without either is an error.
 */
int	repo_fixup_resolve(git_repository *repo, const char *spec,
	    git_oid *fix, git_oid *broken, struct bd_error *err);

/*
 * The commit a "Fixes:" trailer of msg names, resolved in repo; -ENOENT
 * when msg has none or it names no commit of repo.
 */
int	repo_fixup_trailer(git_repository *repo, const char *msg,
	    git_oid *broken, struct bd_error *err);

/*
 * Applies the fix-ups of specs (n of them) that apply to probed, in order,
 * and writes the result; specs may be repeated or not apply at all.
 * Candidates are the range's commits (good ones hidden): when a fix-up
 * touches a file that a candidate other than the fix-up and the commit it
 * repairs touches, nothing is built and r->overlap says why.  Returns 0
 * (also on a conflict or an overlap) or a negative errno with err set.
 */
int	repo_fixup_make(git_repository *repo, const git_oid *probed,
	    const char *const *specs, size_t n, const git_oid *bad,
	    const git_oid *good, size_t ngood, struct repo_fixup_result *r,
	    struct bd_error *err);

/*
 * Fix-ups for a commit that failed: commits that failing does not contain,
 * in the range up to bad and in the refs under refs/heads, refs/remotes
 * and refs/tags (an upstream's newer history), whose Fixes: trailer names
 * a commit failing contains; oldest first, at most limit commits looked
 * at.  *out (n of them, full hex) is the caller's to free.
 */
int	repo_fixup_find(git_repository *repo, const git_oid *failing,
	    const git_oid *bad, size_t limit, char ***out, size_t *nout,
	    struct bd_error *err);

#endif
