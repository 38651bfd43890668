/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "bisect/sweep_stats.h"
#include "tests/support/tst.h"

TestSuite(sweep_stats, .fini = tst_leak_check);

#define NEAR(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), \
	"%s = %.9g, expected %.9g", #a, (double)(a), (double)(b))

/* Runs of a tag: level plus a fixed spread pattern of sd about 1. */
static void
fill(double *v, size_t n, double level, unsigned phase)
{
	static const double pat[] = { -1.3, 0.4, 1.1, -0.2, 0.7, -0.9, 0.1,
	    1.5, -0.6, -0.4, 0.9, -1.1, 0.3, -0.1, 0.6 };
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = level + pat[(i + phase) % 15];
}

/* History of K tags at one level, then the new tag at another. */
struct hist {
	double			 runs[8][15];
	struct sweep_series	 tags[8];
};

static void
hist_make(struct hist *h, const double *levels, size_t k, size_t n,
    double cur_level, size_t ncur, unsigned phase)
{
	size_t t;

	for (t = 0; t < k; t++) {
		fill(h->runs[t], n, levels[t], phase + (unsigned)t * 3);
		h->tags[t] = (struct sweep_series){ h->runs[t], n };
	}
	fill(h->runs[k], 15, cur_level, phase + 7);
	h->tags[k] = (struct sweep_series){ h->runs[k], ncur };
}

/* The window: the k history tags and the new one with ncur runs. */
static void
hist_in(struct hist *h, size_t k, size_t ncur, struct sweep_metric_in *in)
{
	h->tags[k].n = ncur;
	in->tags = h->tags;
	in->ntags = k + 1;
}

Test(sweep_stats, holm_adjusts_step_down)
{
	double p[] = { 0.01, 0.04, 0.03, 0.005 }, adj[4];

	sweep_stats_holm(p, 4, adj);
	NEAR(adj[3], 0.02, 1e-12);
	NEAR(adj[0], 0.03, 1e-12);
	NEAR(adj[2], 0.06, 1e-12);
	/* 1 x 0.04 is below the running maximum: monotone. */
	NEAR(adj[1], 0.06, 1e-12);
	p[0] = 0.9;
	sweep_stats_holm(p, 1, p);
	NEAR(p[0], 0.9, 0);
}

Test(sweep_stats, looks_split_alpha)
{
	struct sweep_params sp;

	sweep_params_default(&sp);
	/* Looks at 5 and 10 runs, and the revisits. */
	cr_assert_eq(sweep_params_looks(&sp), 2 + SWEEP_REVISITS_MAX);
	sp.own = 12;
	cr_assert_eq(sweep_params_looks(&sp), 3 + SWEEP_REVISITS_MAX);
	sp.own = sp.first;
	cr_assert_eq(sweep_params_looks(&sp), 1 + SWEEP_REVISITS_MAX);
}

/* One metric of twenty moves 5%; the others stay put. */
Test(sweep_stats, one_change_among_twenty)
{
	static struct hist h[20];
	struct sweep_metric_in in[20];
	struct sweep_metric_out out[20];
	struct sweep_params sp;
	double lv[5] = { 100, 100, 100, 100, 100 };
	size_t m;

	sweep_params_default(&sp);
	for (m = 0; m < 20; m++) {
		hist_make(&h[m], lv, 5, 5, m == 7 ? 95 : 100, 5, (unsigned)m);
		hist_in(&h[m], 5, 5, &in[m]);
	}
	cr_assert_eq(sweep_stats_judge(&sp, in, 20, out), 0);
	for (m = 0; m < 20; m++)
		cr_assert_eq(out[m].verdict, m == 7 ? SWEEP_CHANGED : SWEEP_SAME,
		    "metric %zu verdict %d p_adj %g", m, out[m].verdict,
		    out[m].p_adj);
	NEAR(out[7].rel_prev, -0.05, 0.005);
	NEAR(out[7].rel, -0.05, 0.005);
	/* At its own tag: the range is tags[4] .. tags[5]. */
	cr_assert_eq(out[7].at, 5);
	cr_assert_eq(out[7].at_first, 5);
	cr_assert_eq(out[7].at_last, 5);
	cr_assert_eq(out[7].late, 0);
	cr_assert_gt(out[7].effect, 3);
	cr_assert_lt(out[7].p_adj, 0.01 / 3);
	cr_assert_eq(sweep_stats_headline(out, 20), 7);
}

