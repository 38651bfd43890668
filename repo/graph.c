/* SPDX-License-Identifier: MIT */
/*
 * Loading the candidate DAG of `git rev-list BAD --not GOOD...` from a
 * repository: git's walk (repo_walk_limit) gives the set and git's list
 * order; here it becomes a struct graph with topological indices.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/graph.h"
#include "common/xmalloc.h"
#include "repo/commits.h"
#include "repo/graph.h"
#include "repo/walk.h"

/* Candidate id + 1 of record r (0: not a candidate), kept in aux. */
#define CAND(st, r)	((st)->c[(r)].aux)

struct topo {
	const struct repo_commits *st;
	int		 fp;
	uint32_t	*index;		/* candidate id -> graph index */
	uint32_t	 next;		/* next graph index to hand out */
	uint32_t	*stack;		/* records */
	uint32_t	*iter;		/* per stack entry: next parent */
};

/* With --first-parent git follows (and counts) only the first parent. */
static uint32_t
in_set_parents(const struct topo *t, uint32_t r)
{
	uint32_t np = t->st->c[r].npar;

	return t->fp && np > 1 ? 1 : np;
}

/*
 * Numbers the candidates reachable from r, parents before children, by a
 * depth-first walk; started in git's list order, it keeps that order
 * wherever it is already topological.
 */
static void
topo_visit(struct topo *t, uint32_t r)
{
	const struct repo_commits *st = t->st;
	size_t sp = 0;
	uint32_t x, p, id;

	if (t->index[CAND(st, r) - 1] != REPO_NONE)
		return;
	t->index[CAND(st, r) - 1] = REPO_NONE - 1;	/* on the stack */
	t->stack[sp] = r;
	t->iter[sp++] = 0;
	while (sp > 0) {
		x = t->stack[sp - 1];
		if (t->iter[sp - 1] < in_set_parents(t, x)) {
			p = repo_commits_parents(st, x)[t->iter[sp - 1]++];
			id = CAND(st, p);
			if (id == 0 || t->index[id - 1] != REPO_NONE)
				continue;
			t->index[id - 1] = REPO_NONE - 1;
			t->stack[sp] = p;
			t->iter[sp++] = 0;
			continue;
		}
		t->index[CAND(st, x) - 1] = t->next++;
		sp--;
	}
}

/* Turns the walk's candidates (in git's list order) into g. */
static void
build(struct graph *g, struct repo_commits *st, const uint32_t *list,
    size_t n, int fp)
{
	struct topo t;
	struct graph_oid *oids;
	uint32_t *rec, *order, *par_off, *par, i, j, r, np, id;
	size_t k, npars = 0;

	memset(&t, 0, sizeof(t));
	t.st = st;
	t.fp = fp;
	t.index = xcalloc(n, sizeof(uint32_t));
	t.stack = xcalloc(n, sizeof(uint32_t));
	t.iter = xcalloc(n, sizeof(uint32_t));
	for (i = 0; i < st->n; i++)
		CAND(st, i) = 0;
	for (k = 0; k < n; k++) {
		CAND(st, list[k]) = (uint32_t)k + 1;
		t.index[k] = REPO_NONE;
	}
	for (k = 0; k < n; k++)
		topo_visit(&t, list[k]);
	rec = xcalloc(n, sizeof(uint32_t));
	order = xcalloc(n, sizeof(uint32_t));
	oids = xcalloc(n, sizeof(*oids));
	for (k = 0; k < n; k++) {
		rec[t.index[k]] = list[k];
		order[k] = t.index[k];
		npars += in_set_parents(&t, list[k]);
	}
	par_off = xcalloc(n + 1, sizeof(uint32_t));
	par = xcalloc(npars ? npars : 1, sizeof(uint32_t));
	npars = 0;
	for (i = 0; i < n; i++) {
		r = rec[i];
		repo_graph_oid_from_git(&oids[i], &st->c[r].oid);
		par_off[i] = (uint32_t)npars;
		np = in_set_parents(&t, r);
		for (j = 0; j < np; j++) {
			id = CAND(st, repo_commits_parents(st, r)[j]);
			if (id != 0)
				par[npars++] = t.index[id - 1];
		}
	}
	par_off[n] = (uint32_t)npars;
	free(rec);
	free(t.index);
	free(t.stack);
	free(t.iter);
	graph_init_owned(g, n, par_off, par, oids, order);
}

