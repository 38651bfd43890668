/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "common/log.h"
#include "common/names.h"
#include "common/xmalloc.h"
#include "sched/sched.h"
#include "sweep/sweep_bisect.h"
#include "store/store.h"

/* Fix-ups a sweep passes on, at most (the scheduler takes as many). */
#define SWEEP_FIXUPS_MAX	32

/* A stored bisection the change may duplicate, copied out of the walk. */
struct sweep_bisect_cand {
	int64_t	  id;
	char	 *bad;
	char	**good;
	size_t	  ngood;
};

struct sweep_bisect_cands {
	const struct sweep_change	*c;
	struct sweep_bisect_cand	*v;
	size_t				 n;
};

struct sweep_bisect_row {
	int64_t	 id;
	int64_t	 bisection;
	int	 found;
};

/* The row's current link, read through the sweep's list. */
static int
sweep_bisect_row_cb(void *arg, const struct store_sweep_ref *r)
{
	struct sweep_bisect_row *row = arg;

	if (r->id == row->id) {
		row->found = 1;
		row->bisection = r->bisection;
	}
	return 0;
}

/* Which bisection c->row already points at (0: none). */
static int
sweep_bisect_linked(struct store *st, const struct sweep_change *c,
    int64_t *linked, struct bd_error *err)
{
	struct sweep_bisect_row row = { c->row, 0, 0 };
	int rc;

	rc = store_sweep_ref_list(st, c->sweep, sweep_bisect_row_cb, &row, err);
	if (rc < 0)
		return rc;
	if (!row.found)
		return bd_error_set(err, -ENOENT, "sweep %s has no row %lld",
		    c->sweep, (long long)c->row);
	*linked = row.bisection;
	return 0;
}

/* Same benchmark and metric, running or done with a culprit. */
static int
sweep_bisect_cand_cb(void *arg, const struct store_bisection *b)
{
	struct sweep_bisect_cands *l = arg;
	struct sweep_bisect_cand *k;
	size_t i;

	if (strcmp(b->benchmark, l->c->benchmark) != 0 ||
	    strcmp(b->metric, l->c->headline) != 0)
		return 0;
	if (b->state == STORE_BISECTION_DONE &&
	    b->verdict != STORE_VERDICT_CULPRIT)
		return 0;
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	k = &l->v[l->n++];
	k->id = b->id;
	k->bad = xstrdup(b->bad);
	k->ngood = b->ngood;
	k->good = xcalloc(b->ngood, sizeof(char *));
	for (i = 0; i < b->ngood; i++)
		k->good[i] = xstrdup(b->good[i]);
	return 0;
}

static void
sweep_bisect_cands_free(struct sweep_bisect_cands *l)
{
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		for (j = 0; j < l->v[i].ngood; j++)
			free(l->v[i].good[j]);
		free(l->v[i].good);
		free(l->v[i].bad);
	}
	free(l->v);
}

/* Hides one revision by its hexadecimal id. */
static int
sweep_bisect_hide(git_revwalk *w, const char *sha)
{
	git_oid oid;

	if (git_oid_fromstr(&oid, sha) < 0)
		return -EINVAL;
	return git_revwalk_hide(w, &oid) < 0 ? -ENOENT : 0;
}

/*
 * Whether the candidate sets of (goods1, bad1) and (good2, bad2) share a
 * commit: rev-list of the bads' merge bases, hiding every good, is not
 * empty (see the header).  1 yes, 0 no, or a negative errno.
 */
static int
sweep_bisect_overlap(git_repository *repo, const struct sweep_bisect_cand *k,
    const git_oid *bad2, const char *good2)
{
	git_oidarray bases = { NULL, 0 };
	git_revwalk *w = NULL;
	git_oid bad1, next;
	size_t i;
	int rc = 0;

	if (git_oid_fromstr(&bad1, k->bad) < 0)
		return -EINVAL;
	if (git_revwalk_new(&w, repo) < 0)
		return -ENOMEM;
	if (git_oid_equal(&bad1, bad2))
		rc = git_revwalk_push(w, bad2) < 0 ? -ENOENT : 0;
	else if (git_merge_bases(&bases, repo, &bad1, bad2) < 0)
		rc = -ENOENT;	/* no common history: nothing shared */
	for (i = 0; rc == 0 && i < bases.count; i++)
		if (git_revwalk_push(w, &bases.ids[i]) < 0)
			rc = -ENOENT;
	git_oidarray_dispose(&bases);
	if (rc == 0)
		rc = sweep_bisect_hide(w, good2);
	for (i = 0; rc == 0 && i < k->ngood; i++)
		rc = sweep_bisect_hide(w, k->good[i]);
	if (rc == 0)
		rc = git_revwalk_next(&next, w) == 0;
	git_revwalk_free(w);
	return rc;
}

