/* SPDX-License-Identifier: MIT */
/*
 * Fix-ups cherry-picked onto a probed commit: which apply, the patched
 * commit chain, and the check that a fix-up leaves the candidates' files
 * alone.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "repo/fixup.h"
#include "repo/rev.h"
#include "repo/touched.h"

/* The message of libgit2's last error, or "". */
static const char *
fixup_git_msg(void)
{
	const git_error *e = git_error_last();

	return e != NULL && e->message != NULL ? e->message : "";
}

void
repo_fixup_result_release(struct repo_fixup_result *r)
{
	size_t i;

	for (i = 0; i < r->napplied; i++)
		free(r->applied[i]);
	free(r->conflict);
	free(r->conflict_path);
	free(r->overlap);
	free(r->overlap_path);
	memset(r, 0, sizeof(*r));
}

/* Kernel style "Fixes: 1234567890ab ("subject")", first one wins. */
int
repo_fixup_trailer(git_repository *repo, const char *msg, git_oid *broken,
    struct bd_error *err)
{
	const char *p = msg;
	git_object *o = NULL;
	git_oid prefix;
	size_t n;

	while (p != NULL && *p != '\0') {
		if (strncasecmp(p, "Fixes:", 6) == 0) {
			const char *h = p + 6;

			while (*h == ' ' || *h == '\t')
				h++;
			for (n = 0; n < GIT_OID_HEXSZ && isxdigit((unsigned
			    char)h[n]); n++)
				;
			if (n >= 7 && git_oid_fromstrn(&prefix, h, n) == 0 &&
			    git_object_lookup_prefix(&o, repo, &prefix, n,
			    GIT_OBJECT_COMMIT) == 0) {
				git_oid_cpy(broken, git_object_id(o));
				git_object_free(o);
				return 0;
			}
		}
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return bd_error_set(err, -ENOENT, "no Fixes: trailer names a commit "
	    "of the repository");
}

/*
 * A revision of the repository as a commit id, by repo_rev_resolve's rules
 * (no history search on the loop thread), the fix-up named in its error.
 */
static int
fixup_rev(git_repository *repo, const char *rev, git_oid *out,
    struct bd_error *err)
{
	char why[BD_ERROR_MAX];
	int rc = repo_rev_resolve(repo, rev, out, err);

