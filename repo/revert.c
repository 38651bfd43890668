/* SPDX-License-Identifier: MIT */
/*
 * The revert of a culprit on top of the bad revision, and the diff checks
 * that flag a suspicious culprit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "repo/revert.h"

/* The message of libgit2's last error, or "". */
static const char *
revert_git_msg(void)
{
	const git_error *e = git_error_last();

	return e != NULL && e->message != NULL ? e->message : "";
}

/* Keeps the conflicting paths of idx, the report names them. */
static int
revert_conflicts(git_index *idx, struct repo_revert *r, struct bd_error *err)
{
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *anc, *ours, *theirs;
	const char *path;
	int rc;

	if (git_index_conflict_iterator_new(&it, idx) < 0)
		return bd_error_set(err, -EIO, "revert: %s", revert_git_msg());
	while ((rc = git_index_conflict_next(&anc, &ours, &theirs, it)) == 0) {
		path = ours ? ours->path : theirs ? theirs->path :
		    anc ? anc->path : NULL;
		if (path == NULL)
			continue;
		if (r->nconflicts < REPO_REVERT_MAX_CONFLICTS)
			r->conflicts[r->nconflicts++] = xstrdup(path);
		r->nconflicts_total++;
	}
	git_index_conflict_iterator_free(it);
	return 0;
}

/*
 * The commit is made by a fixed identity at bad's commit time, so the same
 * revert always gets the same sha: after a restart, runs stored for it
 * still name it.
 */
static int
revert_commit(git_repository *repo, git_commit *culprit, git_commit *bad,
    const git_oid *tree_oid, int64_t id, git_oid *out, struct bd_error *err)
{
	const git_commit *parents[1] = { bad };
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_reference *ref = NULL;
	char sha[GIT_OID_HEXSZ + 1], refname[64], *msg = NULL;
	int rc = 0;

	git_oid_tostr(sha, sizeof(sha), git_commit_id(culprit));
	xasprintf(&msg, "Revert \"%s\"\n\nThis reverts commit %s on top of "
	    "%s,\nmade by bisectd to verify the culprit.\n",
	    git_commit_summary(culprit) ? git_commit_summary(culprit) : "",
	    sha, git_oid_tostr_s(git_commit_id(bad)));
	snprintf(refname, sizeof(refname), REPO_REVERT_REF_FMT, (long long)id);
	if (git_signature_new(&sig, "bisectd", "bisectd@localhost",
	    git_commit_time(bad), 0) < 0 ||
	    git_tree_lookup(&tree, repo, tree_oid) < 0 ||
	    git_commit_create(out, repo, NULL, sig, sig, NULL, msg, tree, 1,
	    parents) < 0 ||
	    git_reference_create(&ref, repo, refname, out, 1,
	    "bisectd: revert of the culprit") < 0)
		rc = bd_error_set(err, -EIO, "revert commit: %s",
		    revert_git_msg());
	git_reference_free(ref);
	git_tree_free(tree);
	git_signature_free(sig);
	free(msg);
	return rc;
}

/* The revert against bad, not against the culprit: later commits stay. */
int
repo_revert_make(git_repository *repo, const git_oid *culprit_oid,
    const git_oid *bad_oid, int64_t id, struct repo_revert *r,
    struct bd_error *err)
{
	git_commit *culprit = NULL, *bad = NULL;
	git_index *idx = NULL;
	git_merge_options mo;
	git_oid tree_oid;
	unsigned mainline;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if (git_commit_lookup(&culprit, repo, culprit_oid) < 0 ||
	    git_commit_lookup(&bad, repo, bad_oid) < 0) {
		rc = bd_error_set(err, -ENOENT, "revert: %s", revert_git_msg());
		goto out;
	}
	git_merge_options_init(&mo, GIT_MERGE_OPTIONS_VERSION);
	mainline = git_commit_parentcount(culprit) > 1 ? 1 : 0;
	if (git_revert_commit(&idx, repo, culprit, bad, mainline, &mo) < 0) {
		rc = bd_error_set(err, -EIO, "revert: %s", revert_git_msg());
		goto out;
	}
	if (git_index_has_conflicts(idx)) {
		rc = revert_conflicts(idx, r, err);
		goto out;
	}
	if (git_index_write_tree_to(&tree_oid, idx, repo) < 0) {
		rc = bd_error_set(err, -EIO, "revert tree: %s",
		    revert_git_msg());
		goto out;
	}
	if ((rc = revert_commit(repo, culprit, bad, &tree_oid, id, &r->commit,
	    err)) == 0)
		r->applied = 1;
out:
	git_index_free(idx);
	git_commit_free(bad);
	git_commit_free(culprit);
	return rc;
}

void
repo_revert_release(struct repo_revert *r)
{
	size_t i;

	for (i = 0; i < r->nconflicts; i++)
		free(r->conflicts[i]);
	memset(r, 0, sizeof(*r));
}

