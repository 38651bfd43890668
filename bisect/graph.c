/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "bisect/graph.h"
#include "bisect/graph_int.h"
#include "common/xmalloc.h"

/* Paint colours for graph_prepare: reached from the base, from the rest. */
#define COL_A	1u
#define COL_B	2u
#define COL_Q	4u	/* in the heap */

struct prep {
	const struct graph *g;
	uint32_t	*pre;		/* first-parent forest: preorder */
	uint32_t	*post;		/* and postorder numbers */
	uint32_t	*stamp;		/* merge + 1 whose walk owns colour */
	uint8_t		*col;
	uint32_t	*heap;		/* max-heap of indices */
	size_t		 nheap;
	size_t		 nb;		/* queued nodes coloured B only */
	uint32_t	 m;
	uint32_t	 base;		/* the merge's first parent */
	uint32_t	*extra;
	size_t		 nextra;
	size_t		 capextra;
};

/* Indices are topological: a max-heap of them visits children first. */
static void
heap_push(struct prep *p, uint32_t x)
{
	size_t i = p->nheap++, up;

	while (i > 0) {
		up = (i - 1) / 2;
		if (p->heap[up] >= x)
			break;
		p->heap[i] = p->heap[up];
		i = up;
	}
	p->heap[i] = x;
}

/* Takes the highest index, whose colour no later step can change. */
static uint32_t
heap_pop(struct prep *p)
{
	uint32_t top = p->heap[0], last = p->heap[--p->nheap];
	size_t i = 0, kid;

	for (;;) {
		kid = 2 * i + 1;
		if (kid >= p->nheap)
			break;
		if (kid + 1 < p->nheap && p->heap[kid + 1] > p->heap[kid])
			kid++;
		if (p->heap[kid] <= last)
			break;
		p->heap[i] = p->heap[kid];
		i = kid;
	}
	if (p->nheap > 0)
		p->heap[i] = last;
	return top;
}

/* Is y on the first-parent line below x (or x itself)? */
static int
fp_ancestor(const struct prep *p, uint32_t y, uint32_t x)
{
	return p->pre[y] <= p->pre[x] && p->post[x] <= p->post[y];
}

/* Adds colour c to x, queueing it and keeping the B-only count right. */
static void
paint(struct prep *p, uint32_t x, uint8_t c)
{
	uint8_t old, new;

	if (p->stamp[x] != p->m + 1) {
		p->stamp[x] = p->m + 1;
		p->col[x] = 0;
	}
	/*
	 * Where a side branch forked from the base's first-parent line, the
	 * answer is known at once; otherwise the A walk would have to come
	 * all the way down that line to meet it.
	 */
	if (c == COL_B && fp_ancestor(p, x, p->base))
		c = COL_A;
	old = p->col[x];
	new = old | c;
	if (new == old)
		return;
	if (old & COL_Q) {
		if ((old & (COL_A | COL_B)) == COL_B && (new & COL_A))
			p->nb--;
		p->col[x] = new;
		return;
	}
	p->col[x] = new | COL_Q;
	heap_push(p, x);
	if ((new & (COL_A | COL_B)) == COL_B)
		p->nb++;
}

/*
 * Finds the ancestors a merge brings in beyond its base parent: colour the
 * base's ancestors A and the other parents' B, and take nodes from the
 * highest index down, so that a node's colour is final when it is taken
 * (all its children have higher indices).  B-only nodes are the answer;
 * the walk stops when none is left in the heap.
 */
static void
prep_merge(struct prep *p, uint32_t m)
{
	const struct graph *g = p->g;
	uint32_t j, x, base = g->par[g->par_off[m]];
	uint8_t c;

	p->m = m;
	p->base = base;
	p->nb = 0;
	p->nheap = 0;
	paint(p, base, COL_A);
	for (j = g->par_off[m] + 1; j < g->par_off[m + 1]; j++)
		paint(p, g->par[j], COL_B);
	while (p->nb > 0) {
		x = heap_pop(p);
		c = p->col[x] & (COL_A | COL_B);
		if (c == COL_B) {
			p->nb--;
			if (p->nextra == p->capextra) {
				p->capextra = p->capextra ?
				    2 * p->capextra : 1024;
				p->extra = xreallocarray(p->extra, p->capextra,
				    sizeof(uint32_t));
			}
			p->extra[p->nextra++] = x;
		} else
			c = COL_A;
		for (j = g->par_off[x]; j < g->par_off[x + 1]; j++)
			paint(p, g->par[j], c);
	}
}

