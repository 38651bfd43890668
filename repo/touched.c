/* SPDX-License-Identifier: MIT */
/*
 * The functions a culprit's diff touches; see touched.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "repo/touched.h"

/* The changed line numbers of one side of one file. */
struct touched_lines {
	size_t	*v;
	size_t	 n;
};

struct touched_file {
	struct touched_lines	 old, new;
};

static const char *
touched_git_msg(void)
{
	const git_error *e = git_error_last();

	return e != NULL && e->message != NULL ? e->message : "";
}

static bool
touched_ident(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

/* git's cpp rule leaves out "label:" lines, which start at column 0 too. */
static bool
touched_label(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && touched_ident((unsigned char)s[i]))
		i++;
	if (i == 0 || i >= len || s[i] != ':' ||
	    (i + 1 < len && s[i + 1] == ':'))
		return false;
	for (i++; i < len && (s[i] == ' ' || s[i] == '\t'); i++)
		;
	return i == len || (i + 1 < len && s[i] == '/' &&
	    (s[i + 1] == '/' || s[i + 1] == '*'));
}

/* The funcname rule for C, with the function's name when it has one. */
bool
repo_touched_header(const char *line, size_t len, char *name, size_t namelen)
{
	const char *paren, *end, *start;
	size_t n;
	int c;

	if (namelen > 0)
		name[0] = '\0';
	if (len == 0)
		return false;
	c = (unsigned char)line[0];
	if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    c == '$') || touched_label(line, len))
		return false;
	end = line + len;
	while (end > line && (end[-1] == ' ' || end[-1] == '\t' ||
	    end[-1] == '\r'))
		end--;
	/* A prototype or a macro's use, not a definition. */
	if (end > line && end[-1] == ';')
		return true;
	if ((paren = memchr(line, '(', (size_t)(end - line))) == NULL)
		return true;
	if (memchr(line, '=', (size_t)(paren - line)) != NULL)
		return true;
	while (paren > line && (paren[-1] == ' ' || paren[-1] == '\t'))
		paren--;
	for (start = paren; start > line &&
	    touched_ident((unsigned char)start[-1]); start--)
		;
	n = (size_t)(paren - start);
	if (n == 0 || (*start >= '0' && *start <= '9') || n >= namelen)
		return true;
	memcpy(name, start, n);
	name[n] = '\0';
	return true;
}

/* Lines of a blob as offsets, so that line k is text[off[k-1]..]. */
static size_t
touched_split(const char *text, size_t size, size_t **off)
{
	size_t n = 0, cap = 64, i;

	*off = xreallocarray(NULL, cap, sizeof(size_t));
	if (size == 0)
		return 0;
	(*off)[n++] = 0;
	for (i = 0; i < size; i++) {
		if (text[i] != '\n' || i + 1 >= size)
			continue;
		if (n == cap)
			*off = xreallocarray(*off, cap *= 2, sizeof(size_t));
		(*off)[n++] = i + 1;
	}
	return n;
}

/* Adds s to a sorted set of strings, once. */
static void
touched_add(char ***set, size_t *n, const char *s)
{
	size_t lo = 0, hi = *n, mid;
	int c;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if ((c = strcmp((*set)[mid], s)) == 0)
			return;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*set = xreallocarray(*set, *n + 1, sizeof(char *));
	memmove(*set + lo + 1, *set + lo, (*n - lo) * sizeof(char *));
	(*set)[lo] = xstrdup(s);
	(*n)++;
}

/*
 * One pass over a file names the function each line is in: a header
 * starts one, a '}' at column 0 ends it, as `git diff -W` extends a hunk
 * from the header above to the line before the next one.  A header line
 * without a name (a return type on a line of its own) takes the name of
 * the header right under it.
 */
static void
touched_blob(const char *text, size_t size, const struct touched_lines *l,
    char ***set, size_t *n)
{
	size_t *off, nl, i, k, len, next, cur = 0, cur_len = 0;
	char name[256], *curname = xstrdup(""), *mark;

	nl = touched_split(text, size, &off);
	mark = xcalloc(nl + 2, 1);
	for (k = 0; k < l->n; k++)
		if (l->v[k] >= 1 && l->v[k] <= nl)
			mark[l->v[k]] = 1;
	for (i = 1; i <= nl; i++) {
		next = i < nl ? off[i] : size;
		len = next - off[i - 1];
		while (len > 0 && text[off[i - 1] + len - 1] == '\n')
			len--;
		if (repo_touched_header(text + off[i - 1], len, name,
		    sizeof(name))) {
			if (name[0] == '\0' && i < nl && (len == 0 ||
			    memchr(text + off[i - 1], '{', len) == NULL)) {
				next = i + 1 < nl ? off[i + 1] : size;
				cur_len = next - off[i];
				while (cur_len > 0 &&
				    text[off[i] + cur_len - 1] == '\n')
					cur_len--;
				repo_touched_header(text + off[i], cur_len,
				    name, sizeof(name));
			}
			free(curname);
			curname = xstrdup(name);
			cur = i;
		}
		if (mark[i] && cur > 0 && curname[0] != '\0')
			touched_add(set, n, curname);
		if (len > 0 && text[off[i - 1]] == '}') {
			curname[0] = '\0';
			cur = 0;
		}
	}
	free(curname);
	free(mark);
	free(off);
}