/* What every file and line of the diff seen so far has in common. */
struct suspect_ctx {
	const char	*arch;
	size_t		 files;
	int		 docs, tools, other_arch, comments;
};

/* 1 when path lies under arch/X/ for an X that is not ctx->arch. */
static int
suspect_other_arch(const struct suspect_ctx *c, const char *path)
{
	size_t n = strlen(c->arch);

	if (strncmp(path, "arch/", 5) != 0 || strchr(path + 5, '/') == NULL)
		return 0;
	return !(strncmp(path + 5, c->arch, n) == 0 && path[5 + n] == '/');
}

/* Only C-like sources can be judged to change comments only. */
static int
suspect_c_like(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot != NULL && (strcmp(dot, ".c") == 0 ||
	    strcmp(dot, ".h") == 0 || strcmp(dot, ".S") == 0);
}

static int
suspect_file(const git_diff_delta *d, float progress, void *arg)
{
	struct suspect_ctx *c = arg;
	const char *path = d->new_file.path ? d->new_file.path :
	    d->old_file.path;

	(void)progress;
	c->files++;
	if (strncmp(path, "Documentation/", 14) != 0)
		c->docs = 0;
	if (strncmp(path, "tools/", 6) != 0)
		c->tools = 0;
	if (!suspect_other_arch(c, path))
		c->other_arch = 0;
	if (!suspect_c_like(path))
		c->comments = 0;
	return 0;
}

/* An added or removed line that is blank or inside a comment's marks. */
static int
suspect_line(const git_diff_delta *d, const git_diff_hunk *h,
    const git_diff_line *l, void *arg)
{
	struct suspect_ctx *c = arg;
	const char *p = l->content, *end = l->content + l->content_len;

	(void)d;
	(void)h;
	if (l->origin != GIT_DIFF_LINE_ADDITION &&
	    l->origin != GIT_DIFF_LINE_DELETION)
		return 0;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'))
		p++;
	if (p == end || *p == '*' || (end - p >= 2 && p[0] == '/' &&
	    (p[1] == '*' || p[1] == '/')))
		return 0;
	c->comments = 0;
	return 0;
}

int
repo_suspect(git_repository *repo, const git_oid *oid, const char *arch,
    unsigned *flags, struct bd_error *err)
{
	struct suspect_ctx c = { arch ? arch : "x86", 0, 1, 1, 1, 1 };
	git_commit *commit = NULL, *parent = NULL;
	git_tree *t = NULL, *pt = NULL;
	git_diff *diff = NULL;
	int rc = 0;

	*flags = 0;
	if (git_commit_lookup(&commit, repo, oid) < 0) {
		rc = bd_error_set(err, -ENOENT, "suspect: %s", revert_git_msg());
		goto out;
	}
	if (git_commit_parentcount(commit) > 1)
		*flags |= REPO_SUSPECT_MERGE;
	if ((git_commit_parentcount(commit) > 0 &&
	    (git_commit_parent(&parent, commit, 0) < 0 ||
	    git_commit_tree(&pt, parent) < 0)) ||
	    git_commit_tree(&t, commit) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, pt, t, NULL) < 0 ||
	    git_diff_foreach(diff, suspect_file, NULL, NULL, suspect_line,
	    &c) < 0) {
		rc = bd_error_set(err, -EIO, "suspect diff: %s",
		    revert_git_msg());
		goto out;
	}
	if (c.files == 0)
		goto out;
	*flags |= (c.docs ? REPO_SUSPECT_DOCS : 0) |
	    (c.tools ? REPO_SUSPECT_TOOLS : 0) |
	    (c.other_arch ? REPO_SUSPECT_OTHER_ARCH : 0) |
	    (c.comments ? REPO_SUSPECT_COMMENTS : 0);
out:
	git_diff_free(diff);
	git_tree_free(t);
	git_tree_free(pt);
	git_commit_free(parent);
	git_commit_free(commit);
	return rc;
}

static const struct {
	unsigned	 flag;
	const char	*text;
} suspect_texts[] = {
	{ REPO_SUSPECT_MERGE, "the culprit is a merge commit: the change may "
	    "come from combining the two branches, or lie inside one" },
	{ REPO_SUSPECT_DOCS, "the culprit touches only Documentation/" },
	{ REPO_SUSPECT_COMMENTS, "the culprit changes only comments or blank "
	    "lines" },
	{ REPO_SUSPECT_TOOLS, "the culprit touches only tools/" },
	{ REPO_SUSPECT_OTHER_ARCH, "the culprit touches only another "
	    "architecture's arch/ directory" },
};

const char *
repo_suspect_text(unsigned flag)
{
	size_t i;

	for (i = 0; i < sizeof(suspect_texts) / sizeof(suspect_texts[0]); i++)
		if (suspect_texts[i].flag == flag)
			return suspect_texts[i].text;
	return NULL;
}
