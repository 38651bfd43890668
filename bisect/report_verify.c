/* SPDX-License-Identifier: MIT */
/*
 * The report's "Verification" section: what the checks made after the
 * verdict found (the revert on top of bad, a byte-identical build, the
 * culprit's suspicious signs, every culprit with its share), in text and
 * JSON.  Pure, like the rest of the report: the daemon runs the tests and
 * fills struct report_verification.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bisect/report.h"

static const char *const report_revert_names[] = {
	[REPORT_REVERT_NOT_TRIED] = "not-tried",
	[REPORT_REVERT_RESTORES] = "restores",
	[REPORT_REVERT_NOT_RESTORED] = "does-not-restore",
	[REPORT_REVERT_CONFLICTS] = "conflicts",
	[REPORT_REVERT_UNBUILDABLE] = "does-not-build",
};

const char *
report_revert_name(enum report_revert r)
{
	return (unsigned)r < sizeof(report_revert_names) /
	    sizeof(report_revert_names[0]) ? report_revert_names[r] : "?";
}

#define REPORT_NOOP_TEXT "the culprit's build is byte-identical to its " \
	"parent's: the change is noise, code alignment or the environment"

/*
 * Signs of a wrong bisection lower no confidence, but a reader must see
 * them before the verdict, so they come right under the subject.
 */
void
report_verify_write_flags(FILE *fp, const struct report_input *in)
{
	const struct report_verification *v = in->verification;
	size_t i;

	if (v == NULL || (v->n_suspicions == 0 && !v->noop))
		return;
	for (i = 0; i < v->n_suspicions; i++)
		fprintf(fp, "suspicious: %s\n", v->suspicions[i]);
	if (v->noop)
		fprintf(fp, "no-op: %s\n", REPORT_NOOP_TEXT);
	fprintf(fp, "\n");
}

/* "p = 0.0012", or "p < 1e-6" below what four digits show. */
static void
report_verify_fmt_p(char *buf, size_t len, double p)
{
	if (!isfinite(p))
		snprintf(buf, len, "p = n/a");
	else if (p < 1e-6)
		snprintf(buf, len, "p < 1e-6");
	else
		snprintf(buf, len, "p = %.2g", p);
}

/* The revert line in the words, then the numbers behind it. */
static void
report_verify_write_revert(FILE *fp, const struct report_input *in,
    const struct report_verification *v)
{
	char pb[32], pp[32];
	size_t i;

	report_verify_fmt_p(pb, sizeof(pb), v->p_bad);
	report_verify_fmt_p(pp, sizeof(pp), v->p_parent);
	switch (v->revert) {
	case REPORT_REVERT_NOT_TRIED:
		fprintf(fp, "revert: not tried\n");
		return;
	case REPORT_REVERT_RESTORES:
		fprintf(fp, "revert on top of %.12s restores %s (%+.1f%% back; "
		    "%s)\n", in->bad_rev, in->metric, v->back_pct, pb);
		break;
	case REPORT_REVERT_NOT_RESTORED:
		fprintf(fp, "revert does not restore it: the change may depend "
		    "on later commits or lie elsewhere (%+.1f%% against bad; "
		    "%s)\n", v->back_pct, pb);
		break;
	case REPORT_REVERT_CONFLICTS:
		fprintf(fp, "revert does not apply (conflicts in ");
		for (i = 0; i < v->n_conflicts; i++)
			fprintf(fp, "%s%s", i ? ", " : "", v->conflicts[i]);
		if (v->n_conflicts_total > v->n_conflicts)
			fprintf(fp, " and %zu more", v->n_conflicts_total -
			    v->n_conflicts);
		fprintf(fp, ")\n");
		return;
	case REPORT_REVERT_UNBUILDABLE:
		fprintf(fp, "revert on top of %.12s applies but does not build "
		    "or run\n", in->bad_rev);
		return;
	}
	fprintf(fp, "revert commit: %s, %zu runs", v->revert_sha ?
	    v->revert_sha : "", v->revert_runs);
	if (isfinite(v->restored))
		fprintf(fp, ", %.0f%% of the culprit's change undone",
		    100 * v->restored);
	fprintf(fp, "; against the culprit's parent %s\n", pp);
}

void
report_verify_write(FILE *fp, const struct report_input *in)
{
	const struct report_verification *v = in->verification;
	size_t i;

	if (v == NULL)
		return;
	fprintf(fp, "Verification:\n");
	report_verify_write_revert(fp, in, v);
	if (v->noop)
		fprintf(fp, "%s\n", REPORT_NOOP_TEXT);
	for (i = 0; i < v->n_suspicions; i++)
		fprintf(fp, "suspicious: %s\n", v->suspicions[i]);
	for (i = 0; i < v->n_culprits; i++) {
		fprintf(fp, "culprit %zu: %.12s", i + 1, v->culprits[i].sha);
		if (v->culprits[i].subject != NULL)
			fprintf(fp, " (\"%s\")", v->culprits[i].subject);
		if (isfinite(v->culprits[i].share))
			fprintf(fp, ": %.0f%% of the change",
			    100 * v->culprits[i].share);
		fprintf(fp, "\n");
	}
	fprintf(fp, "\n");
}

/* null for what JSON cannot hold. */
static json_t *
report_verify_real(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

json_t *
report_verify_json(const struct report_input *in)
{
	const struct report_verification *v = in->verification;
	json_t *o, *a;
	size_t i;

	if (v == NULL)
		return NULL;
	o = json_pack("{s:s, s:I, s:b}", "revert",
	    report_revert_name(v->revert), "revert_runs",
	    (json_int_t)v->revert_runs, "noop", v->noop);
	if (v->revert_sha != NULL)
		json_object_set_new(o, "revert_commit",
		    json_string(v->revert_sha));
	if (v->revert == REPORT_REVERT_RESTORES ||
	    v->revert == REPORT_REVERT_NOT_RESTORED) {
		json_object_set_new(o, "back_pct", report_verify_real(
		    v->back_pct));
		json_object_set_new(o, "restored", report_verify_real(
		    v->restored));
		json_object_set_new(o, "p_bad", report_verify_real(v->p_bad));
		json_object_set_new(o, "p_parent", report_verify_real(
		    v->p_parent));
	}
	a = json_array();
	for (i = 0; i < v->n_revert_samples; i++)
		json_array_append_new(a, report_verify_real(
		    v->revert_samples[i]));
	json_object_set_new(o, "revert_samples", a);
	a = json_array();
	for (i = 0; i < v->n_conflicts; i++)
		json_array_append_new(a, json_string(v->conflicts[i]));
	json_object_set_new(o, "conflicts", a);
	a = json_array();
	for (i = 0; i < v->n_suspicions; i++)
		json_array_append_new(a, json_string(v->suspicions[i]));
	json_object_set_new(o, "suspicious", a);
	a = json_array();
	for (i = 0; i < v->n_culprits; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:o}", "commit",
		    v->culprits[i].sha, "subject", v->culprits[i].subject ?
		    json_string(v->culprits[i].subject) : json_null(),
		    "share", report_verify_real(v->culprits[i].share)));
	json_object_set_new(o, "culprits", a);
	return o;
}
