/* SPDX-License-Identifier: MIT */
/*
 * The HTML form of a report.  Plots are drawn as inline SVG from the
 * numbers of the JSON form, with fixed, deterministic layout: the same
 * report gives the same bytes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/report_html.h"
#include "common/error.h"
#include "common/xmalloc.h"

#define HTML_PLOT_W	720
#define HTML_PLOT_H	300
#define HTML_LEFT	72
#define HTML_RIGHT	16
#define HTML_TOP	34
#define HTML_BOTTOM	44

/* The data range of one plot and the pixel box it is drawn into. */
struct html_frame {
	double	x0, x1, y0, y1;
};

static const char html_style[] =
    "body{font-family:sans-serif;margin:2em;max-width:60em;color:#222}"
    "h1{font-size:1.3em}h2{font-size:1.1em;margin-top:2em}"
    "pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:.85em}"
    "table{border-collapse:collapse;font-size:.9em}"
    "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}"
    "td.m,th.m{text-align:left}tr.changed td{background:#fff4e0}"
    "dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}"
    "dt{font-weight:bold}dd{margin:0}"
    "svg{background:#fff;border:1px solid #ddd}"
    ".axis{stroke:#444;stroke-width:1;fill:none}"
    ".grid{stroke:#e4e4e4;stroke-width:1}"
    ".tick{font-size:11px;fill:#444}"
    ".label{font-size:12px;fill:#222}"
    ".s-good{fill:#2c7bb6}.s-bad{fill:#d7191c}.s-unclassified{fill:#999}"
    ".culprit{stroke:#d7191c;stroke-dasharray:4 3;stroke-width:1.5}"
    ".culprit-label{font-size:12px;fill:#d7191c}"
    ".legend{font-size:11px;fill:#222}"
    "tr.touched td{background:#e8f1fb}dd.warn{color:#a40000}"
    ".median{stroke:#222;stroke-width:2}";

/*
 * Text from the report (subjects, names) must never become markup, and a
 * control character in it (an escape sequence from a commit subject) is
 * shown as '?', as bisectctl's text output shows it: C0 controls other
 * than newline and tab, DEL, and the C1 controls in UTF-8.
 */
void
report_html_esc(FILE *fp, const char *s)
{
	size_t left = s != NULL ? strlen(s) : 0;
	int n;

	while (left > 0) {
		n = bd_utf8_control((const unsigned char *)s, left);
		if (n > 0 && *s != '\n' && *s != '\t') {
			fputc('?', fp);
			s += n;
			left -= (size_t)n;
			continue;
		}
		switch (*s) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&#39;", fp); break;
		default: fputc(*s, fp);
		}
		s++;
		left--;
	}
}

static const char *
html_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

static double
html_num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Pixel coordinates of a data point inside the plot box. */
static double
html_px(const struct html_frame *f, double x)
{
	double span = f->x1 - f->x0;

	return HTML_LEFT + (span > 0 ? (x - f->x0) / span : 0.5) *
	    (HTML_PLOT_W - HTML_LEFT - HTML_RIGHT);
}

static double
html_py(const struct html_frame *f, double y)
{
	double span = f->y1 - f->y0;

	return HTML_PLOT_H - HTML_BOTTOM - (span > 0 ? (y - f->y0) / span :
	    0.5) * (HTML_PLOT_H - HTML_TOP - HTML_BOTTOM);
}

/* A 1, 2 or 5 step giving about five ticks, as plotting tools choose. */
static double
html_tick_step(double span)
{
	double raw = span / 5, mag, r;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	r = raw / mag;
	return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

/* Widens a flat or empty range so that its points sit inside the box. */
static void
html_pad(double *lo, double *hi)
{
	double pad;

	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
		return;
	}
	pad = (*hi - *lo) * 0.08;
	if (pad == 0)
		pad = fabs(*lo) > 0 ? fabs(*lo) * 0.05 : 1;
	*lo -= pad;
	*hi += pad;
}

