/*
 * make bench-sweep: nightly sweeps of simulated tags with 20 watched
 * metrics each, judged by bisectd's sweep statistics (bisect/sweep_stats.c),
 * by LKP's min/max non-overlap rule (at least 3 runs a side, 1% floor) and
 * by a Perfherder-style t > 7 against the rolling baseline (2% floor).
 * Every strategy sees the same simulated tags (each takes the first runs it
 * needs of one pool of draws) under bench-sim's noise models.
 *
 * Printed per noise model and effect size d (in noise sds, metric 0 only):
 * the rate of tags with a false alarm on any metric, the rate at which the
 * changed metric is caught, and the runs per tag.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/sweep_stats.h"
#include "common/xmalloc.h"
#include "tests/bench/sim.h"

#define NMETRICS	20
#define LEVEL		100.0

enum { ST_BISECTD, ST_LKP, ST_PERF, ST_N };
static const char *st_names[ST_N] = { "bisectd", "lkp", "perfherder" };

struct opts {
	struct sweep_params sp;
	unsigned	 k;		/* baseline tags */
	unsigned	 lkp_runs, perf_runs;
	double		 cv;		/* noise sd relative to the level */
	unsigned	 trials;
	uint64_t	 seed;
	const char	*noise;		/* NULL: every model */
	double		 d;		/* < 0: the standard list */
};

/* One simulated tag history: data[tag][metric][run], tag k is the new one. */
struct tags {
	unsigned	 ntags, maxn;
	double		*v;
};

static double *
tag_runs(const struct tags *t, unsigned tag, unsigned m)
{
	return t->v + ((size_t)tag * NMETRICS + m) * t->maxn;
}

/* Draws every run any strategy may use, so all of them judge one history. */
static void
tags_draw(struct tags *t, const char *noise, double d, double cv,
    uint64_t seed, unsigned trial)
{
	struct sim_case cs = { .noise = noise };
	uint8_t bad[1] = { 0 };
	struct sim_world w = { .cs = &cs, .bad = bad };
	unsigned tag, m, j;
	double shift, *x;

	sim_rng_seed(&w.rng, seed, trial);
	for (tag = 0; tag < t->ntags; tag++)
		for (m = 0; m < NMETRICS; m++) {
			x = tag_runs(t, tag, m);
			shift = tag == t->ntags - 1 && m == 0 ? d : 0;
			for (j = 0; j < t->maxn; j++)
				x[j] = LEVEL * (1 + cv *
				    (sim_world_sample(&w, SIM_NONE) + shift));
		}
}

/* Per-row tallies of one strategy. */
struct tally {
	unsigned	 alarm;		/* tags with a change called on an unchanged metric */
	unsigned	 detect;	/* tags where metric 0 (changed) was called */
	double		 runs;
};

/* bisectd: first runs, more while some metric is borderline, up to cap. */
static void
run_bisectd(const struct opts *o, const struct tags *t, int changed,
    struct tally *ty)
{
	struct sweep_metric_in in[NMETRICS];
	struct sweep_metric_out out[NMETRICS];
	struct sweep_series *hist;
	unsigned k = t->ntags - 1, n = o->sp.first, more, m, tag;

	hist = xreallocarray(NULL, (size_t)NMETRICS * k, sizeof(*hist));
	for (m = 0; m < NMETRICS; m++) {
		for (tag = 0; tag < k; tag++)
			hist[m * k + tag] = (struct sweep_series){
				.v = tag_runs(t, tag, m), .n = o->sp.first };
		in[m] = (struct sweep_metric_in){
			.cur = { .v = tag_runs(t, k, m) },
			.tags = hist + m * k, .ntags = k,
		};
	}
	for (;;) {
		for (m = 0; m < NMETRICS; m++)
			in[m].cur.n = n;
		if ((more = sweep_stats_judge(&o->sp, in, NMETRICS, out)) == 0)
			break;
		n += more;
	}
	ty->runs += n;
	for (m = changed; m < NMETRICS; m++)
		if (out[m].verdict == SWEEP_CHANGED) {
			ty->alarm++;
			break;
		}
	ty->detect += changed && out[0].verdict == SWEEP_CHANGED;
	free(hist);
}

