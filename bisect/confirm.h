/* SPDX-License-Identifier: MIT */
/*
 * Confirmation of a culprit on other host groups: the culprit against its
 * parent on another kind of machine, judged with the reproduction check's
 * sequential test (bisect/repro) and its min_change, and the report's
 * rows of that.
 *
 * Pure functions; the caller owns every array.
 */
#ifndef BISECT_CONFIRM_H
#define BISECT_CONFIRM_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "bisect/repro.h"

enum confirm_verdict {
	CONFIRM_PENDING = 0,	/* still measuring */
	CONFIRM_CHANGED,	/* the culprit changes the metric there too */
	CONFIRM_UNCHANGED,	/* no change of min_change or more there */
	CONFIRM_UNCLEAR,	/* measured to the end without a decision */
	CONFIRM_NVERDICTS
};

/* What one group's runs say: the relative change and its 95% interval. */
struct confirm_effect {
	enum confirm_verdict verdict;
	double	parent;		/* robust location or failure rate */
	double	culprit;
	double	change;		/* (culprit - parent) / |parent|, or the
				   failure-rate difference; NAN: unknown */
	double	lo, hi;		/* 95% interval of change */
	size_t	n_parent, n_culprit;	/* runs, one value each */
};

/*
 * Judges parent[0..np-1] against culprit[0..nc-1] with rp: the check's
 * "reproduced" is changed and "not reproduced" unchanged; undecided is
 * pending while finished is 0, unclear once it is 1.
 */
void	confirm_judge(const struct repro_params *rp, const double *parent,
	    size_t np, const double *culprit, size_t nc, int finished,
	    struct confirm_effect *out);

/* "changed", "unchanged", "unclear" or "pending". */
const char *confirm_verdict_name(enum confirm_verdict v);

/* One row of the report's confirmation table. */
struct report_confirm {
	const char	*group;
	const char	*machine;	/* its test hosts' describe; NULL */
	int64_t		 bisection;	/* the child measuring it */
	size_t		 runs;		/* every run, skipped ones too */
	int		 own;		/* the group the culprit was found on */
	struct confirm_effect effect;
};

/* A row as JSON (new reference): group, machine, verdict, effect, runs. */
json_t	*confirm_row_json(const struct report_confirm *row);
/* How many rows reproduce: the own group and those changed. */
size_t	confirm_reproduced(const struct report_confirm *rows, size_t n);

#endif