/* The frame, grid lines, tick numbers and axis labels of one plot. */
static void
html_axes(FILE *fp, const struct html_frame *f, const char *xlabel,
    const char *ylabel, int xticks)
{
	double step, v;
	int x0 = HTML_LEFT, x1 = HTML_PLOT_W - HTML_RIGHT;
	int y0 = HTML_TOP, y1 = HTML_PLOT_H - HTML_BOTTOM;

	step = html_tick_step(f->y1 - f->y0);
	for (v = ceil(f->y0 / step) * step; v <= f->y1 + step * 1e-9;
	    v += step) {
		fprintf(fp, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" "
		    "y1=\"%.1f\" y2=\"%.1f\"/>", x0, x1, html_py(f, v),
		    html_py(f, v));
		fprintf(fp, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" "
		    "text-anchor=\"end\">%.6g</text>", x0 - 6,
		    html_py(f, v) + 4, fabs(v) < step * 1e-9 ? 0 : v);
	}
	if (xticks) {
		step = html_tick_step(f->x1 - f->x0);
		if (step < 1)
			step = 1;
		for (v = ceil(f->x0 / step) * step; v <= f->x1 + 1e-9;
		    v += step)
			fprintf(fp, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" "
			    "text-anchor=\"middle\">%.6g</text>",
			    html_px(f, v), y1 + 16, v);
	}
	fprintf(fp, "<rect class=\"axis\" x=\"%d\" y=\"%d\" width=\"%d\" "
	    "height=\"%d\"/>", x0, y0, x1 - x0, y1 - y0);
	fprintf(fp, "<text class=\"label\" x=\"%d\" y=\"%d\" "
	    "text-anchor=\"middle\">", (x0 + x1) / 2, HTML_PLOT_H - 8);
	report_html_esc(fp, xlabel);
	fprintf(fp, "</text><text class=\"label\" x=\"14\" y=\"%d\" "
	    "text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">",
	    (y0 + y1) / 2, (y0 + y1) / 2);
	report_html_esc(fp, ylabel);
	fputs("</text>", fp);
}

static void
html_svg_open(FILE *fp, const char *id, const char *title)
{
	fprintf(fp, "<h2>");
	report_html_esc(fp, title);
	fprintf(fp, "</h2>\n<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
	    id, HTML_PLOT_W, HTML_PLOT_H, HTML_PLOT_W, HTML_PLOT_H);
}

static void
html_point(FILE *fp, double x, double y, const char *cls, const char *tip)
{
	fprintf(fp, "<circle class=\"s-%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\">"
	    "<title>", cls, x, y);
	report_html_esc(fp, tip);
	fputs("</title></circle>", fp);
}

/*
 * What the colours and the lines mean, in one row above the plot's box
 * where no sample can be: the engine's verdict on each sample's commit.
 */
static void
html_legend(FILE *fp, int culprit, int endpoints)
{
	static const struct {
		const char *cls, *text, *ends;
	} items[] = {
		{ "good", "good side (before the culprit)", "good endpoint" },
		{ "bad", "bad side (culprit and after)", "bad endpoint" },
		{ "unclassified", "not classified", NULL },
	};
	const char *t;
	int x = HTML_LEFT + 4, y = 20;
	size_t i, n = endpoints ? 2 : 3;

	for (i = 0; i < n; i++) {
		t = endpoints ? items[i].ends : items[i].text;
		/* A round rect: every circle of a plot is a sample. */
		fprintf(fp, "<rect class=\"s-%s\" x=\"%d\" y=\"%d\" "
		    "width=\"7\" height=\"7\" rx=\"3.5\"/><text class=\"legend\" "
		    "x=\"%d\" y=\"%d\">%s</text>", items[i].cls, x, y - 7,
		    x + 11, y, t);
		x += 11 + 6 * (int)strlen(t) + 18;
	}
	if (culprit || endpoints)
		fprintf(fp, "<line class=\"%s\" x1=\"%d\" x2=\"%d\" "
		    "y1=\"%d\" y2=\"%d\"/><text class=\"legend\" x=\"%d\" "
		    "y=\"%d\">%s</text>", endpoints ? "median" : "culprit", x,
		    x + 12, y - 4, y - 4, x + 16, y, endpoints ? "median" :
		    "culprit");
}

