/* SPDX-License-Identifier: MIT */
/*
 * The commits a bisection walk touches, with git's per-commit flags.
 * Records are created unparsed when first named (as git's lookup_commit)
 * and parsed on demand (as git's parse_commit), from the commit-graph file
 * when it has the commit and from libgit2's object database otherwise.
 * When a commit gets parsed matters: git marks ancestors uninteresting
 * only through parsed commits, and the walk replays that.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "repo/commits.h"

/* Object ids are uniformly random: their first bytes hash well. */
static uint32_t
oid_hash(const git_oid *oid)
{
	return (uint32_t)oid->id[0] << 24 | (uint32_t)oid->id[1] << 16 |
	    (uint32_t)oid->id[2] << 8 | oid->id[3];
}

/* Opens the object database and maps the commit-graph once per cache. */
int
repo_commits_init(struct repo_commits *st, git_repository *repo,
    struct bd_error *err)
{
	char *objdir;

	memset(st, 0, sizeof(*st));
	st->repo = repo;
	if (git_repository_odb(&st->odb, repo) != 0)
		return bd_error_set(err, -EIO, "cannot open the object "
		    "database: %s", git_error_last() ?
		    git_error_last()->message : "?");
	/* git ignores the commit-graph in shallow repositories; so do we. */
	xasprintf(&objdir, "%sobjects", git_repository_commondir(repo));
	st->use_cg = git_repository_is_shallow(repo) != 1 &&
	    repo_cgraph_open(&st->cg, objdir) == 0;
	free(objdir);
	if (st->use_cg)
		st->gmap = xcalloc(st->cg.n ? st->cg.n : 1, sizeof(uint32_t));
	st->cap = 1024;
	st->c = xcalloc(st->cap, sizeof(*st->c));
	st->htcap = 4096;
	st->ht = xcalloc(st->htcap, sizeof(uint32_t));
	return 0;
}

/* Frees every record and unmaps the commit-graph. */
void
repo_commits_release(struct repo_commits *st)
{
	if (st->odb != NULL)
		git_odb_free(st->odb);
	repo_cgraph_close(&st->cg);
	free(st->c);
	free(st->pars);
	free(st->ht);
	free(st->gmap);
	free(st->tmp);
	memset(st, 0, sizeof(*st));
}

/* Open addressing keeps lookups in one array. */
static void
ht_insert(uint32_t *ht, uint32_t cap, const struct repo_commit *c, uint32_t i)
{
	uint32_t h = oid_hash(&c[i].oid) & (cap - 1);

	while (ht[h] != 0)
		h = (h + 1) & (cap - 1);
	ht[h] = i + 1;
}

/* Rehashing keeps the table at most half full. */
static void
ht_grow(struct repo_commits *st)
{
	uint32_t i;

	free(st->ht);
	st->htcap *= 2;
	st->ht = xcalloc(st->htcap, sizeof(uint32_t));
	for (i = 0; i < st->n; i++)
		ht_insert(st->ht, st->htcap, st->c, i);
}

/* git's lookup_commit: one record per oid, created empty. */
uint32_t
repo_commits_lookup(struct repo_commits *st, const git_oid *oid)
{
	uint32_t h = oid_hash(oid) & (st->htcap - 1), i;
	struct repo_commit *c;

	while ((i = st->ht[h]) != 0) {
		if (git_oid_equal(&st->c[i - 1].oid, oid))
			return i - 1;
		h = (h + 1) & (st->htcap - 1);
	}
	if (st->n == st->cap) {
		st->cap *= 2;
		st->c = xreallocarray(st->c, st->cap, sizeof(*st->c));
	}
	i = st->n++;
	c = &st->c[i];
	memset(c, 0, sizeof(*c));
	git_oid_cpy(&c->oid, oid);
	c->gpos = REPO_NONE;
	st->ht[h] = i + 1;
	if (2 * st->n > st->htcap)
		ht_grow(st);
	return i;
}

/* All parent lists live in one array, indexed by offset. */
static void
add_parent(struct repo_commits *st, uint32_t p)
{
	if (st->npars == st->parscap) {
		st->parscap = st->parscap ? 2 * st->parscap : 4096;
		st->pars = xreallocarray(st->pars, st->parscap,
		    sizeof(uint32_t));
	}
	st->pars[st->npars++] = p;
}

/* The record of commit-graph entry pos, via the position map. */
static uint32_t
lookup_pos(struct repo_commits *st, uint32_t pos)
{
	git_oid oid;
	uint32_t r;

	if (st->gmap[pos] != 0)
		return st->gmap[pos] - 1;
	git_oid_fromraw(&oid, repo_cgraph_oid(&st->cg, pos));
	r = repo_commits_lookup(st, &oid);
	st->c[r].gpos = pos;
	st->gmap[pos] = r + 1;
	return r;
}

