/* SPDX-License-Identifier: MIT */
/*
 * The trend plot of `bisectctl sweep NAME`: one watched metric over the
 * swept refs, 80 columns of plain ASCII (bisect/report_plot.c draws it),
 * each run a point above its ref, the change point marked.
 *
 * Pure: writes only to the stream it is given; keeps no pointer.
 */
#ifndef BISECT_SWEEP_PLOT_H
#define BISECT_SWEEP_PLOT_H

#include <stddef.h>
#include <stdio.h>

/* One swept ref, oldest first: its label and the metric's runs there. */
struct sweep_plot_ref {
	const char	*label;		/* e.g. next-20261201 */
	const double	*v;		/* n 0: failed or not run yet */
	size_t		 n;
};

/*
 * Writes the plot of metric over refs[0..n-1].  change is the index of the
 * first ref after the estimated change point (its runs are drawn 'O',
 * earlier ones '*', and a ':' column stands between the two refs); n or
 * more: no change.  found is the index of the ref whose judgement found
 * it: beyond change, the legend says so and how many refs late.
 */
void	sweep_plot_write(FILE *fp, const char *metric,
	    const struct sweep_plot_ref *refs, size_t n, size_t change,
	    size_t found);

#endif