/*
 * Numbers the forest of first parents (each commit hangs below its first
 * parent in the set) in pre- and postorder, so that "y is on x's
 * first-parent line" is two comparisons.
 */
static void
number_fp_forest(const struct graph *g, uint32_t *pre, uint32_t *post)
{
	size_t n = g->n, x;
	uint32_t *off = xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *kids = xcalloc(n ? n : 1, sizeof(uint32_t));
	uint32_t *stack = xcalloc(n ? n : 1, sizeof(uint32_t));
	uint32_t *next = xcalloc(n ? n : 1, sizeof(uint32_t));
	uint32_t c1 = 0, c2 = 0, r, y, sp;

	for (x = 0; x < n; x++)
		if (g->par_off[x + 1] > g->par_off[x])
			off[g->par[g->par_off[x]] + 1]++;
	for (x = 0; x < n; x++)
		off[x + 1] += off[x];
	memcpy(next, off, n * sizeof(uint32_t));
	for (x = 0; x < n; x++)
		if (g->par_off[x + 1] > g->par_off[x])
			kids[next[g->par[g->par_off[x]]]++] = (uint32_t)x;
	memcpy(next, off, n * sizeof(uint32_t));
	for (r = 0; r < n; r++) {
		if (g->par_off[r + 1] > g->par_off[r])
			continue;	/* not a root of the forest */
		sp = 0;
		stack[sp++] = r;
		pre[r] = c1++;
		while (sp > 0) {
			y = stack[sp - 1];
			if (next[y] < off[y + 1]) {
				x = kids[next[y]++];
				pre[x] = c1++;
				stack[sp++] = (uint32_t)x;
			} else {
				post[y] = c2++;
				sp--;
			}
		}
	}
	free(off);
	free(kids);
	free(stack);
	free(next);
}

/* qsort_r order for graph_find's binary search. */
static int
cmp_by_oid(const void *a, const void *b, void *arg)
{
	const struct graph *g = arg;

	return graph_oid_cmp(&g->oids[*(const uint32_t *)a],
	    &g->oids[*(const uint32_t *)b]);
}

/*
 * Precomputes, once per graph, what makes graph_prob_bad a single pass:
 * each commit inherits its first parent's sum and a merge adds the
 * ancestors its other parents bring in, listed here.
 */
void
graph_prepare(struct graph *g)
{
	struct graph_priv *pv = xcalloc(1, sizeof(*pv));
	struct prep p;
	size_t n = g->n ? g->n : 1;
	uint32_t x;

	memset(&p, 0, sizeof(p));
	p.g = g;
	p.stamp = xcalloc(n, sizeof(uint32_t));
	p.col = xcalloc(n, 1);
	p.heap = xcalloc(n, sizeof(uint32_t));
	p.pre = xcalloc(n, sizeof(uint32_t));
	p.post = xcalloc(n, sizeof(uint32_t));
	number_fp_forest(g, p.pre, p.post);
	pv->base = xcalloc(n, sizeof(uint32_t));
	pv->extra_off = xcalloc(n + 1, sizeof(uint32_t));
	for (x = 0; x < g->n; x++) {
		uint32_t np = g->par_off[x + 1] - g->par_off[x];

		pv->extra_off[x] = (uint32_t)p.nextra;
		pv->base[x] = np ? g->par[g->par_off[x]] : GRAPH_NONE;
		if (np >= 2)
			prep_merge(&p, x);
	}
	pv->extra_off[g->n] = (uint32_t)p.nextra;
	pv->extra = p.extra != NULL ? p.extra : xcalloc(1, sizeof(uint32_t));
	if (g->oids != NULL) {
		pv->by_oid = xcalloc(n, sizeof(uint32_t));
		for (x = 0; x < g->n; x++)
			pv->by_oid[x] = x;
		qsort_r(pv->by_oid, g->n, sizeof(uint32_t), cmp_by_oid, g);
	}
	free(p.stamp);
	free(p.col);
	free(p.heap);
	free(p.pre);
	free(p.post);
	g->priv = pv;
}

