/* SPDX-License-Identifier: MIT */
/*
 * Replays of git 2.39's revision walk (revision.c: limit_list and
 * process_parents) and merge-base paint (commit-reach.c:
 * paint_down_to_common, merge_bases_many, remove_redundant without
 * generation numbers) on a struct repo_commits.
 *
 * Why replay rather than compute the sets directly: git's walk is ordered
 * by commit date and stops a few commits after everything left is
 * uninteresting, so with skewed dates its set can differ from the exact
 * one, and its list order decides the ties of the bisection.  Matching
 * git's answers means walking the way it walks: the same date-ordered
 * queue (ties first in, first out), the same flag propagation through
 * parsed commits only, the same stopping rule.  The code is ours.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "repo/walk.h"

#define SLOP	5	/* uninteresting commits git walks past the end */

struct wq_ent {
	int64_t		 date;
	uint64_t	 seq;
	uint32_t	 c;
};

/* A priority queue by date, newest first, ties in insertion order. */
struct wq {
	struct wq_ent	*e;
	size_t		 n;
	size_t		 cap;
	uint64_t	 seq;
};

/* git's commit_list_insert_by_date: newer first, ties first in. */
static int
wq_before(const struct wq_ent *a, const struct wq_ent *b)
{
	return a->date > b->date || (a->date == b->date && a->seq < b->seq);
}

/* A heap gives git's queue order without its linear insertion. */
static void
wq_put(struct wq *q, int64_t date, uint32_t c)
{
	struct wq_ent x = { date, q->seq++, c };
	size_t i, up;

	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 256;
		q->e = xreallocarray(q->e, q->cap, sizeof(*q->e));
	}
	for (i = q->n++; i > 0; i = up) {
		up = (i - 1) / 2;
		if (!wq_before(&x, &q->e[up]))
			break;
		q->e[i] = q->e[up];
	}
	q->e[i] = x;
}

/* Pops the commit git would pop next. */
static uint32_t
wq_get(struct wq *q)
{
	struct wq_ent last;
	uint32_t top = q->e[0].c;
	size_t i = 0, kid;

	last = q->e[--q->n];
	for (;;) {
		kid = 2 * i + 1;
		if (kid >= q->n)
			break;
		if (kid + 1 < q->n && wq_before(&q->e[kid + 1], &q->e[kid]))
			kid++;
		if (!wq_before(&q->e[kid], &last))
			break;
		q->e[i] = q->e[kid];
		i = kid;
	}
	if (q->n > 0)
		q->e[i] = last;
	return top;
}

struct limit {
	struct repo_commits *st;
	struct wq	 q;
	size_t		 nint;		/* queued commits still interesting */
	uint32_t	*stack;
	size_t		 nstack;
	size_t		 capstack;
};

/* mark_parents runs on an explicit stack, as git's does. */
static void
push(struct limit *l, uint32_t c)
{
	if (l->nstack == l->capstack) {
		l->capstack = l->capstack ? 2 * l->capstack : 256;
		l->stack = xreallocarray(l->stack, l->capstack,
		    sizeof(uint32_t));
	}
	l->stack[l->nstack++] = c;
}

/* Flags only ever gain UNINTERESTING; the queue count follows. */
static void
set_unint(struct limit *l, uint32_t c)
{
	struct repo_commit *r = &l->st->c[c];

	if (r->flags & CF_UNINT)
		return;
	r->flags |= CF_UNINT;
	if (r->flags & CF_QUEUED)
		l->nint--;
}

/* git's mark_parents_uninteresting: recursion only through parsed ones. */
static void
mark_parents(struct limit *l, uint32_t c)
{
	struct repo_commits *st = l->st;
	uint32_t i, x;

	for (i = 0; i < st->c[c].npar; i++)
		push(l, repo_commits_parents(st, c)[i]);
	while (l->nstack > 0) {
		x = l->stack[--l->nstack];
		if (st->c[x].flags & CF_UNINT)
			continue;
		set_unint(l, x);
		if (st->c[x].flags & CF_PARSED)
			for (i = 0; i < st->c[x].npar; i++)
				push(l, repo_commits_parents(st, x)[i]);
	}
}

/* SEEN commits are never queued twice, as in git. */
static void
enqueue(struct limit *l, uint32_t c)
{
	struct repo_commit *r = &l->st->c[c];

	r->flags |= CF_SEEN | CF_QUEUED;
	if (!(r->flags & CF_UNINT))
		l->nint++;
	wq_put(&l->q, r->date, c);
}

/* git's process_parents for a popped commit. */
static int
process_parents(struct limit *l, uint32_t c, int first_parent,
    struct bd_error *err)
{
	struct repo_commits *st = l->st;
	uint32_t i, p;
	int rc;

