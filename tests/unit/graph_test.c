/* SPDX-License-Identifier: MIT */
/*
 * The graph module on synthetic DAGs, against slow obviously-correct
 * references written here: ancestor sets as bit sets for graph_prob_bad
 * and graph_count, and a literal replay of git's find_bisection loops
 * (weights -1/-2, count_distance per merge, repeated filling passes) for
 * graph_git_choice under arbitrary list orders.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/graph.h"
#include "common/xmalloc.h"
#include "tests/support/tst.h"

TestSuite(graph, .fini = tst_leak_check);

/* A small seeded generator so every failure can be replayed. */
static uint64_t
rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A uniform integer below n. */
static uint32_t
rng_n(uint64_t *s, uint32_t n)
{
	return (uint32_t)(rng_next(s) % n);
}

/*
 * Random topological parent lists: mostly chains, merges of 2 to 4 parents
 * (recent or far back, duplicates now and then), a few extra roots.
 */
static void
random_dag(uint64_t *s, uint32_t n, uint32_t **off, uint32_t **par)
{
	uint32_t i, k, np, cap = 4 * n + 4, m = 0;

	*off = xcalloc(n + 1, sizeof(uint32_t));
	*par = xcalloc(cap, sizeof(uint32_t));
	for (i = 0; i < n; i++) {
		(*off)[i] = m;
		if (i == 0 || rng_n(s, 40) == 0)
			continue;
		np = rng_n(s, 5) == 0 ? 2 + rng_n(s, 3) : 1;
		for (k = 0; k < np; k++) {
			if (k == 0)
				(*par)[m++] = i - 1 - rng_n(s, i < 3 ? i : 3);
			else if (rng_n(s, 10) == 0 && m > (*off)[i]) {
				(*par)[m] = (*par)[m - 1];	/* duplicate */
				m++;
			} else
				(*par)[m++] = rng_n(s, i);
		}
	}
	(*off)[n] = m;
}

/* Ancestors-or-self of every node as bit sets: n * n bits. */
static uint64_t *
ancestor_sets(const struct graph *g)
{
	size_t words = (g->n + 63) / 64, x, j, w;
	uint64_t *a = xcalloc(g->n * words + 1,
	    sizeof(uint64_t));

	for (x = 0; x < g->n; x++) {
		a[x * words + x / 64] |= 1ULL << (x % 64);
		for (j = g->par_off[x]; j < g->par_off[x + 1]; j++)
			for (w = 0; w < words; w++)
				a[x * words + w] |= a[g->par[j] * words + w];
	}
	return a;
}

/* Bit y of x's ancestor set. */
static int
is_anc(const uint64_t *a, size_t n, size_t y, size_t x)
{
	size_t words = (n + 63) / 64;

	return (a[x * words + y / 64] >> (y % 64)) & 1;
}

Test(graph, prob_bad_and_count_equal_ancestor_sums)
{
	uint64_t s = 11;
	int round;

	for (round = 0; round < 200; round++) {
		uint32_t n = 1 + rng_n(&s, 300), *off, *par, *w;
		struct graph g;
		struct bd_error err;
		double *mass, *p, ref;
		uint64_t *anc;
		size_t x, y;

		random_dag(&s, n, &off, &par);
		cr_assert_eq(graph_init_parents(&g, n, off, par, &err), 0, "%s",
		    err.msg);
		mass = xcalloc(n, sizeof(double));
		p = xcalloc(n, sizeof(double));
		w = xcalloc(n, sizeof(uint32_t));
		for (x = 0; x < n; x++)
			mass[x] = (double)rng_n(&s, 1000) / 997.0;
		graph_prob_bad(&g, mass, p);
		graph_count(&g, w);
		anc = ancestor_sets(&g);
		for (x = 0; x < n; x++) {
			uint32_t cnt = 0;

			ref = 0;
			for (y = 0; y < n; y++)
				if (is_anc(anc, n, y, x)) {
					ref += mass[y];
					cnt++;
				}
			cr_assert(fabs(ref - p[x]) <= 1e-9 * (1 + ref),
			    "round %d node %zu: %.12g != %.12g", round, x, p[x],
			    ref);
			cr_assert_eq(w[x], cnt, "round %d node %zu", round, x);
		}
		free(anc);
		free(mass);
		free(p);
		free(w);
		free(off);
		free(par);
		graph_release(&g);
	}
}

