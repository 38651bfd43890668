/* SPDX-License-Identifier: MIT */
/*
 * The report's "Other machine kinds" section: the culprit against its
 * parent on each host group it was confirmed on, and the headline's
 * count of the kinds it reproduces on.  Pure: the daemon measures and
 * fills in->confirm.
 */
#include <math.h>
#include <stdio.h>

#include "bisect/report.h"

/* Only a culprit is confirmed, and only with another group measured. */
static int
report_confirm_shown(const struct report_input *in)
{
	return in->kind == REPORT_CULPRIT && in->n_confirm > 1;
}

void
report_confirm_write_headline(FILE *fp, const struct report_input *in)
{
	size_t i, k, sep = 0;

	if (!report_confirm_shown(in))
		return;
	k = confirm_reproduced(in->confirm, in->n_confirm);
	fprintf(fp, "It reproduces on %zu of %zu machine kinds (", k,
	    in->n_confirm);
	for (i = 0; i < in->n_confirm; i++) {
		const struct report_confirm *r = &in->confirm[i];

		fprintf(fp, "%s%s: %s", sep++ ? ", " : "", r->group, r->own ?
		    "bisected there" : confirm_verdict_name(r->effect.verdict));
	}
	fprintf(fp, ").\n\n");
}

/* "-14.2% [-16.0%, -12.4%]", rate differences in points. */
static void
report_confirm_effect(char *buf, size_t len, const struct confirm_effect *e)
{
	if (!isfinite(e->change))
		snprintf(buf, len, "n/a");
	else if (!isfinite(e->lo) || !isfinite(e->hi))
		snprintf(buf, len, "%+.1f%%", 100 * e->change);
	else
		snprintf(buf, len, "%+.1f%% [%+.1f%%, %+.1f%%]", 100 * e->change,
		    100 * e->lo, 100 * e->hi);
}

void
report_confirm_write(FILE *fp, const struct report_input *in)
{
	char effect[64];
	size_t i;

	if (!report_confirm_shown(in))
		return;
	fprintf(fp, "Other machine kinds (the culprit against its parent, "
	    "95%% intervals):\n\n");
	fprintf(fp, "  %-16s %-10s %-30s %5s  %s\n", "group", "verdict",
	    "effect", "runs", "test machine");
	for (i = 0; i < in->n_confirm; i++) {
		const struct report_confirm *r = &in->confirm[i];

		report_confirm_effect(effect, sizeof(effect), &r->effect);
		fprintf(fp, "  %-16s %-10s %-30s %5zu  %s\n", r->group,
		    r->own ? "bisected" : confirm_verdict_name(
		    r->effect.verdict), effect, r->runs, r->machine ?
		    r->machine : "(not described)");
	}
	fprintf(fp, "\n");
}

json_t *
report_confirm_json(const struct report_input *in)
{
	json_t *rows;
	size_t i;

	if (in->n_confirm == 0)
		return NULL;
	rows = json_array();
	for (i = 0; i < in->n_confirm; i++)
		json_array_append_new(rows, confirm_row_json(&in->confirm[i]));
	return json_pack("{s:I, s:I, s:o}", "reproduced", (json_int_t)
	    confirm_reproduced(in->confirm, in->n_confirm), "kinds",
	    (json_int_t)in->n_confirm, "groups", rows);
}
