/* SPDX-License-Identifier: MIT */
/*
 * make bench-sweep: nightly sweeps of simulated tag series with 20
 * watched metrics each, judged tag by tag by bisectd's sweep statistics
 * (bisect/sweep_stats.c: change points over the series, revisits, a first
 * baseline of `cap` runs), by LKP's min/max non-overlap rule (3 runs a
 * side against the previous tag, 1% floor) and by a Perfherder-style
 * t > 7 against the rolling baseline (2% floor).  Every strategy sees the
 * same simulated tags (each takes the first runs it needs of one pool of
 * draws) under bench-sim's noise models and "arrays" (8 values a run about
 * a run level, the run-level noise dominating, the run's mean judged).
 *
 * A trial is one series: a first baseline, then tags judged one by one;
 * with d > 0 metric 0 moves by d noise sds at tag c (1 to 5, by trial)
 * and the series ends 2 tags after it.  Printed per noise model and d:
 * the rate of judged tags with a false alarm on any metric, the rate at
 * which the change is found at its own tag and within 3 tags, how many
 * tags it took (+0, +1, +2), how often the bisection range (the last tag
 * before the change point to the first after it) holds the change, and
 * the runs per judged tag.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/sweep_stats.h"
#include "common/agg.h"
#include "common/xmalloc.h"
#include "tests/bench/sim.h"

#define NMETRICS	20
#define LEVEL		100.0
#define TAGS_MAX	9	/* baseline, 7 judged; or c + 3 */
#define ARRAY_VALUES	8

enum { ST_BISECTD, ST_LKP, ST_PERF, ST_N };
static const char *st_names[ST_N] = { "bisectd", "lkp", "perfherder" };

struct opts {
	struct sweep_params sp;
	unsigned	 k;		/* baseline tags of Perfherder */
	unsigned	 lkp_runs, perf_runs;
	double		 cv;		/* noise sd relative to the level */
	unsigned	 trials;
	uint64_t	 seed;
	const char	*noise;		/* NULL: every model */
	double		 d;		/* < 0: the standard list */
};

/* One simulated series: v[tag][metric][run]; the change at tag c. */
struct tags {
	unsigned	 ntags, maxn, c;	/* c 0: no change */
	double		*v;
};

static double *
tag_runs(const struct tags *t, unsigned tag, unsigned m)
{
	return t->v + ((size_t)tag * NMETRICS + m) * t->maxn;
}

/* One run's value in noise sds: a bench-sim model, or "arrays". */
static double
draw(struct sim_world *w, const char *noise)
{
	double lv, x[ARRAY_VALUES], out;
	unsigned i;

	if (strcmp(noise, "arrays") != 0)
		return sim_world_sample(w, SIM_NONE);
	/* Run level sd 0.95, each value 0.9 about it: the mean's sd is 1. */
	lv = 0.95 * sim_rng_norm(&w->rng);
	for (i = 0; i < ARRAY_VALUES; i++)
		x[i] = lv + 0.9 * sim_rng_norm(&w->rng);
	agg_apply(AGG_MEAN, x, ARRAY_VALUES, &out);
	return out;
}

/* Draws every run any strategy may use, so all of them judge one series. */
static void
tags_draw(struct tags *t, const char *noise, double d, double cv,
    uint64_t seed, unsigned trial)
{
	struct sim_case cs = { .noise = strcmp(noise, "arrays") == 0 ?
	    "normal" : noise };
	uint8_t bad[1] = { 0 };
	struct sim_world w = { .cs = &cs, .bad = bad };
	unsigned tag, m, j;
	double shift, *x;

	sim_rng_seed(&w.rng, seed, trial);
	t->c = d != 0 ? 1 + trial % 5 : 0;
	t->ntags = d != 0 ? t->c + 3 : 8;
	for (tag = 0; tag < t->ntags; tag++)
		for (m = 0; m < NMETRICS; m++) {
			x = tag_runs(t, tag, m);
			shift = t->c != 0 && tag >= t->c && m == 0 ? d : 0;
			for (j = 0; j < t->maxn; j++)
				x[j] = LEVEL * (1 + cv * (draw(&w, noise) +
				    shift));
		}
}

/* Per-row tallies of one strategy. */
struct tally {
	unsigned	 judged;	/* tags judged */
	unsigned	 alarm;		/* of them with a false alarm */
	unsigned	 changes;	/* series with a change */
	unsigned	 found[3];	/* the change found 0, 1, 2 tags late */
	unsigned	 pair;		/* found with the range holding it */
	unsigned	 exact;		/* found with the change point exact */
	unsigned	 detected;	/* changes found, however late */
	double		 width;		/* tags from the range's first to last */
	double		 runs;		/* runs of the judged tags */
};

/* The bisectd state of one metric along the series. */
struct metric_state {
	unsigned	 from;		/* first tag after its last change point */
	int		 found;
};

