/* SPDX-License-Identifier: MIT */
/*
 * Checks of a culprit that need the repository: its revert made on top of
 * the bad revision (written as a commit object under refs/bisectd/revert/ID
 * so that builds can fetch it by sha), and the signs of a wrong bisection
 * that its diff shows (a merge, a change only to documentation, comments,
 * tools or another architecture).
 *
 * The repository is borrowed for each call; every call blocks on the
 * object database, so the daemon makes them on its thread pool.
 */
#ifndef REPO_REVERT_H
#define REPO_REVERT_H

#include <stddef.h>
#include <stdint.h>

#include <git2.h>

#include "common/error.h"

/* The ref the revert of bisection id is written under. */
#define REPO_REVERT_REF_FMT	"refs/bisectd/revert/%lld"

/* Files named in a conflict, at most this many are kept. */
#define REPO_REVERT_MAX_CONFLICTS	16

/*
 * Result of repo_revert_make(): either applied (commit is the new revert
 * commit, whose only parent is bad) or not, with the conflicting paths.
 * Owned by the caller, freed with repo_revert_release().
 */
struct repo_revert {
	int		 applied;
	git_oid		 commit;
	char		*conflicts[REPO_REVERT_MAX_CONFLICTS];
	size_t		 nconflicts;	/* kept; total may be larger */
	size_t		 nconflicts_total;
};

/*
 * Reverts culprit against bad (a merge against its first parent) and, when
 * it applies cleanly, writes the result as a commit "Revert ..." whose
 * parent is bad and points REPO_REVERT_REF_FMT of id at it (replacing an
 * older one).  A conflict is not an error: r->applied is 0 and the paths
 * are listed.  Returns 0 or a negative errno with err set.
 */
int	repo_revert_make(git_repository *repo, const git_oid *culprit,
	    const git_oid *bad, int64_t id, struct repo_revert *r,
	    struct bd_error *err);
void	repo_revert_release(struct repo_revert *r);

/* Signs of a wrong bisection in a culprit (repo_suspect() bits). */
enum repo_suspect_flag {
	REPO_SUSPECT_MERGE	= 1 << 0,	/* more than one parent */
	REPO_SUSPECT_DOCS	= 1 << 1,	/* only Documentation/ */
	REPO_SUSPECT_COMMENTS	= 1 << 2,	/* only comments or blank lines */
	REPO_SUSPECT_TOOLS	= 1 << 3,	/* only tools/ */
	REPO_SUSPECT_OTHER_ARCH	= 1 << 4,	/* only arch/X/, X not ours */
};

/*
 * Flags culprit from its diff against its first parent; arch (NULL: x86)
 * is the architecture the benchmark builds.  *flags gets the bits.
 */
int	repo_suspect(git_repository *repo, const git_oid *culprit,
	    const char *arch, unsigned *flags, struct bd_error *err);
/* The report's words for one flag, or NULL for an unknown bit. */
const char *repo_suspect_text(unsigned flag);

#endif
