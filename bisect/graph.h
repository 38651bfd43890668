/*
 * The candidate DAG of a bisection: the commits of `git rev-list BAD --not
 * GOOD...` with their parent edges inside the set.
 *
 * Indices run 0..n-1 in a topological order with every parent before its
 * children.  A struct graph owns its arrays; graph_release() frees them.
 * A graph is immutable after init, so it may be read from several places,
 * but graph_prob_bad() uses scratch space in priv: one caller at a time.
 *
 * (Contract shared with the engine; the graph module may add to it but not
 * change what is written here.)
 */
#ifndef BISECT_GRAPH_H
#define BISECT_GRAPH_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <git2.h>

#include "common/error.h"

enum graph_flags {
	GRAPH_FIRST_PARENT = 1 << 0,	/* follow only first parents, as git */
	/*
	 * graph_next: the merge bases passed the check in an earlier step, so
	 * skip it, as git does once it has written BISECT_ANCESTORS_OK.  Only
	 * matters for replaying a session exactly: git's first step walks
	 * with the commits the check parsed, later steps afresh, and with
	 * badly skewed dates the two walks can differ.
	 */
	GRAPH_ANCESTORS_OK = 1 << 1,
};

struct graph_priv;

struct graph {
	size_t		 n;		/* number of candidates */
	git_oid		*oids;		/* n oids; NULL for synthetic graphs */
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
ssize_t	graph_find(const struct graph *g, const git_oid *oid);

/*
 * Loads `git rev-list BAD --not GOOD...` from repo, exactly as git's
 * limited revision walk computes it (same commits, same list order, even
 * with skewed commit dates).  Reads commits from the repository's
 * commit-graph file when there is one and through libgit2's object
 * database otherwise.  flags: enum graph_flags.  Errors: -EINVAL for an
 * empty range, -EIO for missing or corrupt objects.
 */
int	graph_load(struct graph *g, git_repository *repo, const git_oid *bad,
	    const git_oid *good, size_t ngood, unsigned flags,
	    struct bd_error *err);

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

/*
 * Revisions of one stateless bisection step; the arrays belong to the
 * caller.
 */
struct graph_revs {
	git_oid		 bad;
	const git_oid	*good;
	size_t		 ngood;
	const git_oid	*skip;
	size_t		 nskip;
	unsigned	 flags;		/* enum graph_flags */
};

enum graph_next_kind {
	GRAPH_NEXT_TEST,		/* test `commit` */
	GRAPH_NEXT_TEST_MERGE_BASE,	/* a merge base must be tested first */
	GRAPH_NEXT_FOUND,		/* `commit` is the first bad commit */
	GRAPH_NEXT_ONLY_SKIPPED,	/* the culprit is one of cands */
};

struct graph_next {
	enum graph_next_kind kind;
	git_oid		 commit;
	size_t		 all;		/* candidates (0 for a merge base) */
	size_t		 left;		/* revisions left after this one */
	int		 steps;		/* estimated steps left */
	git_oid		*cands;		/* ONLY_SKIPPED, owned */
	size_t		 ncands;
	git_oid		*skipped_mb;	/* skipped merge bases, owned */
	size_t		 nskipped_mb;
};

void	graph_next_init(struct graph_next *nx);
void	graph_next_release(struct graph_next *nx);

/*
 * One step of `git bisect` without its state files: the merge-base check
 * when a good revision is not an ancestor of bad (unless revs->flags has
 * GRAPH_ANCESTORS_OK), then git's choice.
 * Errors: -EINVAL when good equals bad, when bad is an ancestor of a good
 * revision (a merge base that tested bad: the message names the commits),
 * or for an empty range; -EIO for missing objects.
 */
int	graph_next(git_repository *repo, const struct graph_revs *revs,
	    struct graph_next *nx, struct bd_error *err);

/*
 * A bisection session: like graph_next, but commits parsed in one step are
 * kept for the next ones, as inside one git process (`git bisect run`
 * runs all its steps in one).  Faster, and needed to replay `git bisect
 * run` exactly on histories with badly skewed dates, where what git has
 * parsed decides how far its walk propagates "uninteresting".  One
 * session per repository and thread; free it with graph_session_free.
 */
struct graph_session;

int	graph_session_new(struct graph_session **s, git_repository *repo,
	    struct bd_error *err);
void	graph_session_free(struct graph_session *s);
int	graph_session_next(struct graph_session *s,
	    const struct graph_revs *revs, struct graph_next *nx,
	    struct bd_error *err);

/*
 * Resolves a revision (name, sha, tag) to a commit id.  -ENOENT for an
 * unknown revision, -EINVAL when it does not name a commit.
 */
int	graph_resolve(git_repository *repo, const char *rev, git_oid *out,
	    struct bd_error *err);

#endif