/* Parses from the commit-graph; 1 when the commit is not in it. */
static int
parse_cgraph(struct repo_commits *st, uint32_t c)
{
	uint32_t pos = st->c[c].gpos, np, i, r;
	int64_t date;

	if (pos == REPO_NONE) {
		if (repo_cgraph_find(&st->cg, &st->c[c].oid, &pos) != 0)
			return 1;
		st->c[c].gpos = pos;
		st->gmap[pos] = c + 1;
	}
	if (repo_cgraph_commit(&st->cg, pos, &date, &st->tmp, &np,
	    &st->tmpcap) != 0) {
		/* A file that lies is ignored from here on, as if absent. */
		st->use_cg = 0;
		return 1;
	}
	for (i = 0; i < np; i++)
		st->tmp[i] = lookup_pos(st, st->tmp[i]);
	st->c[c].par = (uint32_t)st->npars;
	for (i = 0; i < np; i++) {
		r = st->tmp[i];
		add_parent(st, r);
	}
	st->c[c].npar = np;
	st->c[c].date = date;
	return 0;
}

/*
 * The committer date as git reads it: the number after the last '>' of
 * the committer line that follows the author line; 0 when malformed.
 */
static int64_t
commit_date(const char *p, const char *end)
{
	const char *eol, *d;

	if (end - p < 7 || memcmp(p, "author ", 7) != 0)
		return 0;
	p = memchr(p, '\n', (size_t)(end - p));
	if (p == NULL || end - ++p < 10 || memcmp(p, "committer ", 10) != 0)
		return 0;
	eol = memchr(p, '\n', (size_t)(end - p));
	if (eol == NULL)
		return 0;
	for (d = eol; d > p && d[-1] != '>'; d--)
		continue;
	if (d == p)
		return 0;
	while (d < eol && isspace((unsigned char)*d))
		d++;
	if (d == eol || !isdigit((unsigned char)*d))
		return 0;
	return strtoll(d, NULL, 10);
}

/* Parses a raw commit object read through libgit2's object database. */
static int
parse_odb(struct repo_commits *st, uint32_t c, struct bd_error *err)
{
	git_odb_object *obj;
	const char *p, *end;
	git_oid poid;
	uint32_t np = 0, base;
	char hex[GIT_OID_HEXSZ + 1];

	if (git_odb_read(&obj, st->odb, &st->c[c].oid) != 0) {
		git_oid_tostr(hex, sizeof(hex), &st->c[c].oid);
		return bd_error_set(err, -EIO, "commit %s is missing from the "
		    "repository (a shallow or damaged clone?)", hex);
	}
	if (git_odb_object_type(obj) != GIT_OBJECT_COMMIT) {
		git_odb_object_free(obj);
		git_oid_tostr(hex, sizeof(hex), &st->c[c].oid);
		return bd_error_set(err, -EIO, "object %s is not a commit",
		    hex);
	}
	p = git_odb_object_data(obj);
	end = p + git_odb_object_size(obj);
	if (end - p < 46 || memcmp(p, "tree ", 5) != 0 || p[45] != '\n') {
		git_odb_object_free(obj);
		git_oid_tostr(hex, sizeof(hex), &st->c[c].oid);
		return bd_error_set(err, -EIO, "commit %s is corrupt", hex);
	}
	p += 46;
	/* Parent records may be created: collect first, then append. */
	base = (uint32_t)st->npars;
	while (end - p >= 48 && memcmp(p, "parent ", 7) == 0 &&
	    p[47] == '\n' && git_oid_fromstrn(&poid, p + 7, 40) == 0) {
		add_parent(st, repo_commits_lookup(st, &poid));
		np++;
		p += 48;
	}
	st->c[c].par = base;
	st->c[c].npar = np;
	st->c[c].date = commit_date(p, end);
	git_odb_object_free(obj);
	return 0;
}

/* Parses once, as git's parse_commit, whatever the source. */
int
repo_commits_parse(struct repo_commits *st, uint32_t c, struct bd_error *err)
{
	int rc = 1;

	if (st->c[c].flags & CF_PARSED)
		return 0;
	if (st->use_cg)
		rc = parse_cgraph(st, c);
	if (rc == 1 && (rc = parse_odb(st, c, err)) != 0)
		return rc;
	st->c[c].flags |= CF_PARSED;
	return 0;
}

/* git clears its marks between walks but keeps parsed commits. */
void
repo_commits_clear(struct repo_commits *st, uint32_t flags)
{
	uint32_t i;

	for (i = 0; i < st->n; i++) {
		st->c[i].flags &= ~flags;
		st->c[i].qn = 0;
	}
}
