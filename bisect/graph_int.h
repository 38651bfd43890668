/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the graph module's files (graph*.c); not for other
 * modules.  Loading a graph from git is repo/'s business (repo/graph.h).
 */
#ifndef BISECT_GRAPH_INT_H
#define BISECT_GRAPH_INT_H

#include <stdint.h>

#include "bisect/graph.h"
#include "common/error.h"

#define GRAPH_NONE	UINT32_MAX

struct graph_priv {
	uint32_t	*base;		/* parent whose sum x inherits */
	uint32_t	*extra_off;	/* n + 1 offsets into extra */
	uint32_t	*extra;		/* ancestors a merge adds to its base */
	uint32_t	*by_oid;	/* indices sorted by oid (graph_find) */
};

/* Computes priv for a graph whose n, par_off, par (and oids) are set. */
void	graph_prepare(struct graph *g);

#endif
