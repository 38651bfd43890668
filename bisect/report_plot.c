/* SPDX-License-Identifier: MIT */
/*
 * ASCII scatter plots in the manner of the gnuplot "dumb" plots of 0-day
 * reports: y ticks on the left, a framed area, one character per sample.
 * Plain ASCII, so they survive any mail client.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bisect/report.h"

#define W	REPORT_PLOT_WIDTH
#define H	REPORT_PLOT_HEIGHT

/* One bit per class in a cell, so that a mixed cell can be told apart. */
#define OCC(c)	(1u << (c))

static const struct {
	enum report_class	 cls;
	char			 mark;
	const char		*legend;
} report_marks[] = {
	{ REPORT_GOOD, '*', "bisect-good sample" },
	{ REPORT_BAD, 'O', "bisect-bad sample" },
	{ REPORT_UNCLASSIFIED, '?', "unclassified sample" },
};

#define NMARKS	(sizeof(report_marks) / sizeof(report_marks[0]))

/* The smallest of 1, 2, 2.5, 5 times a power of ten that is >= raw. */
static double
report_nice_step(double raw)
{
	static const double steps[] = { 1, 2, 2.5, 5, 10 };
	double p = pow(10, floor(log10(raw)));
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (steps[i] * p >= raw * (1 - 1e-9))
			return steps[i] * p;
	}
	return 10 * p;
}

struct report_axis {
	double	min, max, step;
	int	ticks;
};

/* Round tick values around [lo, hi], about six intervals. */
static void
report_axis_fit(struct report_axis *ax, double lo, double hi)
{
	if (hi == lo) {
		double pad = fabs(lo) > 0 ? fabs(lo) * 0.05 : 1;

		lo -= pad;
		hi += pad;
	}
	ax->step = report_nice_step((hi - lo) / 6);
	ax->min = floor(lo / ax->step) * ax->step;
	ax->max = ceil(hi / ax->step) * ax->step;
	ax->ticks = (int)lround((ax->max - ax->min) / ax->step) + 1;
}

/*
 * %g like gnuplot's labels (1.3e+07, 900000, 0.7), with more digits when
 * six would print two neighbouring ticks alike (a narrow range at a large
 * level).
 */
static void
report_fmt_tick(char *buf, size_t len, const struct report_axis *ax, int k)
{
	char a[32], b[32];
	double t = ax->min + k * ax->step;
	int prec = 6;

	if (fabs(t) < ax->step * 1e-9)
		t = 0;
	for (; prec < 15; prec++) {
		snprintf(a, sizeof(a), "%.*g", prec, ax->min);
		snprintf(b, sizeof(b), "%.*g", prec, ax->min + ax->step);
		if (strcmp(a, b) != 0)
			break;
	}
	snprintf(buf, len, "%.*g", prec, t);
}

/* Maps x to an inner column, so no point lands on the side borders. */
static int
report_plot_col(const struct report_plot *p, double x, int iw)
{
	long c;

	if (!(p->xmax > p->xmin))
		return 1 + iw / 2;
	c = lround((x - p->xmin) / (p->xmax - p->xmin) * (iw - 1));
	if (c < 0)
		c = 0;
	if (c > iw - 1)
		c = iw - 1;
	return 1 + (int)c;
}

/*
 * One class in a cell shows its mark; several show '#', never a misleading
 * mark.
 */
static char
report_cell_char(unsigned occ)
{
	size_t i;

	for (i = 0; i < NMARKS; i++) {
		if (occ == OCC(report_marks[i].cls))
			return report_marks[i].mark;
	}
	return '#';
}

/* Puts s into line at column col if it fits inside width. */
static void
report_put(char *line, int width, int col, const char *s)
{
	int n = (int)strlen(s);

	if (col < 0 || col + n > width)
		return;
	memcpy(line + col, s, n);
}

/* Plain-text mail should carry no trailing blanks. */
static void
report_write_trimmed(FILE *fp, char *line, int width)
{
	while (width > 0 && line[width - 1] == ' ')
		width--;
	fprintf(fp, "%.*s\n", width, line);
}

/* The x range under the frame, with the axis name between its ends. */
static void
report_plot_xaxis(FILE *fp, const struct report_plot *p, int left, int fw)
{
	char line[W + 1], lo[32], hi[32];
	int mid;

	memset(line, ' ', W);
	snprintf(lo, sizeof(lo), "%g", p->xmin);
	snprintf(hi, sizeof(hi), "%g", p->xmax);
	report_put(line, W, left + 1, lo);
	report_put(line, W, left + fw - 1 - (int)strlen(hi), hi);
	if (p->xlabel != NULL) {
		mid = left + (fw - (int)strlen(p->xlabel)) / 2;
		if (mid > left + 1 + (int)strlen(lo) &&
		    mid + (int)strlen(p->xlabel) < left + fw - 1 -
		    (int)strlen(hi))
			report_put(line, W, mid, p->xlabel);
	}
	report_write_trimmed(fp, line, W);
}

