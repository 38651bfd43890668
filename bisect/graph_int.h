/*
 * Internals shared by the graph module's files (graph*.c); not for other
 * modules.
 *
 * graph_store keeps the commits a walk touches, with git's per-commit
 * flags, and parses them from the commit-graph file or libgit2's object
 * database.  graph_walk_* replay git's revision walk and merge-base paint
 * on it so that sets and orders match git's exactly.
 */
#ifndef BISECT_GRAPH_INT_H
#define BISECT_GRAPH_INT_H

#include <stdint.h>

#include <git2.h>

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

/* A commit-graph file ($GIT_DIR/objects/info/commit-graph), mapped. */
struct graph_cgraph {
	const uint8_t	*map;
	size_t		 len;
	uint32_t	 n;
	const uint8_t	*fanout;
	const uint8_t	*oidl;
	const uint8_t	*cdat;
	const uint8_t	*edge;
	uint32_t	 nedge;
};

/* 0 when a usable file was mapped, -ENOENT when there is none. */
int	graph_cgraph_open(struct graph_cgraph *cg, const char *objdir);
void	graph_cgraph_close(struct graph_cgraph *cg);
int	graph_cgraph_find(const struct graph_cgraph *cg, const git_oid *oid,
	    uint32_t *pos);
const uint8_t *graph_cgraph_oid(const struct graph_cgraph *cg, uint32_t pos);
/* Date and parent positions of entry pos; -EIO when the file lies. */
int	graph_cgraph_commit(const struct graph_cgraph *cg, uint32_t pos,
	    int64_t *date, uint32_t **par, uint32_t *npar, uint32_t *cap);

/* Per-commit flags, named after git's. */
enum {
	GS_PARSED	= 1 << 0,
	GS_SEEN		= 1 << 1,
	GS_ADDED	= 1 << 2,
	GS_UNINT	= 1 << 3,
	GS_QUEUED	= 1 << 4,
	GS_PARENT1	= 1 << 5,
	GS_PARENT2	= 1 << 6,
	GS_STALE	= 1 << 7,
	GS_RESULT	= 1 << 8,
	GS_WALK_FLAGS	= GS_SEEN | GS_ADDED | GS_UNINT | GS_QUEUED,
	GS_PAINT_FLAGS	= GS_PARENT1 | GS_PARENT2 | GS_STALE | GS_RESULT,
};

struct gs_commit {
	git_oid		 oid;
	int64_t		 date;
	uint32_t	 par;		/* offset into store pars */
	uint32_t	 npar;
	uint32_t	 flags;
	uint32_t	 gpos;		/* commit-graph position or NONE */
	uint32_t	 qn;		/* queue entries (paint) */
	uint32_t	 aux;		/* free for the caller */
};

struct graph_store {
	git_repository	*repo;
	git_odb		*odb;
	struct graph_cgraph cg;
	int		 use_cg;
	struct gs_commit *c;
	uint32_t	 n;
	uint32_t	 cap;
	uint32_t	*pars;
	size_t		 npars;
	size_t		 parscap;
	uint32_t	*ht;		/* open addressing: record + 1 */
	uint32_t	 htcap;
	uint32_t	*gmap;		/* commit-graph position -> record+1 */
	uint32_t	*tmp;		/* parent positions scratch */
	uint32_t	 tmpcap;
};

int	graph_store_init(struct graph_store *st, git_repository *repo,
	    struct bd_error *err);
void	graph_store_release(struct graph_store *st);
/* The record of oid, created unparsed when new. */
uint32_t graph_store_lookup(struct graph_store *st, const git_oid *oid);
/* Reads date and parents once; -EIO (message set) for a missing object. */
int	graph_store_parse(struct graph_store *st, uint32_t c,
	    struct bd_error *err);
/* Clears the given flags on every record (git's clear_commit_marks). */
void	graph_store_clear(struct graph_store *st, uint32_t flags);

static inline const uint32_t *
graph_store_parents(const struct graph_store *st, uint32_t c)
{
	return st->pars + st->c[c].par;
}

/*
 * git's limit_list(): starts[i] is negative (UNINTERESTING) when neg[i].
 * *out receives the records popped as interesting, in pop order (the
 * caller frees it); some may have been marked uninteresting later, as in
 * git.
 */
int	graph_walk_limit(struct graph_store *st, const uint32_t *starts,
	    const uint8_t *neg, size_t nstarts, int first_parent,
	    uint32_t **out, size_t *nout, struct bd_error *err);

/*
 * git's get_merge_bases_many(one, twos) without a commit-graph's
 * generation numbers: the merge bases in git's order (caller frees).
 */
int	graph_walk_merge_bases(struct graph_store *st, uint32_t one,
	    const uint32_t *twos, size_t ntwos, uint32_t **out, size_t *nout,
	    struct bd_error *err);

/*
 * graph_load on an existing store, whose parsed commits it reuses, as git
 * does when one process runs the merge-base check and then the walk.
 * Every record's CAND aux field is overwritten.
 */
int	graph_load_store(struct graph *g, struct graph_store *st,
	    const git_oid *bad, const git_oid *good, size_t ngood,
	    unsigned flags, struct bd_error *err);

#endif