	if (st->c[c].flags & CF_ADDED)
		return 0;
	st->c[c].flags |= CF_ADDED;
	if (st->c[c].flags & CF_UNINT) {
		for (i = 0; i < st->c[c].npar; i++) {
			p = repo_commits_parents(st, c)[i];
			set_unint(l, p);
			if (repo_commits_parse(st, p, NULL) != 0)
				continue;	/* git parses these gently */
			if (st->c[p].npar > 0)
				mark_parents(l, p);
			if (!(st->c[p].flags & CF_SEEN))
				enqueue(l, p);
		}
		return 0;
	}
	for (i = 0; i < st->c[c].npar; i++) {
		p = repo_commits_parents(st, c)[i];
		if ((rc = repo_commits_parse(st, p, err)) != 0)
			return rc;
		if (!(st->c[p].flags & CF_SEEN))
			enqueue(l, p);
		if (first_parent)
			break;
	}
	return 0;
}

/* git's still_interesting: how much slop is left before stopping. */
static int
still_interesting(struct limit *l, int64_t date, int slop)
{
	if (l->q.n == 0)
		return 0;
	if (date <= l->q.e[0].date)
		return SLOP;
	if (l->nint > 0)
		return SLOP;
	return slop - 1;
}

/* git's prepare_revision_walk and limit_list, start to end. */
int
repo_walk_limit(struct repo_commits *st, const uint32_t *starts,
    const uint8_t *neg, size_t nstarts, int first_parent, uint32_t **out,
    size_t *nout, struct bd_error *err)
{
	struct limit l;
	uint32_t c, *list = NULL;
	size_t i, n = 0, cap = 0;
	int64_t date = INT64_MAX;
	int rc = 0, slop = SLOP;

	memset(&l, 0, sizeof(l));
	l.st = st;
	for (i = 0; i < nstarts; i++)
		if (neg[i])
			st->c[starts[i]].flags |= CF_UNINT;
	for (i = 0; i < nstarts; i++) {
		c = starts[i];
		if ((rc = repo_commits_parse(st, c, err)) != 0)
			goto out;
		if (st->c[c].flags & CF_UNINT)
			mark_parents(&l, c);
		if (!(st->c[c].flags & CF_SEEN))
			enqueue(&l, c);
	}
	while (l.q.n > 0) {
		c = wq_get(&l.q);
		st->c[c].flags &= ~CF_QUEUED;
		if (!(st->c[c].flags & CF_UNINT))
			l.nint--;
		if ((rc = process_parents(&l, c, first_parent, err)) != 0)
			goto out;
		if (st->c[c].flags & CF_UNINT) {
			mark_parents(&l, c);
			slop = still_interesting(&l, date, slop);
			if (slop > 0)
				continue;
			break;
		}
		date = st->c[c].date;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			list = xreallocarray(list, cap, sizeof(uint32_t));
		}
		list[n++] = c;
	}
out:
	free(l.q.e);
	free(l.stack);
	if (rc != 0) {
		free(list);
		return rc;
	}
	*out = list;
	*nout = n;
	return 0;
}

/* Paint state: a queue that may hold a commit several times. */
struct paint {
	struct repo_commits *st;
	struct wq	 q;
	size_t		 nonstale;	/* queue entries not yet stale */
};

/* A commit may be queued again when it gains flags. */
static void
paint_put(struct paint *pt, uint32_t c)
{
	struct repo_commit *r = &pt->st->c[c];

	r->qn++;
	if (!(r->flags & CF_STALE))
		pt->nonstale++;
	wq_put(&pt->q, r->date, c);
}

/* STALE ends the walk: keep the count of live entries right. */
static void
paint_flag(struct paint *pt, uint32_t c, uint32_t flags)
{
	struct repo_commit *r = &pt->st->c[c];

	if ((flags & CF_STALE) && !(r->flags & CF_STALE))
		pt->nonstale -= r->qn;
	r->flags |= flags;
}

/* Inserts c after every entry not older (commit_list_insert_by_date). */
static void
insert_by_date(const struct repo_commits *st, uint32_t *a, size_t *n,
    uint32_t c)
{
	size_t i = *n;

	while (i > 0 && st->c[a[i - 1]].date < st->c[c].date) {
		a[i] = a[i - 1];
		i--;
	}
	a[i] = c;
	(*n)++;
}