/* Judges tag j of the series for every metric: looks, then revisits. */
static void
judge_tag(const struct opts *o, const struct tags *t, unsigned j,
    unsigned *n, const struct metric_state *ms,
    struct sweep_series (*ser)[TAGS_MAX], struct sweep_metric_out *out)
{
	struct sweep_metric_in in[NMETRICS];
	unsigned m, tag, more, revisits = 0;
	size_t r;

	n[j] = o->sp.first;
	for (;;) {
		for (m = 0; m < NMETRICS; m++) {
			for (tag = ms[m].from; tag <= j; tag++)
				ser[m][tag] = (struct sweep_series){
				    tag_runs(t, tag, m), n[tag] };
			in[m].tags = ser[m] + ms[m].from;
			in[m].ntags = j + 1 - ms[m].from;
		}
		if ((more = sweep_stats_judge(&o->sp, in, NMETRICS, out)) > 0) {
			n[j] += more;
			continue;
		}
		if (revisits == SWEEP_REVISITS_MAX ||
		    (r = sweep_stats_revisit(out, NMETRICS)) == NMETRICS)
			break;
		tag = ms[r].from + (unsigned)out[r].revisit;
		n[tag] = n[tag] + o->sp.step < o->sp.cap ? n[tag] +
		    o->sp.step : o->sp.cap;
		revisits++;
	}
}

