/* SPDX-License-Identifier: MIT */
/*
 * The commits a bisection walk touches, with git's per-commit flags,
 * parsed on demand from the commit-graph file or libgit2's object
 * database.  Internal to repo/ (graph, walk, next); not for other modules.
 *
 * Ownership: a struct repo_commits borrows the repository (which must
 * outlive it) and owns its object database handle, its commit-graph
 * mapping and every record, until repo_commits_release().
 */
#ifndef REPO_COMMITS_H
#define REPO_COMMITS_H

#include <stdint.h>

#include <git2.h>

#include "common/error.h"
#include "repo/cgraph.h"

#define REPO_NONE	UINT32_MAX

/* Per-commit flags, named after git's. */
enum {
	CF_PARSED	= 1 << 0,
	CF_SEEN		= 1 << 1,
	CF_ADDED	= 1 << 2,
	CF_UNINT	= 1 << 3,
	CF_QUEUED	= 1 << 4,
	CF_PARENT1	= 1 << 5,
	CF_PARENT2	= 1 << 6,
	CF_STALE	= 1 << 7,
	CF_RESULT	= 1 << 8,
	CF_WALK_FLAGS	= CF_SEEN | CF_ADDED | CF_UNINT | CF_QUEUED,
	CF_PAINT_FLAGS	= CF_PARENT1 | CF_PARENT2 | CF_STALE | CF_RESULT,
};

struct repo_commit {
	git_oid		 oid;
	int64_t		 date;
	uint32_t	 par;		/* offset into pars */
	uint32_t	 npar;
	uint32_t	 flags;
	uint32_t	 gpos;		/* commit-graph position or NONE */
	uint32_t	 qn;		/* queue entries (paint) */
	uint32_t	 aux;		/* free for the caller */
};

struct repo_commits {
	git_repository	*repo;
	git_odb		*odb;
	struct repo_cgraph cg;
	int		 use_cg;
	struct repo_commit *c;
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

int	repo_commits_init(struct repo_commits *st, git_repository *repo,
	    struct bd_error *err);
void	repo_commits_release(struct repo_commits *st);
/* The record of oid, created unparsed when new. */
uint32_t repo_commits_lookup(struct repo_commits *st, const git_oid *oid);
/* Reads date and parents once; -EIO (message set) for a missing object. */
int	repo_commits_parse(struct repo_commits *st, uint32_t c,
	    struct bd_error *err);
/* Clears the given flags on every record (git's clear_commit_marks). */
void	repo_commits_clear(struct repo_commits *st, uint32_t flags);

/* The parent records of parsed record c. */
static inline const uint32_t *
repo_commits_parents(const struct repo_commits *st, uint32_t c)
{
	return st->pars + st->c[c].par;
}

#endif