/* The previous tag was the odd one out: against the baseline nothing moved. */
Test(sweep_stats, single_noisy_tag_is_not_a_change)
{
	struct hist h;
	struct sweep_metric_in in;
	struct sweep_metric_out out;
	struct sweep_params sp;
	double lv[5] = { 100, 100, 100, 100, 106 };

	sweep_params_default(&sp);
	hist_make(&h, lv, 5, 5, 100, 5, 0);
	hist_in(&h, 5, 5, &in);
	cr_assert_eq(sweep_stats_judge(&sp, &in, 1, &out), 0);
	cr_assert_lt(out.rel_prev, -0.04);
	/* A change point before the odd tag would need the new tag to share
	 * its level. */
	cr_assert_eq(out.verdict, SWEEP_SAME);
	cr_assert_eq(sweep_stats_headline(&out, 1), 1);
}

/* Clear in noise units but under min_change: not worth a bisection. */
Test(sweep_stats, below_min_change)
{
	struct hist h;
	struct sweep_metric_in in;
	struct sweep_metric_out out;
	struct sweep_params sp;
	double lv[5] = { 1000, 1000, 1000, 1000, 1000 };

	sweep_params_default(&sp);
	hist_make(&h, lv, 5, 5, 1006, 5, 0);
	hist_in(&h, 5, 5, &in);
	cr_assert_eq(sweep_stats_judge(&sp, &in, 1, &out), 0);
	cr_assert_lt(out.p, 1e-6);
	cr_assert_eq(out.verdict, SWEEP_SAME);
	sp.min_change = 0.005;
	sweep_stats_judge(&sp, &in, 1, &out);
	cr_assert_eq(out.verdict, SWEEP_CHANGED);
}

/* Suggestive at five runs: sample more; at own runs the call is final. */
Test(sweep_stats, borderline_samples_more_up_to_own)
{
	struct hist h;
	struct sweep_metric_in in;
	struct sweep_metric_out out;
	struct sweep_params sp;
	double lv[5] = { 100, 100, 100, 100, 100 };

	sweep_params_default(&sp);
	hist_make(&h, lv, 5, 5, 101.6, 15, 0);
	hist_in(&h, 5, 5, &in);
	cr_assert_eq(sweep_stats_judge(&sp, &in, 1, &out), 5,
	    "p_adj %g", out.p_adj);
	cr_assert_eq(out.verdict, SWEEP_BORDERLINE);
	cr_assert_gt(out.p_adj, 0.01 / sweep_params_looks(&sp));
	hist_in(&h, 5, 10, &in);
	cr_assert_eq(sweep_stats_judge(&sp, &in, 1, &out), 0);
	cr_assert_eq(out.verdict, SWEEP_CHANGED, "p_adj %g", out.p_adj);
	/* Own runs reached while still borderline: no more, not changed. */
	sp.own = 5;
	hist_in(&h, 5, 5, &in);
	cr_assert_eq(sweep_stats_judge(&sp, &in, 1, &out), 0);
	cr_assert_eq(out.verdict, SWEEP_BORDERLINE);
	cr_assert_eq(sweep_stats_headline(&out, 1), 1);
}

/* The first swept tag has nothing to compare with. */
Test(sweep_stats, untested_without_history)
{
	struct hist h;
	struct sweep_metric_in in;
	struct sweep_metric_out out;
	struct sweep_params sp;
	double lv[1] = { 100 };

	sweep_params_default(&sp);
	hist_make(&h, lv, 1, 5, 150, 5, 0);
	hist_in(&h, 0, 5, &in);
	cr_assert_eq(sweep_stats_judge(&sp, &in, 1, &out), 0);
	cr_assert_eq(out.verdict, SWEEP_UNTESTED);
	cr_assert_eq(sweep_stats_headline(&out, 1), 1);
	/* One earlier tag is both previous tag and baseline. */
	hist_in(&h, 1, 5, &in);
	sweep_stats_judge(&sp, &in, 1, &out);
	cr_assert_eq(out.verdict, SWEEP_CHANGED);
	NEAR(out.rel_prev, out.rel, 1e-12);
	cr_assert_eq(out.at, 1);
}