static void
mean_var(const double *v, size_t n, double *mean, double *var)
{
	double s = 0, q = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	*mean = s / (double)n;
	for (i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*var = n > 1 ? q / (double)(n - 1) : 0;
}

/* LKP: the new tag's min/max range misses the previous tag's, 1% apart. */
static int
lkp_call(const double *a, const double *b, unsigned n)
{
	double amin = INFINITY, amax = -INFINITY, bmin = INFINITY;
	double bmax = -INFINITY, ma, mb, va, vb;
	unsigned i;

	for (i = 0; i < n; i++) {
		amin = fmin(amin, a[i]);
		amax = fmax(amax, a[i]);
		bmin = fmin(bmin, b[i]);
		bmax = fmax(bmax, b[i]);
	}
	mean_var(a, n, &ma, &va);
	mean_var(b, n, &mb, &vb);
	return (bmin > amax || bmax < amin) && fabs(mb - ma) >= 0.01 * fabs(ma);
}

/* Perfherder: t of the new tag against the baseline above 7, 2% apart. */
static int
perf_call(const double *base, size_t nb, const double *cur, size_t nc)
{
	double mb, vb, mc, vc, se;

	mean_var(base, nb, &mb, &vb);
	mean_var(cur, nc, &mc, &vc);
	se = sqrt(vb / (double)nb + vc / (double)nc);
	return fabs(mc - mb) >= 0.02 * fabs(mb) &&
	    (se > 0 ? fabs(mc - mb) / se > 7 : mc != mb);
}

/* The two fixed-run baselines on the same history. */
static void
run_fixed(const struct opts *o, const struct tags *t, int changed,
    struct tally *lkp, struct tally *perf)
{
	unsigned k = t->ntags - 1, m, tag;
	double *base = xreallocarray(NULL, (size_t)o->k * o->perf_runs,
	    sizeof(double));
	int la = 0, pa = 0, hit;

	for (m = 0; m < NMETRICS; m++) {
		hit = lkp_call(tag_runs(t, k - 1, m), tag_runs(t, k, m),
		    o->lkp_runs);
		if (m == 0 && changed)
			lkp->detect += hit;
		else
			la |= hit;
		for (tag = 0; tag < k; tag++)
			memcpy(base + (size_t)tag * o->perf_runs,
			    tag_runs(t, tag, m), o->perf_runs * sizeof(double));
		hit = perf_call(base, (size_t)o->k * o->perf_runs,
		    tag_runs(t, k, m), o->perf_runs);
		if (m == 0 && changed)
			perf->detect += hit;
		else
			pa |= hit;
	}
	lkp->alarm += la;
	perf->alarm += pa;
	lkp->runs += o->lkp_runs;
	perf->runs += o->perf_runs;
	free(base);
}

/* One table row: one noise model, one d, every strategy. */
static void
run_row(const struct opts *o, const char *noise, double d)
{
	struct tally ty[ST_N];
	struct tags t;
	unsigned trial, s;
	double n = o->trials;

	memset(ty, 0, sizeof(ty));
	t.ntags = o->k + 1;
	t.maxn = o->sp.cap;
	if (o->lkp_runs > t.maxn)
		t.maxn = o->lkp_runs;
	if (o->perf_runs > t.maxn)
		t.maxn = o->perf_runs;
	t.v = xreallocarray(NULL, (size_t)t.ntags * NMETRICS * t.maxn,
	    sizeof(double));
	for (trial = 0; trial < o->trials; trial++) {
		tags_draw(&t, noise, d, o->cv, o->seed, trial);
		run_bisectd(o, &t, d != 0, &ty[ST_BISECTD]);
		run_fixed(o, &t, d != 0, &ty[ST_LKP], &ty[ST_PERF]);
	}
	for (s = 0; s < ST_N; s++) {
		printf("  %-8s d=%-3g %-10s", noise, d, st_names[s]);
		printf(" false alarms/tag %6.2f%%", 100 * ty[s].alarm / n);
		if (d != 0)
			printf("  detected %6.2f%%", 100 * ty[s].detect / n);
		else
			printf("  %16s", "");
		printf("  runs/tag %5.2f\n", ty[s].runs / n);
	}
	free(t.v);
}

static void
usage(void)
{
	fprintf(stderr, "usage: sweep_bench [--trials N] [--seed S] "
	    "[--noise MODEL] [--d D] [--cv FRACTION] [--k TAGS]\n"
	    "  [--alpha A] [--min-change F] [--first N] [--step N] "
	    "[--cap N] [--borderline P]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const char *models[] = { "normal", "t3", "outlier", "bimodal" };
	static const double ds[] = { 0, 1, 2, 4 };
	static const struct option lo[] = {
		{ "trials", 1, NULL, 't' }, { "seed", 1, NULL, 's' },
		{ "noise", 1, NULL, 'n' }, { "d", 1, NULL, 'd' },
		{ "cv", 1, NULL, 'v' }, { "k", 1, NULL, 'k' },
		{ "alpha", 1, NULL, 'a' }, { "min-change", 1, NULL, 'm' },
		{ "first", 1, NULL, 'f' }, { "step", 1, NULL, 'p' },
		{ "cap", 1, NULL, 'c' }, { "borderline", 1, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .k = 5, .lkp_runs = 3, .perf_runs = 5, .cv = 0.01,
	    .trials = 2000, .seed = 1, .d = -1 };
	size_t i, j;
	int c;

	sweep_params_default(&o.sp);
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 't': o.trials = (unsigned)strtoul(optarg, NULL, 10); break;
		case 's': o.seed = strtoull(optarg, NULL, 10); break;
		case 'n': o.noise = optarg; break;
		case 'd': o.d = strtod(optarg, NULL); break;
		case 'v': o.cv = strtod(optarg, NULL); break;
		case 'k': o.k = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'a': o.sp.alpha = strtod(optarg, NULL); break;
		case 'm': o.sp.min_change = strtod(optarg, NULL); break;
		case 'f': o.sp.first = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'p': o.sp.step = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'c': o.sp.cap = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'b': o.sp.borderline = strtod(optarg, NULL); break;
		default: usage();
		}
	}
	if (o.trials == 0 || o.k == 0 || o.sp.first < 2 ||
	    o.sp.cap < o.sp.first)
		usage();
	printf("sweep: %u tags a row, %d watched metrics a tag (metric 0 "
	    "changes by d noise sds), noise sd %.2f%% of the level,\n"
	    "  baseline %u tags; bisectd alpha %g per tag, min_change %g, "
	    "runs %u+%u.. up to %u; lkp %u runs; perfherder %u runs\n",
	    o.trials, NMETRICS, 100 * o.cv, o.k, o.sp.alpha, o.sp.min_change,
	    o.sp.first, o.sp.step, o.sp.cap, o.lkp_runs, o.perf_runs);
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		if (o.noise != NULL && strcmp(o.noise, models[i]) != 0)
			continue;
		for (j = 0; j < sizeof(ds) / sizeof(ds[0]); j++)
			if (o.d < 0 || o.d == ds[j])
				run_row(&o, models[i], ds[j]);
	}
	return 0;
}
