/*
 * Loading the candidate DAG of `git rev-list BAD --not GOOD...` from a
 * repository: git's walk (graph_walk_limit) gives the set and git's list
 * order; here it becomes a struct graph with topological indices.
 */
#include <stdlib.h>
#include <string.h>

#include "bisect/graph.h"
#include "bisect/graph_int.h"
#include "common/xmalloc.h"

/* Candidate id + 1 of record r (0: not a candidate), kept in aux. */
#define CAND(st, r)	((st)->c[(r)].aux)

struct topo {
	const struct graph_store *st;
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
	const struct graph_store *st = t->st;
	size_t sp = 0;
	uint32_t x, p, id;

	if (t->index[CAND(st, r) - 1] != GRAPH_NONE)
		return;
	t->index[CAND(st, r) - 1] = GRAPH_NONE - 1;	/* on the stack */
	t->stack[sp] = r;
	t->iter[sp++] = 0;
	while (sp > 0) {
		x = t->stack[sp - 1];
		if (t->iter[sp - 1] < in_set_parents(t, x)) {
			p = graph_store_parents(st, x)[t->iter[sp - 1]++];
			id = CAND(st, p);
			if (id == 0 || t->index[id - 1] != GRAPH_NONE)
				continue;
			t->index[id - 1] = GRAPH_NONE - 1;
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
build(struct graph *g, struct graph_store *st, const uint32_t *list,
    size_t n, int fp)
{
	struct topo t;
	uint32_t *rec, i, j, r, np, id;
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
		t.index[k] = GRAPH_NONE;
	}
	for (k = 0; k < n; k++)
		topo_visit(&t, list[k]);
	rec = xcalloc(n, sizeof(uint32_t));
	g->n = n;
	g->git_order = xcalloc(n, sizeof(uint32_t));
	g->oids = xcalloc(n, sizeof(git_oid));
	for (k = 0; k < n; k++) {
		rec[t.index[k]] = list[k];
		g->git_order[k] = t.index[k];
		npars += in_set_parents(&t, list[k]);
	}
	g->par_off = xcalloc(n + 1, sizeof(uint32_t));
	g->par = xcalloc(npars ? npars : 1, sizeof(uint32_t));
	npars = 0;
	for (i = 0; i < n; i++) {
		r = rec[i];
		git_oid_cpy(&g->oids[i], &st->c[r].oid);
		g->par_off[i] = (uint32_t)npars;
		np = in_set_parents(&t, r);
		for (j = 0; j < np; j++) {
			id = CAND(st, graph_store_parents(st, r)[j]);
			if (id != 0)
				g->par[npars++] = t.index[id - 1];
		}
	}
	g->par_off[n] = (uint32_t)npars;
	free(rec);
	free(t.index);
	free(t.stack);
	free(t.iter);
	graph_prepare(g);
}

/* The walk, then the DAG; the store may carry parsed commits over. */
int
graph_load_store(struct graph *g, struct graph_store *st, const git_oid *bad,
    const git_oid *good, size_t ngood, unsigned flags, struct bd_error *err)
{
	uint32_t *starts, *list = NULL, *cands = NULL;
	uint8_t *neg;
	size_t i, n, nlist = 0;
	int rc, fp = (flags & GRAPH_FIRST_PARENT) != 0;

	memset(g, 0, sizeof(*g));
	starts = xcalloc(ngood + 1, sizeof(uint32_t));
	neg = xcalloc(ngood + 1, 1);
	starts[0] = graph_store_lookup(st, bad);
	for (i = 0; i < ngood; i++) {
		starts[i + 1] = graph_store_lookup(st, &good[i]);
		neg[i + 1] = 1;
	}
	rc = graph_walk_limit(st, starts, neg, ngood + 1, fp, &list, &nlist,
	    err);
	if (rc != 0)
		goto out;
	/* git's list: the interesting commits, in reverse pop order. */
	cands = xcalloc(nlist ? nlist : 1, sizeof(uint32_t));
	for (i = n = 0; i < nlist; i++)
		if (!(st->c[list[nlist - 1 - i]].flags & GS_UNINT))
			cands[n++] = list[nlist - 1 - i];
	if (n == 0) {
		rc = bd_error_set(err, -EINVAL, "empty range: the bad revision "
		    "is reachable from a good revision");
		goto out;
	}
	if (n >= GRAPH_NONE - 1) {
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

/* A fresh store: the same walk as a fresh `git rev-list` process. */
int
graph_load(struct graph *g, git_repository *repo, const git_oid *bad,
    const git_oid *good, size_t ngood, unsigned flags, struct bd_error *err)
{
	struct graph_store st;
	int rc;

	memset(g, 0, sizeof(*g));
	if ((rc = graph_store_init(&st, repo, err)) != 0)
		return rc;
	rc = graph_load_store(g, &st, bad, good, ngood, flags, err);
	graph_store_release(&st);
	return rc;
}
