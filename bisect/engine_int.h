/* SPDX-License-Identifier: MIT */
/*
 * Internal state of the bisection engine, shared by bisect/engine.c
 * (events, levels, posterior) and bisect/engine_next.c (decisions).  Not
 * for use outside the engine.
 */
#ifndef BISECT_ENGINE_INT_H
#define BISECT_ENGINE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "bisect/engine.h"
#include "bisect/repro.h"
#include "bisect/stats.h"

/* Resolution of the tabulated information function I(q). */
#define ENGINE_ITAB 128

struct engine_priv {
	size_t		 n;
	struct stats_gh	 gh;

	/* Samples in arrival order: commit (or ENGINE_GOOD) and value. */
	size_t		 ns, scap;
	uint32_t	*sc;
	double		*sv;
	double		*adj;		/* sv less the fitted drift */
	uint8_t		*odd;		/* far from its commit's other runs:
					   no evidence (mark_odd_runs) */
	size_t		 ng, nb;	/* endpoint samples */

	/* Per candidate. */
	uint32_t	*nsamp;
	uint8_t		*skip;
	uint32_t	*inflight;
	uint32_t	 inflight_good;
	uint32_t	*slot;		/* 1 + slot index, 0 when unsampled */

	/* Sampled candidates other than the bad endpoint. */
	size_t		 nslots, slotcap;
	uint32_t	*slot_commit;
	double		*slot_llr;	/* summed evidence for "bad" */
	int8_t		*slot_class;	/* -1 good, +1 bad, 0 undecided */
	size_t		 words;
	uint64_t	*desc;		/* n x words descendant bit sets */
	int		 desc_dirty;

	/* Posterior. */
	double		*logprior;
	double		*L;
	double		*mass;
	double		*q;

	/* Levels. */
	int		 levels_ok;
	double		 mu_g, mu_b, scale;
	double		 pg, pb;
	size_t		 nlev_g, nlev_b;
	size_t		 misfits;
	double		 nu;		/* likelihood's degrees of freedom:
					   t_dof, or INFINITY (normal) */
	double		 llr_cap;

	/* Drift of the test machine (engine_drift.c). */
	int		 drift;		/* found; stays found */
	double		 drift_size;	/* range of the fitted offset, scales */
	int		 drift_on;	/* the current fit adjusts the values */
	double		*infl;		/* per sample noise scale factor for
					   the drift fit's own error */

	/* Reproduction check. */
	enum engine_phase phase;
	int		 reproduced;	/* the change is confirmed */
	struct repro_params rp;
	unsigned	 looks[REPRO_MAX_LOOKS];
	size_t		 nlooks, look;
	struct repro_stat rstat;
	double		 exist_lbf;	/* log Bayes factor of a change over
					   all samples (engine_exist.c) */

	/* Information per sample. */
	double		 itab[ENGINE_ITAB + 1];
	double		 i_half;
	int		 itab_dirty;
	unsigned	 cache_k;
	int		 cache_q;
	unsigned	 cache_m;

	/* Scratch and output. */
	double		*tmp;
	uint8_t		*mark;
	struct engine_cand *order;
	double		*buf;
	size_t		 bufcap;
	uint32_t	*probes;
	size_t		 nprobes, probecap;
	struct engine_cand cands[ENGINE_MAX_CANDS];
};

/* Which side's levels sample i informs: -1 good, +1 bad, 0 neither. */
int	engine_sample_side(const struct engine *e, size_t i);

/*
 * Tests the residuals for drift and, once found, refits v->adj; returns 1
 * when it refitted.
 */
int	engine_drift(struct engine *e);

/*
 * The mass of set[0..ns) in the posterior over "no change" and the
 * culprits with the levels and the scale (pass/fail: the failure rates)
 * integrated out.  Reads only.
 */
double	engine_integrated_mass(const struct engine *e,
	    const struct engine_cand *set, size_t ns);

/* Whether a value lies more than misfit_scales from both levels. */
int	engine_misfit(const struct engine *e, double y);

/* The smallest noise scale the model allows at the current levels. */
double	engine_scale_floor(const struct engine *e);

/* Recomputes levels, evidence and posterior after an event. */
void	engine_update(struct engine *e);

/* Records a probe in the action and counts it as in flight. */
void	engine_push_probe(struct engine *e, uint32_t c);

/* The reproduction check on the endpoints (engine_repro.c). */
void	engine_repro_step(struct engine *e);

/* Shared mode: the check's later looks, beside the bisection. */
void	engine_repro_shared(struct engine *e);

/* Shared mode: confirms the change on that Bayes factor. */
void	engine_exist_step(struct engine *e);

/* Endpoint probes for the check's current look and, with hosts to spare, the next ones. */
void	engine_repro_fill(struct engine *e, unsigned nfree);

/* Endpoint probes of the reproduction phase. */
void	engine_repro_next(struct engine *e, unsigned nfree,
	    struct engine_action *out);

/*
 * Samples per side the levels need; *lower gets the effect's lower bound
 * in noise units.
 */
size_t	engine_level_need(const struct engine *e, double *lower);

/*
 * Endpoint probes until each side holds need samples: endpoint samples
 * (sides 0) or all samples of known side (sides 1).
 */
void	engine_endpoint_fill(struct engine *e, unsigned nfree, size_t need,
	    int sides);

/* Bits one sample at P(bad) = 1/2 carries at the current levels. */
double	engine_info_half(const struct engine *e);

/* Brings the I(q) table up to date with the levels. */
void	engine_info_table(struct engine *e);

#endif
