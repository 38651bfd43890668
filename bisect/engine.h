/* SPDX-License-Identifier: MIT */
/*
 * Statistically gated bisection engine.
 *
 * A pure state machine (no I/O, no logging, no clock, no randomness) fed
 * with events and asked for actions:
 *
 *   engine_add_sample(e, commit, value)   a benchmark value at a commit
 *   engine_add_skip(e, commit)            the commit cannot be built/booted
 *   engine_probe_dropped(e, commit)       an in-flight probe ended without
 *                                         a value (infrastructure failure)
 *   engine_next(e, free_hosts, &action)   what to do now
 *
 * The candidates are the commits of a struct graph (bisect/graph.h); the
 * bad revision is the graph's last index (every candidate is its ancestor,
 * so it is last in any parents-first order) and is always bad.  The good
 * side is outside the graph: samples at any good revision are given with
 * commit = ENGINE_GOOD.
 *
 * The engine runs a reproduction check on the endpoints (GOOD and the bad
 * index), before the bisection or, in the shared mode, beside it, where a
 * Bayes factor over every sample can also confirm the change; it keeps
 * a posterior over which candidate is the culprit and asks for probes
 * until one holds the configured confidence with direct samples at it and
 * its parents (docs/statistics.md).
 *
 * In-flight accounting: every commit returned in an ENGINE_SAMPLE action
 * counts as one probe in flight until a sample, a skip or a drop for that
 * commit arrives.  engine_next never asks again for work already in flight
 * unless it wants a repeat.
 *
 * Rebuild: the state is a function of the sequence of add_sample/add_skip
 * calls only.  Feeding the stored events in their stored order to a fresh
 * engine gives the same state and, with nothing in flight, the same next
 * action.
 *
 * Ownership: the engine keeps a pointer to the graph, which must outlive
 * it.  Arrays in a struct engine_action belong to the engine and stay valid
 * until the next call of any engine_ function other than the read-only
 * accessors (engine_mass, engine_prob_bad, engine_status).
 */
#ifndef BISECT_ENGINE_H
#define BISECT_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "bisect/graph.h"
#include "bisect/repro.h"
#include "bisect/stats.h"
#include "common/error.h"

/* Commit id of the good side (any good revision) in samples and probes. */
#define ENGINE_GOOD UINT32_MAX

/* Most candidates listed in an ENGINE_AMONG/ENGINE_INCONCLUSIVE action. */
#define ENGINE_MAX_CANDS 16

enum engine_metric {
	ENGINE_NUMERIC,		/* a number; either direction */
	ENGINE_PASSFAIL,	/* 0 = pass, 1 = fail; flaky failures allowed */
};

/*
 * How the engine answers "is there a change" and "where".  Staged: the
 * reproduction check on the endpoints first, then the bisection (the
 * engine before issue 15).  Shared: the check's first look, then the
 * bisection at once, with the check's test run on every sample whose side
 * the posterior knows; a verdict waits for the change to be confirmed.
 */
enum engine_mode {
	ENGINE_MODE_SHARED,
	ENGINE_MODE_STAGED,
};

