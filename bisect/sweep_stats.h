/* SPDX-License-Identifier: MIT */
/*
 * Statistics of a nightly sweep: has a watched metric changed level
 * somewhere in the recent series of swept tags, where (the change point:
 * the last tag before it and the first tag after it), and is it worth
 * sampling a tag more before calling it.  False alarms are controlled per
 * tag across every watched metric of the sweep.  The model is explained
 * in docs/statistics.md ("Sweeps").
 *
 * Pure: no I/O, no global state.  Nothing here keeps a pointer to its
 * arguments; outputs are caller-owned.
 */
#ifndef BISECT_SWEEP_STATS_H
#define BISECT_SWEEP_STATS_H

#include <stddef.h>

/* The sampling plan and error budget of one sweep. */
struct sweep_params {
	double		 alpha;		/* per tag, all metrics together: 0.01 */
	double		 min_change;	/* relative floor, e.g. 0.01 */
	unsigned	 first;		/* runs of a tag before its first look */
	unsigned	 step;		/* runs added per further look or revisit */
	unsigned	 own;		/* runs of a tag at most at its own looks */
	unsigned	 cap;		/* runs of a tag at most, revisits included;
					 * what the first baseline gets */
	unsigned	 base;		/* tags before the change points looked at */
	double		 borderline;	/* adjusted p up to which more runs help */
};

/* bisectd's defaults: 1% per tag, looks at 5 and 10 runs, 15 at most. */
void	sweep_params_default(struct sweep_params *p);

/* A change point is looked for before the new tag and the 2 tags before. */
#define SWEEP_SPLITS		3
/* Revisits one judgement of a tag may ask for. */
#define SWEEP_REVISITS_MAX	1
/* Tags a judgement uses at most (older ones are ignored). */
#define SWEEP_TAGS_MAX		32

/*
 * Looks a judgement can take under p: the tag's own looks, 1 +
 * ceil((own - first) / step), plus SWEEP_REVISITS_MAX.  Each look tests
 * SWEEP_SPLITS change points at level alpha / (looks * SWEEP_SPLITS), so
 * the tag's false-alarm rate over all of them stays at most alpha
 * (Bonferroni over looks and change points).
 */
unsigned sweep_params_looks(const struct sweep_params *p);

/* The runs of one metric at one tag. */
struct sweep_series {
	const double	*v;
	size_t		 n;		/* 0: the tag has no runs of the metric */
};

/*
 * The samples of one watched metric: the swept tags oldest first, the new
 * tag last, failed tags left out.  They begin no earlier than the metric's
 * last reported change point (its first tag after the change), so the
 * tags before a change point found now are all on one level.  Only the
 * last base + SWEEP_SPLITS of them are used.
 */
struct sweep_metric_in {
	const struct sweep_series *tags;
	size_t			 ntags;
};

enum sweep_verdict {
	SWEEP_SAME = 0,		/* no change worth reporting */
	SWEEP_CHANGED,		/* a change point in the new tag's window */
	SWEEP_BORDERLINE,	/* suggestive; more runs may decide */
	SWEEP_UNTESTED,		/* too few samples to compare */
};

/* "No tag": for at and revisit. */
#define SWEEP_NONE	((size_t)-1)

struct sweep_metric_out {
	double		 loc_cur;	/* level of the new tag */
	double		 loc_prev;	/* of the tag before it */
	double		 loc_before;	/* of the tags before the change point */
	double		 loc_after;	/* of the tags after it */
	double		 scale;		/* robust noise scale within a tag */
	double		 rel_prev;	/* (cur - prev) / |prev| */
	double		 rel;		/* (after - before) / |before| */
	double		 effect;	/* |after - before| / scale, noise units */
	double		 p;		/* at the change point, raw */
	double		 p_adj;		/* Holm-adjusted over the metrics */
	size_t		 at;		/* tags[at] is the first after the change
					 * point; SWEEP_NONE when untested */
	size_t		 at_first;	/* the earliest and latest first tag after */
	size_t		 at_last;	/* the change the data cannot rule out
					 * (pool_plausible); at_first <= at <=
					 * at_last, SWEEP_NONE when untested */
	unsigned	 late;		/* tags after its own it took: ntags-1-at */
	size_t		 revisit;	/* a tag whose runs would place the change
					 * point better, or SWEEP_NONE */
	enum sweep_verdict verdict;
};

/*
 * Judges n metrics of the new tag at its current number of runs.  The
 * noise scale of a metric is pooled from the runs of all its tags
 * (robust, about each tag's own level).  For each of the last
 * SWEEP_SPLITS tags as the first tag after a change point, the tags
 * before and after it are compared; the split with the largest t is the
 * estimated change point.  A metric is changed when its Holm-adjusted p
 * is at most alpha / looks, the change reaches min_change, and the new
 * tag's own level is nearer the level after the change than before it.
 * Returns the runs the new tag should get next: 0 when decided (the
 * verdicts are final, apart from revisits), more only while some metric
 * is borderline and the tag has fewer than own runs.
 */
unsigned sweep_stats_judge(const struct sweep_params *p,
	    const struct sweep_metric_in *in, size_t n,
	    struct sweep_metric_out *out);

/*
 * The metric whose revisit a decided judgement asks for: the headline if
 * it has one, else the first borderline metric that has; n when none.
 * out[i].revisit indexes in[i].tags.  The caller revisits at most
 * SWEEP_REVISITS_MAX times per judgement, step runs each, then judges
 * again.
 */
size_t	sweep_stats_revisit(const struct sweep_metric_out *out, size_t n);

/*
 * Holm's step-down adjustment of p[0..n-1] into adj (may alias p):
 * adj(i) = max over j <= i of min(1, (n - j) p(j)) with p sorted
 * ascending, 0-based j.
 */
void	sweep_stats_holm(const double *p, size_t n, double *adj);

/*
 * Index of the headline among the changed metrics: the largest effect in
 * noise units; n when none changed.
 */
size_t	sweep_stats_headline(const struct sweep_metric_out *out, size_t n);

#endif
