/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/agg.h"
#include "common/xmalloc.h"

const struct name_value agg_names[] = {
	{ "mean", AGG_MEAN },
	{ "median", AGG_MEDIAN },
	{ "min", AGG_MIN },
	{ "max", AGG_MAX },
	{ NULL, 0 },
};

/* One bound for every place a value enters: see agg.h. */
int
agg_value_valid(double v)
{
	return isfinite(v) && fabs(v) <= BD_VALUE_MAX;
}

static int
agg_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of a copy, so callers keep their values in run order. */
static double
agg_median(const double *v, size_t n)
{
	double *s = xmalloc(n * sizeof(*s)), m;

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), agg_cmp);
	m = n % 2 ? s[n / 2] : s[n / 2 - 1] / 2 + s[n / 2] / 2;
	free(s);
	return m;
}

/*
 * One value per run for the statistics.  The mean is updated in place
 * (m += (x - m) / k), which stays within the values' range.
 */
int
agg_apply(enum agg_kind kind, const double *v, size_t n, double *out)
{
	double r;
	size_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!agg_value_valid(v[i]))
			return -EINVAL;
	r = v[0];
	switch (kind) {
	case AGG_MEDIAN:
		r = agg_median(v, n);
		break;
	case AGG_MIN:
	case AGG_MAX:
		for (i = 1; i < n; i++)
			if (kind == AGG_MIN ? v[i] < r : v[i] > r)
				r = v[i];
		break;
	case AGG_MEAN:
	default:
		for (i = 1; i < n; i++)
			r += (v[i] - r) / (double)(i + 1);
		break;
	}
	*out = r;
	return 0;
}
