/* SPDX-License-Identifier: MIT */
/*
 * git 2.39's choice of the commit to test (bisect.c), on a candidate DAG.
 *
 * git counts, for every candidate, the candidates it reaches (its weight),
 * and takes the one whose weight is nearest half.  The ties and an early
 * exit make the exact answer depend on the order git computes weights in:
 * merges first, in list order, each checked against "halfway" as soon as
 * it is known; then the single-parent commits in repeated passes over the
 * list, each checked as it becomes known.  We compute all weights at once
 * (graph_count) and then replay that order to find the commit git would
 * return first.  With skipped commits git computes every weight, sorts by
 * distance then oid, and moves away from skipped commits with its own
 * pseudo-random step (skip_away).
 */
#include <stdlib.h>
#include <string.h>

#include "bisect/graph.h"
#include "bisect/graph_int.h"
#include "common/xmalloc.h"

#define PRN_MODULO	32768

/* A zeroed choice can always be released. */
void
graph_choice_init(struct graph_choice *c)
{
	memset(c, 0, sizeof(*c));
}

/* Only ONLY_SKIPPED owns memory, but callers need not care. */
void
graph_choice_release(struct graph_choice *c)
{
	free(c->cands);
	memset(c, 0, sizeof(*c));
}

/* git's estimate of the steps left after the current one. */
int
graph_estimate_steps(size_t all)
{
	int n = 0;
	size_t e, x;

	if (all < 3)
		return 0;
	while ((all >> (n + 1)) != 0)
		n++;
	e = (size_t)1 << n;
	x = all - e;
	return e < 3 * x ? n : n - 1;
}

/* Exact halves for small sets, within ~0.1% for large ones, as git. */
static int
halfway(uint32_t w, uint32_t nr)
{
	int64_t diff = 2 * (int64_t)w - nr;

	if (diff >= -1 && diff <= 1)
		return 1;
	return (diff < 0 ? -diff : diff) < (int64_t)(nr / 1024);
}

/* git's distance: how many commits the worse answer leaves. */
static uint32_t
distance(uint32_t w, uint32_t nr)
{
	return nr - w < w ? nr - w : w;
}

/* In-set parents decide git's -1/-2 weight classes. */
static uint32_t
npar(const struct graph *g, uint32_t x)
{
	return g->par_off[x + 1] - g->par_off[x];
}

/* Synthetic graphs have no git order: index order stands in. */
static uint32_t
order_at(const struct graph *g, size_t k)
{
	return g->git_order != NULL ? g->git_order[k] : (uint32_t)k;
}

/*
 * The commit git's find_bisection returns without skipped commits: the
 * first merge at halfway in list order; else the first single-parent
 * commit at halfway in the order git's filling passes reach them; else the
 * first commit in list order with the largest distance.
 */
static uint32_t
choose_plain(const struct graph *g, const uint32_t *w, const uint32_t *pos)
{
	uint32_t nr = (uint32_t)g->n, x, q, best = GRAPH_NONE;
	uint32_t *pass, bestpass = 0, bestd = 0, d;
	size_t k;

	for (k = 0; k < g->n; k++) {
		x = order_at(g, k);
		if (npar(g, x) >= 2 && halfway(w[x], nr))
			return x;
	}
	/*
	 * A single-parent commit becomes known in the pass where its parent
	 * is known, if the parent comes earlier in the list, else one pass
	 * later; roots and merges are known before the first pass.
	 */
	pass = xcalloc(g->n, sizeof(uint32_t));
	for (x = 0; x < nr; x++) {
		if (npar(g, x) != 1)
			continue;
		q = g->par[g->par_off[x]];
		if (npar(g, q) != 1)
			pass[x] = 1;
		else
			pass[x] = pos[q] < pos[x] ? pass[q] : pass[q] + 1;
		if (!halfway(w[x], nr))
			continue;
		if (best == GRAPH_NONE || pass[x] < bestpass ||
		    (pass[x] == bestpass && pos[x] < pos[best])) {
			best = x;
			bestpass = pass[x];
		}
	}
	free(pass);
	if (best != GRAPH_NONE)
		return best;
	for (k = 0; k < g->n; k++) {
		x = order_at(g, k);
		d = distance(w[x], nr);
		if (best == GRAPH_NONE || d > bestd) {
			best = x;
			bestd = d;
		}
	}
	return best;
}

struct sort_ctx {
	const struct graph *g;
	const uint32_t	*w;
};