/* Judges twenty metrics of a window through the looks; metric 0 is runs. */
static unsigned
judge_looks(const struct sweep_params *sp, struct hist *h, size_t k,
    struct sweep_metric_out *out)
{
	static struct hist quiet[19];
	struct sweep_metric_in in[20];
	double lv[7] = { 100, 100, 100, 100, 100, 100, 100 };
	unsigned n = sp->first, more, m;

	for (m = 0; m < 19; m++)
		hist_make(&quiet[m], lv, k, h->tags[0].n, 100, 15, m + 1);
	for (;;) {
		hist_in(h, k, n, &in[0]);
		for (m = 0; m < 19; m++)
			hist_in(&quiet[m], k, n, &in[m + 1]);
		if ((more = sweep_stats_judge(sp, in, 20, out)) == 0)
			return n;
		n += more;
	}
}

/*
 * One wild run among the five of the first tag compared (against a first
 * baseline of 15 runs) does not hide a change of three noise units: it
 * neither widens the pooled scale nor moves the tag's level.
 */
Test(sweep_stats, wild_run_does_not_hide_a_change)
{
	struct hist h;
	struct sweep_metric_out out[20];
	struct sweep_params sp;
	double lv[1] = { 100 }, sd = 0.8;	/* of fill's pattern */
	size_t w;

	sweep_params_default(&sp);
	for (w = 0; w < 5; w++) {
		hist_make(&h, lv, 1, 15, 100 + 3 * sd, 15, 0);
		h.runs[1][w] -= 30 * sd;
		judge_looks(&sp, &h, 1, out);
		cr_assert_eq(out[0].verdict, SWEEP_CHANGED,
		    "wild run %zu: verdict %d effect %g p_adj %g", w,
		    out[0].verdict, out[0].effect, out[0].p_adj);
		cr_assert_gt(out[0].effect, 2.5, "wild run %zu: %g", w,
		    out[0].effect);
		cr_assert_lt(out[0].scale, 1.25 * sd, "wild run %zu: %g", w,
		    out[0].scale);
		cr_assert_eq(out[0].at, 1);
		cr_assert_eq(out[0].late, 0);
	}
}

/*
 * A change too small to call at its own tag is found at the next tags,
 * whose runs are pooled with its own, and the change point (the first tag
 * after it) is the tag where it happened, not the one that revealed it.
 */
Test(sweep_stats, missed_change_found_late_with_its_range)
{
	struct hist h;
	struct sweep_metric_out out[20];
	struct sweep_params sp;
	double lv[7] = { 100, 100, 100, 100, 100, 101.5, 101.5 };

	sweep_params_default(&sp);
	sp.own = sp.first;	/* no more runs at its own tag */
	hist_make(&h, lv, 5, 5, 101.5, 15, 0);
	judge_looks(&sp, &h, 5, out);
	cr_assert_neq(out[0].verdict, SWEEP_CHANGED, "p_adj %g", out[0].p_adj);
	/* The next tag: the window is tags 0..6, the change at tag 5. */
	hist_make(&h, lv, 6, 5, 101.5, 15, 0);
	judge_looks(&sp, &h, 6, out);
	if (out[0].verdict != SWEEP_CHANGED) {
		hist_make(&h, lv, 7, 5, 101.5, 15, 0);
		judge_looks(&sp, &h, 7, out);
		cr_assert_eq(out[0].late, 2);
	} else
		cr_assert_eq(out[0].late, 1);
	cr_assert_eq(out[0].verdict, SWEEP_CHANGED, "p_adj %g",
	    out[0].p_adj);
	cr_assert_eq(out[0].at, 5, "at %zu", out[0].at);
	NEAR(out[0].loc_before, 100, 0.3);
	NEAR(out[0].loc_after, 101.5, 0.3);
}