/* C sources and headers: the kernel's .gitattributes gives them diff=cpp. */
static bool
touched_is_c(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return n > 2 && path[n - 2] == '.' && (path[n - 1] == 'c' ||
	    path[n - 1] == 'h');
}

static void
touched_push(struct touched_lines *l, size_t line)
{
	l->v = xreallocarray(l->v, l->n + 1, sizeof(size_t));
	l->v[l->n++] = line;
}

/* Looks the changed lines of one side up in that side's blob. */
static int
touched_side(git_repository *repo, const git_diff_file *f,
    const struct touched_lines *l, char ***set, size_t *n)
{
	git_blob *blob = NULL;
	git_object_size_t size;

	if (l->n == 0 || git_oid_is_zero(&f->id))
		return 0;
	if (git_blob_lookup(&blob, repo, &f->id) < 0)
		return -1;
	size = git_blob_rawsize(blob);
	if (size <= REPO_TOUCHED_MAX_BLOB && !git_blob_is_binary(blob))
		touched_blob(git_blob_rawcontent(blob), (size_t)size, l, set,
		    n);
	git_blob_free(blob);
	return 0;
}

/* The hunks of one file without context: its changed lines each side. */
static int
touched_patch(git_repository *repo, git_patch *p, char ***set, size_t *n)
{
	const git_diff_delta *d = git_patch_get_delta(p);
	const git_diff_line *ln;
	struct touched_file f = { { NULL, 0 }, { NULL, 0 } };
	size_t h, k, nlines;
	int rc = 0;

	for (h = 0; h < git_patch_num_hunks(p); h++) {
		nlines = (size_t)git_patch_num_lines_in_hunk(p, h);
		for (k = 0; k < nlines; k++) {
			if (git_patch_get_line_in_hunk(&ln, p, h, k) < 0)
				continue;
			if (ln->origin == GIT_DIFF_LINE_DELETION &&
			    ln->old_lineno > 0)
				touched_push(&f.old, (size_t)ln->old_lineno);
			else if (ln->origin == GIT_DIFF_LINE_ADDITION &&
			    ln->new_lineno > 0)
				touched_push(&f.new, (size_t)ln->new_lineno);
		}
	}
	if (touched_side(repo, &d->old_file, &f.old, set, n) < 0 ||
	    touched_side(repo, &d->new_file, &f.new, set, n) < 0)
		rc = -1;
	free(f.old.v);
	free(f.new.v);
	return rc;
}

void
repo_touched_init(struct repo_touched *t)
{
	memset(t, 0, sizeof(*t));
}

void
repo_touched_release(struct repo_touched *t)
{
	size_t i;

	for (i = 0; i < t->n_functions; i++)
		free(t->functions[i]);
	for (i = 0; i < t->n_paths; i++)
		free(t->paths[i]);
	free(t->functions);
	free(t->paths);
	repo_touched_init(t);
}

/* Keeps at most REPO_TOUCHED_MAX names; the total stays known. */
static void
touched_cap(struct repo_touched *t)
{
	size_t i;

	t->n_functions_total = t->n_functions;
	for (i = REPO_TOUCHED_MAX; i < t->n_functions; i++)
		free(t->functions[i]);
	if (t->n_functions > REPO_TOUCHED_MAX)
		t->n_functions = REPO_TOUCHED_MAX;
}

int
repo_touched_get(git_repository *repo, const git_oid *oid,
    struct repo_touched *t, struct bd_error *err)
{
	git_commit *commit = NULL, *parent = NULL;
	git_tree *tree = NULL, *ptree = NULL;
	git_diff_options o;
	git_diff *diff = NULL;
	git_patch *p = NULL;
	const git_diff_delta *d;
	size_t i;
	int rc = 0;

	repo_touched_release(t);
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.context_lines = 0;
	if (git_commit_lookup(&commit, repo, oid) < 0 ||
	    (git_commit_parentcount(commit) > 0 &&
	    (git_commit_parent(&parent, commit, 0) < 0 ||
	    git_commit_tree(&ptree, parent) < 0)) ||
	    git_commit_tree(&tree, commit) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, ptree, tree, &o) < 0) {
		rc = bd_error_set(err, -EIO, "touched functions: %s",
		    touched_git_msg());
		goto out;
	}
	for (i = 0; i < git_diff_num_deltas(diff); i++) {
		d = git_diff_get_delta(diff, i);
		if (d->old_file.path != NULL && !git_oid_is_zero(&d->old_file.id))
			touched_add(&t->paths, &t->n_paths, d->old_file.path);
		if (d->new_file.path != NULL && !git_oid_is_zero(&d->new_file.id))
			touched_add(&t->paths, &t->n_paths, d->new_file.path);
		if (!touched_is_c(d->new_file.path) &&
		    !touched_is_c(d->old_file.path))
			continue;
		if (git_patch_from_diff(&p, diff, i) < 0 || p == NULL ||
		    touched_patch(repo, p, &t->functions,
		    &t->n_functions) < 0) {
			rc = bd_error_set(err, -EIO, "touched functions in %s: "
			    "%s", d->new_file.path, touched_git_msg());
			goto out;
		}
		git_patch_free(p);
		p = NULL;
	}
	touched_cap(t);
out:
	git_patch_free(p);
	git_diff_free(diff);
	git_tree_free(tree);
	git_tree_free(ptree);
	git_commit_free(parent);
	git_commit_free(commit);
	if (rc < 0)
		repo_touched_release(t);
	return rc;
}
