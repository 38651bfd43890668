/* SPDX-License-Identifier: MIT */
/*
 * Shared between the verification's files (verify.c, verify_split.c); not
 * for other modules.
 */
#ifndef SCHED_VERIFY_INT_H
#define SCHED_VERIFY_INT_H

#include <git2.h>
#include <uv.h>

#include "bisect/report.h"
#include "repo/maintainers.h"
#include "repo/revert.h"
#include "repo/touched.h"

struct bisection;
struct sched;

/* Below this share of the range's change, other culprits are looked for. */
#define VERIFY_MIN_SHARE	0.7
/* The verdict's culprit and one per child bisection. */
#define VERIFY_MAX_SHARES	3

struct verify_share {
	char	sha[GIT_OID_HEXSZ + 1];
	char	subject[256];
};

/* Runs at the revert: the bad side's count, within these bounds. */
#define VERIFY_MIN_RUNS		5
#define VERIFY_MAX_RUNS		10
/* Submissions that may end without a result before giving up. */
#define VERIFY_MAX_LOST		6
/* The revert restores when it differs from bad at this level... */
#define VERIFY_ALPHA		0.05
/* ...and undoes at least this share of the culprit's change. */
#define VERIFY_MIN_RESTORED	0.3

enum verify_phase {
	VERIFY_PREPARING,	/* suspect flags and the revert, on the pool */
	VERIFY_SAMPLING,	/* runs at the revert on the fleet */
	VERIFY_TOPUP,		/* runs at the culprit, to compare with bad */
	VERIFY_SPLITTING,	/* child bisections of the sub-ranges */
	VERIFY_CONFIRMING,	/* the culprit on other groups (confirm.c) */
	VERIFY_DONE,
};

struct verify {
	struct bisection	*b;
	enum verify_phase	 phase;
	uv_work_t		 work;
	/* Inputs of the work, copied on the loop. */
	char			*repo_path;
	char			*arch;
	git_oid			 culprit;
	int			 do_revert;
	/* Outputs of the work. */
	int			 work_rc;
	struct bd_error		 work_err;
	unsigned		 suspect;
	struct repo_revert	 rv;
	char			 parent_sha[GIT_OID_HEXSZ + 1];
	struct repo_touched	 touched;	/* the functions the diff changes */
	struct repo_maint	 maint;		/* MAINTAINERS' proposals */
	/* Sampling. */
	char			 revert_sha[GIT_OID_HEXSZ + 1];
	unsigned		 want;
	unsigned		 inflight;
	unsigned		 lost;
	/* What the report shows; the arrays below are owned. */
	struct report_verification rep;
	double			*rsamples;
	const char		*susp[8];
	/* More than one culprit (verify_split.c). */
	double			 range;		/* bad - good level */
	int64_t			 child[2];
	size_t			 nchild;
	struct verify_share	 shares[VERIFY_MAX_SHARES];
	size_t			 nshares;
	struct report_culprit_share rep_shares[VERIFY_MAX_SHARES];
};

struct verify_values {
	const struct bisection	*b;
	int			 good;	/* take the good boundaries' samples */
	double			*v;
	size_t			 n;
};

/* The headline metric's samples at sha (NULL: at b's good boundaries). */
void	verify_values(struct sched *s, const struct bisection *b,
	    const char *sha, struct verify_values *out);
/* Stores the verdict and sends the report, after every check. */
void	verify_conclude(struct sched *s, struct verify *v);
/*
 * Starts child bisections when another culprit may lie in the range: 1
 * when v now waits for them (VERIFY_SPLITTING), 0 when there is none.
 */
int	verify_split_start(struct sched *s, struct verify *v);
/*
 * 1 when the culprit's and bad's runs hint at a difference without
 * showing one (SPLIT_HINT): more runs at both before the split.
 */
int	verify_split_unsure(struct sched *s, struct verify *v);
/* Concludes v once every child has finished. */
void	verify_split_check(struct sched *s, struct verify *v);

#endif