struct engine_params {
	enum engine_mode mode;		/* ENGINE_MODE_SHARED */
	double		confidence;	/* reported confidence target (0.99) */
	double		stop_margin;	/* stop when the mass reaches
					   1 - (1 - confidence) * stop_margin
					   (0.5): the posterior is overconfident
					   when the noise model misfits */
	unsigned	max_samples;	/* budget, endpoint samples included
					   (500) */
	unsigned	repro_min;	/* first reproduction look per side (2,
					   the fewest that give two levels and
					   a scale; staged 3) */
	unsigned	repro_max;	/* cap per side for the check (100) */
	double		repro_growth;	/* each look of the check this many
					   times the last, at least one sample
					   more (1.05; staged 1.25) */
	double		repro_alpha;	/* nominal false "reproduced" rate of
					   the endpoint check (0.0025; staged
					   0.01; measured rates in
					   docs/statistics.md) */
	double		repro_beta;	/* missed-effect rate at repro_effect
					   (0.01) */
	double		repro_effect;	/* numeric effect of interest, in noise
					   standard deviations (0.8), or
					   min_change in measured noise sds
					   when that is larger */
	double		exist_alpha;	/* shared mode: nominal false
					   "reproduced" rate of the Bayes
					   factor over all samples (0.0005;
					   0 = the endpoint check alone) */
	double		repro_gap;	/* pass/fail failure-rate gap of
					   interest (0.25) */
	int		null_min_change; /* numeric: the endpoint check's effect
					   of interest is at least min_change,
					   so a null is priced by it (1;
					   staged 0) */
	double		min_change;	/* relative change (numeric) or failure
					   rate difference (pass/fail) below
					   which a change is not reproduced
					   (0.01) */
	double		build_cost;	/* cost of building a new commit (1) */
	double		run_cost;	/* cost of one benchmark run (1) */
	enum engine_metric metric;
	int		direction;	/* +1 higher is better, -1 lower is
					   better, 0 unknown: wording only */
	double		t_dof;		/* Student-t degrees of freedom (4) */
	double		contamination;	/* assumed rate of wild runs; caps the
					   evidence of one sample (0.02) */
	double		level_samples;	/* endpoint samples per side, times
					   d^2 (effect in scales), that the
					   bisection keeps (64); staged mode
					   and pass/fail only */
	double		level_p;	/* P(bad) below/above which a sampled
					   commit's values refine the levels
					   (0.001; 0 = endpoints only) */
	double		misfit_scales;	/* misfit: this many scales from both
					   levels (6) */
	double		scale_floor_rel; /* scale floor, relative to the
					   levels (1e-4) */
	double		resolution;	/* metric resolution, a scale floor (0) */
	unsigned	drift_check;	/* during bisection, an endpoint sample
					   after this many candidate samples
					   without one (4; 0 = never) */
	double		drift_z;	/* normal score of a linear trend in
					   the residuals that the drift model
					   keeps (2; 0 = no drift model) */
	const double	*prior;		/* n prior weights, copied; NULL for
					   uniform (git's behaviour) */
};

enum engine_phase {
	ENGINE_PHASE_REPRO,	/* sampling the endpoints */
	ENGINE_PHASE_BISECT,	/* reproduced; narrowing the culprit */
	ENGINE_PHASE_NOT_REPRODUCED,
};

enum engine_action_kind {
	ENGINE_SAMPLE,		/* run probes[0..nprobes-1] now */
	ENGINE_WAIT,		/* nothing useful until in-flight work ends */
	ENGINE_DONE,		/* culprit found with confidence */
	ENGINE_AMONG,		/* skipped commits: culprit among cands */
	ENGINE_INCONCLUSIVE,	/* budget spent: top candidates in cands */
	ENGINE_NOT_REPRODUCED,	/* endpoints do not differ enough */
};

struct engine_cand {
	uint32_t	commit;
	double		mass;
};

struct engine_action {
	enum engine_action_kind kind;
	const uint32_t	*probes;	/* ENGINE_GOOD or candidate indices;
					   a commit may repeat */
	size_t		 nprobes;
	uint32_t	 culprit;	/* ENGINE_DONE */
	double		 confidence;	/* mass of culprit or of cands */
	const struct engine_cand *cands; /* by decreasing mass */
	size_t		 ncands;
	size_t		 nset;		/* size of the set before truncation
					   to ENGINE_MAX_CANDS */
};

struct engine_status {
	enum engine_phase phase;
	int		reproduced;	/* the change is confirmed (in the
					   shared mode the bisection starts
					   before) */
	size_t		samples;	/* all samples */
	size_t		good_samples;	/* at ENGINE_GOOD */
	size_t		bad_samples;	/* at the bad index */
	size_t		commits_sampled; /* distinct candidates with samples */
	size_t		skipped;
	size_t		inflight;
	size_t		misfits;	/* far from both levels */
	int		drift;		/* the test machine drifted (a trend or
					   a step at a normal score above
					   4.5); values are adjusted for it */
	double		drift_size;	/* range of the fitted drift, in
					   scales (0 without drift) */
	double		good_level;	/* median, or failure rate */
	double		bad_level;
	double		scale;		/* robust noise scale (numeric) */
	double		effect;		/* |bad - good| / scale, or rate gap */
	struct repro_stat repro;	/* last reproduction look */
	double		change_lbf;	/* log Bayes factor of a change over
					   all samples (0 before it is
					   computed; frozen once the change is
					   confirmed); NAN where the engine
					   does not compute it (staged mode,
					   exist_alpha 0, pass/fail) */
	struct engine_cand top[3];
	size_t		ntop;
	size_t		candidates_left; /* smallest set with the confidence */
	size_t		nonnegligible;	/* candidates with mass >= 1e-4 */
	double		est_samples_left;
};