/* The y range over the bisection samples and both endpoints together. */
static void
html_value_range(const json_t *samples, const json_t *good,
    const json_t *bad, double *lo, double *hi)
{
	const json_t *lists[] = { good, bad };
	const json_t *v;
	size_t i, k;
	double x;

	*lo = INFINITY;
	*hi = -INFINITY;
	json_array_foreach(samples, i, v) {
		x = html_num(json_object_get(v, "value"));
		if (isfinite(x)) {
			*lo = fmin(*lo, x);
			*hi = fmax(*hi, x);
		}
	}
	for (k = 0; k < 2; k++)
		json_array_foreach(lists[k], i, v) {
			x = html_num(v);
			if (isfinite(x)) {
				*lo = fmin(*lo, x);
				*hi = fmax(*hi, x);
			}
		}
	html_pad(lo, hi);
}

/*
 * Bisection samples against x = their order (by_position 0) or their
 * commit's position between good and bad (1, with the culprit marked).
 */
static void
html_plot_samples(FILE *fp, const json_t *rep, const json_t *samples,
    double lo, double hi, int by_position)
{
	struct html_frame f = { .y0 = lo, .y1 = hi };
	json_int_t npos = json_integer_value(json_object_get(rep,
	    "n_positions"));
	json_int_t cpos = json_is_integer(json_object_get(rep,
	    "culprit_position")) ? json_integer_value(json_object_get(rep,
	    "culprit_position")) : -1;
	const json_t *v;
	char tip[160];
	size_t i, n = json_array_size(samples);
	double x;

	f.x0 = by_position ? 0 : 1;
	f.x1 = by_position ? (double)(npos > 0 ? npos : 1) : (double)(n > 1 ?
	    n : 2);
	html_svg_open(fp, by_position ? "plot-position" : "plot-order",
	    by_position ? "Samples by commit position (good 0 .. bad)" :
	    "Samples in the order taken");
	html_axes(fp, &f, by_position ? "commit position" : "sample",
	    html_str(rep, "metric"), 1);
	if (by_position && cpos >= 0) {
		fprintf(fp, "<line class=\"culprit\" x1=\"%.1f\" x2=\"%.1f\" "
		    "y1=\"%d\" y2=\"%d\"><title>culprit</title></line>",
		    html_px(&f, (double)cpos), html_px(&f, (double)cpos),
		    HTML_TOP, HTML_PLOT_H - HTML_BOTTOM);
		/* The label sits on the side of the line with more room. */
		fprintf(fp, "<text class=\"culprit-label\" x=\"%.1f\" "
		    "y=\"%d\" text-anchor=\"%s\">culprit %.10s</text>",
		    html_px(&f, (double)cpos) + (cpos * 2 > npos ? -4 : 4),
		    HTML_TOP + 14, cpos * 2 > npos ? "end" : "start",
		    html_str(json_object_get(rep, "culprit"), "sha"));
	}
	json_array_foreach(samples, i, v) {
		x = html_num(json_object_get(v, "value"));
		if (!isfinite(x))
			continue;
		snprintf(tip, sizeof(tip), "%.12s %.6g (%s)",
		    html_str(v, "sha"), x, html_str(v, "class"));
		html_point(fp, html_px(&f, by_position ?
		    (double)json_integer_value(json_object_get(v, "position")) :
		    (double)(i + 1)), html_py(&f, x), html_str(v, "class"),
		    tip);
	}
	html_legend(fp, by_position && cpos >= 0, 0);
	fputs("</svg>\n", fp);
}

static int
html_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One endpoint's samples as a column of points with its median. */
static void
html_column(FILE *fp, const struct html_frame *f, const json_t *vals,
    double center, const char *cls, const char *name)
{
	double *v = xcalloc(json_array_size(vals) + 1, sizeof(*v));
	const json_t *e;
	char tip[96];
	size_t i, n = 0;

	json_array_foreach(vals, i, e)
		if (isfinite(html_num(e)))
			v[n++] = html_num(e);
	for (i = 0; i < n; i++) {
		/* A fixed zig-zag spreads equal values without randomness. */
		double dx = ((double)(i % 7) - 3) * 0.035;

		snprintf(tip, sizeof(tip), "%s sample %zu: %.6g", name, i + 1,
		    v[i]);
		html_point(fp, html_px(f, center + dx), html_py(f, v[i]), cls,
		    tip);
	}
	if (n > 0) {
		qsort(v, n, sizeof(*v), html_cmp_double);
		double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;

		fprintf(fp, "<line class=\"median\" x1=\"%.1f\" x2=\"%.1f\" "
		    "y1=\"%.1f\" y2=\"%.1f\"><title>median %.6g</title></line>",
		    html_px(f, center - 0.2), html_px(f, center + 0.2),
		    html_py(f, med), html_py(f, med), med);
	}
	fprintf(fp, "<text class=\"label\" x=\"%.1f\" y=\"%d\" "
	    "text-anchor=\"middle\">%s (%zu)</text>", html_px(f, center),
	    HTML_PLOT_H - HTML_BOTTOM + 18, name, n);
	free(v);
}

