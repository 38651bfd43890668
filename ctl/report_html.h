/* SPDX-License-Identifier: MIT */
/*
 * A report as one self-contained HTML page with SVG plots: the samples in
 * the order taken, the samples by commit position with the culprit
 * marked, and the distributions at the two endpoints, then the comparison
 * table and the text report.  No script and no external resource, so the
 * page can be mailed, archived or opened offline.
 *
 * The input is the report's JSON form (report_render_json(), as the store
 * keeps it and `report` replies with it) and its text; both are only read.
 * The page is malloc'd and belongs to the caller.
 */
#ifndef CTL_REPORT_HTML_H
#define CTL_REPORT_HTML_H

#include <jansson.h>

#include "common/error.h"

/*
 * Renders the page into *out (NUL-terminated, caller frees).  text may be
 * NULL.  Returns 0, or -EINVAL when report is not a report object.
 */
int	report_html_render(const json_t *report, const char *text, char **out,
	    struct bd_error *err);

/* For the page's parts (report_html_confirm.c): text as HTML text. */
#include <stdio.h>
void	report_html_esc(FILE *fp, const char *s);
/*
 * The culprit's effect on each confirmed host group side by side, one
 * column a group, each with its interval drawn on one shared scale;
 * nothing without a "confirmation" object.
 */
void	report_html_confirm(FILE *fp, const json_t *report);

#endif