/* The walk, then the DAG; the cache may carry parsed commits over. */
int
repo_graph_load_commits(struct graph *g, struct repo_commits *st,
    const git_oid *bad, const git_oid *good, size_t ngood, unsigned flags,
    struct bd_error *err)
{
	uint32_t *starts, *list = NULL, *cands = NULL;
	uint8_t *neg;
	size_t i, n, nlist = 0;
	int rc, fp = (flags & REPO_GRAPH_FIRST_PARENT) != 0;

	memset(g, 0, sizeof(*g));
	starts = xcalloc(ngood + 1, sizeof(uint32_t));
	neg = xcalloc(ngood + 1, 1);
	starts[0] = repo_commits_lookup(st, bad);
	for (i = 0; i < ngood; i++) {
		starts[i + 1] = repo_commits_lookup(st, &good[i]);
		neg[i + 1] = 1;
	}
	rc = repo_walk_limit(st, starts, neg, ngood + 1, fp, &list, &nlist,
	    err);
	if (rc != 0)
		goto out;
	/* git's list: the interesting commits, in reverse pop order. */
	cands = xcalloc(nlist ? nlist : 1, sizeof(uint32_t));
	for (i = n = 0; i < nlist; i++)
		if (!(st->c[list[nlist - 1 - i]].flags & CF_UNINT))
			cands[n++] = list[nlist - 1 - i];
	if (n == 0) {
		rc = bd_error_set(err, -EINVAL, "empty range: the bad revision "
		    "is reachable from a good revision");
		goto out;
	}
	if (n >= REPO_NONE - 1) {
		rc = bd_error_set(err, -EINVAL, "too many candidates: %zu", n);
		goto out;
	}
	build(g, st, cands, n, fp);
out:
	free(list);
	free(cands);
	free(starts);
	free(neg);
	return rc;
}

/* A fresh cache: the same walk as a fresh `git rev-list` process. */
int
repo_graph_load(struct graph *g, git_repository *repo, const git_oid *bad,
    const git_oid *good, size_t ngood, unsigned flags, struct bd_error *err)
{
	struct repo_commits st;
	int rc;

	memset(g, 0, sizeof(*g));
	if ((rc = repo_commits_init(&st, repo, err)) != 0)
		return rc;
	rc = repo_graph_load_commits(g, &st, bad, good, ngood, flags, err);
	repo_commits_release(&st);
	return rc;
}

/* Callers hold libgit2 ids; the graph keeps its own. */
ssize_t
repo_graph_find(const struct graph *g, const git_oid *oid)
{
	struct graph_oid id;

	repo_graph_oid_from_git(&id, oid);
	return graph_find(g, &id);
}

/* Replies and reports name candidates by libgit2 id. */
void
repo_graph_oid(const struct graph *g, uint32_t x, git_oid *out)
{
	repo_graph_oid_to_git(out, &g->oids[x]);
}

/* Both are the 20 raw bytes of a SHA-1. */
void
repo_graph_oid_from_git(struct graph_oid *out, const git_oid *in)
{
	_Static_assert(sizeof(in->id) == GRAPH_OID_RAWSZ, "SHA-1 ids");
	memcpy(out->id, in->id, GRAPH_OID_RAWSZ);
}

/* The inverse of repo_graph_oid_from_git. */
void
repo_graph_oid_to_git(git_oid *out, const struct graph_oid *in)
{
	git_oid_fromraw(out, in->id);
}