/* The distributions at good and bad, side by side on one value axis. */
static void
html_plot_endpoints(FILE *fp, const json_t *rep, const json_t *good,
    const json_t *bad, double lo, double hi)
{
	struct html_frame f = { .x0 = 0, .x1 = 2, .y0 = lo, .y1 = hi };

	html_svg_open(fp, "plot-endpoints", "Endpoint distributions");
	html_axes(fp, &f, "", html_str(rep, "metric"), 0);
	html_column(fp, &f, good, 0.5, "good", "good");
	html_column(fp, &f, bad, 1.5, "bad", "bad");
	html_legend(fp, 0, 1);
	fputs("</svg>\n", fp);
}

/*
 * A commit's sha, shortened to len, as a link to its page where [repo]
 * has a commit_url template ({sha} the full sha), else as code.
 */
static void
html_commit(FILE *fp, const json_t *rep, const char *sha, int len)
{
	const char *tmpl = json_string_value(json_object_get(json_object_get(
	    rep, "mail"), "commit_url")), *at;
	char shortsha[48];

	snprintf(shortsha, sizeof(shortsha), "%.*s", len, sha ? sha : "");
	if (tmpl == NULL || sha == NULL || *sha == '\0') {
		fputs("<code>", fp);
		report_html_esc(fp, shortsha);
		fputs("</code>", fp);
		return;
	}
	fputs("<a href=\"", fp);
	for (; (at = strstr(tmpl, "{sha}")) != NULL; tmpl = at + 5) {
		char *part = xstrndup(tmpl, (size_t)(at - tmpl));

		report_html_esc(fp, part);
		report_html_esc(fp, sha);
		free(part);
	}
	report_html_esc(fp, tmpl);
	fputs("\"><code>", fp);
	report_html_esc(fp, shortsha);
	fputs("</code></a>", fp);
}

/* A column header: the side's sha and how many runs are behind it. */
static void
html_side_header(FILE *fp, const json_t *rep, const char *sha,
    const json_t *stats)
{
	fputs("<th>", fp);
	html_commit(fp, rep, sha, 10);
	if (json_is_integer(json_object_get(stats, "n")))
		fprintf(fp, "<br>mean, n=%lld", (long long)json_integer_value(
		    json_object_get(stats, "n")));
	else
		fputs("<br>mean", fp);
	fputs("</th>", fp);
}

/* The comparison table's rows with the figures the text prints. */
static void
html_table(FILE *fp, const json_t *rep, const json_t *cmp)
{
	const json_t *rows = json_object_get(cmp, "rows"), *r;
	const json_t *first = json_array_get(rows, 0);
	size_t i;

	if (json_array_size(rows) == 0)
		return;
	fputs("<h2>Comparison</h2>\n<table><tr>", fp);
	html_side_header(fp, rep, html_str(cmp, "base"),
	    json_object_get(first, "base"));
	fputs("<th>%stddev</th><th>%change</th>", fp);
	html_side_header(fp, rep, html_str(cmp, "head"),
	    json_object_get(first, "head"));
	fputs("<th>%stddev</th><th class=\"m\">metric</th></tr>\n", fp);
	json_array_foreach(rows, i, r) {
		const json_t *b = json_object_get(r, "base");
		const json_t *h = json_object_get(r, "head");

		fprintf(fp, "<tr%s><td>%.6g</td><td>%.1f</td><td>%+.1f</td>"
		    "<td>%.6g</td><td>%.1f</td><td class=\"m\">",
		    json_is_true(json_object_get(r, "touched")) ?
		    " class=\"touched\"" :
		    json_is_true(json_object_get(r, "changed")) ?
		    " class=\"changed\"" : "",
		    html_num(json_object_get(b, "mean")),
		    html_num(json_object_get(b, "stddev_percent")),
		    html_num(json_object_get(r, "change")),
		    html_num(json_object_get(h, "mean")),
		    html_num(json_object_get(h, "stddev_percent")));
		report_html_esc(fp, html_str(r, "metric"));
		if (json_is_true(json_object_get(r, "touched")))
			fputs(" (touched by the culprit)", fp);
		fputs("</td></tr>\n", fp);
	}
	fputs("</table>\n", fp);
}

