/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's "Other machine kinds": one column a host group, the
 * culprit's change against its parent with its 95% interval drawn on a
 * scale shared by every column, so the groups compare at a glance.
 */
#include <math.h>
#include <stdio.h>

#include "ctl/report_html.h"

#define CONFIRM_W	140	/* pixels of one column's drawing */
#define CONFIRM_H	40

/* A number of the JSON, NAN for null or absent. */
static double
confirm_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The largest |change| or interval end, so every column shares a scale. */
static double
confirm_span(const json_t *groups)
{
	const char *keys[] = { "change", "change_low", "change_high" };
	const json_t *g;
	double span = 0.01, x;
	size_t i, k;

	json_array_foreach(groups, i, g)
		for (k = 0; k < 3; k++)
			if (isfinite(x = confirm_num(g, keys[k])) &&
			    fabs(x) > span)
				span = fabs(x);
	return span * 1.1;
}

/* One group's interval around zero: a bar from low to high, a dot. */
static void
confirm_draw(FILE *fp, const json_t *g, double span)
{
	double c = confirm_num(g, "change"), lo = confirm_num(g, "change_low");
	double hi = confirm_num(g, "change_high"), mid = CONFIRM_W / 2.0;
	double k = (CONFIRM_W / 2.0 - 6) / span;

	fprintf(fp, "<svg width=\"%d\" height=\"%d\" role=\"img\">"
	    "<line class=\"grid\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\"/>",
	    CONFIRM_W, CONFIRM_H, mid, mid, CONFIRM_H);
	if (isfinite(lo) && isfinite(hi))
		fprintf(fp, "<line class=\"axis\" x1=\"%.1f\" y1=\"20\" "
		    "x2=\"%.1f\" y2=\"20\"/>", mid + k * lo, mid + k * hi);
	if (isfinite(c))
		fprintf(fp, "<circle class=\"s-bad\" cx=\"%.1f\" cy=\"20\" "
		    "r=\"4\"/>", mid + k * c);
	fputs("</svg>", fp);
}

/* A row of the table: one cell a group. */
static void
confirm_row(FILE *fp, const json_t *groups, const char *head,
    const char *key)
{
	const json_t *g;
	size_t i;

	fprintf(fp, "<tr><th class=\"m\">%s</th>", head);
	json_array_foreach(groups, i, g) {
		fputs("<td class=\"m\">", fp);
		if (json_is_string(json_object_get(g, key)))
			report_html_esc(fp, json_string_value(json_object_get(g,
			    key)));
		else if (json_is_integer(json_object_get(g, key)))
			fprintf(fp, "%lld", (long long)json_integer_value(
			    json_object_get(g, key)));
		fputs("</td>", fp);
	}
	fputs("</tr>", fp);
}

void
report_html_confirm(FILE *fp, const json_t *rep)
{
	const json_t *c = json_object_get(rep, "confirmation");
	const json_t *groups = json_object_get(c, "groups"), *g;
	double span, x, lo, hi;
	size_t i;

	if (json_array_size(groups) < 2)
		return;
	span = confirm_span(groups);
	fprintf(fp, "<h2>Other machine kinds: reproduces on %lld of %lld</h2>"
	    "\n<table class=\"confirm\">", (long long)json_integer_value(
	    json_object_get(c, "reproduced")), (long long)json_integer_value(
	    json_object_get(c, "kinds")));
	confirm_row(fp, groups, "group", "group");
	confirm_row(fp, groups, "verdict", "verdict");
	fputs("<tr><th class=\"m\">effect (95% interval)</th>", fp);
	json_array_foreach(groups, i, g) {
		x = confirm_num(g, "change");
		lo = confirm_num(g, "change_low");
		hi = confirm_num(g, "change_high");
		fputs("<td>", fp);
		if (isfinite(x) && isfinite(lo) && isfinite(hi))
			fprintf(fp, "%+.1f%% [%+.1f%%, %+.1f%%]", 100 * x,
			    100 * lo, 100 * hi);
		else if (isfinite(x))
			fprintf(fp, "%+.1f%%", 100 * x);
		else
			fputs("n/a", fp);
		fputs("<br>", fp);
		confirm_draw(fp, g, span);
		fputs("</td>", fp);
	}
	fputs("</tr>", fp);
	confirm_row(fp, groups, "runs", "runs");
	confirm_row(fp, groups, "test machine", "machine");
	fputs("</table>\n", fp);
}