/* Copies caller-provided parent lists after checking they are topological. */
int
graph_init_parents(struct graph *g, size_t n, const uint32_t *par_off,
    const uint32_t *par, struct bd_error *err)
{
	size_t i, j;

	memset(g, 0, sizeof(*g));
	if (n >= GRAPH_NONE)
		return bd_error_set(err, -EINVAL, "too many commits: %zu", n);
	if (par_off[0] != 0)
		return bd_error_set(err, -EINVAL,
		    "parent offsets must start at 0");
	for (i = 0; i < n; i++) {
		if (par_off[i + 1] < par_off[i])
			return bd_error_set(err, -EINVAL,
			    "parent offsets decrease at %zu", i);
		for (j = par_off[i]; j < par_off[i + 1]; j++)
			if (par[j] >= i)
				return bd_error_set(err, -EINVAL,
				    "parent %u of %zu is not earlier", par[j],
				    i);
	}
	g->n = n;
	g->par_off = xcalloc(n + 1, sizeof(uint32_t));
	memcpy(g->par_off, par_off, (n + 1) * sizeof(uint32_t));
	g->par = xcalloc(par_off[n] ? par_off[n] : 1, sizeof(uint32_t));
	memcpy(g->par, par, par_off[n] * sizeof(uint32_t));
	graph_prepare(g);
	return 0;
}

/* A loader's arrays are topological by construction: no copy, no check. */
void
graph_init_owned(struct graph *g, size_t n, uint32_t *par_off, uint32_t *par,
    struct graph_oid *oids, uint32_t *git_order)
{
	memset(g, 0, sizeof(*g));
	g->n = n;
	g->par_off = par_off;
	g->par = par;
	g->oids = oids;
	g->git_order = git_order;
	graph_prepare(g);
}

/* Frees what init or load allocated, so the struct can be reused. */
void
graph_release(struct graph *g)
{
	if (g->priv != NULL) {
		free(g->priv->base);
		free(g->priv->extra_off);
		free(g->priv->extra);
		free(g->priv->by_oid);
		free(g->priv);
	}
	free(g->oids);
	free(g->par_off);
	free(g->par);
	free(g->git_order);
	memset(g, 0, sizeof(*g));
}

/*
 * One pass in index order: a commit's ancestors are its base parent's plus
 * itself plus the merge's precomputed extra ancestors, none counted twice.
 */
void
graph_prob_bad(const struct graph *g, const double *mass, double *p_bad)
{
	const struct graph_priv *pv = g->priv;
	size_t x;
	uint32_t j;
	double s;

	for (x = 0; x < g->n; x++) {
		s = mass[x];
		if (pv->base[x] != GRAPH_NONE)
			s += p_bad[pv->base[x]];
		for (j = pv->extra_off[x]; j < pv->extra_off[x + 1]; j++)
			s += mass[pv->extra[j]];
		p_bad[x] = s;
	}
}

/* The integer twin of graph_prob_bad, for git's commit counts. */
void
graph_count(const struct graph *g, uint32_t *w)
{
	const struct graph_priv *pv = g->priv;
	size_t x;
	uint32_t s;

	for (x = 0; x < g->n; x++) {
		s = 1 + pv->extra_off[x + 1] - pv->extra_off[x];
		if (pv->base[x] != GRAPH_NONE)
			s += w[pv->base[x]];
		w[x] = s;
	}
}

/* Halving the mass is the generalisation of git's halving of counts. */
ssize_t
graph_best_weighted(const struct graph *g, const double *p_bad, double total,
    const uint8_t *skip)
{
	ssize_t best = -1;
	double d, bestd = -1;
	size_t k;
	uint32_t x;

	for (k = 0; k < g->n; k++) {
		x = g->git_order != NULL ? g->git_order[k] : (uint32_t)k;
		if (skip != NULL && skip[x])
			continue;
		d = p_bad[x] < total - p_bad[x] ? p_bad[x] : total - p_bad[x];
		if (d > bestd) {
			bestd = d;
			best = x;
		}
	}
	return best;
}

/* Binary search over the oid-sorted permutation built by graph_prepare. */
ssize_t
graph_find(const struct graph *g, const struct graph_oid *oid)
{
	size_t lo = 0, hi = g->n, mid;
	int c;

	if (g->oids == NULL || g->priv == NULL || g->priv->by_oid == NULL)
		return -1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = graph_oid_cmp(&g->oids[g->priv->by_oid[mid]], oid);
		if (c == 0)
			return g->priv->by_oid[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Ids sort as byte strings, as in git, so ties break the same way. */
int
graph_oid_cmp(const struct graph_oid *a, const struct graph_oid *b)
{
	return memcmp(a->id, b->id, GRAPH_OID_RAWSZ);
}

/* Reports and replies name commits in hex; the graph itself needs none. */
char *
graph_oid_tostr(char *out, size_t n, const struct graph_oid *oid)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (n == 0)
		return out;
	for (i = 0; i + 1 < n && i < GRAPH_OID_HEXSZ; i++)
		out[i] = digits[i % 2 ? oid->id[i / 2] & 0xf :
		    oid->id[i / 2] >> 4];
	out[i] = '\0';
	return out;
}
