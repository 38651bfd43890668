/* SPDX-License-Identifier: MIT */
/*
 * MAINTAINERS read as data; see maintainers.h.
 */
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"
#include "repo/maintainers.h"

/* One section's entries, pointing into the text. */
struct maint_section {
	const char	*title;
	size_t		 title_len;
	const char	*line[256];
	size_t		 len[256];
	size_t		 n;
};

void
repo_maint_init(struct repo_maint *m)
{
	memset(m, 0, sizeof(*m));
}

void
repo_maint_release(struct repo_maint *m)
{
	size_t i;

	for (i = 0; i < m->n_to; i++)
		free(m->to[i]);
	for (i = 0; i < m->n_cc; i++)
		free(m->cc[i]);
	free(m->to);
	free(m->cc);
	repo_maint_init(m);
}

/* The address of "Name <mail>" or of a bare "mail", for comparisons. */
static void
maint_address(const char *s, const char **a, size_t *len)
{
	const char *lt = strrchr(s, '<'), *gt;

	if (lt != NULL && (gt = strchr(lt, '>')) != NULL) {
		*a = lt + 1;
		*len = (size_t)(gt - lt - 1);
		return;
	}
	*a = s;
	*len = strcspn(s, " \t");
}

static bool
maint_has(char *const *v, size_t n, const char *a, size_t len)
{
	const char *b;
	size_t blen, i;

	for (i = 0; i < n; i++) {
		maint_address(v[i], &b, &blen);
		if (blen == len && strncasecmp(a, b, len) == 0)
			return true;
	}
	return false;
}

void
repo_maint_add(struct repo_maint *m, bool cc, const char *addr)
{
	const char *a;
	size_t len;
	char ***v = cc ? &m->cc : &m->to;
	size_t *n = cc ? &m->n_cc : &m->n_to;

	maint_address(addr, &a, &len);
	if (len == 0 || memchr(a, '@', len) == NULL ||
	    maint_has(m->to, m->n_to, a, len) ||
	    maint_has(m->cc, m->n_cc, a, len) || *n >= REPO_MAINT_MAX)
		return;
	*v = xreallocarray(*v, *n + 1, sizeof(char *));
	(*v)[(*n)++] = xstrdup(addr);
}

/* get_maintainer.pl's pattern: '*' is ".*", '?' is ".", from the start. */
static bool
maint_glob(const char *p, const char *pend, const char *f)
{
	for (; p < pend; p++, f++) {
		if (*p == '*') {
			for (;; f++) {
				if (maint_glob(p + 1, pend, f))
					return true;
				if (*f == '\0')
					return false;
			}
		}
		if (*f == '\0' || (*p != '?' && *p != *f))
			return false;
	}
	return true;
}

static size_t
maint_slashes(const char *s, size_t len)
{
	size_t n = 0, i;

	for (i = 0; i < len; i++)
		n += s[i] == '/';
	return n;
}

/*
 * file_match_pattern() of get_maintainer.pl, on one F: or X: value.  The
 * glob goes first: Linux 6.1's MAINTAINERS has 4,206 patterns a lookup
 * might settle, and looking each up in the tree for every touched file
 * held up the verification; only a pattern whose glob matches, deeper than
 * its own slashes, needs one (none, for the common paths tried).
 */
static bool
maint_file_match(const char *pat, size_t len, const char *file,
    bool (*is_dir)(void *, const char *), void *arg)
{
	char *p;
	bool dir;

	if (len == 0 || !maint_glob(pat, pat + len, file))
		return false;
	if (maint_slashes(file, strlen(file)) == maint_slashes(pat, len))
		return true;
	dir = pat[len - 1] == '/';
	if (!dir && is_dir != NULL && memchr(pat, '*', len) == NULL &&
	    memchr(pat, '?', len) == NULL) {
		p = xstrndup(pat, len);
		dir = is_dir(arg, p);
		free(p);
	}
	return dir;
}

/* An N: value is a regular expression over the path. */
static bool
maint_regex_match(const char *pat, size_t len, const char *file)
{
	regex_t re;
	char *p = xstrndup(pat, len);
	bool hit = false;

	if (regcomp(&re, p, REG_EXTENDED | REG_NOSUB) == 0) {
		hit = regexec(&re, file, 0, NULL, 0) == 0;
		regfree(&re);
	}
	free(p);
	return hit;
}

/* The value of "X:\tvalue" without leading and trailing blanks. */
static const char *
maint_value(const char *line, size_t len, size_t *vlen)
{
	const char *v = line + 2, *end = line + len;

	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t' ||
	    end[-1] == '\r'))
		end--;
	*vlen = (size_t)(end - v);
	return v;
}