struct engine_priv;

struct engine {
	const struct graph	*g;
	uint32_t		 bad;
	struct engine_params	 p;
	struct engine_priv	*priv;
};

/* Fills the defaults documented in docs/statistics.md. */
void	engine_params_default(struct engine_params *p);
/*
 * The endpoint check's parameters from p: the same sequential test and
 * min_change judge a culprit confirmed on another host group.
 */
void	engine_repro_params(const struct engine_params *p,
	    struct repro_params *rp);

/* The defaults of the staged engine (before issue 15), for comparison. */
void	engine_params_staged(struct engine_params *p);

/*
 * The posterior mass a verdict needs: 1 - (1 - confidence) * stop_margin,
 * stricter than the confidence reported (docs/statistics.md, "Stopping").
 */
double	engine_stop_mass(const struct engine_params *p);

/*
 * Fewest samples, all kinds, before the Bayes factor over all samples may
 * confirm a change: with fewer, clustered noise (two modes a run falls
 * into) is not told from two levels, and in the simulator half the
 * factor's false confirmations on bimodal null ranges came before 16.
 */
#define ENGINE_EXIST_MIN_SAMPLES 16

/*
 * Prepares an engine over g (n >= 1, the last index the bad revision).
 * Returns 0 or -EINVAL (bad parameters, bad graph, bad prior).
 */
int	engine_init(struct engine *e, const struct graph *g,
	    const struct engine_params *p, struct bd_error *err);

void	engine_release(struct engine *e);

/*
 * Adds a value at commit (ENGINE_GOOD or 0..n-1).  Pass/fail values must
 * be 0 or 1; numeric values finite.  A sample at a skipped commit un-skips
 * it (it was built after all).  Returns 0, -EINVAL, or -ERANGE for a value
 * beyond BD_VALUE_MAX in magnitude (common/agg.h).
 */
int	engine_add_sample(struct engine *e, uint32_t commit, double value,
	    struct bd_error *err);

/*
 * Marks a candidate as impossible to build or boot.  The endpoints cannot
 * be skipped (-EINVAL): without them there is nothing to compare.
 */
int	engine_add_skip(struct engine *e, uint32_t commit,
	    struct bd_error *err);

/* An in-flight probe at commit ended without a value; it is not retried. */
void	engine_probe_dropped(struct engine *e, uint32_t commit);

/*
 * Decides what to do with free_hosts idle hosts.  ENGINE_SAMPLE lists at
 * most free_hosts probes and records them as in flight.  Terminal answers
 * repeat on later calls (unless new samples change them).
 */
void	engine_next(struct engine *e, unsigned free_hosts,
	    struct engine_action *out);

/*
 * Marks a probe at commit as in flight without asking engine_next: after a
 * restart the daemon resubmits the runs that were in flight when it
 * stopped, and the engine must count them as it did before.
 */
void	engine_probe_restore(struct engine *e, uint32_t commit);

/* Posterior culprit masses (n values, summing to 1). */
const double *engine_mass(const struct engine *e);

/* P(commit is bad) for each candidate under the posterior (n values). */
const double *engine_prob_bad(const struct engine *e);

/* A summary for status displays and reports. */
void	engine_status(const struct engine *e, struct engine_status *st);

/*
 * Log Bayes factor of two levels against one for two groups of normal
 * values, each given as count, sum and sum of squares about a common
 * reference; the effect is averaged over the engine's priors, and floor2
 * bounds the within-group variance from below.  The engine confirms a
 * change with it; the simulator's reference policy uses the same factor.
 */
double	engine_split_lbf(double na, double sa, double ssa, double nb,
	    double sb, double ssb, double floor2);

#endif
