#include <stdlib.h>
#include <string.h>

#include "bisect/graph.h"
#include "common/xmalloc.h"

struct graph_priv {
	uint32_t	*stamp;		/* visit marks for merge walks */
	uint32_t	*stack;
};

/* Copies caller-provided parent lists after checking they are topological. */
int
graph_init_parents(struct graph *g, size_t n, const uint32_t *par_off,
    const uint32_t *par, struct bd_error *err)
{
	size_t i, j;

	memset(g, 0, sizeof(*g));
	if (par_off[0] != 0)
		return bd_error_set(err, -EINVAL, "parent offsets must start at 0");
	for (i = 0; i < n; i++) {
		if (par_off[i + 1] < par_off[i])
			return bd_error_set(err, -EINVAL,
			    "parent offsets decrease at %zu", i);
		for (j = par_off[i]; j < par_off[i + 1]; j++)
			if (par[j] >= i)
				return bd_error_set(err, -EINVAL,
				    "parent %u of %zu is not earlier", par[j], i);
	}
	g->n = n;
	g->par_off = xcalloc(n + 1, sizeof(uint32_t));
	memcpy(g->par_off, par_off, (n + 1) * sizeof(uint32_t));
	g->par = xcalloc(par_off[n] ? par_off[n] : 1, sizeof(uint32_t));
	memcpy(g->par, par, par_off[n] * sizeof(uint32_t));
	g->priv = xcalloc(1, sizeof(*g->priv));
	g->priv->stamp = xcalloc(n ? n : 1, sizeof(uint32_t));
	g->priv->stack = xcalloc(n ? n : 1, sizeof(uint32_t));
	return 0;
}

void
graph_release(struct graph *g)
{
	if (g->priv != NULL) {
		free(g->priv->stamp);
		free(g->priv->stack);
		free(g->priv);
	}
	free(g->oids);
	free(g->par_off);
	free(g->par);
	memset(g, 0, sizeof(*g));
}

/*
 * A linear commit adds its own mass to its parent's sum; a merge walks its
 * ancestors once with visit marks so that no ancestor is counted twice.
 */
void
graph_prob_bad(const struct graph *g, const double *mass, double *p_bad)
{
	uint32_t *stamp = g->priv->stamp, *stack = g->priv->stack;
	size_t x, sp;
	uint32_t j, y;
	double sum;

	memset(stamp, 0, g->n * sizeof(uint32_t));
	for (x = 0; x < g->n; x++) {
		uint32_t np = g->par_off[x + 1] - g->par_off[x];

		if (np == 0) {
			p_bad[x] = mass[x];
			continue;
		}
		if (np == 1) {
			p_bad[x] = p_bad[g->par[g->par_off[x]]] + mass[x];
			continue;
		}
		sum = 0;
		sp = 0;
		stamp[x] = (uint32_t)x + 1;
		stack[sp++] = (uint32_t)x;
		while (sp > 0) {
			y = stack[--sp];
			sum += mass[y];
			for (j = g->par_off[y]; j < g->par_off[y + 1]; j++) {
				uint32_t p = g->par[j];

				if (stamp[p] != x + 1) {
					stamp[p] = (uint32_t)x + 1;
					stack[sp++] = p;
				}
			}
		}
		p_bad[x] = sum;
	}
}