Test(graph, init_rejects_non_topological_input)
{
	struct graph g;
	struct bd_error err;
	uint32_t off_fwd[] = { 0, 1, 1 }, par_fwd[] = { 1 };
	uint32_t off_dec[] = { 0, 0, 1, 0 }, par_ok[] = { 0 };
	uint32_t off_bad0[] = { 1, 1 };

	cr_assert_eq(graph_init_parents(&g, 2, off_fwd, par_fwd, &err),
	    -EINVAL);
	cr_assert_not_null(strstr(err.msg, "not earlier"), "%s", err.msg);
	cr_assert_eq(graph_init_parents(&g, 3, off_dec, par_ok, &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "decrease"), "%s", err.msg);
	cr_assert_eq(graph_init_parents(&g, 1, off_bad0, par_ok, &err),
	    -EINVAL);
}

/* git's approx_halfway, written out again for the reference. */
static int
ref_halfway(int w, int nr)
{
	int diff = 2 * w - nr;

	return (diff >= -1 && diff <= 1) || abs(diff) < nr / 1024;
}

/* git's count_distance: a plain walk with marks. */
static int
ref_count(const struct graph *g, uint32_t x, uint8_t *seen)
{
	int n = 0;
	uint32_t j;

	if (seen[x])
		return 0;
	seen[x] = 1;
	n = 1;
	for (j = g->par_off[x]; j < g->par_off[x + 1]; j++)
		n += ref_count(g, g->par[j], seen);
	return n;
}

/*
 * git's find_bisection without skips, replayed literally: merges get
 * their count in list order, then passes over the list fill single-parent
 * commits from their parent; each new weight is checked for halfway.
 */
static uint32_t
ref_git_choice(const struct graph *g)
{
	int *w = xcalloc(g->n, sizeof(int)), nr = (int)g->n, best = -1;
	int bestd = -1, d, left;
	uint8_t *seen = xcalloc(g->n, 1);
	size_t k;
	uint32_t x, np, res = UINT32_MAX;

	for (x = 0; x < g->n; x++) {
		np = g->par_off[x + 1] - g->par_off[x];
		w[x] = np == 0 ? 1 : np == 1 ? -1 : -2;
	}
	for (k = 0; k < g->n && res == UINT32_MAX; k++) {
		x = g->git_order[k];
		if (w[x] != -2)
			continue;
		memset(seen, 0, g->n);
		w[x] = ref_count(g, x, seen);
		if (ref_halfway(w[x], nr))
			res = x;
	}
	for (left = 1; res == UINT32_MAX && left;) {
		left = 0;
		for (k = 0; k < g->n && res == UINT32_MAX; k++) {
			x = g->git_order[k];
			if (w[x] >= 0)
				continue;
			if (w[g->par[g->par_off[x]]] < 0) {
				left = 1;
				continue;
			}
			w[x] = w[g->par[g->par_off[x]]] + 1;
			if (ref_halfway(w[x], nr))
				res = x;
		}
	}
	for (k = 0; k < g->n && res == UINT32_MAX; k++) {
		x = g->git_order[k];
		d = w[x] < nr - w[x] ? w[x] : nr - w[x];
		if (d > bestd) {
			bestd = d;
			best = (int)x;
		}
	}
	if (res == UINT32_MAX)
		res = (uint32_t)best;
	free(w);
	free(seen);
	return res;
}

