/*
 * Statistics of a nightly sweep: is a metric at the newly swept tag
 * different from the previous swept tag and from a rolling baseline of the
 * K tags before it, with false alarms controlled across every watched
 * metric of the sweep, and is it worth sampling the tag more before
 * calling it.  The model and the choice of Holm's procedure are explained
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
	unsigned	 step;		/* runs added per further look */
	unsigned	 cap;		/* runs of a tag at most */
	double		 borderline;	/* adjusted p up to which more runs help */
};

/* bisectd's defaults: 1% per tag, looks at 5, 10 and 15 runs. */
void	sweep_params_default(struct sweep_params *p);

/*
 * Looks a tag can get under p: 1 + ceil((cap - first) / step).  The per
 * look level is alpha / looks, so the tag's false-alarm rate over all its
 * looks stays at most alpha (Bonferroni over looks).
 */
unsigned sweep_params_looks(const struct sweep_params *p);

/* Baseline tags a comparison uses at most (older ones are ignored). */
#define SWEEP_TAGS_MAX 32

/* The runs of one metric at one tag. */
struct sweep_series {
	const double	*v;
	size_t		 n;
};

/*
 * The samples of one watched metric: the new tag, and the previous swept
 * tags oldest first (failed ones left out), at most K of them.  The last
 * is the previous tag; all of them together are the rolling baseline.
 */
struct sweep_metric_in {
	struct sweep_series	 cur;
	const struct sweep_series *tags;
	size_t			 ntags;
};

enum sweep_verdict {
	SWEEP_SAME = 0,		/* no change worth reporting */
	SWEEP_CHANGED,		/* holds against prev and against the baseline */
	SWEEP_BORDERLINE,	/* undecided: more runs of the tag may decide */
	SWEEP_UNTESTED,		/* too few samples on a side to compare */
};

struct sweep_metric_out {
	double		 loc_cur;
	double		 loc_prev;
	double		 loc_base;
	double		 scale;		/* robust noise scale within a tag */
	double		 rel_prev;	/* (cur - prev) / |prev| */
	double		 rel_base;	/* (cur - base) / |base| */
	double		 effect;	/* |cur - prev| / scale, noise units */
	double		 p;		/* of "changed against both", raw */
	double		 p_adj;		/* Holm-adjusted over the metrics */
	enum sweep_verdict verdict;
};

/*
 * Judges n metrics of one tag at its current number of runs.  The noise
 * scale of a metric is pooled from the runs of all its tags (robust, about
 * each tag's own level), so that a tag of five runs is compared with the
 * precision of many.  A metric is changed when its Holm-adjusted p (the larger of the two comparisons'
 * p, an intersection-union test) is at most alpha / looks and both
 * relative changes reach min_change with the same sign.  Returns the
 * runs the tag should get next (0: decided, the verdicts are final; more
 * only while some metric is borderline and the cap allows).
 */
unsigned sweep_stats_judge(const struct sweep_params *p,
	    const struct sweep_metric_in *in, size_t n,
	    struct sweep_metric_out *out);

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
