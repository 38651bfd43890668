/* SPDX-License-Identifier: MIT */
/*
 * What a maintainer asks first about a report: what was tested (config,
 * compiler, test machine), how to reproduce it without bisectd (a
 * standalone script), and what else changed over the same tag pair
 * (0-day's "also affects" table).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/report.h"
#include "common/xmalloc.h"

/* Steps and entries come from the configuration and the store: check them. */
int
report_tested_validate(const struct report_input *in, struct bd_error *err)
{
	const struct report_step *steps[2] = { in->repro_base, in->repro_head };
	size_t counts[2] = { in->n_repro_base, in->n_repro_head };
	size_t i, k;

	for (k = 0; k < 2; k++) {
		if (counts[k] > 0 && steps[k] == NULL)
			return bd_error_set(err, -EINVAL, "reproduce steps "
			    "missing");
		for (i = 0; i < counts[k]; i++)
			if (steps[k][i].name == NULL ||
			    steps[k][i].command == NULL)
				return bd_error_set(err, -EINVAL, "reproduce "
				    "step %zu needs a name and a command", i);
	}
	if (in->n_build_inputs > 0 && in->build_inputs == NULL)
		return bd_error_set(err, -EINVAL, "build inputs missing");
	for (i = 0; i < in->n_build_inputs; i++)
		if (in->build_inputs[i] == NULL)
			return bd_error_set(err, -EINVAL, "build input %zu "
			    "missing", i);
	if (in->n_also > 0 && in->also == NULL)
		return bd_error_set(err, -EINVAL, "also-affects entries "
		    "missing");
	for (i = 0; i < in->n_also; i++) {
		const struct report_also *a = &in->also[i];

		if (a->benchmark == NULL || a->metric == NULL ||
		    isinf(a->change) ||
		    (unsigned)a->direction > REPORT_DIRECTION_UNKNOWN)
			return bd_error_set(err, -EINVAL, "also-affects entry "
			    "%zu needs a benchmark, a metric, a finite change "
			    "and a direction", i);
		for (k = 0; k < a->n_params; k++)
			if (a->params[k].key == NULL ||
			    a->params[k].value == NULL)
				return bd_error_set(err, -EINVAL, "also-affects "
				    "entry %zu: parameter %zu incomplete", i, k);
	}
	return 0;
}

/* lkp's "config:", "compiler:" and "test machine:" lines, when known. */
void
report_tested_write(FILE *fp, const struct report_input *in)
{
	if (in->kconfig != NULL)
		fprintf(fp, "config: %s\n", in->kconfig);
	if (in->compiler != NULL)
		fprintf(fp, "compiler: %s\n", in->compiler);
	if (in->machine != NULL)
		fprintf(fp, "test machine: %s\n", in->machine);
}

/*
 * An entry's relative change: its own, or for a metric of the bisected
 * benchmark that the sweep did not measure, the table's parent-to-culprit
 * one.  NAN when neither is known.
 */
static double
report_also_change_of(const struct report_summary *ctx,
    const struct report_also *a)
{
	const struct report_table *t = &ctx->table;
	size_t i;

	if (!isnan(a->change))
		return a->change;
	if (strcmp(a->benchmark, ctx->in->benchmark) != 0)
		return NAN;
	for (i = 0; i < t->n_rows; i++)
		if (strcmp(t->rows[i].metric, a->metric) == 0 &&
		    t->rows[i].base.mean != 0)
			return (t->rows[i].head.mean - t->rows[i].base.mean) /
			    fabs(t->rows[i].base.mean);
	return NAN;
}

/* The change of one entry as lkp words it: "-6.6% regression". */
static void
report_also_phrase(char *buf, size_t len, const struct report_also *a,
    double change)
{
	struct report_input dir;
	struct report_row r;

	memset(&r, 0, sizeof(r));
	r.change = 100 * change;
	report_input_init(&dir);
	dir.direction = a->direction;
	report_change_phrase(buf, len, &r, report_change_word(&dir, r.change));
}

/* One "| label | text |" line of the table, padded to width. */
static void
report_also_line(FILE *fp, const char *label, const char *text, int width)
{
	fprintf(fp, "| %-16s | %-*s |\n", label, width, text);
}

/* The table's rule: +------------------+-----...-----+ */
static void
report_also_rule(FILE *fp, int width)
{
	int i;

	fprintf(fp, "+------------------+");
	for (i = 0; i < width + 2; i++)
		fputc('-', fp);
	fprintf(fp, "+\n");
}

/* "benchmark: metric 23.7% improvement" of one entry (caller frees). */
static char *
report_also_change(const struct report_also *a, double change)
{
	char label[256], phrase[128], *s;

	report_metric_label(label, sizeof(label), a->benchmark, a->metric);
	report_also_phrase(phrase, sizeof(phrase), a, change);
	xasprintf(&s, "%s: %s %s", a->benchmark, label, phrase);
	return s;
}

/*
 * lkp's "also has significant impact" table, but honest about what it is:
 * these tests changed over the same tag pair and were not bisected.
 */