/* The last node must reach every other one, as bad does. */
static void
single_sink(uint32_t n, uint32_t *off, uint32_t **par)
{
	uint8_t *has_child = xcalloc(n, 1);
	uint32_t i, j, k = 0, *extra = xcalloc(n, sizeof(uint32_t));

	for (i = 0; i + 1 < n; i++)
		for (j = off[i]; j < off[i + 1]; j++)
			has_child[(*par)[j]] = 1;
	for (j = off[n - 1]; j < off[n]; j++)
		has_child[(*par)[j]] = 1;
	for (i = 0; i + 1 < n; i++)
		if (!has_child[i])
			extra[k++] = i;
	*par = xreallocarray(*par, off[n] + k + 1, sizeof(uint32_t));
	memcpy(*par + off[n], extra, k * sizeof(uint32_t));
	off[n] += k;
	free(extra);
	free(has_child);
}

Test(graph, git_choice_replays_find_bisection_in_any_list_order)
{
	uint64_t s = 5;
	int round, shortcut = 0;

	for (round = 0; round < 400; round++) {
		uint32_t n = 2 + rng_n(&s, round < 200 ? 30 : 3000), *off, *par;
		uint32_t i, j, t, ref, *w;
		struct graph g;
		struct graph_choice c;
		struct bd_error err;

		random_dag(&s, n, &off, &par);
		single_sink(n, off, &par);
		cr_assert_eq(graph_init_parents(&g, n, off, par, &err), 0, "%s",
		    err.msg);
		/* A list order that is often not topological. */
		g.git_order = xcalloc(n, sizeof(uint32_t));
		for (i = 0; i < n; i++)
			g.git_order[i] = i;
		for (i = n - 1; i > 0 && rng_n(&s, 4) != 0; i--) {
			j = rng_n(&s, i + 1);
			t = g.git_order[i];
			g.git_order[i] = g.git_order[j];
			g.git_order[j] = t;
		}
		ref = ref_git_choice(&g);
		cr_assert_eq(graph_git_choice(&g, NULL, 0, &c, &err), 0);
		cr_assert_eq(c.commit, ref, "round %d (n=%u): %u != %u", round,
		    n, c.commit, ref);
		cr_assert_eq(c.all, n);
		cr_assert_eq(c.kind, ref == n - 1 ? GRAPH_CHOICE_FOUND :
		    GRAPH_CHOICE_TEST);
		w = xcalloc(n, sizeof(uint32_t));
		graph_count(&g, w);
		if (c.kind == GRAPH_CHOICE_TEST)
			cr_assert_eq(c.left, n - w[c.commit] - 1);
		shortcut += 2 * (int)w[ref] - (int)n >= -1 &&
		    2 * (int)w[ref] - (int)n <= 1;
		free(w);
		graph_choice_release(&c);
		free(off);
		free(par);
		graph_release(&g);
	}
	cr_assert_gt(shortcut, 50, "too few halfway cases: %d", shortcut);
}

/* A chain 0 <- 1 <- ... <- n-1 (n-1 is bad). */
static void
chain(struct graph *g, uint32_t n)
{
	uint32_t *off = xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *par = xcalloc(n, sizeof(uint32_t)), i;
	struct bd_error err;

	for (i = 0; i < n; i++) {
		off[i] = i ? i - 1 : 0;
		if (i)
			par[i - 1] = i - 1;
	}
	off[n] = n - 1;
	cr_assert_eq(graph_init_parents(g, n, off, par, &err), 0, "%s",
	    err.msg);
	free(off);
	free(par);
}