	if (rc < 0) {
		snprintf(why, sizeof(why), "%s", err->msg);
		bd_error_set(err, rc, "fix-up: %s", why);
	}
	return rc;
}

int
repo_fixup_resolve(git_repository *repo, const char *spec, git_oid *fix,
    git_oid *broken, struct bd_error *err)
{
	git_commit *c = NULL;
	char *s = xstrdup(spec), *colon = strchr(s, ':');
	int rc;

	if (colon != NULL)
		*colon++ = '\0';
	if ((rc = fixup_rev(repo, s, fix, err)) < 0)
		goto out;
	if (colon != NULL) {
		rc = fixup_rev(repo, colon, broken, err);
		goto out;
	}
	if (git_commit_lookup(&c, repo, fix) < 0) {
		rc = bd_error_set(err, -ENOENT, "fix-up %s: %s", s,
		    fixup_git_msg());
		goto out;
	}
	if ((rc = repo_fixup_trailer(repo, git_commit_message(c), broken,
	    err)) < 0)
		bd_error_set(err, rc, "fix-up %s names no broken commit: give "
		    "it as %s:BROKEN or add a Fixes: trailer", s, s);
out:
	git_commit_free(c);
	free(s);
	return rc;
}

/* Whether commit contains (is or descends from) anc. */
static int
fixup_contains(git_repository *repo, const git_oid *commit,
    const git_oid *anc)
{
	return git_oid_equal(commit, anc) ||
	    git_graph_descendant_of(repo, commit, anc) == 1;
}

/*
 * Whether a candidate other than fix and broken touches one of paths:
 * the walk diffs each candidate only over those paths, so it stays cheap
 * on a long range.
 */
static int
fixup_overlap(git_repository *repo, const git_oid *bad, const git_oid *good,
    size_t ngood, const git_oid *fix, const git_oid *broken,
    const struct repo_touched *t, char **path, struct bd_error *err)
{
	git_revwalk *w = NULL;
	git_diff_options o;
	git_commit *c = NULL, *pc = NULL;
	git_tree *ct = NULL, *pt = NULL;
	git_diff *d = NULL;
	git_oid id;
	size_t i;
	int rc = 0;

	*path = NULL;
	if (t->n_paths == 0)
		return 0;
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.pathspec.strings = t->paths;
	o.pathspec.count = t->n_paths;
	o.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if (git_revwalk_new(&w, repo) < 0 || git_revwalk_push(w, bad) < 0) {
		rc = bd_error_set(err, -EIO, "fix-up walk: %s",
		    fixup_git_msg());
		goto out;
	}
	for (i = 0; i < ngood; i++)
		if (git_revwalk_hide(w, &good[i]) < 0) {
			rc = bd_error_set(err, -EIO, "fix-up walk: %s",
			    fixup_git_msg());
			goto out;
		}
	while (*path == NULL && git_revwalk_next(&id, w) == 0) {
		if (git_oid_equal(&id, fix) || git_oid_equal(&id, broken))
			continue;
		if (git_commit_lookup(&c, repo, &id) < 0 ||
		    git_commit_tree(&ct, c) < 0 ||
		    (git_commit_parentcount(c) > 0 &&
		    (git_commit_parent(&pc, c, 0) < 0 ||
		    git_commit_tree(&pt, pc) < 0)) ||
		    git_diff_tree_to_tree(&d, repo, pt, ct, &o) < 0) {
			rc = bd_error_set(err, -EIO, "fix-up diff: %s",
			    fixup_git_msg());
			goto out;
		}
		if (git_diff_num_deltas(d) > 0) {
			const git_diff_delta *dd = git_diff_get_delta(d, 0);

			*path = xstrdup(dd->new_file.path ? dd->new_file.path :
			    dd->old_file.path);
		}
		git_diff_free(d);
		git_tree_free(pt);
		git_tree_free(ct);
		git_commit_free(pc);
		git_commit_free(c);
		d = NULL, pt = ct = NULL, pc = c = NULL;
	}
out:
	git_diff_free(d);
	git_tree_free(pt);
	git_tree_free(ct);
	git_commit_free(pc);
	git_commit_free(c);
	git_revwalk_free(w);
	return rc;
}

/*
 * One fix-up picked onto *head; the commit is made by a fixed identity at
 * the probed commit's time, so the same fix-ups on the same commit always
 * give the same sha and the build cache finds it again.
 */
static int
fixup_pick(git_repository *repo, git_commit *fix, git_oid *head,
    git_time_t when, struct repo_fixup_result *r, struct bd_error *err)
{
	git_commit *onto = NULL;
	git_index *idx = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_cherrypick_options co;
	git_oid tree_oid;
	const git_commit *parents[1];
	char *msg = NULL;
	int rc = 0;

	git_cherrypick_options_init(&co, GIT_CHERRYPICK_OPTIONS_VERSION);
	if (git_commit_lookup(&onto, repo, head) < 0 ||
	    git_cherrypick_commit(&idx, repo, fix, onto,
	    git_commit_parentcount(fix) > 1 ? 1 : 0, &co.merge_opts) < 0) {
		rc = bd_error_set(err, -EIO, "fix-up: %s", fixup_git_msg());
		goto out;
	}
	if (git_index_has_conflicts(idx)) {
		git_index_conflict_iterator *it = NULL;
		const git_index_entry *a, *o, *t;

		r->conflict = xstrdup(git_oid_tostr_s(git_commit_id(fix)));
		if (git_index_conflict_iterator_new(&it, idx) == 0 &&
		    git_index_conflict_next(&a, &o, &t, it) == 0)
			r->conflict_path = xstrdup(o ? o->path : t ? t->path :
			    a->path);
		git_index_conflict_iterator_free(it);
		goto out;
	}
	xasprintf(&msg, "%s\n\n(cherry picked from commit %s by bisectd as a "
	    "fix-up)\n", git_commit_message(fix),
	    git_oid_tostr_s(git_commit_id(fix)));
	parents[0] = onto;
	if (git_index_write_tree_to(&tree_oid, idx, repo) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_oid) < 0 ||
	    git_signature_new(&sig, "bisectd", "bisectd@localhost", when,
	    0) < 0 ||
	    git_commit_create(head, repo, NULL, git_commit_author(fix), sig,
	    NULL, msg, tree, 1, parents) < 0)
		rc = bd_error_set(err, -EIO, "fix-up commit: %s",
		    fixup_git_msg());
out:
	free(msg);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(idx);
	git_commit_free(onto);
	return rc;
}

/* Whether spec i repeats an earlier one that resolved to the same fix. */
static int
fixup_seen(const git_oid *fixes, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (git_oid_equal(&fixes[j], &fixes[i]))
			return 1;
	return 0;
}