/* Whether any path falls under the section's patterns. */
static bool
maint_section_matches(const struct maint_section *s,
    const char *const *paths, size_t n_paths,
    bool (*is_dir)(void *, const char *), void *arg)
{
	const char *v;
	size_t i, k, vlen;
	bool hit, excluded;

	for (k = 0; k < n_paths; k++) {
		hit = excluded = false;
		for (i = 0; i < s->n; i++) {
			v = maint_value(s->line[i], s->len[i], &vlen);
			if (s->line[i][0] == 'F')
				hit |= maint_file_match(v, vlen, paths[k],
				    is_dir, arg);
			else if (s->line[i][0] == 'N')
				hit |= maint_regex_match(v, vlen, paths[k]);
			else if (s->line[i][0] == 'X')
				excluded |= maint_file_match(v, vlen, paths[k],
				    is_dir, arg);
		}
		if (hit && !excluded)
			return true;
	}
	return false;
}

/* M: to To, R: and L: to Cc; a list's "(moderated ...)" note goes. */
static void
maint_section_add(const struct maint_section *s, struct repo_maint *m)
{
	const char *v;
	char *addr, *paren;
	size_t i, vlen;
	char k;

	for (i = 0; i < s->n; i++) {
		k = s->line[i][0];
		if (k != 'M' && k != 'R' && k != 'L')
			continue;
		v = maint_value(s->line[i], s->len[i], &vlen);
		addr = xstrndup(v, vlen);
		if (k == 'L' && (paren = strchr(addr, ' ')) != NULL)
			*paren = '\0';
		repo_maint_add(m, k != 'M', addr);
		free(addr);
	}
}

static bool
maint_entry(const char *line, size_t len)
{
	return len >= 2 && line[0] >= 'A' && line[0] <= 'Z' && line[1] == ':';
}

/* A section ends: its recipients count if its patterns match. */
static void
maint_finish(struct maint_section *s, const char *const *paths,
    size_t n_paths, bool (*is_dir)(void *, const char *), void *arg,
    struct repo_maint *m, struct maint_section **rest, bool *any)
{
	if (s->title != NULL && s->n > 0) {
		if (s->title_len == 8 && strncmp(s->title, "THE REST", 8) == 0) {
			if (*rest == NULL)
				*rest = xcalloc(1, sizeof(**rest));
			**rest = *s;
		} else if (maint_section_matches(s, paths, n_paths, is_dir,
		    arg)) {
			maint_section_add(s, m);
			*any = true;
		}
	}
	memset(s, 0, sizeof(*s));
}

/*
 * Sections are a title line and its entries, separated by blank lines;
 * the introduction's indented examples are no entries.
 */
void
repo_maint_match(const char *text, size_t len, const char *const *paths,
    size_t n_paths, bool (*is_dir)(void *, const char *), void *arg,
    struct repo_maint *m)
{
	struct maint_section *s = xcalloc(1, sizeof(*s)), *rest = NULL;
	const char *p = text, *end = text + len, *nl;
	size_t ll;
	bool any = false;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		ll = (size_t)((nl ? nl : end) - p);
		if (maint_entry(p, ll) && s->title != NULL) {
			if (s->n < sizeof(s->line) / sizeof(s->line[0])) {
				s->line[s->n] = p;
				s->len[s->n++] = ll;
			}
		} else {
			maint_finish(s, paths, n_paths, is_dir, arg, m, &rest,
			    &any);
			if (ll > 0 && p[0] != '\t' && p[0] != ' ') {
				s->title = p;
				s->title_len = ll;
			}
		}
		p = nl ? nl + 1 : end;
	}
	maint_finish(s, paths, n_paths, is_dir, arg, m, &rest, &any);
	if (!any && rest != NULL && maint_section_matches(rest, paths,
	    n_paths, is_dir, arg))
		maint_section_add(rest, m);
	free(rest);
	free(s);
}

struct maint_tree {
	git_tree	*tree;
};

/* A pattern names a directory when the tree has a tree there. */
static bool
maint_tree_is_dir(void *arg, const char *path)
{
	struct maint_tree *t = arg;
	git_tree_entry *e = NULL;
	bool dir;

	if (git_tree_entry_bypath(&e, t->tree, path) < 0)
		return false;
	dir = git_tree_entry_type(e) == GIT_OBJECT_TREE;
	git_tree_entry_free(e);
	return dir;
}

int
repo_maint_get(git_repository *repo, const git_oid *oid,
    const char *const *paths, size_t n_paths, struct repo_maint *m,
    struct bd_error *err)
{
	git_commit *commit = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	struct maint_tree t = { NULL };
	int rc = 0;

	if (git_commit_lookup(&commit, repo, oid) < 0 ||
	    git_commit_tree(&t.tree, commit) < 0) {
		const git_error *ge = git_error_last();

		rc = bd_error_set(err, -EIO, "MAINTAINERS: %s",
		    ge && ge->message ? ge->message : "");
		goto out;
	}
	if (git_tree_entry_bypath(&e, t.tree, "MAINTAINERS") < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    git_blob_lookup(&blob, repo, git_tree_entry_id(e)) < 0)
		goto out;
	repo_maint_match(git_blob_rawcontent(blob),
	    (size_t)git_blob_rawsize(blob), paths, n_paths, maint_tree_is_dir,
	    &t, m);
out:
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(t.tree);
	git_commit_free(commit);
	return rc;
}
