/* SPDX-License-Identifier: MIT */
/*
 * Sweep trend plots: the swept refs become the x axis (ref i at x = i),
 * the runs become points classed before and after the change, and
 * report_plot_write draws them as the reports' plots are drawn.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bisect/report.h"
#include "bisect/sweep_plot.h"
#include "common/xmalloc.h"

/* See sweep_plot.h. */
void
sweep_plot_write(FILE *fp, const char *metric,
    const struct sweep_plot_ref *refs, size_t n, size_t change,
    size_t found)
{
	struct report_point *pts;
	struct report_plot p = { 0 };
	char *title, *xlabel, *mark = NULL;
	size_t i, j, np = 0, total = 0;

	for (i = 0; i < n; i++)
		total += refs[i].n;
	pts = xreallocarray(NULL, total ? total : 1, sizeof(*pts));
	for (i = 0; i < n; i++)
		for (j = 0; j < refs[i].n; j++)
			pts[np++] = (struct report_point){ .x = (double)i,
			    .y = refs[i].v[j],
			    .cls = i >= change ? REPORT_BAD : REPORT_GOOD };
	xasprintf(&title, "%s over %zu ref%s", metric, n, n == 1 ? "" : "s");
	xasprintf(&xlabel, "%s .. %s", n ? refs[0].label : "",
	    n ? refs[n - 1].label : "");
	p.title = title;
	p.xlabel = xlabel;
	p.pts = pts;
	p.n = np;
	p.xmin = 0;
	p.xmax = n > 1 ? (double)(n - 1) : 1;
	if (change > 0 && change < n) {
		if (found > change && found < n)
			xasprintf(&mark, "change between %s and %s, found at "
			    "%s (%zu ref%s late)", refs[change - 1].label,
			    refs[change].label, refs[found].label,
			    found - change, found - change == 1 ? "" : "s");
		else
			xasprintf(&mark, "change between %s and %s",
			    refs[change - 1].label, refs[change].label);
		p.has_mark = true;
		p.mark_x = (double)change - 0.5;
		p.mark_label = mark;
	}
	report_plot_write(fp, &p);
	free(pts);
	free(title);
	free(xlabel);
	free(mark);
}