/* bisectd along the series: every tag judged as the daemon judges it. */
static void
run_bisectd(const struct opts *o, const struct tags *t, struct tally *ty)
{
	static struct sweep_series ser[NMETRICS][TAGS_MAX];
	struct sweep_metric_out out[NMETRICS];
	struct metric_state ms[NMETRICS];
	unsigned n[TAGS_MAX], j, m, at, first, last;
	int alarm;

	memset(ms, 0, sizeof(ms));
	n[0] = o->sp.cap;
	for (j = 1; j < t->ntags; j++) {
		judge_tag(o, t, j, n, ms, ser, out);
		alarm = 0;
		for (m = 0; m < NMETRICS; m++) {
			if (out[m].verdict != SWEEP_CHANGED)
				continue;
			first = ms[m].from + (unsigned)out[m].at_first;
			last = ms[m].from + (unsigned)out[m].at_last;
			at = ms[m].from + (unsigned)out[m].at;
			ms[m].from = at;
			if (m != 0 || t->c == 0 || j < t->c || ms[m].found) {
				alarm = 1;
				continue;
			}
			ms[m].found = 1;
			ty->detected++;
			if (j - t->c < 3)
				ty->found[j - t->c]++;
			ty->pair += first <= t->c && t->c <= last;
			ty->exact += at == t->c;
			ty->width += last - first + 1;
		}
		ty->alarm += alarm;
		ty->judged++;
	}
	for (j = 1; j < t->ntags; j++)
		ty->runs += n[j];
	ty->changes += t->c != 0;
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

/* What one fixed rule called on one metric at tag j. */
static void
fixed_tally(const struct tags *t, unsigned j, unsigned m, int hit,
    int *alarm, int *found, struct tally *ty)
{
	if (!hit)
		return;
	if (m != 0 || t->c == 0 || j < t->c || *found) {
		*alarm = 1;
		return;
	}
	*found = 1;
	ty->detected++;
	if (j - t->c < 3)
		ty->found[j - t->c]++;
	ty->pair += j == t->c;	/* its range is always (j - 1, j) */
	ty->exact += j == t->c;
	ty->width += 1;
}

/* The two fixed-run baselines on the same series, tag by tag. */
static void
run_fixed(const struct opts *o, const struct tags *t, struct tally *lkp,
    struct tally *perf)
{
	unsigned j, m, tag, lo, nb;
	double *base = xreallocarray(NULL, (size_t)o->k * o->perf_runs,
	    sizeof(double));
	int la, pa, lf = 0, pf = 0, hit;

	for (j = 1; j < t->ntags; j++) {
		la = pa = 0;
		lo = j > o->k ? j - o->k : 0;
		for (m = 0; m < NMETRICS; m++) {
			hit = lkp_call(tag_runs(t, j - 1, m), tag_runs(t, j, m),
			    o->lkp_runs);
			fixed_tally(t, j, m, hit, &la, &lf, lkp);
			for (nb = 0, tag = lo; tag < j; tag++, nb++)
				memcpy(base + (size_t)nb * o->perf_runs,
				    tag_runs(t, tag, m),
				    o->perf_runs * sizeof(double));
			hit = perf_call(base, (size_t)nb * o->perf_runs,
			    tag_runs(t, j, m), o->perf_runs);
			fixed_tally(t, j, m, hit, &pa, &pf, perf);
		}
		lkp->alarm += la;
		perf->alarm += pa;
		lkp->judged++;
		perf->judged++;
		lkp->runs += o->lkp_runs;
		perf->runs += o->perf_runs;
	}
	lkp->changes += t->c != 0;
	perf->changes += t->c != 0;
	free(base);
}

/* One table row: one noise model, one d, every strategy. */
static void
run_row(const struct opts *o, const char *noise, double d)
{
	struct tally ty[ST_N];
	struct tags t;
	unsigned trial, s, f, dt;
	double ch;

	memset(ty, 0, sizeof(ty));
	t.maxn = o->sp.cap;
	if (o->lkp_runs > t.maxn)
		t.maxn = o->lkp_runs;
	if (o->perf_runs > t.maxn)
		t.maxn = o->perf_runs;
	t.v = xreallocarray(NULL, (size_t)TAGS_MAX * NMETRICS * t.maxn,
	    sizeof(double));
	for (trial = 0; trial < o->trials; trial++) {
		tags_draw(&t, noise, d, o->cv, o->seed, trial);
		run_bisectd(o, &t, &ty[ST_BISECTD]);
		run_fixed(o, &t, &ty[ST_LKP], &ty[ST_PERF]);
	}
	for (s = 0; s < ST_N; s++) {
		ch = ty[s].changes;
		printf("  %-8s d=%-3g %-10s alarms/tag %5.2f%%", noise, d,
		    st_names[s], 100.0 * ty[s].alarm / ty[s].judged);
		if (d != 0) {
			f = ty[s].found[0] + ty[s].found[1] + ty[s].found[2];
			dt = ty[s].detected > 0 ? ty[s].detected : 1;
			printf("  own tag %6.2f%%  within 3 %6.2f%%  "
			    "+0/+1/+2 %4.1f/%4.1f/%4.1f%%  pair %6.2f%% "
			    "(exact %6.2f%%, %4.2f tags)",
			    100 * ty[s].found[0] / ch, 100 * f / ch,
			    100 * ty[s].found[0] / ch, 100 * ty[s].found[1] / ch,
			    100 * ty[s].found[2] / ch, 100.0 * ty[s].pair / dt,
			    100.0 * ty[s].exact / dt, ty[s].width / dt);
		} else
			printf("  %106s", "");
		printf("  runs/tag %5.2f\n", ty[s].runs / ty[s].judged);
	}
	fflush(stdout);
	free(t.v);
}

static void
usage(void)
{
	fprintf(stderr, "usage: sweep_bench [--trials N] [--seed S] "
	    "[--noise MODEL] [--d D] [--cv FRACTION] [--k TAGS]\n"
	    "  [--alpha A] [--min-change F] [--first N] [--step N] "
	    "[--own N] [--cap N] [--base TAGS] [--borderline P]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const char *models[] = { "normal", "t3", "outlier", "bimodal",
	    "arrays" };
	static const double ds[] = { 0, 1, 2, 4 };
	static const struct option lo[] = {
		{ "trials", 1, NULL, 't' }, { "seed", 1, NULL, 's' },
		{ "noise", 1, NULL, 'n' }, { "d", 1, NULL, 'd' },
		{ "cv", 1, NULL, 'v' }, { "k", 1, NULL, 'k' },
		{ "alpha", 1, NULL, 'a' }, { "min-change", 1, NULL, 'm' },
		{ "first", 1, NULL, 'f' }, { "step", 1, NULL, 'p' },
		{ "own", 1, NULL, 'o' }, { "cap", 1, NULL, 'c' },
		{ "base", 1, NULL, 'B' }, { "borderline", 1, NULL, 'b' },
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
		case 'o': o.sp.own = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'c': o.sp.cap = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'B': o.sp.base = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'b': o.sp.borderline = strtod(optarg, NULL); break;
		default: usage();
		}
	}
	if (o.trials == 0 || o.k == 0 || o.sp.first < 2 || o.sp.step == 0 ||
	    o.sp.own < o.sp.first || o.sp.cap < o.sp.own)
		usage();
	printf("sweep: %u series a row (a first baseline of %u runs, then "
	    "tags judged one by one; with d > 0 metric 0\n"
	    "  moves by d noise sds at tag 1-5 and the series ends 2 tags "
	    "later), %d watched metrics a tag, noise sd %.2f%%\n"
	    "  of the level; bisectd alpha %g per tag, min_change %g, runs "
	    "%u+%u.. up to %u at its own looks, %u with revisits,\n"
	    "  change points over %u+%u tags; lkp %u runs; perfherder %u "
	    "runs against %u tags\n",
	    o.trials, o.sp.cap, NMETRICS, 100 * o.cv, o.sp.alpha,
	    o.sp.min_change, o.sp.first, o.sp.step, o.sp.own, o.sp.cap,
	    o.sp.base, SWEEP_SPLITS, o.lkp_runs, o.perf_runs, o.k);
	printf("  pair: of the changes found, those whose bisection range "
	    "holds the change (exact: the change point\n  estimate is the "
	    "change's own tag; tags: the range from its first tag after to "
	    "its last, 1 = one pair)\n");
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		if (o.noise != NULL && strcmp(o.noise, models[i]) != 0)
			continue;
		for (j = 0; j < sizeof(ds) / sizeof(ds[0]); j++)
			if (o.d < 0 || o.d == ds[j])
				run_row(&o, models[i], ds[j]);
	}
	return 0;
}
