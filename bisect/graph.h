/*
 * The candidate DAG of a bisection: the commits of `git rev-list BAD --not
 * GOOD...` with their parent edges inside the set.
 *
 * Indices run 0..n-1 in a topological order with every parent before its
 * children.  A struct graph owns its arrays; graph_release() frees them.
 * A graph is immutable after init, so it may be read from several places.
 *
 * (Contract shared with the engine; the graph module may add to it but not
 * change what is written here.)
 */
#ifndef BISECT_GRAPH_H
#define BISECT_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include <git2.h>

#include "common/error.h"

enum graph_flags {
	GRAPH_FIRST_PARENT = 1 << 0,	/* follow only first parents, as git */
};

struct graph_priv;

struct graph {
	size_t		 n;		/* number of candidates */
	git_oid		*oids;		/* n oids; NULL for synthetic graphs */
	uint32_t	*par_off;	/* n + 1 offsets into par */
	uint32_t	*par;		/* parent indices inside the set */
	struct graph_priv *priv;	/* acceleration structures */
};

/*
 * Builds a synthetic graph from parent lists (parents of i are
 * par[par_off[i] .. par_off[i+1]-1], every one < i).  Used by the simulator
 * and unit tests.  Copies the arrays.  Returns 0 or -EINVAL.
 */
int	graph_init_parents(struct graph *g, size_t n, const uint32_t *par_off,
	    const uint32_t *par, struct bd_error *err);

void	graph_release(struct graph *g);

/*
 * For culprit masses mass[0..n-1], stores in p_bad[x] the sum of mass over
 * the ancestors of x inside the set, x included: the probability that x is
 * bad.  Exact on merges (no ancestor counted twice).
 */
void	graph_prob_bad(const struct graph *g, const double *mass,
	    double *p_bad);

#endif