/* Distance descending, then oid ascending (index for synthetic graphs). */
static int
cmp_dist(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *s = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t nr = (uint32_t)s->g->n;
	uint32_t dx = distance(s->w[x], nr), dy = distance(s->w[y], nr);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (s->g->oids != NULL)
		return graph_oid_cmp(&s->g->oids[x], &s->g->oids[y]);
	return x < y ? -1 : x > y;
}

/* git's get_prn: an LCG step taken from the count itself. */
static int
prn(unsigned count)
{
	count = count * 1103515245u + 12345u;
	return (int)((count / 65536u) % PRN_MODULO);
}

/* git's float Newton square root; its rounding is part of the answer. */
static int
sqrt_git(int v)
{
	float x = (float)v, y, d;

	if (v == 0)
		return 0;
	do {
		y = (x + (float)v / x) / 2;
		d = y > x ? y - x : x - y;
		x = y;
	} while (d >= 0.5f);
	return (int)x;
}

/* 32-bit wrap-around of git's int arithmetic, without the undefined part. */
static int32_t
wrap32(int64_t v)
{
	return (int32_t)(uint32_t)(uint64_t)v;
}

/*
 * git's skip_away: an index drawn with a square-root law from the number
 * of testable commits, stepping back one when it lands on bad.
 */
static uint32_t
skip_away(const uint32_t *list, size_t count, uint32_t bad)
{
	int c = (int)count, r = prn((unsigned)count), index;

	if (count == 0)
		return GRAPH_NONE;
	index = wrap32((int64_t)c * r) / PRN_MODULO;
	index = wrap32((int64_t)index * sqrt_git(r)) / sqrt_git(PRN_MODULO);
	if (index < 0 || (size_t)index >= count)
		return list[0];
	if (list[index] != bad)
		return list[index];
	return index > 0 ? list[index - 1] : list[0];
}

/* Sorted candidates, then git's filter_skipped and skip_away. */
static uint32_t
choose_skipping(const struct graph *g, const uint32_t *w, const uint8_t *skip,
    uint32_t *reaches, uint32_t **tried, size_t *ntried)
{
	struct sort_ctx s = { g, w };
	uint32_t *sorted = xcalloc(g->n, sizeof(uint32_t)), *rest, res;
	size_t i, nrest = 0;

	for (i = 0; i < g->n; i++)
		sorted[i] = (uint32_t)i;
	qsort_r(sorted, g->n, sizeof(uint32_t), cmp_dist, &s);
	*reaches = w[sorted[0]];
	*tried = NULL;
	*ntried = 0;
	if (skip == NULL || !skip[sorted[0]]) {
		res = sorted[0];
		free(sorted);
		return res;
	}
	rest = xcalloc(g->n, sizeof(uint32_t));
	*tried = xcalloc(g->n + 1, sizeof(uint32_t));
	for (i = 0; i < g->n; i++) {
		if (skip[sorted[i]])
			(*tried)[(*ntried)++] = sorted[i];
		else
			rest[nrest++] = sorted[i];
	}
	res = skip_away(rest, nrest, (uint32_t)g->n - 1);
	free(rest);
	free(sorted);
	return res;
}

/* Uniform weights, git's rules: what the daemon must agree with. */
int
graph_git_choice(const struct graph *g, const uint8_t *skip, int any_skip,
    struct graph_choice *c, struct bd_error *err)
{
	uint32_t *w, *pos, *tried = NULL, best, reaches, bad;
	size_t k, ntried = 0;

	graph_choice_init(c);
	if (g->n == 0)
		return bd_error_set(err, -EINVAL, "no candidate commits");
	bad = (uint32_t)g->n - 1;
	w = xcalloc(g->n, sizeof(uint32_t));
	graph_count(g, w);
	if (!any_skip) {
		pos = xcalloc(g->n, sizeof(uint32_t));
		for (k = 0; k < g->n; k++)
			pos[order_at(g, k)] = (uint32_t)k;
		best = choose_plain(g, w, pos);
		reaches = w[best];
		free(pos);
	} else
		best = choose_skipping(g, w, skip, &reaches, &tried, &ntried);
	free(w);
	c->all = (uint32_t)g->n;
	c->commit = best;
	if (best == GRAPH_NONE || (best == bad && ntried > 0)) {
		c->kind = GRAPH_CHOICE_ONLY_SKIPPED;
		if (best == bad)
			tried[ntried++] = bad;
		c->cands = tried;
		c->ncands = ntried;
		c->commit = bad;
		return 0;
	}
	free(tried);
	if (best == bad) {
		c->kind = GRAPH_CHOICE_FOUND;
		return 0;
	}
	c->kind = GRAPH_CHOICE_TEST;
	c->left = c->all - reaches - 1;
	c->steps = graph_estimate_steps(c->all);
	return 0;
}