/*
 * A tag halfway between the levels leaves the change point between two
 * splits: that tag is asked for more runs (up to the cap), and once it has
 * them, or the cap, no more.
 */
Test(sweep_stats, ambiguous_change_point_revisits_the_tag_between)
{
	struct hist h;
	struct sweep_metric_in in;
	struct sweep_metric_out out;
	struct sweep_params sp;
	double lv[7] = { 100, 100, 100, 100, 100, 101.6, 103.2 };

	sweep_params_default(&sp);
	hist_make(&h, lv, 7, 5, 103.2, 15, 0);
	hist_in(&h, 7, 5, &in);
	cr_assert_eq(sweep_stats_judge(&sp, &in, 1, &out), 0);
	cr_assert_eq(out.verdict, SWEEP_CHANGED, "p_adj %g", out.p_adj);
	cr_assert(out.at == 5 || out.at == 6, "at %zu", out.at);
	/* Either may be the first tag after: the range holds both. */
	cr_assert_eq(out.at_first, 5, "at_first %zu", out.at_first);
	cr_assert_eq(out.at_last, 6, "at_last %zu", out.at_last);
	cr_assert_eq(out.revisit, 5, "revisit %zu", out.revisit);
	cr_assert_eq(sweep_stats_revisit(&out, 1), 0);
	/* At the cap there is nothing left to ask. */
	h.tags[5].n = sp.cap;
	fill(h.runs[5], 15, 101.6, 5);
	sweep_stats_judge(&sp, &in, 1, &out);
	cr_assert_eq(out.revisit, SWEEP_NONE, "revisit %zu", out.revisit);
	cr_assert(out.at_first <= out.at && out.at <= out.at_last);
}

/* A fixed normal stream (a 64-bit LCG and Box-Muller): the same draws always. */
static double
draw_normal(uint64_t *st)
{
	double u[2];
	int k;

	for (k = 0; k < 2; k++) {
		*st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
		u[k] = ((double)(*st >> 11) + 0.5) / 9007199254740992.0;
	}
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

/*
 * A step of 1.5 noise sds at tag 6 of 8 (found one tag late, 5 runs a
 * tag), 400 draws: the change point estimate is a tag off now and then;
 * the range from the first plausible tag after the change to the last
 * holds it at least twice as often as the point misses it.
 */
Test(sweep_stats, the_range_holds_what_the_point_may_miss)
{
	double runs[8][15];
	struct sweep_series tags[8];
	struct sweep_metric_in in = { tags, 8 };
	struct sweep_metric_out out;
	struct sweep_params sp;
	uint64_t st = 42;
	unsigned trial, found = 0, point = 0, range = 0;
	size_t t, i;

	sweep_params_default(&sp);
	for (trial = 0; trial < 400; trial++) {
		for (t = 0; t < 8; t++) {
			for (i = 0; i < 5; i++)
				runs[t][i] = (t >= 6 ? 101.5 : 100) +
				    draw_normal(&st);
			tags[t] = (struct sweep_series){ runs[t], 5 };
		}
		sweep_stats_judge(&sp, &in, 1, &out);
		if (out.verdict != SWEEP_CHANGED)
			continue;
		found++;
		cr_assert(out.at_first <= out.at && out.at <= out.at_last,
		    "trial %u: %zu <= %zu <= %zu", trial, out.at_first, out.at,
		    out.at_last);
		point += out.at == 6;
		range += out.at_first <= 6 && 6 <= out.at_last;
	}
	cr_assert_gt(found, 200, "found %u of 400", found);
	cr_assert_lt(found - point, found / 5, "the point missed %u of %u",
	    found - point, found);
	cr_assert_gt(found - point, 0, "the point never missed: no test");
	cr_assert_leq(2 * (found - range), found - point, "the range missed "
	    "%u, the point %u of %u", found - range, found - point, found);
}
