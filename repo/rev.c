/*
 * Revision names to commit ids, through libgit2's revision parser.
 */
#include <errno.h>

#include "repo/rev.h"

/* Users name revisions; the graph works on commit ids. */
int
repo_rev_resolve(git_repository *repo, const char *rev, git_oid *out,
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
