/* SPDX-License-Identifier: MIT */
/*
 * Simulated worlds: candidate DAGs (linear, or merge-heavy with topic
 * branches and octopus merges), a planted culprit, unbuildable clusters and
 * the noise models.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/agg.h"
#include "common/xmalloc.h"
#include "tests/bench/sim.h"

/* Spreads a seed over the generator's state. */
static uint64_t
splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* One independent stream per (seed, stream) pair, so rows and strategies do not share draws. */
void
sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix(&x);
}

/* Rotation for xoshiro. */
static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256**: fast and good enough for simulation. */
uint64_t
sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* 53 random bits in [0, 1). */
double
sim_rng_unif(struct sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Box-Muller; one of the pair is enough here. */
double
sim_rng_norm(struct sim_rng *r)
{
	double u = sim_rng_unif(r), v = sim_rng_unif(r);

	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

struct dag_build {
	uint32_t	*off, *par;
	size_t		 n, np, cap;
};

/* Appends a commit with its parents; indices stay parents-first. */
static void
dag_commit(struct dag_build *b, const uint32_t *ps, size_t k)
{
	size_t i;

	if (b->np + k > b->cap) {
		b->cap = 2 * (b->np + k);
		b->par = xreallocarray(b->par, b->cap, sizeof(uint32_t));
	}
	for (i = 0; i < k; i++)
		b->par[b->np++] = ps[i];
	b->off[++b->n] = (uint32_t)b->np;
}

/*
 * Mainline commits, topic branches forked from the mainline (or from the
 * good side, as a root), merged back one at a time or in octopus merges;
 * the last commit merges whatever is still open, so it reaches everything.
 */
static void
dag_merge(struct dag_build *b, size_t n, struct sim_rng *r)
{
	uint32_t main = SIM_NONE, heads[16], ps[18];
	size_t open = 0, k, j, pick;
	double u;

	while (b->n < n - 1) {
		u = sim_rng_unif(r);
		k = 0;
		if (open < 16 && u < 0.10) {
			if (main != SIM_NONE && sim_rng_unif(r) > 0.2)
				ps[k++] = main;
			dag_commit(b, ps, k);
			heads[open++] = (uint32_t)(b->n - 1);
		} else if (open > 0 && u < 0.60) {
			pick = sim_rng_next(r) % open;
			ps[k++] = heads[pick];
			dag_commit(b, ps, k);
			heads[pick] = (uint32_t)(b->n - 1);
		} else if (open > 0 && u < 0.75) {
			size_t nm = sim_rng_unif(r) < 0.15 && open >= 3 ? 3 : 1;

			if (main != SIM_NONE)
				ps[k++] = main;
			for (j = 0; j < nm; j++) {
				pick = sim_rng_next(r) % open;
				ps[k++] = heads[pick];
				heads[pick] = heads[--open];
			}
			dag_commit(b, ps, k);
			main = (uint32_t)(b->n - 1);
		} else {
			if (main != SIM_NONE)
				ps[k++] = main;
			dag_commit(b, ps, k);
			main = (uint32_t)(b->n - 1);
		}
	}
	k = 0;
	if (main != SIM_NONE)
		ps[k++] = main;
	for (j = 0; j < open; j++)
		ps[k++] = heads[j];
	dag_commit(b, ps, k);
}

/* A line, or topic branches and merges, for the row's N. */
static void
build_dag(struct sim_world *w, struct sim_rng *r)
{
	const struct sim_case *cs = w->cs;
	struct dag_build b = { 0 };
	struct bd_error err;
	uint32_t p = 0;
	size_t i;

	b.off = xcalloc(cs->n + 1, sizeof(uint32_t));
	if (strcmp(cs->dag, "merge") == 0 && cs->n > 1)
		dag_merge(&b, cs->n, r);
	else
		for (i = 0; i < cs->n; i++) {
			p = (uint32_t)(i - 1);
			dag_commit(&b, &p, i > 0);
		}
	if (graph_init_parents(&w->g, cs->n, b.off, b.par ? b.par : &p, &err)
	    != 0) {
		fprintf(stderr, "sim: bad generated graph: %s\n", err.msg);
		abort();
	}
	free(b.off);
	free(b.par);
}

/* Clusters of 1 to 6 neighbouring indices until the fraction is reached. */
static void
mark_unbuildable(struct sim_world *w, struct sim_rng *r)
{
	size_t n = w->cs->n, want = (size_t)(w->cs->skip * (double)n + 0.5);
	size_t have = 0, start, len, i, guard = 0;

	while (have < want && n > 1 && guard++ < 100 * n) {
		start = sim_rng_next(r) % (n - 1);
		len = 1 + sim_rng_next(r) % 6;
		for (i = start; i < start + len && i < n - 1 && have < want; i++)
			if (!w->unbuildable[i]) {
				w->unbuildable[i] = 1;
				have++;
			}
	}
}

/* Everything about a trial but the noise comes from the seed and the trial number. */
void
sim_world_init(struct sim_world *w, const struct sim_case *cs, unsigned trial)
{
	struct sim_rng r;
	size_t i, nb = 0;
	uint32_t pick;

	memset(w, 0, sizeof(*w));
	w->cs = cs;
	w->trial = trial;
	sim_rng_seed(&r, cs->seed, 1000003ULL * trial + 17);
	build_dag(w, &r);
	w->bad = xcalloc(cs->n, 1);
	w->unbuildable = xcalloc(cs->n, 1);
	mark_unbuildable(w, &r);
	w->base = cs->base > 0 ? cs->base : 20;
	w->delta = (sim_rng_unif(&r) < 0.5 ? -1 : 1) * cs->d;
	w->drift_sign = sim_rng_unif(&r) < 0.5 ? -1 : 1;
	w->drift_at = (0.25 + 0.5 * sim_rng_unif(&r)) * cs->drift_len;
	w->culprit = SIM_NONE;
	if (!cs->null) {
		for (i = 0; i < cs->n; i++)
			nb += !w->unbuildable[i];
		pick = (uint32_t)(sim_rng_next(&r) % nb);
		for (i = 0; i < cs->n; i++)
			if (!w->unbuildable[i] && pick-- == 0) {
				sim_world_plant(w, (uint32_t)i);
				break;
			}
	}
	sim_world_reseed(w, 0);
}

/* The culprit is c, and bad are the commits that contain it. */
void
sim_world_plant(struct sim_world *w, uint32_t c)
{
	size_t i, j;

	w->culprit = c;
	for (i = 0; i < w->cs->n; i++) {
		w->bad[i] = i == c;
		for (j = w->g.par_off[i]; j < w->g.par_off[i + 1]; j++)
			w->bad[i] |= w->bad[w->g.par[j]];
	}
}

/* Frees what sim_world_init made. */
void
sim_world_release(struct sim_world *w)
{
	graph_release(&w->g);
	free(w->bad);
	free(w->unbuildable);
	memset(w, 0, sizeof(*w));
}

/* Each strategy gets the same noise source, independent of the others' draws. */
void
sim_world_reseed(struct sim_world *w, unsigned strategy)
{
	sim_rng_seed(&w->rng, w->cs->seed ^ 0x5bd1e995ULL,
	    (uint64_t)strategy * 7919 + (uint64_t)w->trial * 104729 + 1);
	w->t = 0;
}

/*
 * The test machine's drift at the current sample: a ramp of drift_sd over
 * drift_len samples that then stays, or a step of drift_sd at a random
 * time inside the middle half of drift_len.  Time is the number of samples
 * drawn, the same clock for every strategy.
 */
static double
drift(const struct sim_world *w)
{
	const struct sim_case *cs = w->cs;
	double f;

	if (cs->drift == NULL || cs->drift_len == 0)
		return 0;
	if (strcmp(cs->drift, "step") == 0)
		f = w->t >= w->drift_at ? 1 : 0;
	else
		f = fmin((double)w->t / cs->drift_len, 1);
	return w->drift_sign * cs->drift_sd * f;
}

/* Noise with unit standard deviation (outliers: unit sd of the core). */
static double
noise(struct sim_world *w)
{
	const char *m = w->cs->noise;
	struct sim_rng *r = &w->rng;
	double c, x;
	int i;

	if (strcmp(m, "t3") == 0) {
		for (c = 0, i = 0; i < 3; i++) {
			x = sim_rng_norm(r);
			c += x * x;
		}
		return sim_rng_norm(r) / sqrt(c / 3) / sqrt(3);
	}
	if (strcmp(m, "outlier") == 0) {
		w->wild = sim_rng_unif(r) < 0.05;
		if (w->wild)
			return (2 * sim_rng_unif(r) - 1) * 30;
		return sim_rng_norm(r);
	}
	if (strcmp(m, "bimodal") == 0)
		return (sim_rng_unif(r) < 0.5 ? -0.9 : 0.9) +
		    0.43589 * sim_rng_norm(r);
	return sim_rng_norm(r);
}

/*
 * "arrays": a run prints SIM_ARRAY_K values (one per iteration) around a
 * level of its own.  The level moves from boot to boot with unit sd; the
 * iterations move around it far less.  The engine gets what the daemon
 * gives it, the run's one value (the mean, common/agg.h).
 */
#define SIM_ARRAY_K	20
#define SIM_ARRAY_SD	0.05

static double
sim_world_array(struct sim_world *w, double level)
{
	double v[SIM_ARRAY_K], out;
	int i;

	level += sim_rng_norm(&w->rng);
	for (i = 0; i < SIM_ARRAY_K; i++)
		v[i] = level + SIM_ARRAY_SD * sim_rng_norm(&w->rng);
	if (agg_apply(AGG_MEAN, v, SIM_ARRAY_K, &out) < 0)
		abort();	/* finite values of a finite level */
	return out;
}

/* The truth plus noise: what a benchmark run would report. */
double
sim_world_sample(struct sim_world *w, uint32_t commit)
{
	int bad = commit != SIM_NONE && w->bad[commit];
	double dr = drift(w);

	w->t++;
	w->wild = 0;
	if (strcmp(w->cs->noise, "passfail") == 0)
		return sim_rng_unif(&w->rng) < (bad ? w->cs->pb : w->cs->pg);
	if (strcmp(w->cs->noise, "arrays") == 0)
		return sim_world_array(w, w->base + (bad ? w->delta : 0) + dr);
	return w->base + (bad ? w->delta : 0) + dr + noise(w);
}

/* Records one step's samples, all of which can run at once. */
void
sim_steps_add(struct sim_steps *s, unsigned samples)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xreallocarray(s->v, s->cap, sizeof(unsigned));
	}
	s->v[s->n++] = samples;
}

/* With k hosts a step of s samples takes ceil(s / k) rounds. */
unsigned
sim_steps_rounds(const struct sim_steps *s, unsigned k)
{
	unsigned r = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		r += (s->v[i] + k - 1) / k;
	return r;
}

/* Frees the step list. */
void
sim_steps_release(struct sim_steps *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
