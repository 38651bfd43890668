/* SPDX-License-Identifier: MIT */
/*
 * Revision names to commit ids, through libgit2's revision parser once the
 * name has been checked against the few forms bisectd accepts.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "repo/rev.h"

#define REV_FORMS "ref names, full or abbreviated hex ids, each with " \
	"optional ~N or ^N suffixes"

/*
 * The suffix part of a revision: any number of ~N or ^N (N optional
 * digits).  Anything else (^{...}, ^!, ^@, :path) is refused here.
 */
static int
rev_suffix_ok(const char *s)
{
	while (*s != '\0') {
		if (*s != '~' && *s != '^')
			return 0;
		s++;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return 1;
}

/*
 * Accepts a ref name by git's own rules (checked as a branch name, which
 * also refuses "..", "@{", ':', spaces and control characters), or HEAD.
 */
static int
rev_base_ok(const char *base, size_t len)
{
	char ref[300];
	int valid = 0;

	if (len == 0 || len > 255 || base[0] == '-')
		return 0;
	snprintf(ref, sizeof(ref), "refs/heads/%.*s", (int)len, base);
	if (strstr(ref, "@{") != NULL)
		return 0;
	if (git_reference_name_is_valid(&valid, ref) != 0)
		return 0;
	return valid;
}

/*
 * Users name revisions, but git's full syntax includes history searches
 * (:/regex, REV^{/regex}) and reflog lookups that walk the repository on
 * the loop thread; only plain names with ancestry suffixes get through.
 */
int
repo_rev_check(const char *rev, struct bd_error *err)
{
	size_t i, n, len = strlen(rev);
	int shown = len <= 64;

	n = strcspn(rev, "~^");
	if (len <= 255 && rev_base_ok(rev, n) && rev_suffix_ok(rev + n))
		return 0;
	for (i = 0; shown && i < len; i++)
		shown = rev[i] > ' ' && rev[i] < 0x7f;
	if (shown)
		return bd_error_set(err, -EINVAL, "'%s' does not name a commit "
		    "in an accepted form: revisions are %s", rev, REV_FORMS);
	return bd_error_set(err, -EINVAL, "a revision of %zu bytes does not "
	    "name a commit in an accepted form: revisions are %s", len,
	    REV_FORMS);
}

/* Users name revisions; the graph works on commit ids. */
int
repo_rev_resolve(git_repository *repo, const char *rev, git_oid *out,
    struct bd_error *err)
{
	git_object *obj, *commit;
	int rc;

	if ((rc = repo_rev_check(rev, err)) < 0)
		return rc;
	if ((rc = git_revparse_single(&obj, repo, rev)) == GIT_EAMBIGUOUS)
		return bd_error_set(err, -EINVAL, "ambiguous revision '%s': "
		    "more than one object starts so; give more digits", rev);
	if (rc != 0)
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