Test(graph, skipped_commits_are_avoided_or_reported)
{
	struct graph g;
	struct graph_choice c, plain;
	struct bd_error err;
	uint8_t skip[64];
	uint32_t i, n = 40;

	chain(&g, n);
	memset(skip, 0, sizeof(skip));
	cr_assert_eq(graph_git_choice(&g, NULL, 0, &plain, &err), 0);
	/* A skip outside the set still switches git to sorting: same pick. */
	cr_assert_eq(graph_git_choice(&g, skip, 1, &c, &err), 0);
	cr_assert_eq(c.kind, GRAPH_CHOICE_TEST);
	cr_assert_eq(c.commit, plain.commit);
	graph_choice_release(&c);
	/* Skipping the best moves away from it, never onto skipped ones. */
	skip[plain.commit] = 1;
	cr_assert_eq(graph_git_choice(&g, skip, 1, &c, &err), 0);
	cr_assert_eq(c.kind, GRAPH_CHOICE_TEST);
	cr_assert_neq(c.commit, plain.commit);
	cr_assert_eq(skip[c.commit], 0);
	graph_choice_release(&c);
	/* All but bad skipped: the culprit is one of them or bad. */
	for (i = 0; i + 1 < n; i++)
		skip[i] = 1;
	cr_assert_eq(graph_git_choice(&g, skip, 1, &c, &err), 0);
	cr_assert_eq(c.kind, GRAPH_CHOICE_ONLY_SKIPPED);
	cr_assert_eq(c.ncands, n);
	cr_assert_eq(c.cands[n - 1], n - 1, "bad comes last");
	graph_choice_release(&c);
	/* Bad skipped too: the same list without bad appended twice. */
	skip[n - 1] = 1;
	cr_assert_eq(graph_git_choice(&g, skip, 1, &c, &err), 0);
	cr_assert_eq(c.kind, GRAPH_CHOICE_ONLY_SKIPPED);
	cr_assert_eq(c.ncands, n);
	graph_choice_release(&c);
	graph_choice_release(&plain);
	graph_release(&g);
}

Test(graph, single_candidate_is_the_first_bad_commit)
{
	struct graph g;
	struct graph_choice c;
	struct bd_error err;

	chain(&g, 1);
	cr_assert_eq(graph_git_choice(&g, NULL, 0, &c, &err), 0);
	cr_assert_eq(c.kind, GRAPH_CHOICE_FOUND);
	cr_assert_eq(c.commit, 0);
	graph_choice_release(&c);
	graph_release(&g);
	cr_assert_eq(graph_init_parents(&g, 0, (uint32_t[]){ 0 },
	    (uint32_t[]){ 0 }, &err), 0);
	cr_assert_eq(graph_git_choice(&g, NULL, 0, &c, &err), -EINVAL);
	graph_release(&g);
}

Test(graph, weighted_choice_halves_the_mass)
{
	uint64_t s = 3;
	int round;

	for (round = 0; round < 100; round++) {
		uint32_t n = 2 + rng_n(&s, 200), *off, *par, x;
		struct graph g;
		struct bd_error err;
		double *mass, *p, total = 0, best = -1, d;
		uint8_t *skip;
		ssize_t got;

		random_dag(&s, n, &off, &par);
		cr_assert_eq(graph_init_parents(&g, n, off, par, &err), 0);
		mass = xcalloc(n, sizeof(double));
		p = xcalloc(n, sizeof(double));
		skip = xcalloc(n, 1);
		for (x = 0; x < n; x++) {
			mass[x] = (double)(1 + rng_n(&s, 50));
			total += mass[x];
			skip[x] = rng_n(&s, 5) == 0;
		}
		graph_prob_bad(&g, mass, p);
		got = graph_best_weighted(&g, p, total, skip);
		for (x = 0; x < n; x++) {
			if (skip[x])
				continue;
			d = fmin(p[x], total - p[x]);
			if (best < 0 || d > best)
				best = d;
		}
		if (best < 0) {
			cr_assert_eq(got, -1);
		} else {
			cr_assert_geq(got, 0);
			cr_assert_eq(skip[got], 0);
			cr_assert_eq(fmin(p[got], total - p[got]), best);
			/* Ties go to the first in list (here index) order. */
			for (x = 0; x < (uint32_t)got; x++)
				cr_assert(skip[x] ||
				    fmin(p[x], total - p[x]) < best);
		}
		free(mass);
		free(p);
		free(skip);
		free(off);
		free(par);
		graph_release(&g);
	}
}