void
report_also_write(FILE *fp, const struct report_summary *ctx)
{
	const struct report_input *in = ctx->in;
	char *change, *kv;
	size_t i, k, shown = 0;
	int width = 0, w;

	for (i = 0; i < in->n_also; i++) {
		const struct report_also *a = &in->also[i];
		double c = report_also_change_of(ctx, a);

		if (isnan(c))
			continue;
		shown++;
		change = report_also_change(a, c);
		w = (int)strlen(change);
		free(change);
		width = w > width ? w : width;
		if (a->machine != NULL && (int)strlen(a->machine) > width)
			width = (int)strlen(a->machine);
		for (k = 0; k < a->n_params; k++) {
			w = (int)(strlen(a->params[k].key) +
			    strlen(a->params[k].value) + 1);
			width = w > width ? w : width;
		}
	}
	if (shown == 0)
		return;
	fprintf(fp, "In addition to that, these tests changed between %s and "
	    "%s as well\n(found by sweeps over the same tags, not bisected):\n\n",
	    in->sweep_prev_ref ? in->sweep_prev_ref : "the good ref",
	    in->sweep_ref ? in->sweep_ref : "the bad ref");
	report_also_rule(fp, width);
	for (i = 0; i < in->n_also; i++) {
		const struct report_also *a = &in->also[i];
		double c = report_also_change_of(ctx, a);

		if (isnan(c))
			continue;
		change = report_also_change(a, c);
		report_also_line(fp, "testcase: change", change, width);
		free(change);
		if (a->machine != NULL)
			report_also_line(fp, "test machine", a->machine, width);
		for (k = 0; k < a->n_params; k++) {
			xasprintf(&kv, "%s=%s", a->params[k].key,
			    a->params[k].value);
			report_also_line(fp, k == 0 ? "test parameters" : "",
			    kv, width);
			free(kv);
		}
		if (a->sweep != NULL)
			report_also_line(fp, "sweep", a->sweep, width);
		report_also_rule(fp, width);
	}
	fprintf(fp, "\n");
}

/* The same entries with the raw change, for programs. */
json_t *
report_also_json(const struct report_summary *ctx)
{
	const struct report_input *in = ctx->in;
	json_t *arr = json_array(), *params;
	char phrase[128];
	size_t i, k;

	for (i = 0; i < in->n_also; i++) {
		const struct report_also *a = &in->also[i];
		double c = report_also_change_of(ctx, a);

		if (isnan(c))
			continue;
		params = json_object();
		for (k = 0; k < a->n_params; k++)
			json_object_set_new(params, a->params[k].key,
			    json_string(a->params[k].value));
		report_also_phrase(phrase, sizeof(phrase), a, c);
		json_array_append_new(arr, json_pack("{s:s?, s:s, s:s, s:f, "
		    "s:s, s:s, s:s?, s:o}", "sweep", a->sweep, "benchmark",
		    a->benchmark, "metric", a->metric, "change", c,
		    "measured", isnan(a->change) ? "culprit" : "sweep",
		    "text", phrase, "test_machine", a->machine, "params",
		    params));
	}
	return arr;
}

bool
report_script_present(const struct report_input *in)
{
	return in->n_repro_base > 0 || in->n_repro_head > 0;
}

/* One side: the checkout, then each command in its host's workdir. */
static void
report_script_side(FILE *fp, const char *label, const char *sha,
    const struct report_step *steps, size_t n)
{
	char *w;
	size_t i;

	fprintf(fp, "\n# %s\n", label);
	if (sha != NULL)
		fprintf(fp, "git -C \"$TREE\" checkout --detach %s\n", sha);
	for (i = 0; i < n; i++) {
		if (steps[i].host != NULL)
			fprintf(fp, "# %s, on %s\n", steps[i].name,
			    steps[i].host);
		else
			fprintf(fp, "# %s\n", steps[i].name);
		if (steps[i].workdir != NULL) {
			w = report_shell_join((char *const *)&steps[i].workdir,
			    1);
			fprintf(fp, "(cd %s && %s)\n", w, steps[i].command);
			free(w);
		} else
			fprintf(fp, "(%s)\n", steps[i].command);
	}
}

/*
 * A script a maintainer runs without bisectd: both commits checked out in
 * turn and the benchmark's own commands, expanded as bisectd ran them.
 */
char *
report_script(const struct report_input *in)
{
	bool culprit = in->kind == REPORT_CULPRIT;
	char *out = NULL;
	size_t len, i;
	FILE *fp;

	if (!report_script_present(in) ||
	    (fp = open_memstream(&out, &len)) == NULL)
		return NULL;
	fprintf(fp, "#!/bin/sh\n# Reproduces bisection %s without bisectd:\n"
	    "# %s at %s, then at %s.\n", in->id, in->benchmark,
	    culprit ? "the culprit's parent" : "the good end",
	    culprit ? "the culprit" : "the bad end");
	fprintf(fp, "# TREE: a clone of %s\n# (default: the current "
	    "directory).  Each command runs on the host named\n# above it, "
	    "in that host's work directory.\n", in->repo_url ?
	    in->repo_url : "the kernel tree");
	if (in->n_build_inputs > 0) {
		fprintf(fp, "# The build also reads:");
		for (i = 0; i < in->n_build_inputs; i++)
			fprintf(fp, " %s", in->build_inputs[i]);
		fprintf(fp, "\n");
	}
	fprintf(fp, "set -e\nTREE=${TREE:-$PWD}\n");
	report_script_side(fp, culprit ? "the culprit's parent" : "good",
	    in->base.sha, in->repro_base, in->n_repro_base);
	report_script_side(fp, culprit ? "the culprit" : "bad",
	    culprit ? in->culprit.sha : in->head.sha, in->repro_head,
	    in->n_repro_head);
	fclose(fp);
	return out;
}