/*
 * The first stored bisection that c duplicates (0: none); a walk that
 * fails for one bisection (a commit gone from the mirror) only means that
 * one is not a duplicate.
 */
static int
sweep_bisect_find(struct store *st, git_repository *repo,
    const struct sweep_change *c, const git_oid *bad, int64_t *found,
    struct bd_error *err)
{
	struct sweep_bisect_cands l = { c, NULL, 0 };
	size_t i;
	int rc;

	*found = 0;
	rc = store_bisection_list(st, STORE_BISECTION_ACTIVE |
	    (1u << STORE_BISECTION_DONE), sweep_bisect_cand_cb, &l, err);
	for (i = 0; rc == 0 && i < l.n && *found == 0; i++)
		if (sweep_bisect_overlap(repo, &l.v[i], bad,
		    c->prev_commit) == 1)
			*found = l.v[i].id;
	sweep_bisect_cands_free(&l);
	return rc;
}

/* Refuses a change the rest of the module cannot act on. */
static int
sweep_bisect_check(const struct sweep_change *c, struct bd_error *err)
{
	if (c->sweep == NULL || c->row <= 0 || c->commit == NULL ||
	    c->prev_commit == NULL || c->benchmark == NULL ||
	    c->headline == NULL)
		return bd_error_set(err, -EINVAL, "sweep change: sweep, row, "
		    "commit, prev_commit, benchmark and headline are required");
	if (c->nmetrics > 0 && c->metrics == NULL)
		return bd_error_set(err, -EINVAL, "sweep change: %zu metrics "
		    "without a list", c->nmetrics);
	return 0;
}

/* One sweep change, one bisection: see the header for the rules. */
int
sweep_bisect_start(struct sched *s, struct store *st,
    const struct sweep_change *c, int64_t *bisection, struct bd_error *err)
{
	git_repository *repo = sched_repo(s);
	const char *good[1];
	struct sched_request req;
	struct sched_origin origin;
	char *fixups[SWEEP_FIXUPS_MAX];
	int64_t reuse[2], linked = 0;
	git_oid bad, goid;
	int existing = 0, rc;

	*bisection = 0;
	if ((rc = sweep_bisect_check(c, err)) < 0)
		return rc;
	if ((rc = sweep_bisect_linked(st, c, &linked, err)) < 0)
		return rc;
	if (linked != 0) {
		*bisection = linked;
		return 0;
	}
	if (repo == NULL)
		return bd_error_set(err, -ENOENT, "repo: no repository is "
		    "configured or it cannot be opened");
	if (git_oid_fromstr(&bad, c->commit) < 0 ||
	    git_oid_fromstr(&goid, c->prev_commit) < 0)
		return bd_error_set(err, -EINVAL, "sweep change: commits must "
		    "be full hexadecimal ids");
	if ((rc = sweep_bisect_find(st, repo, c, &bad, &linked, err)) < 0)
		return rc;
	if (linked != 0) {
		rc = store_sweep_ref_link(st, c->row, linked, bisection, err);
		if (rc == -EALREADY)
			rc = 0;		/* linked meanwhile: *bisection is it */
		if (rc == 0)
			log_info("sweep %s: %s is bisection %lld's change",
			    c->sweep, c->ref ? c->ref : c->commit,
			    (long long)*bisection);
		return rc;
	}

	memset(&origin, 0, sizeof(origin));
	origin.sweep = c->sweep;
	origin.ref = c->ref;
	origin.prev_ref = c->prev_ref;
	origin.row = c->row;
	origin.prev_row = c->prev_row;
	origin.metrics = c->metrics;
	origin.nmetrics = c->nmetrics;
	origin.reuse = reuse;
	reuse[origin.nreuse++] = c->bad_row != 0 ? c->bad_row : c->row;
	if (c->prev_row > 0 &&
	    git_graph_descendant_of(repo, &bad, &goid) == 1)
		reuse[origin.nreuse++] = c->prev_row;

	memset(&req, 0, sizeof(req));
	good[0] = c->prev_commit;
	req.good = good;
	req.ngood = 1;
	req.bad = c->commit;
	req.benchmark = c->benchmark;
	req.metric = c->headline;
	req.group = c->group;
	req.priority = c->priority;
	req.uid = getuid();
	req.origin = &origin;
	req.nfixups = names_split(c->fixups, fixups, SWEEP_FIXUPS_MAX);
	req.fixups = (const char *const *)fixups;
	rc = sched_bisect(s, &req, bisection, &existing, err);
	while (req.nfixups > 0)
		free(fixups[--req.nfixups]);
	if (rc < 0)
		return rc;
	log_info("sweep %s: %s %s bisection %lld of %s", c->sweep,
	    c->ref ? c->ref : c->commit, existing ? "joins" : "starts",
	    (long long)*bisection, c->headline);
	return 0;
}