static void
html_parents(FILE *fp, const json_t *rep)
{
	const json_t *p;
	size_t i;

	json_array_foreach(json_object_get(rep, "parents"), i, p) {
		fputs("<dt>parent</dt><dd>", fp);
		html_commit(fp, rep, html_str(p, "sha"), 40);
		fputs(" ", fp);
		report_html_esc(fp, html_str(p, "subject"));
		fputs("</dd>", fp);
	}
}

/* What the revert showed, and every sign that the verdict may be wrong. */
static void
html_verification(FILE *fp, const json_t *rep)
{
	const json_t *v = json_object_get(rep, "verification"), *s;
	const char *revert = html_str(v, "revert");
	size_t i;

	if (v == NULL)
		return;
	fputs("<dt>verification</dt><dd>", fp);
	if (strcmp(revert, "restores") == 0)
		fprintf(fp, "the revert on top of bad restores %.0f%% of the "
		    "change", 100 * html_num(json_object_get(v, "restored")));
	else if (strcmp(revert, "does-not-restore") == 0)
		fputs("the revert on top of bad does not restore the parent's "
		    "level", fp);
	else if (strcmp(revert, "conflicts") == 0)
		fputs("the revert does not apply on top of bad", fp);
	else if (strcmp(revert, "does-not-build") == 0)
		fputs("the revert did not build or run", fp);
	else
		fputs("no revert was tried", fp);
	fputs("</dd>", fp);
	if (json_is_true(json_object_get(v, "noop")))
		fputs("<dt>suspicious</dt><dd class=\"warn\">the culprit's build "
		    "is byte-identical to its parent's</dd>", fp);
	json_array_foreach(json_object_get(v, "suspicious"), i, s) {
		fputs("<dt>suspicious</dt><dd class=\"warn\">", fp);
		report_html_esc(fp, json_string_value(s));
		fputs("</dd>", fp);
	}
}

/* The first lines a reader looks for: what changed, where, how sure. */
static void
html_summary(FILE *fp, const json_t *rep)
{
	const json_t *culprit = json_object_get(rep, "culprit");
	const json_t *head = json_object_get(rep, "headline");
	const json_t *sweep;

	fputs("<dl>", fp);
	fputs("<dt>verdict</dt><dd>", fp);
	report_html_esc(fp, html_str(rep, "kind"));
	fputs("</dd><dt>benchmark</dt><dd>", fp);
	report_html_esc(fp, html_str(rep, "benchmark"));
	fputs("</dd><dt>metric</dt><dd>", fp);
	report_html_esc(fp, html_str(rep, "metric"));
	fputs("</dd><dt>change</dt><dd>", fp);
	report_html_esc(fp, html_str(head, "text"));
	fputs("</dd>", fp);
	if (culprit != NULL) {
		fputs("<dt>culprit</dt><dd>", fp);
		html_commit(fp, rep, html_str(culprit, "sha"), 40);
		fputs(" ", fp);
		report_html_esc(fp, html_str(culprit, "subject"));
		fputs("</dd>", fp);
		html_parents(fp, rep);
	}
	html_verification(fp, rep);
	if ((sweep = json_object_get(rep, "sweep")) != NULL) {
		fputs("<dt>sweep</dt><dd>", fp);
		report_html_esc(fp, html_str(sweep, "name"));
		fputs(", ", fp);
		report_html_esc(fp, html_str(sweep, "prev_ref"));
		fputs(" to ", fp);
		report_html_esc(fp, html_str(sweep, "ref"));
		fputs("</dd>", fp);
	}
	fprintf(fp, "<dt>confidence</dt><dd>%.1f%%</dd>"
	    "<dt>samples</dt><dd>%lld", 100 * html_num(json_object_get(rep,
	    "confidence")), (long long)json_integer_value(json_object_get(rep,
	    "total_samples")));
	if (sweep != NULL)
		fprintf(fp, ", %lld reused from the sweep",
		    (long long)json_integer_value(json_object_get(sweep,
		    "reused_samples")));
	fputs("</dd></dl>\n", fp);
}