Test(graph, synthetic_graphs_have_no_oids_to_find)
{
	struct graph g;
	struct graph_oid oid;

	chain(&g, 3);
	memset(&oid, 0, sizeof(oid));
	cr_assert_eq(graph_find(&g, &oid), -1);
	graph_release(&g);
}

/* Three ids whose byte order differs from their index order. */
static struct graph_oid *
three_oids(void)
{
	struct graph_oid *o = xcalloc(3, sizeof(*o));

	memset(o[0].id, 0xc0, GRAPH_OID_RAWSZ);
	memset(o[1].id, 0x0a, GRAPH_OID_RAWSZ);
	memset(o[2].id, 0x5f, GRAPH_OID_RAWSZ);
	o[2].id[GRAPH_OID_RAWSZ - 1] = 0x01;
	return o;
}

Test(graph, init_owned_takes_the_arrays_and_finds_every_id)
{
	struct graph g;
	struct graph_oid *oids = three_oids(), probe;
	uint32_t *off = xcalloc(4, sizeof(uint32_t));
	uint32_t *par = xcalloc(2, sizeof(uint32_t));
	uint32_t *order = xcalloc(3, sizeof(uint32_t)), w[3];
	size_t i;

	off[0] = 0, off[1] = 0, off[2] = 1, off[3] = 2;
	par[0] = 0, par[1] = 1;			/* a chain 0 <- 1 <- 2 */
	order[0] = 2, order[1] = 1, order[2] = 0;
	graph_init_owned(&g, 3, off, par, oids, order);
	cr_assert_eq(g.n, 3);
	cr_assert_eq(g.oids, oids);
	cr_assert_eq(g.git_order, order);
	for (i = 0; i < 3; i++)
		cr_assert_eq(graph_find(&g, &oids[i]), (ssize_t)i);
	probe = oids[2];
	probe.id[0] ^= 1;
	cr_assert_eq(graph_find(&g, &probe), -1);
	graph_count(&g, w);
	cr_assert_eq(w[2], 3);
	graph_release(&g);	/* frees the adopted arrays: LSan checks */
}

Test(graph, oid_cmp_is_byte_order)
{
	struct graph_oid *o = three_oids();

	cr_assert_gt(graph_oid_cmp(&o[0], &o[1]), 0);
	cr_assert_lt(graph_oid_cmp(&o[1], &o[2]), 0);
	cr_assert_eq(graph_oid_cmp(&o[2], &o[2]), 0);
	free(o);
}

Test(graph, oid_tostr_writes_hex_within_the_buffer)
{
	struct graph_oid oid;
	char buf[64];
	size_t i;

	for (i = 0; i < GRAPH_OID_RAWSZ; i++)
		oid.id[i] = (uint8_t)(i * 17 + 0xa0);
	cr_assert_str_eq(graph_oid_tostr(buf, sizeof(buf), &oid),
	    "a0b1c2d3e4f5061728394a5b6c7d8e9fb0c1d2e3");
	memset(buf, 'x', sizeof(buf));
	cr_assert_str_eq(graph_oid_tostr(buf, 8, &oid), "a0b1c2d");
	cr_assert_eq(buf[8], 'x');
	cr_assert_str_eq(graph_oid_tostr(buf, 1, &oid), "");
	memset(buf, 'x', sizeof(buf));
	graph_oid_tostr(buf, 0, &oid);
	cr_assert_eq(buf[0], 'x');
	cr_assert_eq(strlen(graph_oid_tostr(buf, GRAPH_OID_HEXSZ + 1, &oid)),
	    GRAPH_OID_HEXSZ);
}