int
repo_fixup_make(git_repository *repo, const git_oid *probed,
    const char *const *specs, size_t n, const git_oid *bad,
    const git_oid *good, size_t ngood, struct repo_fixup_result *r,
    struct bd_error *err)
{
	git_oid fixes[REPO_FIXUP_MAX], broken, head;
	git_commit *pc = NULL, *fc = NULL, *hc = NULL;
	git_reference *ref = NULL;
	struct repo_touched t;
	char refname[128];
	size_t i;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	repo_touched_init(&t);
	git_oid_cpy(&head, probed);
	if (n > REPO_FIXUP_MAX)
		return bd_error_set(err, -E2BIG, "more than %d fix-ups",
		    REPO_FIXUP_MAX);
	if (git_commit_lookup(&pc, repo, probed) < 0) {
		rc = bd_error_set(err, -ENOENT, "fix-up: %s", fixup_git_msg());
		goto out;
	}
	for (i = 0; i < n && r->conflict == NULL && r->overlap == NULL; i++) {
		if ((rc = repo_fixup_resolve(repo, specs[i], &fixes[i],
		    &broken, err)) < 0)
			goto out;
		if (fixup_seen(fixes, i) ||
		    !fixup_contains(repo, probed, &broken) ||
		    fixup_contains(repo, probed, &fixes[i]))
			continue;
		git_commit_free(fc);
		fc = NULL;
		if (git_commit_lookup(&fc, repo, &fixes[i]) < 0) {
			rc = bd_error_set(err, -ENOENT, "fix-up: %s",
			    fixup_git_msg());
			goto out;
		}
		if ((rc = fixup_pick(repo, fc, &head, git_commit_time(pc), r,
		    err)) < 0)
			goto out;
		if (r->conflict != NULL)
			break;
		/* A conflict says more than an overlap, so it is told first. */
		repo_touched_release(&t);
		if ((rc = repo_touched_get(repo, &fixes[i], &t, err)) < 0 ||
		    (rc = fixup_overlap(repo, bad, good, ngood, &fixes[i],
		    &broken, &t, &r->overlap_path, err)) < 0)
			goto out;
		if (r->overlap_path != NULL) {
			r->overlap = xstrdup(git_oid_tostr_s(&fixes[i]));
			break;
		}
		r->applied[r->napplied++] = xstrdup(git_oid_tostr_s(&fixes[i]));
	}
	git_oid_tostr(r->commit, sizeof(r->commit), &head);
	if (git_commit_lookup(&hc, repo, &head) < 0) {
		rc = bd_error_set(err, -EIO, "fix-up: %s", fixup_git_msg());
		goto out;
	}
	git_oid_tostr(r->tree, sizeof(r->tree), git_commit_tree_id(hc));
	if (r->napplied == 0 || r->conflict != NULL || r->overlap != NULL)
		goto out;
	snprintf(refname, sizeof(refname), REPO_FIXUP_REF_FMT,
	    git_oid_tostr_s(probed));
	if (git_reference_create(&ref, repo, refname, &head, 1,
	    "bisectd: fix-ups over a broken range") < 0)
		rc = bd_error_set(err, -EIO, "fix-up ref: %s", fixup_git_msg());
out:
	if (rc < 0)
		repo_fixup_result_release(r);
	git_reference_free(ref);
	git_commit_free(hc);
	git_commit_free(fc);
	git_commit_free(pc);
	repo_touched_release(&t);
	return rc;
}

/* Pushes the refs of one glob; a glob that matches nothing is no error. */
static int
fixup_push_glob(git_revwalk *w, const char *glob)
{
	int rc = git_revwalk_push_glob(w, glob);

	return rc == GIT_ENOTFOUND ? 0 : rc;
}

int
repo_fixup_find(git_repository *repo, const git_oid *failing,
    const git_oid *bad, size_t limit, char ***out, size_t *nout,
    struct bd_error *err)
{
	git_revwalk *w = NULL;
	git_commit *c = NULL;
	git_oid id, broken;
	struct bd_error terr;
	size_t i, seen = 0;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	if (git_revwalk_new(&w, repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL |
	    GIT_SORT_REVERSE) < 0 ||
	    git_revwalk_push(w, bad) < 0 ||
	    fixup_push_glob(w, "refs/heads/*") < 0 ||
	    fixup_push_glob(w, "refs/remotes/*") < 0 ||
	    fixup_push_glob(w, "refs/tags/*") < 0 ||
	    git_revwalk_hide(w, failing) < 0) {
		rc = bd_error_set(err, -EIO, "fix-up search: %s",
		    fixup_git_msg());
		goto out;
	}
	while (git_revwalk_next(&id, w) == 0 && seen++ < limit &&
	    *nout < REPO_FIXUP_MAX) {
		const char *msg;

		if (git_commit_lookup(&c, repo, &id) < 0) {
			rc = bd_error_set(err, -EIO, "fix-up search: %s",
			    fixup_git_msg());
			goto out;
		}
		msg = git_commit_message(c);
		if (msg != NULL && strcasestr(msg, "Fixes:") != NULL &&
		    repo_fixup_trailer(repo, msg, &broken, &terr) == 0 &&
		    fixup_contains(repo, failing, &broken)) {
			*out = xreallocarray(*out, *nout + 1, sizeof(**out));
			(*out)[(*nout)++] = xstrdup(git_oid_tostr_s(&id));
		}
		git_commit_free(c);
		c = NULL;
	}
out:
	if (rc < 0) {
		for (i = 0; i < *nout; i++)
			free((*out)[i]);
		free(*out);
		*out = NULL;
		*nout = 0;
	}
	git_commit_free(c);
	git_revwalk_free(w);
	return rc;
}