/* git's paint_down_to_common with a date-ordered queue. */
static int
paint_down(struct repo_commits *st, uint32_t one, const uint32_t *twos,
    size_t ntwos, uint32_t **res, size_t *nres, struct bd_error *err)
{
	struct paint pt;
	uint32_t c, p, i, flags, *out = NULL;
	size_t n = 0, cap = 0, k;
	int rc = 0;

	memset(&pt, 0, sizeof(pt));
	pt.st = st;
	paint_flag(&pt, one, CF_PARENT1);
	paint_put(&pt, one);
	for (k = 0; k < ntwos; k++) {
		paint_flag(&pt, twos[k], CF_PARENT2);
		paint_put(&pt, twos[k]);
	}
	while (pt.nonstale > 0) {
		c = wq_get(&pt.q);
		st->c[c].qn--;
		if (!(st->c[c].flags & CF_STALE))
			pt.nonstale--;
		flags = st->c[c].flags & (CF_PARENT1 | CF_PARENT2 | CF_STALE);
		if (flags == (CF_PARENT1 | CF_PARENT2)) {
			if (!(st->c[c].flags & CF_RESULT)) {
				st->c[c].flags |= CF_RESULT;
				if (n == cap) {
					cap = cap ? 2 * cap : 16;
					out = xreallocarray(out, cap,
					    sizeof(uint32_t));
				}
				insert_by_date(st, out, &n, c);
			}
			flags |= CF_STALE;
		}
		for (i = 0; i < st->c[c].npar; i++) {
			p = repo_commits_parents(st, c)[i];
			if ((st->c[p].flags & flags) == flags)
				continue;
			if ((rc = repo_commits_parse(st, p, err)) != 0)
				goto fail;
			paint_flag(&pt, p, flags);
			paint_put(&pt, p);
		}
	}
	free(pt.q.e);
	*res = out;
	*nres = n;
	return 0;
fail:
	free(pt.q.e);
	free(out);
	return rc;
}

/* git's remove_redundant without generation numbers, order kept. */
static int
remove_redundant(struct repo_commits *st, uint32_t *a, size_t *n,
    struct bd_error *err)
{
	uint8_t *red = xcalloc(*n, 1);
	uint32_t *work = xcalloc(*n, sizeof(uint32_t)), *common;
	size_t *idx = xcalloc(*n, sizeof(size_t));
	size_t i, j, filled, ncommon;
	int rc = 0;

	for (i = 0; i < *n; i++) {
		if (red[i])
			continue;
		for (j = filled = 0; j < *n; j++) {
			if (i == j || red[j])
				continue;
			idx[filled] = j;
			work[filled++] = a[j];
		}
		rc = paint_down(st, a[i], work, filled, &common, &ncommon, err);
		if (rc != 0)
			break;
		free(common);
		if (st->c[a[i]].flags & CF_PARENT2)
			red[i] = 1;
		for (j = 0; j < filled; j++)
			if (st->c[work[j]].flags & CF_PARENT1)
				red[idx[j]] = 1;
		repo_commits_clear(st, CF_PAINT_FLAGS);
	}
	for (i = j = 0; rc == 0 && i < *n; i++)
		if (!red[i])
			a[j++] = a[i];
	if (rc == 0)
		*n = j;
	free(red);
	free(work);
	free(idx);
	return rc;
}

/* git's get_merge_bases_many, order included, for the merge-base check. */
int
repo_walk_merge_bases(struct repo_commits *st, uint32_t one,
    const uint32_t *twos, size_t ntwos, uint32_t **out, size_t *nout,
    struct bd_error *err)
{
	uint32_t *list, *res;
	size_t i, n, nres = 0;
	int rc;

	for (i = 0; i < ntwos; i++)
		if (twos[i] == one) {
			*out = xcalloc(1, sizeof(uint32_t));
			(*out)[0] = one;
			*nout = 1;
			return 0;
		}
	if ((rc = repo_commits_parse(st, one, err)) != 0)
		return rc;
	for (i = 0; i < ntwos; i++)
		if ((rc = repo_commits_parse(st, twos[i], err)) != 0)
			return rc;
	rc = paint_down(st, one, twos, ntwos, &list, &n, err);
	if (rc != 0) {
		repo_commits_clear(st, CF_PAINT_FLAGS);
		return rc;
	}
	res = xcalloc(n ? n : 1, sizeof(uint32_t));
	for (i = 0; i < n; i++)
		if (!(st->c[list[i]].flags & CF_STALE))
			insert_by_date(st, res, &nres, list[i]);
	free(list);
	repo_commits_clear(st, CF_PAINT_FLAGS);
	if (nres > 1 && (rc = remove_redundant(st, res, &nres, err)) != 0) {
		free(res);
		repo_commits_clear(st, CF_PAINT_FLAGS);
		return rc;
	}
	*out = res;
	*nout = nres;
	return 0;
}