/* Whether line (len bytes) is an ASCII plot's top or bottom frame line. */
static int
html_plot_frame(const char *line, size_t len)
{
	const char *plus = memmem(line, len, "+----------", 11);

	return plus != NULL && line[len - 1] == '+';
}

/*
 * The text report without its ASCII plots, which the page draws above:
 * each plot (its title, frame, x range and legend line) becomes one line
 * saying so.
 */
static void
html_text(FILE *fp, const char *text)
{
	const char *p = text, *nl, *prev = NULL, *title;
	size_t len;
	char *line;

	while (*p != '\0') {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (prev != NULL && html_plot_frame(p, len)) {
			/* The title was written; take it back as a note. */
			title = prev + strspn(prev, " ");
			fputs("        (plot: ", fp);
			line = xstrndup(title, strcspn(title, "\n"));
			report_html_esc(fp, line);
			free(line);
			fputs(", drawn above)\n", fp);
			/* Skip to the legend line, "[*] ...", or a blank. */
			while (*p != '\0' && *p != '[' && *p != '\n') {
				nl = strchr(p, '\n');
				p = nl ? nl + 1 : p + strlen(p);
			}
			if (*p == '[') {
				nl = strchr(p, '\n');
				p = nl ? nl + 1 : p + strlen(p);
			}
			prev = NULL;
			continue;
		}
		if (prev != NULL) {
			line = xstrndup(prev, strcspn(prev, "\n"));
			report_html_esc(fp, line);
			fputc('\n', fp);
			free(line);
		}
		prev = p;
		p = nl ? nl + 1 : p + len;
	}
	if (prev != NULL) {
		line = xstrndup(prev, strcspn(prev, "\n"));
		report_html_esc(fp, line);
		if (prev[strcspn(prev, "\n")] == '\n')
			fputc('\n', fp);
		free(line);
	}
}

/* Writes the whole page; every section reads only the JSON form. */
int
report_html_render(const json_t *rep, const char *text, char **out,
    struct bd_error *err)
{
	const json_t *samples, *ends, *good, *bad;
	char *buf = NULL;
	size_t len = 0;
	double lo, hi;
	FILE *fp;

	*out = NULL;
	if (!json_is_object(rep) || !json_is_string(json_object_get(rep,
	    "kind")) || !json_is_string(json_object_get(rep, "metric")))
		return bd_error_set(err, -EINVAL,
		    "not a report: kind and metric are missing");
	samples = json_object_get(rep, "bisection_samples");
	ends = json_object_get(rep, "endpoints");
	good = json_object_get(ends, "good");
	bad = json_object_get(ends, "bad");
	if ((fp = open_memstream(&buf, &len)) == NULL)
		return bd_error_set(err, -ENOMEM, "cannot open a memory stream");
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<title>", fp);
	report_html_esc(fp, html_str(rep, "subject"));
	fprintf(fp, "</title><style>%s</style></head><body>\n<h1>", html_style);
	report_html_esc(fp, html_str(rep, "subject"));
	fputs("</h1>\n", fp);
	html_summary(fp, rep);
	html_value_range(samples, good, bad, &lo, &hi);
	if (json_array_size(samples) > 0) {
		html_plot_samples(fp, rep, samples, lo, hi, 0);
		if (json_integer_value(json_object_get(rep, "n_positions")) > 0)
			html_plot_samples(fp, rep, samples, lo, hi, 1);
	}
	if (json_array_size(good) + json_array_size(bad) > 0)
		html_plot_endpoints(fp, rep, good, bad, lo, hi);
	report_html_confirm(fp, rep);
	html_table(fp, rep, json_object_get(rep, "comparison"));
	if (text != NULL) {
		fputs("<h2>Report</h2>\n<pre>", fp);
		html_text(fp, text);
		fputs("</pre>\n", fp);
	}
	fputs("</body></html>\n", fp);
	if (fclose(fp) != 0) {
		free(buf);
		return bd_error_set(err, -ENOMEM, "cannot write the page");
	}
	*out = buf;
	return 0;
}