/* The marks that appear, wrapped at the plot width. */
static void
report_plot_legend(FILE *fp, const struct report_plot *p, unsigned used,
    bool mixed)
{
	char item[128];
	int col = 0, n;
	size_t i;

	for (i = 0; i < NMARKS + 2; i++) {
		if (i < NMARKS && (used & OCC(report_marks[i].cls)))
			snprintf(item, sizeof(item), "[%c] %s",
			    report_marks[i].mark, report_marks[i].legend);
		else if (i == NMARKS && mixed)
			snprintf(item, sizeof(item),
			    "[#] samples of different kinds in one cell");
		else if (i == NMARKS + 1 && p->has_mark)
			snprintf(item, sizeof(item), "[:] %s",
			    p->mark_label ? p->mark_label : "marker");
		else
			continue;
		n = (int)strlen(item);
		if (col > 0 && col + 2 + n > W) {
			fputc('\n', fp);
			col = 0;
		}
		col += fprintf(fp, "%s%s", col > 0 ? "  " : "", item);
	}
	if (col > 0)
		fputc('\n', fp);
}

/* Frame, ticks, points, axis and legend, in that order. */
void
report_plot_write(FILE *fp, const struct report_plot *p)
{
	char grid[H][W + 1], line[W + 1], ticklab[H][32], buf[32];
	unsigned occ[H][W], used = 0;
	struct report_axis ax;
	double lo = INFINITY, hi = -INFINITY;
	int lw = 1, fw, r, c, k, pad, tickrow[H];
	bool mixed = false;
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (!isfinite(p->pts[i].x) || !isfinite(p->pts[i].y))
			continue;
		lo = fmin(lo, p->pts[i].y);
		hi = fmax(hi, p->pts[i].y);
	}
	if (p->title != NULL) {
		pad = (W - (int)strlen(p->title)) / 2;
		fprintf(fp, "%*s%s\n", pad > 0 ? pad : 0, "", p->title);
	}
	if (lo > hi) {
		fprintf(fp, "(no samples)\n");
		return;
	}
	report_axis_fit(&ax, lo, hi);

	/* Tick labels on the rows nearest their values. */
	memset(tickrow, 0, sizeof(tickrow));
	for (k = 0; k < ax.ticks; k++) {
		report_fmt_tick(buf, sizeof(buf), &ax, k);
		r = (int)lround((ax.max - (ax.min + k * ax.step)) /
		    (ax.max - ax.min) * (H - 1));
		if (r < 0 || r >= H || tickrow[r])
			continue;
		tickrow[r] = 1;
		snprintf(ticklab[r], sizeof(ticklab[r]), "%s", buf);
		if ((int)strlen(buf) > lw)
			lw = (int)strlen(buf);
	}
	fw = W - lw - 1;

	memset(occ, 0, sizeof(occ));
	for (r = 0; r < H; r++) {
		bool edge = r == 0 || r == H - 1;

		memset(grid[r], edge ? '-' : ' ', fw);
		grid[r][0] = grid[r][fw - 1] = edge || tickrow[r] ? '+' : '|';
	}
	if (p->has_mark && isfinite(p->mark_x)) {
		c = report_plot_col(p, p->mark_x, fw - 2);
		for (r = 1; r < H - 1; r++)
			grid[r][c] = ':';
	}
	for (i = 0; i < p->n; i++) {
		const struct report_point *pt = &p->pts[i];

		if (!isfinite(pt->x) || !isfinite(pt->y))
			continue;
		c = report_plot_col(p, pt->x, fw - 2);
		r = (int)lround((ax.max - pt->y) / (ax.max - ax.min) * (H - 1));
		occ[r][c] |= OCC(pt->cls);
		used |= OCC(pt->cls);
	}
	for (r = 0; r < H; r++) {
		for (c = 0; c < fw; c++) {
			if (occ[r][c] == 0)
				continue;
			grid[r][c] = report_cell_char(occ[r][c]);
			mixed |= grid[r][c] == '#';
		}
		snprintf(line, sizeof(line), "%*s %.*s", lw,
		    tickrow[r] ? ticklab[r] : "", fw, grid[r]);
		fprintf(fp, "%s\n", line);
	}
	report_plot_xaxis(fp, p, lw + 1, fw);
	report_plot_legend(fp, p, used, mixed);
}
