/* SPDX-License-Identifier: MIT */
/*
 * The candidate DAG of a bisection: the commits of `git rev-list BAD --not
 * GOOD...` with their parent edges inside the set.
 *
 * Indices run 0..n-1 in a topological order with every parent before its
 * children.  A struct graph owns its arrays; graph_release() frees them.
 * A graph is immutable after init, so it may be read from several places,
 * but graph_prob_bad() uses scratch space in priv: one caller at a time.
 *
 * The graph is pure data: repo/graph.h loads one from a git repository.
 *
 * (Contract shared with the engine; the graph module may add to it but not
 * change what is written here.)
 */
#ifndef BISECT_GRAPH_H
#define BISECT_GRAPH_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* A commit id: the 20 raw bytes of a SHA-1, as git stores it. */
#define GRAPH_OID_RAWSZ	20
#define GRAPH_OID_HEXSZ	(2 * GRAPH_OID_RAWSZ)

struct graph_oid {
	uint8_t		 id[GRAPH_OID_RAWSZ];
};

struct graph_priv;

struct graph {
	size_t		 n;		/* number of candidates */
	struct graph_oid *oids;		/* n ids; NULL for synthetic graphs */
	uint32_t	*par_off;	/* n + 1 offsets into par */
	uint32_t	*par;		/* parent indices inside the set */
	/*
	 * The order in which git's find_bisection() walks its list (the
	 * reverse of the date-ordered revision walk), as n indices; it
	 * decides git's ties.  NULL for synthetic graphs: index order.
	 */
	uint32_t	*git_order;
	struct graph_priv *priv;	/* acceleration structures */
};

/*
 * Builds a synthetic graph from parent lists (parents of i are
 * par[par_off[i] .. par_off[i+1]-1], every one < i).  Used by the simulator
 * and unit tests.  Copies the arrays.  Returns 0 or -EINVAL.
 */
int	graph_init_parents(struct graph *g, size_t n, const uint32_t *par_off,
	    const uint32_t *par, struct bd_error *err);

/*
 * Builds a graph from arrays a loader has filled (parents before children,
 * as for graph_init_parents, which a loader guarantees by construction).
 * g takes ownership of every array; oids and git_order may be NULL.
 */
void	graph_init_owned(struct graph *g, size_t n, uint32_t *par_off,
	    uint32_t *par, struct graph_oid *oids, uint32_t *git_order);

void	graph_release(struct graph *g);

/*
 * For culprit masses mass[0..n-1], stores in p_bad[x] the sum of mass over
 * the ancestors of x inside the set, x included: the probability that x is
 * bad.  Exact on merges (no ancestor counted twice).  One pass over the
 * candidates plus, per merge, the ancestors its other parents bring in.
 */
void	graph_prob_bad(const struct graph *g, const double *mass,
	    double *p_bad);

/* The same with every mass 1: w[x] is the number of ancestors of x. */
void	graph_count(const struct graph *g, uint32_t *w);

/*
 * The engine's weighted choice: the candidate whose p_bad is nearest half
 * of total (the mass of the whole set), skipping those with skip[x] != 0
 * (skip may be NULL).  Ties go to the earlier one in git's list order.
 * Returns the index, or -1 when every candidate is skipped.
 */
ssize_t	graph_best_weighted(const struct graph *g, const double *p_bad,
	    double total, const uint8_t *skip);

/* Index of oid in g (which must have oids), or -1. */
ssize_t	graph_find(const struct graph *g, const struct graph_oid *oid);

/* memcmp order, the order git sorts ids in. */
int	graph_oid_cmp(const struct graph_oid *a, const struct graph_oid *b);

/*
 * Writes the id as lowercase hex into out (n bytes, at most n - 1 digits
 * and a NUL, as git_oid_tostr) and returns out; writes nothing when n is 0.
 */
char	*graph_oid_tostr(char *out, size_t n, const struct graph_oid *oid);

/* What git's bisection step decides with uniform weights. */
enum graph_choice_kind {
	GRAPH_CHOICE_TEST,		/* test `commit` next */
	GRAPH_CHOICE_FOUND,		/* `commit` is the first bad commit */
	GRAPH_CHOICE_ONLY_SKIPPED,	/* the culprit is one of cands */
};

struct graph_choice {
	enum graph_choice_kind kind;
	uint32_t	 commit;	/* index into the graph */
	uint32_t	 all;		/* candidates, as git's bisect_all */
	uint32_t	 left;		/* git's "revisions left after this" */
	int		 steps;		/* git's "roughly K steps" */
	uint32_t	*cands;		/* ONLY_SKIPPED: indices, owned */
	size_t		 ncands;
};

void	graph_choice_init(struct graph_choice *c);
void	graph_choice_release(struct graph_choice *c);

/*
 * git 2.39's choice (find_bisection, its halfway shortcut and ties, and
 * with skipped commits best_bisection_sorted plus skip_away) on a graph
 * whose last index is the bad commit.  skip[x] != 0 marks skipped
 * candidates (skip may be NULL); any_skip says whether the user skipped
 * any commit at all, inside the set or not, which is what switches git
 * to its skip-aware path.  Returns 0, or -EINVAL for an empty graph.
 */
int	graph_git_choice(const struct graph *g, const uint8_t *skip,
	    int any_skip, struct graph_choice *c, struct bd_error *err);

/* git's estimate of the steps left after the current one. */
int	graph_estimate_steps(size_t all);

#endif
