/* SPDX-License-Identifier: MIT */
/*
 * A run's values of one metric as one value.  The run (one build, one
 * boot, one benchmark execution) is the unit of replication: values a run
 * prints for one metric (LKP's one per iteration) share its boot, memory
 * layout and clock, so the statistics see one value per run, combined by
 * the metric's aggregate (mean by default; `metrics = NAME:KIND:AGG`).
 * The raw values stay stored and shown.
 *
 * Values beyond BD_VALUE_MAX in magnitude are refused wherever a value
 * enters (benchmark output, lab results, the engine): the statistics add
 * and square values, and no benchmark measures anything that large.
 */
#ifndef COMMON_AGG_H
#define COMMON_AGG_H

#include <stddef.h>

#include "common/names.h"

#define BD_VALUE_MAX	1e100

enum agg_kind {
	AGG_MEAN = 0,
	AGG_MEDIAN,
	AGG_MIN,
	AGG_MAX,
};

/* "mean", "median", "min", "max". */
extern const struct name_value agg_names[];

/* 1 when v is finite and at most BD_VALUE_MAX in magnitude. */
int	agg_value_valid(double v);

/*
 * The aggregate of v[0..n-1] into *out.  Returns 0, or -EINVAL when n is
 * 0 or a value is not agg_value_valid.  v is not changed.  The mean is a
 * running one, so it never overflows where every value is valid.
 */
int	agg_apply(enum agg_kind kind, const double *v, size_t n, double *out);

#endif
